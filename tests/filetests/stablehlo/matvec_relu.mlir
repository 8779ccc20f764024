// StableHLO as JAX prints it: dot_general, broadcast_in_dim, a custom-form
// reduce and a while loop whose body captures a value from outside.
// test: interp, jit
// run: ({{1, 2}, {3, 4}}, {1, -1}) == ({0, 0}, 0)
// run: ({{1, 0}, {0, 1}}, {2, 3}) == ({16, 24}, 40)
// CHECK: HloModule jit_f
// CHECK: ENTRY
// CHECK: dot(
// CHECK-SAME: lhs_contracting_dims={1}, rhs_contracting_dims={0}
// CHECK: while(
// CHECK: reduce(
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32> {jax.result_info = "result[0]"}, tensor<f32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2xf32> loc(#loc2)
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %2 = stablehlo.maximum %0, %1 : tensor<2xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %3:2 = stablehlo.while(%iterArg = %c, %iterArg_1 = %2) : tensor<i32>, tensor<2xf32>
    cond {
      %c_2 = stablehlo.constant dense<3> : tensor<i32>
      %5 = stablehlo.compare LT, %iterArg, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %5 : tensor<i1>
    } do {
      %c_2 = stablehlo.constant dense<1> : tensor<i32>
      %5 = stablehlo.add %iterArg, %c_2 : tensor<i32>
      %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2xf32>
      %7 = stablehlo.multiply %iterArg_1, %6 : tensor<2xf32>
      stablehlo.return %5, %7 : tensor<i32>, tensor<2xf32>
    }
    %4 = stablehlo.reduce(%3#1 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
    return %3#1, %4 : tensor<2xf32>, tensor<f32>
  }
}
#loc2 = loc("matvec")
