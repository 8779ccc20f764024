module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<7xf32>) -> (tensor<7xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<2.500000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<7xf32>
    %1 = stablehlo.divide %arg0, %0 : tensor<7xf32>
    %2 = chlo.erf_inv %1 : tensor<7xf32> -> tensor<7xf32>
    return %2 : tensor<7xf32>
  }
}
