module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xi8>) -> (tensor<6x2xi4> {jax.result_info = "result[0]"}, tensor<6x4xui2> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.bitcast_convert %arg0 : (tensor<6xi8>) -> tensor<6x2xi4>
    %1 = stablehlo.bitcast_convert %arg0 : (tensor<6xi8>) -> tensor<6x4xui2>
    return %0, %1 : tensor<6x2xi4>, tensor<6x4xui2>
  }
}
