//! Every generated JAX case has a `NAME.mlir` (the StableHLO text of the
//! same function, written by `corpus_jax/gen_mlir.py`): read it with
//! `rxla_stablehlo::parse_stablehlo` (which verifies the module), evaluate
//! it on `NAME.json`'s inputs with the reference evaluator and compare
//! with the outputs XLA computed, with the same tolerance comparison as
//! `corpus_eval.rs`. Prints one line per case.

use rxla_eval::json::{Case, read_case};
use rxla_eval::{RunOptions, evaluate};
use std::path::Path;

fn run_one(path: &Path, case: &Case) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let module = rxla_stablehlo::parse_stablehlo(&text, &path.display().to_string())
        .map_err(|e| format!("conversion error: {e}"))?;
    rxla_ir::verify_module(&module).map_err(|e| format!("does not verify: {e}"))?;
    let got = evaluate(&module, &case.inputs, &RunOptions::default())
        .map_err(|e| format!("evaluation failed: {e}"))?;
    case.check_outputs(&got.leaves(), case.rtol, case.atol)
}

#[test]
fn every_jax_case_read_as_stablehlo_matches_xla() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus_jax");
    let names = rxla_testkit::case_names(&dir);
    let mut failures = Vec::new();
    let mut passed = 0;
    for name in &names {
        let mlir = dir.join(format!("{name}.mlir"));
        if !mlir.exists() {
            failures.push(format!("{name}.mlir: missing (run corpus_jax/gen_mlir.py)"));
            continue;
        }
        let case = read_case(&dir.join(format!("{name}.json")).display().to_string())
            .unwrap_or_else(|e| panic!("{name}.json: {e}"));
        match run_one(&mlir, &case) {
            Ok(()) => {
                passed += 1;
                println!("ok    {name}.mlir");
            }
            Err(e) => {
                println!("FAIL  {name}.mlir: {e}");
                failures.push(format!("{name}.mlir: {e}"));
            }
        }
    }
    println!("{passed} of {} StableHLO cases match XLA", names.len());
    assert!(
        names.len() >= 140,
        "expected the ~142 generated cases, found {}",
        names.len()
    );
    rxla_testkit::assert_no_failures(&failures);
}
