//! cargo-fuzz target for oracle 3: the JIT (default options) must compute
//! what the evaluator computes on a generated module — bit-exact, except
//! the stated tolerance downstream of float accumulations and
//! transcendentals (docs/FUZZING.md). A compile-time "unsupported" is a
//! skip; a panic, a JIT error or a wrong value is a crash.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use rxla_fuzzgen::{GenConfig, generate};
use rxla_oracles::jit;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let seed: u64 = u.arbitrary().unwrap_or(0);
    let Ok(m) = generate(&mut u, &GenConfig::evaluable()) else {
        return;
    };
    if let Err(e) = jit::check(&m, seed) {
        panic!(
            "jit oracle (args seed {seed}): {e}\n{}",
            rxla_ir::print_module(&m)
        );
    }
});
