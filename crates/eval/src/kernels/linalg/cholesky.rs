//! `cholesky` (the op) and the Cholesky factor of one matrix, shared with
//! the potrf custom call.

use super::{from_f64, matrix_dims, to_f64};
use crate::error::{EvalError, Result};
use rxla_ir::ArrayLiteral;

/// Cholesky of one `m×m` matrix `a` (row-major) reading the `lower` (or
/// upper) triangle. Returns the lower factor `l` (row-major, zeros above)
/// and, if the matrix is not positive definite, the 1-based order of the
/// first failing pivot.
pub(super) fn factor(a: &[f64], m: usize, lower: bool) -> (Vec<f64>, Option<usize>) {
    // The symmetric matrix's (i, j) with i >= j, from the stored triangle.
    let s = |i: usize, j: usize| if lower { a[i * m + j] } else { a[j * m + i] };
    let mut l = vec![0.0f64; m * m];
    for j in 0..m {
        let mut d = s(j, j);
        for k in 0..j {
            d -= l[j * m + k] * l[j * m + k];
        }
        // NaN and non-positive pivots fail (LAPACK's `ajj <= 0 || isnan`).
        if d.is_nan() || d <= 0.0 {
            return (l, Some(j + 1));
        }
        let d = d.sqrt();
        l[j * m + j] = d;
        for i in j + 1..m {
            let mut x = s(i, j);
            for k in 0..j {
                x -= l[i * m + k] * l[j * m + k];
            }
            l[i * m + j] = x / d;
        }
    }
    (l, None)
}

/// Writes factor `l` (lower, row-major) into `out` as the `lower` triangle
/// (or its transpose as the upper one); NaN when `failed`; the other
/// triangle is left as it is in `out`.
pub(super) fn write_factor(out: &mut [f64], l: &[f64], m: usize, lower: bool, failed: bool) {
    for i in 0..m {
        for j in 0..=i {
            let v = if failed { f64::NAN } else { l[i * m + j] };
            if lower {
                out[i * m + j] = v;
            } else {
                out[j * m + i] = v;
            }
        }
    }
}

/// `cholesky(a), lower=lower`.
pub fn cholesky(a: &ArrayLiteral, lower: bool) -> Result<ArrayLiteral> {
    let (m, n, batch) = matrix_dims(&a.shape, "the cholesky operand")?;
    if m != n {
        return Err(EvalError::new(format!(
            "the cholesky operand must be square in its two minor dims, got {}",
            a.shape
        )));
    }
    let x = to_f64(a, "the cholesky operand")?;
    let mut out = vec![0.0f64; x.len()];
    for b in 0..batch {
        let r = b * m * m..(b + 1) * m * m;
        let (l, fail) = factor(&x[r.clone()], m, lower);
        write_factor(&mut out[r], &l, m, lower, fail.is_some());
    }
    Ok(ArrayLiteral {
        shape: a.shape.clone(),
        data: from_f64(a.shape.element_type, out)?,
        runtime_sizes: Vec::new(),
    })
}
