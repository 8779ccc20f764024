//! `fft`: XLA's FFT, IFFT, RFFT and IRFFT over the 1 to 3 trailing
//! dimensions named by `fft_length`. The transform is separable: a 1-D
//! transform along each transformed dimension in turn (last first), on
//! f64 complex values whatever the operand type, rounded once to the
//! result type at the end. Inverse transforms are scaled by 1/n per
//! dimension (1/N overall, as XLA). IRFFT rebuilds each last-dimension
//! line's Hermitian spectrum (X[N-k] = conj X[k]; the imaginary parts of
//! X[0] and, for even N, X[N/2] are ignored, as numpy and XLA do) and
//! keeps the real part of its inverse transform.
//!
//! The 1-D transform is a parameter: the evaluator passes [`dft`], a plain
//! O(n²) DFT accumulated in f64 (the oracle); the JIT passes an FFT
//! library's. This module must not panic on bad shapes: every size is
//! checked against the result shape first.

use super::util::make_array;
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayData, ArrayLiteral, ArrayShape, Complex32, Complex64, ElementType, FftType};

/// A 1-D transform of `line` in place: forward (e^{-2πikn/N}) or inverse
/// (e^{+2πikn/N}), both unscaled.
pub type LineTransform<'a> = dyn FnMut(&mut [Complex64], bool) + 'a;

/// The plain DFT: `out[k] = Σ_n x[n]·e^{∓2πi·(k·n mod N)/N}`, summed in
/// f64 in increasing n. The angle uses `k·n mod N`, so large indices
/// keep full precision; multiples of a quarter turn are exact.
pub fn dft(line: &mut [Complex64], inverse: bool) {
    let n = line.len();
    if n <= 1 {
        return;
    }
    let sign = if inverse { 1.0 } else { -1.0 };
    let step = sign * 2.0 * std::f64::consts::PI / n as f64;
    let twiddle: Vec<Complex64> = (0..n)
        .map(|j| {
            // Quarter turns are exact (cos(π/2) would be 6.1e-17, which
            // times inf is inf instead of the exact product's NaN or 0).
            if (4 * j).is_multiple_of(n) {
                let q = 4 * j / n;
                let s = if inverse { 1.0 } else { -1.0 };
                return [
                    Complex64::new(1.0, 0.0),
                    Complex64::new(0.0, s),
                    Complex64::new(-1.0, 0.0),
                    Complex64::new(0.0, -s),
                ][q];
            }
            let a = step * j as f64;
            Complex64::new(a.cos(), a.sin())
        })
        .collect();
    let x = line.to_vec();
    for (k, out) in line.iter_mut().enumerate() {
        let mut acc = Complex64::new(0.0, 0.0);
        let mut j = 0usize;
        for &v in &x {
            acc += v * twiddle[j];
            j += k;
            if j >= n {
                j %= n;
            }
        }
        *out = acc;
    }
}

/// Applies `f` along `axis` of row-major `data` of `dims` (every line,
/// scaled by 1/len when `inverse`).
fn along(
    data: &mut [Complex64],
    dims: &[usize],
    axis: usize,
    inverse: bool,
    f: &mut LineTransform<'_>,
) {
    let n = dims[axis];
    if n == 0 || data.is_empty() {
        return;
    }
    let inner: usize = dims[axis + 1..].iter().product();
    let outer = data.len() / (n * inner);
    let scale = 1.0 / n as f64;
    let mut line = vec![Complex64::new(0.0, 0.0); n];
    for o in 0..outer {
        for i in 0..inner {
            let base = o * n * inner + i;
            for (k, v) in line.iter_mut().enumerate() {
                *v = data[base + k * inner];
            }
            f(&mut line, inverse);
            for (k, v) in line.iter().enumerate() {
                data[base + k * inner] = if inverse { *v * scale } else { *v };
            }
        }
    }
}

fn to_c128(d: &ArrayData) -> Result<Vec<Complex64>> {
    Ok(match d {
        ArrayData::C64(v) => v
            .iter()
            .map(|z| Complex64::new(z.re as f64, z.im as f64))
            .collect(),
        ArrayData::C128(v) => v.clone(),
        ArrayData::F32(v) => v.iter().map(|&x| Complex64::new(x as f64, 0.0)).collect(),
        ArrayData::F64(v) => v.iter().map(|&x| Complex64::new(x, 0.0)).collect(),
        other => {
            return Err(EvalError::new(format!(
                "fft of {} data (needs f32, f64, c64 or c128)",
                other.element_type()
            )));
        }
    })
}

fn dims_of(s: &ArrayShape) -> Vec<usize> {
    s.dims.iter().map(|&d| d.max(0) as usize).collect()
}

/// `fft(x), fft_type, fft_length` into the result shape `out`, with `f`
/// as the 1-D transform.
pub fn fft_with(
    x: &ArrayLiteral,
    fft_type: FftType,
    fft_length: &[i64],
    out: &ArrayShape,
    f: &mut LineTransform<'_>,
) -> Result<ArrayLiteral> {
    let bad = |why: String| EvalError::new(format!("fft ({}): {why}", fft_type.name()));
    let k = fft_length.len();
    let rank = x.shape.rank();
    if !(1..=3).contains(&k) || rank < k || out.rank() != rank {
        return Err(bad(format!(
            "fft_length {fft_length:?} does not fit operand {} and result {out}",
            x.shape
        )));
    }
    let lead = rank - k;
    let in_dims = dims_of(&x.shape);
    let out_dims = dims_of(out);
    let lengths: Vec<usize> = fft_length.iter().map(|&n| n.max(0) as usize).collect();
    let last = lengths[k - 1];
    let half = if last == 0 { 0 } else { last / 2 + 1 };
    // The dims this transform needs, checked before any indexing.
    let mut want_in: Vec<usize> = in_dims[..lead].to_vec();
    want_in.extend(&lengths);
    let mut want_out = want_in.clone();
    match fft_type {
        FftType::Rfft => want_out[rank - 1] = half,
        FftType::Irfft => want_in[rank - 1] = half,
        _ => {}
    }
    if in_dims != want_in || out_dims != want_out {
        return Err(bad(format!(
            "operand {} and result {out} do not match fft_length {fft_length:?}",
            x.shape
        )));
    }
    let mut data = to_c128(&x.data)?;
    let inverse = matches!(fft_type, FftType::Ifft | FftType::Irfft);
    let result: Vec<Complex64> = match fft_type {
        FftType::Fft | FftType::Ifft | FftType::Rfft => {
            for axis in (lead..rank).rev() {
                along(&mut data, &in_dims, axis, inverse, f);
            }
            if fft_type == FftType::Rfft {
                // Keep the first n/2+1 entries of each last-dim line.
                let n = in_dims[rank - 1];
                let mut kept = Vec::with_capacity(data.len() / n.max(1) * half);
                if n > 0 {
                    for line in data.chunks_exact(n) {
                        kept.extend_from_slice(&line[..half]);
                    }
                }
                kept
            } else {
                data
            }
        }
        FftType::Irfft => {
            // The leading transformed dims first (complex inverse), then
            // each last-dim line: Hermitian spectrum → inverse → real.
            for axis in (lead..rank - 1).rev() {
                along(&mut data, &in_dims, axis, true, f);
            }
            let n = last;
            let mut full = Vec::with_capacity(data.len() / half.max(1) * n);
            if half > 0 {
                let mut line = vec![Complex64::new(0.0, 0.0); n];
                for spec in data.chunks_exact(half) {
                    for (j, v) in line.iter_mut().enumerate() {
                        *v = if j < half {
                            spec[j]
                        } else {
                            spec[n - j].conj()
                        };
                    }
                    line[0].im = 0.0;
                    if n.is_multiple_of(2) {
                        line[n / 2].im = 0.0;
                    }
                    f(&mut line, true);
                    let scale = 1.0 / n as f64;
                    full.extend(line.iter().map(|v| Complex64::new(v.re * scale, 0.0)));
                }
            }
            full
        }
    };
    let data = match out.element_type {
        ElementType::C64 => ArrayData::C64(
            result
                .iter()
                .map(|z| Complex32::new(z.re as f32, z.im as f32))
                .collect(),
        ),
        ElementType::C128 => ArrayData::C128(result),
        ElementType::F32 => ArrayData::F32(result.iter().map(|z| z.re as f32).collect()),
        ElementType::F64 => ArrayData::F64(result.iter().map(|z| z.re).collect()),
        t => {
            return Err(bad(format!(
                "result type {t} (needs f32, f64, c64 or c128)"
            )));
        }
    };
    make_array(out, data)
}

/// The evaluator's `fft`: [`fft_with`] and the plain [`dft`].
pub fn fft(
    x: &ArrayLiteral,
    fft_type: FftType,
    fft_length: &[i64],
    out: &ArrayShape,
) -> Result<ArrayLiteral> {
    fft_with(x, fft_type, fft_length, out, &mut dft)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dft_of_an_impulse_and_back() {
        let mut v = vec![Complex64::new(0.0, 0.0); 5];
        v[1] = Complex64::new(1.0, 0.0);
        dft(&mut v, false);
        // X[k] = e^{-2πik/5}
        for (k, z) in v.iter().enumerate() {
            let a = -2.0 * std::f64::consts::PI * k as f64 / 5.0;
            assert!((z.re - a.cos()).abs() < 1e-15 && (z.im - a.sin()).abs() < 1e-15);
        }
        dft(&mut v, true);
        assert!((v[1].re - 5.0).abs() < 1e-14 && v[0].norm() < 1e-14);
    }
}
