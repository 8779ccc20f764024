//! Oracle 2, passes preserve semantics: every registered pass alone, and
//! the named pipelines O1 and O2, must leave a module that verifies and
//! evaluates exactly like the original (bit-exact, NaN payloads aside).
//! When the original cannot be evaluated the check is skipped.

use super::compare::same_values;
use super::{OracleResult, Verdict, eval};
use crate::random_args;
use rxla_ir::{Literal, Module, verify_module};
use rxla_passes::{PassManager, Registry};

/// The pass configurations checked: each registered pass, then O1 and O2.
pub fn configurations() -> Vec<String> {
    let mut v: Vec<String> = Registry::standard()
        .names()
        .into_iter()
        .map(String::from)
        .collect();
    v.push("O1".into());
    v.push("O2".into());
    v
}

/// Runs configuration `config` (a pass name or O1/O2) over a copy of
/// `module`.
pub fn run_config(module: &Module, config: &str) -> Result<Module, String> {
    let reg = Registry::standard();
    let mut pm = if config.starts_with('O') && config.len() == 2 {
        PassManager::named(config, &reg)
    } else {
        PassManager::from_text(config, &reg)
    }
    .map_err(|e| format!("{config}: cannot build the pass manager: {e}"))?;
    pm.set_verify(true);
    let mut m = module.clone();
    pm.run(&mut m)
        .map_err(|e| format!("{config} failed: {e}"))?;
    verify_module(&m).map_err(|e| format!("{config} left a module that does not verify: {e}"))?;
    Ok(m)
}

pub fn check(module: &Module, seed: u64) -> OracleResult {
    let args = random_args(module, seed);
    let want = match eval(module, &args) {
        Ok(v) => v,
        Err(e) => return Ok(Verdict::Skipped(format!("evaluation fails: {e}"))),
    };
    for config in configurations() {
        check_config(module, &config, &args, &want)?;
    }
    Ok(Verdict::Checked)
}

/// Checks one configuration against the expected result.
pub fn check_config(
    module: &Module,
    config: &str,
    args: &[Literal],
    want: &Literal,
) -> Result<(), String> {
    let m = run_config(module, config)?;
    let got = eval(&m, args).map_err(|e| format!("after {config} evaluation fails: {e}"))?;
    same_values(want, &got).map_err(|e| format!("after {config} the result differs: {e}"))
}
