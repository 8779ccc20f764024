module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10xi4>, %arg1: tensor<10xi4>) -> (tensor<i4> {jax.result_info = "result[0]"}, tensor<10xi4> {jax.result_info = "result[1]"}, tensor<20xi4> {jax.result_info = "result[2]"}, tensor<10xi4> {jax.result_info = "result[3]"}) {
    %c = stablehlo.constant dense<-8> : tensor<i4>
    %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.maximum across dimensions = [0] : (tensor<10xi4>, tensor<i4>) -> tensor<i4>
    %1 = stablehlo.compare GT, %arg0, %arg1, SIGNED : (tensor<10xi4>, tensor<10xi4>) -> tensor<10xi1>
    %2 = call @_where(%1, %arg0, %arg1) : (tensor<10xi1>, tensor<10xi4>, tensor<10xi4>) -> tensor<10xi4>
    %3 = stablehlo.concatenate %arg0, %arg1, dim = 0 : (tensor<10xi4>, tensor<10xi4>) -> tensor<20xi4>
    %4 = stablehlo.reverse %arg0, dims = [0] : tensor<10xi4>
    return %0, %2, %3, %4 : tensor<i4>, tensor<10xi4>, tensor<20xi4>, tensor<10xi4>
  }
  func.func private @_where(%arg0: tensor<10xi1>, %arg1: tensor<10xi4>, %arg2: tensor<10xi4>) -> tensor<10xi4> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<10xi1>, tensor<10xi4>
    return %0 : tensor<10xi4>
  }
}
