//! `cholesky` (the op) and the Cholesky factor of one matrix, shared with
//! the potrf custom call; real (`A = L Lᵀ`) and complex Hermitian
//! (`A = L Lᴴ`, zpotf2's conventions).

use super::{Scalar, matrix_dims};
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, Complex64};

/// Cholesky of one `m×m` matrix `a` (row-major) reading the `lower` (or
/// upper) triangle: `A = L Lᴴ`, the other triangle taken as the stored
/// one's conjugate transpose and the diagonal's imaginary part ignored
/// (LAPACK's zpotf2). Returns the lower factor `l` (row-major, zeros
/// above, real diagonal) and, if the matrix is not positive definite, the
/// 1-based order of the first failing pivot.
pub(super) fn factor<T: Scalar>(a: &[T], m: usize, lower: bool) -> (Vec<T>, Option<usize>) {
    // The Hermitian matrix's (i, j) with i >= j, from the stored triangle.
    let s = |i: usize, j: usize| {
        if lower {
            a[i * m + j]
        } else {
            a[j * m + i].conj()
        }
    };
    let mut l = vec![T::ZERO; m * m];
    for j in 0..m {
        // Real: Re(a[j][j]) - Σ |l[j][k]|² (zdotc's real part).
        let mut d = s(j, j).re();
        for k in 0..j {
            d -= (l[j * m + k] * l[j * m + k].conj()).re();
        }
        // NaN and non-positive pivots fail (LAPACK's `ajj <= 0 || isnan`).
        if d.is_nan() || d <= 0.0 {
            return (l, Some(j + 1));
        }
        let d = d.sqrt();
        l[j * m + j] = T::from_re(d);
        let dd = T::from_re(d);
        for i in j + 1..m {
            let mut x = s(i, j);
            for k in 0..j {
                x -= l[i * m + k] * l[j * m + k].conj();
            }
            l[i * m + j] = x.quot(dd);
        }
    }
    (l, None)
}

/// Writes factor `l` (lower, row-major) into `out` as the `lower` triangle
/// (or its conjugate transpose as the upper one); NaN when `failed`; the
/// other triangle is left as it is in `out`.
pub(super) fn write_factor<T: Scalar>(out: &mut [T], l: &[T], m: usize, lower: bool, failed: bool) {
    for i in 0..m {
        for j in 0..=i {
            let v = if failed { T::nan() } else { l[i * m + j] };
            if lower {
                out[i * m + j] = v;
            } else {
                out[j * m + i] = v.conj();
            }
        }
    }
}

/// `cholesky(a), lower=lower`.
pub fn cholesky(a: &ArrayLiteral, lower: bool) -> Result<ArrayLiteral> {
    if a.shape.element_type.is_complex() {
        cholesky_of::<Complex64>(a, lower)
    } else {
        cholesky_of::<f64>(a, lower)
    }
}

fn cholesky_of<T: Scalar>(a: &ArrayLiteral, lower: bool) -> Result<ArrayLiteral> {
    let (m, n, batch) = matrix_dims(&a.shape, "the cholesky operand")?;
    if m != n {
        return Err(EvalError::new(format!(
            "the cholesky operand must be square in its two minor dims, got {}",
            a.shape
        )));
    }
    let x = T::read(a, "the cholesky operand")?;
    let mut out = vec![T::ZERO; x.len()];
    for b in 0..batch {
        let r = b * m * m..(b + 1) * m * m;
        let (l, fail) = factor(&x[r.clone()], m, lower);
        write_factor(&mut out[r], &l, m, lower, fail.is_some());
    }
    Ok(ArrayLiteral {
        shape: a.shape.clone(),
        data: T::data(a.shape.element_type, out)?,
        runtime_sizes: Vec::new(),
    })
}
