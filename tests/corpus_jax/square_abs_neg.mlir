module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<7xf32>) -> (tensor<7xf32> {jax.result_info = "result[0]"}, tensor<7xf32> {jax.result_info = "result[1]"}, tensor<7xf32> {jax.result_info = "result[2]"}, tensor<7xf32> {jax.result_info = "result[3]"}) {
    %0 = chlo.square %arg0 : tensor<7xf32> -> tensor<7xf32>
    %1 = stablehlo.abs %arg0 : tensor<7xf32>
    %2 = stablehlo.negate %arg0 : tensor<7xf32>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<7xf32>
    %4 = stablehlo.add %arg0, %3 : tensor<7xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<7xf32>
    %6 = stablehlo.divide %5, %4 : tensor<7xf32>
    return %0, %1, %2, %6 : tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>
  }
}
