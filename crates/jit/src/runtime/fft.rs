//! `fft` as a host step. The fast path ([`fft_native`](super::fft_native))
//! transforms row-major, unpadded buffers in place in the element type
//! (f32 plans for c64/f32, f64 for c128/f64), with plans made at compile
//! time and scratch kept across calls. Any other layout (column-major,
//! padded), an unaligned buffer or an empty transform runs the
//! evaluator's transform driver (`rxla_eval::kernels::fft::fft_with`:
//! literals, f64 values) with f64 rustfft plans. Results equal the
//! evaluator's within the rounding of the sums (in the element type, see
//! docs/SEMANTICS.md), not bit for bit. An operand holding a non-finite
//! value or one above 2^100 in magnitude (where the order of the sums
//! decides between inf, NaN and a finite residue: the lines of a later
//! dimension then hold such residues too) is transformed by the
//! evaluator's own DFT instead, so such results are the evaluator's bit
//! for bit. Nothing but fft lives here.

use super::fft_native::{Geometry, Plans, Real, Scratch};
use crate::error::{JitError, Result};
use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};
use rxla_eval::kernels::fft::{dft, fft_with};
use rxla_ir::{ArrayData, ArrayLiteral, ArrayShape, Complex64, ElementType, FftType};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Operands whose values all stay within this magnitude (finite, no NaN)
/// go through rustfft; others through the evaluator's DFT.
const TAME: f64 = 1.2676506002282294e30; // 2^100

/// The fast path of one instruction: plans and reusable scratch in the
/// element type.
enum Native {
    F32(Plans<f32>, Mutex<Scratch<f32>>),
    F64(Plans<f64>, Mutex<Scratch<f64>>),
}

/// A planned `fft`: shapes, transform, the native plans when the shapes
/// allow them, and one f64 rustfft plan per (line length, inverse) for the
/// evaluator-driver path.
pub struct FftStep {
    pub operand: ArrayShape,
    pub out: ArrayShape,
    pub fft_type: FftType,
    pub fft_length: Vec<i64>,
    plans: HashMap<(usize, bool), Arc<dyn Fft<f64>>>,
    native: Option<(Geometry, Native)>,
}

/// The geometry and part type of the native path, when the shapes are
/// row-major, unpadded, static, non-empty and typed as XLA requires.
fn native_geometry(
    operand: &ArrayShape,
    out: &ArrayShape,
    fft_type: FftType,
    fft_length: &[i64],
) -> Option<(Geometry, bool)> {
    use ElementType::*;
    let wide = match (fft_type, operand.element_type, out.element_type) {
        (FftType::Fft | FftType::Ifft, C64, C64) | (FftType::Rfft, F32, C64) => false,
        (FftType::Irfft, C64, F32) => false,
        (FftType::Fft | FftType::Ifft, C128, C128) | (FftType::Rfft, F64, C128) => true,
        (FftType::Irfft, C128, F64) => true,
        _ => return None,
    };
    let plain = |s: &ArrayShape| s.layout.is_default() && s.dynamic.is_static();
    let k = fft_length.len();
    let rank = operand.rank();
    if !plain(operand) || !plain(out) || !(1..=3).contains(&k) || rank < k || out.rank() != rank {
        return None;
    }
    let lengths: Vec<usize> = fft_length
        .iter()
        .map(|&n| usize::try_from(n).ok().filter(|&n| n > 0))
        .collect::<Option<_>>()?;
    let lead = rank - k;
    let dims = |s: &ArrayShape| -> Option<Vec<usize>> {
        s.dims.iter().map(|&d| usize::try_from(d).ok()).collect()
    };
    let (in_dims, out_dims) = (dims(operand)?, dims(out)?);
    let mut want_in: Vec<usize> = in_dims[..lead].to_vec();
    want_in.extend(&lengths);
    let mut want_out = want_in.clone();
    let half = lengths[k - 1] / 2 + 1;
    match fft_type {
        FftType::Rfft => want_out[rank - 1] = half,
        FftType::Irfft => want_in[rank - 1] = half,
        _ => {}
    }
    let batch: usize = in_dims[..lead].iter().product();
    (in_dims == want_in && out_dims == want_out && batch > 0)
        .then_some((Geometry { batch, lengths }, wide))
}

impl FftStep {
    /// Plans the transforms of every length in `fft_length` (both
    /// directions: IRFFT's last dimension runs inverse, RFFT forward).
    pub fn new(
        operand: ArrayShape,
        out: ArrayShape,
        fft_type: FftType,
        fft_length: Vec<i64>,
    ) -> FftStep {
        let mut planner = FftPlanner::<f64>::new();
        let mut plans = HashMap::new();
        let inverse = matches!(fft_type, FftType::Ifft | FftType::Irfft);
        for &n in &fft_length {
            let n = n.max(0) as usize;
            if n > 1 {
                plans.entry((n, inverse)).or_insert_with(|| {
                    if inverse {
                        planner.plan_fft_inverse(n)
                    } else {
                        planner.plan_fft_forward(n)
                    }
                });
            }
        }
        let native = native_geometry(&operand, &out, fft_type, &fft_length).map(|(g, wide)| {
            let n = if wide {
                Native::F64(Plans::new(&g, fft_type), Mutex::default())
            } else {
                Native::F32(Plans::new(&g, fft_type), Mutex::default())
            };
            (g, n)
        });
        FftStep {
            operand,
            out,
            fft_type,
            fft_length,
            plans,
            native,
        }
    }
}

/// Whether every value (every part) is finite and at most [`TAME`] in
/// magnitude.
fn tame(d: &ArrayData) -> bool {
    let ok = |x: f64| x.abs() <= TAME;
    match d {
        ArrayData::F32(v) => v.iter().all(|&x| ok(x as f64)),
        ArrayData::F64(v) => v.iter().all(|&x| ok(x)),
        ArrayData::C64(v) => v.iter().all(|z| ok(z.re as f64) && ok(z.im as f64)),
        ArrayData::C128(v) => v.iter().all(|z| ok(z.re) && ok(z.im)),
        _ => false,
    }
}

/// Whether every part is finite and at most [`TAME`] in magnitude (a
/// branch-free fold, so it vectorizes).
fn tame_parts<T: Real>(v: &[T]) -> bool {
    let lim = T::from_f64(TAME).unwrap_or_else(T::max_value);
    v.chunks(256)
        .all(|c| c.iter().fold(true, |ok, &x| ok & (x.abs() <= lim)))
}

/// `bytes` as a slice of `U` when aligned and sized for it.
fn cast<U>(bytes: &[u8]) -> Option<&[U]> {
    // SAFETY: only plain float and complex-of-float types are asked for
    // (every bit pattern valid); the middle part is aligned.
    let (pre, mid, post) = unsafe { bytes.align_to::<U>() };
    (pre.is_empty() && post.is_empty()).then_some(mid)
}

fn cast_mut<U>(bytes: &mut [u8]) -> Option<&mut [U]> {
    // SAFETY: as `cast`.
    let (pre, mid, post) = unsafe { bytes.align_to_mut::<U>() };
    (pre.is_empty() && post.is_empty()).then_some(mid)
}

/// The native transform in `T`; `Some(false)` when the operand is not
/// tame, `None` when a buffer does not fit.
fn run_native<T: Real>(
    g: &Geometry,
    plans: &Plans<T>,
    scratch: &Mutex<Scratch<T>>,
    fft_type: FftType,
    input: &[u8],
    out: &mut [u8],
) -> Option<bool> {
    let parts: &[T] = cast(input)?;
    if !tame_parts(parts) {
        return Some(false);
    }
    let n_in: usize = g.batch * g.lengths.iter().product::<usize>();
    let half = g.lengths[g.lengths.len() - 1] / 2 + 1;
    let n_spec = n_in / g.lengths[g.lengths.len() - 1] * half;
    let mut guard = scratch.lock().unwrap_or_else(|e| e.into_inner());
    let s = &mut *guard;
    match fft_type {
        FftType::Fft | FftType::Ifft => {
            let x: &[Complex<T>] = cast(input)?;
            let o: &mut [Complex<T>] = cast_mut(out)?;
            if x.len() != n_in || o.len() != n_in {
                return None;
            }
            plans.complex(g, fft_type == FftType::Ifft, x, o, s);
        }
        FftType::Rfft => {
            let o: &mut [Complex<T>] = cast_mut(out)?;
            if parts.len() != n_in || o.len() != n_spec {
                return None;
            }
            plans.rfft(g, parts, o, s);
        }
        FftType::Irfft => {
            let x: &[Complex<T>] = cast(input)?;
            let o: &mut [T] = cast_mut(out)?;
            if x.len() != n_spec || o.len() != n_in {
                return None;
            }
            plans.irfft(g, x, o, s);
        }
    }
    Some(true)
}

/// Runs the step on the operand's physical buffer into the result's.
pub fn fft(step: &FftStep, input: &[u8], out: &mut [u8]) -> Result<()> {
    if let Some((g, native)) = &step.native {
        let done = match native {
            Native::F32(p, s) => run_native(g, p, s, step.fft_type, input, out),
            Native::F64(p, s) => run_native(g, p, s, step.fft_type, input, out),
        };
        if done == Some(true) {
            return Ok(());
        }
    }
    let x = ArrayLiteral::from_physical_bytes(step.operand.clone(), input)?;
    let tame = tame(&x.data);
    let mut line = |v: &mut [Complex64], inverse: bool| match step.plans.get(&(v.len(), inverse)) {
        Some(p) if tame => p.process(v),
        _ => dft(v, inverse),
    };
    let r = fft_with(&x, step.fft_type, &step.fft_length, &step.out, &mut line)?;
    let bytes = r.to_physical_bytes()?;
    if bytes.len() != out.len() {
        return Err(JitError::input(format!(
            "fft result has {} bytes, buffer {}",
            bytes.len(),
            out.len()
        )));
    }
    out.copy_from_slice(&bytes);
    Ok(())
}
