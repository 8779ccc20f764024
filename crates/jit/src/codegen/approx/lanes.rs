//! The lane helpers every approximation shares: F32X4/I32X4/F64X2
//! constants, bit reinterpretations, masks and selects, abs/copysign,
//! polynomial evaluation (Horner, Estrin, with FMA) and the f32↔f64 lane
//! moves. No approximation here, and no `use` of an approximation file.

use crate::codegen::emit::Emitter;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::types::{F32X4, F64X2, I8X16, I32X4, I64X2};
use cranelift_codegen::ir::{Endianness, InstBuilder, MemFlagsData, Value};

pub(super) fn le() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// The NaN an invalid operation (log of a negative number, ...) produces
/// on this host, which is what the evaluator's libm returns: x86's
/// default NaN has the sign bit set. Total-order consumers (sort, topk,
/// TOTALORDER compares) see the sign, so it must match bit for bit.
pub(crate) const INVALID_NAN: f32 = if cfg!(target_arch = "x86_64") {
    f32::from_bits(0xffc0_0000)
} else {
    f32::from_bits(0x7fc0_0000)
};

/// An F32X4 splat constant (memoized by the emitter per scope).
pub(super) fn c(em: &mut Emitter, v: f32) -> Value {
    em.vconst(v)
}

/// An I32X4 constant (the F32X4 constant of the same bits, reinterpreted).
pub(super) fn ci(em: &mut Emitter, v: i32) -> Value {
    let f = em.vconst(f32::from_bits(v as u32));
    em.b.ins().bitcast(I32X4, le(), f)
}

/// F32X4 → I32X4 bits.
pub(super) fn bits(em: &mut Emitter, x: Value) -> Value {
    em.b.ins().bitcast(I32X4, le(), x)
}

/// I32X4 bits → F32X4.
pub(super) fn float(em: &mut Emitter, i: Value) -> Value {
    em.b.ins().bitcast(F32X4, le(), i)
}

/// A lane mask (as F32X4, for `bitselect`) of `a cc b`.
pub(super) fn fmask(em: &mut Emitter, cc: FloatCC, a: Value, b: Value) -> Value {
    let m = em.b.ins().fcmp(cc, a, b);
    em.b.ins().bitcast(F32X4, le(), m)
}

/// `m ? a : b` lane-wise (m an F32X4 mask).
pub(super) fn sel(em: &mut Emitter, m: Value, a: Value, b: Value) -> Value {
    em.b.ins().bitselect(m, a, b)
}

/// `a ⊕ b` as one x86 maxps/minps: `b < a ? a : b` (max) or
/// `a < b ? a : b` (min); unordered gives `b` (so a NaN `b` passes).
pub(crate) fn minmax(em: &mut Emitter, max: bool, a: Value, b: Value) -> Value {
    let m = if max {
        em.b.ins().fcmp(FloatCC::LessThan, b, a)
    } else {
        em.b.ins().fcmp(FloatCC::LessThan, a, b)
    };
    let m = em.b.ins().bitcast(F32X4, le(), m);
    em.b.ins().bitselect(m, a, b)
}

/// |x| lane-wise as one `andnps` with the (memoized, hoisted) sign-mask
/// constant; Cranelift's `fabs` rebuilds the mask in the loop (3 ops).
pub(crate) fn abs(em: &mut Emitter, x: Value) -> Value {
    if em.b.func.dfg.value_type(x) != F32X4 {
        return em.b.ins().fabs(x);
    }
    let sign = c(em, -0.0);
    em.b.ins().band_not(x, sign)
}

/// |x| as one `andps` with the magnitude mask as its memory operand: for
/// an |x| used once (see [`Emitter::vconst_mem`]).
pub(crate) fn abs_once(em: &mut Emitter, x: Value) -> Value {
    let mag = em.vconst_mem(f32::from_bits(0x7fff_ffff));
    em.b.ins().band(x, mag)
}

/// copysign(a, b) lane-wise (Cranelift's x64 backend has no vector
/// `fcopysign`): the magnitude bits of `a`, the sign bit of `b`.
pub fn copysign(em: &mut Emitter, a: Value, b: Value) -> Value {
    let sign = c(em, -0.0);
    let mag = em.b.ins().band_not(a, sign);
    let sb = em.b.ins().band(b, sign);
    em.b.ins().bor(mag, sb)
}

/// Horner with FMA: `coeffs[0]·r^(n-1) + ... + coeffs[n-1]`. Each
/// coefficient is loaded right before its FMA (a memory operand there
/// when the result is used once).
pub(super) fn horner(em: &mut Emitter, r: Value, coeffs: &[f32]) -> Value {
    let mut p = c(em, coeffs[0]);
    for &k in &coeffs[1..] {
        let kv = em.vconst_mem(k);
        p = em.b.ins().fma(p, r, kv);
    }
    p
}

/// Estrin's scheme with FMA (shorter dependency chains than Horner, for
/// latency-bound loops): `coeffs[0]·r^(n-1) + ... + coeffs[n-1]`, `r2` =
/// r·r. Adjacent coefficients pair from the low end through r, the
/// results through r², r⁴, …; an odd leading one waits a level.
pub(super) fn estrin(em: &mut Emitter, r: Value, r2: Value, coeffs: &[f32]) -> Value {
    let mut v: Vec<Value> = coeffs.iter().map(|&k| c(em, k)).collect();
    let mut x = r;
    let mut next = Some(r2);
    while v.len() > 1 {
        let odd = v.len() % 2;
        let mut w: Vec<Value> = v[..odd].to_vec();
        for pair in v[odd..].chunks_exact(2) {
            w.push(em.b.ins().fma(pair[0], x, pair[1]));
        }
        v = w;
        if v.len() > 1 {
            x = match next.take() {
                Some(p) => p,
                None => em.b.ins().fmul(x, x),
            };
        }
    }
    v[0]
}

/// Truncating F32X4 → I32X4 conversion for values known to fit (NaN
/// lanes give an unspecified integer).
pub(super) fn to_int(em: &mut Emitter, n: Value) -> Value {
    if cfg!(target_arch = "x86_64") {
        em.b.ins().x86_cvtt2dq(I32X4, n)
    } else {
        em.b.ins().fcvt_to_sint_sat(I32X4, n)
    }
}

/// `2^n` for integral F32X4 `n` in [-126, 127] (as exponent bits).
pub(super) fn pow2i(em: &mut Emitter, n: Value) -> Value {
    let ni = to_int(em, n);
    let bias = ci(em, 127);
    let e = em.b.ins().iadd(ni, bias);
    let e = em.b.ins().ishl_imm_s(e, 23);
    float(em, e)
}

/// The two halves of an F32X4 as F64X2 (lanes 0,1 and 2,3), exactly.
pub(super) fn widen(em: &mut Emitter, x: Value) -> (Value, Value) {
    let lo = em.b.ins().fvpromote_low(x);
    let xb = em.b.ins().bitcast(I8X16, le(), x);
    let mask: Vec<u8> = (8..16).chain(8..16).collect();
    let imm = em.b.func.dfg.immediates.push(mask.into());
    let hb = em.b.ins().shuffle(xb, xb, imm);
    let h = em.b.ins().bitcast(F32X4, le(), hb);
    let hi = em.b.ins().fvpromote_low(h);
    (lo, hi)
}

/// Two F64X2 rounded to f32 once and joined into one F32X4.
pub(super) fn narrow(em: &mut Emitter, lo: Value, hi: Value) -> Value {
    let a = em.b.ins().fvdemote(lo);
    let b = em.b.ins().fvdemote(hi);
    let ab = em.b.ins().bitcast(I8X16, le(), a);
    let bb = em.b.ins().bitcast(I8X16, le(), b);
    let mask: Vec<u8> = (0..8).chain(16..24).collect();
    let imm = em.b.func.dfg.immediates.push(mask.into());
    let r = em.b.ins().shuffle(ab, bb, imm);
    em.b.ins().bitcast(F32X4, le(), r)
}

/// An F64X2 constant.
pub(super) fn cd(em: &mut Emitter, v: f64) -> Value {
    let s = em.b.ins().f64const(v);
    em.b.ins().splat(F64X2, s)
}

/// An I64X2 constant.
pub(super) fn cl(em: &mut Emitter, v: i64) -> Value {
    let s = em.b.ins().iconst(cranelift_codegen::ir::types::I64, v);
    em.b.ins().splat(I64X2, s)
}

/// Horner with FMA on F64X2.
pub(super) fn horner_d(em: &mut Emitter, r: Value, coeffs: &[f64]) -> Value {
    let mut p = cd(em, coeffs[0]);
    for &k in &coeffs[1..] {
        let kv = cd(em, k);
        p = em.b.ins().fma(p, r, kv);
    }
    p
}
