//! The layout-sensitive verifier: the invariants a module satisfies after
//! layout assignment, when layouts are no longer metadata but part of the
//! program (a JIT reads buffers through them). [`verify_layouts`] checks:
//!
//! - every `bitcast` keeps the byte size, the element bit width and the
//!   physical element order: data elements land on data elements (padding
//!   on padding), so it is a pure reinterpretation of the same bytes;
//! - layout-preserving ops (elementwise ops, `map`, the updated operand of
//!   `dynamic-update-slice`; see [`operand_must_match_result`]) read every
//!   operand of the result's dims in the result's layout, so their kernel
//!   is one linear loop over congruent buffers;
//! - values passed between computations agree: `tuple` / `get-tuple-element`
//!   keep their elements' layouts, `call`/`fusion`/`conditional`/`while`
//!   operands match the callee parameters and their results match the
//!   callee roots (and a while body maps its parameter layout to itself);
//! - the ENTRY parameters and root carry `entry_computation_layout`.
//!
//! It is read-only and never repairs anything; the structural checks
//! (types, dims, names) stay in [`crate::verifier`] and are not repeated.

use crate::error::{IrError, Result};
use crate::module::{Computation, Instruction, Module};
use crate::ops::Op;
use crate::shape::{ArrayShape, Shape};

/// Verifies the layout-sensitive invariants of every computation.
pub fn verify_layouts(module: &Module) -> Result<()> {
    for c in &module.computations {
        for (k, instr) in c.instructions.iter().enumerate() {
            check_instruction(module, c, instr).map_err(|m| {
                IrError::verify(format!(
                    "layout: computation {}: instruction {} (#{k}): {m}",
                    c.name, instr.name
                ))
            })?;
        }
    }
    check_entry(module)
}

/// Whether operand `operand` of `op` must have the result's layout when it
/// has the result's dims (the layout-preserving ops).
pub fn operand_must_match_result(op: &Op, operand: usize) -> bool {
    match op {
        Op::DynamicUpdateSlice => operand == 0,
        Op::Map { .. } => true,
        op => op.is_elementwise(),
    }
}

/// Same tuple structure and dims, and equal layouts (element types are
/// ignored, so a `convert` operand can match its result).
pub fn layouts_equal(a: &Shape, b: &Shape) -> bool {
    match (a, b) {
        (Shape::Array(x), Shape::Array(y)) => x.dims == y.dims && x.layout == y.layout,
        (Shape::Tuple(x), Shape::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| layouts_equal(p, q))
        }
        _ => false,
    }
}

/// Same tuple structure and dims (element types and layouts ignored).
pub fn same_dims(a: &Shape, b: &Shape) -> bool {
    match (a, b) {
        (Shape::Array(x), Shape::Array(y)) => x.dims == y.dims,
        (Shape::Tuple(x), Shape::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_dims(p, q))
        }
        _ => false,
    }
}

/// Checks that a bitcast from `from` to `to` reinterprets the same bytes:
/// equal byte sizes, equal element bit widths, and (when either side is
/// padded) padding at the same physical positions.
pub fn check_bitcast(from: &ArrayShape, to: &ArrayShape) -> std::result::Result<(), String> {
    let bytes = |s: &ArrayShape| s.byte_size().map_err(|e| e.to_string());
    let (a, b) = (bytes(from)?, bytes(to)?);
    if a != b {
        return Err(format!(
            "bitcast from {from} ({a} bytes) to {to} ({b} bytes) changes the byte size"
        ));
    }
    if from.element_type.bit_width() != to.element_type.bit_width() {
        return Err(format!(
            "bitcast from {from} to {to} changes the element width"
        ));
    }
    if from.layout.is_padded() || to.layout.is_padded() {
        let count = |s: &ArrayShape| s.physical_element_count().unwrap_or(usize::MAX);
        if count(from).max(count(to)) > MASK_LIMIT {
            // Too large to compare position by position: require the same
            // physical structure (padded width, logical size) major to minor.
            return if physical_structure(from) == physical_structure(to) {
                Ok(())
            } else {
                Err(format!(
                    "bitcast from {from} to {to} reinterprets a padded layout with another physical structure"
                ))
            };
        }
        let mask = |s: &ArrayShape| -> Vec<bool> {
            crate::index::physical_to_logical_map(s)
                .iter()
                .map(Option::is_some)
                .collect()
        };
        if mask(from) != mask(to) {
            return Err(format!(
                "bitcast from {from} to {to} maps padding onto data (the padded positions differ)"
            ));
        }
    }
    Ok(())
}

/// Largest physical element count compared position by position.
const MASK_LIMIT: usize = 1 << 22;

/// (padded width, logical size) of each physical dim, major to minor,
/// without dims of width 1.
fn physical_structure(s: &ArrayShape) -> Vec<(i64, i64)> {
    let p = s.layout.physical_dims(&s.dims);
    s.layout
        .minor_to_major
        .iter()
        .rev()
        .filter_map(|&d| {
            let (w, n) = (*p.get(d as usize)?, *s.dims.get(d as usize)?);
            (w != 1).then_some((w, n))
        })
        .collect()
}

fn operand_shapes<'c>(c: &'c Computation, instr: &Instruction) -> Vec<&'c Shape> {
    instr
        .operands
        .iter()
        .filter_map(|o| c.instructions.get(o.index()).map(|i| &i.shape))
        .collect()
}

fn expect_equal(what: &str, got: &Shape, want: &Shape) -> std::result::Result<(), String> {
    if layouts_equal(got, want) {
        Ok(())
    } else {
        Err(format!("{what} is {got} but must be {want}"))
    }
}

fn check_instruction(
    module: &Module,
    c: &Computation,
    instr: &Instruction,
) -> std::result::Result<(), String> {
    let ops = operand_shapes(c, instr);
    if ops.len() != instr.operands.len() {
        return Err("an operand is out of range".into());
    }
    let callee = |id: crate::ops::CompId| {
        module
            .computations
            .get(id.index())
            .ok_or_else(|| format!("calls {id}, which does not exist"))
    };
    let param = |comp: &Computation, n: usize| -> std::result::Result<Shape, String> {
        comp.parameters()
            .get(n)
            .map(|&p| comp.get(p).shape.clone())
            .ok_or_else(|| format!("{} has no parameter {n}", comp.name))
    };
    let root = |comp: &Computation| -> std::result::Result<Shape, String> {
        comp.instructions
            .get(comp.root.index())
            .map(|i| i.shape.clone())
            .ok_or_else(|| format!("{} has no root", comp.name))
    };
    match &instr.op {
        Op::Bitcast => {
            let from = ops[0].as_array().map_err(|e| e.to_string())?;
            let to = instr.shape.as_array().map_err(|e| e.to_string())?;
            check_bitcast(from, to)?;
        }
        Op::GetTupleElement { index } => {
            let elem = ops[0]
                .tuple_elements()
                .and_then(|t| t.get(*index as usize))
                .ok_or("the operand has no such tuple element")?;
            expect_equal("the result", &instr.shape, elem)?;
        }
        Op::Tuple => {
            expect_equal(
                "the result",
                &instr.shape,
                &Shape::Tuple(ops.iter().map(|s| (*s).clone()).collect()),
            )?;
        }
        Op::Call { to_apply: f } | Op::Fusion { calls: f, .. } => {
            let f = callee(*f)?;
            for (i, s) in ops.iter().enumerate() {
                expect_equal(&format!("operand {i}"), s, &param(f, i)?)?;
            }
            expect_equal("the result", &instr.shape, &root(f)?)?;
        }
        Op::Conditional { branches } => {
            for &b in branches {
                let b = callee(b)?;
                expect_equal("the result", &instr.shape, &root(b)?)?;
            }
            for (k, &b) in branches.iter().enumerate() {
                let b = callee(b)?;
                if let Some(s) = ops.get(k + 1) {
                    expect_equal(&format!("operand {}", k + 1), s, &param(b, 0)?)?;
                }
            }
        }
        Op::While { condition, body } => {
            let (cond, body) = (callee(*condition)?, callee(*body)?);
            let state = param(body, 0)?;
            expect_equal("the operand", ops[0], &state)?;
            expect_equal("the result", &instr.shape, &state)?;
            expect_equal("the body root", &root(body)?, &state)?;
            expect_equal("the condition parameter", &param(cond, 0)?, &state)?;
        }
        op => {
            for (i, s) in ops.iter().enumerate() {
                if operand_must_match_result(op, i) && same_dims(s, &instr.shape) {
                    expect_equal(&format!("operand {i}"), s, &instr.shape)?;
                }
            }
        }
    }
    Ok(())
}

fn check_entry(module: &Module) -> Result<()> {
    let Some(layout) = &module.entry_layout else {
        return Ok(());
    };
    let Some(entry) = module.computations.get(module.entry.index()) else {
        return Err(IrError::verify("layout: the ENTRY computation is missing"));
    };
    let actual = entry.program_shape();
    let err = |m: String| IrError::verify(format!("layout: module {}: {m}", module.name));
    for (i, (want, got)) in layout.parameters.iter().zip(&actual.parameters).enumerate() {
        expect_equal(&format!("ENTRY parameter {i}"), got, want).map_err(err)?;
    }
    expect_equal("the ENTRY root", &actual.result, &layout.result).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ElementType, Layout};

    fn arr(dims: &[i64], layout: Layout) -> ArrayShape {
        ArrayShape::with_layout(ElementType::F32, dims.to_vec(), layout).unwrap()
    }

    #[test]
    fn bitcast_rules() {
        let rm = arr(&[2, 3], Layout::default_for_rank(2));
        let cm = arr(&[3, 2], Layout::column_major(2));
        assert!(check_bitcast(&rm, &cm).is_ok());
        let six = arr(&[6], Layout::default_for_rank(1));
        assert!(check_bitcast(&rm, &six).is_ok());
        let seven = arr(&[7], Layout::default_for_rank(1));
        assert!(
            check_bitcast(&rm, &seven)
                .unwrap_err()
                .contains("byte size")
        );
        let padded = arr(
            &[2, 3],
            Layout::default_for_rank(2).with_padding(vec![2, 4], None),
        );
        let eight = arr(&[8], Layout::default_for_rank(1));
        assert!(
            check_bitcast(&padded, &eight)
                .unwrap_err()
                .contains("padding")
        );
        let padded_t = arr(
            &[3, 2],
            Layout::column_major(2).with_padding(vec![4, 2], None),
        );
        assert!(check_bitcast(&padded, &padded_t).is_ok());
    }
}
