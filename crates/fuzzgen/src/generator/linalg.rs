//! Generators of cholesky and triangular-solve: f32/f64/c64/c128
//! `[batch?, m, m]` matrices (b is `[batch?, m, n]` or `[batch?, n, m]`)
//! with random values, so non-positive-definite inputs (NaN factors) and
//! near-singular solves are common. Complex operands are `complex(re, im)`
//! of real values (or existing complex values, as math.rs builds them) and
//! the complex result goes back to a real value by `real` or `imag`, since
//! the rest of the program only uses real values. Nothing here may emit an
//! invalid instruction.

use super::data::emit_array;
use super::math::complex_value;
use super::{Cb, Gen};
use crate::values::Choices;
use rxla_ir::{ArrayShape, ElementType, InstrId, Op, TransposeA, TriangularSolveOptions, UnaryOp};

pub(super) fn by_name(g: &mut Gen, cb: &mut Cb, name: &str) -> bool {
    if !matches!(name, "cholesky" | "triangular-solve") || g.scalar_mode {
        return false;
    }
    let ty = g.pick(&[
        ElementType::F32,
        ElementType::F64,
        ElementType::C64,
        ElementType::C128,
    ]);
    let part = ty.complex_component().unwrap_or(ty);
    let batch: Vec<i64> = if g.coin() {
        vec![g.range(1, 3)]
    } else {
        vec![]
    };
    let m = g.range(1, 4);
    let with = |tail: [i64; 2]| {
        let mut d = batch.clone();
        d.extend(tail);
        d
    };
    // A value of type `ty` with these dims.
    let value = |g: &mut Gen, cb: &mut Cb, dims: Vec<i64>| -> Option<InstrId> {
        if ty.is_complex() {
            Some(complex_value(g, cb, part, &dims))
        } else {
            let s = ArrayShape::new(ty, dims).ok()?;
            Some(g.value_of(cb, &s))
        }
    };
    // The result back to a real value (complex results are not operands
    // of the other generators).
    let finish = |g: &mut Gen, cb: &mut Cb, x: InstrId, dims: Vec<i64>| {
        if ty.is_complex() {
            let u = if g.coin() {
                UnaryOp::Real
            } else {
                UnaryOp::Imag
            };
            emit_array(g, cb, Op::Unary(u), vec![x], part, dims);
        }
    };
    let a_dims = with([m, m]);
    let Some(a) = value(g, cb, a_dims.clone()) else {
        return false;
    };
    if name == "cholesky" {
        let lower = g.coin();
        let l = emit_array(g, cb, Op::Cholesky { lower }, vec![a], ty, a_dims.clone());
        finish(g, cb, l, a_dims);
        return true;
    }
    let n = g.range(1, 4);
    let left_side = g.coin();
    let b_dims = with(if left_side { [m, n] } else { [n, m] });
    let Some(b) = value(g, cb, b_dims.clone()) else {
        return false;
    };
    let options = TriangularSolveOptions {
        left_side,
        lower: g.coin(),
        unit_diagonal: g.coin(),
        transpose_a: g.pick(&TransposeA::ALL),
    };
    let x = emit_array(
        g,
        cb,
        Op::TriangularSolve(options),
        vec![a, b],
        ty,
        b_dims.clone(),
    );
    finish(g, cb, x, b_dims);
    true
}
