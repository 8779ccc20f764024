//! `topk` (and XLA:CPU's `TopK` custom call): the first k elements of each
//! row (last dimension) under an ordering, with their s32 indices. The
//! ordering is a callback so the builtin op (total order, largest or
//! smallest first) and the custom call (its comparator computation) share
//! one stable selection. Values only; never panics on bad input.

use super::sort::merge_sort;
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayData, ArrayLiteral, ArrayShape, ElementType, Literal};
use std::cmp::Ordering;

/// Total-order comparison of elements `i` and `j` of `data` (floats by
/// `total_cmp`, so -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN).
pub fn total_order(data: &ArrayData, i: usize, j: usize) -> Ordering {
    match data {
        ArrayData::Pred(v) => v[i].cmp(&v[j]),
        ArrayData::S8(v) => v[i].cmp(&v[j]),
        ArrayData::S16(v) => v[i].cmp(&v[j]),
        ArrayData::S32(v) => v[i].cmp(&v[j]),
        ArrayData::S64(v) => v[i].cmp(&v[j]),
        ArrayData::U8(v) => v[i].cmp(&v[j]),
        ArrayData::U16(v) => v[i].cmp(&v[j]),
        ArrayData::U32(v) => v[i].cmp(&v[j]),
        ArrayData::U64(v) => v[i].cmp(&v[j]),
        ArrayData::F16(v) => v[i].to_f32().total_cmp(&v[j].to_f32()),
        ArrayData::BF16(v) => v[i].to_f32().total_cmp(&v[j].to_f32()),
        ArrayData::F32(v) => v[i].total_cmp(&v[j]),
        ArrayData::F64(v) => v[i].total_cmp(&v[j]),
        // Shape inference rejects topk of complex; lexicographic by parts.
        ArrayData::C64(v) => (v[i].re.total_cmp(&v[j].re)).then(v[i].im.total_cmp(&v[j].im)),
        ArrayData::C128(v) => (v[i].re.total_cmp(&v[j].re)).then(v[i].im.total_cmp(&v[j].im)),
        ArrayData::Narrow(t, v) if t.is_f8() => {
            rxla_ir::narrow::to_f64(*t, v[i]).total_cmp(&rxla_ir::narrow::to_f64(*t, v[j]))
        }
        ArrayData::Narrow(t, v) => {
            rxla_ir::narrow::int_n_value(*t, v[i]).cmp(&rxla_ir::narrow::int_n_value(*t, v[j]))
        }
        ArrayData::Token(_) => Ordering::Equal,
    }
}

/// For each row of `operand`, the first `k` positions of a stable sort by
/// `before(a, b)` (flat element positions; true when a goes first), as a
/// `(values, s32 indices)` tuple with the last dimension replaced by k.
pub fn top_k(
    operand: &ArrayLiteral,
    k: i64,
    before: &mut dyn FnMut(usize, usize) -> Result<bool>,
) -> Result<Literal> {
    let dims = &operand.shape.dims;
    let Some(&n) = dims.last() else {
        return Err(EvalError::new("topk needs an operand of rank >= 1"));
    };
    if k < 0 || k > n {
        return Err(EvalError::new(format!("topk: k={k} is not in 0..={n}")));
    }
    let (n, k) = (n as usize, k as usize);
    let rows = operand.data.len().checked_div(n).unwrap_or(0);
    let mut picked = Vec::with_capacity(rows * k);
    let mut indices = Vec::with_capacity(rows * k);
    for r in 0..rows {
        let mut order: Vec<usize> = (r * n..(r + 1) * n).collect();
        merge_sort(&mut order, &mut |a, b| before(a, b))?;
        for &p in &order[..k] {
            picked.push(p);
            indices.push((p - r * n) as i32);
        }
    }
    let mut out_dims = dims.clone();
    *out_dims.last_mut().expect("rank >= 1") = k as i64;
    let values = ArrayLiteral::new(
        ArrayShape::new(operand.shape.element_type, out_dims.clone())?,
        operand.data.take(&picked),
    )?;
    let idx = ArrayLiteral::new(
        ArrayShape::new(ElementType::S32, out_dims)?,
        ArrayData::S32(indices),
    )?;
    Ok(Literal::Tuple(vec![
        Literal::Array(values),
        Literal::Array(idx),
    ]))
}

/// The builtin `topk` op: largest (or smallest) first in total order, ties
/// by lower index.
pub fn top_k_builtin(operand: &ArrayLiteral, k: i64, largest: bool) -> Result<Literal> {
    let data = &operand.data;
    top_k(operand, k, &mut |a, b| {
        let o = total_order(data, a, b);
        Ok(if largest {
            o == Ordering::Greater
        } else {
            o == Ordering::Less
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_and_smallest_with_ties_and_nan() {
        let x = Literal::from_vec(
            &[2, 4],
            vec![1.0f32, 3.0, 3.0, f32::NAN, -0.0, 0.0, -1.0, 2.0],
        )
        .unwrap();
        let x = x.as_array().unwrap();
        let Literal::Tuple(t) = top_k_builtin(x, 2, true).unwrap() else {
            panic!("tuple")
        };
        let v = t[0].as_slice::<f32>().unwrap();
        assert!(v[0].is_nan());
        assert_eq!(v[1], 3.0);
        assert_eq!(v[2..], [2.0, 0.0]);
        assert_eq!(t[1].as_slice::<i32>().unwrap(), &[3, 1, 3, 1]);
        let Literal::Tuple(t) = top_k_builtin(x, 3, false).unwrap() else {
            panic!("tuple")
        };
        assert_eq!(t[1].as_slice::<i32>().unwrap(), &[0, 1, 2, 2, 0, 1]);
        assert!(top_k_builtin(x, 5, true).is_err());
    }
}
