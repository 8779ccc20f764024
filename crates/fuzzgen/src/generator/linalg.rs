//! Generators of cholesky and triangular-solve: f32/f64/c64/c128 `[batch?, m, m]`
//! matrices (b is `[batch?, m, n]` or `[batch?, n, m]`) with random values,
//! so non-positive-definite inputs (NaN factors) and near-singular solves
//! are common. Nothing here may emit an invalid instruction.

use super::data::emit_array;
use super::{Cb, Gen};
use crate::values::Choices;
use rxla_ir::{ArrayShape, ElementType, Op, TransposeA, TriangularSolveOptions};

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
    let Ok(a_shape) = ArrayShape::new(ty, with([m, m])) else {
        return false;
    };
    let a = g.value_of(cb, &a_shape);
    if name == "cholesky" {
        let lower = g.coin();
        emit_array(g, cb, Op::Cholesky { lower }, vec![a], ty, a_shape.dims);
        return true;
    }
    let n = g.range(1, 4);
    let left_side = g.coin();
    let Ok(b_shape) = ArrayShape::new(ty, with(if left_side { [m, n] } else { [n, m] })) else {
        return false;
    };
    let b = g.value_of(cb, &b_shape);
    let options = TriangularSolveOptions {
        left_side,
        lower: g.coin(),
        unit_diagonal: g.coin(),
        transpose_a: g.pick(&TransposeA::ALL),
    };
    emit_array(
        g,
        cb,
        Op::TriangularSolve(options),
        vec![a, b],
        ty,
        b_shape.dims,
    );
    true
}
