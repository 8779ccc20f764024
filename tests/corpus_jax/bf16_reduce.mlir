module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xbf16>) -> (tensor<3xbf16> {jax.result_info = "result[0]"}, tensor<5xbf16> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<3x5xbf16>) -> tensor<3x5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<3xf32>
    %2 = stablehlo.convert %1 : (tensor<3xf32>) -> tensor<3xbf16>
    %cst_0 = stablehlo.constant dense<0xFF80> : tensor<bf16>
    %3 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.maximum across dimensions = [0] : (tensor<3x5xbf16>, tensor<bf16>) -> tensor<5xbf16>
    return %2, %3 : tensor<3xbf16>, tensor<5xbf16>
  }
}
