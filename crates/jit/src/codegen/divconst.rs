//! Integer `divide` and `remainder` by a divisor known at compile time
//! (an `iconst` of the kernel, typically a broadcast constant), without
//! the hardware divide: the kernels run with Cranelift's mid-end optimizer
//! off (`jit.rs`), so `x % 1024` would otherwise stay an `idiv` behind the
//! x/0 and MIN/-1 guards (jax's `x % n` index arithmetic spent 8 ns an
//! element there).
//!
//! Exactly the evaluator's truncating semantics: a power-of-two divisor
//! by shifts with the round-toward-zero bias; any other divisor of a type
//! of at most 32 bits by the high half of a 64-bit product with
//! `ceil(2^64 / |d|)`, exact for every |x| ≤ 2^32 and |d| < 2^32 (the error
//! term |x|·e/2^64 < 2^-32 never reaches the next multiple, 1/|d| away).
//! Divisors 0 and -1 (the guarded cases) and the 2/4-bit types are left to
//! the generic path (`None`). Must not handle a divisor that is not a
//! constant, nor any other op.

use super::emit::Emitter;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{InstBuilder, Type, Value};

/// `x / d` (`rem == false`) or `x % d` of type `ty` (signed when `signed`)
/// for the constant `d`; `None` when `d` is not handled here.
pub fn div_rem_const(
    em: &mut Emitter,
    ty: Type,
    signed: bool,
    rem: bool,
    x: Value,
    d: i64,
) -> Option<Value> {
    let bits = ty.bits();
    if d == 0 || (signed && d == -1) || bits > 64 {
        return None;
    }
    if d > 0
        && let Some((lo, hi)) = super::ranges::range(em, x)
        && lo >= 0
    {
        // A non-negative dividend: below d it is its own remainder; else
        // the unsigned forms (masks, shifts, no sign fix-ups) are exact.
        if hi < d {
            return Some(if rem { x } else { em.b.ins().iconst(ty, 0) });
        }
        if signed {
            return div_rem_const(em, ty, false, rem, x, d);
        }
    }
    // The divisor as the type's unsigned value for unsigned types.
    let ud: u64 = if signed {
        d.unsigned_abs()
    } else if bits == 64 {
        d as u64
    } else {
        (d as u64) & ((1u64 << bits) - 1)
    };
    if ud == 1 {
        // x / ±1 (only +1 for signed here) and x % 1.
        return Some(if rem { em.b.ins().iconst(ty, 0) } else { x });
    }
    if ud.is_power_of_two() {
        let k = ud.trailing_zeros() as i64;
        return Some(pow2(em, ty, signed, rem, x, k, d < 0));
    }
    if bits == 64 {
        // No 128-bit product here: the hardware divide, without the guards
        // (d is neither 0 nor -1).
        let dv = em.b.ins().iconst(ty, d);
        return Some(match (signed, rem) {
            (true, false) => em.b.ins().sdiv(x, dv),
            (true, true) => em.b.ins().srem(x, dv),
            (false, false) => em.b.ins().udiv(x, dv),
            (false, true) => em.b.ins().urem(x, dv),
        });
    }
    // m = ceil(2^64 / ud), ud in 3..2^32 and not a power of two.
    let m = (1u128 << 64).div_ceil(ud as u128) as u64;
    let b = &mut em.b;
    let wide = if signed {
        b.ins().sextend(I64, x)
    } else {
        b.ins().uextend(I64, x)
    };
    let ax = if signed { b.ins().iabs(wide) } else { wide };
    let mv = b.ins().iconst(I64, m as i64);
    let qa = b.ins().umulhi(ax, mv);
    let q = if signed {
        // The quotient's sign: x's, flipped for a negative divisor.
        let neg_q = b.ins().ineg(qa);
        let xneg = b.ins().icmp_imm_s(IntCC::SignedLessThan, wide, 0);
        let (pos, neg) = if d < 0 { (neg_q, qa) } else { (qa, neg_q) };
        b.ins().select(xneg, neg, pos)
    } else {
        qa
    };
    let q = b.ins().ireduce(ty, q);
    if !rem {
        return Some(q);
    }
    // x - q·d in the type's wrapping arithmetic (exact: |q·d| ≤ |x|).
    let p = b.ins().imul_imm_s(q, d);
    Some(b.ins().isub(x, p))
}

/// Division by ±2^k (k ≥ 1): truncation toward zero for signed `x` adds
/// 2^k - 1 to negative dividends before the arithmetic shift.
fn pow2(em: &mut Emitter, ty: Type, signed: bool, rem: bool, x: Value, k: i64, neg: bool) -> Value {
    let bits = ty.bits() as i64;
    let b = &mut em.b;
    if !signed {
        return if rem {
            let mask = if k >= 64 { -1 } else { (1i64 << k) - 1 };
            b.ins().band_imm_s(x, mask)
        } else {
            b.ins().ushr_imm_s(x, k)
        };
    }
    // k < bits here: |d| = 2^k fits the signed type's magnitude only up to
    // 2^(bits-1) (d = MIN), where the bias below is 2^(bits-1) - 1.
    let sign = b.ins().sshr_imm_s(x, bits - 1);
    let bias = b.ins().ushr_imm_s(sign, bits - k);
    let t = b.ins().iadd(x, bias);
    if rem {
        // x - (t with its low k bits cleared); the sign of d does not matter.
        let cleared = b.ins().band_imm_s(t, (-1i64) << k);
        return b.ins().isub(x, cleared);
    }
    let q = b.ins().sshr_imm_s(t, k);
    if neg { b.ins().ineg(q) } else { q }
}
