module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<7xf32>) -> (tensor<7xf32> {jax.result_info = "result[0]"}, tensor<7xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.abs %arg0 : tensor<7xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<7xf32>
    %2 = stablehlo.add %0, %1 : tensor<7xf32>
    %3 = chlo.lgamma %2 : tensor<7xf32> -> tensor<7xf32>
    %4 = stablehlo.abs %arg0 : tensor<7xf32>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<7xf32>
    %6 = stablehlo.add %4, %5 : tensor<7xf32>
    %7 = chlo.digamma %6 : tensor<7xf32> -> tensor<7xf32>
    return %3, %7 : tensor<7xf32>, tensor<7xf32>
  }
}
