module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xi8>) -> (tensor<6xi8> {jax.result_info = "result[0]"}, tensor<6xi8> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<100> : tensor<i8>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i8>) -> tensor<6xi8>
    %1 = stablehlo.multiply %arg0, %0 : tensor<6xi8>
    %c_0 = stablehlo.constant dense<127> : tensor<i8>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i8>) -> tensor<6xi8>
    %3 = stablehlo.add %arg0, %2 : tensor<6xi8>
    return %1, %3 : tensor<6xi8>, tensor<6xi8>
  }
}
