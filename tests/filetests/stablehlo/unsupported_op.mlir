// An op rxla does not have is a located error naming it.
// error: unsupported_op.mlir:8:10: error: unsupported operation 'stablehlo.all_to_all'
// error: rxla does not support this operation
module @m {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>

    %1 = "stablehlo.all_to_all"(%0) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
