//! atan2(y, x) on F32X4 lanes: t = min(|y|,|x|)/max(|y|,|x|) in [0, 1],
//! atan t = t + t³·P(t²) (Chebyshev fit of degree 10, no further
//! reduction), then K ± a with K = π/2 when |y| > |x|, π when x has its
//! sign bit set (K in two parts, rounded once), and the sign of y. 0/0 counts as t = 0 and inf/inf
//! as t = 1, which gives every IEEE special case of atan2 (±0, ±inf);
//! NaN in either operand gives NaN.

use super::lanes::{bits, c, ci, float, fmask, horner, sel};
use crate::codegen::emit::Emitter;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{InstBuilder, Value};

/// atan(t) for t in [0, 1].
fn atan01(em: &mut Emitter, t: Value) -> Value {
    let z = em.b.ins().fmul(t, t);
    let p = horner(
        em,
        z,
        &[
            -0.0009362994460389018,
            0.0062072547152638435,
            -0.019261080771684647,
            0.03832744434475899,
            -0.05760715901851654,
            0.07417497038841248,
            -0.09036742150783539,
            0.11104706674814224,
            -0.14285318553447723,
            0.19999989867210388,
            -0.3333333432674408,
        ],
    );
    let tz = em.b.ins().fmul(t, z);
    em.b.ins().fma(tz, p, t)
}

/// atan2(y, x) (the evaluator's `y.atan2(x)`), lane-wise.
pub fn atan2(em: &mut Emitter, y: Value, x: Value) -> Value {
    let ay = super::lanes::abs(em, y);
    let ax = super::lanes::abs(em, x);
    let swap = fmask(em, FloatCC::GreaterThan, ay, ax);
    let n = sel(em, swap, ax, ay);
    let d = sel(em, swap, ay, ax);
    let t = em.b.ins().fdiv(n, d);
    // 0/0 → 0 and inf/inf → 1 (NaN operands are handled at the end).
    let inf = c(em, f32::INFINITY);
    let one = c(em, 1.0);
    let zero = c(em, 0.0);
    let yinf = fmask(em, FloatCC::Equal, ay, inf);
    let fix = sel(em, yinf, one, zero);
    let tn = fmask(em, FloatCC::Unordered, t, t);
    let t = sel(em, tn, fix, t);
    let a = atan01(em, t);
    // atan(1) is π/4 correctly rounded (the polynomial is 1 ulp low there).
    let t1 = fmask(em, FloatCC::Equal, t, one);
    let pio4 = c(em, std::f32::consts::FRAC_PI_4);
    let a = sel(em, t1, pio4, a);
    // Quadrant: K + ±a with K = 0, π/2 (|y| > |x|) or π (x negative, sign
    // bit included), the sign of a flipped when exactly one holds;
    // K in two parts, K_hi + (±a + K_lo) rounds once at the end.
    let xb = bits(em, x);
    let zi = ci(em, 0);
    let xneg = em.b.ins().icmp(IntCC::SignedLessThan, xb, zi);
    let xneg = float(em, xneg);
    let flip = em.b.ins().bxor(swap, xneg);
    let signbit = c(em, -0.0);
    let fl = em.b.ins().band(flip, signbit);
    let sa = em.b.ins().bxor(a, fl);
    let pio2_hi = c(em, 1.570_796_4);
    let pio2_lo = c(em, -4.371_139e-8);
    let pi_hi = c(em, std::f32::consts::PI);
    let pi_lo = c(em, -8.742_278e-8);
    let khi = sel(em, xneg, pi_hi, zero);
    let khi = sel(em, swap, pio2_hi, khi);
    let klo = sel(em, xneg, pi_lo, zero);
    let klo = sel(em, swap, pio2_lo, klo);
    let s = em.b.ins().fadd(sa, klo);
    let a = em.b.ins().fadd(khi, s);
    // Sign of y.
    let r = super::lanes::copysign(em, a, y);
    // A NaN operand propagates as libm's `x + y` does.
    let xn = fmask(em, FloatCC::Unordered, x, y);
    let nan = em.b.ins().fadd(x, y);
    sel(em, xn, nan, r)
}
