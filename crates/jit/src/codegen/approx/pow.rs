//! pow(x, y) and cbrt on F32X4 lanes, computed in f64 lanes (two F64X2
//! halves) so that y·ln|x| carries ~40 good bits and the one final
//! rounding to f32 decides the result:
//!
//! - ln a (a > 0, every f32 is a normal f64): a = 2^k·m, m in [√½, √2),
//!   s = (m−1)/(m+1), ln m = 2·atanh s by its series to s¹³ (relative
//!   error < 1e-12), plus k·ln2.
//! - exp t (t clamped to [−200, 200]): n = round(t/ln2), r = t − n·ln2,
//!   Taylor series to r¹¹, times 2^n by exponent bits; the f64 → f32
//!   rounding makes overflow, denormal results and underflow exact.
//! - pow: exp(y·ln|x|), then the IEEE special cases of powf exactly:
//!   pow(x, ±0) = 1, pow(1, y) = 1 (NaN too), pow(−1, ±inf) = 1, a
//!   negative finite x with non-integer y gives NaN, negative x with an odd
//!   integer y negates (x = −0 and −inf included); ±0 and ±inf follow from
//!   ln 0 = −inf and ln inf = inf.
//! - cbrt: exp(ln|x|/3) with the sign of x; ±0, ±inf and NaN pass through.
//! - pow by a constant half-integer y = k + ½ (|k| ≤ 3, e.g. `abs(x)**1.5`,
//!   `x**-0.5`): √|x|·|x|^k in f64 lanes (k < 0 as 1/(√|x|·|x|^(−k−1)));
//!   at most four f64 roundings, so the one final rounding to f32 is
//!   correct except within ~2⁻⁵⁰ of a tie — no ln/exp. A negative finite x
//!   gives NaN; the other special cases need no fixing: y is not an
//!   integer, so ±0 and ±inf give |x|'s result, and 1 gives 1.

use super::lanes::{bits, c, cd, ci, cl, fmask, horner_d, le, narrow, sel, to_int, widen};
use crate::codegen::emit::Emitter;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F64X2, I64X2};
use cranelift_codegen::ir::{InstBuilder, Value};

fn dmask(em: &mut Emitter, cc: FloatCC, a: Value, b: Value) -> Value {
    let m = em.b.ins().fcmp(cc, a, b);
    em.b.ins().bitcast(F64X2, le(), m)
}

/// An exact f64 from small non-negative integer lanes of an I64X2.
fn small_int_to_f64(em: &mut Emitter, i: Value) -> Value {
    let magic = cl(em, 0x4330_0000_0000_0000);
    let b = em.b.ins().bor(i, magic);
    let f = em.b.ins().bitcast(F64X2, le(), b);
    let two52 = cd(em, 4_503_599_627_370_496.0);
    em.b.ins().fsub(f, two52)
}

/// ln a for F64X2 lanes; a = 0 gives −inf, inf gives inf, NaN stays.
fn ln_d(em: &mut Emitter, a: Value) -> Value {
    let ib = em.b.ins().bitcast(I64X2, le(), a);
    let off = cl(em, 0x3ff0_0000_0000_0000 - 0x3fe6_a09e_667f_3bcd);
    let ix = em.b.ins().iadd(ib, off);
    let e = em.b.ins().ushr_imm_s(ix, 52);
    let mmask = cl(em, 0x000f_ffff_ffff_ffff);
    let m = em.b.ins().band(ix, mmask);
    let base = cl(em, 0x3fe6_a09e_667f_3bcd);
    let m = em.b.ins().iadd(m, base);
    let m = em.b.ins().bitcast(F64X2, le(), m);
    let one = cd(em, 1.0);
    let f = em.b.ins().fsub(m, one);
    let mp1 = em.b.ins().fadd(m, one);
    let s = em.b.ins().fdiv(f, mp1);
    let z = em.b.ins().fmul(s, s);
    let p = horner_d(
        em,
        z,
        &[
            2.0 / 13.0,
            2.0 / 11.0,
            2.0 / 9.0,
            2.0 / 7.0,
            2.0 / 5.0,
            2.0 / 3.0,
            2.0,
        ],
    );
    let lm = em.b.ins().fmul(s, p);
    let ed = small_int_to_f64(em, e);
    let bias = cd(em, 1023.0);
    let k = em.b.ins().fsub(ed, bias);
    let ln2 = cd(em, std::f64::consts::LN_2);
    let l = em.b.ins().fma(k, ln2, lm);
    let zero = cd(em, 0.0);
    let inf = cd(em, f64::INFINITY);
    let ninf = cd(em, f64::NEG_INFINITY);
    let isz = dmask(em, FloatCC::Equal, a, zero);
    let l = em.b.ins().bitselect(isz, ninf, l);
    let isinf = dmask(em, FloatCC::Equal, a, inf);
    let l = em.b.ins().bitselect(isinf, inf, l);
    let un = dmask(em, FloatCC::Unordered, a, a);
    em.b.ins().bitselect(un, a, l)
}

/// exp t for F64X2 lanes, t clamped to [−200, 200] (NaN stays NaN).
pub(super) fn exp_d(em: &mut Emitter, t: Value) -> Value {
    let lo = cd(em, -200.0);
    let hi = cd(em, 200.0);
    let below = dmask(em, FloatCC::LessThan, t, lo);
    let t = em.b.ins().bitselect(below, lo, t);
    let above = dmask(em, FloatCC::GreaterThan, t, hi);
    let t = em.b.ins().bitselect(above, hi, t);
    let log2e = cd(em, std::f64::consts::LOG2_E);
    let u = em.b.ins().fmul(t, log2e);
    let n = em.b.ins().nearest(u);
    let mln2 = cd(em, -std::f64::consts::LN_2);
    let r = em.b.ins().fma(n, mln2, t);
    let mut coeffs = [0.0f64; 12];
    let mut f = 1.0f64;
    for (i, slot) in coeffs.iter_mut().rev().enumerate() {
        if i > 0 {
            f *= i as f64;
        }
        *slot = 1.0 / f;
    }
    let p = horner_d(em, r, &coeffs);
    // 2^n: n + 1.5·2^52 puts n in the low bits; (n + 1023) << 52.
    let magic = cd(em, 6_755_399_441_055_744.0);
    let nm = em.b.ins().fadd(n, magic);
    let nb = em.b.ins().bitcast(I64X2, le(), nm);
    let bias = cl(em, 1023);
    let eb = em.b.ins().iadd(nb, bias);
    let eb = em.b.ins().ishl_imm_s(eb, 52);
    let sc = em.b.ins().bitcast(F64X2, le(), eb);
    em.b.ins().fmul(p, sc)
}

/// `k` when `y` is a splat constant k + ½ with |k| ≤ 3.
fn half_integer(em: &Emitter, y: Value) -> Option<i32> {
    let v = f32::from_bits(em.splat_constant(y)?);
    let k = v - 0.5;
    (k.fract() == 0.0 && k.abs() <= 3.0).then_some(k as i32)
}

/// a^k·√a on F64X2 lanes (a ≥ 0 or NaN), `k` in −3..=3; a negative k
/// as 1 / (a^m·√a), m = −k − 1, so that a = 0 gives inf and inf gives 0.
fn half_power_d(em: &mut Emitter, a: Value, k: i32) -> Value {
    let m = if k < 0 { -k - 1 } else { k };
    let mut r = em.b.ins().sqrt(a);
    for _ in 0..m {
        r = em.b.ins().fmul(r, a);
    }
    if k < 0 {
        let one = cd(em, 1.0);
        r = em.b.ins().fdiv(one, r);
    }
    r
}

/// pow(x, k + ½) for a constant half-integer exponent (see the module doc).
fn pow_half(em: &mut Emitter, x: Value, k: i32) -> Value {
    let ax = super::lanes::abs(em, x);
    let (a0, a1) = widen(em, ax);
    let r0 = half_power_d(em, a0, k);
    let r1 = half_power_d(em, a1, k);
    let r = narrow(em, r0, r1);
    let zero = c(em, 0.0);
    let ninf = c(em, f32::NEG_INFINITY);
    let xneg = fmask(em, FloatCC::LessThan, x, zero);
    let xfin = fmask(em, FloatCC::GreaterThan, x, ninf);
    let bad = em.b.ins().band(xneg, xfin);
    let nan = c(em, super::lanes::INVALID_NAN);
    sel(em, bad, nan, r)
}

/// pow(x, y) (the evaluator's `x.powf(y)`), lane-wise.
pub fn pow(em: &mut Emitter, x: Value, y: Value) -> Value {
    if let Some(k) = half_integer(em, y) {
        return pow_half(em, x, k);
    }
    let ax = super::lanes::abs(em, x);
    let (a0, a1) = widen(em, ax);
    let (y0, y1) = widen(em, y);
    let l0 = ln_d(em, a0);
    let l1 = ln_d(em, a1);
    let t0 = em.b.ins().fmul(y0, l0);
    let t1 = em.b.ins().fmul(y1, l1);
    let r0 = exp_d(em, t0);
    let r1 = exp_d(em, t1);
    let r = narrow(em, r0, r1);
    // y integral (±inf counts, as an even integer) and y odd.
    let ty = em.b.ins().trunc(y);
    let yint = fmask(em, FloatCC::Equal, ty, y);
    let ay = super::lanes::abs(em, y);
    let two24 = c(em, 16_777_216.0);
    let ysmall = fmask(em, FloatCC::LessThan, ay, two24);
    let yi = to_int(em, y);
    let one_i = ci(em, 1);
    let ylow = em.b.ins().band(yi, one_i);
    let yodd = em.b.ins().icmp(IntCC::Equal, ylow, one_i);
    let yodd =
        em.b.ins()
            .bitcast(cranelift_codegen::ir::types::F32X4, le(), yodd);
    let yodd = em.b.ins().band(yodd, ysmall);
    let yodd = em.b.ins().band(yodd, yint);
    // Negative x (sign bit) with odd y: negate.
    let xb = bits(em, x);
    let signbit = ci(em, i32::MIN);
    let xs = em.b.ins().band(xb, signbit);
    let rb = bits(em, r);
    let oddi = bits(em, yodd);
    let flip = em.b.ins().band(xs, oddi);
    let rb = em.b.ins().bxor(rb, flip);
    let r = super::lanes::float(em, rb);
    // Negative finite x, non-integer y: NaN.
    let zero = c(em, 0.0);
    let ninf = c(em, f32::NEG_INFINITY);
    let xneg = fmask(em, FloatCC::LessThan, x, zero);
    let xfin = fmask(em, FloatCC::GreaterThan, x, ninf);
    let bad = em.b.ins().band(xneg, xfin);
    let bad = em.b.ins().band_not(bad, yint);
    let nan = c(em, super::lanes::INVALID_NAN);
    let r = sel(em, bad, nan, r);
    // pow(±1, ±inf) = 1, pow(1, y) = 1, pow(x, ±0) = 1.
    let one = c(em, 1.0);
    let inf = c(em, f32::INFINITY);
    let axone = fmask(em, FloatCC::Equal, ax, one);
    let yinf = fmask(em, FloatCC::Equal, ay, inf);
    let m = em.b.ins().band(axone, yinf);
    let r = sel(em, m, one, r);
    let xone = fmask(em, FloatCC::Equal, x, one);
    let r = sel(em, xone, one, r);
    let yz = fmask(em, FloatCC::Equal, y, zero);
    sel(em, yz, one, r)
}

/// cbrt(x) (the evaluator's `x.cbrt()`), lane-wise.
pub fn cbrt(em: &mut Emitter, x: Value) -> Value {
    let ax = super::lanes::abs(em, x);
    let (a0, a1) = widen(em, ax);
    let third = cd(em, 1.0 / 3.0);
    let l0 = ln_d(em, a0);
    let l1 = ln_d(em, a1);
    let t0 = em.b.ins().fmul(l0, third);
    let t1 = em.b.ins().fmul(l1, third);
    let r0 = exp_d(em, t0);
    let r1 = exp_d(em, t1);
    let r = narrow(em, r0, r1);
    let inf = c(em, f32::INFINITY);
    let isinf = fmask(em, FloatCC::Equal, ax, inf);
    let r = sel(em, isinf, inf, r);
    let r = super::lanes::copysign(em, r, x);
    let n = fmask(em, FloatCC::Unordered, x, x);
    sel(em, n, x, r)
}
