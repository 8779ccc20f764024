module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10xi4>, %arg1: tensor<10xi4>) -> (tensor<10xi4> {jax.result_info = "result[0]"}, tensor<10xi4> {jax.result_info = "result[1]"}, tensor<10xi4> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.shift_left %arg0, %arg1 : tensor<10xi4>
    %1 = stablehlo.shift_right_logical %arg0, %arg1 : tensor<10xi4>
    %2 = stablehlo.shift_right_arithmetic %arg0, %arg1 : tensor<10xi4>
    return %0, %1, %2 : tensor<10xi4>, tensor<10xi4>, tensor<10xi4>
  }
}
