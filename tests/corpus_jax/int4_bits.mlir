module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10xi4>) -> (tensor<10xi4> {jax.result_info = "result[0]"}, tensor<10xi4> {jax.result_info = "result[1]"}, tensor<10xi4> {jax.result_info = "result[2]"}, tensor<10xi4> {jax.result_info = "result[3]"}, tensor<10xi4> {jax.result_info = "result[4]"}, tensor<10xi4> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.popcnt %arg0 : tensor<10xi4>
    %1 = stablehlo.count_leading_zeros %arg0 : tensor<10xi4>
    %2 = stablehlo.not %arg0 : tensor<10xi4>
    %c = stablehlo.constant dense<5> : tensor<i4>
    %3 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i4>) -> tensor<10xi4>
    %4 = stablehlo.and %arg0, %3 : tensor<10xi4>
    %c_0 = stablehlo.constant dense<2> : tensor<i4>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i4>) -> tensor<10xi4>
    %6 = stablehlo.or %arg0, %5 : tensor<10xi4>
    %c_1 = stablehlo.constant dense<-1> : tensor<i4>
    %7 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i4>) -> tensor<10xi4>
    %8 = stablehlo.xor %arg0, %7 : tensor<10xi4>
    return %0, %1, %2, %4, %6, %8 : tensor<10xi4>, tensor<10xi4>, tensor<10xi4>, tensor<10xi4>, tensor<10xi4>, tensor<10xi4>
  }
}
