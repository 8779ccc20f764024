module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
    %1 = call @cumprod(%0) : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
    %2 = stablehlo.real %1 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %3 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
    %cst = stablehlo.constant dense<(0.000000e+00,1.000000e+00)> : tensor<complex<f32>>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<4xcomplex<f32>>
    %5 = stablehlo.multiply %3, %4 : tensor<4xcomplex<f32>>
    %6 = stablehlo.real %5 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %7 = stablehlo.imag %5 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %8 = stablehlo.negate %7 : tensor<4xf32>
    %9 = stablehlo.complex %6, %8 : tensor<4xcomplex<f32>>
    %10 = stablehlo.imag %9 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    return %2, %10 : tensor<4xf32>, tensor<4xf32>
  }
  func.func private @cumprod(%arg0: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
    %0 = call @cumprod_0(%arg0) : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
    return %0 : tensor<4xcomplex<f32>>
  }
  func.func private @cumprod_0(%arg0: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
    %cst = stablehlo.constant dense<(1.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %0 = "stablehlo.reduce_window"(%arg0, %cst) <{base_dilations = array<i64: 1>, padding = dense<[[3, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 4>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<complex<f32>>, %arg2: tensor<complex<f32>>):
      %1 = stablehlo.multiply %arg1, %arg2 : tensor<complex<f32>>
      stablehlo.return %1 : tensor<complex<f32>>
    }) : (tensor<4xcomplex<f32>>, tensor<complex<f32>>) -> tensor<4xcomplex<f32>>
    return %0 : tensor<4xcomplex<f32>>
  }
}
