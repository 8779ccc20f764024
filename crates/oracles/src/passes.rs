//! Oracle 2, passes preserve semantics: every registered pass alone, and
//! the named pipelines O1 and O2, must leave a module that verifies and
//! evaluates exactly like the original (bit-exact, NaN payloads aside).
//! The optimized module must also print to text that parses and evaluates
//! the same. When the original cannot be evaluated the check is skipped.

use crate::compare::same_values;
use crate::{OracleResult, Verdict, eval};
use rxla_fuzzgen::random_args;
use rxla_ir::{Literal, Module, parse_module, print_module, verify_module};
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

/// Runs configuration `config` (a pass name, a pipeline text, or O1/O2)
/// of `reg` over a copy of `module`.
pub fn run_config(module: &Module, config: &str, reg: &Registry) -> Result<Module, String> {
    let mut pm = if config.starts_with('O') && config.len() == 2 {
        PassManager::named(config, reg)
    } else {
        PassManager::from_text(config, reg)
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
    check_configs(module, seed, &Registry::standard(), &configurations())
}

/// Checks each of `configs` (built from `reg`) on `module`.
pub fn check_configs(
    module: &Module,
    seed: u64,
    reg: &Registry,
    configs: &[String],
) -> OracleResult {
    let args = random_args(module, seed);
    let want = match eval(module, &args) {
        Ok(v) => v,
        Err(e) => return Ok(Verdict::Skipped(format!("evaluation fails: {e}"))),
    };
    for config in configs {
        check_config(module, config, reg, &args, &want)?;
    }
    Ok(Verdict::Checked)
}

/// Checks one configuration against the expected result.
pub fn check_config(
    module: &Module,
    config: &str,
    reg: &Registry,
    args: &[Literal],
    want: &Literal,
) -> Result<(), String> {
    let m = run_config(module, config, reg)?;
    let got = eval(&m, args).map_err(|e| format!("after {config} evaluation fails: {e}"))?;
    same_values(want, &got).map_err(|e| format!("after {config} the result differs: {e}"))?;
    // The optimized module (new constants from folding, renamed and
    // inlined instructions) must survive the text round trip too.
    let text = print_module(&m);
    let reparsed = parse_module(&text, "<optimized>")
        .map_err(|e| format!("after {config} the printed module does not parse: {e}"))?;
    let again = eval(&reparsed, args)
        .map_err(|e| format!("after {config} the reparsed module fails to evaluate: {e}"))?;
    same_values(want, &again)
        .map_err(|e| format!("after {config} the reparsed module evaluates differently: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rxla_fuzzgen::{GenConfig, generate_from_seed};
    use rxla_ir::{BinaryOp, Op};
    use rxla_passes::{Pass, PassContext};

    /// A deliberately wrong pass: swaps the operands of every subtract.
    struct SwapSubtract;

    impl Pass for SwapSubtract {
        fn name(&self) -> &'static str {
            "test-swap-subtract"
        }
        fn description(&self) -> &'static str {
            "TEST ONLY: swaps subtract operands (wrong)"
        }
        fn run(&mut self, module: &mut Module, _: &mut PassContext) -> rxla_passes::Result<bool> {
            let mut changed = false;
            for c in &mut module.computations {
                for i in &mut c.instructions {
                    if i.op == Op::Binary(BinaryOp::Subtract) && i.operands[0] != i.operands[1] {
                        i.operands.swap(0, 1);
                        changed = true;
                    }
                }
            }
            Ok(changed)
        }
    }

    #[test]
    fn a_wrong_pass_is_caught() {
        let mut reg = Registry::standard();
        reg.register(|| Box::new(SwapSubtract));
        let configs = vec!["test-swap-subtract".to_string()];
        let cfg = GenConfig::evaluable();
        let caught = (0..400)
            .filter(|&s| {
                let m = generate_from_seed(s, &cfg);
                let r = crate::guard(|| check_configs(&m, s, &reg, &configs));
                matches!(r, Err(e) if e.contains("after test-swap-subtract the result differs"))
            })
            .count();
        assert!(
            caught >= 5,
            "only {caught} of 400 programs caught the wrong pass"
        );
    }
}
