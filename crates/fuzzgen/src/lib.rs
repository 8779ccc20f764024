//! rxla-fuzzgen: the input side of rxla's differential fuzzing. A
//! well-typed random program generator ([`generate`],
//! [`generate_from_seed`]), random values and arguments with special
//! values ([`values`], [`random_args`]) and the deterministic PRNG that
//! turns a seed into both ([`prng`]). It depends on `rxla-ir` only: the
//! oracles, the campaign driver and the reducer, which evaluate, optimize
//! and compile what it generates, live in `rxla-oracles`.
//!
//! The generator must only produce modules that verify, and never panic
//! whatever its input bytes.

mod generator;
pub mod prng;
pub mod values;

pub use generator::{GenConfig, UNEVALUABLE};
pub use values::random_args;

use arbitrary::Unstructured;
use rxla_ir::Module;
use std::collections::BTreeSet;

/// Generates a module from fuzzer bytes. Exhausted bytes make the rest of
/// the choices minimal, so every input gives a valid module.
pub fn generate(u: &mut Unstructured, cfg: &GenConfig) -> arbitrary::Result<Module> {
    Ok(generator::Gen::new(u, cfg).module())
}

/// Bytes of the generator's input for `seed` (enough for any module).
pub fn seed_bytes(seed: u64) -> Vec<u8> {
    prng::SplitMix64::new(seed).bytes(4096)
}

/// Generates the module of `seed` (deterministic across runs and
/// platforms).
pub fn generate_from_seed(seed: u64, cfg: &GenConfig) -> Module {
    let bytes = seed_bytes(seed);
    let mut u = Unstructured::new(&bytes);
    generator::Gen::new(&mut u, cfg).module()
}

/// The opcodes used anywhere in `module`.
pub fn opcodes_used(module: &Module) -> BTreeSet<&'static str> {
    module
        .computations
        .iter()
        .flat_map(|c| c.instructions.iter().map(|i| i.opcode()))
        .collect()
}
