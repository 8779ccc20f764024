//! Host functions the generated code may call, every one registered by
//! name with the JIT builder (nothing is left to dlsym): Cranelift's own
//! libcalls (ceilf, fmaf, memcpy, ...) and rxla's scalar helpers (the
//! transcendentals not yet inlined, float remainder, integer power, half
//! conversions). Each helper computes exactly what the evaluator computes.
//! No code generation here.

use cranelift_codegen::ir::types::{F32, F64, I8, I16, I64};
use cranelift_codegen::ir::{AbiParam, Signature, Type};
use cranelift_codegen::isa::CallConv;

macro_rules! f32_1 {
    ($name:ident, $e:expr) => {
        extern "C" fn $name(x: f32) -> f32 {
            let f: fn(f32) -> f32 = $e;
            f(x)
        }
    };
}
macro_rules! f64_1 {
    ($name:ident, $e:expr) => {
        extern "C" fn $name(x: f64) -> f64 {
            let f: fn(f64) -> f64 = $e;
            f(x)
        }
    };
}

f32_1!(rx_ceilf, |x| x.ceil());
f32_1!(rx_floorf, |x| x.floor());
f32_1!(rx_truncf, |x| x.trunc());
f32_1!(rx_nearbyintf, |x| x.round_ties_even());
f64_1!(rx_ceil, |x| x.ceil());
f64_1!(rx_floor, |x| x.floor());
f64_1!(rx_trunc, |x| x.trunc());
f64_1!(rx_nearbyint, |x| x.round_ties_even());
extern "C" fn rx_fmaf(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}
extern "C" fn rx_fma(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}
unsafe extern "C" fn rx_memcpy(d: *mut u8, s: *const u8, n: usize) -> *mut u8 {
    // SAFETY: the generated code passes valid, non-overlapping ranges.
    unsafe { std::ptr::copy_nonoverlapping(s, d, n) };
    d
}
unsafe extern "C" fn rx_memmove(d: *mut u8, s: *const u8, n: usize) -> *mut u8 {
    // SAFETY: the generated code passes valid ranges.
    unsafe { std::ptr::copy(s, d, n) };
    d
}
unsafe extern "C" fn rx_memset(d: *mut u8, c: i32, n: usize) -> *mut u8 {
    // SAFETY: the generated code passes a valid range.
    unsafe { std::ptr::write_bytes(d, c as u8, n) };
    d
}
unsafe extern "C" fn rx_memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: the generated code passes valid ranges.
    let (x, y) = unsafe {
        (
            std::slice::from_raw_parts(a, n),
            std::slice::from_raw_parts(b, n),
        )
    };
    match x.cmp(y) {
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    }
}

// Scalar float helpers: the evaluator's definitions (Rust std, i.e. libm).
f32_1!(rx_roundf, |x| x.round());
f32_1!(rx_cbrtf, |x| x.cbrt());
f32_1!(rx_expf, |x| x.exp());
f32_1!(rx_expm1f, |x| x.exp_m1());
f32_1!(rx_logf, |x| x.ln());
f32_1!(rx_log1pf, |x| x.ln_1p());
f32_1!(rx_logisticf, |x| 1.0 / (1.0 + (-x).exp()));
f32_1!(rx_tanhf, |x| x.tanh());
f32_1!(rx_sinf, |x| x.sin());
f32_1!(rx_cosf, |x| x.cos());
f32_1!(rx_tanf, |x| x.tan());
f64_1!(rx_round, |x| x.round());
f64_1!(rx_cbrt, |x| x.cbrt());
f64_1!(rx_exp, |x| x.exp());
f64_1!(rx_expm1, |x| x.exp_m1());
f64_1!(rx_log, |x| x.ln());
f64_1!(rx_log1p, |x| x.ln_1p());
f64_1!(rx_logistic, |x| 1.0 / (1.0 + (-x).exp()));
f64_1!(rx_tanh, |x| x.tanh());
f64_1!(rx_sin, |x| x.sin());
f64_1!(rx_cos, |x| x.cos());
f64_1!(rx_tan, |x| x.tan());
// erf is the evaluator's own (libm's): used for f64 and the half types
// (f32 is inline).
f32_1!(rx_erff, |x| match rxla_eval::elementwise::scalar_unary(
    rxla_ir::UnaryOp::Erf,
    rxla_eval::scalar::Scalar::F32(x)
) {
    Ok(rxla_eval::scalar::Scalar::F32(v)) => v,
    _ => f32::NAN,
});
f64_1!(rx_erf, |x| match rxla_eval::elementwise::scalar_unary(
    rxla_ir::UnaryOp::Erf,
    rxla_eval::scalar::Scalar::F64(x)
) {
    Ok(rxla_eval::scalar::Scalar::F64(v)) => v,
    _ => f64::NAN,
});
extern "C" fn rx_fmodf(a: f32, b: f32) -> f32 {
    a % b
}
extern "C" fn rx_powf(a: f32, b: f32) -> f32 {
    a.powf(b)
}
extern "C" fn rx_atan2f(a: f32, b: f32) -> f32 {
    a.atan2(b)
}
extern "C" fn rx_fmod(a: f64, b: f64) -> f64 {
    a % b
}
extern "C" fn rx_pow(a: f64, b: f64) -> f64 {
    a.powf(b)
}
extern "C" fn rx_atan2(a: f64, b: f64) -> f64 {
    a.atan2(b)
}
/// Integer power on sign-extended operands (wrapping). A negative
/// exponent gives 1 for base 1 and 0 otherwise (XLA's EmitIntegerPow, as
/// the evaluator). Low bits are what narrower types keep.
extern "C" fn rx_powi_s(a: i64, b: i64) -> i64 {
    if b < 0 {
        return i64::from(a == 1);
    }
    rx_powi_u(a, b)
}
/// Integer power on zero-extended operands (wrapping).
extern "C" fn rx_powi_u(a: i64, b: i64) -> i64 {
    let (mut base, mut e, mut acc) = (a as u64, b as u64, 1u64);
    while e != 0 {
        if e & 1 == 1 {
            acc = acc.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        e >>= 1;
    }
    acc as i64
}
// Half types are held as f32 in kernels. Loading (`rx_*_to_f32`) and
// storing (`rx_*_bits_raw`) keep every bit pattern, signalling NaNs
// included (their payload moves to the top of the f32 mantissa and
// back), so data movement of halves is bit-exact as in the evaluator.
// Rounding an f32 to a half (`rx_f32_to_*`) is the evaluator's
// conversion, which quiets NaNs, as its arithmetic on halves does.
extern "C" fn rx_f16_to_f32(b: i16) -> f32 {
    f16_bits_to_f32_raw(b as u16)
}
extern "C" fn rx_f32_to_f16(x: f32) -> i16 {
    half::f16::from_f32(x).to_bits() as i16
}
extern "C" fn rx_f16_bits_raw(x: f32) -> i16 {
    f32_to_f16_bits_raw(x) as i16
}
extern "C" fn rx_bf16_to_f32(b: i16) -> f32 {
    bf16_bits_to_f32_raw(b as u16)
}
extern "C" fn rx_f32_to_bf16(x: f32) -> i16 {
    half::bf16::from_f32(x).to_bits() as i16
}
extern "C" fn rx_bf16_bits_raw(x: f32) -> i16 {
    f32_to_bf16_bits_raw(x) as i16
}

// The f8 types are held as f32 too. `rx_<t>_to_f32` / `rx_<t>_bits_raw`
// move every pattern unchanged (an f8e5m2 NaN keeps its payload in the
// top of the f32 mantissa); `rx_<t>_round` is the evaluator's rounding of
// an arithmetic result (f32 → f16 → f8, as XLA CPU computes f8 in f16);
// `rx_<t>_from_f64` is the direct conversion (one rounding).

/// An f8 pattern as the f32 a kernel holds (see above).
pub fn f8_bits_to_f32_raw(f: rxla_ir::narrow::F8Format, b: u8) -> f32 {
    use rxla_ir::narrow::{F8Kind, f8_decode, f8_is_nan};
    if f.kind == F8Kind::Ieee && f8_is_nan(f, b) {
        let sign = ((b & 0x80) as u32) << 24;
        return f32::from_bits(sign | 0x7f80_0000 | (((b & 3) as u32) << 21));
    }
    f8_decode(f, b)
}

/// The inverse of [`f8_bits_to_f32_raw`] on the values it produces.
pub fn f32_to_f8_bits_raw(f: rxla_ir::narrow::F8Format, x: f32) -> u8 {
    use rxla_ir::narrow::{F8Kind, f8_encode};
    if x.is_nan() && f.kind == F8Kind::Ieee {
        let b = x.to_bits();
        let sign = ((b >> 24) & 0x80) as u8;
        let man = ((b >> 21) & 3) as u8;
        return sign | 0x7c | if man == 0 { 2 } else { man };
    }
    f8_encode(f, x as f64)
}

macro_rules! f8_calls {
    ($($et:ident: $to:ident, $raw:ident, $round:ident, $from:ident;)*) => {
        $(
            extern "C" fn $to(b: i8) -> f32 {
                f8_bits_to_f32_raw(f8fmt(rxla_ir::ElementType::$et), b as u8)
            }
            extern "C" fn $raw(x: f32) -> i8 {
                f32_to_f8_bits_raw(f8fmt(rxla_ir::ElementType::$et), x) as i8
            }
            extern "C" fn $round(x: f32) -> f32 {
                let f = f8fmt(rxla_ir::ElementType::$et);
                let h = half::f16::from_f32(x).to_f64();
                f8_bits_to_f32_raw(f, rxla_ir::narrow::f8_encode(f, h))
            }
            extern "C" fn $from(x: f64) -> f32 {
                let f = f8fmt(rxla_ir::ElementType::$et);
                f8_bits_to_f32_raw(f, rxla_ir::narrow::f8_encode(f, x))
            }
        )*
        /// The host functions of the f8 types.
        fn f8_libcalls() -> Vec<Libcall> {
            vec![$(
                lc!(stringify!($to), $to as extern "C" fn(i8) -> f32, [I8], F32),
                lc!(stringify!($raw), $raw as extern "C" fn(f32) -> i8, [F32], I8),
                lc!(stringify!($round), $round as extern "C" fn(f32) -> f32, [F32], F32),
                lc!(stringify!($from), $from as extern "C" fn(f64) -> f32, [F64], F32),
            )*]
        }

        /// `[to_f32, bits_raw, round, from_f64]` host function names of an
        /// f8 type.
        pub fn f8_names(et: rxla_ir::ElementType) -> Option<[&'static str; 4]> {
            match et {
                $(rxla_ir::ElementType::$et => Some([
                    stringify!($to),
                    stringify!($raw),
                    stringify!($round),
                    stringify!($from),
                ]),)*
                _ => None,
            }
        }
    };
}

fn f8fmt(et: rxla_ir::ElementType) -> rxla_ir::narrow::F8Format {
    rxla_ir::narrow::f8_format(et).expect("an f8 type")
}

/// An f16 bit pattern as the f32 a kernel holds: the value, or for a NaN
/// its sign and payload unchanged (a signalling NaN stays signalling).
pub fn f16_bits_to_f32_raw(b: u16) -> f32 {
    let man = (b & 0x03ff) as u32;
    if b & 0x7c00 == 0x7c00 && man != 0 {
        let sign = ((b & 0x8000) as u32) << 16;
        f32::from_bits(sign | 0x7f80_0000 | (man << 13))
    } else {
        half::f16::from_bits(b).to_f32()
    }
}

/// The inverse of [`f16_bits_to_f32_raw`] on the values it produces; any
/// other NaN keeps its top payload bits (quieted if none are left).
pub fn f32_to_f16_bits_raw(x: f32) -> u16 {
    if x.is_nan() {
        let b = x.to_bits();
        let man = ((b >> 13) & 0x03ff) as u16;
        let man = if man == 0 { 0x0200 } else { man };
        ((b >> 16) as u16 & 0x8000) | 0x7c00 | man
    } else {
        half::f16::from_f32(x).to_bits()
    }
}

/// A bf16 bit pattern as the f32 a kernel holds (its top half, exactly).
pub fn bf16_bits_to_f32_raw(b: u16) -> f32 {
    f32::from_bits((b as u32) << 16)
}

/// The bf16 bits of a held f32: its top half for a NaN (quieted if no
/// payload bit is left), the nearest bf16 otherwise.
pub fn f32_to_bf16_bits_raw(x: f32) -> u16 {
    if x.is_nan() {
        let h = (x.to_bits() >> 16) as u16;
        if h & 0x7f == 0 { h | 0x40 } else { h }
    } else {
        half::bf16::from_f32(x).to_bits()
    }
}

extern "C" fn rx_f64_to_f16(x: f64) -> i16 {
    half::f16::from_f64(x).to_bits() as i16
}
extern "C" fn rx_f64_to_bf16(x: f64) -> i16 {
    half::bf16::from_f64(x).to_bits() as i16
}

/// A host function: name, address, parameter and result types.
pub struct Libcall {
    pub name: &'static str,
    pub addr: *const u8,
    pub params: &'static [Type],
    pub ret: Type,
}

macro_rules! lc {
    ($name:expr, $f:expr, [$($p:expr),*], $r:expr) => {
        Libcall { name: $name, addr: $f as *const u8, params: &[$($p),*], ret: $r }
    };
}

/// The wide block routines (`crate::wide`): unary `(dst, src, n)` and
/// binary `(dst, a, step_a, b, step_b, n)`, each registered as
/// `rxla_block_<name>`.
fn block_routines() -> Vec<Libcall> {
    type Unary = unsafe extern "C" fn(*mut f32, *const f32, i64) -> i64;
    type Binary = unsafe extern "C" fn(*mut f32, *const f32, i64, *const f32, i64, i64) -> i64;
    use crate::wide::*;
    let unary: [(&'static str, Unary); 5] = [
        ("rxla_block_exp", block_exp),
        ("rxla_block_tanh", block_tanh),
        ("rxla_block_logistic", block_logistic),
        ("rxla_block_erf", block_erf),
        ("rxla_block_log", block_log),
    ];
    let binary: [(&'static str, Binary); 4] = [
        ("rxla_block_add", block_add),
        ("rxla_block_sub", block_sub),
        ("rxla_block_mul", block_mul),
        ("rxla_block_div", block_div),
    ];
    let u = unary
        .into_iter()
        .map(|(name, f)| lc!(name, f, [I64, I64, I64], I64));
    let b = binary
        .into_iter()
        .map(|(name, f)| lc!(name, f, [I64, I64, I64, I64, I64, I64], I64));
    u.chain(b).collect()
}

/// Every host function, Cranelift's libcall names included.
pub fn all() -> Vec<Libcall> {
    let mut v = block_routines();
    v.extend([
        lc!(
            "rxla_block_sum",
            crate::wide::block_sum as unsafe extern "C" fn(*const f32, i64, *mut f32) -> i64,
            [I64, I64, I64],
            I64
        ),
        lc!(
            "rxla_block_maxmin",
            crate::wide::block_maxmin
                as unsafe extern "C" fn(*const f32, i64, *mut f32, *mut i32, i64) -> i64,
            [I64, I64, I64, I64, I64],
            I64
        ),
        lc!("ceilf", rx_ceilf as extern "C" fn(f32) -> f32, [F32], F32),
        lc!("floorf", rx_floorf as extern "C" fn(f32) -> f32, [F32], F32),
        lc!("truncf", rx_truncf as extern "C" fn(f32) -> f32, [F32], F32),
        lc!(
            "nearbyintf",
            rx_nearbyintf as extern "C" fn(f32) -> f32,
            [F32],
            F32
        ),
        lc!("ceil", rx_ceil as extern "C" fn(f64) -> f64, [F64], F64),
        lc!("floor", rx_floor as extern "C" fn(f64) -> f64, [F64], F64),
        lc!("trunc", rx_trunc as extern "C" fn(f64) -> f64, [F64], F64),
        lc!(
            "nearbyint",
            rx_nearbyint as extern "C" fn(f64) -> f64,
            [F64],
            F64
        ),
        lc!(
            "fmaf",
            rx_fmaf as extern "C" fn(f32, f32, f32) -> f32,
            [F32, F32, F32],
            F32
        ),
        lc!(
            "fma",
            rx_fma as extern "C" fn(f64, f64, f64) -> f64,
            [F64, F64, F64],
            F64
        ),
        lc!(
            "memcpy",
            rx_memcpy as unsafe extern "C" fn(*mut u8, *const u8, usize) -> *mut u8,
            [I64, I64, I64],
            I64
        ),
        lc!(
            "memmove",
            rx_memmove as unsafe extern "C" fn(*mut u8, *const u8, usize) -> *mut u8,
            [I64, I64, I64],
            I64
        ),
        lc!(
            "memset",
            rx_memset as unsafe extern "C" fn(*mut u8, i32, usize) -> *mut u8,
            [I64, I64, I64],
            I64
        ),
        lc!(
            "memcmp",
            rx_memcmp as unsafe extern "C" fn(*const u8, *const u8, usize) -> i32,
            [I64, I64, I64],
            I64
        ),
        lc!(
            "rx_roundf",
            rx_roundf as extern "C" fn(f32) -> f32,
            [F32],
            F32
        ),
        lc!(
            "rx_cbrtf",
            rx_cbrtf as extern "C" fn(f32) -> f32,
            [F32],
            F32
        ),
        lc!("rx_expf", rx_expf as extern "C" fn(f32) -> f32, [F32], F32),
        lc!(
            "rx_expm1f",
            rx_expm1f as extern "C" fn(f32) -> f32,
            [F32],
            F32
        ),
        lc!("rx_logf", rx_logf as extern "C" fn(f32) -> f32, [F32], F32),
        lc!(
            "rx_log1pf",
            rx_log1pf as extern "C" fn(f32) -> f32,
            [F32],
            F32
        ),
        lc!(
            "rx_logisticf",
            rx_logisticf as extern "C" fn(f32) -> f32,
            [F32],
            F32
        ),
        lc!(
            "rx_tanhf",
            rx_tanhf as extern "C" fn(f32) -> f32,
            [F32],
            F32
        ),
        lc!("rx_sinf", rx_sinf as extern "C" fn(f32) -> f32, [F32], F32),
        lc!("rx_cosf", rx_cosf as extern "C" fn(f32) -> f32, [F32], F32),
        lc!("rx_tanf", rx_tanf as extern "C" fn(f32) -> f32, [F32], F32),
        lc!(
            "rx_round",
            rx_round as extern "C" fn(f64) -> f64,
            [F64],
            F64
        ),
        lc!("rx_cbrt", rx_cbrt as extern "C" fn(f64) -> f64, [F64], F64),
        lc!("rx_exp", rx_exp as extern "C" fn(f64) -> f64, [F64], F64),
        lc!(
            "rx_expm1",
            rx_expm1 as extern "C" fn(f64) -> f64,
            [F64],
            F64
        ),
        lc!("rx_log", rx_log as extern "C" fn(f64) -> f64, [F64], F64),
        lc!(
            "rx_log1p",
            rx_log1p as extern "C" fn(f64) -> f64,
            [F64],
            F64
        ),
        lc!(
            "rx_logistic",
            rx_logistic as extern "C" fn(f64) -> f64,
            [F64],
            F64
        ),
        lc!("rx_tanh", rx_tanh as extern "C" fn(f64) -> f64, [F64], F64),
        lc!("rx_sin", rx_sin as extern "C" fn(f64) -> f64, [F64], F64),
        lc!("rx_cos", rx_cos as extern "C" fn(f64) -> f64, [F64], F64),
        lc!("rx_tan", rx_tan as extern "C" fn(f64) -> f64, [F64], F64),
        lc!("rx_erff", rx_erff as extern "C" fn(f32) -> f32, [F32], F32),
        lc!("rx_erf", rx_erf as extern "C" fn(f64) -> f64, [F64], F64),
        lc!(
            "rx_fmodf",
            rx_fmodf as extern "C" fn(f32, f32) -> f32,
            [F32, F32],
            F32
        ),
        lc!(
            "rx_powf",
            rx_powf as extern "C" fn(f32, f32) -> f32,
            [F32, F32],
            F32
        ),
        lc!(
            "rx_atan2f",
            rx_atan2f as extern "C" fn(f32, f32) -> f32,
            [F32, F32],
            F32
        ),
        lc!(
            "rx_fmod",
            rx_fmod as extern "C" fn(f64, f64) -> f64,
            [F64, F64],
            F64
        ),
        lc!(
            "rx_pow",
            rx_pow as extern "C" fn(f64, f64) -> f64,
            [F64, F64],
            F64
        ),
        lc!(
            "rx_atan2",
            rx_atan2 as extern "C" fn(f64, f64) -> f64,
            [F64, F64],
            F64
        ),
        lc!(
            "rx_powi_s",
            rx_powi_s as extern "C" fn(i64, i64) -> i64,
            [I64, I64],
            I64
        ),
        lc!(
            "rx_powi_u",
            rx_powi_u as extern "C" fn(i64, i64) -> i64,
            [I64, I64],
            I64
        ),
        lc!(
            "rx_f16_to_f32",
            rx_f16_to_f32 as extern "C" fn(i16) -> f32,
            [I16],
            F32
        ),
        lc!(
            "rx_f32_to_f16",
            rx_f32_to_f16 as extern "C" fn(f32) -> i16,
            [F32],
            I16
        ),
        lc!(
            "rx_f16_bits_raw",
            rx_f16_bits_raw as extern "C" fn(f32) -> i16,
            [F32],
            I16
        ),
        lc!(
            "rx_bf16_bits_raw",
            rx_bf16_bits_raw as extern "C" fn(f32) -> i16,
            [F32],
            I16
        ),
        lc!(
            "rx_bf16_to_f32",
            rx_bf16_to_f32 as extern "C" fn(i16) -> f32,
            [I16],
            F32
        ),
        lc!(
            "rx_f32_to_bf16",
            rx_f32_to_bf16 as extern "C" fn(f32) -> i16,
            [F32],
            I16
        ),
        lc!(
            "rx_f64_to_f16",
            rx_f64_to_f16 as extern "C" fn(f64) -> i16,
            [F64],
            I16
        ),
        lc!(
            "rx_f64_to_bf16",
            rx_f64_to_bf16 as extern "C" fn(f64) -> i16,
            [F64],
            I16
        ),
    ]);
    v.extend(f8_libcalls());
    v
}

/// The Cranelift signature of a host function.
pub fn signature(call: &Libcall, cc: CallConv) -> Signature {
    let mut sig = Signature::new(cc);
    sig.params
        .extend(call.params.iter().map(|&t| AbiParam::new(t)));
    sig.returns.push(AbiParam::new(call.ret));
    sig
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_bits_round_trip_through_the_held_f32() {
        for b in 0..=u16::MAX {
            let h = f16_bits_to_f32_raw(b);
            assert_eq!(f32_to_f16_bits_raw(h), b, "f16 {b:#06x}");
            assert_eq!(rx_f16_to_f32(b as i16).to_bits(), h.to_bits());
            let g = rx_bf16_to_f32(b as i16);
            assert_eq!(f32_to_bf16_bits_raw(g), b, "bf16 {b:#06x}");
            // Non-NaN values are the evaluator's (half crate) values.
            if !h.is_nan() {
                assert_eq!(h.to_bits(), half::f16::from_bits(b).to_f32().to_bits());
            }
            if !g.is_nan() {
                assert_eq!(g.to_bits(), half::bf16::from_bits(b).to_f32().to_bits());
            }
        }
        // A signalling NaN stays signalling in the held f32.
        let s = f16_bits_to_f32_raw(0x7c01).to_bits();
        assert_eq!(s & 0x0040_0000, 0);
        assert_eq!(s, 0x7f80_2000);
    }
}

f8_calls! {
    F8E4M3FN: rx_f8e4m3fn_to_f32, rx_f8e4m3fn_bits_raw, rx_f8e4m3fn_round, rx_f8e4m3fn_from_f64;
    F8E5M2: rx_f8e5m2_to_f32, rx_f8e5m2_bits_raw, rx_f8e5m2_round, rx_f8e5m2_from_f64;
    F8E4M3B11FNUZ: rx_f8e4m3b11fnuz_to_f32, rx_f8e4m3b11fnuz_bits_raw, rx_f8e4m3b11fnuz_round, rx_f8e4m3b11fnuz_from_f64;
    F8E4M3FNUZ: rx_f8e4m3fnuz_to_f32, rx_f8e4m3fnuz_bits_raw, rx_f8e4m3fnuz_round, rx_f8e4m3fnuz_from_f64;
    F8E5M2FNUZ: rx_f8e5m2fnuz_to_f32, rx_f8e5m2fnuz_bits_raw, rx_f8e5m2fnuz_round, rx_f8e5m2fnuz_from_f64;
}
