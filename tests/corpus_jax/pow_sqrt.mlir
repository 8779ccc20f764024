module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<9xf32>) -> (tensor<9xf32> {jax.result_info = "result[0]"}, tensor<9xf32> {jax.result_info = "result[1]"}, tensor<9xf32> {jax.result_info = "result[2]"}, tensor<9xf32> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.abs %arg0 : tensor<9xf32>
    %cst = stablehlo.constant dense<1.500000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %2 = stablehlo.power %0, %1 : tensor<9xf32>
    %3 = stablehlo.abs %arg0 : tensor<9xf32>
    %4 = stablehlo.sqrt %3 : tensor<9xf32>
    %5 = stablehlo.abs %arg0 : tensor<9xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %7 = stablehlo.add %5, %6 : tensor<9xf32>
    %8 = stablehlo.rsqrt %7 : tensor<9xf32>
    %9 = stablehlo.cbrt %arg0 : tensor<9xf32>
    return %2, %4, %8, %9 : tensor<9xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>
  }
}
