module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<9xf32>, %arg1: tensor<9xf32>, %arg2: tensor<3xf64>, %arg3: tensor<3xf64>) -> (tensor<9xf32> {jax.result_info = "result[0]"}, tensor<3xi64> {jax.result_info = "result[1]"}) {
    %0 = chlo.next_after %arg0, %arg1 : tensor<9xf32>, tensor<9xf32> -> tensor<9xf32>
    %1 = chlo.next_after %arg2, %arg3 : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
    %2 = stablehlo.bitcast_convert %1 : (tensor<3xf64>) -> tensor<3xi64>
    return %0, %2 : tensor<9xf32>, tensor<3xi64>
  }
}
