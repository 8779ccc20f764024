//! Helpers shared by the kernel tests: literal constructors, scalar sub-computations written directly on literals, and
//! a tiny deterministic integer generator for test data.
#![allow(dead_code)]

use rxla_eval::Result;
use rxla_ir::{
    ArrayData, ArrayLiteral, ArrayShape, ElementType, Literal, NativeType, Window, WindowDim,
};

pub fn arr<T: NativeType>(dims: &[i64], vals: Vec<T>) -> ArrayLiteral {
    ArrayLiteral::new(
        ArrayShape::new(T::TYPE, dims.to_vec()).unwrap(),
        T::wrap(vals),
    )
    .unwrap()
}

pub fn scalar<T: NativeType>(v: T) -> ArrayLiteral {
    arr(&[], vec![v])
}

pub fn shape(ty: ElementType, dims: &[i64]) -> ArrayShape {
    ArrayShape::new(ty, dims.to_vec()).unwrap()
}

pub fn vals<T: NativeType>(a: &ArrayLiteral) -> Vec<T> {
    a.as_slice::<T>().expect("element type").to_vec()
}

pub fn lit_vals<T: NativeType>(l: &Literal) -> Vec<T> {
    l.as_slice::<T>()
        .expect("array literal of the element type")
        .to_vec()
}

/// Scalar value of a literal as f64 (for generic scalar computations).
pub fn as_f64(l: &Literal) -> f64 {
    match &l.as_array().unwrap().data {
        ArrayData::F32(v) => v[0] as f64,
        ArrayData::F64(v) => v[0],
        ArrayData::S32(v) => v[0] as f64,
        ArrayData::S64(v) => v[0] as f64,
        ArrayData::U32(v) => v[0] as f64,
        ArrayData::S8(v) => v[0] as f64,
        d => panic!("as_f64: unsupported {:?}", d.element_type()),
    }
}

/// A scalar of the same type as `like` holding `v`.
pub fn same_type(like: &Literal, v: f64) -> Literal {
    let a = like.as_array().unwrap();
    Literal::Array(
        ArrayLiteral::new(
            a.shape.clone(),
            ArrayData::scalar_from_f64(a.shape.element_type, v),
        )
        .unwrap(),
    )
}

/// `add` on two scalars of the same type (f32, f64, s32, s64, u32, s8).
pub fn add(args: &[Literal]) -> Result<Literal> {
    Ok(same_type(&args[0], as_f64(&args[0]) + as_f64(&args[1])))
}

/// `max` on two scalars.
pub fn max(args: &[Literal]) -> Result<Literal> {
    Ok(same_type(&args[0], as_f64(&args[0]).max(as_f64(&args[1]))))
}

/// `ge` on two scalars (select for select-and-scatter).
pub fn ge(args: &[Literal]) -> Result<Literal> {
    Ok(Literal::scalar(as_f64(&args[0]) >= as_f64(&args[1])))
}

/// `lt` on the first two scalars (a sort comparator on operand 0 only).
pub fn lt(args: &[Literal]) -> Result<Literal> {
    Ok(Literal::scalar(as_f64(&args[0]) < as_f64(&args[1])))
}

/// A window with the given sizes and strides, no padding or dilation.
pub fn window(sizes: &[i64], strides: &[i64]) -> Window {
    Window {
        dims: sizes
            .iter()
            .zip(strides)
            .map(|(&s, &t)| WindowDim {
                stride: t,
                ..WindowDim::new(s)
            })
            .collect(),
    }
}

/// Deterministic small integers in `lo..hi` (a linear congruential generator), as f32.
pub fn ints(n: usize, seed: u64, lo: i64, hi: i64) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (lo + ((s >> 33) % (hi - lo) as u64) as i64) as f32
        })
        .collect()
}
