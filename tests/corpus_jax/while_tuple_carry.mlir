module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32>) -> (tensor<2xf32> {jax.result_info = "result[0]"}, tensor<i64> {jax.result_info = "result[1]"}, tensor<f32> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0:3 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %c, %iterArg_1 = %cst) : tensor<2xf32>, tensor<i64>, tensor<f32>
    cond {
      %c_2 = stablehlo.constant dense<5> : tensor<i64>
      %1 = stablehlo.compare LT, %iterArg_0, %c_2, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %cst_2 = stablehlo.constant dense<1.500000e+00> : tensor<f32>
      %1 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2xf32>
      %2 = stablehlo.multiply %iterArg, %1 : tensor<2xf32>
      %c_3 = stablehlo.constant dense<1> : tensor<i64>
      %3 = stablehlo.add %iterArg_0, %c_3 : tensor<i64>
      %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %4 = stablehlo.reduce(%iterArg init: %cst_4) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
      %5 = stablehlo.add %iterArg_1, %4 : tensor<f32>
      stablehlo.return %2, %3, %5 : tensor<2xf32>, tensor<i64>, tensor<f32>
    }
    return %0#0, %0#1, %0#2 : tensor<2xf32>, tensor<i64>, tensor<f32>
  }
}
