module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x3xf64>) -> (tensor<3xi64> {jax.result_info = "result"}) {
    %0 = call @argmin(%arg0) : (tensor<5x3xf64>) -> tensor<3xi64>
    return %0 : tensor<3xi64>
  }
  func.func private @argmin(%arg0: tensor<5x3xf64>) -> tensor<3xi64> {
    %0 = stablehlo.iota dim = 0 : tensor<5x3xi64>
    %cst = stablehlo.constant dense<0x7FF0000000000000> : tensor<f64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [0] : (tensor<5x3xf64>, tensor<5x3xi64>, tensor<f64>, tensor<i64>) -> (tensor<3xf64>, tensor<3xi64>)
     reducer(%arg1: tensor<f64>, %arg3: tensor<f64>) (%arg2: tensor<i64>, %arg4: tensor<i64>)  {
      %2 = stablehlo.compare LT, %arg1, %arg3, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f64>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i64>
      stablehlo.return %9, %10 : tensor<f64>, tensor<i64>
    }
    return %1#1 : tensor<3xi64>
  }
}
