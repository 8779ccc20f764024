module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xi32>) -> (tensor<5xi8> {jax.result_info = "result[0]"}, tensor<5xui16> {jax.result_info = "result[1]"}, tensor<5xf16> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<5xi32>) -> tensor<5xi8>
    %1 = stablehlo.convert %arg0 : (tensor<5xi32>) -> tensor<5xui16>
    %2 = stablehlo.convert %arg0 : (tensor<5xi32>) -> tensor<5xf16>
    return %0, %1, %2 : tensor<5xi8>, tensor<5xui16>, tensor<5xf16>
  }
}
