module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xf32>, %arg1: tensor<i32>) -> (tensor<1x3xf32> {jax.result_info = "result"}) {
    %0 = call @dynamic_index_in_dim(%arg0, %arg1) : (tensor<4x3xf32>, tensor<i32>) -> tensor<1x3xf32>
    return %0 : tensor<1x3xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<4x3xf32>, %arg1: tensor<i32>) -> tensor<1x3xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare LT, %arg1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<4> : tensor<i32>
    %1 = stablehlo.add %arg1, %c_0 : tensor<i32>
    %2 = stablehlo.select %0, %1, %arg1 : tensor<i1>, tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.dynamic_slice %arg0, %2, %c_1, sizes = [1, 3] : (tensor<4x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
    return %3 : tensor<1x3xf32>
  }
}
