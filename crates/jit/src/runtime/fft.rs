//! `fft` as a host step: the evaluator's transform driver
//! (`rxla_eval::kernels::fft::fft_with`: separable 1-D transforms on f64
//! complex values, 1/n scaling of inverses, RFFT truncation, IRFFT's
//! Hermitian rebuild) with `rustfft`'s O(n log n) transforms planned at
//! compile time for every line length the instruction needs, instead of
//! the evaluator's O(n²) DFT. Operand and result are read from and written
//! to their physical buffers (any layout, padding filled). Results equal
//! the evaluator's within floating-point rounding of the sums, not bit for
//! bit. An operand holding a non-finite value or one above 2^100 in
//! magnitude (where the order of the sums decides between inf, NaN and a
//! finite residue: the lines of a later dimension then hold such residues
//! too) is transformed by the evaluator's own DFT instead, so such results
//! are the evaluator's bit for bit. Nothing but fft lives here.

use crate::error::{JitError, Result};
use rustfft::{Fft, FftPlanner};
use rxla_eval::kernels::fft::{dft, fft_with};
use rxla_ir::{ArrayData, ArrayLiteral, ArrayShape, Complex64, FftType};
use std::collections::HashMap;
use std::sync::Arc;

/// Operands whose values all stay within this magnitude (finite, no NaN)
/// go through rustfft; others through the evaluator's DFT.
const TAME: f64 = 1.2676506002282294e30; // 2^100

/// A planned `fft`: shapes, transform, and one rustfft plan per (line
/// length, inverse).
pub struct FftStep {
    pub operand: ArrayShape,
    pub out: ArrayShape,
    pub fft_type: FftType,
    pub fft_length: Vec<i64>,
    plans: HashMap<(usize, bool), Arc<dyn Fft<f64>>>,
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
        FftStep {
            operand,
            out,
            fft_type,
            fft_length,
            plans,
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

/// Runs the step on the operand's physical buffer into the result's.
pub fn fft(step: &FftStep, input: &[u8], out: &mut [u8]) -> Result<()> {
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
