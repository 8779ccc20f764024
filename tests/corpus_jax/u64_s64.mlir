module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xi64>, %arg1: tensor<4xi64>) -> (tensor<4xi64> {jax.result_info = "result[0]"}, tensor<4xui64> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<4xi64>
    %c = stablehlo.constant dense<7> : tensor<i64>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<4xi64>
    %2 = stablehlo.add %0, %1 : tensor<4xi64>
    %3 = stablehlo.convert %arg0 : (tensor<4xi64>) -> tensor<4xui64>
    %c_0 = stablehlo.constant dense<3> : tensor<ui64>
    %4 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui64>) -> tensor<4xui64>
    %5 = stablehlo.multiply %3, %4 : tensor<4xui64>
    %c_1 = stablehlo.constant dense<1> : tensor<ui64>
    %6 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui64>) -> tensor<4xui64>
    %7 = stablehlo.shift_right_logical %5, %6 : tensor<4xui64>
    return %2, %7 : tensor<4xi64>, tensor<4xui64>
  }
}
