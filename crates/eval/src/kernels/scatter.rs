//! XLA's `scatter` in its general, variadic form: N operands and N updates, update_window_dims, inserted_window_dims,
//! scatter_dims_to_operand_dims, index_vector_dim (== rank of the indices means an implicit trailing 1),
//! input_batching_dims / scatter_indices_batching_dims. Result: one array, or a tuple when N > 1.
//!
//! Semantics (XLA's): the result starts as a copy of the operands. An update window whose start (in any operand
//! dimension) would put part of the window outside the operand is SKIPPED entirely; start indices are never clamped.
//! Application order (documented, deterministic): the update scatter indices in row-major order of the update's
//! scatter dimensions, and for each of them the window elements in row-major order of the update's window dimensions;
//! each step calls `apply(current_0..current_{N-1}, update_0..update_{N-1})` on scalars and stores its N results.

use super::Apply;
use super::util::{
    check_literal, count, index_values, scalar_at, set_elem, split_result, variadic_out_shapes,
    variadic_result,
};
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, Literal, ScatterDims, Shape};

/// `scatter(operands..., indices, updates...)` with update computation `apply`; `out` is the instruction's shape.
pub fn scatter(
    operands: &[&ArrayLiteral],
    indices: &ArrayLiteral,
    updates: &[&ArrayLiteral],
    dims: &ScatterDims,
    apply: &mut Apply,
    out: &Shape,
) -> Result<Literal> {
    let n_ops = operands.len();
    if n_ops == 0 || updates.len() != n_ops {
        return Err(EvalError::new(format!(
            "scatter: {} operands and {} updates (need the same positive number)",
            n_ops,
            updates.len()
        )));
    }
    let out_shapes = variadic_out_shapes(out, n_ops, "scatter")?;
    for (i, (o, u)) in operands.iter().zip(updates).enumerate() {
        check_literal(o, "scatter operand")?;
        check_literal(u, "scatter update")?;
        if o.shape.dims != operands[0].shape.dims || u.shape.dims != updates[0].shape.dims {
            return Err(EvalError::new(format!(
                "scatter: operand/update {i} has a different shape"
            )));
        }
        if !out_shapes[i].compatible(&o.shape) {
            return Err(EvalError::new(format!(
                "scatter: result {} does not match operand {}",
                out_shapes[i], o.shape
            )));
        }
    }
    check_literal(indices, "scatter indices")?;
    let plan = plan(
        &operands[0].shape.dims,
        &indices.shape.dims,
        &updates[0].shape.dims,
        dims,
    )?;
    let idx = index_values(indices, "scatter")?;

    let mut results: Vec<ArrayLiteral> = operands.iter().map(|o| (*o).clone()).collect();
    let ud = &updates[0].shape.dims;
    let od = &operands[0].shape.dims;
    let ustr = rxla_ir::index::row_major_strides(ud);
    let ostr = rxla_ir::index::row_major_strides(od);
    let istr = rxla_ir::index::row_major_strides(&indices.shape.dims);
    let scatter_sizes: Vec<i64> = plan.update_scatter_dims.iter().map(|&d| ud[d]).collect();
    let window_sizes: Vec<i64> = plan.update_window_dims.iter().map(|&d| ud[d]).collect();
    let scatter_count = count(&scatter_sizes, "scatter indices")?;
    let window_count = count(&window_sizes, "scatter window")?;
    let mut sidx = vec![0i64; scatter_sizes.len()];
    let mut start = vec![0i64; od.len()];
    let mut args: Vec<Literal> = Vec::with_capacity(2 * n_ops);
    for _ in 0..scatter_count {
        // Start of this window in the operand: start indices and batching indices.
        let ipos: usize = sidx
            .iter()
            .zip(&plan.idx_dims)
            .map(|(&s, &d)| s as usize * istr[d])
            .sum();
        start.iter_mut().for_each(|s| *s = 0);
        for (k, &d) in plan.to_operand.iter().enumerate() {
            start[d] = idx[ipos
                + if plan.ivd < istr.len() {
                    k * istr[plan.ivd]
                } else {
                    0
                }];
        }
        for &(op_dim, j) in &plan.batching {
            start[op_dim] = sidx[j];
        }
        let in_bounds =
            (0..od.len()).all(|d| start[d] >= 0 && start[d] <= od[d] - plan.window_extent[d]);
        if in_bounds {
            let ubase: usize = sidx
                .iter()
                .zip(&plan.update_scatter_dims)
                .map(|(&s, &d)| s as usize * ustr[d])
                .sum();
            let obase: usize = start
                .iter()
                .zip(&ostr)
                .map(|(&s, &st)| s as usize * st)
                .sum();
            let mut widx = vec![0i64; window_sizes.len()];
            for _ in 0..window_count {
                let mut upos = ubase;
                let mut opos = obase;
                for (w, &wi) in widx.iter().enumerate() {
                    upos += wi as usize * ustr[plan.update_window_dims[w]];
                    opos += wi as usize * ostr[plan.operand_window_dims[w]];
                }
                args.clear();
                args.extend(results.iter().map(|r| scalar_at(&r.data, opos)));
                args.extend(updates.iter().map(|u| scalar_at(&u.data, upos)));
                let vals = split_result(apply(&args)?, n_ops, "scatter")?;
                for (r, v) in results.iter_mut().zip(&vals) {
                    set_elem(&mut r.data, opos, &v.data, 0)?;
                }
                rxla_ir::index::increment(&mut widx, &window_sizes);
            }
        }
        rxla_ir::index::increment(&mut sidx, &scatter_sizes);
    }
    for (r, s) in results.iter_mut().zip(&out_shapes) {
        r.shape = s.clone();
    }
    Ok(variadic_result(out, results))
}

/// Scatter dimension numbers resolved and checked against the operand, indices and update shapes
/// (`rxla_ir::geometry::scatter_geometry`).
type Plan = rxla_ir::geometry::ScatterGeometry;

fn plan(od: &[i64], id: &[i64], ud: &[i64], dims: &ScatterDims) -> Result<Plan> {
    rxla_ir::geometry::scatter_geometry(od, id, ud, dims).map_err(EvalError::new)
}
