module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xi32>) -> (tensor<i64> {jax.result_info = "result[0]"}, tensor<3xi64> {jax.result_info = "result[1]"}) {
    %0 = call @count_nonzero(%arg0) : (tensor<5xi32>) -> tensor<i64>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %2 = stablehlo.compare NE, %arg0, %1, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %3 = call @cumsum(%2) : (tensor<5xi1>) -> tensor<5xi64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %4 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<3xi64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %5 = call @clip(%3, %c_1) : (tensor<5xi64>, tensor<i64>) -> tensor<5xi64>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i64>) -> tensor<5xi64>
    %7 = stablehlo.compare LT, %5, %6, SIGNED : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi1>
    %c_3 = stablehlo.constant dense<3> : tensor<i64>
    %8 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i64>) -> tensor<5xi64>
    %9 = stablehlo.add %5, %8 : tensor<5xi64>
    %10 = stablehlo.select %7, %9, %5 : tensor<5xi1>, tensor<5xi64>
    %11 = stablehlo.convert %10 : (tensor<5xi64>) -> tensor<5xi32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
    %c_4 = stablehlo.constant dense<1> : tensor<i64>
    %13 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i64>) -> tensor<5xi64>
    %14 = "stablehlo.scatter"(%4, %12, %13) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg1: tensor<i64>, %arg2: tensor<i64>):
      %18 = stablehlo.add %arg1, %arg2 : tensor<i64>
      stablehlo.return %18 : tensor<i64>
    }) : (tensor<3xi64>, tensor<5x1xi32>, tensor<5xi64>) -> tensor<3xi64>
    %15 = call @cumsum_1(%14) : (tensor<3xi64>) -> tensor<3xi64>
    %c_5 = stablehlo.constant dense<1> : tensor<i64>
    %16 = call @floor_divide(%15, %c_5) : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
    %c_6 = stablehlo.constant dense<5> : tensor<i64>
    %17 = call @remainder(%16, %c_6) : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
    return %0, %17 : tensor<i64>, tensor<3xi64>
  }
  func.func private @count_nonzero(%arg0: tensor<5xi32>) -> tensor<i64> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %1 = stablehlo.compare NE, %arg0, %0, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %2 = stablehlo.convert %1 : (tensor<5xi1>) -> tensor<5xi32>
    %3 = stablehlo.convert %2 : (tensor<5xi32>) -> tensor<5xi64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %4 = stablehlo.reduce(%3 init: %c_0) applies stablehlo.add across dimensions = [0] : (tensor<5xi64>, tensor<i64>) -> tensor<i64>
    return %4 : tensor<i64>
  }
  func.func private @cumsum(%arg0: tensor<5xi1>) -> tensor<5xi64> {
    %0 = stablehlo.convert %arg0 : (tensor<5xi1>) -> tensor<5xi64>
    %1 = call @cumsum_0(%0) : (tensor<5xi64>) -> tensor<5xi64>
    return %1 : tensor<5xi64>
  }
  func.func private @cumsum_0(%arg0: tensor<5xi64>) -> tensor<5xi64> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<i64>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[4, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 5>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<i64>, %arg2: tensor<i64>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<i64>
      stablehlo.return %2 : tensor<i64>
    }) : (tensor<5xi64>, tensor<i64>) -> tensor<5xi64>
    return %1 : tensor<5xi64>
  }
  func.func private @clip(%arg0: tensor<5xi64>, %arg1: tensor<i64>) -> tensor<5xi64> {
    %0 = stablehlo.convert %arg1 : tensor<i64>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i64>) -> tensor<5xi64>
    %2 = stablehlo.maximum %1, %arg0 : tensor<5xi64>
    return %2 : tensor<5xi64>
  }
  func.func private @cumsum_1(%arg0: tensor<3xi64>) -> tensor<3xi64> {
    %0 = call @cumsum_2(%arg0) : (tensor<3xi64>) -> tensor<3xi64>
    return %0 : tensor<3xi64>
  }
  func.func private @cumsum_2(%arg0: tensor<3xi64>) -> tensor<3xi64> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<i64>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[2, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 3>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<i64>, %arg2: tensor<i64>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<i64>
      stablehlo.return %2 : tensor<i64>
    }) : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
    return %1 : tensor<3xi64>
  }
  func.func private @floor_divide(%arg0: tensor<3xi64>, %arg1: tensor<i64>) -> tensor<3xi64> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i64>) -> tensor<3xi64>
    %1 = stablehlo.divide %arg0, %0 : tensor<3xi64>
    %2 = stablehlo.sign %arg0 : tensor<3xi64>
    %3 = stablehlo.sign %arg1 : tensor<i64>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i64>) -> tensor<3xi64>
    %5 = stablehlo.compare NE, %2, %4, SIGNED : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
    %6 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i64>) -> tensor<3xi64>
    %7 = stablehlo.remainder %arg0, %6 : tensor<3xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %8 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<3xi64>
    %9 = stablehlo.compare NE, %7, %8, SIGNED : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
    %10 = stablehlo.and %5, %9 : tensor<3xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i64>
    %11 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<3xi64>
    %12 = stablehlo.subtract %1, %11 : tensor<3xi64>
    %13 = call @_where(%10, %12, %1) : (tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
    return %13 : tensor<3xi64>
  }
  func.func private @_where(%arg0: tensor<3xi1>, %arg1: tensor<3xi64>, %arg2: tensor<3xi64>) -> tensor<3xi64> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<3xi1>, tensor<3xi64>
    return %0 : tensor<3xi64>
  }
  func.func private @remainder(%arg0: tensor<3xi64>, %arg1: tensor<i64>) -> tensor<3xi64> {
    %0 = stablehlo.convert %arg1 : tensor<i64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i64>
    %2 = call @_where_3(%1, %c_0, %0) : (tensor<i1>, tensor<i64>, tensor<i64>) -> tensor<i64>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i64>) -> tensor<3xi64>
    %4 = stablehlo.remainder %arg0, %3 : tensor<3xi64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<3xi64>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i64>) -> tensor<3xi64>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<3xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
    %12 = stablehlo.and %11, %6 : tensor<3xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i64>) -> tensor<3xi64>
    %14 = stablehlo.add %4, %13 : tensor<3xi64>
    %15 = stablehlo.select %12, %14, %4 : tensor<3xi1>, tensor<3xi64>
    return %15 : tensor<3xi64>
  }
  func.func private @_where_3(%arg0: tensor<i1>, %arg1: tensor<i64>, %arg2: tensor<i64>) -> tensor<i64> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i64>
    return %0 : tensor<i64>
  }
}
