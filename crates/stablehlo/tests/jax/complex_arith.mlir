module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}, tensor<4xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.complex %arg0, %arg1 : tensor<4xcomplex<f32>>
    %cst = stablehlo.constant dense<(1.000000e+00,2.000000e+00)> : tensor<complex<f32>>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<4xcomplex<f32>>
    %2 = stablehlo.multiply %0, %1 : tensor<4xcomplex<f32>>
    %3 = stablehlo.real %2 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %4 = stablehlo.complex %arg0, %arg1 : tensor<4xcomplex<f32>>
    %cst_0 = stablehlo.constant dense<(1.000000e+00,2.000000e+00)> : tensor<complex<f32>>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f32>>) -> tensor<4xcomplex<f32>>
    %6 = stablehlo.multiply %4, %5 : tensor<4xcomplex<f32>>
    %7 = stablehlo.imag %6 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %8 = stablehlo.complex %arg0, %arg1 : tensor<4xcomplex<f32>>
    %9 = stablehlo.abs %8 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    return %3, %7, %9 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}
