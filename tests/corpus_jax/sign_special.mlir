module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>) -> (tensor<5xf32> {jax.result_info = "result[0]"}, tensor<5xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.sign %arg0 : tensor<5xf32>
    %1 = stablehlo.abs %arg0 : tensor<5xf32>
    return %0, %1 : tensor<5xf32>, tensor<5xf32>
  }
}
