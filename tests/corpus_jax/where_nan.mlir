module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.compare NE, %arg0, %arg0, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %1 = call @_where(%0, %cst, %arg0) : (tensor<4xi1>, tensor<f64>, tensor<4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @_where(%arg0: tensor<4xi1>, %arg1: tensor<f64>, %arg2: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<f64>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.select %arg0, %1, %arg2 : tensor<4xi1>, tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}
