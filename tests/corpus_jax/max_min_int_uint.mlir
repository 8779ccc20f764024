module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xi32>, %arg1: tensor<6xi32>) -> (tensor<6xi32> {jax.result_info = "result[0]"}, tensor<6xui32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.maximum %arg0, %arg1 : tensor<6xi32>
    %1 = stablehlo.convert %arg0 : (tensor<6xi32>) -> tensor<6xui32>
    %2 = stablehlo.convert %arg1 : (tensor<6xi32>) -> tensor<6xui32>
    %3 = stablehlo.minimum %1, %2 : tensor<6xui32>
    return %0, %3 : tensor<6xi32>, tensor<6xui32>
  }
}
