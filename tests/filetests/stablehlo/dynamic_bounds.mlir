// Bounded dynamic dims in StableHLO: set_dimension_size gives a
// tensor<?x3xf32, #stablehlo.bounds<4, ?>>, elementwise ops and a reduce
// keep or drop the dynamic dim, get_dimension_size reads its size; the
// dynamic result comes back at its runtime size.
// test: interp, jit-fallback
// run: ({{1,2,3},{4,5,6},{7,8,9},{10,11,12}}, 2) == ({{2,4,6},{8,10,12}}, {5, 7, 9}, 2)
// run: ({{1,2,3},{4,5,6},{7,8,9},{10,11,12}}, 4) == ({{2,4,6},{8,10,12},{14,16,18},{20,22,24}}, {22, 26, 30}, 4)
// CHECK: set-dimension-size(
// CHECK-SAME: dimensions={0}
// CHECK: f32[<=4,3]{1,0} add(
// CHECK: get-dimension-size(
module @jit_dyn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xf32>, %arg1: tensor<i32>) -> (tensor<?x3xf32, #stablehlo.bounds<4, ?>>, tensor<3xf32>, tensor<i32>) {
    %0 = stablehlo.set_dimension_size %arg0, %arg1, dim = 0 : (tensor<4x3xf32>, tensor<i32>) -> tensor<?x3xf32, #stablehlo.bounds<4, ?>>
    %1 = stablehlo.add %0, %0 : tensor<?x3xf32, #stablehlo.bounds<4, ?>>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>, tensor<f32>) -> tensor<3xf32>
    %3 = "stablehlo.get_dimension_size"(%1) {dimension = 0 : i64} : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>) -> tensor<i32>
    return %1, %2, %3 : tensor<?x3xf32, #stablehlo.bounds<4, ?>>, tensor<3xf32>, tensor<i32>
  }
}
