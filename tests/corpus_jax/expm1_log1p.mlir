module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<9xf32>) -> (tensor<9xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.exponential_minus_one %arg0 : tensor<9xf32>
    %1 = stablehlo.abs %arg0 : tensor<9xf32>
    %2 = stablehlo.log_plus_one %1 : tensor<9xf32>
    %3 = stablehlo.add %0, %2 : tensor<9xf32>
    return %3 : tensor<9xf32>
  }
}
