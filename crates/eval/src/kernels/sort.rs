//! XLA's `sort`: sorts every 1-D slice along `dimension` with a comparator computation. With N operands all of them
//! are permuted together; the comparator sees `lhs_0, rhs_0, lhs_1, rhs_1, ...` (2N scalars) and returns pred
//! "lhs before rhs". Result: one array, or a tuple for N > 1.
//!
//! The algorithm is a bottom-up merge sort written here (not `slice::sort_by`), so it is always stable (equal
//! elements keep their order whether or not `is_stable` is set) and never panics, even when the comparator is not a
//! strict weak order (the result is then some permutation of the input).

use super::Apply;
use super::util::{check_literal, pred_result, scalar_at, variadic_out_shapes, variadic_result};
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, Literal, Shape};

/// `sort(operands...)` along `dimension` (negative counts from the end) with `comparator`; `out` is the
/// instruction's shape.
pub fn sort(
    operands: &[&ArrayLiteral],
    dimension: i64,
    is_stable: bool,
    comparator: &mut Apply,
    out: &Shape,
) -> Result<Literal> {
    // Merge sort is stable, so `is_stable` needs no special handling.
    let _ = is_stable;
    let n_ops = operands.len();
    if n_ops == 0 {
        return Err(EvalError::new("sort: no operands"));
    }
    let out_shapes = variadic_out_shapes(out, n_ops, "sort")?;
    let dims = &operands[0].shape.dims;
    for (i, o) in operands.iter().enumerate() {
        check_literal(o, "sort operand")?;
        if &o.shape.dims != dims || !out_shapes[i].compatible(&o.shape) {
            return Err(EvalError::new(format!(
                "sort: operand {i} of shape {} does not match operand 0 / result {}",
                o.shape, out_shapes[i]
            )));
        }
    }
    let total = operands[0].data.len();
    if dims.is_empty() || total == 0 {
        let parts = operands
            .iter()
            .zip(&out_shapes)
            .map(|(o, s)| Ok(ArrayLiteral::new(s.clone(), o.data.clone())?))
            .collect::<Result<Vec<_>>>()?;
        return Ok(variadic_result(out, parts));
    }
    let d = rxla_ir::shape::resolve_dim(dimension, dims.len())
        .map_err(|e| EvalError::new(format!("sort: {e}")))?;
    let stride = rxla_ir::index::row_major_strides(dims)[d];
    let len = dims[d] as usize;
    let mut perm: Vec<usize> = Vec::with_capacity(total);
    let mut args: Vec<Literal> = Vec::with_capacity(2 * n_ops);
    let mut less = |a: usize, b: usize| -> Result<bool> {
        args.clear();
        for o in operands {
            args.push(scalar_at(&o.data, a));
            args.push(scalar_at(&o.data, b));
        }
        pred_result(&comparator(&args)?, "sort comparator")
    };
    // Slices are visited in row-major order of their first element; each slice's sorted positions are scattered
    // back into `perm` at the slice's own positions.
    perm.resize(total, 0);
    for start in 0..total {
        if !(start / stride).is_multiple_of(len) {
            continue;
        }
        let mut slice: Vec<usize> = (0..len).map(|j| start + j * stride).collect();
        merge_sort(&mut slice, &mut less)?;
        for (j, &src) in slice.iter().enumerate() {
            perm[start + j * stride] = src;
        }
    }
    let parts = operands
        .iter()
        .zip(&out_shapes)
        .map(|(o, s)| Ok(ArrayLiteral::new(s.clone(), o.data.take(&perm))?))
        .collect::<Result<Vec<_>>>()?;
    Ok(variadic_result(out, parts))
}

/// Stable bottom-up merge sort of `v` by `less`; the right element is taken first only when strictly less.
pub fn merge_sort(
    v: &mut Vec<usize>,
    less: &mut impl FnMut(usize, usize) -> Result<bool>,
) -> Result<()> {
    let n = v.len();
    let mut buf = v.clone();
    let mut width = 1;
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            if mid < hi && less(v[mid], v[mid - 1])? {
                let (mut a, mut b) = (lo, mid);
                for slot in &mut buf[lo..hi] {
                    if b < hi && (a >= mid || less(v[b], v[a])?) {
                        *slot = v[b];
                        b += 1;
                    } else {
                        *slot = v[a];
                        a += 1;
                    }
                }
            } else {
                buf[lo..hi].copy_from_slice(&v[lo..hi]);
            }
            lo = hi;
        }
        std::mem::swap(v, &mut buf);
        width *= 2;
    }
    Ok(())
}
