module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<9xf8E4M3FN>, %arg1: tensor<9xf8E4M3FN>) -> (tensor<9xf8E4M3FN> {jax.result_info = "result[0]"}, tensor<9xf8E4M3FN> {jax.result_info = "result[1]"}, tensor<9xf8E4M3FN> {jax.result_info = "result[2]"}, tensor<9xf8E4M3FN> {jax.result_info = "result[3]"}, tensor<9xf8E4M3FN> {jax.result_info = "result[4]"}, tensor<9xi1> {jax.result_info = "result[5]"}, tensor<9xf8E4M3FN> {jax.result_info = "result[6]"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<9xf8E4M3FN>
    %1 = stablehlo.multiply %arg0, %arg1 : tensor<9xf8E4M3FN>
    %2 = stablehlo.divide %arg0, %arg1 : tensor<9xf8E4M3FN>
    %3 = stablehlo.subtract %arg0, %arg1 : tensor<9xf8E4M3FN>
    %4 = stablehlo.maximum %arg0, %arg1 : tensor<9xf8E4M3FN>
    %5 = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<9xf8E4M3FN>, tensor<9xf8E4M3FN>) -> tensor<9xi1>
    %6 = stablehlo.negate %arg0 : tensor<9xf8E4M3FN>
    return %0, %1, %2, %3, %4, %5, %6 : tensor<9xf8E4M3FN>, tensor<9xf8E4M3FN>, tensor<9xf8E4M3FN>, tensor<9xf8E4M3FN>, tensor<9xf8E4M3FN>, tensor<9xi1>, tensor<9xf8E4M3FN>
  }
}
