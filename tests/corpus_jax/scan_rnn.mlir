module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3xf32>, %arg1: tensor<4x3xf32>) -> (tensor<3xf64> {jax.result_info = "result[0]"}, tensor<4xf64> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<4xf64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %2:5 = stablehlo.while(%iterArg = %arg1, %iterArg_1 = %arg0, %iterArg_2 = %c, %iterArg_3 = %0, %iterArg_4 = %1) : tensor<4x3xf32>, tensor<3x3xf32>, tensor<i64>, tensor<3xf64>, tensor<4xf64>
    cond {
      %c_5 = stablehlo.constant dense<4> : tensor<i64>
      %3 = stablehlo.compare LT, %iterArg_2, %c_5, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    } do {
      %3 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_2) : (tensor<4x3xf32>, tensor<i64>) -> tensor<3xf32>
      %4:2 = func.call @closed_call(%iterArg_1, %iterArg_3, %3) : (tensor<3x3xf32>, tensor<3xf64>, tensor<3xf32>) -> (tensor<3xf64>, tensor<f64>)
      %5 = func.call @dynamic_update_index_in_dim(%iterArg_4, %4#1, %iterArg_2) : (tensor<4xf64>, tensor<f64>, tensor<i64>) -> tensor<4xf64>
      %c_5 = stablehlo.constant dense<1> : tensor<i64>
      %6 = stablehlo.add %iterArg_2, %c_5 : tensor<i64>
      stablehlo.return %iterArg, %iterArg_1, %6, %4#0, %5 : tensor<4x3xf32>, tensor<3x3xf32>, tensor<i64>, tensor<3xf64>, tensor<4xf64>
    }
    return %2#3, %2#4 : tensor<3xf64>, tensor<4xf64>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<4x3xf32>, %arg1: tensor<i64>) -> tensor<3xf32> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 3] : (tensor<4x3xf32>, tensor<i64>, tensor<i64>) -> tensor<1x3xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x3xf32>) -> tensor<3xf32>
    return %1 : tensor<3xf32>
  }
  func.func private @closed_call(%arg0: tensor<3x3xf32>, %arg1: tensor<3xf64>, %arg2: tensor<3xf32>) -> (tensor<3xf64>, tensor<f64>) {
    %0 = stablehlo.convert %arg0 : (tensor<3x3xf32>) -> tensor<3x3xf64>
    %1 = stablehlo.convert %arg1 : tensor<3xf64>
    %2 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x3xf64>, tensor<3xf64>) -> tensor<3xf64>
    %3 = stablehlo.convert %arg2 : (tensor<3xf32>) -> tensor<3xf64>
    %4 = stablehlo.add %2, %3 : tensor<3xf64>
    %5 = stablehlo.tanh %4 : tensor<3xf64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %6 = stablehlo.reduce(%arg1 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<3xf64>, tensor<f64>) -> tensor<f64>
    return %5, %6 : tensor<3xf64>, tensor<f64>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<4xf64>, %arg1: tensor<f64>, %arg2: tensor<i64>) -> tensor<4xf64> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2 : (tensor<4xf64>, tensor<1xf64>, tensor<i64>) -> tensor<4xf64>
    return %1 : tensor<4xf64>
  }
}
