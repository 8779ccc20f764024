//! Arithmetic for the contraction kernels (dot, convolution): a tiny [`Ring`] (zero, multiply, add) per computation
//! type, conversion of operand data into that type, and dispatch on the result element type. The computation type of a
//! result type is: f32 for f16/bf16/f32 (half results are rounded once at the end), f64 for f64, the result type itself
//! with wrapping arithmetic for integers, and and/or for pred. No kernel logic lives here.

use crate::error::{EvalError, Result};
use half::{bf16, f16};
use rxla_ir::{ArrayData, ElementType};

/// Zero, multiply and add of a computation type. Floats use IEEE operations (a separately rounded multiply then add,
/// never a fused multiply-add); integers wrap; pred is (or, and).
pub trait Ring: Copy + Send + Sync + 'static {
    const ZERO: Self;
    fn mul(self, other: Self) -> Self;
    fn add(self, other: Self) -> Self;
}

macro_rules! ring_float {
    ($($t:ty),*) => {$(
        impl Ring for $t {
            const ZERO: Self = 0.0;
            #[inline]
            fn mul(self, other: Self) -> Self { self * other }
            #[inline]
            fn add(self, other: Self) -> Self { self + other }
        }
    )*};
}
ring_float!(f32, f64);

macro_rules! ring_complex {
    ($($t:ty),*) => {$(
        impl Ring for $t {
            const ZERO: Self = <$t>::new(0.0, 0.0);
            #[inline]
            fn mul(self, other: Self) -> Self { self * other }
            #[inline]
            fn add(self, other: Self) -> Self { self + other }
        }
        impl CastFrom for $t {
            /// Complex computation types take complex data of their own
            /// type only (shape inference rejects mixed contractions).
            fn cast_all(d: &ArrayData) -> Result<Vec<Self>> {
                match (d, <$t as rxla_ir::NativeType>::TYPE) {
                    (ArrayData::C64(v), ElementType::C64) => Ok(v.iter().map(|z| <$t>::new(z.re as _, z.im as _)).collect()),
                    (ArrayData::C128(v), ElementType::C128) => Ok(v.iter().map(|z| <$t>::new(z.re as _, z.im as _)).collect()),
                    (other, t) => Err(EvalError::new(format!(
                        "a {t} contraction needs {t} operands, got {}",
                        other.element_type()
                    ))),
                }
            }
        }
    )*};
}
ring_complex!(rxla_ir::Complex32, rxla_ir::Complex64);

macro_rules! ring_int {
    ($($t:ty),*) => {$(
        impl Ring for $t {
            const ZERO: Self = 0;
            #[inline]
            fn mul(self, other: Self) -> Self { self.wrapping_mul(other) }
            #[inline]
            fn add(self, other: Self) -> Self { self.wrapping_add(other) }
        }
    )*};
}
ring_int!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Ring for bool {
    const ZERO: Self = false;
    #[inline]
    fn mul(self, other: Self) -> Self {
        self && other
    }
    #[inline]
    fn add(self, other: Self) -> Self {
        self || other
    }
}

/// Conversion of any array data into a computation type (numeric `as` casts: float to int saturates, NaN to 0;
/// pred is 0/1; half floats widen exactly).
pub trait CastFrom: Sized {
    fn cast_all(d: &ArrayData) -> Result<Vec<Self>>;
}

macro_rules! cast_num {
    ($($t:ty),*) => {$(
        impl CastFrom for $t {
            fn cast_all(d: &ArrayData) -> Result<Vec<Self>> {
                Ok(match d {
                    ArrayData::Pred(v) => v.iter().map(|&x| x as u8 as $t).collect(),
                    ArrayData::S8(v) => v.iter().map(|&x| x as $t).collect(),
                    ArrayData::S16(v) => v.iter().map(|&x| x as $t).collect(),
                    ArrayData::S32(v) => v.iter().map(|&x| x as $t).collect(),
                    ArrayData::S64(v) => v.iter().map(|&x| x as $t).collect(),
                    ArrayData::U8(v) => v.iter().map(|&x| x as $t).collect(),
                    ArrayData::U16(v) => v.iter().map(|&x| x as $t).collect(),
                    ArrayData::U32(v) => v.iter().map(|&x| x as $t).collect(),
                    ArrayData::U64(v) => v.iter().map(|&x| x as $t).collect(),
                    ArrayData::F16(v) => v.iter().map(|&x| x.to_f32() as $t).collect(),
                    ArrayData::BF16(v) => v.iter().map(|&x| x.to_f32() as $t).collect(),
                    ArrayData::F32(v) => v.iter().map(|&x| x as $t).collect(),
                    ArrayData::F64(v) => v.iter().map(|&x| x as $t).collect(),
                    ArrayData::C64(_) | ArrayData::C128(_) => {
                        return Err(EvalError::new(format!(
                            "complex {} operands in a real contraction",
                            d.element_type()
                        )));
                    }
                    ArrayData::Narrow(..) => return Self::cast_all(&crate::narrow::widen(d)),
                    ArrayData::Token(_) => return Err(EvalError::new("token operands carry no values")),
                })
            }
        }
    )*};
}
cast_num!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

impl CastFrom for bool {
    fn cast_all(d: &ArrayData) -> Result<Vec<Self>> {
        match d {
            ArrayData::Pred(v) => Ok(v.clone()),
            ArrayData::F16(v) => Ok(v.iter().map(|&x| x.to_f32() != 0.0).collect()),
            ArrayData::BF16(v) => Ok(v.iter().map(|&x| x.to_f32() != 0.0).collect()),
            other => Ok(f64::cast_all(other)?
                .into_iter()
                .map(|x| x != 0.0)
                .collect()),
        }
    }
}

/// A contraction written once for every computation type.
pub trait RingKernel {
    fn run<R: Ring>(&self, lhs: &[R], rhs: &[R]) -> Result<Vec<R>>;
}

/// Converts both operands to the computation type of `out_ty`, runs the kernel and converts to `out_ty`.
pub fn run_for_output<K: RingKernel>(
    kernel: &K,
    out_ty: ElementType,
    lhs: &ArrayData,
    rhs: &ArrayData,
) -> Result<ArrayData> {
    fn go<R: Ring + CastFrom, K: RingKernel>(
        k: &K,
        l: &ArrayData,
        r: &ArrayData,
    ) -> Result<Vec<R>> {
        k.run(&R::cast_all(l)?, &R::cast_all(r)?)
    }
    Ok(match out_ty {
        ElementType::Pred => ArrayData::Pred(go(kernel, lhs, rhs)?),
        ElementType::S8 => ArrayData::S8(go(kernel, lhs, rhs)?),
        ElementType::S16 => ArrayData::S16(go(kernel, lhs, rhs)?),
        ElementType::S32 => ArrayData::S32(go(kernel, lhs, rhs)?),
        ElementType::S64 => ArrayData::S64(go(kernel, lhs, rhs)?),
        ElementType::U8 => ArrayData::U8(go(kernel, lhs, rhs)?),
        ElementType::U16 => ArrayData::U16(go(kernel, lhs, rhs)?),
        ElementType::U32 => ArrayData::U32(go(kernel, lhs, rhs)?),
        ElementType::U64 => ArrayData::U64(go(kernel, lhs, rhs)?),
        ElementType::F32 => ArrayData::F32(go(kernel, lhs, rhs)?),
        ElementType::F64 => ArrayData::F64(go(kernel, lhs, rhs)?),
        ElementType::C64 => ArrayData::C64(go(kernel, lhs, rhs)?),
        ElementType::C128 => ArrayData::C128(go(kernel, lhs, rhs)?),
        ElementType::F16 => ArrayData::F16(
            go::<f32, K>(kernel, lhs, rhs)?
                .into_iter()
                .map(f16::from_f32)
                .collect(),
        ),
        ElementType::BF16 => ArrayData::BF16(
            go::<f32, K>(kernel, lhs, rhs)?
                .into_iter()
                .map(bf16::from_f32)
                .collect(),
        ),
        // As XLA CPU: f32 accumulation, the result rounded to f16 and then
        // to the f8 type; narrow integers wrap an s32 result.
        t if t.is_f8() => {
            let wide: Vec<f32> = go::<f32, K>(kernel, lhs, rhs)?;
            let half = ArrayData::F16(wide.into_iter().map(f16::from_f32).collect());
            crate::narrow::convert_to_narrow(&half, t)?
        }
        t @ (rxla_ir::narrow_types!()) => {
            crate::narrow::convert_to_narrow(&ArrayData::S32(go(kernel, lhs, rhs)?), t)?
        }
        ElementType::Token => return Err(EvalError::new("a token result has no values")),
    })
}

/// `data` (row-major over `dims`) with its dimensions permuted: result dim `i` is source dim `perm[i]`.
pub fn permute<T: Copy>(data: &[T], dims: &[i64], perm: &[usize]) -> Vec<T> {
    let src_strides = rxla_ir::index::row_major_strides(dims);
    let out_dims: Vec<i64> = perm.iter().map(|&p| dims[p]).collect();
    let strides: Vec<usize> = perm.iter().map(|&p| src_strides[p]).collect();
    let n: usize = out_dims.iter().map(|&d| d as usize).product();
    let mut out = Vec::with_capacity(n);
    if n == 0 {
        return out;
    }
    let rank = out_dims.len();
    let mut idx = vec![0i64; rank];
    let mut pos = 0usize;
    for _ in 0..n {
        out.push(data[pos]);
        // Odometer step, keeping `pos` in sync.
        for d in (0..rank).rev() {
            idx[d] += 1;
            pos += strides[d];
            if idx[d] < out_dims[d] {
                break;
            }
            pos -= strides[d] * out_dims[d] as usize;
            idx[d] = 0;
        }
    }
    out
}
