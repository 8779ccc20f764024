//! cargo-fuzz target for oracle 4: the HLO text parser on arbitrary bytes
//! (seeded with real modules from tests/corpus) never panics or hangs, and
//! text that parses and verifies prints to a fixed point.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rxla_oracles::parser;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = parser::check_bytes(data) {
        panic!("parser oracle: {e}");
    }
});
