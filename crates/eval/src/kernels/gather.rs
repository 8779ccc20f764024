//! XLA gather.

use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, ArrayShape, GatherDims};

pub fn gather(
    operand: &ArrayLiteral,
    indices: &ArrayLiteral,
    dims: &GatherDims,
    slice_sizes: &[i64],
    out: &ArrayShape,
) -> Result<ArrayLiteral> {
    let _ = (operand, indices, dims, slice_sizes, out);
    Err(EvalError::new("gather: not implemented"))
}
