//! erf on F32X4 lanes (the evaluator uses libm's `erff`).
//!
//! |x| < 1: x·P(x²) (Chebyshev fit of erf(x)/x, degree 6 in x²);
//! 1 ≤ |x| < 3.92: 1 − exp(−x²)·g(|x|), g = erfc·exp(x²) fitted in two
//! pieces ([1, 2] and [2, 3.92], degree 8 about the middle, coefficients
//! chosen per lane), exp(−x²) with x² split exactly in two by FMA;
//! beyond: ±1. NaN stays NaN; erf(±0) = ±0.

use super::lanes::{c, fmask, horner, sel};
use crate::codegen::emit::Emitter;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{InstBuilder, Value};

/// erf(x)/x as a polynomial in x² for |x| < 1.
pub(crate) const SMALL: [f32; 7] = [
    7.875874871388078e-05,
    -0.000801686430349946,
    0.005189087241888046,
    -0.02685421146452427,
    0.11283594369888306,
    -0.3761262595653534,
    1.1283791065216064,
];
pub(crate) const G1: [f32; 9] = [
    0.00023661853629164398,
    -0.0007043126388452947,
    0.001883612829260528,
    -0.005137920379638672,
    0.013377516530454159,
    -0.03293146565556526,
    0.0761510357260704,
    -0.1636229008436203,
    0.32158541679382324,
];
pub(crate) const G2: [f32; 9] = [
    6.3269308157032356e-06,
    -2.574519021436572e-05,
    8.91629679244943e-05,
    -0.0003427540068514645,
    0.0012900481233373284,
    -0.004680967889726162,
    0.016433846205472946,
    -0.0556647889316082,
    0.1812017410993576,
];

/// erf(x), lane-wise.
pub fn erf(em: &mut Emitter, x: Value) -> Value {
    let ax = super::lanes::abs(em, x);
    // Small: x·P(x²).
    let z = em.b.ins().fmul(x, x);
    let p = horner(em, z, &SMALL);
    let small = em.b.ins().fmul(x, p);
    // Large: 1 − exp(−x²)·g(|x|).
    let two = c(em, 2.0);
    let second = fmask(em, FloatCC::GreaterThanOrEqual, ax, two);
    let c1 = c(em, 1.5);
    let c2 = c(em, 2.96);
    let ctr = sel(em, second, c2, c1);
    let t = em.b.ins().fsub(ax, ctr);
    let mut g = {
        let a = c(em, G2[0]);
        let b = c(em, G1[0]);
        sel(em, second, a, b)
    };
    for i in 1..9 {
        let a = c(em, G2[i]);
        let b = c(em, G1[i]);
        let k = sel(em, second, a, b);
        g = em.b.ins().fma(g, t, k);
    }
    let hi = em.b.ins().fmul(ax, ax);
    let nhi = em.b.ins().fneg(hi);
    let lo = em.b.ins().fma(ax, ax, nhi);
    let e = super::exp::exp(em, nhi);
    // exp(−hi − lo) = exp(−hi)·(1 − lo) to first order (|lo| ≤ 2^-22).
    let one = c(em, 1.0);
    let el = em.b.ins().fmul(e, lo);
    let e = em.b.ins().fsub(e, el);
    let erfc = em.b.ins().fmul(e, g);
    let big = em.b.ins().fsub(one, erfc);
    let lim = c(em, 3.92);
    let sat = fmask(em, FloatCC::GreaterThanOrEqual, ax, lim);
    let big = sel(em, sat, one, big);
    let big = super::lanes::copysign(em, big, x);
    let m = fmask(em, FloatCC::LessThan, ax, one);
    let r = sel(em, m, small, big);
    let n = fmask(em, FloatCC::Unordered, x, x);
    sel(em, n, x, r)
}
