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
//!
//! The complex variants (`lapack_{c,z}geqrf_ffi`, `lapack_{c,z}ungqr_ffi`)
//! follow zgeqr2/zlarfg/zung2r in [`complex`]: `beta` is real,
//! `beta = -sign(Re alpha) ‖(alpha, x)‖`, `tau = ((beta - Re alpha) - i Im
//! alpha) / beta`, and geqrf applies `H(j)ᴴ` (conj(tau)) to the trailing
//! columns.

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
    if a.shape.element_type.is_complex() {
        return complex::geqrf(target, a, result);
    }
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
    if a.shape.element_type.is_complex() {
        return complex::ungqr(target, a, tau, result);
    }
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

/// Complex Householder QR (zgeqr2, zlarfg, zung2r) in Complex64.
pub(super) mod complex {
    use super::super::{MAX_DIM, complex_leaf, complex_values, matrix_dims, norm2};
    use crate::error::{EvalError, Result};
    use rxla_ir::{ArrayLiteral, ArrayShape, Complex64, Literal, Shape};

    type C = Complex64;

    fn read(a: &ArrayLiteral, what: &str) -> Result<Vec<C>> {
        complex_values(a, what)
    }

    fn write(shape: &ArrayShape, v: Vec<C>) -> Literal {
        complex_leaf(shape, v)
    }

    /// 1 / z without overflow in |z|² (Smith's algorithm).
    fn inv(z: C) -> C {
        if z.re.abs() >= z.im.abs() {
            let r = z.im / z.re;
            let d = z.re + z.im * r;
            C::new(1.0 / d, -r / d)
        } else {
            let r = z.re / z.im;
            let d = z.im + z.re * r;
            C::new(r / d, -1.0 / d)
        }
    }

    /// zlarfg: returns `(beta, tau)` and scales `x` into the reflector's tail.
    fn larfg(alpha: C, x: &mut [C]) -> (f64, C) {
        let xnorm = norm2(x.iter().flat_map(|c| [c.re, c.im]));
        if xnorm == 0.0 && alpha.im == 0.0 {
            return (alpha.re, C::new(0.0, 0.0));
        }
        let beta = -alpha.re.hypot(alpha.im).hypot(xnorm).copysign(alpha.re);
        let tau = C::new((beta - alpha.re) / beta, -alpha.im / beta);
        let scale = inv(alpha - beta);
        for v in x.iter_mut() {
            *v *= scale;
        }
        (beta, tau)
    }

    /// zgeqr2 on one row-major `m×n` matrix in place; returns tau.
    pub(in super::super) fn geqr2(a: &mut [C], m: usize, n: usize) -> Vec<C> {
        let k = m.min(n);
        let mut taus = Vec::with_capacity(k);
        let mut col = vec![C::new(0.0, 0.0); m];
        for j in 0..k {
            let tail = &mut col[..m - j - 1];
            for (i, t) in tail.iter_mut().enumerate() {
                *t = a[(j + 1 + i) * n + j];
            }
            let (beta, tau) = larfg(a[j * n + j], tail);
            for (i, t) in tail.iter().enumerate() {
                a[(j + 1 + i) * n + j] = *t;
            }
            a[j * n + j] = C::new(beta, 0.0);
            taus.push(tau);
            // H(j)ᴴ = I - conj(tau) v vᴴ on the trailing columns.
            let ct = tau.conj();
            if ct != C::new(0.0, 0.0) {
                for c in j + 1..n {
                    let mut w = a[j * n + c];
                    for i in j + 1..m {
                        w += a[i * n + j].conj() * a[i * n + c];
                    }
                    let tw = ct * w;
                    a[j * n + c] -= tw;
                    for i in j + 1..m {
                        a[i * n + c] -= a[i * n + j] * tw;
                    }
                }
            }
        }
        taus
    }

    /// zung2r on one row-major `m×n` matrix in place (`m >= n >= k`).
    pub(in super::super) fn ung2r(a: &mut [C], m: usize, n: usize, tau: &[C]) {
        let zero = C::new(0.0, 0.0);
        let one = C::new(1.0, 0.0);
        let k = tau.len();
        for j in k..n {
            for l in 0..m {
                a[l * n + j] = zero;
            }
            a[j * n + j] = one;
        }
        for i in (0..k).rev() {
            if i + 1 < n {
                a[i * n + i] = one;
                for c in i + 1..n {
                    let mut w = zero;
                    for r in i..m {
                        w += a[r * n + i].conj() * a[r * n + c];
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
            a[i * n + i] = one - tau[i];
            for r in 0..i {
                a[r * n + i] = zero;
            }
        }
    }

    fn dims_of(a: &ArrayLiteral, what: &str) -> Result<(usize, usize, usize)> {
        let (m, n, batch) = matrix_dims(&a.shape, what)?;
        if m > MAX_DIM || n > MAX_DIM {
            return Err(EvalError::new(format!(
                "{what} {} has a matrix dimension above rxla's limit of {MAX_DIM}",
                a.shape
            )));
        }
        Ok((m, n, batch))
    }

    pub(in super::super) fn geqrf(
        target: &str,
        a: &ArrayLiteral,
        result: &Shape,
    ) -> Result<Literal> {
        let (m, n, batch) = dims_of(a, "the geqrf operand")?;
        let k = m.min(n);
        let r = a.shape.dims.len();
        let mut tau_dims = a.shape.dims[..r - 2].to_vec();
        tau_dims.push(k as i64);
        let leaves = match result.tuple_elements() {
            Some([Shape::Array(x), Shape::Array(t)])
                if x.compatible(&a.shape)
                    && t.element_type == a.shape.element_type
                    && t.dims == tau_dims =>
            {
                (x.clone(), t.clone())
            }
            _ => {
                return Err(EvalError::new(format!(
                    "{target}: the result must be ({}, tau[batch dims, {k}]), got {result}",
                    a.shape
                )));
            }
        };
        let mut x = read(a, "the geqrf operand")?;
        let mut taus = Vec::with_capacity(batch * k);
        for b in 0..batch {
            taus.extend(geqr2(&mut x[b * m * n..(b + 1) * m * n], m, n));
        }
        Ok(Literal::Tuple(vec![
            write(&leaves.0, x),
            write(&leaves.1, taus),
        ]))
    }

    pub(in super::super) fn ungqr(
        target: &str,
        a: &ArrayLiteral,
        tau: &ArrayLiteral,
        result: &Shape,
    ) -> Result<Literal> {
        let (m, n, batch) = dims_of(a, "the ungqr operand a")?;
        let r = a.shape.dims.len();
        let k = tau.shape.dims.last().copied().unwrap_or(-1);
        if tau.shape.dims.len() != r - 1
            || tau.shape.dims[..r - 2] != a.shape.dims[..r - 2]
            || k < 0
            || !(m >= n && n >= k as usize)
        {
            return Err(EvalError::new(format!(
                "{target}: needs a [batch, m, n] and tau [batch, k] with m >= n >= k, got {} and {}",
                a.shape, tau.shape
            )));
        }
        let k = k as usize;
        let Shape::Array(out) = result else {
            return Err(EvalError::new(format!(
                "{target}: the result must have a's shape {}, got {result}",
                a.shape
            )));
        };
        if !out.compatible(&a.shape) {
            return Err(EvalError::new(format!(
                "{target}: the result must have a's shape {}, got {result}",
                a.shape
            )));
        }
        let mut x = read(a, "the ungqr operand a")?;
        let t = read(tau, "tau")?;
        for b in 0..batch {
            ung2r(
                &mut x[b * m * n..(b + 1) * m * n],
                m,
                n,
                &t[b * k..(b + 1) * k],
            );
        }
        Ok(write(out, x))
    }
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

    #[test]
    fn complex_qr_matches_lapack() {
        use rxla_ir::Complex64 as C;
        // scipy.linalg.lapack.zgeqrf / zungqr of [[1+2i, 2-i], [3i, 4+0.5i], [5-i, -6+2i]].
        let mut a = vec![
            C::new(1., 2.),
            C::new(2., -1.),
            C::new(0., 3.),
            C::new(4., 0.5),
            C::new(5., -1.),
            C::new(-6., 2.),
        ];
        let tau = complex::geqr2(&mut a, 3, 2);
        let want_a = [
            (-6.324555320336759, 0.0),
            (4.822473431756778, 2.0554804791094456),
            (0.10407792823375811, 0.38116227148710013),
            (-5.811088538303301, 0.0),
            (0.6005778097339142, -0.3005173042186302),
            (-0.29481145379964274, 0.3965425037300372),
        ];
        let want_tau = [
            (1.158113883008419, 0.31622776601683794),
            (1.5384745537337574, 0.32589908930173667),
        ];
        let want_q = [
            (-0.158113883008419, -0.31622776601683794),
            (-0.3635291367659662, -0.14627207869873243),
            (0.0, -0.47434164902525683),
            (-0.5205565153690169, -0.4796863757326063),
            (-0.7905694150420948, 0.15811388300841897),
            (0.3205079371486923, -0.4925927356177887),
        ];
        let close = |x: &[C], y: &[(f64, f64)]| {
            x.iter()
                .zip(y)
                .all(|(a, &(r, i))| (a - C::new(r, i)).norm() < 1e-13)
        };
        assert!(close(&a, &want_a), "{a:?}");
        assert!(close(&tau, &want_tau), "{tau:?}");
        complex::ung2r(&mut a, 3, 2, &tau);
        assert!(close(&a, &want_q), "{a:?}");
    }
}
