//! Literals: typed array data with a shape (and layout), and tuples of
//! literals. Array data is always stored in logical row-major order; the
//! layout only matters when the physical buffer is produced or read
//! ([`ArrayLiteral::to_physical_bytes`], [`ArrayLiteral::from_physical_bytes`]),
//! which is how `bitcast` and the JIT see it. HLO literal text printing is
//! here; parsing lives in the text reader.

use crate::element_type::ElementType;
use crate::error::{IrError, Result};
use crate::index;
use crate::layout::Layout;
use crate::shape::{ArrayShape, Shape};
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use std::fmt::{self, Write as _};

/// Typed element storage, row-major.
#[derive(Clone, Debug, PartialEq)]
pub enum ArrayData {
    Pred(Vec<bool>),
    S8(Vec<i8>),
    S16(Vec<i16>),
    S32(Vec<i32>),
    S64(Vec<i64>),
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    F16(Vec<f16>),
    BF16(Vec<bf16>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    /// c64: (real, imaginary) f32 pairs.
    C64(Vec<Complex32>),
    /// c128: (real, imaginary) f64 pairs.
    C128(Vec<Complex64>),
    /// Token values carry no data; the count is kept.
    Token(usize),
    /// A narrow type (s2, s4, u2, u4, the f8 types): one byte per element
    /// holding its bit pattern (`narrow.rs`; integers keep only their low
    /// bits). Build it with [`ArrayData::narrow`], which masks.
    Narrow(ElementType, Vec<u8>),
}

/// Applies `$body` to the typed vector inside an [`ArrayData`] bound as `$v`
/// (token excluded: `$tok` is evaluated for it).
#[macro_export]
macro_rules! dispatch_data {
    ($data:expr, $v:ident => $body:expr, token => $tok:expr) => {
        match $data {
            $crate::ArrayData::Pred($v) => $body,
            $crate::ArrayData::S8($v) => $body,
            $crate::ArrayData::S16($v) => $body,
            $crate::ArrayData::S32($v) => $body,
            $crate::ArrayData::S64($v) => $body,
            $crate::ArrayData::U8($v) => $body,
            $crate::ArrayData::U16($v) => $body,
            $crate::ArrayData::U32($v) => $body,
            $crate::ArrayData::U64($v) => $body,
            $crate::ArrayData::F16($v) => $body,
            $crate::ArrayData::BF16($v) => $body,
            $crate::ArrayData::F32($v) => $body,
            $crate::ArrayData::F64($v) => $body,
            $crate::ArrayData::C64($v) => $body,
            $crate::ArrayData::C128($v) => $body,
            $crate::ArrayData::Narrow(_, $v) => $body,
            $crate::ArrayData::Token(_) => $tok,
        }
    };
}

/// Like [`dispatch_data!`] but rebuilds an `ArrayData` of the same variant
/// from the expression's `Vec` result.
#[macro_export]
macro_rules! map_data {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            $crate::ArrayData::Pred($v) => $crate::ArrayData::Pred($body),
            $crate::ArrayData::S8($v) => $crate::ArrayData::S8($body),
            $crate::ArrayData::S16($v) => $crate::ArrayData::S16($body),
            $crate::ArrayData::S32($v) => $crate::ArrayData::S32($body),
            $crate::ArrayData::S64($v) => $crate::ArrayData::S64($body),
            $crate::ArrayData::U8($v) => $crate::ArrayData::U8($body),
            $crate::ArrayData::U16($v) => $crate::ArrayData::U16($body),
            $crate::ArrayData::U32($v) => $crate::ArrayData::U32($body),
            $crate::ArrayData::U64($v) => $crate::ArrayData::U64($body),
            $crate::ArrayData::F16($v) => $crate::ArrayData::F16($body),
            $crate::ArrayData::BF16($v) => $crate::ArrayData::BF16($body),
            $crate::ArrayData::F32($v) => $crate::ArrayData::F32($body),
            $crate::ArrayData::F64($v) => $crate::ArrayData::F64($body),
            $crate::ArrayData::C64($v) => $crate::ArrayData::C64($body),
            $crate::ArrayData::C128($v) => $crate::ArrayData::C128($body),
            $crate::ArrayData::Narrow(t, $v) => $crate::ArrayData::Narrow(*t, $body),
            $crate::ArrayData::Token(n) => $crate::ArrayData::Token(*n),
        }
    };
}

/// Element types that can live in [`ArrayData`]: conversion to and from
/// little-endian bytes and to an f64 (for padding values, printing).
pub trait NativeType: Copy + PartialEq + fmt::Debug + Default + Send + Sync + 'static {
    const TYPE: ElementType;
    fn write_le(self, out: &mut Vec<u8>);
    fn read_le(b: &[u8]) -> Self;
    /// Value from an f64 (used for padding values; saturating/rounding).
    fn from_f64(v: f64) -> Self;
    fn wrap(v: Vec<Self>) -> ArrayData;
    fn unwrap_ref(d: &ArrayData) -> Option<&Vec<Self>>;
}

macro_rules! native_num {
    ($t:ty, $et:ident, $size:expr) => {
        impl NativeType for $t {
            const TYPE: ElementType = ElementType::$et;
            fn write_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn read_le(b: &[u8]) -> Self {
                let mut a = [0u8; $size];
                a.copy_from_slice(&b[..$size]);
                <$t>::from_le_bytes(a)
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn wrap(v: Vec<Self>) -> ArrayData {
                ArrayData::$et(v)
            }
            fn unwrap_ref(d: &ArrayData) -> Option<&Vec<Self>> {
                match d {
                    ArrayData::$et(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}
native_num!(i8, S8, 1);
native_num!(i16, S16, 2);
native_num!(i32, S32, 4);
native_num!(i64, S64, 8);
native_num!(u8, U8, 1);
native_num!(u16, U16, 2);
native_num!(u32, U32, 4);
native_num!(u64, U64, 8);
native_num!(f32, F32, 4);
native_num!(f64, F64, 8);

impl NativeType for bool {
    const TYPE: ElementType = ElementType::Pred;
    fn write_le(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
    fn read_le(b: &[u8]) -> Self {
        b[0] != 0
    }
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    fn wrap(v: Vec<Self>) -> ArrayData {
        ArrayData::Pred(v)
    }
    fn unwrap_ref(d: &ArrayData) -> Option<&Vec<Self>> {
        match d {
            ArrayData::Pred(v) => Some(v),
            _ => None,
        }
    }
}

macro_rules! native_half {
    ($t:ty, $et:ident) => {
        impl NativeType for $t {
            const TYPE: ElementType = ElementType::$et;
            fn write_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn read_le(b: &[u8]) -> Self {
                <$t>::from_le_bytes([b[0], b[1]])
            }
            fn from_f64(v: f64) -> Self {
                <$t>::from_f64(v)
            }
            fn wrap(v: Vec<Self>) -> ArrayData {
                ArrayData::$et(v)
            }
            fn unwrap_ref(d: &ArrayData) -> Option<&Vec<Self>> {
                match d {
                    ArrayData::$et(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}
native_half!(f16, F16);
native_half!(bf16, BF16);

macro_rules! native_complex {
    ($t:ty, $part:ty, $et:ident, $half:expr) => {
        impl NativeType for $t {
            const TYPE: ElementType = ElementType::$et;
            fn write_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.re.to_le_bytes());
                out.extend_from_slice(&self.im.to_le_bytes());
            }
            fn read_le(b: &[u8]) -> Self {
                let re = <$part as NativeType>::read_le(&b[..$half]);
                let im = <$part as NativeType>::read_le(&b[$half..2 * $half]);
                <$t>::new(re, im)
            }
            /// The real value `v` with a zero imaginary part.
            fn from_f64(v: f64) -> Self {
                <$t>::new(v as $part, 0.0)
            }
            fn wrap(v: Vec<Self>) -> ArrayData {
                ArrayData::$et(v)
            }
            fn unwrap_ref(d: &ArrayData) -> Option<&Vec<Self>> {
                match d {
                    ArrayData::$et(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}
native_complex!(Complex32, f32, C64, 4);
native_complex!(Complex64, f64, C128, 8);

impl ArrayData {
    /// Narrow-type data from bit patterns (integers masked to their width).
    pub fn narrow(ty: ElementType, mut bits: Vec<u8>) -> ArrayData {
        if ty.is_int_n() {
            for b in &mut bits {
                *b = crate::narrow::canonical(ty, *b);
            }
        }
        ArrayData::Narrow(ty, bits)
    }

    /// `n` zero elements (false for pred).
    pub fn zeros(ty: ElementType, n: usize) -> ArrayData {
        match ty {
            t @ (crate::narrow_types!()) => ArrayData::Narrow(t, vec![0; n]),
            ElementType::Pred => ArrayData::Pred(vec![false; n]),
            ElementType::S8 => ArrayData::S8(vec![0; n]),
            ElementType::S16 => ArrayData::S16(vec![0; n]),
            ElementType::S32 => ArrayData::S32(vec![0; n]),
            ElementType::S64 => ArrayData::S64(vec![0; n]),
            ElementType::U8 => ArrayData::U8(vec![0; n]),
            ElementType::U16 => ArrayData::U16(vec![0; n]),
            ElementType::U32 => ArrayData::U32(vec![0; n]),
            ElementType::U64 => ArrayData::U64(vec![0; n]),
            ElementType::F16 => ArrayData::F16(vec![f16::ZERO; n]),
            ElementType::BF16 => ArrayData::BF16(vec![bf16::ZERO; n]),
            ElementType::F32 => ArrayData::F32(vec![0.0; n]),
            ElementType::F64 => ArrayData::F64(vec![0.0; n]),
            ElementType::C64 => ArrayData::C64(vec![Complex32::new(0.0, 0.0); n]),
            ElementType::C128 => ArrayData::C128(vec![Complex64::new(0.0, 0.0); n]),
            ElementType::Token => ArrayData::Token(n),
        }
    }

    pub fn element_type(&self) -> ElementType {
        match self {
            ArrayData::Pred(_) => ElementType::Pred,
            ArrayData::S8(_) => ElementType::S8,
            ArrayData::S16(_) => ElementType::S16,
            ArrayData::S32(_) => ElementType::S32,
            ArrayData::S64(_) => ElementType::S64,
            ArrayData::U8(_) => ElementType::U8,
            ArrayData::U16(_) => ElementType::U16,
            ArrayData::U32(_) => ElementType::U32,
            ArrayData::U64(_) => ElementType::U64,
            ArrayData::F16(_) => ElementType::F16,
            ArrayData::BF16(_) => ElementType::BF16,
            ArrayData::F32(_) => ElementType::F32,
            ArrayData::F64(_) => ElementType::F64,
            ArrayData::C64(_) => ElementType::C64,
            ArrayData::C128(_) => ElementType::C128,
            ArrayData::Narrow(t, _) => *t,
            ArrayData::Token(_) => ElementType::Token,
        }
    }

    pub fn len(&self) -> usize {
        dispatch_data!(self, v => v.len(), token => match self { ArrayData::Token(n) => *n, _ => 0 })
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Gathers elements: `out[i] = self[idx[i]]`. Indices must be in range.
    pub fn take(&self, idx: &[usize]) -> ArrayData {
        map_data!(self, v => idx.iter().map(|&i| v[i]).collect())
    }

    /// Gathers with a fill: `out[i] = self[j]` for `Some(j)`, else
    /// `fill[0]` (a one-element `ArrayData` of the same type).
    pub fn take_or(&self, idx: &[Option<usize>], fill: &ArrayData) -> ArrayData {
        match (self, fill) {
            (ArrayData::Token(_), _) => ArrayData::Token(idx.len()),
            _ => {
                macro_rules! go {
                    ($v:ident, $f:ident) => {
                        idx.iter()
                            .map(|i| match i {
                                Some(j) => $v[*j],
                                None => $f[0],
                            })
                            .collect()
                    };
                }
                match (self, fill) {
                    (ArrayData::Pred(v), ArrayData::Pred(f)) => ArrayData::Pred(go!(v, f)),
                    (ArrayData::S8(v), ArrayData::S8(f)) => ArrayData::S8(go!(v, f)),
                    (ArrayData::S16(v), ArrayData::S16(f)) => ArrayData::S16(go!(v, f)),
                    (ArrayData::S32(v), ArrayData::S32(f)) => ArrayData::S32(go!(v, f)),
                    (ArrayData::S64(v), ArrayData::S64(f)) => ArrayData::S64(go!(v, f)),
                    (ArrayData::U8(v), ArrayData::U8(f)) => ArrayData::U8(go!(v, f)),
                    (ArrayData::U16(v), ArrayData::U16(f)) => ArrayData::U16(go!(v, f)),
                    (ArrayData::U32(v), ArrayData::U32(f)) => ArrayData::U32(go!(v, f)),
                    (ArrayData::U64(v), ArrayData::U64(f)) => ArrayData::U64(go!(v, f)),
                    (ArrayData::F16(v), ArrayData::F16(f)) => ArrayData::F16(go!(v, f)),
                    (ArrayData::BF16(v), ArrayData::BF16(f)) => ArrayData::BF16(go!(v, f)),
                    (ArrayData::F32(v), ArrayData::F32(f)) => ArrayData::F32(go!(v, f)),
                    (ArrayData::F64(v), ArrayData::F64(f)) => ArrayData::F64(go!(v, f)),
                    (ArrayData::C64(v), ArrayData::C64(f)) => ArrayData::C64(go!(v, f)),
                    (ArrayData::C128(v), ArrayData::C128(f)) => ArrayData::C128(go!(v, f)),
                    (ArrayData::Narrow(t, v), ArrayData::Narrow(u, f)) if t == u => {
                        ArrayData::Narrow(*t, go!(v, f))
                    }
                    _ => panic!(
                        "take_or: fill type {:?} differs from data type {:?}",
                        fill.element_type(),
                        self.element_type()
                    ),
                }
            }
        }
    }

    /// One element from an f64 (padding values): numeric cast.
    pub fn scalar_from_f64(ty: ElementType, v: f64) -> ArrayData {
        match ty {
            t @ (crate::narrow_types!()) => {
                ArrayData::Narrow(t, vec![crate::narrow::from_f64(t, v)])
            }
            ElementType::Pred => ArrayData::Pred(vec![v != 0.0]),
            ElementType::S8 => ArrayData::S8(vec![v as i8]),
            ElementType::S16 => ArrayData::S16(vec![v as i16]),
            ElementType::S32 => ArrayData::S32(vec![v as i32]),
            ElementType::S64 => ArrayData::S64(vec![v as i64]),
            ElementType::U8 => ArrayData::U8(vec![v as u8]),
            ElementType::U16 => ArrayData::U16(vec![v as u16]),
            ElementType::U32 => ArrayData::U32(vec![v as u32]),
            ElementType::U64 => ArrayData::U64(vec![v as u64]),
            ElementType::F16 => ArrayData::F16(vec![f16::from_f64(v)]),
            ElementType::BF16 => ArrayData::BF16(vec![bf16::from_f64(v)]),
            ElementType::F32 => ArrayData::F32(vec![v as f32]),
            ElementType::F64 => ArrayData::F64(vec![v]),
            ElementType::C64 => ArrayData::C64(vec![Complex32::new(v as f32, 0.0)]),
            ElementType::C128 => ArrayData::C128(vec![Complex64::new(v, 0.0)]),
            ElementType::Token => ArrayData::Token(1),
        }
    }

    /// Little-endian bytes of all elements in storage order.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len() * self.element_type().byte_size());
        dispatch_data!(self, v => { for x in v { NativeType::write_le(*x, &mut out); } }, token => {});
        out
    }

    /// Reads `n` elements of type `ty` from little-endian bytes.
    pub fn from_le_bytes(ty: ElementType, bytes: &[u8]) -> Result<ArrayData> {
        let size = ty.byte_size();
        if ty == ElementType::Token {
            return Ok(ArrayData::Token(0));
        }
        if !bytes.len().is_multiple_of(size) {
            return Err(IrError::literal(format!(
                "{} bytes is not a whole number of {ty} elements",
                bytes.len()
            )));
        }
        fn read<T: NativeType>(bytes: &[u8], size: usize) -> ArrayData {
            T::wrap(bytes.chunks_exact(size).map(T::read_le).collect())
        }
        Ok(match ty {
            t @ (crate::narrow_types!()) => ArrayData::narrow(t, bytes.to_vec()),
            ElementType::Pred => read::<bool>(bytes, size),
            ElementType::S8 => read::<i8>(bytes, size),
            ElementType::S16 => read::<i16>(bytes, size),
            ElementType::S32 => read::<i32>(bytes, size),
            ElementType::S64 => read::<i64>(bytes, size),
            ElementType::U8 => read::<u8>(bytes, size),
            ElementType::U16 => read::<u16>(bytes, size),
            ElementType::U32 => read::<u32>(bytes, size),
            ElementType::U64 => read::<u64>(bytes, size),
            ElementType::F16 => read::<f16>(bytes, size),
            ElementType::BF16 => read::<bf16>(bytes, size),
            ElementType::F32 => read::<f32>(bytes, size),
            ElementType::F64 => read::<f64>(bytes, size),
            ElementType::C64 => read::<Complex32>(bytes, size),
            ElementType::C128 => read::<Complex64>(bytes, size),
            ElementType::Token => unreachable!(),
        })
    }

    /// Element `i` formatted as HLO literal text.
    pub fn format_element(&self, i: usize, out: &mut String) {
        match self {
            ArrayData::Pred(v) => out.push_str(if v[i] { "true" } else { "false" }),
            ArrayData::S8(v) => write!(out, "{}", v[i]).unwrap(),
            ArrayData::S16(v) => write!(out, "{}", v[i]).unwrap(),
            ArrayData::S32(v) => write!(out, "{}", v[i]).unwrap(),
            ArrayData::S64(v) => write!(out, "{}", v[i]).unwrap(),
            ArrayData::U8(v) => write!(out, "{}", v[i]).unwrap(),
            ArrayData::U16(v) => write!(out, "{}", v[i]).unwrap(),
            ArrayData::U32(v) => write!(out, "{}", v[i]).unwrap(),
            ArrayData::U64(v) => write!(out, "{}", v[i]).unwrap(),
            ArrayData::F16(v) => format_float(v[i].to_f64(), FloatWidth::Half(v[i].to_f32()), out),
            ArrayData::BF16(v) => format_float(v[i].to_f64(), FloatWidth::Half(v[i].to_f32()), out),
            ArrayData::F32(v) => format_float(v[i] as f64, FloatWidth::F32(v[i]), out),
            ArrayData::F64(v) => format_float(v[i], FloatWidth::F64, out),
            // XLA prints a complex element as `(re, im)`.
            ArrayData::C64(v) => {
                out.push('(');
                format_float(v[i].re as f64, FloatWidth::F32(v[i].re), out);
                out.push_str(", ");
                format_float(v[i].im as f64, FloatWidth::F32(v[i].im), out);
                out.push(')');
            }
            ArrayData::C128(v) => {
                out.push('(');
                format_float(v[i].re, FloatWidth::F64, out);
                out.push_str(", ");
                format_float(v[i].im, FloatWidth::F64, out);
                out.push(')');
            }
            ArrayData::Narrow(t, v) => {
                if t.is_int_n() {
                    write!(out, "{}", crate::narrow::int_n_value(*t, v[i])).unwrap()
                } else {
                    let x = crate::narrow::to_f64(*t, v[i]);
                    format_float(x, FloatWidth::Half(x as f32), out)
                }
            }
            ArrayData::Token(_) => {}
        }
    }
}

enum FloatWidth {
    Half(f32),
    F32(f32),
    F64,
}

/// Shortest round-trip text of a float: `inf`, `-inf`, `nan`, `-0`, `0.5`,
/// `1e+30`, `1e-07`.
fn format_float(v: f64, w: FloatWidth, out: &mut String) {
    if v.is_nan() {
        // XLA writes a NaN with the sign bit set as `-nan`; the reader
        // keeps the sign (TOTALORDER compares see it).
        out.push_str(if v.is_sign_negative() { "-nan" } else { "nan" });
        return;
    }
    if v.is_infinite() {
        out.push_str(if v > 0.0 { "inf" } else { "-inf" });
        return;
    }
    let a = v.abs();
    let sci = a != 0.0 && !(1e-5..1e16).contains(&a);
    let s = match (w, sci) {
        (FloatWidth::Half(x), false) | (FloatWidth::F32(x), false) => format!("{x}"),
        (FloatWidth::Half(x), true) | (FloatWidth::F32(x), true) => format!("{x:e}"),
        (FloatWidth::F64, false) => format!("{v}"),
        (FloatWidth::F64, true) => format!("{v:e}"),
    };
    // Rust writes `1e30`/`1e-7`; XLA writes `1e+30`/`1e-07`. Either parses;
    // we keep XLA's sign for positive exponents.
    if let Some(pos) = s.find('e') {
        let (mant, exp) = s.split_at(pos);
        let exp = &exp[1..];
        if exp.starts_with('-') {
            write!(out, "{mant}e{exp}").unwrap();
        } else {
            write!(out, "{mant}e+{exp}").unwrap();
        }
    } else {
        out.push_str(&s);
    }
}

/// An array literal: shape (with layout) and row-major data.
///
/// A value of a shape with bounded dynamic dims (`f32[<=4]`) is stored at
/// its bound; `runtime_sizes` then holds one size per dimension (the bound
/// for a static dim) and the elements past a dynamic dim's size are
/// padding no result may depend on. Empty for a static value.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayLiteral {
    pub shape: ArrayShape,
    pub data: ArrayData,
    pub runtime_sizes: Vec<i64>,
}

/// A literal value: an array or a tuple of literals.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Array(ArrayLiteral),
    Tuple(Vec<Literal>),
}

impl ArrayLiteral {
    /// Checks that the data's type and count match the shape.
    pub fn new(shape: ArrayShape, data: ArrayData) -> Result<ArrayLiteral> {
        if data.element_type() != shape.element_type {
            return Err(IrError::literal(format!(
                "literal of shape {shape} given {} data",
                data.element_type()
            )));
        }
        let n = shape.element_count()?;
        if shape.element_type != ElementType::Token && data.len() != n {
            return Err(IrError::literal(format!(
                "literal of shape {shape} needs {n} elements, got {}",
                data.len()
            )));
        }
        Ok(ArrayLiteral {
            shape,
            data,
            runtime_sizes: Vec::new(),
        })
    }

    /// The runtime size of dimension `d`: its entry in `runtime_sizes`, or
    /// the shape's size for a static value.
    pub fn runtime_size(&self, d: usize) -> i64 {
        self.runtime_sizes
            .get(d)
            .copied()
            .unwrap_or_else(|| self.shape.dims.get(d).copied().unwrap_or(0))
    }

    /// Does the value carry runtime sizes smaller than its bounds?
    pub fn is_padded(&self) -> bool {
        self.runtime_sizes
            .iter()
            .zip(&self.shape.dims)
            .any(|(s, d)| s < d)
    }

    /// The valid part of a dynamic value as a static literal of its runtime
    /// sizes (the value itself when it is static or not padded).
    pub fn sliced_to_runtime_sizes(&self) -> Result<ArrayLiteral> {
        if !self.is_padded() {
            let mut out = self.clone();
            out.shape.dynamic = crate::DynamicDims::STATIC;
            out.runtime_sizes.clear();
            return Ok(out);
        }
        let sizes = self.runtime_sizes.clone();
        let mut shape = ArrayShape::new(self.shape.element_type, sizes.clone())?;
        shape.layout = self.shape.layout.clone();
        let n = shape.element_count()?;
        let rank = sizes.len();
        let mut idx = Vec::with_capacity(n);
        let mut counter = vec![0i64; rank];
        // Row-major strides of the stored (bound-sized) data.
        let mut strides = vec![1usize; rank];
        for d in (0..rank.saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * self.shape.dims[d + 1] as usize;
        }
        for _ in 0..n {
            idx.push(
                counter
                    .iter()
                    .zip(&strides)
                    .map(|(&c, &s)| c as usize * s)
                    .sum(),
            );
            for d in (0..rank).rev() {
                counter[d] += 1;
                if counter[d] < sizes[d] {
                    break;
                }
                counter[d] = 0;
            }
        }
        ArrayLiteral::new(shape, self.data.take(&idx))
    }

    /// The same values under another layout (data is row-major, so only the
    /// shape changes).
    pub fn relayout(&self, layout: Layout) -> Result<ArrayLiteral> {
        layout.validate(&self.shape.dims)?;
        layout.validate_element_size(self.shape.element_type)?;
        let mut shape = self.shape.clone();
        shape.layout = layout;
        Ok(ArrayLiteral {
            shape,
            data: self.data.clone(),
            runtime_sizes: self.runtime_sizes.clone(),
        })
    }

    /// The physical buffer under the literal's layout (padding filled with
    /// the layout's padding value), as XLA holds it: a packed layout
    /// (`E(4)` on s4, ...) packs the elements ([`crate::narrow::pack_bits`]);
    /// otherwise narrow types take one byte each.
    pub fn to_physical_bytes(&self) -> Result<Vec<u8>> {
        let storage = self.storage_bytes()?;
        match self.shape.packed_bits() {
            None => Ok(storage),
            Some(bits) => {
                let mut out = vec![0u8; crate::narrow::packed_len(storage.len(), bits)];
                crate::narrow::pack_bits(&storage, bits, &mut out).map_err(IrError::literal)?;
                Ok(out)
            }
        }
    }

    /// The physical buffer with one byte per narrow element (packing
    /// ignored): rxla's internal storage.
    fn storage_bytes(&self) -> Result<Vec<u8>> {
        if self.shape.layout.unpacked().is_default() {
            return Ok(self.data.to_le_bytes());
        }
        self.shape.physical_element_count()?;
        let map = index::physical_to_logical_map(&self.shape);
        let fill = ArrayData::scalar_from_f64(
            self.shape.element_type,
            self.shape.layout.padding_value_or_zero(),
        );
        Ok(self.data.take_or(&map, &fill).to_le_bytes())
    }

    /// Reads a literal of `shape` from its physical buffer (packed when the
    /// layout says so, [`ArrayLiteral::to_physical_bytes`]).
    pub fn from_physical_bytes(shape: ArrayShape, bytes: &[u8]) -> Result<ArrayLiteral> {
        let expect = shape.byte_size()?;
        if bytes.len() != expect {
            return Err(IrError::literal(format!(
                "buffer of {} bytes for shape {shape}, which needs {expect}",
                bytes.len()
            )));
        }
        let unpacked;
        let bytes = match shape.packed_bits() {
            None => bytes,
            Some(bits) => {
                let mut v = vec![0u8; shape.physical_element_count()?];
                crate::narrow::unpack_bits(bytes, bits, &mut v).map_err(IrError::literal)?;
                unpacked = v;
                &unpacked[..]
            }
        };
        let phys = ArrayData::from_le_bytes(shape.element_type, bytes)?;
        if shape.layout.unpacked().is_default() || shape.element_type == ElementType::Token {
            return ArrayLiteral::new(shape, phys);
        }
        let n = shape.element_count()?;
        let mut idx = vec![0usize; n];
        for (p, l) in index::physical_to_logical_map(&shape)
            .into_iter()
            .enumerate()
        {
            if let Some(l) = l {
                idx[l] = p;
            }
        }
        let data = phys.take(&idx);
        ArrayLiteral::new(shape, data)
    }

    /// Row-major typed slice, when the type matches.
    pub fn as_slice<T: NativeType>(&self) -> Option<&[T]> {
        T::unwrap_ref(&self.data).map(|v| v.as_slice())
    }
}

impl Literal {
    /// An array literal with the default layout from row-major values.
    pub fn from_vec<T: NativeType>(dims: &[i64], values: Vec<T>) -> Result<Literal> {
        let shape = ArrayShape::new(T::TYPE, dims.to_vec())?;
        Ok(Literal::Array(ArrayLiteral::new(shape, T::wrap(values))?))
    }

    /// A literal of a narrow type (s2, s4, u2, u4, f8*) from values: f8
    /// types round to nearest even, integers must be in range.
    pub fn narrow(ty: ElementType, dims: &[i64], values: &[f64]) -> Result<Literal> {
        if !ty.is_narrow() {
            return Err(IrError::literal(format!("{ty} is not a narrow type")));
        }
        if ty.is_int_n() {
            let (lo, hi) = crate::narrow::int_n_range(ty);
            if let Some(v) = values
                .iter()
                .find(|&&v| v.fract() != 0.0 || v < lo as f64 || v > hi as f64)
            {
                return Err(IrError::literal(format!(
                    "{v} is not a {ty} value (integers in [{lo}, {hi}])"
                )));
            }
        }
        let bits = values
            .iter()
            .map(|&v| crate::narrow::from_f64(ty, v))
            .collect();
        let shape = ArrayShape::new(ty, dims.to_vec())?;
        Ok(Literal::Array(ArrayLiteral::new(
            shape,
            ArrayData::narrow(ty, bits),
        )?))
    }

    /// A scalar literal.
    pub fn scalar<T: NativeType>(v: T) -> Literal {
        Literal::Array(ArrayLiteral {
            shape: ArrayShape::new(T::TYPE, Vec::new()).expect("scalar shape"),
            data: T::wrap(vec![v]),
            runtime_sizes: Vec::new(),
        })
    }

    /// A rank-1 literal.
    pub fn vec1<T: NativeType>(values: Vec<T>) -> Literal {
        let n = values.len() as i64;
        Literal::from_vec(&[n], values).expect("rank-1 literal")
    }

    /// A rank-2 literal from rows (all rows must have equal length).
    pub fn mat<T: NativeType>(rows: &[&[T]]) -> Result<Literal> {
        let r = rows.len() as i64;
        let c = rows.first().map_or(0, |x| x.len()) as i64;
        let data: Vec<T> = rows.iter().flat_map(|x| x.iter().copied()).collect();
        Literal::from_vec(&[r, c], data)
    }

    /// An array literal of `shape` filled with zeros.
    pub fn zeros(shape: &Shape) -> Result<Literal> {
        match shape {
            Shape::Array(a) => Ok(Literal::Array(ArrayLiteral {
                data: ArrayData::zeros(a.element_type, a.element_count()?),
                shape: a.clone(),
                runtime_sizes: Vec::new(),
            })),
            Shape::Tuple(t) => Ok(Literal::Tuple(
                t.iter().map(Literal::zeros).collect::<Result<_>>()?,
            )),
        }
    }

    pub fn token() -> Literal {
        Literal::Array(ArrayLiteral {
            shape: ArrayShape::new(ElementType::Token, Vec::new()).expect("token"),
            data: ArrayData::Token(1),
            runtime_sizes: Vec::new(),
        })
    }

    pub fn shape(&self) -> Shape {
        match self {
            Literal::Array(a) => Shape::Array(a.shape.clone()),
            Literal::Tuple(t) => Shape::Tuple(t.iter().map(Literal::shape).collect()),
        }
    }

    pub fn as_array(&self) -> Result<&ArrayLiteral> {
        match self {
            Literal::Array(a) => Ok(a),
            Literal::Tuple(_) => Err(IrError::literal("expected an array literal, got a tuple")),
        }
    }

    pub fn into_array(self) -> Result<ArrayLiteral> {
        match self {
            Literal::Array(a) => Ok(a),
            Literal::Tuple(_) => Err(IrError::literal("expected an array literal, got a tuple")),
        }
    }

    /// Row-major typed data of an array literal.
    pub fn as_slice<T: NativeType>(&self) -> Option<&[T]> {
        match self {
            Literal::Array(a) => a.as_slice(),
            Literal::Tuple(_) => None,
        }
    }

    /// Relayouts every leaf to the layouts of `shape` (which must be
    /// compatible).
    pub fn relayout_to(&self, shape: &Shape) -> Result<Literal> {
        match (self, shape) {
            (Literal::Array(a), Shape::Array(s)) if a.shape.compatible(s) => {
                Ok(Literal::Array(a.relayout(s.layout.clone())?))
            }
            (Literal::Tuple(t), Shape::Tuple(s)) if t.len() == s.len() => Ok(Literal::Tuple(
                t.iter()
                    .zip(s)
                    .map(|(l, s)| l.relayout_to(s))
                    .collect::<Result<_>>()?,
            )),
            _ => Err(IrError::literal(format!(
                "cannot relayout a literal of shape {} to {shape}",
                self.shape()
            ))),
        }
    }

    /// Flattens nested tuples depth-first into array leaves.
    pub fn leaves(&self) -> Vec<&ArrayLiteral> {
        let mut out = Vec::new();
        fn go<'a>(l: &'a Literal, out: &mut Vec<&'a ArrayLiteral>) {
            match l {
                Literal::Array(a) => out.push(a),
                Literal::Tuple(t) => t.iter().for_each(|x| go(x, out)),
            }
        }
        go(self, &mut out);
        out
    }

    /// HLO literal text of the value: `0`, `{1, 2}`, `{ {1, 2}, {3, 4} }`,
    /// `(1, {2})` for tuples.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write_text(&mut out);
        out
    }

    fn write_text(&self, out: &mut String) {
        match self {
            Literal::Tuple(t) => {
                out.push('(');
                for (i, l) in t.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    l.write_text(out);
                }
                out.push(')');
            }
            Literal::Array(a) => {
                if a.shape.element_type == ElementType::Token {
                    out.push_str("token");
                    return;
                }
                if a.shape.dims.is_empty() {
                    a.data.format_element(0, out);
                    return;
                }
                let mut pos = 0usize;
                write_nested(&a.data, &a.shape.dims, 0, &mut pos, out);
            }
        }
    }
}

fn write_nested(data: &ArrayData, dims: &[i64], d: usize, pos: &mut usize, out: &mut String) {
    let inner = d + 1 == dims.len();
    out.push('{');
    if !inner {
        out.push(' ');
    }
    for i in 0..dims[d] {
        if i > 0 {
            out.push_str(", ");
        }
        if inner {
            data.format_element(*pos, out);
            *pos += 1;
        } else {
            write_nested(data, dims, d + 1, pos, out);
        }
    }
    if !inner {
        out.push(' ');
    }
    out.push('}');
}

impl fmt::Display for Literal {
    /// `f32[2]{0} {1, 2}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.shape(), self.to_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_forms() {
        assert_eq!(Literal::scalar(0.5f32).to_text(), "0.5");
        assert_eq!(Literal::scalar(f32::NEG_INFINITY).to_text(), "-inf");
        assert_eq!(Literal::scalar(f32::NAN).to_text(), "nan");
        assert_eq!(Literal::scalar(-0.0f32).to_text(), "-0");
        assert_eq!(Literal::scalar(1e30f32).to_text(), "1e+30");
        assert_eq!(Literal::scalar(1e-7f32).to_text(), "1e-7");
        assert_eq!(Literal::scalar(0.1f32).to_text(), "0.1");
        assert_eq!(Literal::scalar(true).to_text(), "true");
        let m = Literal::mat(&[&[1i32, 2], &[3, 4]]).unwrap();
        assert_eq!(m.to_text(), "{ {1, 2}, {3, 4} }");
        assert_eq!(m.to_string(), "s32[2,2]{1,0} { {1, 2}, {3, 4} }");
        let t = Literal::Tuple(vec![Literal::scalar(1u8), Literal::vec1(vec![2.5f64])]);
        assert_eq!(t.to_text(), "(1, {2.5})");
    }

    #[test]
    fn physical_bytes_follow_layout() {
        // {{a,b,c},{d,e,f}} = {{1,2,3},{4,5,6}}; column-major stores 1 4 2 5 3 6.
        let m = Literal::mat(&[&[1.0f32, 2.0, 3.0], &[4.0, 5.0, 6.0]]).unwrap();
        let a = m.as_array().unwrap();
        let cm = a.relayout(Layout::column_major(2)).unwrap();
        let bytes = cm.to_physical_bytes().unwrap();
        let phys = ArrayData::from_le_bytes(ElementType::F32, &bytes).unwrap();
        assert_eq!(phys, ArrayData::F32(vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]));
        let back = ArrayLiteral::from_physical_bytes(cm.shape.clone(), &bytes).unwrap();
        assert_eq!(back.data, a.data);
        // Padded [3,5] column-major with value -1.
        let padded = a
            .relayout(Layout::column_major(2).with_padding(vec![3, 5], Some(-1.0)))
            .unwrap();
        let bytes = padded.to_physical_bytes().unwrap();
        let phys = ArrayData::from_le_bytes(ElementType::F32, &bytes).unwrap();
        assert_eq!(
            phys,
            ArrayData::F32(vec![
                1.0, 4.0, -1.0, 2.0, 5.0, -1.0, 3.0, 6.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0
            ])
        );
        let back = ArrayLiteral::from_physical_bytes(padded.shape.clone(), &bytes).unwrap();
        assert_eq!(back.data, a.data);
    }

    #[test]
    fn complex_text_and_bytes() {
        let c = Literal::vec1(vec![Complex32::new(1.0, 2.0), Complex32::new(-0.5, 0.0)]);
        assert_eq!(c.to_text(), "{(1, 2), (-0.5, 0)}");
        assert_eq!(c.to_string(), "c64[2]{0} {(1, 2), (-0.5, 0)}");
        assert_eq!(
            Literal::scalar(Complex64::new(1.0, 0.0)).to_text(),
            "(1, 0)"
        );
        let a = c.as_array().unwrap();
        let bytes = a.to_physical_bytes().unwrap();
        assert_eq!(bytes.len(), 16);
        assert_eq!(&bytes[4..8], &2.0f32.to_le_bytes());
        let back = ArrayLiteral::from_physical_bytes(a.shape.clone(), &bytes).unwrap();
        assert_eq!(back.data, a.data);
    }

    #[test]
    fn count_mismatch_is_error() {
        assert!(Literal::from_vec(&[2, 2], vec![1.0f32]).is_err());
    }

    /// `lit` under its default layout plus `E(bits)`.
    fn packed(lit: &Literal, bits: u32) -> ArrayLiteral {
        let a = lit.as_array().unwrap();
        let mut l = a.shape.layout.clone();
        l.element_size_in_bits = Some(bits);
        a.relayout(l).unwrap()
    }

    /// One packing case: type, dims, values, bits per element, bytes.
    type PackCase<'a> = (ElementType, &'a [i64], &'a [f64], u32, &'a [u8]);

    /// The byte values read from XLA:CPU buffers (jax 0.10.2,
    /// docs/SEMANTICS.md "Packed narrow integers").
    #[test]
    fn packing_matches_xla_buffers() {
        let cases: &[PackCase] = &[
            (
                ElementType::S4,
                &[5],
                &[1., -2., 3., -4., 5.],
                4,
                &[0xe1, 0xc3, 0x05],
            ),
            (
                ElementType::S4,
                &[5],
                &[-1., 2., -3., 4., -5.],
                4,
                &[0x2f, 0x4d, 0x0b],
            ),
            (
                ElementType::U4,
                &[7],
                &[1., 2., 3., 4., 5., 15., 9.],
                4,
                &[0x21, 0x43, 0xf5, 0x09],
            ),
            (
                ElementType::S2,
                &[5],
                &[1., -2., 0., -1., 1.],
                2,
                &[0xc9, 0x01],
            ),
            (
                ElementType::U2,
                &[7],
                &[1., 2., 3., 0., 3., 2., 1.],
                2,
                &[0x39, 0x1b],
            ),
            (
                ElementType::S4,
                &[3, 3],
                &[-4., -3., -2., -1., 0., 1., 2., 3., 4.],
                4,
                &[0xdc, 0xfe, 0x10, 0x32, 0x04],
            ),
        ];
        for &(ty, dims, vals, bits, bytes) in cases {
            let lit = Literal::narrow(ty, dims, vals).unwrap();
            let p = packed(&lit, bits);
            assert_eq!(p.shape.byte_size().unwrap(), bytes.len(), "{ty}{dims:?}");
            assert_eq!(p.to_physical_bytes().unwrap(), bytes, "{ty}{dims:?}");
            let back = ArrayLiteral::from_physical_bytes(p.shape.clone(), bytes).unwrap();
            assert_eq!(&back.data, &lit.as_array().unwrap().data);
            // Unpacked (no E): one byte per element.
            assert_eq!(
                lit.as_array().unwrap().to_physical_bytes().unwrap().len(),
                vals.len()
            );
        }
        // XLA leaves junk in the padding bits of the last byte (its
        // negate result ended in 0xfb): reading ignores them.
        let p = packed(
            &Literal::narrow(ElementType::S4, &[5], &[0.; 5]).unwrap(),
            4,
        );
        let back = ArrayLiteral::from_physical_bytes(p.shape.clone(), &[0x2f, 0x4d, 0xfb]).unwrap();
        assert_eq!(Literal::Array(back).to_text(), "{-1, 2, -3, 4, -5}");
        // Transposed layout packs in physical (minor-to-major) order.
        let m = Literal::narrow(
            ElementType::S4,
            &[3, 3],
            &[-4., -3., -2., -1., 0., 1., 2., 3., 4.],
        )
        .unwrap();
        let mut l = Layout::column_major(2);
        l.element_size_in_bits = Some(4);
        let t = m.as_array().unwrap().relayout(l).unwrap();
        assert_eq!(
            t.to_physical_bytes().unwrap(),
            [0xfc, 0xd2, 0x30, 0x1e, 0x04]
        );
        // Wrong lengths are errors.
        assert!(ArrayLiteral::from_physical_bytes(t.shape.clone(), &[0; 9]).is_err());
        assert!(ArrayLiteral::from_physical_bytes(t.shape.clone(), &[0; 4]).is_err());
        // E(4) on f32 does not validate.
        let f = Literal::vec1(vec![1.0f32]);
        let mut l = Layout::default_for_rank(1);
        l.element_size_in_bits = Some(4);
        assert!(f.as_array().unwrap().relayout(l).is_err());
    }

    /// pack then unpack is the identity, for every length 0..40 and all
    /// four types, on pseudo-random values.
    #[test]
    fn pack_unpack_identity() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for ty in [
            ElementType::S2,
            ElementType::U2,
            ElementType::S4,
            ElementType::U4,
        ] {
            let bits = ty.bit_width();
            for n in 0..40usize {
                let raw: Vec<u8> = (0..n)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        seed as u8
                    })
                    .collect();
                let lit = ArrayLiteral::new(
                    ArrayShape::new(ty, vec![n as i64]).unwrap(),
                    ArrayData::narrow(ty, raw),
                )
                .unwrap();
                let p = packed(&Literal::Array(lit.clone()), bits);
                let bytes = p.to_physical_bytes().unwrap();
                assert_eq!(bytes.len(), (n * bits as usize).div_ceil(8));
                let back = ArrayLiteral::from_physical_bytes(p.shape.clone(), &bytes).unwrap();
                assert_eq!(back.data, lit.data, "{ty} n={n}");
                // And unpack then pack gives the buffer back (padding bits 0).
                let mut st = vec![0u8; n];
                crate::narrow::unpack_bits(&bytes, bits, &mut st).unwrap();
                let mut again = vec![0u8; bytes.len()];
                crate::narrow::pack_bits(&st, bits, &mut again).unwrap();
                assert_eq!(again, bytes);
            }
        }
    }
}
