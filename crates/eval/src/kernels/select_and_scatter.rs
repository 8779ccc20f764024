//! XLA's `select-and-scatter`: per window of the operand (the windows of a reduce-window with the same window), select
//! one element with `select`, then combine the matching `source` element into the result at the selected position
//! with `scatter`; the result starts as `init` everywhere.
//!
//! Semantics (XLA's evaluator): source positions are visited in row-major order; within a window the elements are
//! visited in row-major order, positions on padding (or base-dilation holes) are never considered; the first real
//! element is the initial choice and each later element `x` replaces the current choice `c` when `select(c, x)` is
//! false. A window without real elements scatters nothing. Then `result[c] = scatter(result[c], source[i])`, so
//! overlapping windows that choose the same element accumulate in source order.

use super::Apply;
use super::util::{
    check_literal, check_window, count, pred_result, scalar_at, set_elem, split_result,
    window_base_index, window_output_dims,
};
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, ArrayShape, Window};

/// `select-and-scatter(operand, source, init)`; `out` is the instruction's shape (the operand's dims).
pub fn select_and_scatter(
    operand: &ArrayLiteral,
    source: &ArrayLiteral,
    init: &ArrayLiteral,
    window: &Window,
    select: &mut Apply,
    scatter: &mut Apply,
    out: &ArrayShape,
) -> Result<ArrayLiteral> {
    check_literal(operand, "select-and-scatter operand")?;
    check_literal(source, "select-and-scatter source")?;
    if check_literal(init, "select-and-scatter init")? != 1 || !init.shape.dims.is_empty() {
        return Err(EvalError::new(
            "select-and-scatter: init value is not a scalar",
        ));
    }
    let base = &operand.shape.dims;
    check_window(window, base.len(), "select-and-scatter")?;
    let expect = window_output_dims(base, window);
    if source.shape.dims != expect {
        return Err(EvalError::new(format!(
            "select-and-scatter: source dims {:?} differ from the window positions {expect:?}",
            source.shape.dims
        )));
    }
    if &out.dims != base || out.element_type != init.shape.element_type {
        return Err(EvalError::new(format!(
            "select-and-scatter: result {out} does not match operand {} and init {}",
            operand.shape, init.shape
        )));
    }
    let n = out.element_count()?;
    let mut result = init.data.take(&vec![0; n]);
    let bstr = rxla_ir::index::row_major_strides(base);
    let wsizes: Vec<i64> = window.dims.iter().map(|w| w.size).collect();
    let wcount = count(&wsizes, "select-and-scatter window")?;
    let sdims = &source.shape.dims;
    let mut sidx = vec![0i64; sdims.len()];
    let mut widx = vec![0i64; wsizes.len()];
    for spos in 0..source.data.len() {
        let mut chosen: Option<usize> = None;
        widx.iter_mut().for_each(|x| *x = 0);
        for _ in 0..wcount {
            let mut lin = Some(0usize);
            for (d, w) in window.dims.iter().enumerate() {
                lin = match (lin, window_base_index(sidx[d], widx[d], w, base[d])) {
                    (Some(l), Some(p)) => Some(l + p as usize * bstr[d]),
                    _ => None,
                };
            }
            if let Some(cand) = lin {
                chosen = match chosen {
                    None => Some(cand),
                    Some(cur) => {
                        let keep = select(&[
                            scalar_at(&operand.data, cur),
                            scalar_at(&operand.data, cand),
                        ])?;
                        if pred_result(&keep, "select-and-scatter select")? {
                            Some(cur)
                        } else {
                            Some(cand)
                        }
                    }
                };
            }
            rxla_ir::index::increment(&mut widx, &wsizes);
        }
        if let Some(c) = chosen {
            let v = scatter(&[scalar_at(&result, c), scalar_at(&source.data, spos)])?;
            let v = split_result(v, 1, "select-and-scatter scatter")?;
            set_elem(&mut result, c, &v[0].data, 0)?;
        }
        rxla_ir::index::increment(&mut sidx, sdims);
    }
    Ok(ArrayLiteral::new(out.clone(), result)?)
}
