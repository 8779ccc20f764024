//! `rxla run` on linear algebra: cholesky and triangular-solve (native ops)
//! and JAX's LAPACK custom calls, on the JIT (interpreter fallback for
//! these instructions) and the interpreter, with exact expected values
//! (the test matrix factors over small integers).

use std::process::{Command, Output, Stdio};

fn rxla(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rxla"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("rxla runs")
}

fn write(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("rxla_linalg_cli_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn outputs(out: &Output) -> serde_json::Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    v["outputs"].clone()
}

/// [[4,12,-16],[12,37,-43],[-16,-43,98]] = L Lᵀ, L = [[2,0,0],[6,1,0],[-8,5,3]];
/// L x = (2, 4, 6) gives x = (1, -2, 8).
const MODULE: &str = "HloModule chol\n\nENTRY e {\n  a = f64[3,3]{1,0} parameter(0)\n  b = f64[3,1]{1,0} parameter(1)\n  l = f64[3,3]{1,0} cholesky(a), lower=true\n  u = f64[3,3]{1,0} cholesky(a), lower=false\n  x = f64[3,1]{1,0} triangular-solve(l, b), left_side=true, lower=true, unit_diagonal=false, transpose_a=NO_TRANSPOSE\n  ROOT t = (f64[3,3]{1,0}, f64[3,3]{1,0}, f64[3,1]{1,0}) tuple(l, u, x)\n}\n";

const ARGS: &str = r#"{"inputs": [
  {"dtype": "f64", "shape": [3, 3], "data": [4, 12, -16, 12, 37, -43, -16, -43, 98]},
  {"dtype": "f64", "shape": [3, 1], "data": [2, 4, 6]}
]}"#;

#[test]
fn run_cholesky_and_triangular_solve_on_both_backends() {
    let m = write("chol.hlo", MODULE);
    let args = write("chol.json", ARGS);
    let want = serde_json::json!([
        {"dtype": "f64", "shape": [3, 3], "data": [2.0, 0.0, 0.0, 6.0, 1.0, 0.0, -8.0, 5.0, 3.0]},
        {"dtype": "f64", "shape": [3, 3], "data": [2.0, 6.0, -8.0, 0.0, 1.0, 5.0, 0.0, 0.0, 3.0]},
        {"dtype": "f64", "shape": [3, 1], "data": [1.0, -2.0, 8.0]}
    ]);
    for extra in [
        &["--backend", "jit"][..],
        &["--backend", "interp"][..],
        &[][..],
    ] {
        let mut a = vec![
            "run",
            m.as_str(),
            "--args-json",
            args.as_str(),
            "--output=json",
        ];
        a.extend_from_slice(extra);
        let out = rxla(&a);
        assert_eq!(outputs(&out), want, "{extra:?}");
    }
}

/// jnp.linalg.cholesky as JAX 0.10.2 lowers it on CPU: lapack_dpotrf_ffi,
/// its info checked, the upper triangle zeroed.
#[test]
fn run_jax_lowered_cholesky_on_the_jit() {
    let jax = "HloModule jit_cholesky, entry_computation_layout={(f64[3,3]{1,0})->f64[3,3]{1,0}}\n\nENTRY main.1 {\n  iota.4 = s64[3]{0} iota(), iota_dimension=0\n  iota.5 = s64[3,3]{1,0} broadcast(iota.4), dimensions={0}\n  iota.7 = s64[3,3]{1,0} broadcast(iota.4), dimensions={1}\n  ge.1 = pred[3,3]{1,0} compare(iota.5, iota.7), direction=GE\n  a.1 = f64[3,3]{1,0} parameter(0)\n  cholesky.9 = (f64[3,3]{0,1}, s32[]) custom-call(a.1), custom_call_target=\"lapack_dpotrf_ffi\", operand_layout_constraints={f64[3,3]{0,1}}, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={uplo = 76 : ui8}\n  cholesky.11 = s32[] get-tuple-element(cholesky.9), index=1\n  constant.5 = s32[] constant(0)\n  cholesky.12 = pred[] compare(cholesky.11, constant.5), direction=EQ\n  cholesky.16 = pred[3,3]{1,0} broadcast(cholesky.12), dimensions={}\n  cholesky.10 = f64[3,3]{0,1} get-tuple-element(cholesky.9), index=0\n  constant.4 = f64[] constant(nan)\n  broadcast.3 = f64[3,3]{1,0} broadcast(constant.4), dimensions={}\n  cholesky.17 = f64[3,3]{1,0} select(cholesky.16, cholesky.10, broadcast.3)\n  constant.3 = f64[] constant(0)\n  broadcast.2 = f64[3,3]{1,0} broadcast(constant.3), dimensions={}\n  ROOT select_n.1 = f64[3,3]{1,0} select(ge.1, cholesky.17, broadcast.2)\n}\n";
    let m = write("jax_chol.hlo", jax);
    let args = write(
        "jax_chol.json",
        r#"{"inputs": [{"dtype": "f64", "shape": [3, 3], "data": [4, 12, -16, 12, 37, -43, -16, -43, 98]}]}"#,
    );
    let out = rxla(&[
        "run",
        &m,
        "--args-json",
        &args,
        "--output=json",
        "--backend",
        "jit",
    ]);
    assert_eq!(
        outputs(&out),
        serde_json::json!([{"dtype": "f64", "shape": [3, 3], "data": [2.0, 0.0, 0.0, 6.0, 1.0, 0.0, -8.0, 5.0, 3.0]}])
    );
}
