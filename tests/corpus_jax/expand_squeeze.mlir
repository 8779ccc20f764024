module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>) -> (tensor<3x2x4xf64> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 2] : (tensor<3x4xf32>) -> tensor<3x1x4xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3x2x4xf64>
    %2 = stablehlo.convert %0 : (tensor<3x1x4xf32>) -> tensor<3x1x4xf64>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1, 2] : (tensor<3x1x4xf64>) -> tensor<3x2x4xf64>
    %4 = stablehlo.multiply %3, %1 : tensor<3x2x4xf64>
    %5 = stablehlo.slice %arg0 [0:1, 0:4] : (tensor<3x4xf32>) -> tensor<1x4xf32>
    %6 = stablehlo.reshape %5 : (tensor<1x4xf32>) -> tensor<4xf32>
    return %4, %6 : tensor<3x2x4xf64>, tensor<4xf32>
  }
}
