module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xi2>, %arg1: tensor<6xi2>) -> (tensor<6xi2> {jax.result_info = "result[0]"}, tensor<6xi2> {jax.result_info = "result[1]"}, tensor<6xi2> {jax.result_info = "result[2]"}, tensor<6xi2> {jax.result_info = "result[3]"}, tensor<6xf32> {jax.result_info = "result[4]"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<6xi2>
    %1 = stablehlo.multiply %arg0, %arg1 : tensor<6xi2>
    %2 = stablehlo.subtract %arg0, %arg1 : tensor<6xi2>
    %3 = stablehlo.minimum %arg0, %arg1 : tensor<6xi2>
    %4 = stablehlo.convert %arg0 : (tensor<6xi2>) -> tensor<6xf32>
    return %0, %1, %2, %3, %4 : tensor<6xi2>, tensor<6xi2>, tensor<6xi2>, tensor<6xi2>, tensor<6xf32>
  }
}
