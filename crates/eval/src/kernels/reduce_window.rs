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
    if let Some(d) = window.prefix_dim(base, &out_dims, 2) {
        prefix_scan(operands, inits, window, d, apply, &out_dims, &mut results)?;
    } else {
        sliding(operands, inits, window, apply, &out_dims, &mut results)?;
    }
    let parts = results
        .into_iter()
        .zip(&out_shapes)
        .map(|(d, s)| Ok(ArrayLiteral::new(s.clone(), d)?))
        .collect::<Result<Vec<_>>>()?;
    Ok(variadic_result(out, parts))
}

/// A prefix window along `d` (JAX's cumulative ops): output `i` folds the
/// elements `[0, end_i)`, so it is output `i − 1`'s accumulator folded with
/// the elements `end_{i−1}..end_i` — the same `apply` calls, in the same
/// order, as the window loop makes, in O(n) instead of O(n·window).
fn prefix_scan(
    operands: &[&ArrayLiteral],
    inits: &[&ArrayLiteral],
    window: &Window,
    d: usize,
    apply: &mut Apply,
    out_dims: &[i64],
    results: &mut [ArrayData],
) -> Result<()> {
    let base = &operands[0].shape.dims;
    let n_ops = operands.len();
    let w = &window.dims[d];
    let (n, out_n) = (base[d], out_dims[d]);
    let reach = w.size - w.pad_low;
    let bstr = rxla_ir::index::row_major_strides(base);
    let ostr = rxla_ir::index::row_major_strides(out_dims);
    let mut lines = out_dims.to_vec();
    lines[d] = 1;
    let n_lines = count(&lines, "reduce-window lines")?;
    let mut lidx = vec![0i64; lines.len()];
    let mut acc: Vec<Literal> = Vec::with_capacity(n_ops);
    let mut args: Vec<Literal> = Vec::with_capacity(2 * n_ops);
    for _ in 0..n_lines {
        let (mut bpos, mut opos) = (0usize, 0usize);
        for k in 0..lidx.len() {
            bpos += lidx[k] as usize * bstr[k];
            opos += lidx[k] as usize * ostr[k];
        }
        acc.clear();
        acc.extend(inits.iter().map(|i| scalar_at(&i.data, 0)));
        let mut cur = 0i64;
        for i in 0..out_n {
            let end = (i * w.stride + reach).clamp(0, n);
            while cur < end {
                let lin = bpos + cur as usize * bstr[d];
                args.clear();
                args.append(&mut acc);
                args.extend(operands.iter().map(|o| scalar_at(&o.data, lin)));
                let vals = split_result(apply(&args)?, n_ops, "reduce-window")?;
                acc.extend(vals.into_iter().map(Literal::Array));
                cur += 1;
            }
            let pos = opos + i as usize * ostr[d];
            for (r, a) in results.iter_mut().zip(&acc) {
                set_elem(r, pos, &a.as_array()?.data, 0)?;
            }
        }
        rxla_ir::index::increment(&mut lidx, &lines);
    }
    Ok(())
}

/// Any window: every output position visits its window in row-major order.
fn sliding(
    operands: &[&ArrayLiteral],
    inits: &[&ArrayLiteral],
    window: &Window,
    apply: &mut Apply,
    out_dims: &[i64],
    results: &mut [ArrayData],
) -> Result<()> {
    let base = &operands[0].shape.dims;
    let n_ops = operands.len();
    let n_out = count(out_dims, "reduce-window result")?;
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
        rxla_ir::index::increment(&mut oidx, out_dims);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rxla_ir::{ElementType, WindowDim};

    /// `acc - x` (not associative): the scan must make the window loop's calls in its order.
    fn subtract(args: &[Literal]) -> Result<Literal> {
        let f = |l: &Literal| match &l.as_array().unwrap().data {
            ArrayData::F32(v) => v[0],
            other => panic!("not f32: {other:?}"),
        };
        let (a, x) = (f(&args[0]), f(&args[1]));
        Ok(Literal::from_vec(&[], vec![a - x])?)
    }

    #[test]
    fn prefix_scan_equals_the_window_loop() {
        let dims = [5i64, 37];
        let data: Vec<f32> = (0..185)
            .map(|i| ((i * 7919) % 101) as f32 * 0.37 - 17.0)
            .collect();
        let x = Literal::from_vec(&dims, data).unwrap();
        let x = x.as_array().unwrap();
        let init = Literal::from_vec(&[], vec![0.25f32]).unwrap();
        let init = init.as_array().unwrap();
        for (axis, size, stride) in [(1usize, 37i64, 1i64), (0, 5, 1), (1, 40, 3)] {
            let mut w = vec![WindowDim::new(1), WindowDim::new(1)];
            w[axis] = WindowDim {
                stride,
                pad_low: size - 1,
                ..WindowDim::new(size)
            };
            let window = Window { dims: w };
            let out_dims = window_output_dims(&dims, &window);
            let d = window
                .prefix_dim(&dims, &out_dims, 2)
                .expect("a prefix window");
            let n_out = out_dims.iter().product::<i64>() as usize;
            let mut scanned = vec![ArrayData::zeros(ElementType::F32, n_out)];
            let mut looped = vec![ArrayData::zeros(ElementType::F32, n_out)];
            prefix_scan(
                &[x],
                &[init],
                &window,
                d,
                &mut subtract,
                &out_dims,
                &mut scanned,
            )
            .unwrap();
            sliding(
                &[x],
                &[init],
                &window,
                &mut subtract,
                &out_dims,
                &mut looped,
            )
            .unwrap();
            assert_eq!(scanned, looped, "axis {axis} size {size} stride {stride}");
        }
    }
}
