//! Runs every corpus case through the reference evaluator: both the
//! pre-optimisation `X.hlo` and XLA's optimised `X.opt.hlo` are evaluated
//! on the inputs of `X.json` and compared with its `outputs` within the
//! case's tolerance. Prints one line per case and module.

use rxla_eval::json::{Case, read_case};
use rxla_eval::{RunOptions, compare_with_tolerance, evaluate};
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let local = here.join("corpus");
    if local.join("add.json").exists() {
        return local;
    }
    here.join("../../shared/corpus")
}

fn run_one(hlo: &Path, case: &Case) -> Result<(), String> {
    let text = std::fs::read_to_string(hlo).map_err(|e| format!("cannot read: {e}"))?;
    let module = rxla_ir::parse_module(&text, &hlo.display().to_string())
        .map_err(|e| format!("parse error: {e}"))?;
    let got = evaluate(&module, &case.inputs, &RunOptions::default())
        .map_err(|e| format!("evaluation failed: {e}"))?;
    let leaves = got.leaves();
    if leaves.len() != case.outputs.len() {
        return Err(format!(
            "{} outputs, expected {}",
            leaves.len(),
            case.outputs.len()
        ));
    }
    for (i, (g, w)) in leaves.iter().zip(&case.outputs).enumerate() {
        compare_with_tolerance(g, w, case.rtol, case.atol)
            .map_err(|e| format!("output {i}: {e}"))?;
    }
    Ok(())
}

#[test]
fn every_corpus_case_matches_xla() {
    let dir = corpus_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus directory {}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().to_string();
            n.strip_suffix(".json").map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(
        names.len() >= 20,
        "expected at least 20 cases in {}",
        dir.display()
    );
    let mut failures = Vec::new();
    for name in &names {
        let case = read_case(&dir.join(format!("{name}.json")).display().to_string())
            .unwrap_or_else(|e| panic!("{name}.json: {e}"));
        for suffix in ["hlo", "opt.hlo"] {
            let path = dir.join(format!("{name}.{suffix}"));
            match run_one(&path, &case) {
                Ok(()) => println!("ok    {name}.{suffix}"),
                Err(e) => {
                    println!("FAIL  {name}.{suffix}: {e}");
                    failures.push(format!("{name}.{suffix}: {e}"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
