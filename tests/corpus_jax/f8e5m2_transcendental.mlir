module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xf8E5M2>) -> (tensor<12xf8E5M2> {jax.result_info = "result[0]"}, tensor<12xf8E5M2> {jax.result_info = "result[1]"}, tensor<12xf8E5M2> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.exponential %arg0 : tensor<12xf8E5M2>
    %1 = stablehlo.sine %arg0 : tensor<12xf8E5M2>
    %2 = stablehlo.multiply %arg0, %arg0 : tensor<12xf8E5M2>
    return %0, %1, %2 : tensor<12xf8E5M2>, tensor<12xf8E5M2>, tensor<12xf8E5M2>
  }
}
