// The narrow types read from StableHLO: f8E4M3FN (converts round to
// nearest even: 0.3 -> 0.3125, 100 -> 96; the f8 add rounds 1.8125 to
// 1.75 and 97.5 to 96) and an i4 constant.
// test: interp, jit
// run: ({0.3, 1, 100}) == {-6.25, 2.5, 103}
module @m {
  func.func public @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {
    %0 = stablehlo.convert %arg0 : (tensor<3xf32>) -> tensor<3xf8E4M3FN>
    %c = stablehlo.constant dense<1.500000e+00> : tensor<3xf8E4M3FN>
    %1 = stablehlo.add %0, %c : tensor<3xf8E4M3FN>
    %2 = stablehlo.convert %1 : (tensor<3xf8E4M3FN>) -> tensor<3xf32>
    %i = stablehlo.constant dense<[-8, 0, 7]> : tensor<3xi4>
    %3 = stablehlo.convert %i : (tensor<3xi4>) -> tensor<3xf32>
    %4 = stablehlo.add %2, %3 : tensor<3xf32>
    return %4 : tensor<3xf32>
  }
}
