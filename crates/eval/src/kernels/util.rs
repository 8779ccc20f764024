//! Small helpers shared by the kernels: reading index operands, scalar literals for callbacks, element copies between
//! typed buffers, window position arithmetic and variadic result shapes. No op semantics live here.

use crate::error::{EvalError, Result};
use rxla_ir::{ArrayData, ArrayLiteral, ArrayShape, Layout, Literal, Shape, Window, WindowDim};

/// The values of an integer (or pred) literal as i64, row-major. u64 values above i64::MAX saturate (they are out of
/// bounds for any index use anyway).
pub fn index_values(a: &ArrayLiteral, what: &str) -> Result<Vec<i64>> {
    Ok(match &a.data {
        ArrayData::Pred(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::S8(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::S16(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::S32(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::S64(v) => v.clone(),
        ArrayData::U8(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::U16(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::U32(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::U64(v) => v
            .iter()
            .map(|&x| i64::try_from(x).unwrap_or(i64::MAX))
            .collect(),
        ArrayData::Narrow(t, v) if t.is_int_n() => v
            .iter()
            .map(|&x| rxla_ir::narrow::int_n_value(*t, x))
            .collect(),
        _ => {
            return Err(EvalError::new(format!(
                "{what}: expected integer indices, got {}",
                a.shape.element_type
            )));
        }
    })
}

/// A scalar shape of the data's element type.
pub fn scalar_shape(data: &ArrayData) -> ArrayShape {
    ArrayShape {
        element_type: data.element_type(),
        dims: Vec::new(),
        layout: Layout::default_for_rank(0),
        dynamic: rxla_ir::DynamicDims::STATIC,
    }
}

/// Element `i` of `data` as a scalar literal (for sub-computation arguments).
pub fn scalar_at(data: &ArrayData, i: usize) -> Literal {
    Literal::Array(ArrayLiteral {
        shape: scalar_shape(data),
        data: data.take(&[i]),
        runtime_sizes: Vec::new(),
    })
}

/// Copies `src[j]` into `dst[i]`; the types must agree.
pub fn set_elem(dst: &mut ArrayData, i: usize, src: &ArrayData, j: usize) -> Result<()> {
    macro_rules! go {
        ($($v:ident),*) => {
            match (dst, src) {
                $((ArrayData::$v(d), ArrayData::$v(s)) => {
                    let x = *s.get(j).ok_or_else(|| EvalError::new("element copy: source index out of range"))?;
                    *d.get_mut(i).ok_or_else(|| EvalError::new("element copy: destination index out of range"))? = x;
                    Ok(())
                })*
                (ArrayData::Narrow(t, d), ArrayData::Narrow(u, s)) if t == u => {
                    let x = *s.get(j).ok_or_else(|| EvalError::new("element copy: source index out of range"))?;
                    *d.get_mut(i).ok_or_else(|| EvalError::new("element copy: destination index out of range"))? = x;
                    Ok(())
                }
                (d, s) => Err(EvalError::new(format!(
                    "a sub-computation produced {} where {} was expected",
                    s.element_type(),
                    d.element_type()
                ))),
            }
        };
    }
    go!(
        Pred, S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64, C64, C128
    )
}

/// Splits a sub-computation result into `n` scalar arrays: one array for `n == 1` (a 1-tuple is accepted too), a
/// tuple of `n` arrays otherwise.
pub fn split_result(lit: Literal, n: usize, what: &str) -> Result<Vec<ArrayLiteral>> {
    let parts = match lit {
        Literal::Array(a) if n == 1 => vec![a],
        Literal::Tuple(t) if t.len() == n => t
            .into_iter()
            .map(|l| l.into_array().map_err(EvalError::from))
            .collect::<Result<Vec<_>>>()?,
        other => {
            return Err(EvalError::new(format!(
                "{what}: the computation returned {}, expected {n} scalar(s)",
                other.shape()
            )));
        }
    };
    for p in &parts {
        if !p.shape.dims.is_empty() || p.data.len() != 1 {
            return Err(EvalError::new(format!(
                "{what}: the computation returned {}, expected a scalar",
                p.shape
            )));
        }
    }
    Ok(parts)
}

/// The array shapes of a variadic op's result: `out` itself when `n == 1` and it is an array, else a tuple of `n`
/// arrays.
pub fn variadic_out_shapes(out: &Shape, n: usize, what: &str) -> Result<Vec<ArrayShape>> {
    match out {
        Shape::Array(a) if n == 1 => Ok(vec![a.clone()]),
        Shape::Tuple(t) if t.len() == n => t
            .iter()
            .map(|s| {
                s.as_array().cloned().map_err(|_| {
                    EvalError::new(format!("{what}: result tuple element {s} is not an array"))
                })
            })
            .collect(),
        _ => Err(EvalError::new(format!(
            "{what}: result shape {out} does not fit {n} operand(s)"
        ))),
    }
}

/// Packs results the way [`variadic_out_shapes`] unpacked them.
pub fn variadic_result(out: &Shape, mut parts: Vec<ArrayLiteral>) -> Literal {
    match out {
        Shape::Array(_) if parts.len() == 1 => Literal::Array(parts.remove(0)),
        _ => Literal::Tuple(parts.into_iter().map(Literal::Array).collect()),
    }
}

/// Builds an array literal, turning a shape/data mismatch into an evaluation error.
pub fn make_array(shape: &ArrayShape, data: ArrayData) -> Result<ArrayLiteral> {
    Ok(ArrayLiteral::new(shape.clone(), data)?)
}

/// Position in the (un-dilated, un-padded) base of window element `k` of output position `o` along one dimension,
/// or `None` when it falls on padding or a base-dilation hole: `p = o*stride + k*window_dilation - pad_low`, then
/// `p / base_dilation` if `p` is a multiple of it, kept if in `0..size`. Computed in i128, so extreme window
/// attributes cannot overflow.
pub fn window_base_index(o: i64, k: i64, w: &WindowDim, size: i64) -> Option<i64> {
    let p =
        o as i128 * w.stride as i128 + k as i128 * w.window_dilation as i128 - w.pad_low as i128;
    let b = w.base_dilation.max(1) as i128;
    if p < 0 || p % b != 0 {
        return None;
    }
    let q = p / b;
    (q < size as i128).then_some(q as i64)
}

/// Checks a window has `rank` well-formed dimensions (size >= 0, stride and dilations >= 1).
pub fn check_window(window: &Window, rank: usize, what: &str) -> Result<()> {
    rxla_ir::geometry::check_window(window, rank, what).map_err(EvalError::new)
}

/// Row-major strides of `dims`.
pub fn strides(dims: &[i64]) -> Vec<usize> {
    rxla_ir::index::row_major_strides(dims)
}

/// Checks that a literal's data holds exactly the elements its shape promises (so kernels may index freely).
pub fn check_literal(a: &ArrayLiteral, what: &str) -> Result<usize> {
    let n = a.shape.element_count()?;
    if a.data.element_type() != a.shape.element_type || a.data.len() != n {
        return Err(EvalError::new(format!(
            "{what}: literal of shape {} holds {} {} elements",
            a.shape,
            a.data.len(),
            a.data.element_type()
        )));
    }
    Ok(n)
}

/// Resolves a list of dimension numbers against `rank`, rejecting out-of-range and repeated entries.
pub fn resolve_dims(list: &[i64], rank: usize, what: &str) -> Result<Vec<usize>> {
    rxla_ir::geometry::dim_list(list, rank, what).map_err(EvalError::new)
}

/// The number of window positions along each dimension (`rxla_ir::geometry::window_output_dims`).
pub use rxla_ir::geometry::window_output_dims;

/// The boolean of a pred scalar returned by a sub-computation.
pub fn pred_result(lit: &Literal, what: &str) -> Result<bool> {
    match lit {
        Literal::Array(a) if a.shape.dims.is_empty() => match &a.data {
            ArrayData::Pred(v) if v.len() == 1 => Ok(v[0]),
            _ => Err(EvalError::new(format!(
                "{what}: the computation returned {}, expected pred[]",
                a.shape
            ))),
        },
        other => Err(EvalError::new(format!(
            "{what}: the computation returned {}, expected pred[]",
            other.shape()
        ))),
    }
}

/// The number of indices in `dims` (a product), as an error instead of an overflow.
pub fn count(dims: &[i64], what: &str) -> Result<usize> {
    rxla_ir::shape::checked_product(dims)
        .map_err(|_| EvalError::new(format!("{what}: iteration space {dims:?} is too large")))
}
