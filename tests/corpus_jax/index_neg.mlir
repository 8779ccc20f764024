module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x5xf32>) -> (tensor<3xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg0 [3:4, 0:5:2] : (tensor<4x5xf32>) -> tensor<1x3xf32>
    %1 = stablehlo.reverse %0, dims = [1] : tensor<1x3xf32>
    %2 = stablehlo.reshape %1 : (tensor<1x3xf32>) -> tensor<3xf32>
    return %2 : tensor<3xf32>
  }
}
