//! `triangular-solve` (the op; the trsm custom call maps onto it); real
//! and complex.

use super::{Scalar, matrix_dims};
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, Complex64, TriangularSolveOptions};

/// Solves one system in place: `t x = rhs` for a triangular `t` given by
/// `t(i, j)` (read only on its triangle: `i >= j` when `t_lower`, else
/// `i <= j`; never on the diagonal when `unit`). `rhs` is `m` values at
/// stride `stride` from `base`.
fn substitute<T: Scalar>(
    t: &dyn Fn(usize, usize) -> T,
    t_lower: bool,
    unit: bool,
    m: usize,
    x: &mut [T],
    base: usize,
    stride: usize,
) {
    let at = |i: usize| base + i * stride;
    let mut solve_row = |i: usize, ks: &mut dyn Iterator<Item = usize>| {
        let mut acc = x[at(i)];
        for k in ks {
            acc -= t(i, k) * x[at(k)];
        }
        x[at(i)] = if unit { acc } else { acc.quot(t(i, i)) };
    };
    if t_lower {
        for i in 0..m {
            solve_row(i, &mut (0..i));
        }
    } else {
        for i in (0..m).rev() {
            solve_row(i, &mut (i + 1..m));
        }
    }
}

/// `triangular-solve(a, b), ...`: x with `op(a) x = b` (left side) or
/// `x op(a) = b`, where `op(a)` is `a`, `aᵀ` (TRANSPOSE) or `aᴴ` (ADJOINT;
/// `aᵀ` for real types) restricted to the `lower` or upper triangle.
pub fn triangular_solve(
    a: &ArrayLiteral,
    b: &ArrayLiteral,
    o: &TriangularSolveOptions,
) -> Result<ArrayLiteral> {
    if a.shape.element_type.is_complex() {
        solve::<Complex64>(a, b, o)
    } else {
        solve::<f64>(a, b, o)
    }
}

fn solve<T: Scalar>(
    a: &ArrayLiteral,
    b: &ArrayLiteral,
    o: &TriangularSolveOptions,
) -> Result<ArrayLiteral> {
    let (m, ma, batch) = matrix_dims(&a.shape, "a")?;
    let (br, bc, bbatch) = matrix_dims(&b.shape, "b")?;
    let shared = if o.left_side { br } else { bc };
    if m != ma || shared != m || batch != bbatch || a.shape.element_type != b.shape.element_type {
        return Err(EvalError::new(format!(
            "triangular-solve shapes do not fit: a {} b {} (left_side={})",
            a.shape, b.shape, o.left_side
        )));
    }
    let av = T::read(a, "a")?;
    let mut x = T::read(b, "b")?;
    let trans = o.transpose_a.transposes();
    let conj = o.transpose_a.conjugates();
    // op(a) is lower triangular when exactly one of lower / transpose holds.
    let op_lower = o.lower != trans;
    for bi in 0..batch {
        let am = &av[bi * m * m..(bi + 1) * m * m];
        // op(a)(i, j).
        let op = |i: usize, j: usize| {
            let v = if trans { am[j * m + i] } else { am[i * m + j] };
            if conj { v.conj() } else { v }
        };
        let xb = bi * br * bc;
        if o.left_side {
            // op(a) X = B: one column of B at a time (stride bc).
            for c in 0..bc {
                substitute(&op, op_lower, o.unit_diagonal, m, &mut x, xb + c, bc);
            }
        } else {
            // X op(a) = B ⇔ op(a)ᵀ Xᵀ = Bᵀ: one row of B at a time.
            let opt = |i: usize, j: usize| op(j, i);
            for r in 0..br {
                substitute(&opt, !op_lower, o.unit_diagonal, m, &mut x, xb + r * bc, 1);
            }
        }
    }
    Ok(ArrayLiteral {
        shape: b.shape.clone(),
        data: T::data(b.shape.element_type, x)?,
        runtime_sizes: Vec::new(),
    })
}
