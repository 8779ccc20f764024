module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x5xi4>, %arg1: tensor<5x3xf32>) -> (tensor<2x3xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg0 : (tensor<2x5xi4>) -> tensor<2x5xf32>
    %1 = stablehlo.dot_general %0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x5xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>
    return %1 : tensor<2x3xf32>
  }
}
