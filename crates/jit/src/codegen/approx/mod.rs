//! Inline vectorized approximations of the f32 transcendental functions
//! (F32X4 lanes): range reduction plus polynomial, no calls to host
//! functions. Scalar f32 runs the same code on lane 0 of a splat, so a
//! vector body and its scalar remainder agree bit for bit. The maximum
//! error of each function against the evaluator is measured by
//! `crates/jit/tests/ulp.rs` (about a million f32 inputs per function) and
//! documented in docs/SEMANTICS.md. This module must not
//! change the special-value behaviour of the evaluator's definitions
//! (NaN, ±0, ±inf, overflow and underflow come out as the evaluator's).
//!
//! One file per family: `exp` (exp, expm1, tanh, logistic), `log` (log,
//! log1p), `trig` (sin, cos, tan; Payne–Hanek for huge arguments),
//! `atan` (atan2), `pow` (pow and cbrt, computed in f64 lanes), `erf`.
//! `lanes` holds the helpers they share (constants, masks, polynomials)
//! and uses none of them; this file picks the approximation for an op.

// The coefficients are quoted as computed (digits beyond f32 included).
#![allow(clippy::excessive_precision)]

mod atan;
pub(crate) mod erf;
pub(crate) mod exp;
mod lanes;
pub(crate) mod log;
mod pow;
mod trig;

use super::emit::Emitter;
use crate::error::Result;
use cranelift_codegen::ir::types::F32X4;
use cranelift_codegen::ir::{InstBuilder, Value};
pub(crate) use lanes::{INVALID_NAN, abs, copysign, minmax};
use rxla_ir::{BinaryOp, UnaryOp};
use std::sync::OnceLock;

/// The F32X4 splat constants [`warm`] makes, in first-use order: recorded
/// the first time it runs the approximations (what they make does not
/// depend on the kernel), replayed after that.
static WARM_CONSTANTS: OnceLock<Vec<u32>> = OnceLock::new();

/// Makes the constants of every approximation now (before a loop), so
/// the loop body reuses them; unused ones are never lowered. Only the
/// first call in a process emits the approximations themselves (about 600
/// dead instructions that Cranelift would verify and scan in every vector
/// loop of every kernel); later calls make just their constants, which is
/// all a loop body can reuse.
pub fn warm(em: &mut Emitter) {
    if let Some(bits) = WARM_CONSTANTS.get() {
        for &b in bits {
            em.vconst(f32::from_bits(b));
        }
        return;
    }
    em.warm_log = Some(Vec::new());
    let x = em.vconst(0.0);
    // Straight-line code only (exp's fast-path branch is not emitted).
    em.warming = true;
    let _ = exp::exp(em, x);
    let _ = exp::tanh(em, x);
    let _ = exp::expm1(em, x);
    let _ = log::log(em, x);
    let _ = log::log1p(em, x);
    let _ = trig::warm(em, x);
    let _ = atan::atan2(em, x, x);
    let _ = erf::erf(em, x);
    em.warming = false;
    let mut made = em.warm_log.take().unwrap_or_default();
    let mut seen = std::collections::HashSet::new();
    made.retain(|b| seen.insert(*b));
    let _ = WARM_CONSTANTS.set(made);
}

/// Whether `op` on f32 has an inline approximation (or exact inline code).
pub fn has_unary(op: UnaryOp) -> bool {
    matches!(
        op,
        UnaryOp::Exp
            | UnaryOp::Expm1
            | UnaryOp::Tanh
            | UnaryOp::Logistic
            | UnaryOp::Log
            | UnaryOp::Log1p
            | UnaryOp::Sin
            | UnaryOp::Cos
            | UnaryOp::Tan
            | UnaryOp::Cbrt
            | UnaryOp::Erf
    )
}

/// The inline F32X4 approximation of `op` applied to `x`, if there is one.
pub fn unary(em: &mut Emitter, op: UnaryOp, x: Value) -> Result<Option<Value>> {
    Ok(Some(match op {
        UnaryOp::Exp => exp::exp(em, x),
        UnaryOp::Expm1 => exp::expm1(em, x),
        UnaryOp::Tanh => exp::tanh(em, x),
        UnaryOp::Logistic => exp::logistic(em, x),
        UnaryOp::Log => log::log(em, x),
        UnaryOp::Log1p => log::log1p(em, x),
        UnaryOp::Sin => trig::sin(em, x),
        UnaryOp::Cos => trig::cos(em, x),
        UnaryOp::Tan => trig::tan(em, x),
        UnaryOp::Cbrt => pow::cbrt(em, x),
        UnaryOp::Erf => erf::erf(em, x),
        _ => return Ok(None),
    }))
}

/// The inline F32X4 version of a binary `op`, if there is one.
pub fn binary(em: &mut Emitter, op: BinaryOp, x: Value, y: Value) -> Result<Option<Value>> {
    Ok(Some(match op {
        BinaryOp::Power => pow::pow(em, x, y),
        BinaryOp::Atan2 => atan::atan2(em, x, y),
        _ => return Ok(None),
    }))
}

/// The same approximation on one f32 (lane 0 of a splat), when there is one.
pub fn scalar_f32(em: &mut Emitter, op: UnaryOp, x: Value) -> Result<Option<Value>> {
    if !has_unary(op) {
        return Ok(None);
    }
    let v = em.b.ins().splat(F32X4, x);
    let r = unary(em, op, v)?;
    Ok(r.map(|r| em.b.ins().extractlane(r, 0)))
}

/// A binary approximation on one f32 pair (lane 0), when there is one.
pub fn scalar_f32_binary(
    em: &mut Emitter,
    op: BinaryOp,
    x: Value,
    y: Value,
) -> Result<Option<Value>> {
    if !matches!(op, BinaryOp::Power | BinaryOp::Atan2) {
        return Ok(None);
    }
    let a = em.b.ins().splat(F32X4, x);
    let b = em.b.ins().splat(F32X4, y);
    let r = binary(em, op, a, b)?;
    Ok(r.map(|r| em.b.ins().extractlane(r, 0)))
}
