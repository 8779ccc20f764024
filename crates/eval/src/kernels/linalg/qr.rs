//! Householder QR: the `geqrf` custom call (R and the reflectors) and
//! `orgqr` (Q from them), behind `jnp.linalg.qr`.
//!
//! Both follow LAPACK's unblocked routines (dgeqr2, dlarfg, dorg2r) step
//! for step in f64, so R, the reflectors and tau equal LAPACK's up to
//! rounding (the blocked dgeqrf computes the same reflectors): reflector
//! `j` is `H = I - tau v vᵀ` with `v[j] = 1`, `beta = -sign(alpha) ‖(alpha,
//! x)‖` and `tau = (beta - alpha) / beta`; a column whose part below the
//! diagonal is already zero gets `tau = 0` (H = I). NaN propagates through
//! the arithmetic; there is no `info` result.

use super::{Matrices, dims, leaf, norm2, result_leaves};
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, Literal, Shape};

/// dlarfg on `alpha` and `x`: returns `(beta, tau)` and scales `x` into the
/// reflector's tail.
fn larfg(alpha: f64, x: &mut [f64]) -> (f64, f64) {
    let xnorm = norm2(x.iter().copied());
    if xnorm == 0.0 {
        return (alpha, 0.0);
    }
    let beta = -alpha.hypot(xnorm).copysign(alpha);
    let tau = (beta - alpha) / beta;
    let scale = 1.0 / (alpha - beta);
    for v in x.iter_mut() {
        *v *= scale;
    }
    (beta, tau)
}

/// dgeqr2 on one row-major `m×n` matrix in place; returns tau (`min(m, n)`
/// values).
pub(super) fn geqr2(a: &mut [f64], m: usize, n: usize) -> Vec<f64> {
    let k = m.min(n);
    let mut taus = Vec::with_capacity(k);
    let mut col = vec![0.0; m];
    for j in 0..k {
        let tail = &mut col[..m - j - 1];
        for (i, t) in tail.iter_mut().enumerate() {
            *t = a[(j + 1 + i) * n + j];
        }
        let (beta, tau) = larfg(a[j * n + j], tail);
        for (i, t) in tail.iter().enumerate() {
            a[(j + 1 + i) * n + j] = *t;
        }
        a[j * n + j] = beta;
        taus.push(tau);
        if tau != 0.0 {
            // H A[j.., j+1..] with v = (1, tail).
            for c in j + 1..n {
                let mut w = a[j * n + c];
                for i in j + 1..m {
                    w += a[i * n + j] * a[i * n + c];
                }
                let tw = tau * w;
                a[j * n + c] -= tw;
                for i in j + 1..m {
                    a[i * n + c] -= a[i * n + j] * tw;
                }
            }
        }
    }
    taus
}

/// dorg2r on one row-major `m×n` matrix in place (`m >= n >= tau.len()`):
/// overwrites the reflectors in its first `k` columns with the first `n`
/// columns of `H(0) H(1) … H(k-1)`.
pub(super) fn org2r(a: &mut [f64], m: usize, n: usize, tau: &[f64]) {
    let k = tau.len();
    for j in k..n {
        for l in 0..m {
            a[l * n + j] = 0.0;
        }
        a[j * n + j] = 1.0;
    }
    for i in (0..k).rev() {
        // Apply H(i) to A[i.., i+1..] from the left.
        if i + 1 < n {
            a[i * n + i] = 1.0;
            for c in i + 1..n {
                let mut w = 0.0;
                for r in i..m {
                    w += a[r * n + i] * a[r * n + c];
                }
                let tw = tau[i] * w;
                for r in i..m {
                    a[r * n + c] -= a[r * n + i] * tw;
                }
            }
        }
        for r in i + 1..m {
            a[r * n + i] *= -tau[i];
        }
        a[i * n + i] = 1.0 - tau[i];
        for r in 0..i {
            a[r * n + i] = 0.0;
        }
    }
}

/// `lapack_{s,d}geqrf_ffi(a)` → `(a', tau)`: R on and above the diagonal of
/// `a'`, the reflectors below it.
pub(super) fn geqrf(target: &str, a: &ArrayLiteral, result: &Shape) -> Result<Literal> {
    let mut x = Matrices::read(a, "the geqrf operand")?;
    let (m, n) = (x.rows, x.cols);
    let k = m.min(n);
    let ty = a.shape.element_type;
    let shapes = result_leaves(
        result,
        &[
            (ty, dims(&x.batch_dims, &[m, n])),
            (ty, dims(&x.batch_dims, &[k])),
        ],
        target,
    )?;
    let mut taus = Vec::with_capacity(x.batch * k);
    for b in 0..x.batch {
        taus.extend(geqr2(&mut x.data[b * m * n..(b + 1) * m * n], m, n));
    }
    Ok(Literal::Tuple(vec![
        leaf(&shapes[0], x.data)?,
        leaf(&shapes[1], taus)?,
    ]))
}

/// `lapack_{s,d}orgqr_ffi(a, tau)` → Q's first `n` columns (`a` is `m×n`,
/// `m >= n >= k`, tau `[batch, k]`).
pub(super) fn orgqr(
    target: &str,
    a: &ArrayLiteral,
    tau: &ArrayLiteral,
    result: &Shape,
) -> Result<Literal> {
    let mut x = Matrices::read(a, "the orgqr operand a")?;
    let (m, n) = (x.rows, x.cols);
    let t = super::to_f64(tau, "tau")?;
    let k = tau.shape.dims.last().copied().unwrap_or(-1);
    if tau.shape.dims.len() != x.batch_dims.len() + 1
        || tau.shape.dims[..x.batch_dims.len()] != x.batch_dims[..]
        || k < 0
        || !(m >= n && n >= k as usize)
    {
        return Err(EvalError::new(format!(
            "{target}: needs a [batch, m, n] and tau [batch, k] with m >= n >= k, got {} and {}",
            a.shape, tau.shape
        )));
    }
    let k = k as usize;
    if !result.compatible(&Shape::Array(a.shape.clone())) {
        return Err(EvalError::new(format!(
            "{target}: the result must have a's shape {}, got {result}",
            a.shape
        )));
    }
    for b in 0..x.batch {
        org2r(
            &mut x.data[b * m * n..(b + 1) * m * n],
            m,
            n,
            &t[b * k..(b + 1) * k],
        );
    }
    let shape = result
        .as_array()
        .map_err(|e| EvalError::new(e.to_string()))?;
    leaf(shape, x.data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geqrf_matches_lapack() {
        // scipy.linalg.lapack.dgeqrf([[1,2],[3,4],[5,6]]).
        let mut a = vec![1., 2., 3., 4., 5., 6.];
        let tau = geqr2(&mut a, 3, 2);
        let want_a = [
            -5.916079783099616,
            -7.437357441610946,
            0.4337717455676132,
            0.828078671210825,
            0.7229529092793553,
            0.8926238280228976,
        ];
        let want_tau = [1.1690308509457032, 1.1131040011646904];
        for (x, y) in a.iter().zip(want_a) {
            assert!((x - y).abs() < 1e-13, "{a:?}");
        }
        for (x, y) in tau.iter().zip(want_tau) {
            assert!((x - y).abs() < 1e-13, "{tau:?}");
        }
    }

    #[test]
    fn q_is_orthogonal_and_qr_is_a() {
        let a0 = vec![2., -1., 0., 4., 1., 3., -2., 5., 1., 0., 1., 1.];
        let (m, n) = (4, 3);
        let mut a = a0.clone();
        let tau = geqr2(&mut a, m, n);
        let mut q = a.clone();
        org2r(&mut q, m, n, &tau);
        for i in 0..m {
            for j in 0..n {
                let qr: f64 = (0..=j).map(|l| q[i * n + l] * a[l * n + j]).sum();
                assert!((qr - a0[i * n + j]).abs() < 1e-12);
            }
        }
        for i in 0..n {
            for j in 0..n {
                let d: f64 = (0..m).map(|l| q[l * n + i] * q[l * n + j]).sum();
                assert!((d - if i == j { 1.0 } else { 0.0 }).abs() < 1e-14);
            }
        }
    }

    #[test]
    fn zero_column_has_zero_tau() {
        let mut a = vec![0., 2., 0., 3.];
        let tau = geqr2(&mut a, 2, 2);
        assert_eq!(tau[0], 0.0);
        assert_eq!(a, vec![0., 2., 0., 3.]);
    }
}
