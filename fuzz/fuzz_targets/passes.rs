//! cargo-fuzz target for oracle 2: every pass alone, and O1/O2, must leave
//! the evaluator's results on a generated module unchanged (bit-exact).
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use rxla_fuzzgen::{GenConfig, generate};
use rxla_oracles::passes;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let seed: u64 = u.arbitrary().unwrap_or(0);
    let Ok(m) = generate(&mut u, &GenConfig::evaluable()) else {
        return;
    };
    if let Err(e) = passes::check(&m, seed) {
        panic!(
            "passes oracle (args seed {seed}): {e}\n{}",
            rxla_ir::print_module(&m)
        );
    }
});
