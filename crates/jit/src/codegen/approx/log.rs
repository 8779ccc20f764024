//! log (natural) and log1p on F32X4 lanes, fdlibm's method: x = 2^k·m
//! with m in [√½, √2), f = m − 1, s = f/(2+f), log(1+f) = f − f²/2 +
//! s·(f²/2 + R(s²)) with fdlibm's degree-4 R, plus k·ln2 in two parts.
//! Denormal inputs are scaled by 2^23 first. log1p uses u = 1 + x and adds
//! the rounding error of that sum back as (1 + x − u)/u. Special values
//! are selected at the end: log(±0) = −inf, log(x<0) = NaN, log(inf) = inf.

use super::lanes::{bits, c, ci, float, fmask, sel};
use crate::codegen::emit::Emitter;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{InstBuilder, Value};

pub(crate) const LN2_HI: f32 = 6.931_381_2e-1; // 0x3f317180
pub(crate) const LN2_LO: f32 = 9.058_000_6e-6; // 0x3717f7d1

/// log(m·2^k) for positive normal `x` plus `corr` (added among the small
/// terms); `kadj` is added to the exponent.
fn core(em: &mut Emitter, x: Value, kadj: Value, corr: Option<Value>) -> Value {
    let ix = bits(em, x);
    let off = ci(em, 0x3f80_0000 - 0x3f35_04f3);
    let ix = em.b.ins().iadd(ix, off);
    let k = em.b.ins().sshr_imm_s(ix, 23);
    let bias = ci(em, 127);
    let k = em.b.ins().isub(k, bias);
    let k = em.b.ins().iadd(k, kadj);
    let mant = ci(em, 0x007f_ffff);
    let m = em.b.ins().band(ix, mant);
    let base = ci(em, 0x3f35_04f3);
    let m = em.b.ins().iadd(m, base);
    let m = float(em, m);
    let one = c(em, 1.0);
    let f = em.b.ins().fsub(m, one);
    let two = c(em, 2.0);
    let d = em.b.ins().fadd(f, two);
    let s = em.b.ins().fdiv(f, d);
    let z = em.b.ins().fmul(s, s);
    let w = em.b.ins().fmul(z, z);
    let lg1 = c(em, 0.666_666_63);
    let lg2 = c(em, 0.400_009_72);
    let lg3 = c(em, 0.284_987_87);
    let lg4 = c(em, 0.242_790_79);
    let t1 = em.b.ins().fma(w, lg4, lg2);
    let t1 = em.b.ins().fmul(w, t1);
    let t2 = em.b.ins().fma(w, lg3, lg1);
    let r = em.b.ins().fma(z, t2, t1);
    let half = c(em, 0.5);
    let hf = em.b.ins().fmul(half, f);
    let hfsq = em.b.ins().fmul(hf, f);
    let dk =
        em.b.ins()
            .fcvt_from_sint(cranelift_codegen::ir::types::F32X4, k);
    let lo = c(em, LN2_LO);
    let hi = c(em, LN2_HI);
    let small = em.b.ins().fmul(dk, lo);
    let small = match corr {
        Some(cv) => em.b.ins().fadd(small, cv),
        None => small,
    };
    let a = em.b.ins().fadd(hfsq, r);
    let a = em.b.ins().fma(s, a, small);
    let a = em.b.ins().fsub(a, hfsq);
    let a = em.b.ins().fadd(a, f);
    em.b.ins().fma(dk, hi, a)
}

/// Special values shared by log and log1p: `arg` is the argument of the
/// logarithm (x or 1 + x), `y` the polynomial result.
fn specials(em: &mut Emitter, arg: Value, y: Value) -> Value {
    let zero = c(em, 0.0);
    let inf = c(em, f32::INFINITY);
    let ninf = c(em, f32::NEG_INFINITY);
    let nan = c(em, super::lanes::INVALID_NAN);
    let isinf = fmask(em, FloatCC::Equal, arg, inf);
    let y = sel(em, isinf, inf, y);
    let isz = fmask(em, FloatCC::Equal, arg, zero);
    let y = sel(em, isz, ninf, y);
    let neg = fmask(em, FloatCC::LessThan, arg, zero);
    let y = sel(em, neg, nan, y);
    let un = fmask(em, FloatCC::Unordered, arg, arg);
    sel(em, un, arg, y)
}

/// ln(x), lane-wise.
pub fn log(em: &mut Emitter, x: Value) -> Value {
    let minpos = c(em, f32::MIN_POSITIVE);
    let tiny = fmask(em, FloatCC::LessThan, x, minpos);
    let scale = c(em, 8_388_608.0); // 2^23
    let xs = em.b.ins().fmul(x, scale);
    let xa = sel(em, tiny, xs, x);
    let m23 = ci(em, -23);
    let z = ci(em, 0);
    let tiny_i = em.b.ins().bitcast(
        cranelift_codegen::ir::types::I32X4,
        super::lanes::le(),
        tiny,
    );
    let kadj = em.b.ins().bitselect(tiny_i, m23, z);
    let y = core(em, xa, kadj, None);
    specials(em, x, y)
}

/// ln(1 + x), lane-wise.
pub fn log1p(em: &mut Emitter, x: Value) -> Value {
    let one = c(em, 1.0);
    let u = em.b.ins().fadd(one, x);
    // The rounding error of 1 + x (Fast2Sum, larger operand first).
    let ax = super::lanes::abs(em, x);
    let xbig = fmask(em, FloatCC::GreaterThan, ax, one);
    let um1 = em.b.ins().fsub(u, one);
    let e_small = em.b.ins().fsub(x, um1);
    let umx = em.b.ins().fsub(u, x);
    let e_big = em.b.ins().fsub(one, umx);
    let e = sel(em, xbig, e_big, e_small);
    let corr = em.b.ins().fdiv(e, u);
    let z = ci(em, 0);
    let y = core(em, u, z, Some(corr));
    let y = specials(em, u, y);
    // log1p(±0) = ±0; log1p(inf) = inf (the correction is NaN there).
    let zero = c(em, 0.0);
    let isz = fmask(em, FloatCC::Equal, x, zero);
    let y = sel(em, isz, x, y);
    let inf = c(em, f32::INFINITY);
    let isinf = fmask(em, FloatCC::Equal, x, inf);
    sel(em, isinf, inf, y)
}
