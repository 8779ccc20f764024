//! The generic op form (`"stablehlo.op"(...) <{...}> ({...}) : (...) -> ...`)
//! works for ops that are usually printed in custom form, with the
//! attribute spellings of the generic form; values are checked by
//! evaluating the converted module.

use rxla_eval::{RunOptions, evaluate};
use rxla_ir::Literal;

fn run(text: &str, args: &[Literal]) -> Literal {
    let m = rxla_stablehlo::parse_stablehlo(text, "g.mlir").unwrap_or_else(|e| panic!("{e}"));
    evaluate(&m, args, &RunOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn generic_elementwise_and_shape_ops() {
    let text = r#"
"builtin.module"() ({
}) : () -> ()
"#;
    // A generic builtin.module is not read: the error says what is expected.
    let e = rxla_stablehlo::parse_stablehlo(text, "g.mlir")
        .unwrap_err()
        .to_string();
    assert!(e.contains("expected 'module' or 'func.func'"), "{e}");

    let text = r#"
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<3x2xf32>, tensor<2x3xi1>, tensor<f32>) {
  %c = "stablehlo.constant"() <{value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %bb = "stablehlo.broadcast_in_dim"(%b) <{broadcast_dimensions = array<i64: 1>}> : (tensor<3xf32>) -> tensor<2x3xf32>
  %s = "stablehlo.add"(%a, %bb) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = "stablehlo.multiply"(%s, %c) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = "stablehlo.transpose"(%m) <{permutation = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %p = "stablehlo.compare"(%a, %c) <{comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %z = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %r = "stablehlo.reduce"(%m, %z) <{dimensions = array<i64: 0, 1>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %q = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%q) : (tensor<f32>) -> ()
  }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
  "func.return"(%t, %p, %r) : (tensor<3x2xf32>, tensor<2x3xi1>, tensor<f32>) -> ()
}
"#;
    let a = Literal::mat(&[&[1.0f32, 0.0, 4.0], &[0.0, 9.0, 1.0]]).unwrap();
    let b = Literal::vec1(vec![1.0f32, 1.0, -1.0]);
    let out = run(text, &[a, b]);
    // s = [[2, 1, 3], [1, 10, 0]]; m = s * c = [[2, 2, 9], [4, 50, 0]].
    assert_eq!(
        out.to_string(),
        "(f32[3,2]{1,0}, pred[2,3]{1,0}, f32[]) ({ {2, 4}, {2, 50}, {9, 0} }, { {false, true, false}, {true, false, true} }, 67)"
    );
}

#[test]
fn generic_dot_conv_slice_pad_iota_while() {
    let text = r#"
module {
  func.func public @main(%a: tensor<2x2xf32>, %x: tensor<1x4x1xf32>) -> (tensor<2x2xf32>, tensor<1x3x1xf32>, tensor<2xf32>, tensor<4xi32>, tensor<i32>) {
    %d = "stablehlo.dot_general"(%a, %a) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %w = "stablehlo.constant"() <{value = dense<1.0> : tensor<2x1x1xf32>}> : () -> tensor<2x1x1xf32>
    %cv = "stablehlo.convolution"(%x, %w) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 2, input_spatial_dimensions = [1], kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 2, kernel_spatial_dimensions = [0], output_batch_dimension = 0, output_feature_dimension = 2, output_spatial_dimensions = [1]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1>, padding = dense<0> : tensor<1x2xi64>, rhs_dilation = array<i64: 1>, window_reversal = array<i1: false>, window_strides = array<i64: 1>}> : (tensor<1x4x1xf32>, tensor<2x1x1xf32>) -> tensor<1x3x1xf32>
    %sl = "stablehlo.slice"(%a) <{start_indices = array<i64: 1, 0>, limit_indices = array<i64: 2, 2>, strides = array<i64: 1, 1>}> : (tensor<2x2xf32>) -> tensor<1x2xf32>
    %r = "stablehlo.reshape"(%sl) : (tensor<1x2xf32>) -> tensor<2xf32>
    %io = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4xi32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %pz = "stablehlo.pad"(%io, %zero) <{edge_padding_low = array<i64: 0>, edge_padding_high = array<i64: 0>, interior_padding = array<i64: 0>}> : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    %ten = stablehlo.constant dense<10> : tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %wl = "stablehlo.while"(%zero) ({
    ^bb0(%i: tensor<i32>):
      %lt = "stablehlo.compare"(%i, %ten) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%lt) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i32>):
      %n = "stablehlo.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%n) : (tensor<i32>) -> ()
    }) : (tensor<i32>) -> tensor<i32>
    return %d, %cv, %r, %pz, %wl : tensor<2x2xf32>, tensor<1x3x1xf32>, tensor<2xf32>, tensor<4xi32>, tensor<i32>
  }
}
"#;
    let a = Literal::mat(&[&[1.0f32, 2.0], &[3.0, 4.0]]).unwrap();
    let x = Literal::from_vec(&[1, 4, 1], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let out = run(text, &[a, x]);
    assert_eq!(
        out.to_string(),
        "(f32[2,2]{1,0}, f32[1,3,1]{2,1,0}, f32[2]{0}, s32[4]{0}, s32[]) ({ {7, 10}, {15, 22} }, { { {3}, {5}, {7} } }, {3, 4}, {0, 1, 2, 3}, 10)"
    );
}
