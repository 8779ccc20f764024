module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x0xf32>) -> (tensor<3xf32> {jax.result_info = "result[0]"}, tensor<3x0xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<3x0xf32>, tensor<f32>) -> tensor<3xf32>
    %1 = stablehlo.concatenate %arg0, %arg0, dim = 1 : (tensor<3x0xf32>, tensor<3x0xf32>) -> tensor<3x0xf32>
    return %0, %1 : tensor<3xf32>, tensor<3x0xf32>
  }
}
