module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>) -> (tensor<8xi32> {jax.result_info = "result[0]"}, tensor<8xui8> {jax.result_info = "result[1]"}, tensor<8xbf16> {jax.result_info = "result[2]"}, tensor<8xf16> {jax.result_info = "result[3]"}, tensor<8xf32> {jax.result_info = "result[4]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<8xf32>) -> tensor<8xi32>
    %1 = stablehlo.convert %arg0 : (tensor<8xf32>) -> tensor<8xui8>
    %2 = stablehlo.convert %arg0 : (tensor<8xf32>) -> tensor<8xbf16>
    %3 = stablehlo.convert %arg0 : (tensor<8xf32>) -> tensor<8xf16>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %5 = stablehlo.compare GT, %arg0, %4, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %6 = stablehlo.convert %5 : (tensor<8xi1>) -> tensor<8xf32>
    return %0, %1, %2, %3, %6 : tensor<8xi32>, tensor<8xui8>, tensor<8xbf16>, tensor<8xf16>, tensor<8xf32>
  }
}
