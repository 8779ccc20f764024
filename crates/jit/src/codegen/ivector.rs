//! Integer lanes in vector kernels: s32 and u32 values as I32X4 (jax's
//! PRNG, hashing, `view(int32)` bit tricks, integer index arithmetic),
//! with exactly the evaluator's semantics: wrapping add/sub/mul, shifts
//! by a constant amount (an amount of 32 or more gives 0, or the sign for
//! an arithmetic right shift), signed or unsigned min/max, not, negate,
//! abs, converts to and from f32 and pred, same-width bitcasts.
//!
//! s8/u8/s16/u16 (quantized models: `convert(round(x * scale))` to s8,
//! dequantizing converts back) run in the same I32X4 lanes, each lane
//! holding its value sign- or zero-extended from the type's width
//! ([`canonical`]): every wrapping op re-extends its result, so a lane
//! always equals the scalar form's value; shifts and division of those
//! types stay scalar.
//!
//! Anything else (division, variable shift amounts, population count…)
//! is `Unsupported`, and the kernel falls back to scalar code: this
//! module must never approximate. Preds are I32X4 lane masks too (all
//! ones where true); callers tell the two apart by the element type,
//! never by the Cranelift type.

use super::emit::{Emitter, le};
use crate::error::{JitError, Result};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{F32X4, I32, I32X4};
use cranelift_codegen::ir::{InstBuilder, Value};
use rxla_ir::{BinaryOp, ElementType, UnaryOp};

/// Whether `et` runs in integer lanes.
pub fn is_int_lane(et: ElementType) -> bool {
    use ElementType::{S8, S16, S32, U8, U16, U32};
    matches!(et, S8 | U8 | S16 | U16 | S32 | U32)
}

/// Whether `et` is a 32-bit integer type (a lane is the value's own
/// bits, no re-extension).
pub fn is_word_lane(et: ElementType) -> bool {
    matches!(et, ElementType::S32 | ElementType::U32)
}

/// Lanes of integer type `et` re-extended from the type's width (the
/// value wrapped to `et`, as the scalar form's narrow registers wrap):
/// sign-extended for signed types, zero-extended for unsigned ones;
/// 32-bit lanes unchanged.
pub fn canonical(em: &mut Emitter, et: ElementType, x: Value) -> Value {
    let w = et.bit_width() as i64;
    if w >= 32 {
        return x;
    }
    if et.is_signed_int() {
        let t = em.b.ins().ishl_imm_s(x, 32 - w);
        em.b.ins().sshr_imm_s(t, 32 - w)
    } else {
        let m = em.b.ins().iconst(I32, (1i64 << w) - 1);
        let m = splat(em, m);
        em.b.ins().band(x, m)
    }
}

/// The value range of integer type `et` (at most 32 bits wide).
fn range(et: ElementType) -> (i64, i64) {
    let w = et.bit_width();
    if et.is_signed_int() {
        (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1)
    } else {
        (0, (1i64 << w) - 1)
    }
}

/// An i32 broadcast to all lanes.
pub fn splat(em: &mut Emitter, v: Value) -> Value {
    em.b.ins().splat(I32X4, v)
}

/// The lane value of a splat of an integer constant.
fn constant(em: &Emitter, v: Value) -> Option<i64> {
    em.known_int(em.splat_arg(v)?)
}

/// A uniform shift amount `y` (one value in every lane) as a scalar, a
/// lane mask that is all ones where the amount is below 32, and the
/// amount clamped to 31 (arithmetic shifts): made once per scope (the
/// kernel's hoisting makes them before its loops).
pub fn amount(em: &mut Emitter, y: Value) -> Option<[Value; 3]> {
    if let Some(a) = em.shift_amounts.iter().rev().find_map(|m| m.get(&y)) {
        return Some(*a);
    }
    if !em.uniform.contains(&y) || em.b.func.dfg.value_type(y) != I32X4 {
        return None;
    }
    let s = em.b.ins().extractlane(y, 0);
    let keep = em.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, s, 32);
    let ones = em.b.ins().iconst(I32, -1);
    let zero = em.b.ins().iconst(I32, 0);
    let m = em.b.ins().select(keep, ones, zero);
    let m = splat(em, m);
    let top = em.b.ins().iconst(I32, 31);
    let k = em.b.ins().umin(s, top);
    let a = [s, m, k];
    if let Some(scope) = em.shift_amounts.last_mut() {
        scope.insert(y, a);
    }
    Some(a)
}

/// A shift of every lane by the same run-time amount (jax's threefry
/// rotates by amounts carried through its loop): Cranelift shifts by the
/// amount modulo 32, the evaluator shifts everything out from 32 on
/// (arithmetic: the sign), so the amount is clamped or the result masked.
fn shift_by(em: &mut Emitter, op: BinaryOp, x: Value, [s, keep, clamped]: [Value; 3]) -> Value {
    match op {
        BinaryOp::ShiftRightArithmetic => em.b.ins().sshr(x, clamped),
        BinaryOp::ShiftLeft => {
            let r = em.b.ins().ishl(x, s);
            em.b.ins().band(r, keep)
        }
        _ => {
            let r = em.b.ins().ushr(x, s);
            em.b.ins().band(r, keep)
        }
    }
}

fn zeros(em: &mut Emitter) -> Value {
    let z = em.b.ins().iconst(I32, 0);
    splat(em, z)
}

/// A binary op on integer lanes of type `et`.
pub fn binary(
    em: &mut Emitter,
    op: BinaryOp,
    et: ElementType,
    x: Value,
    y: Value,
) -> Result<Value> {
    let signed = et.is_signed_int();
    if !is_word_lane(et) {
        let r = match op {
            BinaryOp::Add => em.b.ins().iadd(x, y),
            BinaryOp::Subtract => em.b.ins().isub(x, y),
            BinaryOp::Multiply => em.b.ins().imul(x, y),
            // Bitwise ops and min/max keep an extended form extended.
            BinaryOp::And => return Ok(em.b.ins().band(x, y)),
            BinaryOp::Or => return Ok(em.b.ins().bor(x, y)),
            BinaryOp::Xor => return Ok(em.b.ins().bxor(x, y)),
            BinaryOp::Maximum if signed => return Ok(em.b.ins().smax(x, y)),
            BinaryOp::Maximum => return Ok(em.b.ins().umax(x, y)),
            BinaryOp::Minimum if signed => return Ok(em.b.ins().smin(x, y)),
            BinaryOp::Minimum => return Ok(em.b.ins().umin(x, y)),
            _ => {
                return Err(JitError::unsupported(format!(
                    "vector {} on {et}",
                    op.name()
                )));
            }
        };
        return Ok(canonical(em, et, r));
    }
    let b = &mut em.b;
    Ok(match op {
        BinaryOp::Add => b.ins().iadd(x, y),
        BinaryOp::Subtract => b.ins().isub(x, y),
        BinaryOp::Multiply => b.ins().imul(x, y),
        BinaryOp::And => b.ins().band(x, y),
        BinaryOp::Or => b.ins().bor(x, y),
        BinaryOp::Xor => b.ins().bxor(x, y),
        BinaryOp::Maximum if signed => b.ins().smax(x, y),
        BinaryOp::Maximum => b.ins().umax(x, y),
        BinaryOp::Minimum if signed => b.ins().smin(x, y),
        BinaryOp::Minimum => b.ins().umin(x, y),
        BinaryOp::ShiftLeft | BinaryOp::ShiftRightLogical | BinaryOp::ShiftRightArithmetic => {
            // The amount as an unsigned 32-bit value (a negative one is
            // huge): 32 or more shifts everything out.
            let Some(k) = constant(em, y) else {
                return match amount(em, y) {
                    Some(a) => Ok(shift_by(em, op, x, a)),
                    None => Err(JitError::unsupported("vector shift by a varying amount")),
                };
            };
            let k = k as u32;
            match (op, k) {
                (BinaryOp::ShiftRightArithmetic, _) => em.b.ins().sshr_imm_s(x, k.min(31) as i64),
                (_, 32..) => zeros(em),
                (BinaryOp::ShiftLeft, _) => em.b.ins().ishl_imm_s(x, k as i64),
                _ => em.b.ins().ushr_imm_s(x, k as i64),
            }
        }
        BinaryOp::Divide | BinaryOp::Remainder => {
            // Lane by lane through the scalar form (its x/0 and overflow
            // rules; a constant divisor becomes a multiply there).
            // A uniform divisor (a splat) as its scalar: the scalar form
            // then sees a constant one.
            let ys = em.splat_arg(y);
            let mut v: Option<Value> = None;
            for k in 0..4u8 {
                let a = em.b.ins().extractlane(x, k);
                let d = match ys {
                    Some(d) => d,
                    None => em.b.ins().extractlane(y, k),
                };
                let r = super::scalar::binary(em, op, et, a, d)?;
                v = Some(match v {
                    None => em.b.ins().scalar_to_vector(I32X4, r),
                    Some(v) => em.b.ins().insertlane(v, r, k),
                });
            }
            return v.ok_or_else(|| JitError::codegen("vector divide lanes"));
        }
        _ => {
            return Err(JitError::unsupported(format!(
                "vector {} on {et}",
                op.name()
            )));
        }
    })
}

/// A unary op on integer lanes of type `et`.
pub fn unary(em: &mut Emitter, op: UnaryOp, et: ElementType, x: Value) -> Result<Value> {
    let signed = et.is_signed_int();
    Ok(match op {
        UnaryOp::Not => {
            let r = em.b.ins().bnot(x);
            canonical(em, et, r)
        }
        UnaryOp::Negate => {
            let r = em.b.ins().ineg(x);
            canonical(em, et, r)
        }
        UnaryOp::Abs if signed => {
            // abs of the most negative value wraps to itself.
            let r = em.b.ins().iabs(x);
            canonical(em, et, r)
        }
        UnaryOp::Abs => x,
        UnaryOp::Sign if signed => {
            let one = em.b.ins().iconst(I32, 1);
            let one = splat(em, one);
            let neg = em.b.ins().iconst(I32, -1);
            let neg = splat(em, neg);
            let lo = em.b.ins().smax(x, neg);
            em.b.ins().smin(lo, one)
        }
        UnaryOp::Sign => {
            let one = em.b.ins().iconst(I32, 1);
            let one = splat(em, one);
            em.b.ins().umin(x, one)
        }
        _ => {
            return Err(JitError::unsupported(format!(
                "vector {} on {et}",
                op.name()
            )));
        }
    })
}

/// `convert` of lanes from `from` to `to` where one side is an integer
/// lane type (the other f32, pred, or another integer lane type): the
/// evaluator's rules (f32 → int truncates toward zero and saturates to the
/// target's range, NaN gives 0; int → f32 rounds to nearest even; int →
/// int wraps to the target's width; pred is 0/1).
pub fn convert(em: &mut Emitter, from: ElementType, to: ElementType, x: Value) -> Result<Value> {
    use ElementType::{F32, Pred, U32};
    Ok(match (from, to) {
        // The source lane is its value extended to 32 bits: wrapped to
        // the target's width from there.
        (a, b) if is_int_lane(a) && is_int_lane(b) => canonical(em, b, x),
        (F32, U32) => em.b.ins().fcvt_to_uint_sat(I32X4, x),
        (F32, t) if is_word_lane(t) => em.b.ins().fcvt_to_sint_sat(I32X4, x),
        (F32, t) if is_int_lane(t) => {
            // Saturated to i32 (NaN → 0), then clamped to the narrow range.
            let w = em.b.ins().fcvt_to_sint_sat(I32X4, x);
            let (lo, hi) = range(t);
            let l = em.b.ins().iconst(I32, lo);
            let l = splat(em, l);
            let h = em.b.ins().iconst(I32, hi);
            let h = splat(em, h);
            let c = em.b.ins().smax(w, l);
            em.b.ins().smin(c, h)
        }
        (U32, F32) => em.b.ins().fcvt_from_uint(F32X4, x),
        // Narrow unsigned lanes are non-negative.
        (t, F32) if is_int_lane(t) => em.b.ins().fcvt_from_sint(F32X4, x),
        (Pred, t) if is_int_lane(t) => {
            // all ones → 1: the mask's sign bit.
            em.b.ins().ushr_imm_s(x, 31)
        }
        (t, Pred) if is_int_lane(t) => {
            let z = zeros(em);
            em.b.ins().icmp(IntCC::NotEqual, x, z)
        }
        _ => {
            return Err(JitError::unsupported(format!(
                "vector convert {from} to {to}"
            )));
        }
    })
}

/// A same-width `bitcast-convert` between f32 and s32/u32 lanes.
pub fn bitcast(em: &mut Emitter, from: ElementType, to: ElementType, x: Value) -> Result<Value> {
    use ElementType::{F32, S32, U32};
    Ok(match (from, to) {
        (F32, S32 | U32) => em.b.ins().bitcast(I32X4, le(), x),
        (S32 | U32, F32) => em.b.ins().bitcast(F32X4, le(), x),
        (S32, U32) | (U32, S32) => x,
        (a, b) if is_int_lane(a) && is_int_lane(b) && a.bit_width() == b.bit_width() => {
            canonical(em, b, x)
        }
        _ => {
            return Err(JitError::unsupported(format!(
                "vector bitcast-convert {from} to {to}"
            )));
        }
    })
}
