module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10xui4>, %arg1: tensor<10xui4>) -> (tensor<10xui4> {jax.result_info = "result[0]"}, tensor<10xui4> {jax.result_info = "result[1]"}, tensor<10xui4> {jax.result_info = "result[2]"}, tensor<10xui4> {jax.result_info = "result[3]"}, tensor<10xui4> {jax.result_info = "result[4]"}, tensor<10xui4> {jax.result_info = "result[5]"}, tensor<10xui4> {jax.result_info = "result[6]"}, tensor<10xui4> {jax.result_info = "result[7]"}, tensor<10xi1> {jax.result_info = "result[8]"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<10xui4>
    %1 = stablehlo.multiply %arg0, %arg1 : tensor<10xui4>
    %2 = stablehlo.subtract %arg0, %arg1 : tensor<10xui4>
    %3 = stablehlo.divide %arg0, %arg1 : tensor<10xui4>
    %4 = stablehlo.remainder %arg0, %arg1 : tensor<10xui4>
    %5 = stablehlo.shift_right_logical %arg0, %arg1 : tensor<10xui4>
    %6 = stablehlo.shift_right_arithmetic %arg0, %arg1 : tensor<10xui4>
    %7 = stablehlo.shift_left %arg0, %arg1 : tensor<10xui4>
    %8 = stablehlo.compare GT, %arg0, %arg1, UNSIGNED : (tensor<10xui4>, tensor<10xui4>) -> tensor<10xi1>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<10xui4>, tensor<10xui4>, tensor<10xui4>, tensor<10xui4>, tensor<10xui4>, tensor<10xui4>, tensor<10xui4>, tensor<10xui4>, tensor<10xi1>
  }
}
