//! dot_general (batch and contracting dims) over array literals.

use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, ArrayShape, DotDims};

pub fn dot(
    lhs: &ArrayLiteral,
    rhs: &ArrayLiteral,
    dims: &DotDims,
    out: &ArrayShape,
) -> Result<ArrayLiteral> {
    let _ = (lhs, rhs, dims, out);
    Err(EvalError::new("dot: not implemented"))
}
