//! sin, cos and tan on F32X4 lanes.
//!
//! Range reduction x = q·π/2 + r, |r| ≲ π/4: for |x| ≤ 2^15 Cody–Waite
//! with π/2 in three f32 parts and FMA (the first step is exact); lanes
//! with a larger finite |x| are reduced by Payne–Hanek in 64-bit integer
//! arithmetic (96 bits of 2/π chosen by the exponent, from a static
//! table) on a slow path taken only when some lane needs it. Kernels on
//! r: sin r = r + r³·S(r²), cos r = 1 − r²/2 + r⁴·C(r²), tan r =
//! r + r³·T(r²) (Chebyshev fits of degree 3, 3, 6), chosen and signed by q;
//! tan of odd q is −1/tan r. sin, tan of ±0 keep the sign; inf gives NaN.

use super::lanes::{bits, c, ci, float, fmask, horner, le, sel, to_int};
use crate::codegen::emit::Emitter;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32, F32X4, F64, I32, I64};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value};
use std::convert::Infallible;

/// Bits of 2/π, 32 per word, most significant first; word 0 is the
/// (zero) units word, word k holds bits 32k−31 ..= 32k after the point.
static TWO_OVER_PI: [u32; 12] = [
    0x0000_0000,
    0xa2f9_836e,
    0x4e44_1529,
    0xfc27_57d1,
    0xf534_ddc0,
    0xdb62_9599,
    0x3c43_9041,
    0xfe51_63ab,
    0xdebb_c561,
    0xb724_6e3a,
    0x424d_d2e0,
    0x0649_2eea,
];

/// Above this |x| the Cody–Waite reduction is not used.
const FAST_LIMIT: f32 = 32768.0;

/// Payne–Hanek reduction of one f32 lane (any finite value with
/// |x| ≥ 2^-8; other values give garbage but stay in bounds):
/// (q mod 4 as i32, r as f32).
fn payne_hanek(em: &mut Emitter, xl: Value) -> (Value, Value) {
    let b = &mut em.b;
    let xb = b.ins().bitcast(I32, MemFlagsData::new(), xl);
    let ef = b.ins().ushr_imm_s(xb, 23);
    let ef = b.ins().band_imm_s(ef, 0xff);
    let mant = b.ins().band_imm_s(xb, 0x007f_ffff);
    let mant = b.ins().bor_imm_s(mant, 0x0080_0000);
    let m = b.ins().uextend(I64, mant);
    // Window start: bit E − 1 of 2/π (x = M·2^E, E = ef − 150), i.e.
    // global bit g0 = E + 30 of the table; clamped to stay inside it.
    let g0 = b.ins().iadd_imm_s(ef, -120);
    let zero = b.ins().iconst(I32, 0);
    let g0 = b.ins().smax(g0, zero);
    let top = b.ins().iconst(I32, 160);
    let g0 = b.ins().smin(g0, top);
    let g0 = b.ins().uextend(I64, g0);
    let k = b.ins().ushr_imm_s(g0, 5);
    let sh = b.ins().band_imm_s(g0, 31);
    let off = b.ins().ishl_imm_s(k, 2);
    let base = b.ins().iconst(I64, TWO_OVER_PI.as_ptr() as i64);
    let addr = b.ins().iadd(base, off);
    let fl = MemFlagsData::trusted();
    let w: Vec<Value> = (0..4).map(|i| b.ins().uload32(fl, addr, i * 4)).collect();
    let w0 = b.ins().ishl_imm_s(w[0], 32);
    let a = b.ins().bor(w0, w[1]);
    let w2 = b.ins().ishl_imm_s(w[2], 32);
    let bb = b.ins().bor(w2, w[3]);
    // The 96-bit window W0:W1:W2.
    let ash = b.ins().ishl(a, sh);
    let b1 = b.ins().ushr_imm_s(bb, 1);
    let c63 = b.ins().iconst(I64, 63);
    let rsh = b.ins().isub(c63, sh);
    let bsh = b.ins().ushr(b1, rsh);
    let hi64 = b.ins().bor(ash, bsh);
    let bl = b.ins().ishl(bb, sh);
    let win2 = b.ins().ushr_imm_s(bl, 32);
    let win0 = b.ins().ushr_imm_s(hi64, 32);
    let mask32 = b.ins().iconst(I64, 0xffff_ffff);
    let win1 = b.ins().band(hi64, mask32);
    // P = M·W; bits 95..94 are x·2/π mod 4, bits 93..30 its fraction.
    let a2 = b.ins().imul(m, win2);
    let a1 = b.ins().imul(m, win1);
    let a0 = b.ins().imul(m, win0);
    let a1s = b.ins().ishl_imm_s(a1, 32);
    let lo = b.ins().iadd(a2, a1s);
    let carry = b.ins().icmp(IntCC::UnsignedLessThan, lo, a2);
    let carry = b.ins().uextend(I64, carry);
    let a1h = b.ins().ushr_imm_s(a1, 32);
    let mid = b.ins().iadd(a1h, a0);
    let mid = b.ins().iadd(mid, carry);
    let q = b.ins().ushr_imm_s(mid, 30);
    let q = b.ins().band_imm_s(q, 3);
    let fh = b.ins().ishl_imm_s(mid, 34);
    let flo = b.ins().ushr_imm_s(lo, 30);
    let frac = b.ins().bor(fh, flo);
    // Round to the nearest quadrant: a fraction ≥ ½ is negative as i64.
    let up = b.ins().ushr_imm_s(frac, 63);
    let q = b.ins().iadd(q, up);
    let fd = b.ins().fcvt_from_sint(F64, frac);
    let scale = b
        .ins()
        .f64const(std::f64::consts::FRAC_PI_2 / 18_446_744_073_709_551_616.0);
    let rd = b.ins().fmul(fd, scale);
    let r = b.ins().fdemote(F32, rd);
    let q = b.ins().ireduce(I32, q);
    // Odd symmetry: x < 0 gives −r and −q.
    let neg = b.ins().icmp_imm_s(IntCC::SignedLessThan, xb, 0);
    let nr = b.ins().fneg(r);
    let r = b.ins().select(neg, nr, r);
    let nq = b.ins().ineg(q);
    let q = b.ins().select(neg, nq, q);
    (q, r)
}

/// Cody–Waite reduction (valid for |x| ≤ FAST_LIMIT): (q as I32X4, r).
fn reduce_fast(em: &mut Emitter, x: Value) -> (Value, Value) {
    let two_over_pi = c(em, std::f32::consts::FRAC_2_PI);
    let t = em.b.ins().fmul(x, two_over_pi);
    let j = em.b.ins().nearest(t);
    let p1 = c(em, -1.570_796_4);
    let p2 = c(em, 4.371_138_8e-8);
    let p3 = c(em, 1.715_124_5e-15);
    let r = em.b.ins().fma(j, p1, x);
    let r = em.b.ins().fma(j, p2, r);
    let r = em.b.ins().fma(j, p3, r);
    let q = to_int(em, j);
    (q, r)
}

/// Full reduction: the fast one, with the lanes beyond FAST_LIMIT redone
/// by Payne–Hanek on a branch taken only when some lane needs it.
fn reduce(em: &mut Emitter, x: Value, slow: bool) -> (Value, Value) {
    let (q, r) = reduce_fast(em, x);
    if !slow {
        return (q, r);
    }
    let ax = super::lanes::abs(em, x);
    let lim = c(em, FAST_LIMIT);
    let inf = c(em, f32::INFINITY);
    let big = em.b.ins().fcmp(FloatCC::GreaterThan, ax, lim);
    let fin = em.b.ins().fcmp(FloatCC::LessThan, ax, inf);
    let huge = em.b.ins().band(big, fin);
    let any = em.b.ins().vany_true(huge);
    let Ok([q, r]) = em.rare_branch(any, [q, r], |em| {
        let (mut q2, mut r2) = (q, r);
        for lane in 0..4u8 {
            let xl = em.b.ins().extractlane(x, lane);
            let (ql, rl) = payne_hanek(em, xl);
            q2 = em.b.ins().insertlane(q2, ql, lane);
            r2 = em.b.ins().insertlane(r2, rl, lane);
        }
        let q = em.b.ins().bitselect(huge, q2, q);
        let hf = em.b.ins().bitcast(F32X4, le(), huge);
        Ok::<_, Infallible>([q, em.b.ins().bitselect(hf, r2, r)])
    });
    (q, r)
}

fn sin_kernel(em: &mut Emitter, r: Value, z: Value) -> Value {
    let s = horner(
        em,
        z,
        &[
            2.724914793361677e-06,
            -0.00019840081222355366,
            0.008333331905305386,
            -0.1666666716337204,
        ],
    );
    let rz = em.b.ins().fmul(r, z);
    em.b.ins().fma(rz, s, r)
}

fn cos_kernel(em: &mut Emitter, z: Value) -> Value {
    let cc = horner(
        em,
        z,
        &[
            -2.7300308147459873e-07,
            2.4800594474072568e-05,
            -0.00138888880610466,
            0.0416666679084301,
        ],
    );
    let mhalf = c(em, -0.5);
    let one = c(em, 1.0);
    let w = em.b.ins().fma(mhalf, z, one);
    let z2 = em.b.ins().fmul(z, z);
    em.b.ins().fma(z2, cc, w)
}

/// sin (odd == false) or cos (odd == true: quadrant shifted by one).
fn sincos(em: &mut Emitter, x: Value, cos: bool, slow: bool) -> Value {
    let (q, r) = reduce(em, x, slow);
    let q = if cos {
        let one = ci(em, 1);
        em.b.ins().iadd(q, one)
    } else {
        q
    };
    let z = em.b.ins().fmul(r, r);
    let s = sin_kernel(em, r, z);
    let co = cos_kernel(em, z);
    // Odd quadrants use the other kernel; quadrants 2 and 3 negate.
    let one = ci(em, 1);
    let qo = em.b.ins().band(q, one);
    let odd = em.b.ins().icmp(IntCC::Equal, qo, one);
    let oddf = em.b.ins().bitcast(F32X4, le(), odd);
    let v = sel(em, oddf, co, s);
    let two = ci(em, 2);
    let q2 = em.b.ins().band(q, two);
    let sign = em.b.ins().ishl_imm_s(q2, 30);
    let vb = bits(em, v);
    let vb = em.b.ins().bxor(vb, sign);
    let v = float(em, vb);
    if cos { v } else { keep_zero(em, x, v) }
}

/// ±0 lanes of `x` pass through (the reduction loses the sign of −0).
fn keep_zero(em: &mut Emitter, x: Value, v: Value) -> Value {
    let zero = c(em, 0.0);
    let z = fmask(em, FloatCC::Equal, x, zero);
    sel(em, z, x, v)
}

pub fn sin(em: &mut Emitter, x: Value) -> Value {
    sincos(em, x, false, true)
}

pub fn cos(em: &mut Emitter, x: Value) -> Value {
    sincos(em, x, true, true)
}

fn tan_impl(em: &mut Emitter, x: Value, slow: bool) -> Value {
    let (q, r) = reduce(em, x, slow);
    let z = em.b.ins().fmul(r, r);
    let tp = horner(
        em,
        z,
        &[
            0.003853762289509177,
            0.0011673972476273775,
            0.009973381645977497,
            0.021617919206619263,
            0.05399487167596817,
            0.133332297205925,
            0.3333333432674408,
        ],
    );
    let rz = em.b.ins().fmul(r, z);
    let t = em.b.ins().fma(rz, tp, r);
    let m1 = c(em, -1.0);
    let inv = em.b.ins().fdiv(m1, t);
    let one = ci(em, 1);
    let qo = em.b.ins().band(q, one);
    let odd = em.b.ins().icmp(IntCC::Equal, qo, one);
    let oddf = em.b.ins().bitcast(F32X4, le(), odd);
    let v = sel(em, oddf, inv, t);
    keep_zero(em, x, v)
}

pub fn tan(em: &mut Emitter, x: Value) -> Value {
    tan_impl(em, x, true)
}

/// The branch-free parts (constants before a loop).
pub fn warm(em: &mut Emitter, x: Value) -> Value {
    let _ = sincos(em, x, false, false);
    tan_impl(em, x, false)
}
