module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x5xi32>) -> (tensor<5xi64> {jax.result_info = "result[0]"}, tensor<i32> {jax.result_info = "result[1]"}, tensor<4xi32> {jax.result_info = "result[2]"}, tensor<i1> {jax.result_info = "result[3]"}, tensor<i1> {jax.result_info = "result[4]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<4x5xi32>) -> tensor<4x5xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1 = stablehlo.reduce(%0 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<4x5xi64>, tensor<i64>) -> tensor<5xi64>
    %c_0 = stablehlo.constant dense<-2147483648> : tensor<i32>
    %2 = stablehlo.reduce(%arg0 init: %c_0) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<4x5xi32>, tensor<i32>) -> tensor<i32>
    %c_1 = stablehlo.constant dense<2147483647> : tensor<i32>
    %3 = stablehlo.reduce(%arg0 init: %c_1) applies stablehlo.minimum across dimensions = [1] : (tensor<4x5xi32>, tensor<i32>) -> tensor<4xi32>
    %c_2 = stablehlo.constant dense<3> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<4x5xi32>
    %5 = stablehlo.compare GT, %arg0, %4, SIGNED : (tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi1>
    %c_3 = stablehlo.constant dense<false> : tensor<i1>
    %6 = stablehlo.reduce(%5 init: %c_3) applies stablehlo.or across dimensions = [0, 1] : (tensor<4x5xi1>, tensor<i1>) -> tensor<i1>
    %c_4 = stablehlo.constant dense<-8> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<4x5xi32>
    %8 = stablehlo.compare GT, %arg0, %7, SIGNED : (tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi1>
    %c_5 = stablehlo.constant dense<true> : tensor<i1>
    %9 = stablehlo.reduce(%8 init: %c_5) applies stablehlo.and across dimensions = [0, 1] : (tensor<4x5xi1>, tensor<i1>) -> tensor<i1>
    return %1, %2, %3, %6, %9 : tensor<5xi64>, tensor<i32>, tensor<4xi32>, tensor<i1>, tensor<i1>
  }
}
