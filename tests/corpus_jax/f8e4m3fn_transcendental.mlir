module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xf8E4M3FN>) -> (tensor<12xf8E4M3FN> {jax.result_info = "result[0]"}, tensor<12xf8E4M3FN> {jax.result_info = "result[1]"}, tensor<12xf8E4M3FN> {jax.result_info = "result[2]"}, tensor<12xf8E4M3FN> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.exponential %arg0 : tensor<12xf8E4M3FN>
    %1 = stablehlo.abs %arg0 : tensor<12xf8E4M3FN>
    %2 = stablehlo.sqrt %1 : tensor<12xf8E4M3FN>
    %3 = stablehlo.tanh %arg0 : tensor<12xf8E4M3FN>
    %4 = stablehlo.abs %arg0 : tensor<12xf8E4M3FN>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f8E4M3FN>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f8E4M3FN>) -> tensor<12xf8E4M3FN>
    %6 = stablehlo.add %4, %5 : tensor<12xf8E4M3FN>
    %7 = stablehlo.log %6 : tensor<12xf8E4M3FN>
    return %0, %2, %3, %7 : tensor<12xf8E4M3FN>, tensor<12xf8E4M3FN>, tensor<12xf8E4M3FN>, tensor<12xf8E4M3FN>
  }
}
