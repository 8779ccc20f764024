module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>, %arg1: tensor<3x4xf32>) -> (tensor<3x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg0 : (tensor<3x4xf32>) -> tensor<3x4xf8E4M3FN>
    %1 = stablehlo.convert %0 : (tensor<3x4xf8E4M3FN>) -> tensor<3x4xf32>
    %2 = stablehlo.multiply %1, %arg1 : tensor<3x4xf32>
    return %2 : tensor<3x4xf32>
  }
}
