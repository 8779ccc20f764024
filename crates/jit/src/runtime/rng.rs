//! `rng` and `rng-bit-generator` as host steps writing straight into the
//! result buffers.
//!
//! `rng` draws from the run's [`RngState`] (created from
//! `RunOptions::seed` at the start of every run, as the evaluator does)
//! with the evaluator's formulas (crates/eval/src/kernels/rng.rs): uniform
//! floats in `[a, b)` (`a` when `b <= a`), uniform integers by Lemire's
//! multiply, normal by Box-Muller in f64, one draw (two for normal) per
//! element in row-major order. The stream therefore equals the
//! evaluator's whenever the rng instructions run in the same order (the
//! plan runs ENTRY in instruction order; fusion may reorder), but only the
//! distribution, bounds and determinism are promised.
//!
//! `rng-bit-generator` is a pure function of its state operand
//! (ThreeFry-2x32-20 or Philox-4x32-10 blocks, the evaluator's
//! `threefry2x32`/`philox4x32`), bit-identical to the evaluator.
//!
//! Values are produced row-major and relayouted into the result layouts
//! (padding filled). No other ops here.

use super::relayout::relayout;
use crate::error::{JitError, Result};
use half::{bf16, f16};
use rxla_eval::kernels::rng::{RngState, bit_stream};
use rxla_ir::{ArrayShape, ElementType, Layout, RngAlgorithm, RngDistribution};

/// A planned `rng`: distribution and result shape (operands are scalars of
/// the result's element type, checked at plan time).
pub struct RngStep {
    pub distribution: RngDistribution,
    pub out: ArrayShape,
}

/// A planned `rng-bit-generator`: state operand, new-state and bits shapes.
pub struct RngBitsStep {
    pub algorithm: RngAlgorithm,
    pub state: ArrayShape,
    pub outs: [ArrayShape; 2],
}

/// `shape` with the default (row-major, unpadded) layout.
fn row_major(shape: &ArrayShape) -> ArrayShape {
    let mut s = shape.clone();
    s.layout = Layout::default_for_rank(s.rank());
    s
}

/// Little-endian bytes of one element, zero-extended to 8.
fn raw(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    let n = b.len().min(8);
    w[..n].copy_from_slice(&b[..n]);
    u64::from_le_bytes(w)
}

/// A float scalar as f64 (the evaluator's `scalar_f64`).
fn scalar_f64(et: ElementType, b: &[u8]) -> f64 {
    let w = raw(b);
    match et {
        ElementType::F16 => f16::from_bits(w as u16).to_f64(),
        ElementType::BF16 => bf16::from_bits(w as u16).to_f64(),
        ElementType::F32 => f32::from_bits(w as u32) as f64,
        ElementType::F64 => f64::from_bits(w),
        _ => 0.0,
    }
}

/// An integer or pred scalar as i128 (the evaluator's `scalar_i128`).
fn scalar_i128(et: ElementType, b: &[u8]) -> i128 {
    let w = raw(b);
    match et {
        ElementType::Pred => i128::from(w as u8 != 0),
        ElementType::S8 => w as u8 as i8 as i128,
        ElementType::S16 => w as u16 as i16 as i128,
        ElementType::S32 => w as u32 as i32 as i128,
        ElementType::S64 => w as i64 as i128,
        _ => w as i128,
    }
}

/// Uniform in [0, 1) with 53 bits.
fn unit_f64(s: &mut RngState) -> f64 {
    (s.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Uniform in [0, 1) with 24 bits.
fn unit_f32(s: &mut RngState) -> f32 {
    (s.next_u64() >> 40) as f32 * (1.0 / (1u32 << 24) as f32)
}

/// A standard normal sample (Box-Muller, cosine branch).
fn normal(s: &mut RngState) -> f64 {
    let u1 = 1.0 - unit_f64(s);
    let u2 = unit_f64(s);
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// Runs `rng(a, b)`: `a`, `b` are the scalar operand buffers.
pub fn rng(step: &RngStep, a: &[u8], b: &[u8], state: &mut RngState, out: &mut [u8]) -> Result<()> {
    let ty = step.out.element_type;
    let e = ty.byte_size();
    if a.len() != e || b.len() != e {
        return Err(JitError::input(format!(
            "rng: parameters must be {ty}[] scalars"
        )));
    }
    let n = step.out.element_count()?;
    let mut bytes: Vec<u8> = Vec::with_capacity(n * e);
    match step.distribution {
        RngDistribution::Uniform if ty.is_float() => {
            let (lo, hi) = (scalar_f64(ty, a), scalar_f64(ty, b));
            if ty == ElementType::F64 {
                for _ in 0..n {
                    let u = unit_f64(state);
                    let v = if hi <= lo {
                        lo
                    } else {
                        (lo + (hi - lo) * u).min(hi.next_down())
                    };
                    bytes.extend_from_slice(&v.to_le_bytes());
                }
            } else {
                let (lo32, hi32) = (lo as f32, hi as f32);
                for _ in 0..n {
                    let u = unit_f32(state);
                    let x = if hi32 <= lo32 {
                        lo32
                    } else {
                        (lo32 + (hi32 - lo32) * u).min(hi32.next_down())
                    };
                    match ty {
                        ElementType::F32 => bytes.extend_from_slice(&x.to_le_bytes()),
                        ElementType::F16 => {
                            let h = f16::from_f32(x);
                            let h = if h.to_f32() >= hi32 && hi32 > lo32 {
                                f16::from_f32(lo32)
                            } else {
                                h
                            };
                            bytes.extend_from_slice(&h.to_bits().to_le_bytes());
                        }
                        _ => {
                            let h = bf16::from_f32(x);
                            let h = if h.to_f32() >= hi32 && hi32 > lo32 {
                                bf16::from_f32(lo32)
                            } else {
                                h
                            };
                            bytes.extend_from_slice(&h.to_bits().to_le_bytes());
                        }
                    }
                }
            }
        }
        RngDistribution::Uniform if ty.is_integer() || ty.is_pred() => {
            let (lo, hi) = (scalar_i128(ty, a), scalar_i128(ty, b));
            for _ in 0..n {
                let bits = state.next_u64();
                let v = if hi <= lo {
                    lo
                } else {
                    lo + ((bits as u128 * (hi - lo) as u128) >> 64) as i128
                };
                let v = if ty.is_pred() { i128::from(v != 0) } else { v };
                // Two's complement truncation to the element width.
                bytes.extend_from_slice(&(v as u64).to_le_bytes()[..e]);
            }
        }
        RngDistribution::Normal if ty.is_float() => {
            let (mu, sigma) = (scalar_f64(ty, a), scalar_f64(ty, b));
            for _ in 0..n {
                let x = mu + sigma * normal(state);
                match ty {
                    ElementType::F64 => bytes.extend_from_slice(&x.to_le_bytes()),
                    ElementType::F32 => bytes.extend_from_slice(&(x as f32).to_le_bytes()),
                    ElementType::F16 => {
                        bytes.extend_from_slice(&f16::from_f64(x).to_bits().to_le_bytes())
                    }
                    _ => bytes.extend_from_slice(&bf16::from_f64(x).to_bits().to_le_bytes()),
                }
            }
        }
        d => {
            return Err(JitError::input(format!(
                "rng: {} is not defined for element type {ty}",
                d.name()
            )));
        }
    }
    relayout(&bytes, &row_major(&step.out), out, &step.out)
}

/// Runs `rng-bit-generator(state)`: the new state into `outs[0]`, the bits
/// into `outs[1]`.
pub fn rng_bits(step: &RngBitsStep, input: &[u8], outs: &mut [&mut [u8]]) -> Result<()> {
    let [new_state, bits_out] = outs else {
        return Err(JitError::input("rng-bit-generator: expected two results"));
    };
    let [ss, bs] = &step.outs;
    if !ss.compatible(&step.state) || !step.state.element_type.is_integer() {
        return Err(JitError::input(format!(
            "rng-bit-generator: state {} / new state {ss} must be equal integer shapes",
            step.state
        )));
    }
    let mut state_bytes =
        vec![0u8; step.state.element_count()? * step.state.element_type.byte_size()];
    relayout(
        input,
        &step.state,
        &mut state_bytes,
        &row_major(&step.state),
    )?;
    let mut words: Vec<u64> = state_bytes.chunks(8).map(raw).collect();
    if words.len() < 2 {
        return Err(JitError::input(format!(
            "rng-bit-generator: state {} has fewer than 128 bits",
            step.state
        )));
    }
    let nbytes = bs
        .element_count()?
        .checked_mul(bs.element_type.byte_size())
        .ok_or_else(|| JitError::input("rng-bit-generator: result size overflows"))?;
    let mut bytes = bit_stream(step.algorithm, &mut words, nbytes);
    if bs.element_type == ElementType::Pred {
        // A pred element is true or false (the evaluator reads bools).
        for b in &mut bytes {
            *b = u8::from(*b != 0);
        }
    }
    let new_bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take(state_bytes.len())
        .collect();
    relayout(&new_bytes, &row_major(ss), new_state, ss)?;
    relayout(&bytes, &row_major(bs), bits_out, bs)
}
