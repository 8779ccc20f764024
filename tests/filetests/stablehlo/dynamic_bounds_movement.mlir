// Bounded dynamic dims through StableHLO reverse and pad: the reverse of
// the valid prefix, and the pad of it (runtime size n + 1 + 2 = n + 3).
// test: interp, jit-fallback
// run: ({1, 2, 3, 4}, 3) == ({3, 2, 1}, {0, 1, 2, 3, 0, 0})
// run: ({1, 2, 3, 4}, 1) == ({1}, {0, 1, 0, 0})
// CHECK: s32[<=4]{0} reverse(
// CHECK: s32[<=7]{0} pad(
module @jit_dyn_movement attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xi32>, %arg1: tensor<i32>) -> (tensor<?xi32, #stablehlo.bounds<4>>, tensor<?xi32, #stablehlo.bounds<7>>) {
    %0 = stablehlo.set_dimension_size %arg0, %arg1, dim = 0 : (tensor<4xi32>, tensor<i32>) -> tensor<?xi32, #stablehlo.bounds<4>>
    %1 = stablehlo.reverse %0, dims = [0] : tensor<?xi32, #stablehlo.bounds<4>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.pad %0, %c, low = [1], high = [2], interior = [0] : (tensor<?xi32, #stablehlo.bounds<4>>, tensor<i32>) -> tensor<?xi32, #stablehlo.bounds<7>>
    return %1, %2 : tensor<?xi32, #stablehlo.bounds<4>>, tensor<?xi32, #stablehlo.bounds<7>>
  }
}
