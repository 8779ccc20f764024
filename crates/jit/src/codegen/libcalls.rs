//! Host functions the generated code may call, every one registered by
//! name with the JIT builder (nothing is left to dlsym): Cranelift's own
//! libcalls (ceilf, fmaf, memcpy, ...) and rxla's scalar helpers (the
//! transcendentals not yet inlined, float remainder, integer power, half
//! conversions). Each helper computes exactly what the evaluator computes.
//! No code generation here.

use cranelift_codegen::ir::types::{F32, F64, I8, I16, I64};
use cranelift_codegen::ir::{AbiParam, Signature, Type};
use cranelift_codegen::isa::CallConv;

/// The Cranelift type of a host function's Rust argument or result type.
trait ClifType {
    const TYPE: Type;
}
macro_rules! clif_types {
    ($($t:ty => $c:expr),*) => { $(impl ClifType for $t { const TYPE: Type = $c; })* };
}
clif_types!(f32 => F32, f64 => F64, i64 => I64, i16 => I16, i8 => I8);

/// Declares scalar host functions once: each line gives the symbol the
/// generated code calls, the Rust function and its body; the registration
/// table (`scalar_host_fns`, signature from the Rust types) is generated.
macro_rules! host_fns {
    ($($(#[$doc:meta])* $sym:literal => fn $name:ident($($a:ident: $t:ty),*) -> $r:ty $body:block)*) => {
        $($(#[$doc])* extern "C" fn $name($($a: $t),*) -> $r $body)*

        /// The scalar host functions declared with `host_fns!`.
        fn scalar_host_fns() -> Vec<Libcall> {
            vec![$(Libcall {
                name: $sym,
                addr: $name as extern "C" fn($($t),*) -> $r as *const u8,
                params: {
                    const P: &[Type] = &[$(<$t as ClifType>::TYPE),*];
                    P
                },
                ret: <$r as ClifType>::TYPE,
            }),*]
        }
    };
}

/// The evaluator's erf (libm's) on one scalar.
fn eval_erf(x: rxla_eval::scalar::Scalar) -> Option<rxla_eval::scalar::Scalar> {
    rxla_eval::elementwise::scalar_unary(rxla_ir::UnaryOp::Erf, x).ok()
}

host_fns! {
    // Cranelift's own libcalls (rounding, fma).
    "ceilf" => fn rx_ceilf(x: f32) -> f32 { x.ceil() }
    "floorf" => fn rx_floorf(x: f32) -> f32 { x.floor() }
    "truncf" => fn rx_truncf(x: f32) -> f32 { x.trunc() }
    "nearbyintf" => fn rx_nearbyintf(x: f32) -> f32 { x.round_ties_even() }
    "ceil" => fn rx_ceil(x: f64) -> f64 { x.ceil() }
    "floor" => fn rx_floor(x: f64) -> f64 { x.floor() }
    "trunc" => fn rx_trunc(x: f64) -> f64 { x.trunc() }
    "nearbyint" => fn rx_nearbyint(x: f64) -> f64 { x.round_ties_even() }
    "fmaf" => fn rx_fmaf(a: f32, b: f32, c: f32) -> f32 { a.mul_add(b, c) }
    "fma" => fn rx_fma(a: f64, b: f64, c: f64) -> f64 { a.mul_add(b, c) }
    // Scalar float helpers: the evaluator's definitions (Rust std, i.e. libm).
    "rx_roundf" => fn rx_roundf(x: f32) -> f32 { x.round() }
    "rx_cbrtf" => fn rx_cbrtf(x: f32) -> f32 { x.cbrt() }
    "rx_expf" => fn rx_expf(x: f32) -> f32 { x.exp() }
    "rx_expm1f" => fn rx_expm1f(x: f32) -> f32 { x.exp_m1() }
    "rx_logf" => fn rx_logf(x: f32) -> f32 { x.ln() }
    "rx_log1pf" => fn rx_log1pf(x: f32) -> f32 { x.ln_1p() }
    "rx_logisticf" => fn rx_logisticf(x: f32) -> f32 { 1.0 / (1.0 + (-x).exp()) }
    "rx_tanhf" => fn rx_tanhf(x: f32) -> f32 { x.tanh() }
    "rx_sinf" => fn rx_sinf(x: f32) -> f32 { x.sin() }
    "rx_cosf" => fn rx_cosf(x: f32) -> f32 { x.cos() }
    "rx_tanf" => fn rx_tanf(x: f32) -> f32 { x.tan() }
    "rx_round" => fn rx_round(x: f64) -> f64 { x.round() }
    "rx_cbrt" => fn rx_cbrt(x: f64) -> f64 { x.cbrt() }
    "rx_exp" => fn rx_exp(x: f64) -> f64 { x.exp() }
    "rx_expm1" => fn rx_expm1(x: f64) -> f64 { x.exp_m1() }
    "rx_log" => fn rx_log(x: f64) -> f64 { x.ln() }
    "rx_log1p" => fn rx_log1p(x: f64) -> f64 { x.ln_1p() }
    "rx_logistic" => fn rx_logistic(x: f64) -> f64 { 1.0 / (1.0 + (-x).exp()) }
    "rx_tanh" => fn rx_tanh(x: f64) -> f64 { x.tanh() }
    "rx_sin" => fn rx_sin(x: f64) -> f64 { x.sin() }
    "rx_cos" => fn rx_cos(x: f64) -> f64 { x.cos() }
    "rx_tan" => fn rx_tan(x: f64) -> f64 { x.tan() }
    // erf is the evaluator's own (libm's): used for f64 and the half types
    // (f32 is inline).
    "rx_erff" => fn rx_erff(x: f32) -> f32 {
        match eval_erf(rxla_eval::scalar::Scalar::F32(x)) {
            Some(rxla_eval::scalar::Scalar::F32(v)) => v,
            _ => f32::NAN,
        }
    }
    "rx_erf" => fn rx_erf(x: f64) -> f64 {
        match eval_erf(rxla_eval::scalar::Scalar::F64(x)) {
            Some(rxla_eval::scalar::Scalar::F64(v)) => v,
            _ => f64::NAN,
        }
    }
    "rx_fmodf" => fn rx_fmodf(a: f32, b: f32) -> f32 { a % b }
    "rx_powf" => fn rx_powf(a: f32, b: f32) -> f32 { a.powf(b) }
    "rx_atan2f" => fn rx_atan2f(a: f32, b: f32) -> f32 { a.atan2(b) }
    "rx_fmod" => fn rx_fmod(a: f64, b: f64) -> f64 { a % b }
    "rx_pow" => fn rx_pow(a: f64, b: f64) -> f64 { a.powf(b) }
    "rx_atan2" => fn rx_atan2(a: f64, b: f64) -> f64 { a.atan2(b) }
    /// Integer power on sign-extended operands (wrapping). A negative
    /// exponent gives 1 for base 1 and 0 otherwise (XLA's EmitIntegerPow, as
    /// the evaluator). Low bits are what narrower types keep.
    "rx_powi_s" => fn rx_powi_s(a: i64, b: i64) -> i64 {
        if b < 0 {
            return i64::from(a == 1);
        }
        rx_powi_u(a, b)
    }
    /// Integer power on zero-extended operands (wrapping).
    "rx_powi_u" => fn rx_powi_u(a: i64, b: i64) -> i64 {
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
    "rx_f16_to_f32" => fn rx_f16_to_f32(b: i16) -> f32 { f16_bits_to_f32_raw(b as u16) }
    "rx_f32_to_f16" => fn rx_f32_to_f16(x: f32) -> i16 { half::f16::from_f32(x).to_bits() as i16 }
    "rx_f16_bits_raw" => fn rx_f16_bits_raw(x: f32) -> i16 { f32_to_f16_bits_raw(x) as i16 }
    "rx_bf16_to_f32" => fn rx_bf16_to_f32(b: i16) -> f32 { bf16_bits_to_f32_raw(b as u16) }
    "rx_f32_to_bf16" => fn rx_f32_to_bf16(x: f32) -> i16 { half::bf16::from_f32(x).to_bits() as i16 }
    "rx_bf16_bits_raw" => fn rx_bf16_bits_raw(x: f32) -> i16 { f32_to_bf16_bits_raw(x) as i16 }
    "rx_f64_to_f16" => fn rx_f64_to_f16(x: f64) -> i16 { half::f16::from_f64(x).to_bits() as i16 }
    "rx_f64_to_bf16" => fn rx_f64_to_bf16(x: f64) -> i16 { half::bf16::from_f64(x).to_bits() as i16 }
}

// The memory functions Cranelift calls for its own memcpy/memset lowering.
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
    let unary: [(&'static str, Unary); 8] = [
        ("rxla_block_exp", block_exp),
        ("rxla_block_tanh", block_tanh),
        ("rxla_block_logistic", block_logistic),
        ("rxla_block_erf", block_erf),
        ("rxla_block_log", block_log),
        ("rxla_block_cbrt", block_cbrt),
        ("rxla_block_log1p", block_log1p),
        ("rxla_block_expm1", block_expm1),
    ];
    let binary: [(&'static str, Binary); 5] = [
        ("rxla_block_add", block_add),
        ("rxla_block_sub", block_sub),
        ("rxla_block_mul", block_mul),
        ("rxla_block_div", block_div),
        ("rxla_block_pow", block_pow),
    ];
    let u = unary
        .into_iter()
        .map(|(name, f)| lc!(name, f, [I64, I64, I64], I64));
    let b = binary
        .into_iter()
        .map(|(name, f)| lc!(name, f, [I64, I64, I64, I64, I64, I64], I64));
    let program = lc!(
        "rxla_block_program",
        crate::wide::program::block_program
            as unsafe extern "C" fn(*const u64, *mut f32, *const *const f32, i64) -> i64,
        [I64, I64, I64, I64],
        I64
    );
    u.chain(b).chain(std::iter::once(program)).collect()
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
    ]);
    v.extend(scalar_host_fns());
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
    fn the_table_names_each_symbol_once_with_the_rust_signature() {
        let all = all();
        let mut names: Vec<&str> = all.iter().map(|l| l.name).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "a symbol is registered twice");
        let find = |name: &str| all.iter().find(|l| l.name == name).unwrap();
        assert_eq!(find("fmaf").params, [F32, F32, F32]);
        assert_eq!(find("fmaf").ret, F32);
        assert_eq!(
            (find("rx_f16_to_f32").params, find("rx_f16_to_f32").ret),
            (&[I16][..], F32)
        );
        assert_eq!(
            (find("rx_powi_s").params, find("rx_powi_s").ret),
            (&[I64, I64][..], I64)
        );
        assert_eq!(find("rx_f8e5m2_round").ret, F32);
        assert_eq!(find("memcpy").params.len(), 3);
        // The addresses are the functions named.
        // SAFETY: `rx_powi_s` has this signature.
        let f: extern "C" fn(i64, i64) -> i64 =
            unsafe { std::mem::transmute(find("rx_powi_s").addr) };
        assert_eq!((f(3, 4), f(2, -1), f(1, -1)), (81, 0, 1));
        // SAFETY: `ceil` is `rx_ceil: fn(f64) -> f64`.
        let g: extern "C" fn(f64) -> f64 = unsafe { std::mem::transmute(find("ceil").addr) };
        assert_eq!(g(1.25), 2.0);
    }

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
