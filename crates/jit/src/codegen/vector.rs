//! F32X4 element arithmetic (Cranelift's x64 backend has 128-bit vectors
//! only). Pred values are I32X4 lane masks. Same semantics as `scalar`:
//! NaN-propagating max/min returning the NaN operand, IEEE compares.
//! Transcendentals are inline approximations (`approx`); only the float
//! remainder (fmod) still runs a host function lane by lane.

use super::approx::minmax;
use super::emit::{Emitter, le};
use super::scalar;
use crate::error::{JitError, Result};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::types::{F32, F32X4, I32X4};
use cranelift_codegen::ir::{InstBuilder, Value};
use rxla_ir::{BinaryOp, ComparisonDirection, ComparisonType, ElementType, UnaryOp};

/// A scalar broadcast to all lanes (pred becomes a lane mask).
pub fn splat(em: &mut Emitter, v: Value, et: ElementType) -> Result<Value> {
    match et {
        // Halves are held as f32.
        ElementType::F32 | ElementType::F16 | ElementType::BF16 => Ok(em.b.ins().splat(F32X4, v)),
        ElementType::S32 | ElementType::U32 => Ok(super::ivector::splat(em, v)),
        // Narrow integers: the scalar (i8/i16) extended to its lane form.
        t if super::ivector::is_int_lane(t) => {
            let i32t = cranelift_codegen::ir::types::I32;
            let w = if t.is_signed_int() {
                em.b.ins().sextend(i32t, v)
            } else {
                em.b.ins().uextend(i32t, v)
            };
            Ok(super::ivector::splat(em, w))
        }
        ElementType::Pred => {
            let w = em.b.ins().sextend(cranelift_codegen::ir::types::I32, v);
            let neg = em.b.ins().ineg(w);
            Ok(em.b.ins().splat(I32X4, neg))
        }
        other => Err(JitError::unsupported(format!("vector splat of {other}"))),
    }
}

/// `select` with a lane mask.
pub fn select_mask(em: &mut Emitter, mask: Value, t: Value, f: Value) -> Value {
    let ty = em.b.func.dfg.value_type(t);
    let m = if ty == em.b.func.dfg.value_type(mask) {
        mask
    } else {
        em.b.ins().bitcast(ty, le(), mask)
    };
    em.b.ins().bitselect(m, t, f)
}

/// The f32 constant of `v` when it is one (a pool load or a splat).
fn const_splat(em: &Emitter, v: Value) -> Option<f32> {
    em.splat_constant(v).map(f32::from_bits)
}

fn nan_mask(em: &mut Emitter, x: Value) -> Value {
    let m = em.b.ins().fcmp(FloatCC::Unordered, x, x);
    em.b.ins().bitcast(F32X4, le(), m)
}

/// A host function applied lane by lane (interim path for functions
/// without an inline approximation).
fn per_lane(em: &mut Emitter, name: &'static str, args: &[Value]) -> Result<Value> {
    let mut out = em.b.ins().f32const(0.0);
    out = em.b.ins().splat(F32X4, out);
    for lane in 0..4u8 {
        let a: Vec<Value> = args
            .iter()
            .map(|&v| em.b.ins().extractlane(v, lane))
            .collect();
        let r = em.call(name, &a)?;
        out = em.b.ins().insertlane(out, r, lane);
    }
    Ok(out)
}

/// round-nearest-afz: trunc(x), plus ±1 when the dropped fraction
/// (exact) is at least ½ (NaN, ±inf, ±0 pass through).
pub fn round_afz(em: &mut Emitter, x: Value) -> Value {
    let t = em.b.ins().trunc(x);
    let d = em.b.ins().fsub(x, t);
    let d = em.b.ins().fabs(d);
    let half = em.b.ins().f32const(0.5);
    let half = em.b.ins().splat(F32X4, half);
    let ge = em.b.ins().fcmp(FloatCC::GreaterThanOrEqual, d, half);
    let ge = em.b.ins().bitcast(F32X4, le(), ge);
    let one = em.b.ins().f32const(1.0);
    let one = em.b.ins().splat(F32X4, one);
    let zero = em.b.ins().f32const(0.0);
    let zero = em.b.ins().splat(F32X4, zero);
    let step = em.b.ins().bitselect(ge, one, zero);
    let step = super::approx::copysign(em, step, x);
    // t + ±0 keeps t's sign for t = ±0 (x in (−½, ½) keeps x's sign).
    em.b.ins().fadd(t, step)
}

pub fn unary(em: &mut Emitter, op: UnaryOp, x: Value) -> Result<Value> {
    if em.b.func.dfg.value_type(x) == I32X4 {
        return match op {
            UnaryOp::Not => Ok(em.b.ins().bnot(x)),
            _ => Err(JitError::unsupported(format!(
                "vector {} on pred",
                op.name()
            ))),
        };
    }
    if let Some(v) = super::approx::unary(em, op, x)? {
        return Ok(v);
    }
    Ok(match op {
        UnaryOp::Negate => em.b.ins().fneg(x),
        UnaryOp::Abs => super::approx::abs(em, x),
        UnaryOp::Floor => em.b.ins().floor(x),
        UnaryOp::Ceil => em.b.ins().ceil(x),
        UnaryOp::RoundNearestEven => em.b.ins().nearest(x),
        UnaryOp::Sqrt => em.b.ins().sqrt(x),
        UnaryOp::Rsqrt => {
            let s = em.b.ins().sqrt(x);
            let one = em.b.ins().f32const(1.0);
            let one = em.b.ins().splat(F32X4, one);
            em.b.ins().fdiv(one, s)
        }
        UnaryOp::IsFinite => {
            let a = em.b.ins().fabs(x);
            let inf = em.b.ins().f32const(f32::INFINITY);
            let inf = em.b.ins().splat(F32X4, inf);
            em.b.ins().fcmp(FloatCC::LessThan, a, inf)
        }
        UnaryOp::RoundNearestAfz => round_afz(em, x),
        _ => return Err(JitError::unsupported(format!("vector {}", op.name()))),
    })
}

pub fn binary(em: &mut Emitter, op: BinaryOp, x: Value, y: Value) -> Result<Value> {
    if em.b.func.dfg.value_type(x) == I32X4 {
        return Ok(match op {
            BinaryOp::And | BinaryOp::Minimum => em.b.ins().band(x, y),
            BinaryOp::Or | BinaryOp::Maximum => em.b.ins().bor(x, y),
            BinaryOp::Xor => em.b.ins().bxor(x, y),
            _ => {
                return Err(JitError::unsupported(format!(
                    "vector {} on pred",
                    op.name()
                )));
            }
        });
    }
    if em.b.func.dfg.value_type(x) != F32X4 {
        return Err(JitError::codegen("vector binary on a non-vector value"));
    }
    Ok(match op {
        BinaryOp::Add => em.b.ins().fadd(x, y),
        BinaryOp::Subtract => em.b.ins().fsub(x, y),
        BinaryOp::Multiply => em.b.ins().fmul(x, y),
        BinaryOp::Divide => em.b.ins().fdiv(x, y),
        BinaryOp::Maximum | BinaryOp::Minimum
            if [y, x]
                .iter()
                .any(|&v| const_splat(em, v).is_some_and(|c| !c.is_nan())) =>
        {
            let max = op == BinaryOp::Maximum;
            // The evaluator's max/min is symmetric but for NaN (the first
            // NaN operand comes out) and ties of ±0 (their bits combined),
            // so a constant first operand (jax's `clip`) is handled as a
            // second one: with no NaN constant, the other operand's NaN is
            // the only one.
            let (x, y) = if const_splat(em, y).is_some_and(|c| !c.is_nan()) {
                (x, y)
            } else {
                (y, x)
            };
            let c = const_splat(em, y).unwrap_or(0.0);
            // Against a constant that is not NaN: one maxps/minps. Equal
            // values have the same bits unless they are ±0, so the operand
            // order only matters there: x wins ties when it is the zero
            // the evaluator picks (max: c = +0 and x = +0/-0 → +0, done by
            // `x > c ? x : c` returning c; min: c = -0, likewise), and a
            // NaN x must come out (x86 returns the second operand).
            let cc_first = if max {
                c != 0.0 || c.is_sign_negative()
            } else {
                c != 0.0 || c.is_sign_positive()
            };
            if cc_first {
                // `c ⊕ x`: ties and NaN give x.
                minmax(em, max, y, x)
            } else {
                // `x ⊕ c`: ties give c (the right zero); NaN x put back.
                let m = minmax(em, max, x, y);
                let xn = nan_mask(em, x);
                em.b.ins().bitselect(xn, x, m)
            }
        }
        BinaryOp::Maximum | BinaryOp::Minimum => {
            // maxps/minps(x, y): x if it wins, else y (ties and a NaN y
            // give y); equal values then combine their bits so that
            // max(-0,+0) = +0 (and) and min(-0,+0) = -0 (or); a NaN x is
            // put back. One blend.
            let max = op == BinaryOp::Maximum;
            let m = minmax(em, max, x, y);
            let m = if max {
                // m & (x != y ? all ones : x); NaN compares unequal.
                let ne = em.b.ins().fcmp(FloatCC::NotEqual, x, y);
                let ne = em.b.ins().bitcast(F32X4, le(), ne);
                let keep = em.b.ins().bor(ne, x);
                em.b.ins().band(m, keep)
            } else {
                // m | (x == y ? x : 0).
                let eq = em.b.ins().fcmp(FloatCC::Equal, x, y);
                let eq = em.b.ins().bitcast(F32X4, le(), eq);
                let add = em.b.ins().band(eq, x);
                em.b.ins().bor(m, add)
            };
            let xn = nan_mask(em, x);
            em.b.ins().bitselect(xn, x, m)
        }
        BinaryOp::Remainder => per_lane(em, "rx_fmodf", &[x, y])?,
        BinaryOp::Power | BinaryOp::Atan2 => match super::approx::binary(em, op, x, y)? {
            Some(v) => v,
            None => return Err(JitError::codegen("no inline power/atan2")),
        },
        _ => return Err(JitError::unsupported(format!("vector {}", op.name()))),
    })
}

/// `convert` between f32 and pred lanes (pred is an I32X4 lane mask):
/// `x != 0` (NaN is true), and 1.0 / 0.0. Integer lanes are `ivector`'s.
pub fn convert(em: &mut Emitter, from: ElementType, to: ElementType, x: Value) -> Result<Value> {
    match (from, to) {
        (ElementType::F32, ElementType::Pred) => {
            let z = em.vconst(0.0);
            Ok(em.b.ins().fcmp(FloatCC::NotEqual, x, z))
        }
        (ElementType::Pred, ElementType::F32) => {
            let one = em.vconst(1.0);
            let zero = em.vconst(0.0);
            Ok(select_mask(em, x, one, zero))
        }
        _ => Err(JitError::unsupported(format!(
            "vector convert {from} to {to}"
        ))),
    }
}

pub fn compare(
    em: &mut Emitter,
    dir: ComparisonDirection,
    kind: Option<ComparisonType>,
    a: Value,
    b: Value,
) -> Result<Value> {
    if kind == Some(ComparisonType::TotalOrder) {
        return Err(JitError::unsupported("vector total-order compare"));
    }
    let cc = match dir {
        ComparisonDirection::Eq => FloatCC::Equal,
        ComparisonDirection::Ne => FloatCC::NotEqual,
        ComparisonDirection::Lt => FloatCC::LessThan,
        ComparisonDirection::Le => FloatCC::LessThanOrEqual,
        ComparisonDirection::Gt => FloatCC::GreaterThan,
        ComparisonDirection::Ge => FloatCC::GreaterThanOrEqual,
    };
    let _ = F32;
    Ok(em.b.ins().fcmp(cc, a, b))
}

impl Emitter<'_, '_> {
    /// A binary op on F32X4 lanes (`vector`) or on scalars of type `et`.
    pub fn binary(
        &mut self,
        op: BinaryOp,
        et: ElementType,
        a: Value,
        b: Value,
        vector: bool,
    ) -> Result<Value> {
        if vector && super::ivector::is_int_lane(et) {
            super::ivector::binary(self, op, et, a, b)
        } else if vector {
            binary(self, op, a, b)
        } else {
            scalar::binary(self, op, et, a, b)
        }
    }
}
