module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.abs %arg0 : tensor<4xf32>
    %cst = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.add %0, %1 : tensor<4xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %4 = stablehlo.compare NE, %3, %3, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %5 = stablehlo.compare NE, %2, %2, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %6 = stablehlo.or %4, %5 : tensor<4xi1>
    %cst_1 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %8 = stablehlo.compare EQ, %2, %7, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %10 = stablehlo.compare EQ, %3, %9, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %12 = stablehlo.compare EQ, %2, %11, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %14 = stablehlo.compare LT, %2, %13, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %16 = stablehlo.compare LT, %3, %15, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %17 = stablehlo.and %10, %12 : tensor<4xi1>
    %18 = stablehlo.or %14, %16 : tensor<4xi1>
    %19 = stablehlo.or %18, %17 : tensor<4xi1>
    %20 = stablehlo.or %19, %6 : tensor<4xi1>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %22 = stablehlo.compare GE, %2, %21, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %23 = stablehlo.compare GT, %2, %3, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %24 = stablehlo.and %22, %23 : tensor<4xi1>
    %25 = stablehlo.log %2 : tensor<4xf32>
    %26 = stablehlo.multiply %3, %25 : tensor<4xf32>
    %27 = stablehlo.subtract %26, %2 : tensor<4xf32>
    %28 = chlo.lgamma %3 : tensor<4xf32> -> tensor<4xf32>
    %29 = stablehlo.subtract %27, %28 : tensor<4xf32>
    %cst_7 = stablehlo.constant dense<3.40282347E+38> : tensor<f32>
    %30 = stablehlo.log %cst_7 : tensor<f32>
    %31 = stablehlo.negate %30 : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %33 = stablehlo.compare LT, %29, %32, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %34 = stablehlo.exponential %29 : tensor<4xf32>
    %35 = stablehlo.or %12, %20 : tensor<4xi1>
    %36 = stablehlo.or %35, %33 : tensor<4xi1>
    %37 = stablehlo.or %36, %8 : tensor<4xi1>
    %38 = stablehlo.not %37 : tensor<4xi1>
    %39 = stablehlo.and %38, %24 : tensor<4xi1>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %41 = stablehlo.subtract %40, %3 : tensor<4xf32>
    %42 = stablehlo.add %2, %41 : tensor<4xf32>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %44 = stablehlo.add %42, %43 : tensor<4xf32>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_11 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %46 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %47 = stablehlo.add %2, %46 : tensor<4xf32>
    %48 = stablehlo.multiply %44, %2 : tensor<4xf32>
    %49 = stablehlo.divide %47, %48 : tensor<4xf32>
    %cst_12 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %50 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %51 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %52 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %53 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %54 = stablehlo.negate %2 : tensor<4xf32>
    %55 = stablehlo.multiply %49, %54 : tensor<4xf32>
    %56 = stablehlo.subtract %53, %55 : tensor<4xf32>
    %57 = stablehlo.divide %56, %48 : tensor<4xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %58:15 = stablehlo.while(%iterArg = %39, %iterArg_62 = %49, %iterArg_63 = %50, %iterArg_64 = %41, %iterArg_65 = %44, %iterArg_66 = %cst_16, %iterArg_67 = %47, %iterArg_68 = %48, %iterArg_69 = %45, %iterArg_70 = %2, %iterArg_71 = %51, %iterArg_72 = %52, %iterArg_73 = %53, %iterArg_74 = %54, %iterArg_75 = %57) : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    cond {
      %cst_76 = stablehlo.constant dense<2.000000e+03> : tensor<f32>
      %203 = stablehlo.compare LT, %iterArg_66, %cst_76, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %c = stablehlo.constant dense<false> : tensor<i1>
      %204 = stablehlo.reduce(%iterArg init: %c) applies stablehlo.or across dimensions = [0] : (tensor<4xi1>, tensor<i1>) -> tensor<i1>
      %205 = stablehlo.and %203, %204 : tensor<i1>
      stablehlo.return %205 : tensor<i1>
    } do {
      %cst_76 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %203 = stablehlo.add %iterArg_66, %cst_76 : tensor<f32>
      %cst_77 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %204 = stablehlo.broadcast_in_dim %cst_77, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %205 = stablehlo.add %iterArg_64, %204 : tensor<4xf32>
      %cst_78 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %206 = stablehlo.broadcast_in_dim %cst_78, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %207 = stablehlo.add %iterArg_65, %206 : tensor<4xf32>
      %208 = stablehlo.broadcast_in_dim %203, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %209 = stablehlo.multiply %205, %208 : tensor<4xf32>
      %210 = stablehlo.multiply %iterArg_67, %207 : tensor<4xf32>
      %211 = stablehlo.multiply %iterArg_69, %209 : tensor<4xf32>
      %212 = stablehlo.subtract %210, %211 : tensor<4xf32>
      %213 = stablehlo.multiply %iterArg_68, %207 : tensor<4xf32>
      %214 = stablehlo.multiply %iterArg_70, %209 : tensor<4xf32>
      %215 = stablehlo.subtract %213, %214 : tensor<4xf32>
      %cst_79 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %216 = stablehlo.broadcast_in_dim %cst_79, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %217 = stablehlo.compare NE, %215, %216, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
      %218 = stablehlo.divide %212, %215 : tensor<4xf32>
      %219 = stablehlo.subtract %iterArg_62, %218 : tensor<4xf32>
      %220 = stablehlo.divide %219, %218 : tensor<4xf32>
      %221 = stablehlo.abs %220 : tensor<4xf32>
      %cst_80 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %222 = stablehlo.broadcast_in_dim %cst_80, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %223 = stablehlo.select %217, %221, %222 : tensor<4xi1>, tensor<4xf32>
      %224 = stablehlo.select %217, %218, %iterArg_62 : tensor<4xi1>, tensor<4xf32>
      %225 = stablehlo.multiply %iterArg_73, %207 : tensor<4xf32>
      %226 = stablehlo.subtract %225, %iterArg_67 : tensor<4xf32>
      %227 = stablehlo.multiply %iterArg_71, %209 : tensor<4xf32>
      %228 = stablehlo.subtract %226, %227 : tensor<4xf32>
      %229 = stablehlo.broadcast_in_dim %203, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %230 = stablehlo.multiply %iterArg_69, %229 : tensor<4xf32>
      %231 = stablehlo.add %228, %230 : tensor<4xf32>
      %232 = stablehlo.multiply %iterArg_74, %207 : tensor<4xf32>
      %233 = stablehlo.subtract %232, %iterArg_68 : tensor<4xf32>
      %234 = stablehlo.multiply %iterArg_72, %209 : tensor<4xf32>
      %235 = stablehlo.subtract %233, %234 : tensor<4xf32>
      %236 = stablehlo.broadcast_in_dim %203, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %237 = stablehlo.multiply %iterArg_70, %236 : tensor<4xf32>
      %238 = stablehlo.add %235, %237 : tensor<4xf32>
      %239 = stablehlo.multiply %224, %238 : tensor<4xf32>
      %240 = stablehlo.subtract %231, %239 : tensor<4xf32>
      %241 = stablehlo.divide %240, %215 : tensor<4xf32>
      %242 = stablehlo.select %217, %241, %iterArg_75 : tensor<4xi1>, tensor<4xf32>
      %243 = stablehlo.subtract %242, %iterArg_75 : tensor<4xf32>
      %244 = stablehlo.abs %243 : tensor<4xf32>
      %cst_81 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %245 = stablehlo.broadcast_in_dim %cst_81, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %246 = stablehlo.select %217, %244, %245 : tensor<4xi1>, tensor<4xf32>
      %247 = stablehlo.abs %212 : tensor<4xf32>
      %cst_82 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %cst_83 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %248 = stablehlo.broadcast_in_dim %cst_83, dims = [] : (tensor<f32>) -> tensor<f32>
      %249 = stablehlo.divide %248, %cst_82 : tensor<f32>
      %250 = stablehlo.broadcast_in_dim %249, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %251 = stablehlo.compare GT, %247, %250, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
      %cst_84 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %252 = stablehlo.broadcast_in_dim %cst_84, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %253 = stablehlo.multiply %iterArg_67, %252 : tensor<4xf32>
      %254 = stablehlo.select %251, %253, %iterArg_67 : tensor<4xi1>, tensor<4xf32>
      %cst_85 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %255 = stablehlo.broadcast_in_dim %cst_85, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %256 = stablehlo.multiply %212, %255 : tensor<4xf32>
      %257 = stablehlo.select %251, %256, %212 : tensor<4xi1>, tensor<4xf32>
      %cst_86 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %258 = stablehlo.broadcast_in_dim %cst_86, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %259 = stablehlo.multiply %iterArg_68, %258 : tensor<4xf32>
      %260 = stablehlo.select %251, %259, %iterArg_68 : tensor<4xi1>, tensor<4xf32>
      %cst_87 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %261 = stablehlo.broadcast_in_dim %cst_87, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %262 = stablehlo.multiply %215, %261 : tensor<4xf32>
      %263 = stablehlo.select %251, %262, %215 : tensor<4xi1>, tensor<4xf32>
      %cst_88 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %264 = stablehlo.broadcast_in_dim %cst_88, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %265 = stablehlo.multiply %iterArg_73, %264 : tensor<4xf32>
      %266 = stablehlo.select %251, %265, %iterArg_73 : tensor<4xi1>, tensor<4xf32>
      %cst_89 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %267 = stablehlo.broadcast_in_dim %cst_89, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %268 = stablehlo.multiply %iterArg_74, %267 : tensor<4xf32>
      %269 = stablehlo.select %251, %268, %iterArg_74 : tensor<4xi1>, tensor<4xf32>
      %cst_90 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %270 = stablehlo.broadcast_in_dim %cst_90, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %271 = stablehlo.multiply %231, %270 : tensor<4xf32>
      %272 = stablehlo.select %251, %271, %231 : tensor<4xi1>, tensor<4xf32>
      %cst_91 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %273 = stablehlo.broadcast_in_dim %cst_91, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %274 = stablehlo.multiply %238, %273 : tensor<4xf32>
      %275 = stablehlo.select %251, %274, %238 : tensor<4xi1>, tensor<4xf32>
      %cst_92 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %276 = stablehlo.broadcast_in_dim %cst_92, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %277 = stablehlo.compare GT, %223, %276, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
      %278 = stablehlo.and %iterArg, %277 : tensor<4xi1>
      %279 = stablehlo.select %iterArg, %224, %iterArg_62 : tensor<4xi1>, tensor<4xf32>
      %280 = stablehlo.select %iterArg, %223, %iterArg_63 : tensor<4xi1>, tensor<4xf32>
      %281 = stablehlo.select %iterArg, %205, %iterArg_64 : tensor<4xi1>, tensor<4xf32>
      %282 = stablehlo.select %iterArg, %207, %iterArg_65 : tensor<4xi1>, tensor<4xf32>
      %283 = stablehlo.select %iterArg, %257, %iterArg_67 : tensor<4xi1>, tensor<4xf32>
      %284 = stablehlo.select %iterArg, %263, %iterArg_68 : tensor<4xi1>, tensor<4xf32>
      %285 = stablehlo.select %iterArg, %254, %iterArg_69 : tensor<4xi1>, tensor<4xf32>
      %286 = stablehlo.select %iterArg, %260, %iterArg_70 : tensor<4xi1>, tensor<4xf32>
      %287 = stablehlo.select %iterArg, %266, %iterArg_71 : tensor<4xi1>, tensor<4xf32>
      %288 = stablehlo.select %iterArg, %269, %iterArg_72 : tensor<4xi1>, tensor<4xf32>
      %289 = stablehlo.select %iterArg, %272, %iterArg_73 : tensor<4xi1>, tensor<4xf32>
      %290 = stablehlo.select %iterArg, %275, %iterArg_74 : tensor<4xi1>, tensor<4xf32>
      %291 = stablehlo.select %iterArg, %242, %iterArg_75 : tensor<4xi1>, tensor<4xf32>
      stablehlo.return %278, %279, %280, %281, %282, %203, %283, %284, %285, %286, %287, %288, %289, %290, %291 : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    }
    %59 = stablehlo.multiply %58#1, %34 : tensor<4xf32>
    %cst_17 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %60 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %61 = stablehlo.subtract %60, %59 : tensor<4xf32>
    %62 = stablehlo.not %24 : tensor<4xi1>
    %63 = stablehlo.and %38, %62 : tensor<4xi1>
    %cst_18 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %64 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_19 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %65 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %66 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %67 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %68:7 = stablehlo.while(%iterArg = %63, %iterArg_62 = %3, %iterArg_63 = %64, %iterArg_64 = %65, %iterArg_65 = %2, %iterArg_66 = %66, %iterArg_67 = %67) : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    cond {
      %c = stablehlo.constant dense<false> : tensor<i1>
      %203 = stablehlo.reduce(%iterArg init: %c) applies stablehlo.or across dimensions = [0] : (tensor<4xi1>, tensor<i1>) -> tensor<i1>
      stablehlo.return %203 : tensor<i1>
    } do {
      %cst_68 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %203 = stablehlo.broadcast_in_dim %cst_68, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %204 = stablehlo.add %iterArg_62, %203 : tensor<4xf32>
      %205 = stablehlo.divide %iterArg_65, %204 : tensor<4xf32>
      %206 = stablehlo.multiply %iterArg_66, %205 : tensor<4xf32>
      %207 = stablehlo.multiply %iterArg_63, %iterArg_65 : tensor<4xf32>
      %208 = stablehlo.multiply %204, %204 : tensor<4xf32>
      %209 = stablehlo.divide %207, %208 : tensor<4xf32>
      %210 = stablehlo.subtract %206, %209 : tensor<4xf32>
      %211 = stablehlo.add %iterArg_67, %210 : tensor<4xf32>
      %212 = stablehlo.divide %iterArg_65, %204 : tensor<4xf32>
      %213 = stablehlo.multiply %iterArg_63, %212 : tensor<4xf32>
      %214 = stablehlo.add %iterArg_64, %213 : tensor<4xf32>
      %215 = stablehlo.divide %213, %214 : tensor<4xf32>
      %cst_69 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %216 = stablehlo.broadcast_in_dim %cst_69, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %217 = stablehlo.compare GT, %215, %216, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
      %218 = stablehlo.and %iterArg, %217 : tensor<4xi1>
      %219 = stablehlo.select %iterArg, %204, %iterArg_62 : tensor<4xi1>, tensor<4xf32>
      %220 = stablehlo.select %iterArg, %213, %iterArg_63 : tensor<4xi1>, tensor<4xf32>
      %221 = stablehlo.select %iterArg, %214, %iterArg_64 : tensor<4xi1>, tensor<4xf32>
      %222 = stablehlo.select %iterArg, %iterArg_65, %iterArg_65 : tensor<4xi1>, tensor<4xf32>
      %223 = stablehlo.select %iterArg, %210, %iterArg_66 : tensor<4xi1>, tensor<4xf32>
      %224 = stablehlo.select %iterArg, %211, %iterArg_67 : tensor<4xi1>, tensor<4xf32>
      stablehlo.return %218, %219, %220, %221, %222, %223, %224 : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    }
    %69 = stablehlo.multiply %68#3, %34 : tensor<4xf32>
    %70 = stablehlo.divide %69, %3 : tensor<4xf32>
    %71 = stablehlo.select %24, %61, %70 : tensor<4xi1>, tensor<4xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %72 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %73 = stablehlo.select %12, %72, %71 : tensor<4xi1>, tensor<4xf32>
    %cst_23 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %74 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %75 = stablehlo.select %8, %74, %73 : tensor<4xi1>, tensor<4xf32>
    %cst_24 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %77 = stablehlo.select %20, %76, %75 : tensor<4xi1>, tensor<4xf32>
    %78 = stablehlo.abs %arg0 : tensor<4xf32>
    %cst_25 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %79 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_26 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %80 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_27 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %81 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %82 = stablehlo.multiply %79, %78 : tensor<4xf32>
    %83 = stablehlo.subtract %82, %80 : tensor<4xf32>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %84 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %85 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_30 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %86 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %87 = stablehlo.multiply %83, %84 : tensor<4xf32>
    %88 = stablehlo.subtract %87, %85 : tensor<4xf32>
    %cst_31 = stablehlo.constant dense<-1.30002498E-8> : tensor<f32>
    %89 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %90 = stablehlo.add %88, %89 : tensor<4xf32>
    %91 = stablehlo.multiply %83, %90 : tensor<4xf32>
    %92 = stablehlo.subtract %91, %84 : tensor<4xf32>
    %cst_32 = stablehlo.constant dense<6.04699508E-8> : tensor<f32>
    %93 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %94 = stablehlo.add %92, %93 : tensor<4xf32>
    %95 = stablehlo.multiply %83, %94 : tensor<4xf32>
    %96 = stablehlo.subtract %95, %90 : tensor<4xf32>
    %cst_33 = stablehlo.constant dense<-2.67079372E-7> : tensor<f32>
    %97 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %98 = stablehlo.add %96, %97 : tensor<4xf32>
    %99 = stablehlo.multiply %83, %98 : tensor<4xf32>
    %100 = stablehlo.subtract %99, %94 : tensor<4xf32>
    %cst_34 = stablehlo.constant dense<1.11738757E-6> : tensor<f32>
    %101 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %102 = stablehlo.add %100, %101 : tensor<4xf32>
    %103 = stablehlo.multiply %83, %102 : tensor<4xf32>
    %104 = stablehlo.subtract %103, %98 : tensor<4xf32>
    %cst_35 = stablehlo.constant dense<-4.41673819E-6> : tensor<f32>
    %105 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %106 = stablehlo.add %104, %105 : tensor<4xf32>
    %107 = stablehlo.multiply %83, %106 : tensor<4xf32>
    %108 = stablehlo.subtract %107, %102 : tensor<4xf32>
    %cst_36 = stablehlo.constant dense<1.64484482E-5> : tensor<f32>
    %109 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %110 = stablehlo.add %108, %109 : tensor<4xf32>
    %111 = stablehlo.multiply %83, %110 : tensor<4xf32>
    %112 = stablehlo.subtract %111, %106 : tensor<4xf32>
    %cst_37 = stablehlo.constant dense<-5.75419508E-5> : tensor<f32>
    %113 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %114 = stablehlo.add %112, %113 : tensor<4xf32>
    %115 = stablehlo.multiply %83, %114 : tensor<4xf32>
    %116 = stablehlo.subtract %115, %110 : tensor<4xf32>
    %cst_38 = stablehlo.constant dense<1.88502891E-4> : tensor<f32>
    %117 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %118 = stablehlo.add %116, %117 : tensor<4xf32>
    %119 = stablehlo.multiply %83, %118 : tensor<4xf32>
    %120 = stablehlo.subtract %119, %114 : tensor<4xf32>
    %cst_39 = stablehlo.constant dense<-5.76375576E-4> : tensor<f32>
    %121 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %122 = stablehlo.add %120, %121 : tensor<4xf32>
    %123 = stablehlo.multiply %83, %122 : tensor<4xf32>
    %124 = stablehlo.subtract %123, %118 : tensor<4xf32>
    %cst_40 = stablehlo.constant dense<0.00163947558> : tensor<f32>
    %125 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %126 = stablehlo.add %124, %125 : tensor<4xf32>
    %127 = stablehlo.multiply %83, %126 : tensor<4xf32>
    %128 = stablehlo.subtract %127, %122 : tensor<4xf32>
    %cst_41 = stablehlo.constant dense<-4.324310e-03> : tensor<f32>
    %129 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %130 = stablehlo.add %128, %129 : tensor<4xf32>
    %131 = stablehlo.multiply %83, %130 : tensor<4xf32>
    %132 = stablehlo.subtract %131, %126 : tensor<4xf32>
    %cst_42 = stablehlo.constant dense<0.0105464607> : tensor<f32>
    %133 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %134 = stablehlo.add %132, %133 : tensor<4xf32>
    %135 = stablehlo.multiply %83, %134 : tensor<4xf32>
    %136 = stablehlo.subtract %135, %130 : tensor<4xf32>
    %cst_43 = stablehlo.constant dense<-0.0237374157> : tensor<f32>
    %137 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %138 = stablehlo.add %136, %137 : tensor<4xf32>
    %139 = stablehlo.multiply %83, %138 : tensor<4xf32>
    %140 = stablehlo.subtract %139, %134 : tensor<4xf32>
    %cst_44 = stablehlo.constant dense<0.0493052825> : tensor<f32>
    %141 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %142 = stablehlo.add %140, %141 : tensor<4xf32>
    %143 = stablehlo.multiply %83, %142 : tensor<4xf32>
    %144 = stablehlo.subtract %143, %138 : tensor<4xf32>
    %cst_45 = stablehlo.constant dense<-9.490110e-02> : tensor<f32>
    %145 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %146 = stablehlo.add %144, %145 : tensor<4xf32>
    %147 = stablehlo.multiply %83, %146 : tensor<4xf32>
    %148 = stablehlo.subtract %147, %142 : tensor<4xf32>
    %cst_46 = stablehlo.constant dense<0.171620905> : tensor<f32>
    %149 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %150 = stablehlo.add %148, %149 : tensor<4xf32>
    %151 = stablehlo.multiply %83, %150 : tensor<4xf32>
    %152 = stablehlo.subtract %151, %146 : tensor<4xf32>
    %cst_47 = stablehlo.constant dense<-0.304682672> : tensor<f32>
    %153 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %154 = stablehlo.add %152, %153 : tensor<4xf32>
    %155 = stablehlo.multiply %83, %154 : tensor<4xf32>
    %156 = stablehlo.subtract %155, %150 : tensor<4xf32>
    %cst_48 = stablehlo.constant dense<0.676795303> : tensor<f32>
    %157 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %158 = stablehlo.add %156, %157 : tensor<4xf32>
    %159 = stablehlo.subtract %158, %150 : tensor<4xf32>
    %cst_49 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %160 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %161 = stablehlo.multiply %160, %159 : tensor<4xf32>
    %162 = stablehlo.divide %81, %78 : tensor<4xf32>
    %163 = stablehlo.subtract %162, %80 : tensor<4xf32>
    %cst_50 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %164 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_51 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %165 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_52 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %166 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %167 = stablehlo.multiply %163, %164 : tensor<4xf32>
    %168 = stablehlo.subtract %167, %165 : tensor<4xf32>
    %cst_53 = stablehlo.constant dense<3.39623196E-9> : tensor<f32>
    %169 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %170 = stablehlo.add %168, %169 : tensor<4xf32>
    %171 = stablehlo.multiply %163, %170 : tensor<4xf32>
    %172 = stablehlo.subtract %171, %164 : tensor<4xf32>
    %cst_54 = stablehlo.constant dense<2.26666899E-8> : tensor<f32>
    %173 = stablehlo.broadcast_in_dim %cst_54, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %174 = stablehlo.add %172, %173 : tensor<4xf32>
    %175 = stablehlo.multiply %163, %174 : tensor<4xf32>
    %176 = stablehlo.subtract %175, %170 : tensor<4xf32>
    %cst_55 = stablehlo.constant dense<2.04891862E-7> : tensor<f32>
    %177 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %178 = stablehlo.add %176, %177 : tensor<4xf32>
    %179 = stablehlo.multiply %163, %178 : tensor<4xf32>
    %180 = stablehlo.subtract %179, %174 : tensor<4xf32>
    %cst_56 = stablehlo.constant dense<2.89137051E-6> : tensor<f32>
    %181 = stablehlo.broadcast_in_dim %cst_56, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %182 = stablehlo.add %180, %181 : tensor<4xf32>
    %183 = stablehlo.multiply %163, %182 : tensor<4xf32>
    %184 = stablehlo.subtract %183, %178 : tensor<4xf32>
    %cst_57 = stablehlo.constant dense<6.88975852E-5> : tensor<f32>
    %185 = stablehlo.broadcast_in_dim %cst_57, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %186 = stablehlo.add %184, %185 : tensor<4xf32>
    %187 = stablehlo.multiply %163, %186 : tensor<4xf32>
    %188 = stablehlo.subtract %187, %182 : tensor<4xf32>
    %cst_58 = stablehlo.constant dense<0.00336911646> : tensor<f32>
    %189 = stablehlo.broadcast_in_dim %cst_58, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %190 = stablehlo.add %188, %189 : tensor<4xf32>
    %191 = stablehlo.multiply %163, %190 : tensor<4xf32>
    %192 = stablehlo.subtract %191, %186 : tensor<4xf32>
    %cst_59 = stablehlo.constant dense<0.804490387> : tensor<f32>
    %193 = stablehlo.broadcast_in_dim %cst_59, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %194 = stablehlo.add %192, %193 : tensor<4xf32>
    %195 = stablehlo.subtract %194, %186 : tensor<4xf32>
    %cst_60 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %196 = stablehlo.broadcast_in_dim %cst_60, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %197 = stablehlo.multiply %196, %195 : tensor<4xf32>
    %198 = stablehlo.sqrt %78 : tensor<4xf32>
    %199 = stablehlo.divide %197, %198 : tensor<4xf32>
    %cst_61 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %200 = stablehlo.broadcast_in_dim %cst_61, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %201 = stablehlo.compare LE, %78, %200, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %202 = stablehlo.select %201, %161, %199 : tensor<4xi1>, tensor<4xf32>
    return %77, %202 : tensor<4xf32>, tensor<4xf32>
  }
}
