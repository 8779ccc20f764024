module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xf8E5M2>) -> (tensor<3xf8E5M2> {jax.result_info = "result[0]"}, tensor<5xf8E5M2> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f8E5M2>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<3x5xf8E5M2>, tensor<f8E5M2>) -> tensor<3xf8E5M2>
    %cst_0 = stablehlo.constant dense<0xFC> : tensor<f8E5M2>
    %1 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.maximum across dimensions = [0] : (tensor<3x5xf8E5M2>, tensor<f8E5M2>) -> tensor<5xf8E5M2>
    return %0, %1 : tensor<3xf8E5M2>, tensor<5xf8E5M2>
  }
}
