//! Untyped helpers over [`ArrayData`] used by the evaluator: element
//! extraction and assignment, concatenation, index maps built by strided
//! walks, and reading integer scalars. Pure data movement: no arithmetic,
//! no knowledge of instructions.

use crate::error::{EvalError, Result};
use rxla_ir::{ArrayData, ArrayLiteral, ArrayShape, ElementType, Literal};

/// Row-major strides of `dims` as signed offsets.
pub fn row_major_strides(dims: &[i64]) -> Vec<isize> {
    let mut s = vec![0isize; dims.len()];
    let mut acc = 1isize;
    for i in (0..dims.len()).rev() {
        s[i] = acc;
        acc = acc.saturating_mul(dims[i] as isize);
    }
    s
}

/// Visits every multi-index of `dims` in row-major order and calls `f`
/// with `base + Σ index[d] * strides[d]`. The innermost dimension is a
/// tight loop; nothing is allocated per element.
pub fn strided_walk(dims: &[i64], strides: &[isize], base: isize, mut f: impl FnMut(isize)) {
    if dims.contains(&0) {
        return;
    }
    let rank = dims.len();
    if rank == 0 {
        f(base);
        return;
    }
    let inner = dims[rank - 1];
    let inner_stride = strides[rank - 1];
    let mut idx = vec![0i64; rank];
    let mut off = base;
    loop {
        let mut o = off;
        for _ in 0..inner {
            f(o);
            o += inner_stride;
        }
        // Carry into the outer dimensions.
        let mut d = rank - 1;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            off += strides[d];
            if idx[d] < dims[d] {
                break;
            }
            off -= strides[d] * dims[d] as isize;
            idx[d] = 0;
        }
    }
}

/// The gather map of a strided view: for every output index (row-major
/// over `dims`), the source offset `base + Σ i*strides`.
pub fn strided_map(dims: &[i64], strides: &[isize], base: isize) -> Vec<usize> {
    let mut out = Vec::with_capacity(dims.iter().product::<i64>().max(0) as usize);
    strided_walk(dims, strides, base, |o| out.push(o as usize));
    out
}

/// Concatenates the element vectors of several same-typed arrays.
pub fn concat_data(parts: &[&ArrayData]) -> Result<ArrayData> {
    let first = parts
        .first()
        .ok_or_else(|| EvalError::new("concatenation of zero arrays"))?;
    let ty = first.element_type();
    if let Some(bad) = parts.iter().find(|p| p.element_type() != ty) {
        return Err(EvalError::new(format!(
            "cannot concatenate {} data with {} data",
            bad.element_type(),
            ty
        )));
    }
    let total: usize = parts.iter().map(|p| p.len()).sum();
    macro_rules! cat {
        ($variant:ident) => {{
            let mut v = Vec::with_capacity(total);
            for p in parts {
                if let ArrayData::$variant(x) = p {
                    v.extend_from_slice(x);
                }
            }
            ArrayData::$variant(v)
        }};
    }
    Ok(match first {
        ArrayData::Pred(_) => cat!(Pred),
        ArrayData::S8(_) => cat!(S8),
        ArrayData::S16(_) => cat!(S16),
        ArrayData::S32(_) => cat!(S32),
        ArrayData::S64(_) => cat!(S64),
        ArrayData::U8(_) => cat!(U8),
        ArrayData::U16(_) => cat!(U16),
        ArrayData::U32(_) => cat!(U32),
        ArrayData::U64(_) => cat!(U64),
        ArrayData::F16(_) => cat!(F16),
        ArrayData::BF16(_) => cat!(BF16),
        ArrayData::F32(_) => cat!(F32),
        ArrayData::F64(_) => cat!(F64),
        ArrayData::C64(_) => cat!(C64),
        ArrayData::C128(_) => cat!(C128),
        ArrayData::Narrow(t, _) => {
            let mut v = Vec::with_capacity(total);
            for p in parts {
                if let ArrayData::Narrow(u, x) = p
                    && u == t
                {
                    v.extend_from_slice(x);
                }
            }
            ArrayData::Narrow(*t, v)
        }
        ArrayData::Token(_) => ArrayData::Token(total),
    })
}

/// `dst[positions[k]] = src[k]` for every k (same element type).
pub fn assign(dst: &mut ArrayData, positions: &[usize], src: &ArrayData) -> Result<()> {
    macro_rules! put {
        ($d:ident, $s:ident) => {{
            for (k, &p) in positions.iter().enumerate() {
                $d[p] = $s[k];
            }
        }};
    }
    if positions.len() > src.len() || positions.iter().any(|&p| p >= dst.len()) {
        return Err(EvalError::new("element assignment out of range"));
    }
    match (dst, src) {
        (ArrayData::Pred(d), ArrayData::Pred(s)) => put!(d, s),
        (ArrayData::S8(d), ArrayData::S8(s)) => put!(d, s),
        (ArrayData::S16(d), ArrayData::S16(s)) => put!(d, s),
        (ArrayData::S32(d), ArrayData::S32(s)) => put!(d, s),
        (ArrayData::S64(d), ArrayData::S64(s)) => put!(d, s),
        (ArrayData::U8(d), ArrayData::U8(s)) => put!(d, s),
        (ArrayData::U16(d), ArrayData::U16(s)) => put!(d, s),
        (ArrayData::U32(d), ArrayData::U32(s)) => put!(d, s),
        (ArrayData::U64(d), ArrayData::U64(s)) => put!(d, s),
        (ArrayData::F16(d), ArrayData::F16(s)) => put!(d, s),
        (ArrayData::BF16(d), ArrayData::BF16(s)) => put!(d, s),
        (ArrayData::F32(d), ArrayData::F32(s)) => put!(d, s),
        (ArrayData::F64(d), ArrayData::F64(s)) => put!(d, s),
        (ArrayData::C64(d), ArrayData::C64(s)) => put!(d, s),
        (ArrayData::C128(d), ArrayData::C128(s)) => put!(d, s),
        (ArrayData::Narrow(t, d), ArrayData::Narrow(u, s)) if t == u => put!(d, s),
        (ArrayData::Token(_), ArrayData::Token(_)) => {}
        (d, s) => {
            return Err(EvalError::new(format!(
                "cannot assign {} elements into {} data",
                s.element_type(),
                d.element_type()
            )));
        }
    }
    Ok(())
}

/// A scalar literal holding element `i` of `data`.
pub fn scalar_at(data: &ArrayData, i: usize) -> Literal {
    let shape = ArrayShape::new(data.element_type(), Vec::new()).expect("scalar shape is valid");
    Literal::Array(ArrayLiteral {
        shape,
        data: data.take(&[i]),
        runtime_sizes: Vec::new(),
    })
}

/// Repeats a one-element array `n` times.
pub fn splat(data: &ArrayData, n: usize) -> ArrayData {
    data.take(&vec![0usize; n])
}

/// Reads an integer scalar (any integer type) as i64; used for dynamic
/// indices and conditional branch selectors.
pub fn int_scalar(lit: &ArrayLiteral, what: &str) -> Result<i64> {
    if lit.data.len() != 1 {
        return Err(EvalError::new(format!(
            "{what} must be a scalar, got shape {}",
            lit.shape
        )));
    }
    Ok(match &lit.data {
        ArrayData::S8(v) => v[0] as i64,
        ArrayData::S16(v) => v[0] as i64,
        ArrayData::S32(v) => v[0] as i64,
        ArrayData::S64(v) => v[0],
        ArrayData::U8(v) => v[0] as i64,
        ArrayData::U16(v) => v[0] as i64,
        ArrayData::U32(v) => v[0] as i64,
        // Saturate: u64 above i64::MAX clamps like any too-large index.
        ArrayData::U64(v) => v[0].min(i64::MAX as u64) as i64,
        ArrayData::Pred(v) => v[0] as i64,
        other => {
            return Err(EvalError::new(format!(
                "{what} must be an integer, got {}",
                other.element_type()
            )));
        }
    })
}

/// Reads a pred scalar.
pub fn pred_scalar(lit: &ArrayLiteral, what: &str) -> Result<bool> {
    match &lit.data {
        ArrayData::Pred(v) if v.len() == 1 => Ok(v[0]),
        _ => Err(EvalError::new(format!(
            "{what} must be a pred scalar, got shape {}",
            lit.shape
        ))),
    }
}

/// An array literal of `shape` from data, checking the element count.
pub fn array(shape: &ArrayShape, data: ArrayData) -> Result<ArrayLiteral> {
    Ok(ArrayLiteral::new(shape.clone(), data)?)
}

/// Element count of a shape as usize.
pub fn count(shape: &ArrayShape) -> Result<usize> {
    Ok(shape.element_count()?)
}

/// True for the element type of token values.
pub fn is_token(ty: ElementType) -> bool {
    ty == ElementType::Token
}
