module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xi1>, %arg1: tensor<2x3xf32>) -> (tensor<2x3xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<-1.000000e+00> : tensor<f64>
    %0 = call @_where(%arg0, %arg1, %cst) : (tensor<3xi1>, tensor<2x3xf32>, tensor<f64>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
  func.func private @_where(%arg0: tensor<3xi1>, %arg1: tensor<2x3xf32>, %arg2: tensor<f64>) -> tensor<2x3xf32> {
    %0 = stablehlo.convert %arg2 : (tensor<f64>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xi1>) -> tensor<2x3xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<2x3xi1>, tensor<2x3xf32>
    return %3 : tensor<2x3xf32>
  }
}
