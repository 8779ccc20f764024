//! General (nonsymmetric) eigendecomposition: the `geev` custom call
//! behind `jnp.linalg.eig` / `eigvals` and `jax.lax.linalg.eig`.
//!
//! Householder reduction to Hessenberg form, then the Francis double-shift
//! QR iteration to real Schur form with the transformations accumulated,
//! then back substitution for the eigenvectors of the quasi-triangular
//! factor (EISPACK's orthes and hqr2, as in JAMA), in f64 on the matrix
//! scaled by its largest magnitude; no balancing. Results:
//! - eigenvalues as `(wr, wi)` in the order they appear on the diagonal of
//!   the Schur form, a complex conjugate pair adjacent with the positive
//!   imaginary part first (LAPACK's convention). LAPACK (dhseqr after
//!   dgebal) can find them in another order, so code should not depend on
//!   it (the filetests compare order-free functions of them);
//! - right eigenvectors `vr[:, j]` with `A v = λ v`, left ones `vl[:, j]`
//!   with `uᴴ A = λ uᴴ` (the right eigenvectors of Aᵀ for conj(λ), matched
//!   to λ), both complex, each scaled to unit Euclidean norm with its
//!   largest-magnitude component (the first on ties) real and positive
//!   (LAPACK: real, of either sign);
//! - `info` = 0, or 1 when one eigenvalue took more than [`MAX_ITER`]
//!   iterations (the values are then NaN);
//! - a NaN or infinite entry: every value NaN, info 0;
//! - `compute_left` / `compute_right` = `N` leaves that result zero.

use super::lapack::config_flag;
use super::{Matrices, complex_leaf, dims, info_leaf, leaf, result_leaves};
use crate::error::Result;
use rxla_ir::{ArrayLiteral, Complex64, ElementType, Literal, Shape};

/// Iterations allowed per eigenvalue (EISPACK uses 30 per eigenvalue).
pub(super) const MAX_ITER: usize = 100;

/// Reduces the row-major `n×n` `h` to upper Hessenberg form in place;
/// returns the orthogonal `v` with `A = V H Vᵀ` (row-major).
fn orthes(h: &mut [f64], n: usize) -> Vec<f64> {
    let mut ort = vec![0.0; n];
    let high = n.saturating_sub(1);
    for m in 1..high {
        let scale: f64 = (m..=high).map(|i| h[i * n + m - 1].abs()).sum();
        if scale == 0.0 {
            continue;
        }
        let mut hh = 0.0;
        for i in (m..=high).rev() {
            ort[i] = h[i * n + m - 1] / scale;
            hh += ort[i] * ort[i];
        }
        let g = if ort[m] > 0.0 { -hh.sqrt() } else { hh.sqrt() };
        hh -= ort[m] * g;
        ort[m] -= g;
        for j in m..n {
            let f: f64 = (m..=high).rev().map(|i| ort[i] * h[i * n + j]).sum::<f64>() / hh;
            for i in m..=high {
                h[i * n + j] -= f * ort[i];
            }
        }
        for i in 0..=high {
            let f: f64 = (m..=high).rev().map(|j| ort[j] * h[i * n + j]).sum::<f64>() / hh;
            for j in m..=high {
                h[i * n + j] -= f * ort[j];
            }
        }
        ort[m] *= scale;
        h[m * n + m - 1] = scale * g;
    }
    let mut v = vec![0.0; n * n];
    for i in 0..n {
        v[i * n + i] = 1.0;
    }
    for m in (1..high).rev() {
        if h[m * n + m - 1] != 0.0 {
            for i in m + 1..=high {
                ort[i] = h[i * n + m - 1];
            }
            for j in m..=high {
                let g: f64 = (m..=high).map(|i| ort[i] * v[i * n + j]).sum();
                let g = (g / ort[m]) / h[m * n + m - 1];
                for i in m..=high {
                    v[i * n + j] += g * ort[i];
                }
            }
        }
    }
    v
}

/// Complex division `(xr + i xi) / (yr + i yi)`.
fn cdiv(xr: f64, xi: f64, yr: f64, yi: f64) -> (f64, f64) {
    if yr.abs() > yi.abs() {
        let r = yi / yr;
        let d = yr + r * yi;
        ((xr + r * xi) / d, (xi - r * xr) / d)
    } else {
        let r = yr / yi;
        let d = yi + r * yr;
        ((r * xr + xi) / d, (r * xi - xr) / d)
    }
}

/// The eigenvalues `(d, e)` (real and imaginary parts) of the Hessenberg
/// `h`, and in `v` (which holds the Hessenberg reduction's `V`) the real
/// eigenvector matrix in LAPACK's packed form. False if an eigenvalue did
/// not converge.
#[allow(clippy::many_single_char_names)]
fn hqr2(h: &mut [f64], v: &mut [f64], nn: usize) -> (Vec<f64>, Vec<f64>, bool) {
    let mut d = vec![0.0; nn];
    let mut e = vec![0.0; nn];
    if nn == 0 {
        return (d, e, true);
    }
    let at = |i: usize, j: usize| i * nn + j;
    let eps = f64::EPSILON;
    let mut exshift = 0.0;
    let (mut p, mut q): (f64, f64);
    let (mut r, mut s, mut z) = (0.0, 0.0, 0.0);
    let (mut t, mut w, mut x, mut y);
    let mut norm = 0.0;
    for i in 0..nn {
        for j in i.saturating_sub(1)..nn {
            norm += h[at(i, j)].abs();
        }
    }
    let mut n = nn as isize - 1;
    let mut iter = 0;
    while n >= 0 {
        let nu = n as usize;
        // A single small subdiagonal element.
        let mut l = nu;
        while l > 0 {
            s = h[at(l - 1, l - 1)].abs() + h[at(l, l)].abs();
            if s == 0.0 {
                s = norm;
            }
            if h[at(l, l - 1)].abs() < eps * s {
                break;
            }
            l -= 1;
        }
        if l == nu {
            // One root.
            h[at(nu, nu)] += exshift;
            d[nu] = h[at(nu, nu)];
            e[nu] = 0.0;
            n -= 1;
            iter = 0;
        } else if l + 1 == nu {
            // Two roots.
            w = h[at(nu, nu - 1)] * h[at(nu - 1, nu)];
            p = (h[at(nu - 1, nu - 1)] - h[at(nu, nu)]) / 2.0;
            q = p * p + w;
            z = q.abs().sqrt();
            h[at(nu, nu)] += exshift;
            h[at(nu - 1, nu - 1)] += exshift;
            x = h[at(nu, nu)];
            if q >= 0.0 {
                // A real pair.
                z = if p >= 0.0 { p + z } else { p - z };
                d[nu - 1] = x + z;
                d[nu] = d[nu - 1];
                if z != 0.0 {
                    d[nu] = x - w / z;
                }
                e[nu - 1] = 0.0;
                e[nu] = 0.0;
                x = h[at(nu, nu - 1)];
                s = x.abs() + z.abs();
                p = x / s;
                q = z / s;
                r = (p * p + q * q).sqrt();
                p /= r;
                q /= r;
                for j in nu - 1..nn {
                    z = h[at(nu - 1, j)];
                    h[at(nu - 1, j)] = q * z + p * h[at(nu, j)];
                    h[at(nu, j)] = q * h[at(nu, j)] - p * z;
                }
                for i in 0..=nu {
                    z = h[at(i, nu - 1)];
                    h[at(i, nu - 1)] = q * z + p * h[at(i, nu)];
                    h[at(i, nu)] = q * h[at(i, nu)] - p * z;
                }
                for i in 0..nn {
                    z = v[at(i, nu - 1)];
                    v[at(i, nu - 1)] = q * z + p * v[at(i, nu)];
                    v[at(i, nu)] = q * v[at(i, nu)] - p * z;
                }
            } else {
                // A complex pair.
                d[nu - 1] = x + p;
                d[nu] = x + p;
                e[nu - 1] = z;
                e[nu] = -z;
            }
            n -= 2;
            iter = 0;
        } else {
            // No convergence yet: form the shift.
            x = h[at(nu, nu)];
            y = 0.0;
            w = 0.0;
            if l < nu {
                y = h[at(nu - 1, nu - 1)];
                w = h[at(nu, nu - 1)] * h[at(nu - 1, nu)];
            }
            if iter == 10 {
                // Wilkinson's ad hoc shift.
                exshift += x;
                for i in 0..=nu {
                    h[at(i, i)] -= x;
                }
                s = h[at(nu, nu - 1)].abs() + h[at(nu - 1, nu - 2)].abs();
                x = 0.75 * s;
                y = x;
                w = -0.4375 * s * s;
            }
            if iter == 30 {
                // MATLAB's ad hoc shift.
                s = (y - x) / 2.0;
                s = s * s + w;
                if s > 0.0 {
                    s = s.sqrt();
                    if y < x {
                        s = -s;
                    }
                    s = x - w / ((y - x) / 2.0 + s);
                    for i in 0..=nu {
                        h[at(i, i)] -= s;
                    }
                    exshift += s;
                    x = 0.964;
                    y = x;
                    w = x;
                }
            }
            iter += 1;
            if iter > MAX_ITER {
                return (d, e, false);
            }
            // Two consecutive small subdiagonal elements.
            let mut m = nu - 2;
            loop {
                z = h[at(m, m)];
                r = x - z;
                s = y - z;
                p = (r * s - w) / h[at(m + 1, m)] + h[at(m, m + 1)];
                q = h[at(m + 1, m + 1)] - z - r - s;
                r = h[at(m + 2, m + 1)];
                s = p.abs() + q.abs() + r.abs();
                p /= s;
                q /= s;
                r /= s;
                if m == l {
                    break;
                }
                if h[at(m, m - 1)].abs() * (q.abs() + r.abs())
                    < eps
                        * (p.abs()
                            * (h[at(m - 1, m - 1)].abs() + z.abs() + h[at(m + 1, m + 1)].abs()))
                {
                    break;
                }
                m -= 1;
            }
            for i in m + 2..=nu {
                h[at(i, i - 2)] = 0.0;
                if i > m + 2 {
                    h[at(i, i - 3)] = 0.0;
                }
            }
            // The double QR step on rows l..=n and columns m..=n.
            let mut k = m;
            while k < nu {
                let notlast = k != nu - 1;
                if k != m {
                    p = h[at(k, k - 1)];
                    q = h[at(k + 1, k - 1)];
                    r = if notlast { h[at(k + 2, k - 1)] } else { 0.0 };
                    x = p.abs() + q.abs() + r.abs();
                    if x == 0.0 {
                        k += 1;
                        continue;
                    }
                    p /= x;
                    q /= x;
                    r /= x;
                }
                s = (p * p + q * q + r * r).sqrt();
                if p < 0.0 {
                    s = -s;
                }
                if s != 0.0 {
                    if k != m {
                        h[at(k, k - 1)] = -s * x;
                    } else if l != m {
                        h[at(k, k - 1)] = -h[at(k, k - 1)];
                    }
                    p += s;
                    x = p / s;
                    y = q / s;
                    z = r / s;
                    q /= p;
                    r /= p;
                    for j in k..nn {
                        p = h[at(k, j)] + q * h[at(k + 1, j)];
                        if notlast {
                            p += r * h[at(k + 2, j)];
                            h[at(k + 2, j)] -= p * z;
                        }
                        h[at(k, j)] -= p * x;
                        h[at(k + 1, j)] -= p * y;
                    }
                    for i in 0..=nu.min(k + 3) {
                        p = x * h[at(i, k)] + y * h[at(i, k + 1)];
                        if notlast {
                            p += z * h[at(i, k + 2)];
                            h[at(i, k + 2)] -= p * r;
                        }
                        h[at(i, k)] -= p;
                        h[at(i, k + 1)] -= p * q;
                    }
                    for i in 0..nn {
                        p = x * v[at(i, k)] + y * v[at(i, k + 1)];
                        if notlast {
                            p += z * v[at(i, k + 2)];
                            v[at(i, k + 2)] -= p * r;
                        }
                        v[at(i, k)] -= p;
                        v[at(i, k + 1)] -= p * q;
                    }
                }
                k += 1;
            }
        }
    }
    if norm == 0.0 {
        return (d, e, true);
    }
    // Back substitution: the eigenvectors of the quasi-triangular factor.
    for nu in (0..nn).rev() {
        p = d[nu];
        q = e[nu];
        if q == 0.0 {
            // A real vector.
            let mut l = nu;
            h[at(nu, nu)] = 1.0;
            for i in (0..nu).rev() {
                w = h[at(i, i)] - p;
                r = (l..=nu).map(|j| h[at(i, j)] * h[at(j, nu)]).sum();
                if e[i] < 0.0 {
                    z = w;
                    s = r;
                } else {
                    l = i;
                    if e[i] == 0.0 {
                        h[at(i, nu)] = if w != 0.0 { -r / w } else { -r / (eps * norm) };
                    } else {
                        x = h[at(i, i + 1)];
                        y = h[at(i + 1, i)];
                        q = (d[i] - p) * (d[i] - p) + e[i] * e[i];
                        t = (x * s - z * r) / q;
                        h[at(i, nu)] = t;
                        h[at(i + 1, nu)] = if x.abs() > z.abs() {
                            (-r - w * t) / x
                        } else {
                            (-s - y * t) / z
                        };
                    }
                    t = h[at(i, nu)].abs();
                    if (eps * t) * t > 1.0 {
                        for j in i..=nu {
                            h[at(j, nu)] /= t;
                        }
                    }
                }
            }
        } else if q < 0.0 {
            // A complex vector (columns nu-1 and nu: real and imaginary
            // parts for the eigenvalue d[nu-1] + i e[nu-1]).
            let mut l = nu - 1;
            if h[at(nu, nu - 1)].abs() > h[at(nu - 1, nu)].abs() {
                h[at(nu - 1, nu - 1)] = q / h[at(nu, nu - 1)];
                h[at(nu - 1, nu)] = -(h[at(nu, nu)] - p) / h[at(nu, nu - 1)];
            } else {
                let (cr, ci) = cdiv(0.0, -h[at(nu - 1, nu)], h[at(nu - 1, nu - 1)] - p, q);
                h[at(nu - 1, nu - 1)] = cr;
                h[at(nu - 1, nu)] = ci;
            }
            h[at(nu, nu - 1)] = 0.0;
            h[at(nu, nu)] = 1.0;
            for i in (0..nu.saturating_sub(1)).rev() {
                let mut ra = 0.0;
                let mut sa = 0.0;
                for j in l..=nu {
                    ra += h[at(i, j)] * h[at(j, nu - 1)];
                    sa += h[at(i, j)] * h[at(j, nu)];
                }
                w = h[at(i, i)] - p;
                if e[i] < 0.0 {
                    z = w;
                    r = ra;
                    s = sa;
                } else {
                    l = i;
                    if e[i] == 0.0 {
                        let (cr, ci) = cdiv(-ra, -sa, w, q);
                        h[at(i, nu - 1)] = cr;
                        h[at(i, nu)] = ci;
                    } else {
                        x = h[at(i, i + 1)];
                        y = h[at(i + 1, i)];
                        let mut vr = (d[i] - p) * (d[i] - p) + e[i] * e[i] - q * q;
                        let vi = (d[i] - p) * 2.0 * q;
                        if vr == 0.0 && vi == 0.0 {
                            vr = eps * norm * (w.abs() + q.abs() + x.abs() + y.abs() + z.abs());
                        }
                        let (cr, ci) =
                            cdiv(x * r - z * ra + q * sa, x * s - z * sa - q * ra, vr, vi);
                        h[at(i, nu - 1)] = cr;
                        h[at(i, nu)] = ci;
                        if x.abs() > z.abs() + q.abs() {
                            h[at(i + 1, nu - 1)] =
                                (-ra - w * h[at(i, nu - 1)] + q * h[at(i, nu)]) / x;
                            h[at(i + 1, nu)] = (-sa - w * h[at(i, nu)] - q * h[at(i, nu - 1)]) / x;
                        } else {
                            let (cr, ci) =
                                cdiv(-r - y * h[at(i, nu - 1)], -s - y * h[at(i, nu)], z, q);
                            h[at(i + 1, nu - 1)] = cr;
                            h[at(i + 1, nu)] = ci;
                        }
                    }
                    t = h[at(i, nu - 1)].abs().max(h[at(i, nu)].abs());
                    if (eps * t) * t > 1.0 {
                        for j in i..=nu {
                            h[at(j, nu - 1)] /= t;
                            h[at(j, nu)] /= t;
                        }
                    }
                }
            }
        }
    }
    // Back transformation: V ← V · (the vectors of the Schur factor).
    for j in (0..nn).rev() {
        for i in 0..nn {
            z = (0..=j).map(|k| v[at(i, k)] * h[at(k, j)]).sum();
            v[at(i, j)] = z;
        }
    }
    (d, e, true)
}

/// Eigenvalues and unit right eigenvectors (complex, as columns of the
/// row-major `n×n` result) of the row-major `a`; None if QR did not
/// converge.
pub(super) fn eig(a: &[f64], n: usize) -> Option<(Vec<Complex64>, Vec<Complex64>)> {
    let scale = a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    // Divided (not multiplied by 1/scale, which overflows for subnormals).
    let div = if scale > 0.0 { scale } else { 1.0 };
    let mut h: Vec<f64> = a.iter().map(|x| x / div).collect();
    let mut v = orthes(&mut h, n);
    let (d, e, ok) = hqr2(&mut h, &mut v, n);
    if !ok {
        return None;
    }
    let w: Vec<Complex64> = d
        .iter()
        .zip(&e)
        .map(|(&re, &im)| Complex64::new(re * scale, im * scale))
        .collect();
    let mut vecs = vec![Complex64::new(0.0, 0.0); n * n];
    let mut j = 0;
    while j < n {
        if e[j] != 0.0 && j + 1 < n {
            // A conjugate pair packed as (re, im) columns.
            for i in 0..n {
                let (re, im) = (v[i * n + j], v[i * n + j + 1]);
                vecs[i * n + j] = Complex64::new(re, im);
                vecs[i * n + j + 1] = Complex64::new(re, -im);
            }
            j += 2;
        } else {
            for i in 0..n {
                vecs[i * n + j] = Complex64::new(v[i * n + j], 0.0);
            }
            j += 1;
        }
    }
    for j in 0..n {
        normalize(&mut vecs, n, j);
    }
    Some((w, vecs))
}

/// Scales column `j` of the row-major `n×n` `v` to unit norm with its
/// first largest-magnitude component real and positive.
pub(super) fn normalize(v: &mut [Complex64], n: usize, j: usize) {
    let mut best = 0.0;
    let mut at = 0;
    let mut sum = 0.0;
    for i in 0..n {
        let m = v[i * n + j].norm();
        sum += m * m;
        if m > best {
            best = m;
            at = i;
        }
    }
    if best == 0.0 {
        return;
    }
    // Multiply by conj(pivot) / (|pivot| · ‖v‖); the pivot becomes exactly
    // real (LAPACK zeroes its imaginary part too).
    let f = v[at * n + j].conj() / (best * sum.sqrt());
    for i in 0..n {
        v[i * n + j] *= f;
    }
    v[at * n + j].im = 0.0;
}

/// `lapack_{s,d}geev_ffi(a)` → `(wr, wi, vl, vr, info)`.
pub(super) fn geev(
    target: &str,
    config: &str,
    a: &ArrayLiteral,
    result: &Shape,
) -> Result<Literal> {
    if a.shape.element_type.is_complex() {
        return super::ceig::geev(target, config, a, result);
    }
    let x = Matrices::read(a, "the geev operand")?;
    let n = x.rows;
    if x.cols != n {
        return Err(crate::error::EvalError::new(format!(
            "{target}: the operand must be square in its two minor dims, got {}",
            a.shape
        )));
    }
    let left = config_flag(config, "compute_left", 'V', 'N', target)?;
    let right = config_flag(config, "compute_right", 'V', 'N', target)?;
    let ty = a.shape.element_type;
    let cty = if ty == ElementType::F32 {
        ElementType::C64
    } else {
        ElementType::C128
    };
    let bd = &x.batch_dims;
    let shapes = result_leaves(
        result,
        &[
            (ty, dims(bd, &[n])),
            (ty, dims(bd, &[n])),
            (cty, dims(bd, &[n, n])),
            (cty, dims(bd, &[n, n])),
            (ElementType::S32, bd.clone()),
        ],
        target,
    )?;
    let nan = Complex64::new(f64::NAN, f64::NAN);
    let zero = Complex64::new(0.0, 0.0);
    let (mut wr, mut wi) = (Vec::new(), Vec::new());
    let (mut vl, mut vr) = (Vec::new(), Vec::new());
    let mut info = Vec::new();
    for b in 0..x.batch {
        let m = x.get(b);
        let got = if x.all_finite(b) { eig(m, n) } else { None };
        let Some((w, vecs)) = got else {
            wr.extend(std::iter::repeat_n(f64::NAN, n));
            wi.extend(std::iter::repeat_n(f64::NAN, n));
            vl.extend(std::iter::repeat_n(if left { nan } else { zero }, n * n));
            vr.extend(std::iter::repeat_n(if right { nan } else { zero }, n * n));
            info.push(if x.all_finite(b) { 1 } else { 0 });
            continue;
        };
        wr.extend(w.iter().map(|c| c.re));
        wi.extend(w.iter().map(|c| c.im));
        vr.extend(if right { vecs } else { vec![zero; n * n] });
        if left {
            match left_vectors(m, n, &w) {
                Some(l) => vl.extend(l),
                None => {
                    vl.extend(std::iter::repeat_n(nan, n * n));
                    info.push(1);
                    continue;
                }
            }
        } else {
            vl.extend(std::iter::repeat_n(zero, n * n));
        }
        info.push(0);
    }
    Ok(Literal::Tuple(vec![
        leaf(&shapes[0], wr)?,
        leaf(&shapes[1], wi)?,
        complex_leaf(&shapes[2], vl),
        complex_leaf(&shapes[3], vr),
        info_leaf(&shapes[4], info),
    ]))
}

/// Left eigenvectors for the eigenvalues `w` of `a`: the right eigenvectors
/// of `aᵀ`, whose eigenvalue for column j is conj(w[j]); each of aᵀ's is
/// matched to the nearest unused conj(w[j]).
fn left_vectors(a: &[f64], n: usize, w: &[Complex64]) -> Option<Vec<Complex64>> {
    let at = super::transpose(a, n, n);
    let (wt, vt) = eig(&at, n)?;
    let mut used = vec![false; n];
    let mut out = vec![Complex64::new(0.0, 0.0); n * n];
    for (j, wj) in w.iter().enumerate() {
        let target = wj.conj();
        let k = (0..n)
            .filter(|&k| !used[k])
            .min_by(|&a, &b| (wt[a] - target).norm().total_cmp(&(wt[b] - target).norm()))?;
        used[k] = true;
        for i in 0..n {
            out[i * n + j] = vt[i * n + k];
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ‖A v - λ v‖ for every pair, and unit norms.
    fn check(a: &[f64], n: usize, tol: f64) -> Vec<Complex64> {
        let (w, v) = eig(a, n).expect("converges");
        for j in 0..n {
            let mut norm = 0.0;
            for i in 0..n {
                let av: Complex64 = (0..n).map(|k| v[k * n + j] * a[i * n + k]).sum();
                assert!((av - w[j] * v[i * n + j]).norm() < tol, "residual {j} {i}");
                norm += v[i * n + j].norm_sqr();
            }
            assert!((norm - 1.0).abs() < tol);
        }
        // Left vectors: uᴴ A = λ uᴴ.
        let u = left_vectors(a, n, &w).expect("left");
        for j in 0..n {
            for k in 0..n {
                let ua: Complex64 = (0..n).map(|i| u[i * n + j].conj() * a[i * n + k]).sum();
                assert!(
                    (ua - w[j] * u[k * n + j].conj()).norm() < tol,
                    "left {j} {k}"
                );
            }
        }
        w
    }

    #[test]
    fn rotation_has_a_conjugate_pair() {
        let w = check(&[0., -1., 1., 0.], 2, 1e-14);
        assert!((w[0] - Complex64::new(0.0, 1.0)).norm() < 1e-15, "{w:?}");
        assert!((w[1] - Complex64::new(0.0, -1.0)).norm() < 1e-15, "{w:?}");
    }

    #[test]
    fn general_matrices() {
        check(&[4., 1., 2., 3.], 2, 1e-13);
        let a = [1., 2., 3., 4., -5., 6., 7., 8., 9.];
        let w = check(&a, 3, 1e-12);
        let tr: Complex64 = w.iter().sum();
        assert!((tr.re - 5.0).abs() < 1e-12 && tr.im.abs() < 1e-12);
        // A 6×6 with complex pairs.
        let b: Vec<f64> = (0..36)
            .map(|k| ((k * 7 % 11) as f64 - 5.0) + if k % 7 == 0 { 2.0 } else { 0.0 })
            .collect();
        check(&b, 6, 1e-11);
        // Upper triangular, a repeated eigenvalue, and empty.
        check(&[2., 1., 0., 0., 2., 1., 0., 0., 3.], 3, 1e-8);
        assert!(eig(&[], 0).is_some());
    }
}
