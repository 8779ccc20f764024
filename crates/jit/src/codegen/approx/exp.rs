//! exp, expm1, tanh and logistic on F32X4 lanes.
//!
//! - exp: lanes with |x| ≤ 86: n = round(x·log2 e) by the 1.5·2^23
//!   trick, r = x − n·ln2 (two-part ln2), a degree-6 polynomial (Horner),
//!   n added to the result's exponent bits. Other lanes take the full
//!   version: x clamped to [-104, 89], scaled by 2^(n/2)·2^(n−n/2) so
//!   denormal results and overflow to +inf come out right.
//! - expm1: x clamped to [-30, 89]; the same reduction; expm1(r) =
//!   r + r²·h(r) (degree-6 fit); 2^n·expm1(r) + (2^n − 1) as one FMA.
//! - tanh: e/(e + 2) with e = expm1(2|x|) (|x| capped at 20), the sign of
//!   x put back: one branch-free formula, no cancellation near 0.
//! - logistic: 1/(1 + exp(−x)), as the evaluator defines it, with exp(−x)
//!   from the f64 exp of `pow` (rounded once to f32).

use super::lanes::{c, ci, estrin, fmask, horner, le, minmax, pow2i, sel};
use crate::codegen::emit::Emitter;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::types::{F32X4, I32X4};
use cranelift_codegen::ir::{InstBuilder, Value};
use std::convert::Infallible;

/// Below this |x| the fast path of [`exp`] holds: n ∈ [-125, 125], so
/// p·2^n (p ∈ [0.7, 1.42]) is a normal number and the scaling can add n
/// to p's exponent bits.
pub(crate) const EXP_FAST_LIMIT: f32 = 86.0;

/// h(r) = k0 r⁶ + … + k6 with expm1(r) = r + r²·h(r) on |r| ≤ ln2/2
/// (Chebyshev fit, error 3e-11).
pub(crate) const EXPM1_H: [f32; 7] = [
    2.4859913537511602e-05,
    0.0001989961019717157,
    0.0013888853136450052,
    0.0083332983776927,
    0.0416666679084301,
    0.1666666716337204,
    0.5,
];

/// exp's fast path: e^r on |r| ≤ ln2/2 as a degree-6 polynomial (Horner).
pub(crate) const EXP_FAST_POLY: [f32; 7] = [
    1.375_140_7e-3,
    8.368_916e-3,
    4.166_953_3e-2,
    1.666_651_8e-1,
    4.999_998_8e-1,
    1.0,
    1.0,
];

/// exp's complete path: (e^r − 1 − r)/r² (Cephes), Horner.
#[allow(clippy::excessive_precision)]
pub(crate) const EXP_FULL_POLY: [f32; 6] = [
    1.987_569_1e-4,
    1.398_2e-3,
    8.333_452e-3,
    4.166_579_6e-2,
    1.666_666_5e-1,
    5.000_000_1e-1,
];

/// 1.5·2^23: adding it rounds to an integer held in the low mantissa bits.
pub(crate) const ROUND_MAGIC: f32 = 12_582_912.0;
/// 1.5·2^23 + 127: the same, the integer biased as an f32 exponent.
pub(crate) const ROUND_MAGIC_BIASED: f32 = 12_583_039.0;

/// exp(x), lane-wise: lanes with |x| ≤ 86 take the fast path
/// (`exp_fast`), any other (NaN, overflow, denormal results) the complete
/// one (`exp_full`), so a lane's result does not depend on its
/// neighbours (vector body and scalar remainder agree bit for bit). In a
/// kernel's optimistic vector loop (`rowcheck`) the fast path runs alone
/// and an out-of-range lane sends the row to the exact redo; elsewhere a
/// vector with such a lane branches to the complete version.
pub fn exp(em: &mut Emitter, x: Value) -> Value {
    if em.warming {
        let _ = exp_full(em, x);
        return exp_fast(em, x);
    }
    let fast = exp_fast(em, x);
    let ax = super::lanes::abs_once(em, x);
    let lim = em.vconst_mem(EXP_FAST_LIMIT);
    let bad = em.b.ins().fcmp(FloatCC::UnorderedOrGreaterThan, ax, lim);
    if let Some(mut rc) = em.row_check.take() {
        rc.flag(&mut em.b, bad);
        em.row_check = Some(rc);
        return fast;
    }
    let any = em.b.ins().vany_true(bad);
    let Ok([v]) = em.rare_branch(any, [fast], |em| {
        let full = exp_full(em, x);
        let m = em.b.ins().bitcast(F32X4, le(), bad);
        Ok::<_, Infallible>([sel(em, m, full, fast)])
    });
    v
}

/// exp(x) for |x| ≤ 86: n = round(x·log2 e) by adding 1.5·2^23 (whose
/// low mantissa bits then hold n), r = x − n·ln2 (two-part ln2), e^r as
/// a degree-6 polynomial in Horner form (relative error 2^-28 on
/// |r| ≤ ln2/2 before rounding; a throughput-bound loop prefers Horner's
/// fewer operations), and 2^n applied by adding n to its exponent bits.
fn exp_fast(em: &mut Emitter, x: Value) -> Value {
    let (t, r) = reduce_ln2(em, x, ROUND_MAGIC);
    let p = horner(em, r, &EXP_FAST_POLY);
    let tb = em.b.ins().bitcast(I32X4, le(), t);
    let n23 = em.b.ins().ishl_imm_s(tb, 23);
    let pb = em.b.ins().bitcast(I32X4, le(), p);
    let e = em.b.ins().iadd(pb, n23);
    em.b.ins().bitcast(F32X4, le(), e)
}

/// The range reduction of the fast exp/expm1: `t = x·log2 e + magic`
/// (1.5·2^23, optionally plus 127) rounds n = round(x·log2 e) into t's
/// low mantissa bits, and r = x − n·ln2 (two-part ln2). Returns (t, r);
/// valid while |n| ≤ 126.
fn reduce_ln2(em: &mut Emitter, x: Value, magic: f32) -> (Value, Value) {
    reduce_ln2_scaled(em, x, x, 1.0, magic)
}

/// 2^n from the `t` of [`reduce_ln2`] (its biased exponent moved into place).
fn pow2_of_reduction(em: &mut Emitter, t: Value) -> Value {
    let tb = em.b.ins().bitcast(I32X4, le(), t);
    let e = em.b.ins().ishl_imm_s(tb, 23);
    em.b.ins().bitcast(F32X4, le(), e)
}

/// exp(x) on the whole f32 range.
fn exp_full(em: &mut Emitter, x: Value) -> Value {
    // Clamp with compare+select (NaN fails both compares and stays).
    let x = clamp(em, x, -104.0, 89.0);
    let log2e = c(em, std::f32::consts::LOG2_E);
    let t = em.b.ins().fmul(x, log2e);
    let n = em.b.ins().nearest(t);
    let c1 = c(em, -0.693_359_4);
    let c2 = c(em, 2.121_944_4e-4);
    let r = em.b.ins().fma(n, c1, x);
    let r = em.b.ins().fma(n, c2, r);
    let p = horner(em, r, &EXP_FULL_POLY);
    let r2 = em.b.ins().fmul(r, r);
    let p = em.b.ins().fma(p, r2, r);
    let one = c(em, 1.0);
    let p = em.b.ins().fadd(p, one);
    // n is integral and within [-150, 129] (NaN lanes give garbage
    // scales but p is NaN there), so the plain truncating conversion does.
    let ni = if cfg!(target_arch = "x86_64") {
        em.b.ins().x86_cvtt2dq(I32X4, n)
    } else {
        em.b.ins().fcvt_to_sint_sat(I32X4, n)
    };
    let n1 = em.b.ins().sshr_imm_s(ni, 1);
    let n2 = em.b.ins().isub(ni, n1);
    let bias = ci(em, 127);
    let e1 = em.b.ins().iadd(n1, bias);
    let e1 = em.b.ins().ishl_imm_s(e1, 23);
    let e2 = em.b.ins().iadd(n2, bias);
    let e2 = em.b.ins().ishl_imm_s(e2, 23);
    let s1 = em.b.ins().bitcast(F32X4, le(), e1);
    let s2 = em.b.ins().bitcast(F32X4, le(), e2);
    let y = em.b.ins().fmul(p, s1);
    em.b.ins().fmul(y, s2)
}

/// tanh(x), lane-wise: with e = expm1(2|x|) (|x| capped at 20, where
/// tanh is 1 in f32), tanh|x| = e / (e + 2), no cancellation for small x
/// and one branch-free formula for every x; the sign of x is put back.
/// The loop around it is latency-bound (a few vectors fit the
/// out-of-order window), so the chain is kept short: the doubling of |x|
/// runs beside the rounding of n (2·log2 e is exact), and e and e + 2
/// are two FMAs from the same 2^n·expm1(r) (e + 2 = 2^n·p + (2^n + 1)).
pub fn tanh(em: &mut Emitter, x: Value) -> Value {
    let ax = super::lanes::abs(em, x);
    // NaN passes through the min (and stays NaN through expm1).
    let cap = c(em, 20.0);
    let ax = minmax(em, false, cap, ax);
    let t = em.b.ins().fadd(ax, ax);
    let (tt, r) = reduce_ln2_scaled(em, ax, t, 2.0, ROUND_MAGIC_BIASED);
    let p = expm1_reduced(em, r);
    let s = pow2_of_reduction(em, tt);
    let one = c(em, 1.0);
    let sm1 = em.b.ins().fsub(s, one);
    let sp1 = em.b.ins().fadd(s, one);
    let e = em.b.ins().fma(s, p, sm1);
    let d = em.b.ins().fma(s, p, sp1);
    let q = em.b.ins().fdiv(e, d);
    // q >= +0 (or a NaN without its sign bit: t came from |x|), so the
    // sign of x is just OR-ed in (copysign would also clear q's sign).
    let sign = c(em, -0.0);
    let sx = em.b.ins().band(x, sign);
    em.b.ins().bor(q, sx)
}

/// [`reduce_ln2`] of `t = k·u` (k a power of two, `t` computed by the
/// caller): n = round(u·(k·log2 e)) is rounded from `u` directly, so the
/// product k·u is not on n's path; r = t − n·ln2.
fn reduce_ln2_scaled(em: &mut Emitter, u: Value, t: Value, k: f32, magic: f32) -> (Value, Value) {
    let klog2e = c(em, k * std::f32::consts::LOG2_E);
    let magic = c(em, magic);
    let tt = em.b.ins().fma(u, klog2e, magic);
    let n = em.b.ins().fsub(tt, magic);
    let c1 = c(em, -0.693_359_4);
    let c2 = c(em, 2.121_944_4e-4);
    let r = em.b.ins().fma(n, c1, t);
    (tt, em.b.ins().fma(n, c2, r))
}

/// expm1(r) = r + r²·h(r) for |r| ≤ ln2/2 (h in Estrin form: the loops
/// around tanh are latency-bound).
fn expm1_reduced(em: &mut Emitter, r: Value) -> Value {
    let r2 = em.b.ins().fmul(r, r);
    let h = estrin(em, r, r2, &EXPM1_H);
    em.b.ins().fma(r2, h, r)
}

/// logistic(x) = 1/(1 + exp(-x)), lane-wise: exp(−x) is computed in f64
/// lanes and rounded once (so it is the correctly rounded f32 but for
/// rare near-ties), then 1 + e and 1/(…) in f32 exactly as the evaluator
/// does (an f32 exp's last-bit error would be amplified by the tie
/// rounding of 1 + e for e ≥ 2^24).
pub fn logistic(em: &mut Emitter, x: Value) -> Value {
    let nx = em.b.ins().fneg(x);
    let (a, b) = super::lanes::widen(em, nx);
    let ea = super::pow::exp_d(em, a);
    let eb = super::pow::exp_d(em, b);
    let e = super::lanes::narrow(em, ea, eb);
    let one = c(em, 1.0);
    let d = em.b.ins().fadd(one, e);
    em.b.ins().fdiv(one, d)
}

/// x clamped to [lo, hi]; NaN stays NaN.
pub(super) fn clamp(em: &mut Emitter, x: Value, lo: f32, hi: f32) -> Value {
    let lov = c(em, lo);
    let hiv = c(em, hi);
    let below = fmask(em, FloatCC::LessThan, x, lov);
    let x = sel(em, below, lov, x);
    minmax(em, false, hiv, x)
}

/// expm1(x) = exp(x) − 1, lane-wise.
pub fn expm1(em: &mut Emitter, x0: Value) -> Value {
    let x = clamp(em, x0, -30.0, 89.0);
    let log2e = c(em, std::f32::consts::LOG2_E);
    let t = em.b.ins().fmul(x, log2e);
    let n = em.b.ins().nearest(t);
    // r = x − n·ln2 (the first product is exact, n has ≤ 8 bits).
    let c1 = c(em, -0.693_359_4);
    let c2 = c(em, 2.121_944_4e-4);
    let r = em.b.ins().fma(n, c1, x);
    let r = em.b.ins().fma(n, c2, r);
    // expm1(r) = r + r²·h(r), |r| ≤ ln2/2 (Chebyshev fit, error 3e-11).
    let h = horner(em, r, &EXPM1_H);
    let r2 = em.b.ins().fmul(r, r);
    let p = em.b.ins().fma(r2, h, r);
    // 2^n·p + (2^n − 1) with one rounding; n = 128 is done as 2·(2^127…).
    let top = c(em, 127.0);
    let nn = em.b.ins().fmin(n, top);
    let s = pow2i(em, nn);
    let one = c(em, 1.0);
    let sm1 = em.b.ins().fsub(s, one);
    let y = em.b.ins().fma(s, p, sm1);
    let two = c(em, 2.0);
    let y2 = em.b.ins().fmul(y, two);
    let big = fmask(em, FloatCC::GreaterThan, n, top);
    let y = sel(em, big, y2, y);
    // expm1(±0) = ±0 (the reduction loses the sign of −0).
    let zero = c(em, 0.0);
    let z = fmask(em, FloatCC::Equal, x0, zero);
    sel(em, z, x0, y)
}
