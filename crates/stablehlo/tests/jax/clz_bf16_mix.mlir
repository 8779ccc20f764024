module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>) -> (tensor<5xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg0 : (tensor<5xf32>) -> tensor<5xbf16>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<bf16>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<5xbf16>
    %2 = stablehlo.multiply %0, %1 : tensor<5xbf16>
    %3 = stablehlo.convert %2 : (tensor<5xbf16>) -> tensor<5xf32>
    return %3 : tensor<5xf32>
  }
}
