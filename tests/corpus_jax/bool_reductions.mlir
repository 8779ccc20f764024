module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xi1>) -> (tensor<4xi1> {jax.result_info = "result[0]"}, tensor<3xi1> {jax.result_info = "result[1]"}, tensor<3xi64> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<false> : tensor<i1>
    %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.or across dimensions = [0] : (tensor<3x4xi1>, tensor<i1>) -> tensor<4xi1>
    %c_0 = stablehlo.constant dense<true> : tensor<i1>
    %1 = stablehlo.reduce(%arg0 init: %c_0) applies stablehlo.and across dimensions = [1] : (tensor<3x4xi1>, tensor<i1>) -> tensor<3xi1>
    %2 = stablehlo.convert %arg0 : (tensor<3x4xi1>) -> tensor<3x4xi32>
    %3 = stablehlo.convert %2 : (tensor<3x4xi32>) -> tensor<3x4xi64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %4 = stablehlo.reduce(%3 init: %c_1) applies stablehlo.add across dimensions = [1] : (tensor<3x4xi64>, tensor<i64>) -> tensor<3xi64>
    return %0, %1, %4 : tensor<4xi1>, tensor<3xi1>, tensor<3xi64>
  }
}
