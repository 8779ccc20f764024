//! One fuzzing case: the input of an oracle for a seed (a generated
//! module, a mutated text, builder calls), the oracle's answer, and the
//! artifact to save when it fails. Shared by `rxla fuzz`, the seeded tests
//! and the cargo-fuzz targets; it does no I/O.

use crate::{Oracle, OracleResult, guard, parser};
use rxla_fuzzgen::{generate_from_seed, opcodes_used};
use rxla_ir::print_module;
use std::collections::BTreeSet;

/// The outcome of one case.
pub struct Case {
    pub oracle: Oracle,
    pub seed: u64,
    pub result: OracleResult,
    /// Opcodes of the generated module (empty for builder cases).
    pub opcodes: BTreeSet<&'static str>,
    /// What to save on failure: module text or the mutated text.
    pub artifact: String,
}

/// Runs `oracle` on the input of `seed`. For the parser oracle, odd seeds
/// mutate a text of `corpus` (when given) instead of a generated module.
pub fn run_case(oracle: Oracle, seed: u64, corpus: &[String]) -> Case {
    if oracle == Oracle::Builder {
        return Case {
            oracle,
            seed,
            result: oracle.check(&rxla_ir::Module::new("unused"), seed),
            opcodes: BTreeSet::new(),
            artifact: format!("// builder calls of seed {seed} (no module)\n"),
        };
    }
    let module = generate_from_seed(seed, &oracle.config());
    let opcodes = opcodes_used(&module);
    if oracle == Oracle::Parser {
        let text = if !corpus.is_empty() && seed % 2 == 1 {
            let base = &corpus[(seed / 2) as usize % corpus.len()];
            parser::mutate(base, seed)
        } else {
            parser::mutate(&print_module(&module), seed)
        };
        let result = guard(|| parser::check_text(&text));
        return Case {
            oracle,
            seed,
            result,
            opcodes,
            artifact: text,
        };
    }
    let result = oracle.check(&module, seed);
    let artifact = if result.is_err() {
        print_guarded(&module)
    } else {
        String::new()
    };
    Case {
        oracle,
        seed,
        result,
        opcodes,
        artifact,
    }
}

/// The module's text, or its debug form if the printer panics.
pub fn print_guarded(module: &rxla_ir::Module) -> String {
    let printed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| print_module(module)));
    printed
        .unwrap_or_else(|_| format!("// the printer panicked on this module\n/* {module:?} */\n"))
}
