//! rng and rng-bit-generator.

use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, ArrayShape, Literal, RngAlgorithm, RngDistribution, Shape};

/// Deterministic random state of an evaluation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RngState {
    counter: u64,
    key: u64,
}

impl RngState {
    pub fn new(seed: u64) -> RngState {
        RngState {
            counter: 0,
            key: seed,
        }
    }
}

pub fn rng(
    distribution: RngDistribution,
    a: &ArrayLiteral,
    b: &ArrayLiteral,
    out: &ArrayShape,
    state: &mut RngState,
) -> Result<ArrayLiteral> {
    let _ = (distribution, a, b, out, state.counter, state.key);
    Err(EvalError::new("rng: not implemented"))
}

pub fn rng_bit_generator(
    algorithm: RngAlgorithm,
    state: &ArrayLiteral,
    out: &Shape,
) -> Result<Literal> {
    let _ = (algorithm, state, out);
    Err(EvalError::new("rng-bit-generator: not implemented"))
}
