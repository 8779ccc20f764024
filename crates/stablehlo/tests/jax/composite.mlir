module @jit__comp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>) -> (tensor<5xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.composite "my.sin2" %arg0 {decomposition = @my.sin2} : (tensor<5xf32>) -> tensor<5xf32>
    return %0 : tensor<5xf32>
  }
  func.func private @my.sin2(%arg0: tensor<5xf32>) -> tensor<5xf32> {
    %0 = stablehlo.sine %arg0 : tensor<5xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<5xf32>
    return %2 : tensor<5xf32>
  }
}
