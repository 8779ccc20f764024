//! Scalar element arithmetic in Cranelift IR with exactly the evaluator's
//! semantics (`crates/eval/src/elementwise.rs`, `docs/SEMANTICS.md`):
//! wrapping integers, x/0 = -1 and x%0 = x, MIN/-1 = MIN, shifts past the
//! width, saturating float→int converts with NaN→0, NaN-propagating
//! max/min with max(-0,+0)=+0, total-order compares. Pred is an `i8` 0/1.
//! f32 transcendentals use the inline approximations of `approx` on lane 0
//! of a vector (the same code as the vector lanes); f64 and the half types
//! (f16/bf16, computed in f32 and rounded once, like the evaluator) call
//! registered host functions, the evaluator's own definitions.
//!
//! Narrow types: the f8 types are held as f32 like the halves (their
//! patterns loaded and stored through host functions, every arithmetic
//! result rounded f32 → f16 → f8 by `rx_<t>_round`, as the evaluator);
//! s2/s4/u2/u4 are held as an `i8` of their value (sign- or
//! zero-extended), computed on as s8/u8 and wrapped back to their width
//! after every op ([`wrap_int_n`]); memory holds their low bits.
//! How each type is held, loaded and stored is `repr`'s; this file
//! must not know any op beyond its element function, nor index anything.

use super::emit::Emitter;
use super::repr::{f8, half_from_bits, is_half, round_half, storage, wrap_int_n};
use crate::error::{JitError, Result};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32, F32X4, F64, I8, I16, I32, I64};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Type, Value};
use rxla_ir::{ArrayData, BinaryOp, ComparisonDirection, ComparisonType, ElementType, UnaryOp};

pub fn zero(em: &mut Emitter, et: ElementType) -> Result<Value> {
    Ok(match et {
        ElementType::F32 | ElementType::F16 | ElementType::BF16 => em.b.ins().f32const(0.0),
        t if t.is_f8() => em.b.ins().f32const(0.0),
        ElementType::F64 => em.b.ins().f64const(0.0),
        _ => em.b.ins().iconst(storage(et)?, 0),
    })
}

/// Element `i` of literal data as a scalar value.
pub fn literal_value(em: &mut Emitter, d: &ArrayData, i: usize) -> Result<Value> {
    let oob = || JitError::unsupported("constant index");
    Ok(match d {
        ArrayData::Pred(v) => em.b.ins().iconst(I8, *v.get(i).ok_or_else(oob)? as i64),
        ArrayData::S8(v) => {
            em.b.ins()
                .iconst(I8, *v.get(i).ok_or_else(oob)? as u8 as i64)
        }
        ArrayData::U8(v) => em.b.ins().iconst(I8, *v.get(i).ok_or_else(oob)? as i64),
        ArrayData::S16(v) => {
            em.b.ins()
                .iconst(I16, *v.get(i).ok_or_else(oob)? as u16 as i64)
        }
        ArrayData::U16(v) => em.b.ins().iconst(I16, *v.get(i).ok_or_else(oob)? as i64),
        ArrayData::S32(v) => {
            em.b.ins()
                .iconst(I32, *v.get(i).ok_or_else(oob)? as u32 as i64)
        }
        ArrayData::U32(v) => em.b.ins().iconst(I32, *v.get(i).ok_or_else(oob)? as i64),
        ArrayData::S64(v) => em.b.ins().iconst(I64, *v.get(i).ok_or_else(oob)?),
        ArrayData::U64(v) => em.b.ins().iconst(I64, *v.get(i).ok_or_else(oob)? as i64),
        ArrayData::F32(v) => em.b.ins().f32const(*v.get(i).ok_or_else(oob)?),
        ArrayData::F64(v) => em.b.ins().f64const(*v.get(i).ok_or_else(oob)?),
        ArrayData::F16(v) => {
            let b = v.get(i).ok_or_else(oob)?.to_bits();
            em.b.ins().f32const(super::libcalls::f16_bits_to_f32_raw(b))
        }
        ArrayData::BF16(v) => {
            let b = v.get(i).ok_or_else(oob)?.to_bits();
            em.b.ins()
                .f32const(super::libcalls::bf16_bits_to_f32_raw(b))
        }
        ArrayData::Narrow(t, v) => {
            let b = *v.get(i).ok_or_else(oob)?;
            match rxla_ir::narrow::f8_format(*t) {
                Some(f) => {
                    em.b.ins()
                        .f32const(super::libcalls::f8_bits_to_f32_raw(f, b))
                }
                None => {
                    em.b.ins()
                        .iconst(I8, rxla_ir::narrow::int_n_value(*t, b) as u8 as i64)
                }
            }
        }
        _ => return Err(JitError::unsupported("token constant")),
    })
}

/// An `i64` index converted to `et` (iota).
pub fn from_i64(em: &mut Emitter, i: Value, et: ElementType) -> Result<Value> {
    let ty = storage(et)?;
    if et.is_f8() {
        let w = em.b.ins().fcvt_from_sint(F64, i);
        return em.call(f8(et)?[3], &[w]);
    }
    if et.is_int_n() {
        let r = em.b.ins().ireduce(I8, i);
        return Ok(wrap_int_n(em, r, et));
    }
    Ok(match et {
        ElementType::F32 | ElementType::F64 | ElementType::F16 | ElementType::BF16 => {
            em.b.ins().fcvt_from_sint(ty, i)
        }
        ElementType::Pred => em.b.ins().icmp_imm_s(IntCC::NotEqual, i, 0),
        _ if ty == I64 => i,
        _ => em.b.ins().ireduce(ty, i),
    })
}

/// An integer scalar widened to `i64` by its signedness.
pub fn to_i64(em: &mut Emitter, v: Value, et: ElementType) -> Result<Value> {
    let ty = storage(et)?;
    if !(et.is_integer() || et.is_pred()) {
        return Err(JitError::unsupported(format!("index of type {et}")));
    }
    Ok(if ty == I64 {
        v
    } else if et.is_signed_int() {
        em.b.ins().sextend(I64, v)
    } else {
        em.b.ins().uextend(I64, v)
    })
}

fn fconst(em: &mut Emitter, ty: Type, v: f64) -> Value {
    if ty == F32 {
        em.b.ins().f32const(v as f32)
    } else {
        em.b.ins().f64const(v)
    }
}

fn float_call(
    em: &mut Emitter,
    ty: Type,
    f32name: &'static str,
    f64name: &'static str,
    args: &[Value],
) -> Result<Value> {
    em.call(if ty == F32 { f32name } else { f64name }, args)
}

pub fn unary(em: &mut Emitter, op: UnaryOp, et: ElementType, x: Value) -> Result<Value> {
    let ty = storage(et)?;
    if et == ElementType::F32
        && let Some(v) = super::approx::scalar_f32(em, op, x)?
    {
        return Ok(v);
    }
    if et.is_float() {
        let b = &mut em.b;
        return Ok(match op {
            UnaryOp::Negate => b.ins().fneg(x),
            UnaryOp::Abs => b.ins().fabs(x),
            UnaryOp::Sign => {
                let one = fconst(em, ty, 1.0);
                let s = em.b.ins().fcopysign(one, x);
                let z = fconst(em, ty, 0.0);
                let keep = em.b.ins().fcmp(FloatCC::UnorderedOrEqual, x, z);
                em.b.ins().select(keep, x, s)
            }
            UnaryOp::Floor => b.ins().floor(x),
            UnaryOp::Ceil => b.ins().ceil(x),
            UnaryOp::RoundNearestEven => b.ins().nearest(x),
            UnaryOp::RoundNearestAfz => {
                // trunc(x) ± 1 when the (exact) dropped fraction is ≥ ½.
                let t = b.ins().trunc(x);
                let d = em.b.ins().fsub(x, t);
                let d = em.b.ins().fabs(d);
                let half = fconst(em, ty, 0.5);
                let ge = em.b.ins().fcmp(FloatCC::GreaterThanOrEqual, d, half);
                let one = fconst(em, ty, 1.0);
                let zero = fconst(em, ty, 0.0);
                let step = em.b.ins().select(ge, one, zero);
                let step = em.b.ins().fcopysign(step, x);
                em.b.ins().fadd(t, step)
            }
            UnaryOp::Sqrt => b.ins().sqrt(x),
            UnaryOp::Rsqrt => {
                let s = b.ins().sqrt(x);
                let one = fconst(em, ty, 1.0);
                em.b.ins().fdiv(one, s)
            }
            UnaryOp::Cbrt => float_call(em, ty, "rx_cbrtf", "rx_cbrt", &[x])?,
            UnaryOp::Exp => float_call(em, ty, "rx_expf", "rx_exp", &[x])?,
            UnaryOp::Expm1 => float_call(em, ty, "rx_expm1f", "rx_expm1", &[x])?,
            UnaryOp::Log => float_call(em, ty, "rx_logf", "rx_log", &[x])?,
            UnaryOp::Log1p => float_call(em, ty, "rx_log1pf", "rx_log1p", &[x])?,
            UnaryOp::Logistic => float_call(em, ty, "rx_logisticf", "rx_logistic", &[x])?,
            UnaryOp::Tanh => float_call(em, ty, "rx_tanhf", "rx_tanh", &[x])?,
            UnaryOp::Sin => float_call(em, ty, "rx_sinf", "rx_sin", &[x])?,
            UnaryOp::Cos => float_call(em, ty, "rx_cosf", "rx_cos", &[x])?,
            UnaryOp::Tan => float_call(em, ty, "rx_tanf", "rx_tan", &[x])?,
            UnaryOp::Erf => float_call(em, ty, "rx_erff", "rx_erf", &[x])?,
            UnaryOp::IsFinite => {
                let a = b.ins().fabs(x);
                let inf = fconst(em, ty, f64::INFINITY);
                em.b.ins().fcmp(FloatCC::LessThan, a, inf)
            }
            _ => return Err(JitError::unsupported(format!("{} on {et}", op.name()))),
        });
    }
    if et.is_pred() {
        return match op {
            UnaryOp::Not => Ok(em.b.ins().bxor_imm_s(x, 1)),
            _ => Err(JitError::unsupported(format!("{} on pred", op.name()))),
        };
    }
    let signed = et.is_signed_int();
    let b = &mut em.b;
    Ok(match op {
        UnaryOp::Not => b.ins().bnot(x),
        UnaryOp::Negate => b.ins().ineg(x),
        UnaryOp::Abs if signed => b.ins().iabs(x),
        UnaryOp::Abs => x,
        UnaryOp::Sign => {
            let zero = b.ins().iconst(ty, 0);
            let one = b.ins().iconst(ty, 1);
            let nz = b.ins().icmp(IntCC::NotEqual, x, zero);
            let pos = b.ins().select(nz, one, zero);
            if signed {
                let m1 = b.ins().iconst(ty, -1);
                let neg = b.ins().icmp(IntCC::SignedLessThan, x, zero);
                b.ins().select(neg, m1, pos)
            } else {
                pos
            }
        }
        UnaryOp::Popcnt => b.ins().popcnt(x),
        UnaryOp::Clz if et.is_int_n() => {
            // Leading zeros in the narrow width (XLA, the evaluator).
            let w = et.bit_width() as i64;
            let p = b.ins().band_imm_s(x, (1 << w) - 1);
            let z = em.b.ins().clz(p);
            em.b.ins().iadd_imm_s(z, w - 8)
        }
        UnaryOp::Clz => b.ins().clz(x),
        _ => return Err(JitError::unsupported(format!("{} on {et}", op.name()))),
    })
}

pub fn binary(
    em: &mut Emitter,
    op: BinaryOp,
    et: ElementType,
    x: Value,
    y: Value,
) -> Result<Value> {
    let ty = storage(et)?;
    if et == ElementType::F32
        && let Some(v) = super::approx::scalar_f32_binary(em, op, x, y)?
    {
        return Ok(v);
    }
    if et.is_int_n()
        && matches!(
            op,
            BinaryOp::ShiftRightLogical | BinaryOp::ShiftRightArithmetic
        )
    {
        // XLA shifts 2/4-bit integers right in their own width (the
        // amount read as an unsigned narrow value), as the evaluator.
        let w = et.bit_width() as i64;
        let mask = (1i64 << w) - 1;
        let k = em.b.ins().band_imm_s(y, mask);
        if op == BinaryOp::ShiftRightLogical {
            let p = em.b.ins().band_imm_s(x, mask);
            let sh = em.b.ins().ushr(p, k);
            let big =
                em.b.ins()
                    .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, k, w);
            let zero = em.b.ins().iconst(I8, 0);
            return Ok(em.b.ins().select(big, zero, sh));
        }
        let t = em.b.ins().ishl_imm_s(x, 8 - w);
        let v = em.b.ins().sshr_imm_s(t, 8 - w);
        let top = em.b.ins().iconst(I8, w - 1);
        let n = em.b.ins().umin(k, top);
        return Ok(em.b.ins().sshr(v, n));
    }
    if et.is_float() {
        let b = &mut em.b;
        return Ok(match op {
            BinaryOp::Add => b.ins().fadd(x, y),
            BinaryOp::Subtract => b.ins().fsub(x, y),
            BinaryOp::Multiply => b.ins().fmul(x, y),
            BinaryOp::Divide => b.ins().fdiv(x, y),
            BinaryOp::Remainder => float_call(em, ty, "rx_fmodf", "rx_fmod", &[x, y])?,
            BinaryOp::Power => float_call(em, ty, "rx_powf", "rx_pow", &[x, y])?,
            BinaryOp::Atan2 => float_call(em, ty, "rx_atan2f", "rx_atan2", &[x, y])?,
            BinaryOp::Maximum | BinaryOp::Minimum if ty == F32 => {
                // Lane 0 of the vector form: compares and masks, no
                // branches (Cranelift's scalar fmax/fmin sequences branch
                // on ties and NaN).
                let a = b.ins().splat(F32X4, x);
                let c = b.ins().splat(F32X4, y);
                let r = super::vector::binary(em, op, a, c)?;
                em.b.ins().extractlane(r, 0)
            }
            BinaryOp::Maximum | BinaryOp::Minimum => {
                // NaN in x → x, NaN in y → y, else fmax/fmin (-0 < +0).
                let m = if op == BinaryOp::Maximum {
                    b.ins().fmax(x, y)
                } else {
                    b.ins().fmin(x, y)
                };
                let ynan = b.ins().fcmp(FloatCC::Unordered, y, y);
                let r = b.ins().select(ynan, y, m);
                let xnan = b.ins().fcmp(FloatCC::Unordered, x, x);
                b.ins().select(xnan, x, r)
            }
            _ => return Err(JitError::unsupported(format!("{} on {et}", op.name()))),
        });
    }
    if et.is_pred() {
        // A known operand decides or drops out (`ranges`' folds reach here).
        let (kx, ky) = (em.known_int(x), em.known_int(y));
        for (k, other) in [(kx, y), (ky, x)] {
            match (op, k) {
                (BinaryOp::And | BinaryOp::Minimum, Some(0))
                | (BinaryOp::Or | BinaryOp::Maximum, Some(1)) => {
                    return Ok(em.b.ins().iconst(I8, k.unwrap_or(0)));
                }
                (BinaryOp::And | BinaryOp::Minimum, Some(1))
                | (BinaryOp::Or | BinaryOp::Maximum | BinaryOp::Xor, Some(0)) => return Ok(other),
                _ => {}
            }
        }
        let b = &mut em.b;
        return Ok(match op {
            BinaryOp::And | BinaryOp::Minimum => b.ins().band(x, y),
            BinaryOp::Or | BinaryOp::Maximum => b.ins().bor(x, y),
            BinaryOp::Xor => b.ins().bxor(x, y),
            _ => return Err(JitError::unsupported(format!("{} on pred", op.name()))),
        });
    }
    let signed = et.is_signed_int();
    let bits = ty.bits() as i64;
    if op == BinaryOp::Power {
        let a = to_i64(em, x, et)?;
        let e = to_i64(em, y, et)?;
        let r = em.call(if signed { "rx_powi_s" } else { "rx_powi_u" }, &[a, e])?;
        return Ok(if ty == I64 {
            r
        } else {
            em.b.ins().ireduce(ty, r)
        });
    }
    if matches!(op, BinaryOp::Divide | BinaryOp::Remainder)
        && !et.is_int_n()
        && let Some(d) = em.known_int(y)
        && let Some(v) =
            super::divconst::div_rem_const(em, ty, signed, op == BinaryOp::Remainder, x, d)
    {
        return Ok(v);
    }
    let b = &mut em.b;
    Ok(match op {
        BinaryOp::Add => b.ins().iadd(x, y),
        BinaryOp::Subtract => b.ins().isub(x, y),
        BinaryOp::Multiply => b.ins().imul(x, y),
        BinaryOp::Divide | BinaryOp::Remainder => {
            let zero = b.ins().iconst(ty, 0);
            let one = b.ins().iconst(ty, 1);
            let yz = b.ins().icmp(IntCC::Equal, y, zero);
            let mut safe = b.ins().select(yz, one, y);
            if signed {
                let min = b.ins().iconst(ty, i64::MIN >> (64 - bits));
                let m1 = b.ins().iconst(ty, -1);
                let xmin = b.ins().icmp(IntCC::Equal, x, min);
                let ym1 = b.ins().icmp(IntCC::Equal, y, m1);
                let ovf = b.ins().band(xmin, ym1);
                safe = b.ins().select(ovf, one, safe);
            }
            if op == BinaryOp::Divide {
                let q = if signed {
                    b.ins().sdiv(x, safe)
                } else {
                    b.ins().udiv(x, safe)
                };
                let all = b.ins().iconst(ty, -1);
                b.ins().select(yz, all, q)
            } else {
                let r = if signed {
                    b.ins().srem(x, safe)
                } else {
                    b.ins().urem(x, safe)
                };
                b.ins().select(yz, x, r)
            }
        }
        BinaryOp::Maximum if signed => b.ins().smax(x, y),
        BinaryOp::Maximum => b.ins().umax(x, y),
        BinaryOp::Minimum if signed => b.ins().smin(x, y),
        BinaryOp::Minimum => b.ins().umin(x, y),
        BinaryOp::And => b.ins().band(x, y),
        BinaryOp::Or => b.ins().bor(x, y),
        BinaryOp::Xor => b.ins().bxor(x, y),
        BinaryOp::ShiftLeft | BinaryOp::ShiftRightLogical | BinaryOp::ShiftRightArithmetic => {
            let w = b.ins().iconst(ty, bits);
            let big = b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, y, w);
            match op {
                BinaryOp::ShiftRightArithmetic => {
                    let maxs = b.ins().iconst(ty, bits - 1);
                    let n = b.ins().select(big, maxs, y);
                    b.ins().sshr(x, n)
                }
                _ => {
                    let s = if op == BinaryOp::ShiftLeft {
                        b.ins().ishl(x, y)
                    } else {
                        b.ins().ushr(x, y)
                    };
                    let zero = b.ins().iconst(ty, 0);
                    b.ins().select(big, zero, s)
                }
            }
        }
        _ => return Err(JitError::unsupported(format!("{} on {et}", op.name()))),
    })
}

fn total_key(em: &mut Emitter, x: Value, ty: Type) -> Value {
    let ity = if ty == F32 { I32 } else { I64 };
    let bits = ity.bits() as i64;
    let i = em.b.ins().bitcast(ity, MemFlagsData::new(), x);
    let s = em.b.ins().sshr_imm_s(i, bits - 1);
    let m = em.b.ins().ushr_imm_s(s, 1);
    em.b.ins().bxor(i, m)
}

/// `compare` of two scalars of type `et`: an `i8` 0/1.
pub fn compare(
    em: &mut Emitter,
    dir: ComparisonDirection,
    kind: Option<ComparisonType>,
    et: ElementType,
    a: Value,
    b: Value,
) -> Result<Value> {
    let ty = storage(et)?;
    // Half values are held as their exact f32 (`storage`), and the f32
    // total order of a half's f32 is the half's own total order (the
    // widening is monotone, keeps ±0 and the sign and payload order of
    // quiet NaNs; signaling-NaN halves are quieted when loaded, as in every
    // half op of the JIT).
    if et.is_float() && kind == Some(ComparisonType::TotalOrder) {
        let ka = total_key(em, a, ty);
        let kb = total_key(em, b, ty);
        return Ok(em.b.ins().icmp(int_cc(dir, true), ka, kb));
    }
    if et.is_float() {
        let cc = match dir {
            ComparisonDirection::Eq => FloatCC::Equal,
            ComparisonDirection::Ne => FloatCC::NotEqual,
            ComparisonDirection::Lt => FloatCC::LessThan,
            ComparisonDirection::Le => FloatCC::LessThanOrEqual,
            ComparisonDirection::Gt => FloatCC::GreaterThan,
            ComparisonDirection::Ge => FloatCC::GreaterThanOrEqual,
        };
        return Ok(em.b.ins().fcmp(cc, a, b));
    }
    if let Some(r) = decided(em, dir, et.is_signed_int(), a, b) {
        return Ok(em.b.ins().iconst(I8, i64::from(r)));
    }
    Ok(em.b.ins().icmp(int_cc(dir, et.is_signed_int()), a, b))
}

/// An integer comparison that the operands' known bounds decide
/// (`ranges`); unsigned ones only between non-negative bounds.
fn decided(
    em: &Emitter,
    dir: ComparisonDirection,
    signed: bool,
    a: Value,
    b: Value,
) -> Option<bool> {
    let (x, y) = (super::ranges::range(em, a)?, super::ranges::range(em, b)?);
    if !signed && (x.0 < 0 || y.0 < 0) {
        return None;
    }
    let lt = |x: (i64, i64), y: (i64, i64)| {
        if x.1 < y.0 {
            Some(true)
        } else if x.0 >= y.1 {
            Some(false)
        } else {
            None
        }
    };
    let eq = if x.0 == x.1 && y.0 == y.1 && x.0 == y.0 {
        Some(true)
    } else if x.1 < y.0 || y.1 < x.0 {
        Some(false)
    } else {
        None
    };
    match dir {
        ComparisonDirection::Eq => eq,
        ComparisonDirection::Ne => eq.map(|e| !e),
        ComparisonDirection::Lt => lt(x, y),
        ComparisonDirection::Ge => lt(x, y).map(|l| !l),
        ComparisonDirection::Gt => lt(y, x),
        ComparisonDirection::Le => lt(y, x).map(|l| !l),
    }
}

pub fn int_cc(dir: ComparisonDirection, signed: bool) -> IntCC {
    match (dir, signed) {
        (ComparisonDirection::Eq, _) => IntCC::Equal,
        (ComparisonDirection::Ne, _) => IntCC::NotEqual,
        (ComparisonDirection::Lt, true) => IntCC::SignedLessThan,
        (ComparisonDirection::Le, true) => IntCC::SignedLessThanOrEqual,
        (ComparisonDirection::Gt, true) => IntCC::SignedGreaterThan,
        (ComparisonDirection::Ge, true) => IntCC::SignedGreaterThanOrEqual,
        (ComparisonDirection::Lt, false) => IntCC::UnsignedLessThan,
        (ComparisonDirection::Le, false) => IntCC::UnsignedLessThanOrEqual,
        (ComparisonDirection::Gt, false) => IntCC::UnsignedGreaterThan,
        (ComparisonDirection::Ge, false) => IntCC::UnsignedGreaterThanOrEqual,
    }
}

/// `convert` (Rust `as` semantics, as the evaluator).
pub fn convert(em: &mut Emitter, x: Value, from: ElementType, to: ElementType) -> Result<Value> {
    if from == to {
        return Ok(x);
    }
    // Half values are exact f32s: convert from them as from f32, but
    // quieted first (a held signalling NaN keeps its bits; the evaluator's
    // half-to-f32 conversion quiets it). x + (-0) is x for every other x.
    let (x, from) = if from.is_f8() {
        // ml_dtypes' (and the evaluator's) f8 → f32: a NaN becomes the
        // quiet NaN of its sign, whatever its payload.
        let nan = em.b.ins().fcmp(FloatCC::Unordered, x, x);
        let bits = em.b.ins().bitcast(I32, MemFlagsData::new(), x);
        let sign = em.b.ins().band_imm_s(bits, 0x8000_0000u32 as i32 as i64);
        let q = em.b.ins().bor_imm_s(sign, 0x7fc0_0000);
        let q = em.b.ins().bitcast(F32, MemFlagsData::new(), q);
        (em.b.ins().select(nan, q, x), ElementType::F32)
    } else if is_half(from) {
        let nz = em.b.ins().f32const(-0.0);
        (em.b.ins().fadd(x, nz), ElementType::F32)
    } else {
        (x, from)
    };
    if to.is_f8() {
        // One rounding from the exact f64 value of any source.
        let wide = match from {
            ElementType::F64 => x,
            ElementType::F32 => em.b.ins().fpromote(F64, x),
            _ => convert(em, x, from, ElementType::F64)?,
        };
        return em.call(f8(to)?[3], &[wide]);
    }
    if to.is_int_n() {
        let (lo, hi) = rxla_ir::narrow::int_n_range(to);
        let v = if from.is_float() {
            // Saturating to the narrow range, NaN → 0.
            let w = convert(em, x, from, ElementType::S64)?;
            let l = em.b.ins().iconst(I64, lo);
            let h = em.b.ins().iconst(I64, hi);
            let c = em.b.ins().smax(w, l);
            let c = em.b.ins().smin(c, h);
            em.b.ins().ireduce(I8, c)
        } else if storage(from)? == I8 {
            x
        } else {
            em.b.ins().ireduce(I8, x)
        };
        return Ok(wrap_int_n(em, v, to));
    }
    if is_half(to) {
        // The evaluator rounds f32 sources once, f64 and integer sources
        // through f64 once (no double rounding).
        let wide = match from {
            ElementType::F32 => return round_half(em, x, to),
            ElementType::F64 => x,
            _ => convert(em, x, from, ElementType::F64)?,
        };
        let name = if to == ElementType::BF16 {
            "rx_f64_to_bf16"
        } else {
            "rx_f64_to_f16"
        };
        let bits = em.call(name, &[wide])?;
        return half_from_bits(em, bits, to);
    }
    if from == to {
        return Ok(x);
    }
    let fty = storage(from)?;
    let tty = storage(to)?;
    let b = &mut em.b;
    if to.is_pred() {
        return Ok(if from.is_float() {
            let z = fconst(em, fty, 0.0);
            em.b.ins().fcmp(FloatCC::NotEqual, x, z)
        } else {
            b.ins().icmp_imm_s(IntCC::NotEqual, x, 0)
        });
    }
    if from.is_float() && to.is_float() {
        return Ok(if fty == tty {
            x
        } else if tty == F64 {
            b.ins().fpromote(F64, x)
        } else {
            b.ins().fdemote(F32, x)
        });
    }
    if from.is_float() {
        // Saturating, NaN → 0 (Cranelift's own semantics for 32 and 64
        // bits).
        if tty == I64 || tty == I32 {
            return Ok(if to.is_signed_int() {
                b.ins().fcvt_to_sint_sat(tty, x)
            } else {
                b.ins().fcvt_to_uint_sat(tty, x)
            });
        }
        let wide = if to.is_signed_int() {
            b.ins().fcvt_to_sint_sat(I64, x)
        } else {
            b.ins().fcvt_to_uint_sat(I64, x)
        };
        let bits = tty.bits();
        let (lo, hi) = if to.is_signed_int() {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            (0, ((1u64 << bits) - 1) as i64)
        };
        let l = b.ins().iconst(I64, lo);
        let h = b.ins().iconst(I64, hi);
        let c = if to.is_signed_int() {
            b.ins().smax(wide, l)
        } else {
            wide
        };
        let c = if to.is_signed_int() {
            b.ins().smin(c, h)
        } else {
            b.ins().umin(c, h)
        };
        return Ok(b.ins().ireduce(tty, c));
    }
    // From an integer or pred.
    let signed = from.is_signed_int();
    if to.is_float() {
        let w = if fty.bits() < 32 {
            if signed {
                b.ins().sextend(I32, x)
            } else {
                b.ins().uextend(I32, x)
            }
        } else {
            x
        };
        return Ok(if signed {
            b.ins().fcvt_from_sint(tty, w)
        } else {
            b.ins().fcvt_from_uint(tty, w)
        });
    }
    Ok(match fty.bits().cmp(&tty.bits()) {
        std::cmp::Ordering::Equal => x,
        std::cmp::Ordering::Greater => b.ins().ireduce(tty, x),
        std::cmp::Ordering::Less if signed => b.ins().sextend(tty, x),
        std::cmp::Ordering::Less => b.ins().uextend(tty, x),
    })
}
