//! XLA's `reduce-window`, variadic (N operands, N init values → one array or an N-tuple): window sizes, strides,
//! low/high padding, base (lhs) and window (rhs) dilation.
//!
//! Semantics (XLA's evaluator): for each output position, the accumulators start at the init values; the window
//! elements are visited in row-major order of the window; an element that falls on padding or on a base-dilation hole
//! is SKIPPED (never read, never passed to the computation), otherwise `acc = apply(acc_0..acc_{N-1},
//! x_0..x_{N-1})`. A window with no real element yields the init values.

use super::Apply;
use super::util::{
    check_literal, check_window, count, scalar_at, set_elem, split_result, variadic_out_shapes,
    variadic_result, window_base_index, window_output_dims,
};
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayData, ArrayLiteral, Literal, Shape, Window};

/// `reduce-window(operands..., inits...)` with reduction `apply`; `out` is the instruction's shape.
pub fn reduce_window(
    operands: &[&ArrayLiteral],
    inits: &[&ArrayLiteral],
    window: &Window,
    apply: &mut Apply,
    out: &Shape,
) -> Result<Literal> {
    let n_ops = operands.len();
    if n_ops == 0 || inits.len() != n_ops {
        return Err(EvalError::new(format!(
            "reduce-window: {} operands and {} init values (need the same positive number)",
            n_ops,
            inits.len()
        )));
    }
    let out_shapes = variadic_out_shapes(out, n_ops, "reduce-window")?;
    let base = &operands[0].shape.dims;
    for (i, (o, init)) in operands.iter().zip(inits).enumerate() {
        check_literal(o, "reduce-window operand")?;
        if check_literal(init, "reduce-window init")? != 1 || !init.shape.dims.is_empty() {
            return Err(EvalError::new(format!(
                "reduce-window: init value {i} is not a scalar"
            )));
        }
        if &o.shape.dims != base {
            return Err(EvalError::new(format!(
                "reduce-window: operand {i} has a different shape"
            )));
        }
        if out_shapes[i].dims.len() != base.len()
            || out_shapes[i].element_type != init.shape.element_type
        {
            return Err(EvalError::new(format!(
                "reduce-window: result {} does not fit operand {} with init {}",
                out_shapes[i], o.shape, init.shape
            )));
        }
    }
    check_window(window, base.len(), "reduce-window")?;
    let out_dims = window_output_dims(base, window);
    if let Some(s) = out_shapes.iter().find(|s| s.dims != out_dims) {
        return Err(EvalError::new(format!(
            "reduce-window: result {s} does not have the window positions {out_dims:?}"
        )));
    }
    let n_out = out_shapes[0].element_count()?;
    let mut results: Vec<ArrayData> = out_shapes
        .iter()
        .map(|s| ArrayData::zeros(s.element_type, n_out))
        .collect();
    let wsizes: Vec<i64> = window.dims.iter().map(|w| w.size).collect();
    let wcount = count(&wsizes, "reduce-window window")?;
    let bstr = rxla_ir::index::row_major_strides(base);
    let mut oidx = vec![0i64; out_dims.len()];
    let mut widx = vec![0i64; wsizes.len()];
    let mut acc: Vec<Literal> = Vec::with_capacity(n_ops);
    let mut args: Vec<Literal> = Vec::with_capacity(2 * n_ops);
    for pos in 0..n_out {
        acc.clear();
        acc.extend(inits.iter().map(|i| scalar_at(&i.data, 0)));
        widx.iter_mut().for_each(|x| *x = 0);
        for _ in 0..wcount {
            let mut lin = Some(0usize);
            for (d, w) in window.dims.iter().enumerate() {
                lin = match (lin, window_base_index(oidx[d], widx[d], w, base[d])) {
                    (Some(l), Some(p)) => Some(l + p as usize * bstr[d]),
                    _ => None,
                };
            }
            if let Some(lin) = lin {
                args.clear();
                args.append(&mut acc);
                args.extend(operands.iter().map(|o| scalar_at(&o.data, lin)));
                let vals = split_result(apply(&args)?, n_ops, "reduce-window")?;
                acc.extend(vals.into_iter().map(Literal::Array));
            }
            rxla_ir::index::increment(&mut widx, &wsizes);
        }
        for (r, a) in results.iter_mut().zip(&acc) {
            set_elem(r, pos, &a.as_array()?.data, 0)?;
        }
        rxla_ir::index::increment(&mut oidx, &out_dims);
    }
    let parts = results
        .into_iter()
        .zip(&out_shapes)
        .map(|(d, s)| Ok(ArrayLiteral::new(s.clone(), d)?))
        .collect::<Result<Vec<_>>>()?;
    Ok(variadic_result(out, parts))
}
