//! `rxla check/opt/run` on StableHLO text (`.mlir`, or MLIR content on
//! stdin): it is read like HLO text, and a bad file is a located error
//! with exit code 1.

use crate::support;
use support::{jax, rxla};

const SQUARE: &str = "module @jit_f {\n  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32> {jax.result_info = \"result\"}) {\n    %0 = stablehlo.multiply %arg0, %arg0 : tensor<3xf32>\n    return %0 : tensor<3xf32>\n  }\n}\n";

#[test]
fn check_and_opt_read_mlir_files() {
    let out = rxla(&["check", &jax("softmax.mlir")], None);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("ok: module jit__lambda"));
    let out = rxla(&["opt", &jax("argmax.mlir")], None);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.starts_with("HloModule jit__lambda"), "{s}");
    assert!(s.contains("reduce("), "{s}");
}

#[test]
fn run_evaluates_stablehlo() {
    let out = rxla(
        &[
            "run",
            &jax("softmax.mlir"),
            "--args-json",
            &jax("softmax.json"),
        ],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("f32[3,8]"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = rxla(&["run", "-", "--random-args"], Some(SQUARE));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("f32[3]"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn bad_stablehlo_is_a_located_error() {
    let bad = SQUARE.replace("stablehlo.multiply", "stablehlo.frobnicate");
    let out = rxla(&["check", "-"], Some(&bad));
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.starts_with("<stdin>:3:10: error: unsupported operation 'stablehlo.frobnicate'"),
        "{e}"
    );
    assert!(e.contains('^'), "{e}");
}
