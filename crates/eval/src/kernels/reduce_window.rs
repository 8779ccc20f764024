//! XLA reduce-window (variadic).

use super::Apply;
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, Literal, Shape, Window};

pub fn reduce_window(
    operands: &[&ArrayLiteral],
    inits: &[&ArrayLiteral],
    window: &Window,
    apply: &mut Apply,
    out: &Shape,
) -> Result<Literal> {
    let _ = (operands, inits, window, apply, out);
    Err(EvalError::new("reduce-window: not implemented"))
}
