module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xf32>, %arg1: tensor<12xi32>) -> (tensor<12xi4> {jax.result_info = "result[0]"}, tensor<12xi4> {jax.result_info = "result[1]"}, tensor<12xui4> {jax.result_info = "result[2]"}, tensor<12xui4> {jax.result_info = "result[3]"}, tensor<12xi2> {jax.result_info = "result[4]"}, tensor<12xi2> {jax.result_info = "result[5]"}, tensor<12xui2> {jax.result_info = "result[6]"}, tensor<12xui2> {jax.result_info = "result[7]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<12xf32>) -> tensor<12xi4>
    %1 = stablehlo.convert %arg1 : (tensor<12xi32>) -> tensor<12xi4>
    %2 = stablehlo.convert %arg0 : (tensor<12xf32>) -> tensor<12xui4>
    %3 = stablehlo.convert %arg1 : (tensor<12xi32>) -> tensor<12xui4>
    %4 = stablehlo.convert %arg0 : (tensor<12xf32>) -> tensor<12xi2>
    %5 = stablehlo.convert %arg1 : (tensor<12xi32>) -> tensor<12xi2>
    %6 = stablehlo.convert %arg0 : (tensor<12xf32>) -> tensor<12xui2>
    %7 = stablehlo.convert %arg1 : (tensor<12xi32>) -> tensor<12xui2>
    return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<12xi4>, tensor<12xi4>, tensor<12xui4>, tensor<12xui4>, tensor<12xi2>, tensor<12xi2>, tensor<12xui2>, tensor<12xui2>
  }
}
