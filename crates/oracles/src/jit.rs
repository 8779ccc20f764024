//! Oracle 3, JIT vs evaluator: compiles the module as generated with the
//! JIT's default options (what `rxla run --backend jit` does without
//! `--passes`/`--pipeline`: fusion, vectorization, interpreter fallback)
//! and compares its result with the evaluator's on the same arguments.
//!
//! The comparison is bit-exact (NaN payloads aside, -0 ≠ +0) except for
//! result leaves downstream of an op whose floating-point evaluation order
//! or approximation legitimately differs (see [`tolerance`] and the table
//! in docs/FUZZING.md). A compile-time `JitError::Unsupported` is a skip
//! (`unsupported: ...`); any other JIT error, a panic or a wrong value is
//! a failure. This module never changes the module it checks and never
//! loosens the comparison of a leaf that no inexact op feeds.

pub mod tolerance;

use crate::compare::same_values;
use crate::{OracleResult, Verdict, eval};
use rxla_fuzzgen::random_args;
use rxla_ir::{ArrayLiteral, Literal, Module};
use rxla_jit::{CompileOptions, JitError, compile};
use tolerance::{LeafPolicy, leaf_policies};

/// The compile options of the oracle: the JIT's defaults (as `rxla run
/// --backend jit`), with two worker threads whatever the machine, so that
/// the parallel paths run and a seed behaves the same everywhere, and row
/// groups formed however small the arrays (so that the generated
/// programs exercise them), and Cranelift's IR verifier on in every build.
pub fn options() -> CompileOptions {
    CompileOptions {
        threads: Some(2),
        row_group_min_bytes: 0,
        verify_clif: true,
        ..CompileOptions::default()
    }
}

pub fn check(module: &Module, seed: u64) -> OracleResult {
    check_with(module, seed, &options())
}

/// Checks `module` with `opts` on the arguments of `seed`.
pub fn check_with(module: &Module, seed: u64, opts: &CompileOptions) -> OracleResult {
    let args = random_args(module, seed);
    let want = match eval(module, &args) {
        Ok(v) => v,
        Err(e) => return Ok(Verdict::Skipped(format!("evaluation fails: {e}"))),
    };
    let exe = match compile(module, opts) {
        Ok(exe) => exe,
        Err(JitError::Unsupported(e)) => {
            return Ok(Verdict::Skipped(format!("unsupported: {e}")));
        }
        Err(e) => return Err(format!("jit compile fails: {e}")),
    };
    let got = exe.run(&args).map_err(|e| format!("jit run fails: {e}"))?;
    compare(module, &want, &got)
}

/// Compares the JIT's result `got` with the evaluator's `want`, leaf by
/// leaf, with the policy of each leaf.
pub fn compare(module: &Module, want: &Literal, got: &Literal) -> OracleResult {
    let policies = leaf_policies(module);
    let (w, g) = (want.leaves(), got.leaves());
    if w.len() != g.len() || policies.len() != w.len() {
        // Let the exact comparison describe the structural mismatch.
        same_values(want, got).map_err(|e| format!("jit result differs: {e}"))?;
        return Err(format!(
            "jit result has {} leaves, the evaluator's {}",
            g.len(),
            w.len()
        ));
    }
    for (i, ((w, g), p)) in w.iter().zip(&g).zip(&policies).enumerate() {
        compare_leaf(w, g, p).map_err(|e| format!("jit result differs: leaf {i}: {e}"))?;
    }
    Ok(Verdict::Checked)
}

fn compare_leaf(
    want: &ArrayLiteral,
    got: &ArrayLiteral,
    policy: &LeafPolicy,
) -> Result<(), String> {
    let exact = || same_values(&Literal::Array(want.clone()), &Literal::Array(got.clone()));
    match policy {
        LeafPolicy::Exact => exact(),
        LeafPolicy::Tolerance(t) => match tolerance::close(want, got, t) {
            Some(r) => r,
            // Not a float leaf: an integer or pred computed from an inexact
            // float value (a convert, a compare) may legitimately differ.
            None => Ok(()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rxla_fuzzgen::{GenConfig, generate_from_seed};

    #[test]
    fn generated_modules_agree_or_skip() {
        let cfg = GenConfig::evaluable();
        let mut checked = 0;
        for seed in 0..40 {
            let m = generate_from_seed(seed, &cfg);
            match crate::guard(|| check(&m, seed)) {
                Ok(Verdict::Checked) => checked += 1,
                Ok(Verdict::Skipped(_)) => {}
                Err(e) => panic!("seed {seed}: {e}"),
            }
        }
        assert!(checked >= 20, "only {checked} of 40 checked");
    }

    #[test]
    fn a_wrong_value_is_caught_exactly() {
        let text =
            "HloModule m\nENTRY e {\n  p = s32[3] parameter(0)\n  ROOT a = s32[3] add(p, p)\n}\n";
        let m = rxla_ir::parse_module(text, "t").unwrap();
        let want = Literal::vec1(vec![2i32, 4, 6]);
        assert_eq!(compare(&m, &want, &want.clone()), Ok(Verdict::Checked));
        let bad = Literal::vec1(vec![2i32, 4, 7]);
        let e = compare(&m, &want, &bad).unwrap_err();
        assert!(e.contains("leaf 0") && e.contains("element 2"), "{e}");
    }

    #[test]
    fn exact_floats_distinguish_signed_zero() {
        let text =
            "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT a = f32[2] add(p, p)\n}\n";
        let m = rxla_ir::parse_module(text, "t").unwrap();
        let want = Literal::vec1(vec![0.0f32, 1.0]);
        let got = Literal::vec1(vec![-0.0f32, 1.0]);
        assert!(compare(&m, &want, &got).is_err());
        let got = Literal::vec1(vec![0.0f32, f32::from_bits(1.0f32.to_bits() + 1)]);
        assert!(
            compare(&m, &want, &got).is_err(),
            "one ulp off an add is a failure"
        );
    }

    #[test]
    fn downstream_of_exp_a_few_ulp_pass() {
        let text = "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  x = f32[2] exponential(p)\n  ROOT a = f32[2] add(x, p)\n}\n";
        let m = rxla_ir::parse_module(text, "t").unwrap();
        let want = Literal::vec1(vec![2.5f32, 1.0]);
        let got = Literal::vec1(vec![f32::from_bits(2.5f32.to_bits() + 3), 1.0]);
        assert_eq!(compare(&m, &want, &got), Ok(Verdict::Checked));
        let got = Literal::vec1(vec![2.6f32, 1.0]);
        assert!(compare(&m, &want, &got).is_err());
    }
}
