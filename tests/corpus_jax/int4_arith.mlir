module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10xi4>, %arg1: tensor<10xi4>) -> (tensor<10xi4> {jax.result_info = "result[0]"}, tensor<10xi4> {jax.result_info = "result[1]"}, tensor<10xi4> {jax.result_info = "result[2]"}, tensor<10xi4> {jax.result_info = "result[3]"}, tensor<10xi4> {jax.result_info = "result[4]"}, tensor<10xi4> {jax.result_info = "result[5]"}, tensor<10xi1> {jax.result_info = "result[6]"}, tensor<10xi4> {jax.result_info = "result[7]"}, tensor<10xi32> {jax.result_info = "result[8]"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<10xi4>
    %1 = stablehlo.multiply %arg0, %arg1 : tensor<10xi4>
    %2 = stablehlo.subtract %arg0, %arg1 : tensor<10xi4>
    %3 = stablehlo.divide %arg0, %arg1 : tensor<10xi4>
    %4 = stablehlo.remainder %arg0, %arg1 : tensor<10xi4>
    %5 = stablehlo.maximum %arg0, %arg1 : tensor<10xi4>
    %6 = stablehlo.compare LT, %arg0, %arg1, SIGNED : (tensor<10xi4>, tensor<10xi4>) -> tensor<10xi1>
    %7 = stablehlo.negate %arg0 : tensor<10xi4>
    %8 = stablehlo.convert %arg0 : (tensor<10xi4>) -> tensor<10xi32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<10xi4>, tensor<10xi4>, tensor<10xi4>, tensor<10xi4>, tensor<10xi4>, tensor<10xi4>, tensor<10xi1>, tensor<10xi4>, tensor<10xi32>
  }
}
