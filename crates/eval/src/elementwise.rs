//! Elementwise arithmetic on [`ArrayData`]: unary and binary ops, compare
//! (IEEE and total order), convert and bitcast-convert. Every numeric
//! decision documented in `docs/SEMANTICS.md` is implemented here and only
//! here. This module knows nothing about shapes beyond element counts.

use crate::error::{EvalError, Result};
use crate::scalar::Scalar;
use half::{bf16, f16};
use rxla_ir::narrow as enc;
use rxla_ir::{ArrayData, BinaryOp, ComparisonDirection, ComparisonType, ElementType, UnaryOp};

// ---------------------------------------------------------------- floats

/// Float element arithmetic for f32 and f64 (half types go through f32).
trait Float: Copy + PartialOrd + PartialEq {
    fn unary(op: UnaryOp) -> Option<fn(Self) -> Self>;
    fn binary(op: BinaryOp) -> Option<fn(Self, Self) -> Self>;
    fn is_finite_(self) -> bool;
    fn total_key(self) -> i64;
}

/// The evaluator's float maximum and minimum (the one definition; the
/// JIT's host steps call these too): a NaN operand wins (the first one if
/// both are), and `max(-0, +0) = +0`, `min(-0, +0) = -0`.
macro_rules! float_minmax {
    ($t:ty, $max:ident, $min:ident) => {
        #[doc = concat!("`maximum` on ", stringify!($t), " (see the macro).")]
        #[inline]
        pub fn $max(a: $t, b: $t) -> $t {
            if a.is_nan() {
                a
            } else if b.is_nan() {
                b
            } else if a == b {
                // max(-0, +0) = +0: pick the operand without a sign bit.
                if a.is_sign_negative() { b } else { a }
            } else if a > b {
                a
            } else {
                b
            }
        }
        #[doc = concat!("`minimum` on ", stringify!($t), " (see the macro).")]
        #[inline]
        pub fn $min(a: $t, b: $t) -> $t {
            if a.is_nan() {
                a
            } else if b.is_nan() {
                b
            } else if a == b {
                if a.is_sign_negative() { a } else { b }
            } else if a < b {
                a
            } else {
                b
            }
        }
    };
}
float_minmax!(f32, max_f32, min_f32);
float_minmax!(f64, max_f64, min_f64);

macro_rules! float_impl {
    ($t:ty, $bits:ty, $sbits:ty, $erf:path, $max:path, $min:path) => {
        impl Float for $t {
            fn unary(op: UnaryOp) -> Option<fn($t) -> $t> {
                Some(match op {
                    UnaryOp::Negate => |x: $t| -x,
                    UnaryOp::Abs => |x: $t| x.abs(),
                    UnaryOp::Sign => |x: $t| {
                        if x.is_nan() || x == 0.0 {
                            x
                        } else {
                            (1.0 as $t).copysign(x)
                        }
                    },
                    UnaryOp::Floor => |x: $t| x.floor(),
                    UnaryOp::Ceil => |x: $t| x.ceil(),
                    UnaryOp::RoundNearestAfz => |x: $t| x.round(),
                    UnaryOp::RoundNearestEven => |x: $t| x.round_ties_even(),
                    UnaryOp::Sqrt => |x: $t| x.sqrt(),
                    UnaryOp::Rsqrt => |x: $t| 1.0 / x.sqrt(),
                    UnaryOp::Cbrt => |x: $t| x.cbrt(),
                    UnaryOp::Exp => |x: $t| x.exp(),
                    UnaryOp::Expm1 => |x: $t| x.exp_m1(),
                    UnaryOp::Log => |x: $t| x.ln(),
                    UnaryOp::Log1p => |x: $t| x.ln_1p(),
                    UnaryOp::Logistic => |x: $t| 1.0 / (1.0 + (-x).exp()),
                    UnaryOp::Tanh => |x: $t| x.tanh(),
                    UnaryOp::Sin => |x: $t| x.sin(),
                    UnaryOp::Cos => |x: $t| x.cos(),
                    UnaryOp::Tan => |x: $t| x.tan(),
                    UnaryOp::Erf => |x: $t| $erf(x),
                    _ => return None,
                })
            }
            fn binary(op: BinaryOp) -> Option<fn($t, $t) -> $t> {
                Some(match op {
                    BinaryOp::Add => |a: $t, b: $t| a + b,
                    BinaryOp::Subtract => |a: $t, b: $t| a - b,
                    BinaryOp::Multiply => |a: $t, b: $t| a * b,
                    BinaryOp::Divide => |a: $t, b: $t| a / b,
                    BinaryOp::Remainder => |a: $t, b: $t| a % b,
                    BinaryOp::Maximum => $max,
                    BinaryOp::Minimum => $min,
                    BinaryOp::Power => |a: $t, b: $t| a.powf(b),
                    BinaryOp::Atan2 => |a: $t, b: $t| a.atan2(b),
                    _ => return None,
                })
            }
            fn is_finite_(self) -> bool {
                self.is_finite()
            }
            fn total_key(self) -> i64 {
                let i = self.to_bits() as $sbits;
                // Negative floats: flip the magnitude bits so larger magnitudes order lower.
                let flipped = i ^ ((((i >> (<$bits>::BITS - 1)) as $bits) >> 1) as $sbits);
                flipped as i64
            }
        }
    };
}
float_impl!(f32, u32, i32, libm::erff, max_f32, min_f32);
float_impl!(f64, u64, i64, libm::erf, max_f64, min_f64);

fn half_total_key(bits: u16) -> i64 {
    let i = bits as i16;
    (i ^ ((((i >> 15) as u16) >> 1) as i16)) as i64
}

// ---------------------------------------------------------------- integers

/// Integer element arithmetic (wrapping, XLA's division rules).
trait Int: Copy + Ord + Eq {
    fn unary(op: UnaryOp) -> Option<fn(Self) -> Self>;
    fn binary(op: BinaryOp) -> Option<fn(Self, Self) -> Self>;
}

macro_rules! int_impl {
    ($t:ty, $u:ty, $s:ty, $signed:expr) => {
        impl Int for $t {
            fn unary(op: UnaryOp) -> Option<fn($t) -> $t> {
                Some(match op {
                    UnaryOp::Not => |x: $t| !x,
                    UnaryOp::Negate => |x: $t| x.wrapping_neg(),
                    UnaryOp::Abs => |x: $t| {
                        if $signed && (x as $s) < 0 {
                            x.wrapping_neg()
                        } else {
                            x
                        }
                    },
                    UnaryOp::Sign => |x: $t| {
                        if $signed && (x as $s) < 0 {
                            (0 as $t).wrapping_sub(1)
                        } else if x == 0 {
                            0
                        } else {
                            1
                        }
                    },
                    UnaryOp::Popcnt => |x: $t| x.count_ones() as $t,
                    UnaryOp::Clz => |x: $t| x.leading_zeros() as $t,
                    _ => return None,
                })
            }
            fn binary(op: BinaryOp) -> Option<fn($t, $t) -> $t> {
                Some(match op {
                    BinaryOp::Add => |a: $t, b: $t| a.wrapping_add(b),
                    BinaryOp::Subtract => |a: $t, b: $t| a.wrapping_sub(b),
                    BinaryOp::Multiply => |a: $t, b: $t| a.wrapping_mul(b),
                    // x/0 = all bits set (-1 signed, MAX unsigned); MIN/-1 = MIN.
                    BinaryOp::Divide => |a: $t, b: $t| {
                        if b == 0 {
                            !(0 as $t)
                        } else {
                            a.wrapping_div(b)
                        }
                    },
                    // x%0 = x; MIN % -1 = 0.
                    BinaryOp::Remainder => |a: $t, b: $t| {
                        if b == 0 { a } else { a.wrapping_rem(b) }
                    },
                    BinaryOp::Maximum => |a: $t, b: $t| a.max(b),
                    BinaryOp::Minimum => |a: $t, b: $t| a.min(b),
                    BinaryOp::And => |a: $t, b: $t| a & b,
                    BinaryOp::Or => |a: $t, b: $t| a | b,
                    BinaryOp::Xor => |a: $t, b: $t| a ^ b,
                    // The shift amount is read as unsigned; ≥ width shifts everything out.
                    BinaryOp::ShiftLeft => |a: $t, b: $t| {
                        if (b as $u) >= <$t>::BITS as $u {
                            0
                        } else {
                            a << (b as $u)
                        }
                    },
                    BinaryOp::ShiftRightLogical => |a: $t, b: $t| {
                        if (b as $u) >= <$t>::BITS as $u {
                            0
                        } else {
                            ((a as $u) >> (b as $u)) as $t
                        }
                    },
                    BinaryOp::ShiftRightArithmetic => |a: $t, b: $t| {
                        let n = if (b as $u) >= <$t>::BITS as $u {
                            <$t>::BITS - 1
                        } else {
                            b as $u as u32
                        };
                        ((a as $s) >> n) as $t
                    },
                    BinaryOp::Power => |a: $t, b: $t| {
                        if $signed && (b as $s) < 0 {
                            // Negative exponents (XLA's EmitIntegerPow): 1 for base 1, else 0.
                            if a == 1 { 1 } else { 0 }
                        } else {
                            let mut base = a;
                            let mut e = b as $u;
                            let mut acc: $t = 1;
                            while e != 0 {
                                if e & 1 == 1 {
                                    acc = acc.wrapping_mul(base);
                                }
                                base = base.wrapping_mul(base);
                                e >>= 1;
                            }
                            acc
                        }
                    },
                    _ => return None,
                })
            }
        }
    };
}
int_impl!(i8, u8, i8, true);
int_impl!(i16, u16, i16, true);
int_impl!(i32, u32, i32, true);
int_impl!(i64, u64, i64, true);
int_impl!(u8, u8, i8, false);
int_impl!(u16, u16, i16, false);
int_impl!(u32, u32, i32, false);
int_impl!(u64, u64, i64, false);

fn unsupported(what: &str, op: &str, ty: ElementType) -> EvalError {
    EvalError::new(format!("{what} {op} is not defined for {ty}"))
}

fn map1<T: Copy, U>(v: &[T], f: impl Fn(T) -> U) -> Vec<U> {
    v.iter().map(|&x| f(x)).collect()
}

/// Applies `f` pairwise; `a` or `b` may hold a single element (scalar
/// broadcast), otherwise the lengths must agree.
fn map2<T: Copy, U>(a: &[T], b: &[T], f: impl Fn(T, T) -> U) -> Result<Vec<U>> {
    match (a.len(), b.len()) {
        (x, y) if x == y => Ok(a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect()),
        (1, _) => Ok(b.iter().map(|&y| f(a[0], y)).collect()),
        (_, 1) => Ok(a.iter().map(|&x| f(x, b[0])).collect()),
        (x, y) => Err(EvalError::new(format!(
            "elementwise operands have {x} and {y} elements"
        ))),
    }
}

// ---------------------------------------------------------------- narrow

/// A unary op on narrow bit patterns of `ty`: through f16 (f8) or s8/u8
/// (2/4-bit integers), as `crate::narrow` describes.
fn narrow_unary_fn(op: UnaryOp, ty: ElementType) -> Option<Box<dyn Fn(u8) -> u8>> {
    if let Some(fmt) = enc::f8_format(ty) {
        let f = f32::unary(op)?;
        return Some(Box::new(move |a| {
            let x = f16::from_f32(enc::f8_decode(fmt, a)).to_f32();
            enc::f8_encode(fmt, f16::from_f32(f(x)).to_f64())
        }));
    }
    if op == UnaryOp::Clz {
        // XLA counts leading zeros in the narrow width itself.
        let w = ty.bit_width();
        return Some(Box::new(move |a| {
            let p = enc::int_n_wrap(ty, enc::int_n_value(ty, a));
            enc::int_n_wrap(ty, (p.leading_zeros() - (8 - w)) as i64)
        }));
    }
    if ty.is_signed_int() {
        let f = i8::unary(op)?;
        Some(Box::new(move |a| {
            enc::int_n_wrap(ty, f(enc::int_n_value(ty, a) as i8) as i64)
        }))
    } else {
        let f = u8::unary(op)?;
        Some(Box::new(move |a| {
            enc::int_n_wrap(ty, f(enc::int_n_value(ty, a) as u8) as i64)
        }))
    }
}

/// A binary op on narrow bit patterns of `ty` (see [`narrow_unary_fn`]).
fn narrow_binary_fn(op: BinaryOp, ty: ElementType) -> Option<Box<dyn Fn(u8, u8) -> u8>> {
    if let Some(fmt) = enc::f8_format(ty) {
        let f = f32::binary(op)?;
        return Some(Box::new(move |a, b| {
            let x = enc::f8_decode(fmt, a);
            let y = enc::f8_decode(fmt, b);
            enc::f8_encode(fmt, f16::from_f32(f(x, y)).to_f64())
        }));
    }
    let w = ty.bit_width();
    let mask = (1u8 << w) - 1;
    match op {
        // XLA shifts right in the narrow width itself (the amount read as
        // an unsigned narrow value): no detour through s8/u8.
        BinaryOp::ShiftRightLogical => {
            return Some(Box::new(move |a, b| {
                let (p, k) = (a & mask, b & mask);
                if k as u32 >= w { 0 } else { p >> k }
            }));
        }
        BinaryOp::ShiftRightArithmetic => {
            return Some(Box::new(move |a, b| {
                let v = ((a << (8 - w)) as i8) >> (8 - w);
                let k = ((b & mask) as u32).min(w - 1);
                ((v >> k) as u8) & mask
            }));
        }
        _ => {}
    }
    if ty.is_signed_int() {
        let f = i8::binary(op)?;
        Some(Box::new(move |a, b| {
            let r = f(enc::int_n_value(ty, a) as i8, enc::int_n_value(ty, b) as i8);
            enc::int_n_wrap(ty, r as i64)
        }))
    } else {
        let f = u8::binary(op)?;
        Some(Box::new(move |a, b| {
            let r = f(enc::int_n_value(ty, a) as u8, enc::int_n_value(ty, b) as u8);
            enc::int_n_wrap(ty, r as i64)
        }))
    }
}

// ---------------------------------------------------------------- unary

/// Elementwise unary op. `is-finite` returns pred data.
pub fn unary(op: UnaryOp, x: &ArrayData) -> Result<ArrayData> {
    let ty = x.element_type();
    if crate::complex::handles_unary(op, ty) {
        return crate::complex::unary(op, x);
    }
    let err = || unsupported("unary op", op.name(), ty);
    if let ArrayData::Narrow(t, v) = x {
        if op == UnaryOp::IsFinite && t.is_f8() {
            return unary(op, &crate::narrow::widen(x));
        }
        let f = narrow_unary_fn(op, *t).ok_or_else(err)?;
        return Ok(ArrayData::Narrow(*t, map1(v, f)));
    }
    if op == UnaryOp::IsFinite {
        return Ok(ArrayData::Pred(match x {
            ArrayData::F16(v) => map1(v, |a| a.is_finite()),
            ArrayData::BF16(v) => map1(v, |a| a.is_finite()),
            ArrayData::F32(v) => map1(v, |a| a.is_finite_()),
            ArrayData::F64(v) => map1(v, |a| a.is_finite_()),
            _ => return Err(err()),
        }));
    }
    macro_rules! int {
        ($v:ident, $variant:ident, $t:ty) => {{
            let f = <$t as Int>::unary(op).ok_or_else(err)?;
            ArrayData::$variant(map1($v, f))
        }};
    }
    Ok(match x {
        ArrayData::Pred(v) => match op {
            UnaryOp::Not => ArrayData::Pred(map1(v, |a| !a)),
            _ => return Err(err()),
        },
        ArrayData::S8(v) => int!(v, S8, i8),
        ArrayData::S16(v) => int!(v, S16, i16),
        ArrayData::S32(v) => int!(v, S32, i32),
        ArrayData::S64(v) => int!(v, S64, i64),
        ArrayData::U8(v) => int!(v, U8, u8),
        ArrayData::U16(v) => int!(v, U16, u16),
        ArrayData::U32(v) => int!(v, U32, u32),
        ArrayData::U64(v) => int!(v, U64, u64),
        ArrayData::F16(v) => {
            let f = f32::unary(op).ok_or_else(err)?;
            ArrayData::F16(map1(v, |a| f16::from_f32(f(a.to_f32()))))
        }
        ArrayData::BF16(v) => {
            let f = f32::unary(op).ok_or_else(err)?;
            ArrayData::BF16(map1(v, |a| bf16::from_f32(f(a.to_f32()))))
        }
        ArrayData::F32(v) => ArrayData::F32(map1(v, f32::unary(op).ok_or_else(err)?)),
        ArrayData::F64(v) => ArrayData::F64(map1(v, f64::unary(op).ok_or_else(err)?)),
        ArrayData::C64(_) | ArrayData::C128(_) | ArrayData::Token(_) | ArrayData::Narrow(..) => {
            return Err(err());
        }
    })
}

// ---------------------------------------------------------------- binary

/// Elementwise binary op on same-typed data; either side may be a single
/// element (broadcast).
pub fn binary(op: BinaryOp, a: &ArrayData, b: &ArrayData) -> Result<ArrayData> {
    let ty = a.element_type();
    let err = || unsupported("binary op", op.name(), ty);
    macro_rules! int {
        ($x:ident, $y:ident, $variant:ident, $t:ty) => {{
            let f = <$t as Int>::binary(op).ok_or_else(err)?;
            ArrayData::$variant(map2($x, $y, f)?)
        }};
    }
    Ok(match (a, b) {
        (ArrayData::Pred(x), ArrayData::Pred(y)) => {
            let f: fn(bool, bool) -> bool = match op {
                BinaryOp::And | BinaryOp::Minimum => |p, q| p & q,
                BinaryOp::Or | BinaryOp::Maximum => |p, q| p | q,
                BinaryOp::Xor => |p, q| p ^ q,
                _ => return Err(err()),
            };
            ArrayData::Pred(map2(x, y, f)?)
        }
        (ArrayData::S8(x), ArrayData::S8(y)) => int!(x, y, S8, i8),
        (ArrayData::S16(x), ArrayData::S16(y)) => int!(x, y, S16, i16),
        (ArrayData::S32(x), ArrayData::S32(y)) => int!(x, y, S32, i32),
        (ArrayData::S64(x), ArrayData::S64(y)) => int!(x, y, S64, i64),
        (ArrayData::U8(x), ArrayData::U8(y)) => int!(x, y, U8, u8),
        (ArrayData::U16(x), ArrayData::U16(y)) => int!(x, y, U16, u16),
        (ArrayData::U32(x), ArrayData::U32(y)) => int!(x, y, U32, u32),
        (ArrayData::U64(x), ArrayData::U64(y)) => int!(x, y, U64, u64),
        (ArrayData::F16(x), ArrayData::F16(y)) => {
            let f = f32::binary(op).ok_or_else(err)?;
            ArrayData::F16(map2(x, y, |p, q| f16::from_f32(f(p.to_f32(), q.to_f32())))?)
        }
        (ArrayData::BF16(x), ArrayData::BF16(y)) => {
            let f = f32::binary(op).ok_or_else(err)?;
            ArrayData::BF16(map2(x, y, |p, q| {
                bf16::from_f32(f(p.to_f32(), q.to_f32()))
            })?)
        }
        (ArrayData::F32(x), ArrayData::F32(y)) => {
            ArrayData::F32(map2(x, y, f32::binary(op).ok_or_else(err)?)?)
        }
        (ArrayData::F64(x), ArrayData::F64(y)) => {
            ArrayData::F64(map2(x, y, f64::binary(op).ok_or_else(err)?)?)
        }
        (ArrayData::C64(_), _) | (ArrayData::C128(_), _) => crate::complex::binary(op, a, b)?,
        (ArrayData::Narrow(t, x), ArrayData::Narrow(u, y)) if t == u => {
            let f = narrow_binary_fn(op, *t).ok_or_else(err)?;
            ArrayData::Narrow(*t, map2(x, y, f)?)
        }
        _ => {
            return Err(EvalError::new(format!(
                "binary op {} on mismatched types {} and {}",
                op.name(),
                a.element_type(),
                b.element_type()
            )));
        }
    })
}

/// A walk over (source position, accumulator position) pairs.
pub type Walk<'a> = dyn Fn(&mut dyn FnMut(usize, usize)) + 'a;

/// Reduces `x` into `acc` with `op`: for each source position `k` in
/// order, `acc[out[k]] = op(acc[out[k]], x[k])`. `out` is produced lazily
/// by `for_each` (which calls back with (k, out_pos) in row-major order of
/// the source). Returns an error when the type does not support `op`.
pub fn reduce_into(
    op: BinaryOp,
    acc: &mut ArrayData,
    x: &ArrayData,
    for_each: &Walk<'_>,
) -> Result<()> {
    let ty = x.element_type();
    let err = || unsupported("binary op", op.name(), ty);
    macro_rules! go {
        ($a:ident, $x:ident, $f:expr) => {{
            let f = $f;
            for_each(&mut |k, o| $a[o] = f($a[o], $x[k]));
        }};
    }
    match (acc, x) {
        (ArrayData::Pred(a), ArrayData::Pred(v)) => {
            let f: fn(bool, bool) -> bool = match op {
                BinaryOp::And | BinaryOp::Minimum => |p, q| p & q,
                BinaryOp::Or | BinaryOp::Maximum => |p, q| p | q,
                BinaryOp::Xor => |p, q| p ^ q,
                _ => return Err(err()),
            };
            go!(a, v, f)
        }
        (ArrayData::S8(a), ArrayData::S8(v)) => go!(a, v, i8::binary(op).ok_or_else(err)?),
        (ArrayData::S16(a), ArrayData::S16(v)) => go!(a, v, i16::binary(op).ok_or_else(err)?),
        (ArrayData::S32(a), ArrayData::S32(v)) => go!(a, v, i32::binary(op).ok_or_else(err)?),
        (ArrayData::S64(a), ArrayData::S64(v)) => go!(a, v, i64::binary(op).ok_or_else(err)?),
        (ArrayData::U8(a), ArrayData::U8(v)) => go!(a, v, u8::binary(op).ok_or_else(err)?),
        (ArrayData::U16(a), ArrayData::U16(v)) => go!(a, v, u16::binary(op).ok_or_else(err)?),
        (ArrayData::U32(a), ArrayData::U32(v)) => go!(a, v, u32::binary(op).ok_or_else(err)?),
        (ArrayData::U64(a), ArrayData::U64(v)) => go!(a, v, u64::binary(op).ok_or_else(err)?),
        (ArrayData::F32(a), ArrayData::F32(v)) => go!(a, v, f32::binary(op).ok_or_else(err)?),
        (ArrayData::F64(a), ArrayData::F64(v)) => go!(a, v, f64::binary(op).ok_or_else(err)?),
        (a @ (ArrayData::C64(_) | ArrayData::C128(_)), v) => {
            crate::complex::reduce_into(op, a, v, for_each)?
        }
        (ArrayData::F16(a), ArrayData::F16(v)) => {
            let f = f32::binary(op).ok_or_else(err)?;
            go!(a, v, |p: f16, q: f16| f16::from_f32(f(
                p.to_f32(),
                q.to_f32()
            )))
        }
        (ArrayData::BF16(a), ArrayData::BF16(v)) => {
            let f = f32::binary(op).ok_or_else(err)?;
            go!(a, v, |p: bf16, q: bf16| bf16::from_f32(f(
                p.to_f32(),
                q.to_f32()
            )))
        }
        (ArrayData::Narrow(t, a), ArrayData::Narrow(u, v)) if t == u => {
            go!(a, v, narrow_binary_fn(op, *t).ok_or_else(err)?)
        }
        (a, v) => {
            return Err(EvalError::new(format!(
                "reduce with {} on mismatched types {} and {}",
                op.name(),
                a.element_type(),
                v.element_type()
            )));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------- compare

fn apply_dir<T: PartialOrd>(d: ComparisonDirection) -> fn(&T, &T) -> bool {
    match d {
        ComparisonDirection::Eq => |a, b| a == b,
        ComparisonDirection::Ne => |a, b| a != b,
        ComparisonDirection::Ge => |a, b| a >= b,
        ComparisonDirection::Gt => |a, b| a > b,
        ComparisonDirection::Le => |a, b| a <= b,
        ComparisonDirection::Lt => |a, b| a < b,
    }
}

fn cmp_vec<T: PartialOrd + Copy>(d: ComparisonDirection, a: &[T], b: &[T]) -> Result<Vec<bool>> {
    let f = apply_dir::<T>(d);
    map2(a, b, |x, y| f(&x, &y))
}

fn cmp_keys<T: Copy>(
    d: ComparisonDirection,
    a: &[T],
    b: &[T],
    key: impl Fn(T) -> i64,
) -> Result<Vec<bool>> {
    let f = apply_dir::<i64>(d);
    map2(a, b, |x, y| f(&key(x), &key(y)))
}

/// Elementwise comparison → pred data. Floats compare by IEEE rules unless
/// `kind` is TOTALORDER (−NaN < −inf < … < −0 < +0 < … < +inf < +NaN).
/// Integers compare by their own signedness (SIGNED/UNSIGNED tags are
/// accepted as written by XLA and must agree with the type).
pub fn compare(
    dir: ComparisonDirection,
    kind: Option<ComparisonType>,
    a: &ArrayData,
    b: &ArrayData,
) -> Result<ArrayData> {
    let total = kind == Some(ComparisonType::TotalOrder);
    if a.element_type().is_complex() {
        if total {
            return Err(EvalError::new(format!(
                "TOTALORDER compare is not defined for {}",
                a.element_type()
            )));
        }
        return crate::complex::compare(dir, a, b);
    }
    if matches!(a, ArrayData::Narrow(..)) || matches!(b, ArrayData::Narrow(..)) {
        // Widening is exact and keeps the order (NaNs and their signs too).
        let (x, y) = (crate::narrow::widen(a), crate::narrow::widen(b));
        return compare(dir, kind, &x, &y);
    }
    Ok(ArrayData::Pred(match (a, b) {
        (ArrayData::Pred(x), ArrayData::Pred(y)) => cmp_vec(dir, x, y)?,
        (ArrayData::S8(x), ArrayData::S8(y)) => cmp_vec(dir, x, y)?,
        (ArrayData::S16(x), ArrayData::S16(y)) => cmp_vec(dir, x, y)?,
        (ArrayData::S32(x), ArrayData::S32(y)) => cmp_vec(dir, x, y)?,
        (ArrayData::S64(x), ArrayData::S64(y)) => cmp_vec(dir, x, y)?,
        (ArrayData::U8(x), ArrayData::U8(y)) => cmp_vec(dir, x, y)?,
        (ArrayData::U16(x), ArrayData::U16(y)) => cmp_vec(dir, x, y)?,
        (ArrayData::U32(x), ArrayData::U32(y)) => cmp_vec(dir, x, y)?,
        (ArrayData::U64(x), ArrayData::U64(y)) => cmp_vec(dir, x, y)?,
        (ArrayData::F16(x), ArrayData::F16(y)) if total => {
            cmp_keys(dir, x, y, |v| half_total_key(v.to_bits()))?
        }
        (ArrayData::BF16(x), ArrayData::BF16(y)) if total => {
            cmp_keys(dir, x, y, |v| half_total_key(v.to_bits()))?
        }
        (ArrayData::F32(x), ArrayData::F32(y)) if total => cmp_keys(dir, x, y, f32::total_key)?,
        (ArrayData::F64(x), ArrayData::F64(y)) if total => cmp_keys(dir, x, y, f64::total_key)?,
        (ArrayData::F16(x), ArrayData::F16(y)) => cmp_vec(dir, x, y)?,
        (ArrayData::BF16(x), ArrayData::BF16(y)) => cmp_vec(dir, x, y)?,
        (ArrayData::F32(x), ArrayData::F32(y)) => cmp_vec(dir, x, y)?,
        (ArrayData::F64(x), ArrayData::F64(y)) => cmp_vec(dir, x, y)?,
        _ => {
            return Err(EvalError::new(format!(
                "compare of {} with {}",
                a.element_type(),
                b.element_type()
            )));
        }
    }))
}

// ---------------------------------------------------------------- convert

/// Conversion targets: one constructor per source family.
trait FromScalar: Sized {
    fn from_bool(v: bool) -> Self;
    fn from_i64(v: i64) -> Self;
    fn from_u64(v: u64) -> Self;
    fn from_f32(v: f32) -> Self;
    fn from_f64(v: f64) -> Self;
}

macro_rules! from_scalar_num {
    ($t:ty) => {
        impl FromScalar for $t {
            fn from_bool(v: bool) -> Self {
                v as u8 as $t
            }
            // `as` wraps int→int, rounds int→float to nearest even, and saturates
            // float→int with NaN → 0: exactly the documented semantics.
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            fn from_u64(v: u64) -> Self {
                v as $t
            }
            fn from_f32(v: f32) -> Self {
                v as $t
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
        }
    };
}
from_scalar_num!(i8);
from_scalar_num!(i16);
from_scalar_num!(i32);
from_scalar_num!(i64);
from_scalar_num!(u8);
from_scalar_num!(u16);
from_scalar_num!(u32);
from_scalar_num!(u64);
from_scalar_num!(f32);
from_scalar_num!(f64);

impl FromScalar for bool {
    fn from_bool(v: bool) -> Self {
        v
    }
    fn from_i64(v: i64) -> Self {
        v != 0
    }
    fn from_u64(v: u64) -> Self {
        v != 0
    }
    fn from_f32(v: f32) -> Self {
        v != 0.0
    }
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
}

macro_rules! from_scalar_half {
    ($t:ty) => {
        impl FromScalar for $t {
            fn from_bool(v: bool) -> Self {
                <$t>::from_f32(v as u8 as f32)
            }
            fn from_i64(v: i64) -> Self {
                <$t>::from_f64(v as f64)
            }
            fn from_u64(v: u64) -> Self {
                <$t>::from_f64(v as f64)
            }
            fn from_f32(v: f32) -> Self {
                <$t>::from_f32(v)
            }
            fn from_f64(v: f64) -> Self {
                <$t>::from_f64(v)
            }
        }
    };
}
from_scalar_half!(f16);
from_scalar_half!(bf16);

fn convert_to<T: FromScalar>(src: &ArrayData) -> Result<Vec<T>> {
    Ok(match src {
        ArrayData::Pred(v) => map1(v, T::from_bool),
        ArrayData::S8(v) => map1(v, |x| T::from_i64(x as i64)),
        ArrayData::S16(v) => map1(v, |x| T::from_i64(x as i64)),
        ArrayData::S32(v) => map1(v, |x| T::from_i64(x as i64)),
        ArrayData::S64(v) => map1(v, T::from_i64),
        ArrayData::U8(v) => map1(v, |x| T::from_u64(x as u64)),
        ArrayData::U16(v) => map1(v, |x| T::from_u64(x as u64)),
        ArrayData::U32(v) => map1(v, |x| T::from_u64(x as u64)),
        ArrayData::U64(v) => map1(v, T::from_u64),
        ArrayData::F16(v) => map1(v, |x| T::from_f32(x.to_f32())),
        ArrayData::BF16(v) => map1(v, |x| T::from_f32(x.to_f32())),
        ArrayData::F32(v) => map1(v, T::from_f32),
        ArrayData::F64(v) => map1(v, T::from_f64),
        ArrayData::C64(_) | ArrayData::C128(_) => {
            return Err(EvalError::new(format!(
                "cannot convert {} to a real type (use real, imag or abs)",
                src.element_type()
            )));
        }
        ArrayData::Narrow(..) => return convert_to(&crate::narrow::widen(src)),
        ArrayData::Token(_) => return Err(EvalError::new("cannot convert a token")),
    })
}

/// `convert`: elementwise static cast to `to` (see `docs/SEMANTICS.md`).
pub fn convert(src: &ArrayData, to: ElementType) -> Result<ArrayData> {
    Ok(match to {
        ElementType::Pred => ArrayData::Pred(convert_to(src)?),
        ElementType::S8 => ArrayData::S8(convert_to(src)?),
        ElementType::S16 => ArrayData::S16(convert_to(src)?),
        ElementType::S32 => ArrayData::S32(convert_to(src)?),
        ElementType::S64 => ArrayData::S64(convert_to(src)?),
        ElementType::U8 => ArrayData::U8(convert_to(src)?),
        ElementType::U16 => ArrayData::U16(convert_to(src)?),
        ElementType::U32 => ArrayData::U32(convert_to(src)?),
        ElementType::U64 => ArrayData::U64(convert_to(src)?),
        ElementType::F16 => ArrayData::F16(convert_to(src)?),
        ElementType::BF16 => ArrayData::BF16(convert_to(src)?),
        ElementType::F32 => ArrayData::F32(convert_to(src)?),
        ElementType::F64 => ArrayData::F64(convert_to(src)?),
        ElementType::C64 | ElementType::C128 => crate::complex::convert(src, to)?,
        t @ (rxla_ir::narrow_types!()) => crate::narrow::convert_to_narrow(src, t)?,
        ElementType::Token => return Err(EvalError::new("cannot convert to token")),
    })
}

/// `bitcast-convert`: reinterprets the little-endian bytes of the
/// row-major data as `to` (width-changing forms included: the byte stream
/// is the same, only the element count changes).
pub fn bitcast_convert(src: &ArrayData, to: ElementType, count: usize) -> Result<ArrayData> {
    if src.element_type() == ElementType::Token || to == ElementType::Token {
        return Err(EvalError::new("bitcast-convert of tokens"));
    }
    if src.element_type().is_int_n() || to.is_int_n() {
        return crate::narrow::bitcast_bits(src, to, count);
    }
    let bytes = src.to_le_bytes();
    if bytes.len() != count * to.byte_size() {
        return Err(EvalError::new(format!(
            "bitcast-convert of {} bytes of {} into {count} elements of {to}",
            bytes.len(),
            src.element_type()
        )));
    }
    Ok(ArrayData::from_le_bytes(to, &bytes)?)
}

// ---------------------------------------------------------------- scalars

/// `unary` on one scalar (same rules, no allocation).
pub fn scalar_unary(op: UnaryOp, x: Scalar) -> Result<Scalar> {
    let err = || unsupported("unary op", op.name(), x.element_type());
    if op == UnaryOp::IsFinite {
        return Ok(Scalar::Pred(match x {
            Scalar::F16(v) => v.is_finite(),
            Scalar::BF16(v) => v.is_finite(),
            Scalar::F32(v) => v.is_finite(),
            Scalar::F64(v) => v.is_finite(),
            _ => return Err(err()),
        }));
    }
    macro_rules! int {
        ($v:ident, $variant:ident, $t:ty) => {
            Scalar::$variant((<$t as Int>::unary(op).ok_or_else(err)?)($v))
        };
    }
    Ok(match x {
        Scalar::Pred(v) if op == UnaryOp::Not => Scalar::Pred(!v),
        Scalar::Pred(_) => return Err(err()),
        Scalar::S8(v) => int!(v, S8, i8),
        Scalar::S16(v) => int!(v, S16, i16),
        Scalar::S32(v) => int!(v, S32, i32),
        Scalar::S64(v) => int!(v, S64, i64),
        Scalar::U8(v) => int!(v, U8, u8),
        Scalar::U16(v) => int!(v, U16, u16),
        Scalar::U32(v) => int!(v, U32, u32),
        Scalar::U64(v) => int!(v, U64, u64),
        Scalar::F16(v) => Scalar::F16(f16::from_f32((f32::unary(op).ok_or_else(err)?)(v.to_f32()))),
        Scalar::BF16(v) => Scalar::BF16(bf16::from_f32((f32::unary(op).ok_or_else(err)?)(
            v.to_f32(),
        ))),
        Scalar::F32(v) => Scalar::F32((f32::unary(op).ok_or_else(err)?)(v)),
        Scalar::F64(v) => Scalar::F64((f64::unary(op).ok_or_else(err)?)(v)),
    })
}

/// `binary` on two scalars of the same type.
pub fn scalar_binary(op: BinaryOp, a: Scalar, b: Scalar) -> Result<Scalar> {
    let err = || unsupported("binary op", op.name(), a.element_type());
    macro_rules! int {
        ($x:ident, $y:ident, $variant:ident, $t:ty) => {
            Scalar::$variant((<$t as Int>::binary(op).ok_or_else(err)?)($x, $y))
        };
    }
    Ok(match (a, b) {
        (Scalar::Pred(x), Scalar::Pred(y)) => Scalar::Pred(match op {
            BinaryOp::And | BinaryOp::Minimum => x & y,
            BinaryOp::Or | BinaryOp::Maximum => x | y,
            BinaryOp::Xor => x ^ y,
            _ => return Err(err()),
        }),
        (Scalar::S8(x), Scalar::S8(y)) => int!(x, y, S8, i8),
        (Scalar::S16(x), Scalar::S16(y)) => int!(x, y, S16, i16),
        (Scalar::S32(x), Scalar::S32(y)) => int!(x, y, S32, i32),
        (Scalar::S64(x), Scalar::S64(y)) => int!(x, y, S64, i64),
        (Scalar::U8(x), Scalar::U8(y)) => int!(x, y, U8, u8),
        (Scalar::U16(x), Scalar::U16(y)) => int!(x, y, U16, u16),
        (Scalar::U32(x), Scalar::U32(y)) => int!(x, y, U32, u32),
        (Scalar::U64(x), Scalar::U64(y)) => int!(x, y, U64, u64),
        (Scalar::F16(x), Scalar::F16(y)) => {
            let f = f32::binary(op).ok_or_else(err)?;
            Scalar::F16(f16::from_f32(f(x.to_f32(), y.to_f32())))
        }
        (Scalar::BF16(x), Scalar::BF16(y)) => {
            let f = f32::binary(op).ok_or_else(err)?;
            Scalar::BF16(bf16::from_f32(f(x.to_f32(), y.to_f32())))
        }
        (Scalar::F32(x), Scalar::F32(y)) => Scalar::F32((f32::binary(op).ok_or_else(err)?)(x, y)),
        (Scalar::F64(x), Scalar::F64(y)) => Scalar::F64((f64::binary(op).ok_or_else(err)?)(x, y)),
        _ => {
            return Err(EvalError::new(format!(
                "binary op {} on mismatched types {} and {}",
                op.name(),
                a.element_type(),
                b.element_type()
            )));
        }
    })
}

/// `compare` on two scalars of the same type.
pub fn scalar_compare(
    dir: ComparisonDirection,
    kind: Option<ComparisonType>,
    a: Scalar,
    b: Scalar,
) -> Result<bool> {
    let total = kind == Some(ComparisonType::TotalOrder);
    macro_rules! c {
        ($x:expr, $y:expr) => {
            (apply_dir(dir))(&$x, &$y)
        };
    }
    Ok(match (a, b) {
        (Scalar::Pred(x), Scalar::Pred(y)) => c!(x, y),
        (Scalar::S8(x), Scalar::S8(y)) => c!(x, y),
        (Scalar::S16(x), Scalar::S16(y)) => c!(x, y),
        (Scalar::S32(x), Scalar::S32(y)) => c!(x, y),
        (Scalar::S64(x), Scalar::S64(y)) => c!(x, y),
        (Scalar::U8(x), Scalar::U8(y)) => c!(x, y),
        (Scalar::U16(x), Scalar::U16(y)) => c!(x, y),
        (Scalar::U32(x), Scalar::U32(y)) => c!(x, y),
        (Scalar::U64(x), Scalar::U64(y)) => c!(x, y),
        (Scalar::F16(x), Scalar::F16(y)) if total => {
            c!(half_total_key(x.to_bits()), half_total_key(y.to_bits()))
        }
        (Scalar::BF16(x), Scalar::BF16(y)) if total => {
            c!(half_total_key(x.to_bits()), half_total_key(y.to_bits()))
        }
        (Scalar::F32(x), Scalar::F32(y)) if total => c!(x.total_key(), y.total_key()),
        (Scalar::F64(x), Scalar::F64(y)) if total => c!(x.total_key(), y.total_key()),
        (Scalar::F16(x), Scalar::F16(y)) => c!(x, y),
        (Scalar::BF16(x), Scalar::BF16(y)) => c!(x, y),
        (Scalar::F32(x), Scalar::F32(y)) => c!(x, y),
        (Scalar::F64(x), Scalar::F64(y)) => c!(x, y),
        _ => {
            return Err(EvalError::new(format!(
                "compare of {} with {}",
                a.element_type(),
                b.element_type()
            )));
        }
    })
}

fn convert1<T: FromScalar>(x: Scalar) -> T {
    match x {
        Scalar::Pred(v) => T::from_bool(v),
        Scalar::S8(v) => T::from_i64(v as i64),
        Scalar::S16(v) => T::from_i64(v as i64),
        Scalar::S32(v) => T::from_i64(v as i64),
        Scalar::S64(v) => T::from_i64(v),
        Scalar::U8(v) => T::from_u64(v as u64),
        Scalar::U16(v) => T::from_u64(v as u64),
        Scalar::U32(v) => T::from_u64(v as u64),
        Scalar::U64(v) => T::from_u64(v),
        Scalar::F16(v) => T::from_f32(v.to_f32()),
        Scalar::BF16(v) => T::from_f32(v.to_f32()),
        Scalar::F32(v) => T::from_f32(v),
        Scalar::F64(v) => T::from_f64(v),
    }
}

/// `convert` of one scalar.
pub fn scalar_convert(x: Scalar, to: ElementType) -> Result<Scalar> {
    Ok(match to {
        ElementType::Pred => Scalar::Pred(convert1(x)),
        ElementType::S8 => Scalar::S8(convert1(x)),
        ElementType::S16 => Scalar::S16(convert1(x)),
        ElementType::S32 => Scalar::S32(convert1(x)),
        ElementType::S64 => Scalar::S64(convert1(x)),
        ElementType::U8 => Scalar::U8(convert1(x)),
        ElementType::U16 => Scalar::U16(convert1(x)),
        ElementType::U32 => Scalar::U32(convert1(x)),
        ElementType::U64 => Scalar::U64(convert1(x)),
        ElementType::F16 => Scalar::F16(convert1(x)),
        ElementType::BF16 => Scalar::BF16(convert1(x)),
        ElementType::F32 => Scalar::F32(convert1(x)),
        ElementType::F64 => Scalar::F64(convert1(x)),
        ElementType::C64 | ElementType::C128 | rxla_ir::narrow_types!() => {
            return Err(EvalError::new(format!(
                "scalar convert to {to}: not a scalar type here"
            )));
        }
        ElementType::Token => return Err(EvalError::new("cannot convert to token")),
    })
}

/// True when `ty` supports `op` as a binary op (used to pick fast paths).
pub fn binary_supported(op: BinaryOp, ty: ElementType) -> bool {
    match ty {
        ElementType::Pred => matches!(
            op,
            BinaryOp::And | BinaryOp::Or | BinaryOp::Xor | BinaryOp::Maximum | BinaryOp::Minimum
        ),
        ElementType::F16 | ElementType::BF16 | ElementType::F32 | ElementType::F64 => {
            f32::binary(op).is_some()
        }
        ElementType::C64 | ElementType::C128 => crate::complex::binary_fn::<f32>(op).is_some(),
        ElementType::Token => false,
        t if t.is_narrow() => narrow_binary_fn(op, t).is_some(),
        _ => i32::binary(op).is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_order_keys_are_monotone() {
        let vals = [
            -f32::NAN,
            f32::NEG_INFINITY,
            -1.0,
            -0.0,
            0.0,
            1.0,
            f32::INFINITY,
            f32::NAN,
        ];
        for w in vals.windows(2) {
            assert!(w[0].total_key() < w[1].total_key(), "{w:?}");
        }
    }

    #[test]
    fn int_edge_cases() {
        let d = |a: i32, b: i32| (i32::binary(BinaryOp::Divide).unwrap())(a, b);
        let r = |a: i32, b: i32| (i32::binary(BinaryOp::Remainder).unwrap())(a, b);
        assert_eq!(d(7, 0), -1);
        assert_eq!(d(i32::MIN, -1), i32::MIN);
        assert_eq!(r(7, 0), 7);
        assert_eq!(r(i32::MIN, -1), 0);
        assert_eq!((u32::binary(BinaryOp::Divide).unwrap())(7, 0), u32::MAX);
        let p = i32::binary(BinaryOp::Power).unwrap();
        assert_eq!(p(2, 10), 1024);
        assert_eq!(p(2, -1), 0);
        assert_eq!(p(-1, -3), 0);
        assert_eq!(p(-1, -2), 0);
        assert_eq!(p(1, -5), 1);
        assert_eq!(p(0, 0), 1);
        let sra = i8::binary(BinaryOp::ShiftRightArithmetic).unwrap();
        assert_eq!(sra(-128, 9), -1);
        assert_eq!(sra(64, 100), 0);
        let sl = u8::binary(BinaryOp::ShiftLeft).unwrap();
        assert_eq!(sl(1, 8), 0);
        assert_eq!(sl(1, 7), 128);
        assert_eq!(
            (u8::binary(BinaryOp::ShiftRightArithmetic).unwrap())(0x80, 1),
            0xC0
        );
    }
}

// ---------------------------------------------------------- reduce-precision

/// Rounds the IEEE bits `x` of a float with `src_e` exponent and `src_m`
/// mantissa bits to the nearest value (ties to even) representable with
/// `e` exponent and `m` mantissa bits, as XLA's reduce-precision does:
/// values above the reduced range become ±inf, values at or below its
/// smallest normal become ±0 (no reduced denormals), NaN stays NaN.
fn reduce_precision_bits(x: u64, src_e: u32, src_m: u32, e: i64, m: i64) -> u64 {
    let total = 1 + src_e + src_m;
    let sign_mask = 1u64 << (total - 1);
    let exp_mask = ((1u64 << src_e) - 1) << src_m;
    let man_mask = (1u64 << src_m) - 1;
    let is_nan = (x & exp_mask) == exp_mask && (x & man_mask) != 0;
    let mut v = x;
    if m < src_m as i64 {
        let shift = src_m as i64 - m.max(0);
        let last_bit_mask = 1u64 << shift;
        let base_bias = (last_bit_mask >> 1) - 1;
        let last_bit = (v & last_bit_mask) >> shift;
        let truncation_mask = !(last_bit_mask - 1);
        v = v.wrapping_add(last_bit + base_bias) & truncation_mask;
        v &= u64::MAX >> (64 - total);
    }
    if e < src_e as i64 {
        let src_bias = (1i64 << (src_e - 1)) - 1;
        let reduced_bias = (1i64 << (e - 1)) - 1;
        let max_exp = (src_bias + reduced_bias) as u64;
        let min_exp = (src_bias - reduced_bias) as u64;
        let x_exp = v & exp_mask;
        let signed_zero = v & sign_mask;
        if x_exp > (max_exp << src_m) {
            v = signed_zero | exp_mask;
        } else if x_exp <= (min_exp << src_m) {
            v = signed_zero;
        }
    }
    if is_nan {
        if m > 0 {
            x
        } else {
            // No mantissa bit left to mark a NaN: keep a quiet NaN.
            (x & sign_mask) | exp_mask | (1u64 << (src_m - 1))
        }
    } else {
        v
    }
}

/// Elementwise reduce-precision on float data (same type out).
pub fn reduce_precision(
    x: &ArrayData,
    exponent_bits: i64,
    mantissa_bits: i64,
) -> Result<ArrayData> {
    if exponent_bits < 1 || mantissa_bits < 0 {
        return Err(EvalError::new(format!(
            "reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0, got {exponent_bits} and {mantissa_bits}"
        )));
    }
    // Widths at or above the source format's change nothing; clamping keeps
    // the shifts below in range.
    let (e, m) = (exponent_bits.min(64), mantissa_bits.min(64));
    Ok(match x {
        ArrayData::F16(v) => ArrayData::F16(map1(v, |a| {
            f16::from_bits(reduce_precision_bits(a.to_bits() as u64, 5, 10, e, m) as u16)
        })),
        ArrayData::BF16(v) => ArrayData::BF16(map1(v, |a| {
            bf16::from_bits(reduce_precision_bits(a.to_bits() as u64, 8, 7, e, m) as u16)
        })),
        ArrayData::F32(v) => ArrayData::F32(map1(v, |a| {
            f32::from_bits(reduce_precision_bits(a.to_bits() as u64, 8, 23, e, m) as u32)
        })),
        ArrayData::F64(v) => ArrayData::F64(map1(v, |a| {
            f64::from_bits(reduce_precision_bits(a.to_bits(), 11, 52, e, m))
        })),
        other => {
            return Err(unsupported(
                "reduce-precision",
                "reduce-precision",
                other.element_type(),
            ));
        }
    })
}

#[cfg(test)]
mod reduce_precision_tests {
    use super::*;

    #[test]
    fn f32_to_half_format() {
        // 1 + 2^-11 rounds to 1 (tie to even) with 10 mantissa bits;
        // 1 + 3*2^-11 rounds up to 1 + 2^-9.
        let x = ArrayData::F32(vec![
            1.0 + 2f32.powi(-11),
            1.0 + 3.0 * 2f32.powi(-11),
            70000.0,
            1e-8,
            -1e-8,
            f32::NAN,
        ]);
        let ArrayData::F32(r) = reduce_precision(&x, 5, 10).unwrap() else {
            panic!()
        };
        assert_eq!(r[0], 1.0);
        assert_eq!(r[1], 1.0 + 2f32.powi(-9));
        assert_eq!(r[2], f32::INFINITY);
        assert_eq!(r[3].to_bits(), 0);
        assert_eq!(r[4].to_bits(), 0x8000_0000);
        assert!(r[5].is_nan());
        // Every f16 value survives unchanged.
        let h = ArrayData::F32(vec![0.099975586, 65504.0, -2.5]);
        assert_eq!(reduce_precision(&h, 5, 10).unwrap(), h);
    }

    #[test]
    fn f64_and_wide_targets_never_panic() {
        let x = ArrayData::F64(vec![1.0 + 2f64.powi(-30), -3.5, f64::MAX, f64::NAN, 1e-300]);
        let ArrayData::F64(r) = reduce_precision(&x, 8, 23).unwrap() else {
            panic!()
        };
        assert_eq!(r[0], 1.0);
        assert_eq!(r[1], -3.5);
        assert_eq!(r[2], f64::INFINITY);
        assert!(r[3].is_nan());
        assert_eq!(r[4], 0.0);
        // Targets as wide as the source change nothing.
        let bits = |d: ArrayData| d.to_le_bytes();
        assert_eq!(bits(reduce_precision(&x, 11, 52).unwrap()), bits(x.clone()));
        assert_eq!(
            bits(reduce_precision(&x, 1000, 1000).unwrap()),
            bits(x.clone())
        );
        assert!(reduce_precision(&x, 0, 3).is_err());
    }
}
