//! Symmetric eigendecomposition: the `syevd` custom call behind
//! `jnp.linalg.eigh` / `jax.lax.linalg.eigh`.
//!
//! Cyclic Jacobi in f64 (Golub & Van Loan, sym.schur2 rotations swept row
//! by row over the strict upper triangle) on the symmetric matrix read from
//! the `uplo` triangle, scaled by its largest magnitude first. A rotation
//! is skipped when `|a_pq| <= ε·sqrt(|a_pp|·|a_qq|)` (ε = f64 epsilon), so
//! small eigenvalues keep high relative accuracy; a sweep without rotations
//! ends the iteration. Results:
//! - eigenvalues ascending (a stable sort of the converged diagonal), and
//!   the eigenvectors as the columns of the first result, in that order;
//! - each eigenvector's sign is chosen so that its largest-magnitude entry
//!   (the first one on ties) is positive. LAPACK's signs are
//!   implementation-defined, so vectors can differ from LAPACK's by sign;
//! - `info` = 0, or 1 when [`MAX_SWEEPS`] sweeps did not converge (the
//!   values are then the last iterate);
//! - a NaN or infinite entry in the read triangle makes every value NaN with
//!   info 0 (LAPACK returns NaN and info 0 for NaN input);
//! - mode `N` (eigenvalues only) returns the input as the first result
//!   (LAPACK leaves it destroyed).
//!
//! The complex Hermitian variant (`lapack_{c,z}heevd_ffi`) is the same
//! Jacobi with complex rotations `J = [[c, s·e], [-s·ē, c]]` (`e` the phase
//! of `a_pq`); the diagonal is read as real (LAPACK ignores its imaginary
//! part), the eigenvalues are real (f32 for c64, f64 for c128), and each
//! eigenvector's largest-magnitude entry is made real and positive.

use super::lapack::config_char;
use super::{
    MAX_DIM, Matrices, complex_leaf, complex_values, dims, fix_phase, info_leaf, leaf, matrix_dims,
    result_leaves,
};
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, Complex64, ElementType, Literal, Shape};

/// The sweep cap (Jacobi converges quadratically; 10 sweeps are typical).
pub(super) const MAX_SWEEPS: usize = 60;

/// The eigenvalues (ascending) and eigenvectors (columns of the row-major
/// `n×n` result) of the symmetric `n×n` matrix `s` (row-major, both
/// triangles), and whether Jacobi converged.
pub(super) fn jacobi_eigh(s: &[f64], n: usize) -> (Vec<f64>, Vec<f64>, bool) {
    let scale = s.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    // Divided (not multiplied by 1/scale, which overflows for subnormals).
    let div = if scale > 0.0 { scale } else { 1.0 };
    let mut a: Vec<f64> = s.iter().map(|v| v / div).collect();
    let mut v = vec![0.0; n * n];
    for i in 0..n {
        v[i * n + i] = 1.0;
    }
    let mut converged = false;
    for _ in 0..MAX_SWEEPS {
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                let (app, aqq) = (a[p * n + p], a[q * n + q]);
                if apq == 0.0 || apq.abs() <= f64::EPSILON * app.abs().sqrt() * aqq.abs().sqrt() {
                    continue;
                }
                let theta = (aqq - app) / (2.0 * apq);
                let t = 1.0 / (theta.abs() + theta.hypot(1.0));
                let t = if theta < 0.0 { -t } else { t };
                let c = 1.0 / t.hypot(1.0);
                let sn = t * c;
                if sn == 0.0 {
                    continue;
                }
                rotated = true;
                // A ← Jᵀ A J with J = [[c, s], [-s, c]] in rows/cols p, q.
                for k in 0..n {
                    let (akp, akq) = (a[k * n + p], a[k * n + q]);
                    a[k * n + p] = c * akp - sn * akq;
                    a[k * n + q] = sn * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (a[p * n + k], a[q * n + k]);
                    a[p * n + k] = c * apk - sn * aqk;
                    a[q * n + k] = sn * apk + c * aqk;
                }
                a[p * n + q] = 0.0;
                a[q * n + p] = 0.0;
                for k in 0..n {
                    let (vkp, vkq) = (v[k * n + p], v[k * n + q]);
                    v[k * n + p] = c * vkp - sn * vkq;
                    v[k * n + q] = sn * vkp + c * vkq;
                }
            }
        }
        if !rotated {
            converged = true;
            break;
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| a[i * n + i].total_cmp(&a[j * n + j]));
    let w: Vec<f64> = order.iter().map(|&i| a[i * n + i] * scale).collect();
    let mut vs = vec![0.0; n * n];
    for (j, &src) in order.iter().enumerate() {
        let col: Vec<f64> = (0..n).map(|k| v[k * n + src]).collect();
        let sign = sign_of_largest(&col);
        for k in 0..n {
            vs[k * n + j] = sign * col[k];
        }
    }
    (w, vs, converged)
}

/// 1.0 if the first largest-magnitude entry of `x` is >= 0, else -1.0.
pub(super) fn sign_of_largest(x: &[f64]) -> f64 {
    let mut best = 0.0f64;
    let mut sign = 1.0;
    for &e in x {
        if e.abs() > best {
            best = e.abs();
            sign = if e < 0.0 { -1.0 } else { 1.0 };
        }
    }
    sign
}

/// The eigenvalues (ascending) and eigenvectors (columns of the row-major
/// `n×n` result) of the Hermitian `n×n` matrix `s` (row-major, both
/// triangles), and whether Jacobi converged.
pub(super) fn jacobi_heigh(s: &[Complex64], n: usize) -> (Vec<f64>, Vec<Complex64>, bool) {
    let scale = s.iter().fold(0.0f64, |m, v| m.max(v.norm()));
    let div = if scale > 0.0 { scale } else { 1.0 };
    let mut a: Vec<Complex64> = s.iter().map(|v| v / div).collect();
    for i in 0..n {
        a[i * n + i].im = 0.0;
    }
    let zero = Complex64::new(0.0, 0.0);
    let mut v = vec![zero; n * n];
    for i in 0..n {
        v[i * n + i] = Complex64::new(1.0, 0.0);
    }
    let mut converged = false;
    for _ in 0..MAX_SWEEPS {
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                let g = apq.norm();
                let (app, aqq) = (a[p * n + p].re, a[q * n + q].re);
                if g == 0.0 || g <= f64::EPSILON * app.abs().sqrt() * aqq.abs().sqrt() {
                    continue;
                }
                let e = apq / g;
                let theta = (aqq - app) / (2.0 * g);
                let t = 1.0 / (theta.abs() + theta.hypot(1.0));
                let t = if theta < 0.0 { -t } else { t };
                let c = 1.0 / t.hypot(1.0);
                let sn = t * c;
                if sn == 0.0 {
                    continue;
                }
                rotated = true;
                let (se, sec) = (e * sn, e.conj() * sn);
                // A ← Jᴴ A J, V ← V J.
                for k in 0..n {
                    let (akp, akq) = (a[k * n + p], a[k * n + q]);
                    a[k * n + p] = akp * c - sec * akq;
                    a[k * n + q] = se * akp + akq * c;
                }
                for k in 0..n {
                    let (apk, aqk) = (a[p * n + k], a[q * n + k]);
                    a[p * n + k] = apk * c - se * aqk;
                    a[q * n + k] = sec * apk + aqk * c;
                }
                a[p * n + q] = zero;
                a[q * n + p] = zero;
                a[p * n + p].im = 0.0;
                a[q * n + q].im = 0.0;
                for k in 0..n {
                    let (vkp, vkq) = (v[k * n + p], v[k * n + q]);
                    v[k * n + p] = vkp * c - sec * vkq;
                    v[k * n + q] = se * vkp + vkq * c;
                }
            }
        }
        if !rotated {
            converged = true;
            break;
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| a[i * n + i].re.total_cmp(&a[j * n + j].re));
    let w: Vec<f64> = order.iter().map(|&i| a[i * n + i].re * scale).collect();
    let mut vs = vec![zero; n * n];
    for (j, &src) in order.iter().enumerate() {
        for k in 0..n {
            vs[k * n + j] = v[k * n + src];
        }
        fix_phase(&mut vs, n, n, j);
    }
    (w, vs, converged)
}

/// `lapack_{c,z}heevd_ffi(a)`: see the module doc.
fn heevd(
    target: &str,
    lower: bool,
    vectors: bool,
    a: &ArrayLiteral,
    result: &Shape,
) -> Result<Literal> {
    let (n, cols, batch) = matrix_dims(&a.shape, "the heevd operand")?;
    if n != cols || n > MAX_DIM {
        return Err(EvalError::new(format!(
            "{target}: the operand must be square in its two minor dims, at most {MAX_DIM}, got {}",
            a.shape
        )));
    }
    let x = complex_values(a, "the heevd operand")?;
    let ty = a.shape.element_type;
    let real = ty.complex_component().unwrap_or(ty);
    let bd = a.shape.dims[..a.shape.dims.len() - 2].to_vec();
    let shapes = result_leaves(
        result,
        &[
            (ty, dims(&bd, &[n, n])),
            (real, dims(&bd, &[n])),
            (ElementType::S32, bd.clone()),
        ],
        target,
    )?;
    let nan = Complex64::new(f64::NAN, f64::NAN);
    let (mut vecs, mut vals, mut info) = (Vec::new(), Vec::new(), Vec::new());
    for b in 0..batch {
        let m = &x[b * n * n..(b + 1) * n * n];
        let mut s = vec![Complex64::new(0.0, 0.0); n * n];
        for i in 0..n {
            for j in 0..n {
                s[i * n + j] = if (i >= j) == lower {
                    m[i * n + j]
                } else {
                    m[j * n + i].conj()
                };
            }
        }
        if !s.iter().all(|v| v.re.is_finite() && v.im.is_finite()) {
            vals.extend(std::iter::repeat_n(f64::NAN, n));
            if vectors {
                vecs.extend(std::iter::repeat_n(nan, n * n));
            } else {
                vecs.extend_from_slice(m);
            }
            info.push(0);
            continue;
        }
        let (w, v, ok) = jacobi_heigh(&s, n);
        vals.extend(w);
        if vectors {
            vecs.extend(v);
        } else {
            vecs.extend_from_slice(m);
        }
        info.push(if ok { 0 } else { 1 });
    }
    Ok(Literal::Tuple(vec![
        complex_leaf(&shapes[0], vecs),
        leaf(&shapes[1], vals)?,
        info_leaf(&shapes[2], info),
    ]))
}

/// `lapack_{s,d}syevd_ffi(a)` (and `lapack_{c,z}heevd_ffi`) →
/// `(eigenvectors, eigenvalues, info)`.
pub(super) fn syevd(
    target: &str,
    config: &str,
    a: &ArrayLiteral,
    result: &Shape,
) -> Result<Literal> {
    if a.shape.element_type.is_complex() {
        let lower = super::lapack::config_flag(config, "uplo", 'L', 'U', target)?;
        let vectors = match config_char(config, "mode") {
            Some('V') => true,
            Some('N') => false,
            _ => {
                return Err(EvalError::new(format!(
                    "{target}: backend_config needs mode = 86 ('V') or 78 ('N')"
                )));
            }
        };
        return heevd(target, lower, vectors, a, result);
    }
    let x = Matrices::read(a, "the syevd operand")?;
    let n = x.rows;
    if x.cols != n {
        return Err(EvalError::new(format!(
            "{target}: the operand must be square in its two minor dims, got {}",
            a.shape
        )));
    }
    let lower = super::lapack::config_flag(config, "uplo", 'L', 'U', target)?;
    let vectors = match config_char(config, "mode") {
        Some('V') => true,
        Some('N') => false,
        _ => {
            return Err(EvalError::new(format!(
                "{target}: backend_config needs mode = 86 ('V') or 78 ('N')"
            )));
        }
    };
    let ty = a.shape.element_type;
    let shapes = result_leaves(
        result,
        &[
            (ty, dims(&x.batch_dims, &[n, n])),
            (ty, dims(&x.batch_dims, &[n])),
            (ElementType::S32, x.batch_dims.clone()),
        ],
        target,
    )?;
    let mut vecs = Vec::with_capacity(x.data.len());
    let mut vals = Vec::with_capacity(x.batch * n);
    let mut info = Vec::with_capacity(x.batch);
    for b in 0..x.batch {
        let m = x.get(b);
        // The symmetric matrix from the stored triangle.
        let mut s = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                let (r, c) = if (i >= j) == lower { (i, j) } else { (j, i) };
                s[i * n + j] = m[r * n + c];
            }
        }
        if !s.iter().all(|v| v.is_finite()) {
            vals.extend(std::iter::repeat_n(f64::NAN, n));
            if vectors {
                vecs.extend(std::iter::repeat_n(f64::NAN, n * n));
            } else {
                vecs.extend_from_slice(m);
            }
            info.push(0);
            continue;
        }
        let (w, v, ok) = jacobi_eigh(&s, n);
        vals.extend(w);
        if vectors {
            vecs.extend(v);
        } else {
            vecs.extend_from_slice(m);
        }
        info.push(if ok { 0 } else { 1 });
    }
    Ok(Literal::Tuple(vec![
        leaf(&shapes[0], vecs)?,
        leaf(&shapes[1], vals)?,
        info_leaf(&shapes[2], info),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eigenpairs_of_a_known_matrix() {
        // [[2,1,0],[1,2,1],[0,1,2]]: 2-√2, 2, 2+√2.
        let s = vec![2., 1., 0., 1., 2., 1., 0., 1., 2.];
        let (w, v, ok) = jacobi_eigh(&s, 3);
        assert!(ok);
        let r2 = 2f64.sqrt();
        for (x, y) in w.iter().zip([2. - r2, 2., 2. + r2]) {
            assert!((x - y).abs() < 1e-14, "{w:?}");
        }
        // A v = w v, vᵀv = I.
        for j in 0..3 {
            for i in 0..3 {
                let av: f64 = (0..3).map(|k| s[i * 3 + k] * v[k * 3 + j]).sum();
                assert!((av - w[j] * v[i * 3 + j]).abs() < 1e-14);
                let d: f64 = (0..3).map(|k| v[k * 3 + i] * v[k * 3 + j]).sum();
                assert!((d - if i == j { 1. } else { 0. }).abs() < 1e-14);
            }
            let col: Vec<f64> = (0..3).map(|k| v[k * 3 + j]).collect();
            assert_eq!(sign_of_largest(&col), 1.0);
        }
    }

    #[test]
    fn diagonal_and_empty() {
        let (w, v, ok) = jacobi_eigh(&[3., 0., 0., -1.], 2);
        assert!(ok);
        assert_eq!(w, vec![-1., 3.]);
        assert_eq!(v, vec![0., 1., 1., 0.]);
        let (w, v, ok) = jacobi_eigh(&[], 0);
        assert!(ok && w.is_empty() && v.is_empty());
    }

    #[test]
    fn hermitian_eigenpairs() {
        use rxla_ir::Complex64 as C;
        // [[2, 1-i, 0], [1+i, 3, 2i], [0, -2i, 1]].
        let s = vec![
            C::new(2., 0.),
            C::new(1., -1.),
            C::new(0., 0.),
            C::new(1., 1.),
            C::new(3., 0.),
            C::new(0., 2.),
            C::new(0., 0.),
            C::new(0., -2.),
            C::new(1., 0.),
        ];
        let (w, v, ok) = jacobi_heigh(&s, 3);
        assert!(ok && w.windows(2).all(|p| p[0] <= p[1]));
        let tr: f64 = w.iter().sum();
        assert!((tr - 6.0).abs() < 1e-13);
        for j in 0..3 {
            for i in 0..3 {
                let sv: C = (0..3).map(|k| s[i * 3 + k] * v[k * 3 + j]).sum();
                assert!((sv - v[i * 3 + j] * w[j]).norm() < 1e-13, "S v = w v");
                let d: C = (0..3).map(|k| v[k * 3 + i].conj() * v[k * 3 + j]).sum();
                assert!((d - C::new(if i == j { 1. } else { 0. }, 0.)).norm() < 1e-13);
            }
        }
    }
}
