module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> (tensor<2x9xf32> {jax.result_info = "result[0]"}, tensor<2x2x3xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.concatenate %arg0, %arg1, %arg0, dim = 1 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
    %2 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
    %3 = stablehlo.concatenate %1, %2, dim = 0 : (tensor<1x2x3xf32>, tensor<1x2x3xf32>) -> tensor<2x2x3xf32>
    return %0, %3 : tensor<2x9xf32>, tensor<2x2x3xf32>
  }
}
