module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf8E4M3FN>) -> (tensor<8xf8E5M2> {jax.result_info = "result[0]"}, tensor<8xf8E4M3FNUZ> {jax.result_info = "result[1]"}, tensor<8xf16> {jax.result_info = "result[2]"}, tensor<8xbf16> {jax.result_info = "result[3]"}, tensor<8xi32> {jax.result_info = "result[4]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<8xf8E4M3FN>) -> tensor<8xf8E5M2>
    %1 = stablehlo.convert %arg0 : (tensor<8xf8E4M3FN>) -> tensor<8xf8E4M3FNUZ>
    %2 = stablehlo.convert %arg0 : (tensor<8xf8E4M3FN>) -> tensor<8xf16>
    %3 = stablehlo.convert %arg0 : (tensor<8xf8E4M3FN>) -> tensor<8xbf16>
    %4 = stablehlo.convert %arg0 : (tensor<8xf8E4M3FN>) -> tensor<8xi32>
    return %0, %1, %2, %3, %4 : tensor<8xf8E5M2>, tensor<8xf8E4M3FNUZ>, tensor<8xf16>, tensor<8xbf16>, tensor<8xi32>
  }
}
