module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> (tensor<8xf32> {jax.result_info = "result[0]"}, tensor<8xf32> {jax.result_info = "result[1]"}, tensor<8xf32> {jax.result_info = "result[2]"}, tensor<8xf32> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.maximum %arg0, %arg1 : tensor<8xf32>
    %1 = stablehlo.subtract %arg0, %arg1 : tensor<8xf32>
    %2 = stablehlo.compare NE, %1, %1, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %3 = stablehlo.add %arg0, %arg1 : tensor<8xf32>
    %4 = stablehlo.abs %1 : tensor<8xf32>
    %5 = stablehlo.negate %4 : tensor<8xf32>
    %6 = stablehlo.exponential %5 : tensor<8xf32>
    %7 = stablehlo.log_plus_one %6 : tensor<8xf32>
    %8 = stablehlo.add %0, %7 : tensor<8xf32>
    %9 = stablehlo.select %2, %3, %8 : tensor<8xi1>, tensor<8xf32>
    %10 = call @softplus(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
    %11 = call @elu(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
    %cst = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %13 = stablehlo.multiply %arg0, %12 : tensor<8xf32>
    %14 = call @relu6(%13) : (tensor<8xf32>) -> tensor<8xf32>
    return %9, %10, %11, %14 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  }
  func.func private @softplus(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<8xf32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %3 = stablehlo.subtract %arg0, %2 : tensor<8xf32>
    %4 = stablehlo.compare NE, %3, %3, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %6 = stablehlo.add %arg0, %5 : tensor<8xf32>
    %7 = stablehlo.abs %3 : tensor<8xf32>
    %8 = stablehlo.negate %7 : tensor<8xf32>
    %9 = stablehlo.exponential %8 : tensor<8xf32>
    %10 = stablehlo.log_plus_one %9 : tensor<8xf32>
    %11 = stablehlo.add %1, %10 : tensor<8xf32>
    %12 = stablehlo.select %4, %6, %11 : tensor<8xi1>, tensor<8xf32>
    return %12 : tensor<8xf32>
  }
  func.func private @elu(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %1 = stablehlo.compare GT, %arg0, %0, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %3 = stablehlo.compare GT, %arg0, %2, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %4 = call @_where(%3, %cst_1, %arg0) : (tensor<8xi1>, tensor<f64>, tensor<8xf32>) -> tensor<8xf32>
    %5 = stablehlo.exponential_minus_one %4 : tensor<8xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %7 = stablehlo.multiply %6, %5 : tensor<8xf32>
    %8 = call @_where_0(%1, %arg0, %7) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    return %8 : tensor<8xf32>
  }
  func.func private @_where(%arg0: tensor<8xi1>, %arg1: tensor<f64>, %arg2: tensor<8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<f64>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %2 = stablehlo.select %arg0, %1, %arg2 : tensor<8xi1>, tensor<8xf32>
    return %2 : tensor<8xf32>
  }
  func.func private @_where_0(%arg0: tensor<8xi1>, %arg1: tensor<8xf32>, %arg2: tensor<8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<8xi1>, tensor<8xf32>
    return %0 : tensor<8xf32>
  }
  func.func private @relu6(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<8xf32>
    %cst_0 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %3 = stablehlo.minimum %1, %2 : tensor<8xf32>
    return %3 : tensor<8xf32>
  }
}
