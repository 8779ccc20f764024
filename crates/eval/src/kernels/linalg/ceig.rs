//! Complex general eigendecomposition: the `lapack_{c,z}geev_ffi` custom
//! calls behind `jnp.linalg.eig` / `eigvals` of c64/c128 matrices.
//!
//! Householder reduction to upper Hessenberg form, then the single-shift
//! complex QR iteration (Givens rotations, LAPACK zlahqr's shift: the
//! eigenvalue of the trailing 2×2 nearer its last diagonal entry, with
//! exceptional shifts after 10 and 20 iterations) to the triangular Schur
//! form `A = Q T Qᴴ` with `Q` accumulated, then back substitution for the
//! eigenvectors of `T` (ztrevc's, a tiny pivot replaced by
//! `max(ε|λ|, smallest normal)`), transformed by `Q`. In complex f64 on the
//! matrix divided by its largest magnitude; no balancing. Conventions as
//! the real geev (eig.rs): eigenvalues in the order of T's diagonal (LAPACK
//! may find another order); unit vectors with the largest-magnitude
//! component (first on ties) real and positive; left vectors `uᴴ A = λ uᴴ`
//! are the right vectors of `Aᴴ` (for conj(λ)) matched to λ by nearest
//! eigenvalue; info = 1 with NaN values when an eigenvalue took more than
//! [`MAX_ITER`] iterations; a NaN or infinite entry gives NaN values with
//! info 0; `compute_left` / `compute_right` = `N` leaves that result zero.

use super::eig::{MAX_ITER, normalize};
use super::lapack::config_flag;
use super::{
    MAX_DIM, Scalar, cdiv, complex_leaf, complex_values, dims, info_leaf, matrix_dims,
    result_leaves,
};
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, Complex64, ElementType, Literal, Shape};

type C = Complex64;

const ZERO: C = C::new(0.0, 0.0);

/// Reduces the row-major `n×n` `h` to upper Hessenberg form in place by
/// Householder reflections `P = I - 2uuᴴ/(uᴴu)`; returns the unitary `q`
/// (row-major) with `A = Q H Qᴴ`.
fn hessenberg(h: &mut [C], n: usize) -> Vec<C> {
    let mut q = vec![ZERO; n * n];
    for i in 0..n {
        q[i * n + i] = C::ONE;
    }
    for k in 0..n.saturating_sub(2) {
        let norm = super::norm2((k + 1..n).flat_map(|i| [h[i * n + k].re, h[i * n + k].im]));
        if norm == 0.0 {
            continue;
        }
        // u = x + e^{iθ}‖x‖ e₁ with θ the phase of x₀: P x = -e^{iθ}‖x‖ e₁.
        let x0 = h[(k + 1) * n + k];
        let phase = if x0.norm() == 0.0 {
            C::ONE
        } else {
            x0 / x0.norm()
        };
        let mut u: Vec<C> = (k + 1..n).map(|i| h[i * n + k]).collect();
        u[0] += phase * norm;
        let uu: f64 = u.iter().map(|c| c.norm_sqr()).sum();
        if uu == 0.0 {
            continue;
        }
        let f = 2.0 / uu;
        // H ← P H: rows k+1.., every column.
        for j in 0..n {
            let s: C = (k + 1..n).map(|i| u[i - k - 1].conj() * h[i * n + j]).sum();
            let s = s * f;
            for i in k + 1..n {
                h[i * n + j] -= u[i - k - 1] * s;
            }
        }
        // H ← H P and Q ← Q P: columns k+1.., every row.
        for m in [&mut *h, &mut q] {
            for i in 0..n {
                let s: C = (k + 1..n).map(|j| m[i * n + j] * u[j - k - 1]).sum();
                let s = s * f;
                for j in k + 1..n {
                    m[i * n + j] -= s * u[j - k - 1].conj();
                }
            }
        }
        for i in k + 2..n {
            h[i * n + k] = ZERO;
        }
    }
    q
}

/// The shifted QR iteration on the Hessenberg `h` (made upper triangular in
/// place), accumulating the rotations into `q`. False if an eigenvalue
/// did not converge.
fn schur(h: &mut [C], q: &mut [C], n: usize) -> bool {
    if n == 0 {
        return true;
    }
    let at = |i: usize, j: usize| i * n + j;
    let eps = f64::EPSILON;
    let norm: f64 = h.iter().map(|c| c.abs1()).sum();
    let mut hi = n - 1;
    let mut iter = 0;
    while hi > 0 {
        // The active block is l..=hi, after the last negligible subdiagonal.
        let mut l = hi;
        while l > 0 {
            let mut tst = h[at(l - 1, l - 1)].abs1() + h[at(l, l)].abs1();
            if tst == 0.0 {
                tst = norm;
            }
            if h[at(l, l - 1)].abs1() <= eps * tst {
                h[at(l, l - 1)] = ZERO;
                break;
            }
            l -= 1;
        }
        if l == hi {
            hi -= 1;
            iter = 0;
            continue;
        }
        iter += 1;
        if iter > MAX_ITER {
            return false;
        }
        let mu = if iter == 10 {
            C::from_re(0.75 * h[at(l + 1, l)].re.abs()) + h[at(l, l)]
        } else if iter == 20 {
            C::from_re(0.75 * h[at(hi, hi - 1)].re.abs()) + h[at(hi, hi)]
        } else {
            wilkinson(
                h[at(hi - 1, hi - 1)],
                h[at(hi - 1, hi)],
                h[at(hi, hi - 1)],
                h[at(hi, hi)],
            )
        };
        for k in l..hi {
            let (x, y) = if k == l {
                (h[at(l, l)] - mu, h[at(l + 1, l)])
            } else {
                (h[at(k, k - 1)], h[at(k + 1, k - 1)])
            };
            let (c, s) = givens(x, y);
            // Rows k, k+1 ← G (rows k, k+1), G = [[c, s], [-s̄, c]].
            for j in (if k == l { l } else { k - 1 })..n {
                let (t1, t2) = (h[at(k, j)], h[at(k + 1, j)]);
                h[at(k, j)] = t1 * c + s * t2;
                h[at(k + 1, j)] = t2 * c - s.conj() * t1;
            }
            if k > l {
                h[at(k + 1, k - 1)] = ZERO;
            }
            // Columns k, k+1 ← (columns k, k+1) Gᴴ, in H and Q.
            let rows = (k + 2).min(hi) + 1;
            for (m, rows) in [(&mut *h, rows), (&mut *q, n)] {
                for i in 0..rows {
                    let (t1, t2) = (m[at(i, k)], m[at(i, k + 1)]);
                    m[at(i, k)] = t1 * c + s.conj() * t2;
                    m[at(i, k + 1)] = t2 * c - s * t1;
                }
            }
        }
    }
    true
}

/// The eigenvalue of `[[a, b], [c, d]]` nearer `d` (zlahqr's shift).
fn wilkinson(a: C, b: C, c: C, d: C) -> C {
    let u = b.sqrt() * c.sqrt();
    let s = u.abs1();
    if s == 0.0 {
        return d;
    }
    let x = (a - d) * 0.5;
    let sx = x.abs1();
    let s = s.max(sx);
    let y = ((x / s) * (x / s) + (u / s) * (u / s)).sqrt() * s;
    let y = if sx > 0.0 && (x.re / sx) * y.re + (x.im / sx) * y.im < 0.0 {
        -y
    } else {
        y
    };
    let den = x + y;
    if den == ZERO {
        return d;
    }
    d - u * cdiv(u, den)
}

/// `(c, s)` with `[[c, s], [-s̄, c]] [x; y] = [r; 0]`, c real.
fn givens(x: C, y: C) -> (C, C) {
    if y == ZERO {
        return (C::ONE, ZERO);
    }
    let ax = x.norm();
    if ax == 0.0 {
        return (ZERO, y.conj() / y.norm());
    }
    let r = ax.hypot(y.norm());
    (C::from_re(ax / r), (x / ax) * y.conj() / r)
}

/// Eigenvalues and unit right eigenvectors (columns of the row-major `n×n`
/// result) of the row-major complex `a`; None if QR did not converge.
pub(super) fn eig(a: &[C], n: usize) -> Option<(Vec<C>, Vec<C>)> {
    let scale = a
        .iter()
        .fold(0.0f64, |m, v| m.max(v.re.abs()).max(v.im.abs()));
    let div = if scale > 0.0 { scale } else { 1.0 };
    let mut t: Vec<C> = a.iter().map(|x| x / div).collect();
    let mut q = hessenberg(&mut t, n);
    if !schur(&mut t, &mut q, n) {
        return None;
    }
    let w: Vec<C> = (0..n).map(|k| t[k * n + k]).collect();
    // Eigenvectors of T: x[k] = 1, x[i > k] = 0, back substitution above.
    let mut x = vec![ZERO; n * n];
    for k in 0..n {
        let lam = w[k];
        let smin = (f64::EPSILON * lam.norm()).max(f64::MIN_POSITIVE);
        x[k * n + k] = C::ONE;
        for i in (0..k).rev() {
            let mut acc = -t[i * n + k];
            for j in i + 1..k {
                acc -= t[i * n + j] * x[j * n + k];
            }
            let mut d = t[i * n + i] - lam;
            if d.abs1() < smin {
                d = C::from_re(smin);
            }
            x[i * n + k] = cdiv(acc, d);
        }
    }
    // V = Q X (X upper triangular).
    let mut v = vec![ZERO; n * n];
    for i in 0..n {
        for k in 0..n {
            v[i * n + k] = (0..=k).map(|j| q[i * n + j] * x[j * n + k]).sum();
        }
    }
    for j in 0..n {
        normalize(&mut v, n, j);
    }
    Some((w.into_iter().map(|c| c * scale).collect(), v))
}

/// Left eigenvectors for the eigenvalues `w` of `a`: the right eigenvectors
/// of `aᴴ`, whose eigenvalue for column j is conj(w[j]); each of aᴴ's is
/// matched to the nearest unused conj(w[j]).
fn left_vectors(a: &[C], n: usize, w: &[C]) -> Option<Vec<C>> {
    let mut ah = vec![ZERO; n * n];
    for i in 0..n {
        for j in 0..n {
            ah[j * n + i] = a[i * n + j].conj();
        }
    }
    let (wt, vt) = eig(&ah, n)?;
    let mut used = vec![false; n];
    let mut out = vec![ZERO; n * n];
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

/// `lapack_{c,z}geev_ffi(a)` → `(w, vl, vr, info)`.
pub(super) fn geev(
    target: &str,
    config: &str,
    a: &ArrayLiteral,
    result: &Shape,
) -> Result<Literal> {
    let (n, cols, batch) = matrix_dims(&a.shape, "the geev operand")?;
    if n > MAX_DIM || cols > MAX_DIM {
        return Err(EvalError::new(format!(
            "the geev operand {} has a matrix dimension above rxla's limit of {MAX_DIM}",
            a.shape
        )));
    }
    if cols != n {
        return Err(EvalError::new(format!(
            "{target}: the operand must be square in its two minor dims, got {}",
            a.shape
        )));
    }
    let left = config_flag(config, "compute_left", 'V', 'N', target)?;
    let right = config_flag(config, "compute_right", 'V', 'N', target)?;
    let ty = a.shape.element_type;
    let r = a.shape.dims.len();
    let bd = a.shape.dims[..r - 2].to_vec();
    let shapes = result_leaves(
        result,
        &[
            (ty, dims(&bd, &[n])),
            (ty, dims(&bd, &[n, n])),
            (ty, dims(&bd, &[n, n])),
            (ElementType::S32, bd.clone()),
        ],
        target,
    )?;
    let x = complex_values(a, "the geev operand")?;
    let nan = C::nan();
    let (mut ws, mut vl, mut vr, mut info) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for b in 0..batch {
        let m = &x[b * n * n..(b + 1) * n * n];
        let finite = m.iter().all(|c| c.re.is_finite() && c.im.is_finite());
        let got = if finite { eig(m, n) } else { None };
        let lv = match &got {
            Some((w, _)) if left => left_vectors(m, n, w),
            _ => None,
        };
        match got {
            Some((w, vecs)) if !left || lv.is_some() => {
                ws.extend(w);
                vr.extend(if right { vecs } else { vec![ZERO; n * n] });
                vl.extend(lv.unwrap_or_else(|| vec![ZERO; n * n]));
                info.push(0);
            }
            _ => {
                ws.extend(std::iter::repeat_n(nan, n));
                vl.extend(std::iter::repeat_n(if left { nan } else { ZERO }, n * n));
                vr.extend(std::iter::repeat_n(if right { nan } else { ZERO }, n * n));
                info.push(if finite { 1 } else { 0 });
            }
        }
    }
    Ok(Literal::Tuple(vec![
        complex_leaf(&shapes[0], ws),
        complex_leaf(&shapes[1], vl),
        complex_leaf(&shapes[2], vr),
        info_leaf(&shapes[3], info),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ‖A v - λ v‖ and ‖uᴴA - λuᴴ‖ for every pair, and unit norms.
    fn check(a: &[C], n: usize, tol: f64) -> Vec<C> {
        let (w, v) = eig(a, n).expect("converges");
        let u = left_vectors(a, n, &w).expect("left");
        for j in 0..n {
            let mut norm = 0.0;
            for i in 0..n {
                let av: C = (0..n).map(|k| a[i * n + k] * v[k * n + j]).sum();
                assert!((av - w[j] * v[i * n + j]).norm() <= tol, "residual {j} {i}");
                let ua: C = (0..n).map(|k| u[k * n + j].conj() * a[k * n + i]).sum();
                assert!(
                    (ua - w[j] * u[i * n + j].conj()).norm() <= tol,
                    "left {j} {i}"
                );
                norm += v[i * n + j].norm_sqr();
            }
            assert!((norm - 1.0).abs() <= tol);
        }
        w
    }

    fn c(re: f64, im: f64) -> C {
        C::new(re, im)
    }

    #[test]
    fn triangular_and_diagonal() {
        let w = check(&[c(2., 1.), c(1., 0.), c(0., 0.), c(-1., 3.)], 2, 1e-14);
        assert_eq!(w, vec![c(2., 1.), c(-1., 3.)]);
        assert!(eig(&[], 0).is_some());
        check(&[c(0., 2.)], 1, 0.0);
    }

    #[test]
    fn general_complex_matrices() {
        // A real rotation: eigenvalues ±i.
        let w = check(&[c(0., 0.), c(-1., 0.), c(1., 0.), c(0., 0.)], 2, 1e-14);
        let mut im: Vec<f64> = w.iter().map(|z| z.im).collect();
        im.sort_by(f64::total_cmp);
        assert!((im[0] + 1.0).abs() < 1e-15 && (im[1] - 1.0).abs() < 1e-15);
        for n in [3, 6, 12] {
            let a: Vec<C> = (0..n * n)
                .map(|k| {
                    let k = k as f64;
                    c((1.3 * k + 0.2).sin(), (0.7 * k * k + 1.0).cos())
                })
                .collect();
            let w = check(&a, n, 1e-11);
            // The trace is the eigenvalue sum.
            let tr: C = (0..n).map(|i| a[i * n + i]).sum();
            let sum: C = w.iter().sum();
            assert!((tr - sum).norm() < 1e-11);
        }
        // A Jordan block (defective) and a repeated eigenvalue still
        // converge.
        eig(&[c(1., 1.), c(1., 0.), c(0., 0.), c(1., 1.)], 2).expect("converges");
        check(&[c(3., 0.), c(0., 0.), c(0., 0.), c(3., 0.)], 2, 1e-15);
    }

    /// Random matrices of orders 1 to 39 and structured ones (a cyclic
    /// permutation, which needs the exceptional shifts; a tiny scale;
    /// triangular; Hermitian): every residual ‖A v - λ v‖ is below 1e-12
    /// relative to the largest entry.
    #[test]
    fn hard_cases_converge_with_small_residuals() {
        let mut seed: u64 = 12345;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        for n in 1..40 {
            for kind in 0..5 {
                let mut a: Vec<C> = (0..n * n).map(|_| c(rnd(), rnd())).collect();
                match kind {
                    1 => {
                        a = vec![ZERO; n * n];
                        for i in 0..n {
                            a[((i + 1) % n) * n + i] = C::ONE;
                        }
                    }
                    2 => a.iter_mut().for_each(|x| *x *= 1e-300),
                    3 => (0..n).for_each(|i| (0..i).for_each(|j| a[i * n + j] = ZERO)),
                    4 => {
                        for i in 0..n {
                            for j in 0..i {
                                a[i * n + j] = a[j * n + i].conj();
                            }
                            a[i * n + i].im = 0.0;
                        }
                    }
                    _ => {}
                }
                let (w, v) = eig(&a, n).unwrap_or_else(|| panic!("n={n} kind={kind}"));
                let scale = a.iter().fold(0.0f64, |m, x| m.max(x.norm()));
                for j in 0..n {
                    for i in 0..n {
                        let av: C = (0..n).map(|k| a[i * n + k] * v[k * n + j]).sum();
                        let r = (av - w[j] * v[i * n + j]).norm() / scale;
                        assert!(r < 1e-12, "n={n} kind={kind}: {r:e}");
                    }
                }
            }
        }
    }
}
