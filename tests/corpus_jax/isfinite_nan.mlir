module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>) -> (tensor<5xi1> {jax.result_info = "result[0]"}, tensor<5xi1> {jax.result_info = "result[1]"}, tensor<5xi1> {jax.result_info = "result[2]"}, tensor<5xf32> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.is_finite %arg0 : (tensor<5xf32>) -> tensor<5xi1>
    %1 = call @isinf(%arg0) : (tensor<5xf32>) -> tensor<5xi1>
    %2 = stablehlo.compare NE, %arg0, %arg0, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
    %3 = call @nan_to_num(%arg0) : (tensor<5xf32>) -> tensor<5xf32>
    return %0, %1, %2, %3 : tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<5xf32>
  }
  func.func private @isinf(%arg0: tensor<5xf32>) -> tensor<5xi1> {
    %0 = stablehlo.abs %arg0 : tensor<5xf32>
    %cst = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %2 = stablehlo.compare EQ, %0, %1, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
    return %2 : tensor<5xi1>
  }
  func.func private @nan_to_num(%arg0: tensor<5xf32>) -> tensor<5xf32> {
    %0 = stablehlo.compare NE, %arg0, %arg0, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = call @_where(%0, %cst, %arg0) : (tensor<5xi1>, tensor<f32>, tensor<5xf32>) -> tensor<5xf32>
    %cst_0 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %3 = stablehlo.compare EQ, %1, %2, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
    %cst_1 = stablehlo.constant dense<3.40282347E+38> : tensor<f32>
    %4 = call @_where(%3, %cst_1, %1) : (tensor<5xi1>, tensor<f32>, tensor<5xf32>) -> tensor<5xf32>
    %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %6 = stablehlo.compare EQ, %4, %5, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
    %cst_3 = stablehlo.constant dense<-3.40282347E+38> : tensor<f32>
    %7 = call @_where(%6, %cst_3, %4) : (tensor<5xi1>, tensor<f32>, tensor<5xf32>) -> tensor<5xf32>
    return %7 : tensor<5xf32>
  }
  func.func private @_where(%arg0: tensor<5xi1>, %arg1: tensor<f32>, %arg2: tensor<5xf32>) -> tensor<5xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<5xi1>, tensor<5xf32>
    return %1 : tensor<5xf32>
  }
}
