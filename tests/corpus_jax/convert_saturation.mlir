module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<7xf32>) -> (tensor<7xui8> {jax.result_info = "result[0]"}, tensor<7xi8> {jax.result_info = "result[1]"}, tensor<7xui32> {jax.result_info = "result[2]"}, tensor<7xi16> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<7xf32>) -> tensor<7xui8>
    %1 = stablehlo.convert %arg0 : (tensor<7xf32>) -> tensor<7xi8>
    %2 = stablehlo.convert %arg0 : (tensor<7xf32>) -> tensor<7xui32>
    %3 = stablehlo.convert %arg0 : (tensor<7xf32>) -> tensor<7xi16>
    return %0, %1, %2, %3 : tensor<7xui8>, tensor<7xi8>, tensor<7xui32>, tensor<7xi16>
  }
}
