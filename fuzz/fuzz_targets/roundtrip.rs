//! cargo-fuzz target for oracle 1: a generated module (every opcode) must
//! print, parse back to the same text, verify, and evaluate identically.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use rxla_fuzzgen::{GenConfig, generate};
use rxla_oracles::roundtrip;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let seed: u64 = u.arbitrary().unwrap_or(0);
    let Ok(m) = generate(&mut u, &GenConfig::all_ops()) else {
        return;
    };
    if let Err(e) = rxla_ir::verify_module(&m) {
        panic!(
            "the generator made an invalid module: {e}\n{}",
            rxla_ir::print_module(&m)
        );
    }
    if let Err(e) = roundtrip::check(&m, seed) {
        panic!(
            "roundtrip oracle (args seed {seed}): {e}\n{}",
            rxla_ir::print_module(&m)
        );
    }
});
