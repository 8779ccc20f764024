//! Singular value decomposition: the `gesdd` and `gesvd` custom calls
//! behind `jnp.linalg.svd` / `jax.lax.linalg.svd` (both computed the same
//! way here; LAPACK's two algorithms agree up to rounding and signs).
//!
//! One-sided Jacobi (Hestenes) in f64 on the matrix scaled by its largest
//! magnitude, or on its transpose when it has more columns than rows:
//! column pairs are rotated until every pair satisfies `|w_p·w_q| <=
//! sqrt(m)·ε·‖w_p‖‖w_q‖` (ε = f64 epsilon; dgesvj's criterion), which gives
//! singular values with high relative accuracy (it never forms AᵀA).
//! Results:
//! - singular values descending (stable sort), `u` and `vt` in that order;
//!   `mode` A gives the full `m×m` / `n×n` factors, S the reduced `m×k` /
//!   `k×n` ones, N none (zeros in those results);
//! - left singular vectors of zero singular values, and the extra columns of
//!   a full factor, complete an orthonormal basis (from a Householder QR of
//!   the computed ones), as LAPACK does; they are not unique;
//! - the sign of each singular pair is chosen so that the largest-magnitude
//!   entry (first on ties) of its vector on the shorter side (`v` when
//!   m >= n, `u` otherwise) is positive. LAPACK's signs are
//!   implementation-defined, so pairs can differ from LAPACK's by sign;
//! - `info` = 0, or 1 when [`MAX_SWEEPS`] sweeps did not converge;
//! - a NaN or infinite entry makes `s`, `u` and `vt` NaN, with the info
//!   LAPACK gives for a NaN input: -4 for gesdd, 0 for gesvd;
//! - the first result (LAPACK's destroyed `a`) is the input unchanged.
//!
//! The complex variants (`lapack_{c,z}gesdd_ffi`, `lapack_{c,z}gesvd_ffi`)
//! run the same Jacobi with complex rotations `[[c, s·e], [-s·ē, c]]` (`e`
//! the phase of `w_pᴴ w_q`), on the conjugate transpose when m < n; `s` is
//! real (f32 for c64); each pair's phase makes the largest-magnitude entry
//! of its shorter-side vector real and positive; `vt` is `Vᴴ`.

use super::lapack::config_char;
use super::qr::{geqr2, org2r};
use super::{
    MAX_DIM, Matrices, complex_leaf, complex_values, dims, fix_phase, info_leaf, leaf, matrix_dims,
    norm2, result_leaves, transpose,
};
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, Complex64, ElementType, LapackKind, Literal, Shape};

/// The sweep cap (a few sweeps to ~10 are typical).
pub(super) const MAX_SWEEPS: usize = 60;

/// An SVD of one matrix: `s` descending, `u` row-major `m×ucols`, `v`
/// row-major `n×n` (right singular vectors as columns).
pub(super) struct Svd {
    pub s: Vec<f64>,
    pub u: Vec<f64>,
    pub v: Vec<f64>,
    pub converged: bool,
}

/// One-sided Jacobi on the row-major `m×n` matrix `a` with `m >= n`; `u`
/// gets `m` columns if `full`, else `n`.
fn jacobi_tall(a: &[f64], m: usize, n: usize, full: bool) -> Svd {
    let scale = a.iter().fold(0.0f64, |x, v| x.max(v.abs()));
    // Divided (not multiplied by 1/scale, which overflows for subnormals).
    let div = if scale > 0.0 { scale } else { 1.0 };
    // Columns of the working matrix and of V.
    let mut w: Vec<Vec<f64>> = (0..n)
        .map(|j| (0..m).map(|i| a[i * n + j] / div).collect())
        .collect();
    let mut v: Vec<Vec<f64>> = (0..n)
        .map(|j| (0..n).map(|i| if i == j { 1.0 } else { 0.0 }).collect())
        .collect();
    let tol = (m as f64).sqrt() * f64::EPSILON;
    let dot = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(a, b)| a * b).sum::<f64>();
    let rotate = |cols: &mut Vec<Vec<f64>>, p: usize, q: usize, c: f64, s: f64| {
        let (lo, hi) = cols.split_at_mut(q);
        for (xp, xq) in lo[p].iter_mut().zip(hi[0].iter_mut()) {
            let (a, b) = (*xp, *xq);
            *xp = c * a - s * b;
            *xq = s * a + c * b;
        }
    };
    let mut converged = false;
    for _ in 0..MAX_SWEEPS {
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let alpha = dot(&w[p], &w[p]);
                let beta = dot(&w[q], &w[q]);
                let gamma = dot(&w[p], &w[q]);
                if gamma == 0.0 || gamma.abs() <= tol * alpha.sqrt() * beta.sqrt() {
                    continue;
                }
                let zeta = (beta - alpha) / (2.0 * gamma);
                let t = 1.0 / (zeta.abs() + zeta.hypot(1.0));
                let t = if zeta < 0.0 { -t } else { t };
                let c = 1.0 / t.hypot(1.0);
                let s = c * t;
                if s == 0.0 {
                    continue;
                }
                rotated = true;
                rotate(&mut w, p, q, c, s);
                rotate(&mut v, p, q, c, s);
            }
        }
        if !rotated {
            converged = true;
            break;
        }
    }
    let sigma: Vec<f64> = w.iter().map(|c| norm2(c.iter().copied())).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| sigma[j].total_cmp(&sigma[i]));
    let ucols = if full { m } else { n };
    // Left vectors of nonzero singular values; the rest are completed.
    let mut ucol: Vec<Option<Vec<f64>>> = Vec::with_capacity(ucols);
    let mut vv = vec![0.0; n * n];
    for (j, &src) in order.iter().enumerate() {
        let sign = super::eigh::sign_of_largest(&v[src]);
        for k in 0..n {
            vv[k * n + j] = sign * v[src][k];
        }
        let sg = sigma[src];
        ucol.push(
            (sg >= f64::MIN_POSITIVE).then(|| w[src].iter().map(|x| sign * x / sg).collect()),
        );
    }
    ucol.resize(ucols, None);
    let u = complete(ucol, m);
    Svd {
        s: order.iter().map(|&i| sigma[i] * scale).collect(),
        u,
        v: vv,
        converged,
    }
}

/// The row-major `m×cols.len()` matrix of `cols`, the missing ones filled
/// with unit vectors orthogonal to the given ones and to each other (the
/// trailing columns of Q in a Householder QR of the given ones).
fn complete(cols: Vec<Option<Vec<f64>>>, m: usize) -> Vec<f64> {
    let nc = cols.len();
    let known: Vec<&Vec<f64>> = cols.iter().flatten().collect();
    let r = known.len();
    let missing = nc - r;
    let mut fill = Vec::new();
    if missing > 0 {
        // Q's first r + missing columns from the QR of [known] (m×r).
        let qc = r + missing;
        let mut qa = vec![0.0; m * qc];
        for (j, c) in known.iter().enumerate() {
            for i in 0..m {
                qa[i * qc + j] = c[i];
            }
        }
        let mut k = vec![0.0; m * r];
        for i in 0..m {
            k[i * r..(i + 1) * r].copy_from_slice(&qa[i * qc..i * qc + r]);
        }
        let tau = geqr2(&mut k, m, r);
        for i in 0..m {
            qa[i * qc..i * qc + r].copy_from_slice(&k[i * r..(i + 1) * r]);
        }
        org2r(&mut qa, m, qc, &tau);
        fill = (r..qc)
            .map(|j| (0..m).map(|i| qa[i * qc + j]).collect::<Vec<f64>>())
            .collect();
    }
    let mut fill = fill.into_iter();
    let mut out = vec![0.0; m * nc];
    for (j, c) in cols.into_iter().enumerate() {
        let c = c.or_else(|| fill.next()).unwrap_or_default();
        for (i, x) in c.into_iter().enumerate().take(m) {
            out[i * nc + j] = x;
        }
    }
    out
}

/// The SVD of the row-major `m×n` matrix `a`: `s` (min(m, n), descending),
/// `u` (`m×m` if `full`, else `m×k`) and `vt` (`n×n` if `full`, else `k×n`),
/// row-major.
pub(super) fn svd(
    a: &[f64],
    m: usize,
    n: usize,
    full: bool,
) -> (Vec<f64>, Vec<f64>, Vec<f64>, bool) {
    if m >= n {
        let r = jacobi_tall(a, m, n, full);
        (r.s, r.u, transpose(&r.v, n, n), r.converged)
    } else {
        // Aᵀ = U' S V'ᵀ, so A = V' S U'ᵀ.
        let r = jacobi_tall(&transpose(a, m, n), n, m, full);
        let ucols = if full { n } else { m };
        (r.s, r.v, transpose(&r.u, n, ucols), r.converged)
    }
}

type C = Complex64;

/// The conjugate transpose of the row-major `rows×cols` matrix `a`.
fn adjoint(a: &[C], rows: usize, cols: usize) -> Vec<C> {
    let mut t = vec![C::new(0.0, 0.0); a.len()];
    for i in 0..rows {
        for j in 0..cols {
            t[j * rows + i] = a[i * cols + j].conj();
        }
    }
    t
}

/// [`jacobi_tall`] for complex `a` (`m >= n`): `(s, u m×ucols, v n×n)`.
fn jacobi_tall_c(a: &[C], m: usize, n: usize, full: bool) -> (Vec<f64>, Vec<C>, Vec<C>, bool) {
    let zero = C::new(0.0, 0.0);
    let scale = a.iter().fold(0.0f64, |x, v| x.max(v.norm()));
    let div = if scale > 0.0 { scale } else { 1.0 };
    let mut w: Vec<Vec<C>> = (0..n)
        .map(|j| (0..m).map(|i| a[i * n + j] / div).collect())
        .collect();
    let mut v: Vec<Vec<C>> = (0..n)
        .map(|j| {
            (0..n)
                .map(|i| if i == j { C::new(1.0, 0.0) } else { zero })
                .collect()
        })
        .collect();
    let tol = (m as f64).sqrt() * f64::EPSILON;
    let dot = |x: &[C], y: &[C]| x.iter().zip(y).map(|(a, b)| a.conj() * b).sum::<C>();
    let nrm = |x: &[C]| norm2(x.iter().flat_map(|c| [c.re, c.im]));
    // [x_p, x_q] ← [x_p, x_q] [[c, s e], [-s ē, c]].
    let rotate = |cols: &mut Vec<Vec<C>>, p: usize, q: usize, c: f64, se: C, sec: C| {
        let (lo, hi) = cols.split_at_mut(q);
        for (xp, xq) in lo[p].iter_mut().zip(hi[0].iter_mut()) {
            let (a, b) = (*xp, *xq);
            *xp = a * c - sec * b;
            *xq = se * a + b * c;
        }
    };
    let mut converged = false;
    for _ in 0..MAX_SWEEPS {
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let (na, nb) = (nrm(&w[p]), nrm(&w[q]));
                let gamma = dot(&w[p], &w[q]);
                let g = gamma.norm();
                if g == 0.0 || g <= tol * na * nb {
                    continue;
                }
                let e = gamma / g;
                let zeta = (nb * nb - na * na) / (2.0 * g);
                let t = 1.0 / (zeta.abs() + zeta.hypot(1.0));
                let t = if zeta < 0.0 { -t } else { t };
                let c = 1.0 / t.hypot(1.0);
                let s = c * t;
                if s == 0.0 {
                    continue;
                }
                rotated = true;
                rotate(&mut w, p, q, c, e * s, e.conj() * s);
                rotate(&mut v, p, q, c, e * s, e.conj() * s);
            }
        }
        if !rotated {
            converged = true;
            break;
        }
    }
    let sigma: Vec<f64> = w.iter().map(|c| nrm(c)).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| sigma[j].total_cmp(&sigma[i]));
    let ucols = if full { m } else { n };
    let mut vv = vec![zero; n * n];
    let mut u = vec![zero; m * ucols];
    let mut known = Vec::new();
    for (j, &src) in order.iter().enumerate() {
        for k in 0..n {
            vv[k * n + j] = v[src][k];
        }
        let phase = fix_phase(&mut vv, n, n, j);
        let sg = sigma[src];
        if sg >= f64::MIN_POSITIVE {
            for i in 0..m {
                u[i * ucols + j] = w[src][i] * phase / sg;
            }
            known.push(j);
        }
    }
    complete_c(&mut u, m, ucols, &known);
    (
        order.iter().map(|&i| sigma[i] * scale).collect(),
        u,
        vv,
        converged,
    )
}

/// Fills the columns of the row-major `m×cols` `u` not in `known` with unit
/// vectors orthogonal to the known ones and each other (complex QR).
fn complete_c(u: &mut [C], m: usize, cols: usize, known: &[usize]) {
    let r = known.len();
    if r == cols {
        return;
    }
    let mut k = vec![C::new(0.0, 0.0); m * r];
    for (jj, &j) in known.iter().enumerate() {
        for i in 0..m {
            k[i * r + jj] = u[i * cols + j];
        }
    }
    let tau = super::qr::complex::geqr2(&mut k, m, r);
    let qc = cols.min(m);
    let mut q = vec![C::new(0.0, 0.0); m * qc];
    for i in 0..m {
        q[i * qc..i * qc + r].copy_from_slice(&k[i * r..(i + 1) * r]);
    }
    super::qr::complex::ung2r(&mut q, m, qc, &tau);
    let mut next = r;
    for j in 0..cols {
        if known.contains(&j) || next >= qc {
            continue;
        }
        for i in 0..m {
            u[i * cols + j] = q[i * qc + next];
        }
        next += 1;
    }
}

/// [`svd`] for complex `a`: `s`, `u`, `vt = Vᴴ`.
pub(super) fn svd_c(a: &[C], m: usize, n: usize, full: bool) -> (Vec<f64>, Vec<C>, Vec<C>, bool) {
    if m >= n {
        let (s, u, v, ok) = jacobi_tall_c(a, m, n, full);
        (s, u, adjoint(&v, n, n), ok)
    } else {
        // Aᴴ = U' S V'ᴴ, so A = V' S U'ᴴ.
        let (s, u, v, ok) = jacobi_tall_c(&adjoint(a, m, n), n, m, full);
        let ucols = if full { n } else { m };
        (s, v, adjoint(&u, n, ucols), ok)
    }
}

/// The complex gesdd/gesvd (see the module doc); `full` as in [`gesdd`].
fn gesdd_c(
    kind: LapackKind,
    target: &str,
    full: Option<bool>,
    a: &ArrayLiteral,
    result: &Shape,
) -> Result<Literal> {
    let (m, n, batch) = matrix_dims(&a.shape, "the svd operand")?;
    if m > MAX_DIM || n > MAX_DIM {
        return Err(EvalError::new(format!(
            "{target}: the operand {} has a matrix dimension above rxla's limit of {MAX_DIM}",
            a.shape
        )));
    }
    let x = complex_values(a, "the svd operand")?;
    let k = m.min(n);
    let ty = a.shape.element_type;
    let real = ty.complex_component().unwrap_or(ty);
    let bd = a.shape.dims[..a.shape.dims.len() - 2].to_vec();
    let want = |full: bool| {
        let (uc, vr) = if full { (m, n) } else { (k, k) };
        [
            (ty, dims(&bd, &[m, n])),
            (real, dims(&bd, &[k])),
            (ty, dims(&bd, &[m, uc])),
            (ty, dims(&bd, &[vr, n])),
            (ElementType::S32, bd.clone()),
        ]
    };
    let (shapes, full_shapes) = match full {
        Some(f) => (result_leaves(result, &want(f), target)?, f),
        None => match result_leaves(result, &want(true), target) {
            Ok(s) => (s, true),
            Err(_) => (result_leaves(result, &want(false), target)?, false),
        },
    };
    let (uc, vr) = if full_shapes { (m, n) } else { (k, k) };
    let zero = C::new(0.0, 0.0);
    let nan = C::new(f64::NAN, f64::NAN);
    let (mut s_all, mut u_all, mut vt_all, mut info) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for b in 0..batch {
        let mat = &x[b * m * n..(b + 1) * m * n];
        if !mat.iter().all(|c| c.re.is_finite() && c.im.is_finite()) {
            s_all.extend(std::iter::repeat_n(f64::NAN, k));
            u_all.extend(std::iter::repeat_n(nan, m * uc));
            vt_all.extend(std::iter::repeat_n(nan, vr * n));
            info.push(if kind == LapackKind::Gesdd { -4 } else { 0 });
            continue;
        }
        let (s, u, vt, ok) = svd_c(mat, m, n, full_shapes);
        s_all.extend(s);
        if full.is_some() {
            u_all.extend(u);
            vt_all.extend(vt);
        } else {
            u_all.extend(std::iter::repeat_n(zero, m * uc));
            vt_all.extend(std::iter::repeat_n(zero, vr * n));
        }
        info.push(if ok { 0 } else { 1 });
    }
    Ok(Literal::Tuple(vec![
        complex_leaf(&shapes[0], x),
        leaf(&shapes[1], s_all)?,
        complex_leaf(&shapes[2], u_all),
        complex_leaf(&shapes[3], vt_all),
        info_leaf(&shapes[4], info),
    ]))
}

/// `lapack_{s,d}gesdd_ffi(a)` / `lapack_{s,d}gesvd_ffi(a)` → `(a, s, u,
/// vt, info)`.
pub(super) fn gesdd(
    kind: LapackKind,
    target: &str,
    config: &str,
    a: &ArrayLiteral,
    result: &Shape,
) -> Result<Literal> {
    let mode = config_char(config, "mode");
    let full = match mode {
        Some('A') => Some(true),
        Some('S') => Some(false),
        Some('N') => None,
        _ => {
            return Err(EvalError::new(format!(
                "{target}: backend_config needs mode = 65 ('A'), 83 ('S') or 78 ('N')"
            )));
        }
    };
    if a.shape.element_type.is_complex() {
        return gesdd_c(kind, target, full, a, result);
    }
    let x = Matrices::read(a, "the svd operand")?;
    let (m, n) = (x.rows, x.cols);
    let k = m.min(n);
    let ty = a.shape.element_type;
    let bd = &x.batch_dims;
    let want = |full: bool| {
        let (uc, vr) = if full { (m, n) } else { (k, k) };
        [
            (ty, dims(bd, &[m, n])),
            (ty, dims(bd, &[k])),
            (ty, dims(bd, &[m, uc])),
            (ty, dims(bd, &[vr, n])),
            (ElementType::S32, bd.clone()),
        ]
    };
    // Mode N accepts either pair of (unwritten) factor shapes.
    let (shapes, full_shapes) = match full {
        Some(f) => (result_leaves(result, &want(f), target)?, f),
        None => match result_leaves(result, &want(true), target) {
            Ok(s) => (s, true),
            Err(_) => (result_leaves(result, &want(false), target)?, false),
        },
    };
    let (uc, vr) = if full_shapes { (m, n) } else { (k, k) };
    let mut s_all = Vec::with_capacity(x.batch * k);
    let mut u_all = Vec::with_capacity(x.batch * m * uc);
    let mut vt_all = Vec::with_capacity(x.batch * vr * n);
    let mut info = Vec::with_capacity(x.batch);
    for b in 0..x.batch {
        if !x.all_finite(b) {
            s_all.extend(std::iter::repeat_n(f64::NAN, k));
            u_all.extend(std::iter::repeat_n(f64::NAN, m * uc));
            vt_all.extend(std::iter::repeat_n(f64::NAN, vr * n));
            info.push(if kind == LapackKind::Gesdd { -4 } else { 0 });
            continue;
        }
        let (s, u, vt, ok) = svd(x.get(b), m, n, full_shapes);
        s_all.extend(s);
        if full.is_some() {
            u_all.extend(u);
            vt_all.extend(vt);
        } else {
            u_all.extend(std::iter::repeat_n(0.0, m * uc));
            vt_all.extend(std::iter::repeat_n(0.0, vr * n));
        }
        info.push(if ok { 0 } else { 1 });
    }
    Ok(Literal::Tuple(vec![
        leaf(&shapes[0], x.data.clone())?,
        leaf(&shapes[1], s_all)?,
        leaf(&shapes[2], u_all)?,
        leaf(&shapes[3], vt_all)?,
        info_leaf(&shapes[4], info),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks u diag(s) vt = a, orthonormal u columns and vt rows, and s
    /// descending.
    fn check(a: &[f64], m: usize, n: usize, full: bool, tol: f64) -> Vec<f64> {
        let (s, u, vt, ok) = svd(a, m, n, full);
        assert!(ok);
        let k = m.min(n);
        let (uc, vr) = if full { (m, n) } else { (k, k) };
        assert_eq!((s.len(), u.len(), vt.len()), (k, m * uc, vr * n));
        assert!(s.windows(2).all(|p| p[0] >= p[1]), "{s:?}");
        for i in 0..m {
            for j in 0..n {
                let x: f64 = (0..k).map(|l| u[i * uc + l] * s[l] * vt[l * n + j]).sum();
                assert!((x - a[i * n + j]).abs() < tol, "{x} vs {}", a[i * n + j]);
            }
        }
        for p in 0..uc {
            for q in 0..uc {
                let d: f64 = (0..m).map(|i| u[i * uc + p] * u[i * uc + q]).sum();
                assert!(
                    (d - if p == q { 1. } else { 0. }).abs() < tol,
                    "u {p} {q} {d}"
                );
            }
        }
        for p in 0..vr {
            for q in 0..vr {
                let d: f64 = (0..n).map(|j| vt[p * n + j] * vt[q * n + j]).sum();
                assert!(
                    (d - if p == q { 1. } else { 0. }).abs() < tol,
                    "vt {p} {q} {d}"
                );
            }
        }
        s
    }

    #[test]
    fn tall_wide_full_reduced() {
        let a = [1., 2., 3., 4., 5., 6., 7., 8., 10., -1., 0., 2.];
        for full in [true, false] {
            let s = check(&a, 4, 3, full, 1e-13);
            // numpy.linalg.svd(a, compute_uv=False).
            let want = [17.436984282741232, 2.2028674771350567, 0.31456954972769696];
            for (x, y) in s.iter().zip(want) {
                assert!((x - y).abs() < 1e-12, "{s:?}");
            }
            check(&a, 3, 4, full, 1e-13);
            check(&a, 2, 6, full, 1e-13);
        }
    }

    #[test]
    fn rank_deficient_and_zero() {
        // Rank 1: u's other columns complete a basis.
        let a = [1., 2., 2., 4., 3., 6.];
        let s = check(&a, 3, 2, true, 1e-13);
        assert!(s[1].abs() < 1e-15);
        let s = check(&[0.0; 6], 2, 3, true, 1e-15);
        assert_eq!(s, vec![0.0, 0.0]);
        check(&[], 0, 3, true, 1e-15);
        check(&[], 3, 0, true, 1e-15);
    }

    #[test]
    fn subnormal_and_huge_scales() {
        for k in [1e-310, 1e-300, 1e300, f64::MAX / 4.0] {
            let (s, _, _, ok) = svd(&[k, 0., 0., k / 2.], 2, 2, true);
            assert!(
                ok && s.iter().all(|x| x.is_finite() && *x > 0.0),
                "{k}: {s:?}"
            );
            let (w, _, ok) = super::super::eigh::jacobi_eigh(&[k, k / 2., k / 2., k], 2);
            assert!(ok && w.iter().all(|x| x.is_finite()), "{k}: {w:?}");
            let (w, _) = super::super::eig::eig(&[k, -k, k, k], 2).unwrap();
            assert!(
                w.iter().all(|x| x.re.is_finite() && x.im.is_finite()),
                "{k}: {w:?}"
            );
        }
    }

    #[test]
    fn complex_svd_reconstructs() {
        use rxla_ir::Complex64 as C;
        let a: Vec<C> = (0..12)
            .map(|k| C::new((k as f64 * 0.7).sin(), (k as f64 * 1.3).cos()))
            .collect();
        for (m, n) in [(4, 3), (3, 4), (2, 6), (6, 2)] {
            for full in [true, false] {
                let (s, u, vt, ok) = svd_c(&a, m, n, full);
                assert!(ok && s.windows(2).all(|p| p[0] >= p[1]));
                let k = m.min(n);
                let (uc, vr) = if full { (m, n) } else { (k, k) };
                for i in 0..m {
                    for j in 0..n {
                        let x: C = (0..k).map(|l| u[i * uc + l] * s[l] * vt[l * n + j]).sum();
                        assert!((x - a[i * n + j]).norm() < 1e-13, "{m}x{n} {full}");
                    }
                }
                for p in 0..uc {
                    for q in 0..uc {
                        let d: C = (0..m).map(|i| u[i * uc + p].conj() * u[i * uc + q]).sum();
                        let want = if p == q { 1.0 } else { 0.0 };
                        assert!((d - C::new(want, 0.0)).norm() < 1e-13, "U {m}x{n} {full}");
                    }
                }
                for p in 0..vr {
                    for q in 0..vr {
                        let d: C = (0..n).map(|j| vt[p * n + j] * vt[q * n + j].conj()).sum();
                        let want = if p == q { 1.0 } else { 0.0 };
                        assert!((d - C::new(want, 0.0)).norm() < 1e-13, "V {m}x{n} {full}");
                    }
                }
            }
        }
    }
}
