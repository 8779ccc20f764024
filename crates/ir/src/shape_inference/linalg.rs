//! cholesky and triangular-solve (XLA's InferCholeskyShape and
//! InferTriangularSolveShape).

use super::{array, ash, err, expect_count};
use crate::element_type::ElementType;
use crate::error::Result;
use crate::linalg::TriangularSolveOptions;
use crate::shape::{ArrayShape, Shape};

/// f32, f64, c64 or c128 (the types the evaluator factors; XLA also takes
/// the narrower floats).
fn check_type(a: &ArrayShape, what: &str) -> Result<()> {
    if !matches!(
        a.element_type,
        ElementType::F32 | ElementType::F64 | ElementType::C64 | ElementType::C128
    ) {
        return err(format!(
            "expects {what} of element type f32, f64, c64 or c128, got {}",
            ash(a)
        ));
    }
    Ok(())
}

/// An array of rank >= 2 whose two minor dims are equal; returns m.
fn square(a: &ArrayShape, what: &str) -> Result<i64> {
    let r = a.dims.len();
    if r < 2 {
        return err(format!("expects {what} of rank >= 2, got {}", ash(a)));
    }
    if a.dims[r - 1] != a.dims[r - 2] {
        return err(format!(
            "expects the two minor dimensions of {what} to be equal (square matrices), got {}",
            ash(a)
        ));
    }
    Ok(a.dims[r - 1])
}

/// cholesky: a floating array `[..., m, m]`; the result has its shape.
pub(super) fn cholesky(ops: &[&Shape]) -> Result<Shape> {
    expect_count(ops, 1)?;
    let a = array(ops[0], "the operand")?;
    check_type(a, "an operand")?;
    square(a, "the operand")?;
    Ok(Shape::Array(ArrayShape::new(
        a.element_type,
        a.dims.clone(),
    )?))
}

/// triangular-solve: `a: [..., m, m]`, `b: [..., m, n]` (left side) or
/// `[..., n, m]` (right side), same element type and batch dims; the result
/// has b's shape.
pub(super) fn triangular_solve(ops: &[&Shape], opts: &TriangularSolveOptions) -> Result<Shape> {
    expect_count(ops, 2)?;
    let a = array(ops[0], "a")?;
    let b = array(ops[1], "b")?;
    check_type(a, "a")?;
    if a.element_type != b.element_type {
        return err(format!(
            "expects a and b of the same element type, got {} and {}",
            ash(a),
            ash(b)
        ));
    }
    let m = square(a, "a")?;
    if a.dims.len() != b.dims.len() {
        return err(format!(
            "expects a and b of the same rank, got {} and {}",
            ash(a),
            ash(b)
        ));
    }
    let r = b.dims.len();
    let left = opts.left_side;
    let (shared, which) = if left {
        (b.dims[r - 2], "b's dimension r-2 (left_side=true)")
    } else {
        (b.dims[r - 1], "b's dimension r-1 (left_side=false)")
    };
    if shared != m {
        return err(format!(
            "the shared dimension of a and b does not match: a is {} (m={m}), {which} is {shared} in {}",
            ash(a),
            ash(b)
        ));
    }
    if a.dims[..r - 2] != b.dims[..r - 2] {
        return err(format!(
            "expects a and b with equal batch dimensions, got {} and {}",
            ash(a),
            ash(b)
        ));
    }
    Ok(Shape::Array(ArrayShape::new(
        b.element_type,
        b.dims.clone(),
    )?))
}
