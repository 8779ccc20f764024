module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<3x4xui8>) -> (tensor<3x4xui8> {jax.result_info = "result[0]"}, tensor<3xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.bitcast_convert %arg0 : (tensor<3xf32>) -> tensor<3x4xui8>
    %1 = stablehlo.bitcast_convert %arg1 : (tensor<3x4xui8>) -> tensor<3xf32>
    return %0, %1 : tensor<3x4xui8>, tensor<3xf32>
  }
}
