module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<3xf64> {jax.result_info = "result[1][0]"}, tensor<4x3xf64> {jax.result_info = "result[1][1][0]"}, tensor<4x3xf64> {jax.result_info = "result[1][1][1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1:3 = stablehlo.while(%iterArg = %arg0, %iterArg_4 = %c, %iterArg_5 = %0) : tensor<4x3xf32>, tensor<i64>, tensor<4xf32>
    cond {
      %c_6 = stablehlo.constant dense<4> : tensor<i64>
      %6 = stablehlo.compare LT, %iterArg_4, %c_6, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %6 : tensor<i1>
    } do {
      %6 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_4) : (tensor<4x3xf32>, tensor<i64>) -> tensor<3xf32>
      %7 = func.call @closed_call(%6) : (tensor<3xf32>) -> tensor<f32>
      %8 = func.call @dynamic_update_index_in_dim(%iterArg_5, %7, %iterArg_4) : (tensor<4xf32>, tensor<f32>, tensor<i64>) -> tensor<4xf32>
      %c_6 = stablehlo.constant dense<1> : tensor<i64>
      %9 = stablehlo.add %iterArg_4, %c_6 : tensor<i64>
      stablehlo.return %iterArg, %9, %8 : tensor<4x3xf32>, tensor<i64>, tensor<4xf32>
    }
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %3 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<4x3xf64>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<4x3xf64>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %5:5 = stablehlo.while(%iterArg = %arg0, %iterArg_4 = %c_3, %iterArg_5 = %2, %iterArg_6 = %3, %iterArg_7 = %4) : tensor<4x3xf32>, tensor<i64>, tensor<3xf64>, tensor<4x3xf64>, tensor<4x3xf64>
    cond {
      %c_8 = stablehlo.constant dense<4> : tensor<i64>
      %6 = stablehlo.compare LT, %iterArg_4, %c_8, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %6 : tensor<i1>
    } do {
      %6 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_4) : (tensor<4x3xf32>, tensor<i64>) -> tensor<3xf32>
      %7:3 = func.call @closed_call_0(%iterArg_5, %6) : (tensor<3xf64>, tensor<3xf32>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
      %8 = func.call @dynamic_update_index_in_dim_1(%iterArg_6, %7#1, %iterArg_4) : (tensor<4x3xf64>, tensor<3xf64>, tensor<i64>) -> tensor<4x3xf64>
      %9 = func.call @dynamic_update_index_in_dim_1(%iterArg_7, %7#2, %iterArg_4) : (tensor<4x3xf64>, tensor<3xf64>, tensor<i64>) -> tensor<4x3xf64>
      %c_8 = stablehlo.constant dense<1> : tensor<i64>
      %10 = stablehlo.add %iterArg_4, %c_8 : tensor<i64>
      stablehlo.return %iterArg, %10, %7#0, %8, %9 : tensor<4x3xf32>, tensor<i64>, tensor<3xf64>, tensor<4x3xf64>, tensor<4x3xf64>
    }
    return %1#2, %5#2, %5#3, %5#4 : tensor<4xf32>, tensor<3xf64>, tensor<4x3xf64>, tensor<4x3xf64>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<4x3xf32>, %arg1: tensor<i64>) -> tensor<3xf32> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 3] : (tensor<4x3xf32>, tensor<i64>, tensor<i64>) -> tensor<1x3xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x3xf32>) -> tensor<3xf32>
    return %1 : tensor<3xf32>
  }
  func.func private @closed_call(%arg0: tensor<3xf32>) -> tensor<f32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.multiply %0, %cst_0 : tensor<f32>
    return %1 : tensor<f32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<4xf32>, %arg1: tensor<f32>, %arg2: tensor<i64>) -> tensor<4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2 : (tensor<4xf32>, tensor<1xf32>, tensor<i64>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @closed_call_0(%arg0: tensor<3xf64>, %arg1: tensor<3xf32>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
    %0 = stablehlo.convert %arg1 : (tensor<3xf32>) -> tensor<3xf64>
    %1 = stablehlo.add %arg0, %0 : tensor<3xf64>
    %2 = stablehlo.convert %arg1 : (tensor<3xf32>) -> tensor<3xf64>
    %3 = stablehlo.multiply %arg0, %2 : tensor<3xf64>
    %4 = stablehlo.convert %arg1 : (tensor<3xf32>) -> tensor<3xf64>
    %5 = stablehlo.subtract %4, %arg0 : tensor<3xf64>
    return %1, %3, %5 : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
  }
  func.func private @dynamic_update_index_in_dim_1(%arg0: tensor<4x3xf64>, %arg1: tensor<3xf64>, %arg2: tensor<i64>) -> tensor<4x3xf64> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf64>) -> tensor<1x3xf64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<4x3xf64>, tensor<1x3xf64>, tensor<i64>, tensor<i64>) -> tensor<4x3xf64>
    return %1 : tensor<4x3xf64>
  }
}
