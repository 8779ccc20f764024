//! Oracle 3, JIT vs evaluator: a placeholder until the JIT exists. It always
//! answers `Skipped`; when the JIT lands it will compile the module with the
//! default pipeline and compare with the evaluator (exact for data movement,
//! integer and comparison ops; the tolerance in docs/FUZZING.md elsewhere).

use super::{OracleResult, Verdict};
use rxla_ir::Module;

pub fn check(module: &Module, seed: u64) -> OracleResult {
    let _ = (module, seed);
    Ok(Verdict::Skipped("the JIT does not exist yet".into()))
}
