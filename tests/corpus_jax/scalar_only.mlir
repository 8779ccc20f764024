module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<f32>
    %1 = stablehlo.divide %arg0, %arg1 : tensor<f32>
    %2 = stablehlo.subtract %0, %1 : tensor<f32>
    return %2 : tensor<f32>
  }
}
