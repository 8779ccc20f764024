//! XLA sort (multi-operand, comparator).

use super::Apply;
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, Literal, Shape};

pub fn sort(
    operands: &[&ArrayLiteral],
    dimension: i64,
    is_stable: bool,
    comparator: &mut Apply,
    out: &Shape,
) -> Result<Literal> {
    let _ = (operands, dimension, is_stable, comparator, out);
    Err(EvalError::new("sort: not implemented"))
}
