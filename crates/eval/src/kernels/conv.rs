//! XLA general convolution.

use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, ArrayShape, ConvDims, Window};

pub fn convolution(
    lhs: &ArrayLiteral,
    rhs: &ArrayLiteral,
    window: &Window,
    dims: &ConvDims,
    feature_group_count: i64,
    batch_group_count: i64,
    out: &ArrayShape,
) -> Result<ArrayLiteral> {
    let _ = (
        lhs,
        rhs,
        window,
        dims,
        feature_group_count,
        batch_group_count,
        out,
    );
    Err(EvalError::new("convolution: not implemented"))
}
