module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<11xf32>) -> (tensor<11xf32> {jax.result_info = "result[0]"}, tensor<11xf32> {jax.result_info = "result[1]"}, tensor<11xf32> {jax.result_info = "result[2]"}, tensor<11xf32> {jax.result_info = "result[3]"}, tensor<11xf32> {jax.result_info = "result[4]"}) {
    %0 = stablehlo.floor %arg0 : tensor<11xf32>
    %1 = stablehlo.ceil %arg0 : tensor<11xf32>
    %2 = call @round(%arg0) : (tensor<11xf32>) -> tensor<11xf32>
    %3 = stablehlo.round_nearest_afz %arg0 : tensor<11xf32>
    %4 = stablehlo.sign %arg0 : tensor<11xf32>
    return %0, %1, %2, %3, %4 : tensor<11xf32>, tensor<11xf32>, tensor<11xf32>, tensor<11xf32>, tensor<11xf32>
  }
  func.func private @round(%arg0: tensor<11xf32>) -> tensor<11xf32> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<11xf32>
    return %0 : tensor<11xf32>
  }
}
