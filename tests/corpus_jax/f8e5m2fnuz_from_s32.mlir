module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xi32>) -> (tensor<12xf8E5M2FNUZ> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg0 : (tensor<12xi32>) -> tensor<12xf8E5M2FNUZ>
    return %0 : tensor<12xf8E5M2FNUZ>
  }
}
