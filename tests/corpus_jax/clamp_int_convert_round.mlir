module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>) -> (tensor<8xi32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<3.300000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<8xf32>
    %2 = call @round(%1) : (tensor<8xf32>) -> tensor<8xf32>
    %3 = stablehlo.convert %2 : (tensor<8xf32>) -> tensor<8xi32>
    return %3 : tensor<8xi32>
  }
  func.func private @round(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}
