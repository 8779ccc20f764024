module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<9xf32>) -> (tensor<9xf32> {jax.result_info = "result[0]"}, tensor<9xf32> {jax.result_info = "result[1]"}, tensor<9xf32> {jax.result_info = "result[2]"}, tensor<9xf32> {jax.result_info = "result[3]"}, tensor<9xf32> {jax.result_info = "result[4]"}, tensor<9xf32> {jax.result_info = "result[5]"}, tensor<9xf32> {jax.result_info = "result[6]"}) {
    %0 = chlo.asinh %arg0 : tensor<9xf32> -> tensor<9xf32>
    %1 = chlo.atan %arg0 : tensor<9xf32> -> tensor<9xf32>
    %cst = stablehlo.constant dense<2.500000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %3 = stablehlo.divide %arg0, %2 : tensor<9xf32>
    %4 = chlo.asin %3 : tensor<9xf32> -> tensor<9xf32>
    %cst_0 = stablehlo.constant dense<2.500000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %6 = stablehlo.divide %arg0, %5 : tensor<9xf32>
    %7 = chlo.acos %6 : tensor<9xf32> -> tensor<9xf32>
    %cst_1 = stablehlo.constant dense<2.500000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %9 = stablehlo.divide %arg0, %8 : tensor<9xf32>
    %10 = chlo.atanh %9 : tensor<9xf32> -> tensor<9xf32>
    %11 = chlo.sinh %arg0 : tensor<9xf32> -> tensor<9xf32>
    %12 = chlo.cosh %arg0 : tensor<9xf32> -> tensor<9xf32>
    return %0, %1, %4, %7, %10, %11, %12 : tensor<9xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>
  }
}
