//! XLA select-and-scatter.

use super::Apply;
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, ArrayShape, Window};

pub fn select_and_scatter(
    operand: &ArrayLiteral,
    source: &ArrayLiteral,
    init: &ArrayLiteral,
    window: &Window,
    select: &mut Apply,
    scatter: &mut Apply,
    out: &ArrayShape,
) -> Result<ArrayLiteral> {
    let _ = (operand, source, init, window, select, scatter, out);
    Err(EvalError::new("select-and-scatter: not implemented"))
}
