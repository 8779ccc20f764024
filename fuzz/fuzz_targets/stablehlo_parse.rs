//! cargo-fuzz target for the StableHLO reader: arbitrary bytes given to
//! `rxla_stablehlo::parse_stablehlo_bytes` return a module or a located
//! error (`FILE:LINE:COL: error: ...`), never panic, overflow the stack or
//! hang; a module it returns verifies. Seed it with `seed_corpus.sh`
//! (copies tests/corpus_jax/*.mlir).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match rxla_stablehlo::parse_stablehlo_bytes(data, "fuzz.mlir") {
        Ok(m) => {
            if let Err(e) = rxla_ir::verify_module(&m) {
                panic!("converted module does not verify: {e}");
            }
        }
        Err(e) => {
            let s = e.to_string();
            assert!(s.starts_with("fuzz.mlir:"), "error without a location: {s}");
        }
    }
});
