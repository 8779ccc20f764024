//! Inline vectorized approximations of transcendental functions (F32X4):
//! range reduction plus polynomial, no calls. `unary` returns `None` for
//! functions without an inline version (the caller then uses the host
//! function lane by lane). Scalar f32 uses the same code on one lane, so
//! vector and remainder lanes agree. Errors against the evaluator are
//! measured by the `ulp` test and documented in docs/SEMANTICS.md.
//!
//! - exp: x clamped to [-104, 89]; n = round(x·log2 e); r = x − n·ln2
//!   (two-part ln2); Cephes degree-6 polynomial; scaled by 2^(n/2)·2^(n−n/2)
//!   so denormal results and overflow to +inf come out right.
//! - tanh: |x| < 0.625: Cephes odd polynomial; else 1 − 2/(exp(2|x|)+1)
//!   with the sign of x.
//! - logistic: 1/(1 + exp(−x)), as the evaluator defines it.

// The coefficients are quoted as published (Cephes), digits beyond f32 included.
#![allow(clippy::excessive_precision)]

use super::emit::Emitter;
use crate::error::Result;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::types::{F32X4, I32, I32X4};
use cranelift_codegen::ir::{Endianness, InstBuilder, MemFlagsData, Value};
use rxla_ir::UnaryOp;

fn le() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

fn c(em: &mut Emitter, v: f32) -> Value {
    em.vconst(v)
}

/// Makes every constant of the approximations now (before a loop), so
/// the loop body reuses them.
pub fn warm(em: &mut Emitter) {
    let x = em.vconst(0.0);
    let _ = tanh(em, x);
}

fn ci(em: &mut Emitter, v: i32) -> Value {
    let s = em.b.ins().iconst(I32, v as i64);
    em.b.ins().splat(I32X4, s)
}

/// Horner with FMA: `coeffs[0]·r^(n-1) + ... + coeffs[n-1]`.
fn horner(em: &mut Emitter, r: Value, coeffs: &[f32]) -> Value {
    let mut p = c(em, coeffs[0]);
    for &k in &coeffs[1..] {
        let kv = c(em, k);
        p = em.b.ins().fma(p, r, kv);
    }
    p
}

/// exp(x), lane-wise.
pub fn exp(em: &mut Emitter, x: Value) -> Value {
    let lo = c(em, -104.0);
    let hi = c(em, 89.0);
    // Clamp with compare+select (NaN fails both compares and stays).
    let below = em.b.ins().fcmp(FloatCC::LessThan, x, lo);
    let below = em.b.ins().bitcast(F32X4, le(), below);
    let x = em.b.ins().bitselect(below, lo, x);
    let above = em.b.ins().fcmp(FloatCC::GreaterThan, x, hi);
    let above = em.b.ins().bitcast(F32X4, le(), above);
    let x = em.b.ins().bitselect(above, hi, x);
    let log2e = c(em, std::f32::consts::LOG2_E);
    let t = em.b.ins().fmul(x, log2e);
    let n = em.b.ins().nearest(t);
    let c1 = c(em, -0.693_359_4);
    let c2 = c(em, 2.121_944_4e-4);
    let r = em.b.ins().fma(n, c1, x);
    let r = em.b.ins().fma(n, c2, r);
    let p = horner(
        em,
        r,
        &[
            1.987_569_1e-4,
            1.398_2e-3,
            8.333_452e-3,
            4.166_579_6e-2,
            1.666_666_5e-1,
            5.000_000_1e-1,
        ],
    );
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

/// tanh(x), lane-wise.
pub fn tanh(em: &mut Emitter, x: Value) -> Value {
    let ax = em.b.ins().fabs(x);
    // Small |x|: x + x·z·P(z), z = x².
    let z = em.b.ins().fmul(x, x);
    let p = horner(
        em,
        z,
        &[
            -5.704_988_7e-3,
            2.063_908_9e-2,
            -5.373_971_6e-2,
            1.333_144_2e-1,
            -3.333_328_2e-1,
        ],
    );
    let pz = em.b.ins().fmul(p, z);
    let small = em.b.ins().fma(pz, x, x);
    // Large |x|: 1 - 2/(exp(2|x|) + 1), sign of x.
    let two = c(em, 2.0);
    let ax2 = em.b.ins().fmul(ax, two);
    let e = exp(em, ax2);
    let one = c(em, 1.0);
    let d = em.b.ins().fadd(e, one);
    let q = em.b.ins().fdiv(two, d);
    let t = em.b.ins().fsub(one, q);
    let ti = em.b.ins().bitcast(I32X4, le(), t);
    let xi = em.b.ins().bitcast(I32X4, le(), x);
    let sign = ci(em, i32::MIN);
    let sx = em.b.ins().band(xi, sign);
    let li = em.b.ins().bor(ti, sx);
    let large = em.b.ins().bitcast(F32X4, le(), li);
    // tanh is odd: the small branch keeps x's sign too (fma(pz, -0, -0)
    // would give +0 for x = -0).
    let si = em.b.ins().bitcast(I32X4, le(), small);
    let si = em.b.ins().bor(si, sx);
    let small = em.b.ins().bitcast(F32X4, le(), si);
    let lim = c(em, 0.625);
    let m = em.b.ins().fcmp(FloatCC::LessThan, ax, lim);
    let m = em.b.ins().bitcast(F32X4, le(), m);
    em.b.ins().bitselect(m, small, large)
}

/// logistic(x) = 1/(1 + exp(-x)), lane-wise.
pub fn logistic(em: &mut Emitter, x: Value) -> Value {
    let nx = em.b.ins().fneg(x);
    let e = exp(em, nx);
    let one = c(em, 1.0);
    let d = em.b.ins().fadd(one, e);
    em.b.ins().fdiv(one, d)
}

/// The inline F32X4 approximation of `op` applied to `x`, if there is one.
pub fn unary(em: &mut Emitter, op: UnaryOp, x: Value) -> Result<Option<Value>> {
    Ok(match op {
        UnaryOp::Exp => Some(exp(em, x)),
        UnaryOp::Tanh => Some(tanh(em, x)),
        UnaryOp::Logistic => Some(logistic(em, x)),
        _ => None,
    })
}

/// The same approximation on one f32 (lane 0), when there is one.
pub fn scalar_f32(em: &mut Emitter, op: UnaryOp, x: Value) -> Result<Option<Value>> {
    if !matches!(op, UnaryOp::Exp | UnaryOp::Tanh | UnaryOp::Logistic) {
        return Ok(None);
    }
    let v = em.b.ins().splat(F32X4, x);
    let r = unary(em, op, v)?;
    Ok(r.map(|r| em.b.ins().extractlane(r, 0)))
}
