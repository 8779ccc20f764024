module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xi64>) -> (tensor<3x4xi64> {jax.result_info = "result"}) {
    %0 = stablehlo.iota dim = 0 : tensor<12xi64>
    %1 = stablehlo.reshape %0 : (tensor<12xi64>) -> tensor<3x4xi64>
    %2 = stablehlo.add %arg0, %1 : tensor<3x4xi64>
    return %2 : tensor<3x4xi64>
  }
}
