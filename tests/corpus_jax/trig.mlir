module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<9xf32>) -> (tensor<9xf32> {jax.result_info = "result[0]"}, tensor<9xf32> {jax.result_info = "result[1]"}, tensor<9xf32> {jax.result_info = "result[2]"}, tensor<9xf32> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.sine %arg0 : tensor<9xf32>
    %1 = stablehlo.cosine %arg0 : tensor<9xf32>
    %2 = stablehlo.tan %arg0 : tensor<9xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %4 = stablehlo.add %arg0, %3 : tensor<9xf32>
    %5 = stablehlo.atan2 %arg0, %4 : tensor<9xf32>
    return %0, %1, %2, %5 : tensor<9xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>
  }
}
