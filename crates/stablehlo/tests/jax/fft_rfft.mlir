module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>) -> (tensor<8xf32> {jax.result_info = "result[0]"}, tensor<8xf32> {jax.result_info = "result[1]"}, tensor<8xf32> {jax.result_info = "result[2]"}) {
    %0 = call @fft(%arg0) : (tensor<8xf32>) -> tensor<8xcomplex<f32>>
    %1 = stablehlo.real %0 : (tensor<8xcomplex<f32>>) -> tensor<8xf32>
    %2 = call @fft(%arg0) : (tensor<8xf32>) -> tensor<8xcomplex<f32>>
    %3 = stablehlo.imag %2 : (tensor<8xcomplex<f32>>) -> tensor<8xf32>
    %4 = call @fft_0(%arg0) : (tensor<8xf32>) -> tensor<5xcomplex<f32>>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %5 = call @_pad(%4, %c) : (tensor<5xcomplex<f32>>, tensor<i64>) -> tensor<5xcomplex<f32>>
    %6 = call @fft_1(%5) : (tensor<5xcomplex<f32>>) -> tensor<8xf32>
    return %1, %3, %6 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  }
  func.func private @fft(%arg0: tensor<8xf32>) -> tensor<8xcomplex<f32>> {
    %0 = stablehlo.convert %arg0 : (tensor<8xf32>) -> tensor<8xcomplex<f32>>
    %1 = stablehlo.fft %0, type = FFT, length = [8] : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
    return %1 : tensor<8xcomplex<f32>>
  }
  func.func private @fft_0(%arg0: tensor<8xf32>) -> tensor<5xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [8] : (tensor<8xf32>) -> tensor<5xcomplex<f32>>
    return %0 : tensor<5xcomplex<f32>>
  }
  func.func private @_pad(%arg0: tensor<5xcomplex<f32>>, %arg1: tensor<i64>) -> tensor<5xcomplex<f32>> {
    %0 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<complex<f32>>
    %1 = stablehlo.pad %arg0, %0, low = [0], high = [0], interior = [0] : (tensor<5xcomplex<f32>>, tensor<complex<f32>>) -> tensor<5xcomplex<f32>>
    return %1 : tensor<5xcomplex<f32>>
  }
  func.func private @fft_1(%arg0: tensor<5xcomplex<f32>>) -> tensor<8xf32> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [8] : (tensor<5xcomplex<f32>>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}
