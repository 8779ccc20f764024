module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xui2>, %arg1: tensor<5xui2>) -> (tensor<5xui2> {jax.result_info = "result[0]"}, tensor<5xui2> {jax.result_info = "result[1]"}, tensor<5xi32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<5xui2>
    %1 = stablehlo.multiply %arg0, %arg1 : tensor<5xui2>
    %2 = stablehlo.convert %arg0 : (tensor<5xui2>) -> tensor<5xi32>
    return %0, %1, %2 : tensor<5xui2>, tensor<5xui2>, tensor<5xi32>
  }
}
