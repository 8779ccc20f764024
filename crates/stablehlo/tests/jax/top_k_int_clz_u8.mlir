module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xi32>, %arg1: tensor<4xui8>) -> (tensor<2xi32> {jax.result_info = "result[0][0]"}, tensor<2xi32> {jax.result_info = "result[0][1]"}, tensor<4xui8> {jax.result_info = "result[1]"}) {
    %values, %indices = chlo.top_k(%arg0, k = 2) : tensor<5xi32> -> (tensor<2xi32>, tensor<2xi32>)
    %0 = stablehlo.count_leading_zeros %arg1 : tensor<4xui8>
    return %values, %indices, %0 : tensor<2xi32>, tensor<2xi32>, tensor<4xui8>
  }
}
