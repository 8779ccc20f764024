//! The native `fft` kernels: FFT, IFFT, RFFT and IRFFT over 1 to 3
//! trailing dimensions of row-major, unpadded buffers, computed in the
//! element type (`f32` plans for c64/f32, `f64` for c128/f64) directly on
//! the runtime's buffers with `rustfft`, no literals. Even-length real
//! transforms run as half-length complex transforms (the packing trick:
//! `z[m] = x[2m] + i·x[2m+1]`, then one twiddle pass). Inverse transforms
//! are scaled by 1/N once, at the end. Scratch space is the caller's
//! ([`Scratch`], kept by the step across calls). Shapes are checked by the
//! caller (`runtime::fft`); this module indexes only within the slices it
//! is given and must not be handed non-finite inputs when the results
//! must match the evaluator's (the caller routes those to the DFT).

use rustfft::num_complex::Complex;
use rustfft::{Fft, FftNum, FftPlanner};
use std::collections::HashMap;
use std::sync::Arc;

/// A float type FFTs run in.
pub trait Real: FftNum + rustfft::num_traits::Float {}
impl Real for f32 {}
impl Real for f64 {}

/// How many strided lines are gathered per batch (a transform along a
/// non-minor dimension).
const GATHER: usize = 16;

/// The transforms of one `fft` instruction in type `T`.
pub struct Plans<T: Real> {
    /// Complex transforms by (length, inverse).
    fft: HashMap<(usize, bool), Arc<dyn Fft<T>>>,
    /// Twiddles `e^{-2πik/N}` (k < N/2) of an even real last length N.
    half_twiddles: Vec<Complex<T>>,
    /// The largest in-place scratch length of any plan.
    scratch_len: usize,
}

/// Per-call working memory, reused across calls.
pub struct Scratch<T> {
    fft: Vec<Complex<T>>,
    lines: Vec<Complex<T>>,
    work: Vec<Complex<T>>,
}

impl<T> Default for Scratch<T> {
    fn default() -> Self {
        Scratch {
            fft: Vec::new(),
            lines: Vec::new(),
            work: Vec::new(),
        }
    }
}

/// The shape of a transform: `batch` leading lines of the transformed
/// dims `lengths` (1 to 3; the last one the real length for RFFT/IRFFT).
#[derive(Clone, Debug)]
pub struct Geometry {
    pub batch: usize,
    pub lengths: Vec<usize>,
}

impl Geometry {
    /// The complex spectrum's dims (the last one n/2+1 for real
    /// transforms).
    fn spectrum(&self, real: bool) -> Vec<usize> {
        let mut d = self.lengths.clone();
        if real && let Some(l) = d.last_mut() {
            *l = *l / 2 + 1;
        }
        d
    }
}

fn to_t<T: Real>(x: f64) -> T {
    T::from_f64(x).unwrap_or_else(T::zero)
}

impl<T: Real> Plans<T> {
    /// Plans every transform `geometry` needs for `kind`.
    pub fn new(g: &Geometry, kind: rxla_ir::FftType) -> Plans<T> {
        use rxla_ir::FftType::*;
        let mut planner = FftPlanner::<T>::new();
        let mut fft = HashMap::new();
        let inverse = matches!(kind, Ifft | Irfft);
        let real = matches!(kind, Rfft | Irfft);
        let k = g.lengths.len();
        let mut half_twiddles = Vec::new();
        for (axis, &n) in g.lengths.iter().enumerate() {
            let n = if real && axis == k - 1 {
                if n.is_multiple_of(2) {
                    half_twiddles = (0..n / 2)
                        .map(|j| {
                            let a = -2.0 * std::f64::consts::PI * j as f64 / n as f64;
                            Complex::new(to_t(a.cos()), to_t(a.sin()))
                        })
                        .collect();
                    n / 2
                } else {
                    n
                }
            } else {
                n
            };
            if n > 1 {
                fft.entry((n, inverse)).or_insert_with(|| {
                    if inverse {
                        planner.plan_fft_inverse(n)
                    } else {
                        planner.plan_fft_forward(n)
                    }
                });
            }
        }
        let scratch_len = fft
            .values()
            .map(|p| p.get_inplace_scratch_len())
            .max()
            .unwrap_or(0);
        Plans {
            fft,
            half_twiddles,
            scratch_len,
        }
    }

    /// In-place transform of every consecutive line of length `n` in
    /// `data` (a multiple of `n` long).
    fn lines(&self, data: &mut [Complex<T>], n: usize, inverse: bool, s: &mut Vec<Complex<T>>) {
        if let Some(p) = self.fft.get(&(n, inverse)) {
            if s.len() < self.scratch_len {
                s.resize(self.scratch_len, Complex::new(T::zero(), T::zero()));
            }
            p.process_with_scratch(data, &mut s[..p.get_inplace_scratch_len()]);
        }
    }

    /// Transforms axis `axis` of the row-major complex array `data` of
    /// dims `[batch] ++ dims` in place (unscaled).
    fn axis(
        &self,
        data: &mut [Complex<T>],
        dims: &[usize],
        axis: usize,
        inverse: bool,
        s: &mut Scratch<T>,
    ) {
        let n = dims[axis];
        if n <= 1 || data.is_empty() {
            return;
        }
        let inner: usize = dims[axis + 1..].iter().product();
        if inner == 1 {
            self.lines(data, n, inverse, &mut s.fft);
            return;
        }
        // Gather up to GATHER columns into contiguous lines, transform,
        // scatter back.
        let block = n * inner;
        s.lines
            .resize(GATHER * n, Complex::new(T::zero(), T::zero()));
        for plane in data.chunks_exact_mut(block) {
            let mut i0 = 0;
            while i0 < inner {
                let w = GATHER.min(inner - i0);
                let lines = &mut s.lines[..w * n];
                for r in 0..n {
                    let row = &plane[r * inner + i0..r * inner + i0 + w];
                    for (c, &v) in row.iter().enumerate() {
                        lines[c * n + r] = v;
                    }
                }
                self.lines(lines, n, inverse, &mut s.fft);
                for r in 0..n {
                    let row = &mut plane[r * inner + i0..r * inner + i0 + w];
                    for (c, v) in row.iter_mut().enumerate() {
                        *v = lines[c * n + r];
                    }
                }
                i0 += w;
            }
        }
    }

    /// FFT or IFFT of `input` into `out` (same dims).
    pub fn complex(
        &self,
        g: &Geometry,
        inverse: bool,
        input: &[Complex<T>],
        out: &mut [Complex<T>],
        s: &mut Scratch<T>,
    ) {
        out.copy_from_slice(input);
        let dims = &g.lengths;
        for axis in (0..dims.len()).rev() {
            self.axis(out, dims, axis, inverse, s);
        }
        if inverse {
            scale(out, dims.iter().product());
        }
    }

    /// RFFT of the real `input` (`[batch] ++ lengths`) into the spectrum
    /// `out` (last dim n/2+1).
    pub fn rfft(&self, g: &Geometry, input: &[T], out: &mut [Complex<T>], s: &mut Scratch<T>) {
        let n = *g.lengths.last().unwrap_or(&1);
        let half = n / 2 + 1;
        let zero = Complex::new(T::zero(), T::zero());
        if n.is_multiple_of(2) && n >= 2 {
            let m = n / 2;
            for (x, o) in input.chunks_exact(n).zip(out.chunks_exact_mut(half)) {
                o[..m].copy_from_slice(as_complex(x));
            }
            // Every packed line at once, then the twiddle pass per line.
            // The lines are `half` apart, not `m`: transform each.
            let (mut z, mut r) = (std::mem::take(&mut s.lines), std::mem::take(&mut s.work));
            for o in out.chunks_exact_mut(half) {
                self.lines(&mut o[..m], m, false, &mut s.fft);
                self.unpack_forward(o, &mut z, &mut r);
            }
            (s.lines, s.work) = (z, r);
        } else {
            // Two real lines per complex transform: z = x1 + i·x2, then
            // X1[k] = ½(Z[k] + conj Z[n−k]), X2[k] = −½i(Z[k] − conj Z[n−k]).
            s.work.resize(n, zero);
            let mut rows = input.chunks_exact(n).zip(out.chunks_exact_mut(half));
            while let Some((x1, o1)) = rows.next() {
                let Some((x2, o2)) = rows.next() else {
                    for (w, &v) in s.work.iter_mut().zip(x1) {
                        *w = Complex::new(v, T::zero());
                    }
                    self.lines(&mut s.work, n, false, &mut s.fft);
                    o1.copy_from_slice(&s.work[..half]);
                    break;
                };
                for ((w, &a), &b) in s.work.iter_mut().zip(x1).zip(x2) {
                    *w = Complex::new(a, b);
                }
                self.lines(&mut s.work, n, false, &mut s.fft);
                let hf = to_t::<T>(0.5);
                let z0 = s.work[0];
                o1[0] = Complex::new(z0.re, T::zero());
                o2[0] = Complex::new(z0.im, T::zero());
                let (zs, rs) = (&s.work[1..half], &s.work[half..]);
                for (((o1, o2), &a), &b) in o1[1..]
                    .iter_mut()
                    .zip(o2[1..].iter_mut())
                    .zip(zs)
                    .zip(rs.iter().rev())
                {
                    // b = Z[n−k]
                    *o1 = Complex::new((a.re + b.re) * hf, (a.im - b.im) * hf);
                    *o2 = Complex::new((a.im + b.im) * hf, (b.re - a.re) * hf);
                }
            }
        }
        let spec = g.spectrum(true);
        for axis in (0..spec.len() - 1).rev() {
            self.axis(out, &spec, axis, false, s);
        }
    }

    /// `o[..m]` holds Z = FFT_m(x[2j] + i·x[2j+1]); rewrites `o[..=m]` as
    /// X = FFT_n(x), n = 2m:
    /// X[k] = ½(Z[k] + conj Z[m−k]) − ½i·w^k·(Z[k] − conj Z[m−k]).
    /// `z` and `r` are scratch (Z and Z reversed, so the pass is three
    /// forward streams that vectorize).
    fn unpack_forward(
        &self,
        o: &mut [Complex<T>],
        z: &mut Vec<Complex<T>>,
        r: &mut Vec<Complex<T>>,
    ) {
        let m = o.len() - 1;
        let zero = Complex::new(T::zero(), T::zero());
        z.clear();
        z.extend_from_slice(&o[..m]);
        r.resize(m, zero);
        // r[k] = Z[m−k] for k in 1..m.
        for (r, &v) in r[1..].iter_mut().zip(z[1..].iter().rev()) {
            *r = v;
        }
        let z0 = z[0];
        o[0] = Complex::new(z0.re + z0.im, T::zero());
        o[m] = Complex::new(z0.re - z0.im, T::zero());
        unpack_pass(&mut o[1..m], &z[1..], &r[1..], &self.half_twiddles[1..m]);
    }

    /// IRFFT of the spectrum `input` (last dim n/2+1) into the real `out`
    /// (`[batch] ++ lengths`).
    pub fn irfft(&self, g: &Geometry, input: &[Complex<T>], out: &mut [T], s: &mut Scratch<T>) {
        let n = *g.lengths.last().unwrap_or(&1);
        let half = n / 2 + 1;
        let spec = g.spectrum(true);
        let total: usize = g.lengths.iter().product();
        let zero = Complex::new(T::zero(), T::zero());
        // The leading transformed dims first, on a copy.
        let lines: &[Complex<T>] = if spec.len() > 1 {
            s.work.clear();
            s.work.extend_from_slice(input);
            let mut work = std::mem::take(&mut s.work);
            for axis in (0..spec.len() - 1).rev() {
                self.axis(&mut work, &spec, axis, true, s);
            }
            s.work = work;
            &s.work
        } else {
            input
        };
        let sc = to_t::<T>(1.0 / total as f64);
        if n.is_multiple_of(2) && n >= 2 {
            let m = n / 2;
            let w = &self.half_twiddles;
            let mut rev = std::mem::take(&mut s.lines);
            for (x, o) in lines.chunks_exact(half).zip(out.chunks_exact_mut(n)) {
                // o as m complex values: Z'[k] = (X[k] + conj X[m−k]) +
                // i·conj(w^k)·(X[k] − conj X[m−k]), imaginary parts of X[0]
                // and X[m] ignored.
                let z = as_complex_mut(o);
                // Scaled by 1/N here: the inverse transform is linear.
                let zk = |a: Complex<T>, b: Complex<T>, w: Complex<T>| {
                    let e = Complex::new(a.re + b.re, a.im - b.im);
                    let d = Complex::new(a.re - b.re, a.im + b.im);
                    let wd = w.conj() * d;
                    Complex::new((e.re - wd.im) * sc, (e.im + wd.re) * sc)
                };
                let x0 = Complex::new(x[0].re, T::zero());
                let xm = Complex::new(x[m].re, T::zero());
                z[0] = zk(x0, xm, w[0]);
                rev.clear();
                rev.extend(x[1..m].iter().rev());
                repack_pass(&mut z[1..], &x[1..m], &rev, &w[1..], sc);
                self.lines(z, m, true, &mut s.fft);
            }
            s.lines = rev;
        } else {
            let mut line = std::mem::take(&mut s.lines);
            line.resize(n, zero);
            for (x, o) in lines.chunks_exact(half).zip(out.chunks_exact_mut(n.max(1))) {
                for (j, v) in line.iter_mut().enumerate() {
                    *v = if j < half { x[j] } else { x[n - j].conj() };
                }
                line[0].im = T::zero();
                self.lines(&mut line, n, true, &mut s.fft);
                for (o, v) in o.iter_mut().zip(&line) {
                    *o = v.re * sc;
                }
            }
            s.lines = line;
        }
    }
}

/// X[k] = ½(a + conj b) − ½i·w·(a − conj b) over equal-length streams
/// (a = Z[k], b = Z[m−k]); in an AVX-512 copy of the loop where the host
/// has it (the same operations, so the same bits).
#[inline(never)]
fn unpack_pass<T: Real>(
    o: &mut [Complex<T>],
    a: &[Complex<T>],
    b: &[Complex<T>],
    w: &[Complex<T>],
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        #[target_feature(enable = "avx512f")]
        fn wide<T: Real>(
            o: &mut [Complex<T>],
            a: &[Complex<T>],
            b: &[Complex<T>],
            w: &[Complex<T>],
        ) {
            unpack_body(o, a, b, w);
        }
        // SAFETY: AVX-512F checked above.
        unsafe { wide(o, a, b, w) };
        return;
    }
    unpack_body(o, a, b, w);
}

#[inline(always)]
fn unpack_body<T: Real>(
    o: &mut [Complex<T>],
    a: &[Complex<T>],
    b: &[Complex<T>],
    w: &[Complex<T>],
) {
    let half = to_t::<T>(0.5);
    let n = o.len().min(a.len()).min(b.len()).min(w.len());
    let (o, a, b, w) = (&mut o[..n], &a[..n], &b[..n], &w[..n]);
    for k in 0..n {
        let (a, b, w) = (a[k], b[k], w[k]);
        let (er, ei) = (a.re + b.re, a.im - b.im);
        let (dr, di) = (a.re - b.re, a.im + b.im);
        // −i·w·d
        let (pr, pi) = (w.re * dr - w.im * di, w.re * di + w.im * dr);
        o[k] = Complex::new((er + pi) * half, (ei - pr) * half);
    }
}

/// Z'[k]·sc = ((a + conj b) + i·conj(w)·(a − conj b))·sc over
/// equal-length streams (a = X[k], b = X[m−k]); in an AVX-512 copy of the
/// loop where the host has it (the same operations, so the same bits).
#[inline(never)]
fn repack_pass<T: Real>(
    z: &mut [Complex<T>],
    a: &[Complex<T>],
    b: &[Complex<T>],
    w: &[Complex<T>],
    sc: T,
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        #[target_feature(enable = "avx512f")]
        fn wide<T: Real>(
            z: &mut [Complex<T>],
            a: &[Complex<T>],
            b: &[Complex<T>],
            w: &[Complex<T>],
            sc: T,
        ) {
            repack_body(z, a, b, w, sc);
        }
        // SAFETY: AVX-512F checked above.
        unsafe { wide(z, a, b, w, sc) };
        return;
    }
    repack_body(z, a, b, w, sc);
}

#[inline(always)]
fn repack_body<T: Real>(
    z: &mut [Complex<T>],
    a: &[Complex<T>],
    b: &[Complex<T>],
    w: &[Complex<T>],
    sc: T,
) {
    let n = z.len().min(a.len()).min(b.len()).min(w.len());
    let (z, a, b, w) = (&mut z[..n], &a[..n], &b[..n], &w[..n]);
    for k in 0..n {
        let (a, b, w) = (a[k], b[k], w[k]);
        let (er, ei) = (a.re + b.re, a.im - b.im);
        let (dr, di) = (a.re - b.re, a.im + b.im);
        // conj(w)·d
        let (pr, pi) = (w.re * dr + w.im * di, w.re * di - w.im * dr);
        z[k] = Complex::new((er - pi) * sc, (ei + pr) * sc);
    }
}

/// Multiplies every value by 1/n.
fn scale<T: Real>(data: &mut [Complex<T>], n: usize) {
    if n > 1 {
        let sc = to_t::<T>(1.0 / n as f64);
        for v in data {
            *v = Complex::new(v.re * sc, v.im * sc);
        }
    }
}

/// A real slice as complex pairs (an odd trailing value is left out).
fn as_complex<T: Real>(o: &[T]) -> &[Complex<T>] {
    // SAFETY: Complex<T> is repr(C) {re, im} with T's alignment; the
    // length is halved.
    unsafe { std::slice::from_raw_parts(o.as_ptr() as *const Complex<T>, o.len() / 2) }
}

/// An even-length real slice as complex pairs.
fn as_complex_mut<T: Real>(o: &mut [T]) -> &mut [Complex<T>] {
    // SAFETY: Complex<T> is repr(C) {re, im} with T's alignment; the
    // length is halved (an odd trailing value is left out).
    unsafe { std::slice::from_raw_parts_mut(o.as_mut_ptr() as *mut Complex<T>, o.len() / 2) }
}
