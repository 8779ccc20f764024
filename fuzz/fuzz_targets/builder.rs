//! cargo-fuzz target for oracle 5: random builder calls with random (often
//! invalid) arguments return Ok or Err, never panic.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use rxla_fuzzgen::values::UChoices;
use rxla_oracles::builder;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    if let Err(e) = builder::check_with(&mut UChoices(&mut u)) {
        panic!("builder oracle: {e}");
    }
});
