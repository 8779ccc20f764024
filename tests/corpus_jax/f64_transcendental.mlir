module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xf64>) -> (tensor<6xf64> {jax.result_info = "result[0]"}, tensor<6xf64> {jax.result_info = "result[1]"}, tensor<6xf64> {jax.result_info = "result[2]"}, tensor<6xf64> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.exponential %arg0 : tensor<6xf64>
    %1 = stablehlo.abs %arg0 : tensor<6xf64>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<6xf64>
    %3 = stablehlo.add %1, %2 : tensor<6xf64>
    %4 = stablehlo.log %3 : tensor<6xf64>
    %5 = stablehlo.tanh %arg0 : tensor<6xf64>
    %6 = stablehlo.sine %arg0 : tensor<6xf64>
    return %0, %4, %5, %6 : tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>
  }
}
