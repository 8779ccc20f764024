//! XLA scatter (variadic).

use super::Apply;
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, Literal, ScatterDims, Shape};

pub fn scatter(
    operands: &[&ArrayLiteral],
    indices: &ArrayLiteral,
    updates: &[&ArrayLiteral],
    dims: &ScatterDims,
    apply: &mut Apply,
    out: &Shape,
) -> Result<Literal> {
    let _ = (operands, indices, updates, dims, apply, out);
    Err(EvalError::new("scatter: not implemented"))
}
