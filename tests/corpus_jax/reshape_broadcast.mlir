module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x6xf32>) -> (tensor<4x3xf64> {jax.result_info = "result"}) {
    %0 = stablehlo.reshape %arg0 : (tensor<2x6xf32>) -> tensor<4x3xf32>
    %1 = stablehlo.iota dim = 0 : tensor<3xf64>
    %2 = stablehlo.convert %0 : (tensor<4x3xf32>) -> tensor<4x3xf64>
    %3 = stablehlo.broadcast_in_dim %1, dims = [1] : (tensor<3xf64>) -> tensor<1x3xf64>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x3xf64>) -> tensor<4x3xf64>
    %5 = stablehlo.add %2, %4 : tensor<4x3xf64>
    %6 = stablehlo.reshape %arg0 : (tensor<2x6xf32>) -> tensor<4x3xf32>
    %7 = stablehlo.slice %6 [0:4, 0:1] : (tensor<4x3xf32>) -> tensor<4x1xf32>
    %8 = stablehlo.convert %7 : (tensor<4x1xf32>) -> tensor<4x1xf64>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<4x1xf64>) -> tensor<4x3xf64>
    %10 = stablehlo.multiply %5, %9 : tensor<4x3xf64>
    return %10 : tensor<4x3xf64>
  }
}
