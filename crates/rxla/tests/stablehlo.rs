//! The facade's text helpers take StableHLO text as well as HLO text.

use rxla::prelude::*;

const SQUARE: &str = "module @jit_f {\n  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32> {jax.result_info = \"result\"}) {\n    %0 = stablehlo.multiply %arg0, %arg0 : tensor<3xf32>\n    return %0 : tensor<3xf32>\n  }\n}\n";

#[test]
fn parse_and_compile_stablehlo_text() {
    let m = rxla::parse_text(SQUARE, &Options::default()).unwrap();
    assert_eq!(m.name, "jit_f");
    let exe = rxla::compile_text(SQUARE, &Options::default()).unwrap();
    let out = exe.run(&[Literal::vec1(vec![1.0f32, 2.0, 3.0])]).unwrap();
    assert_eq!(out.to_string(), "f32[3]{0} {1, 4, 9}");
}

#[test]
fn stablehlo_errors_name_the_file() {
    let opts = Options {
        file: "f.mlir".into(),
        ..Options::default()
    };
    let e = rxla::parse_text(
        &SQUARE.replace("tensor<3xf32>)", "tensor<3xf4E2M1FN>)"),
        &opts,
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("f.mlir:2:"), "{e}");
}
