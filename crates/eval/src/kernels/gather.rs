//! XLA's `gather` in its general form: offset/collapsed slice dims, start_index_map, index_vector_dim (== rank of the
//! indices means an implicit trailing index vector of size 1), operand_batching_dims / start_indices_batching_dims.
//! Start indices are clamped so that the whole slice lies inside the operand (XLA's rule); batching indices come from
//! the result's batch position. Pure data movement: values are copied, never converted.

use super::util::{check_literal, index_values, make_array, resolve_dims};
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, ArrayShape, GatherDims};

/// `gather(operand, indices)`; `out` is the instruction's shape.
pub fn gather(
    operand: &ArrayLiteral,
    indices: &ArrayLiteral,
    dims: &GatherDims,
    slice_sizes: &[i64],
    out: &ArrayShape,
) -> Result<ArrayLiteral> {
    check_literal(operand, "gather operand")?;
    check_literal(indices, "gather indices")?;
    if out.element_type != operand.shape.element_type {
        return Err(EvalError::new(format!(
            "gather: result type {} differs from operand type {}",
            out.element_type, operand.shape.element_type
        )));
    }
    let idx = index_values(indices, "gather")?;
    let od = &operand.shape.dims;
    let id = &indices.shape.dims;
    let rank = od.len();
    let ivd = usize::try_from(dims.index_vector_dim)
        .ok()
        .filter(|&v| v <= id.len())
        .ok_or_else(|| {
            EvalError::new(format!(
                "gather: index_vector_dim {} is out of range",
                dims.index_vector_dim
            ))
        })?;
    let vec_len = if ivd == id.len() { 1 } else { id[ivd] as usize };
    let offset_dims = resolve_dims(&dims.offset_dims, out.dims.len(), "gather offset_dims")?;
    let collapsed = resolve_dims(
        &dims.collapsed_slice_dims,
        rank,
        "gather collapsed_slice_dims",
    )?;
    let start_map = resolve_dims(&dims.start_index_map, rank, "gather start_index_map")?;
    let op_batch = resolve_dims(
        &dims.operand_batching_dims,
        rank,
        "gather operand_batching_dims",
    )?;
    let idx_batch = resolve_dims(
        &dims.start_indices_batching_dims,
        id.len(),
        "gather start_indices_batching_dims",
    )?;
    if start_map.len() != vec_len {
        return Err(EvalError::new(format!(
            "gather: start_index_map has {} entries but index vectors have {vec_len}",
            start_map.len()
        )));
    }
    if op_batch.len() != idx_batch.len() || idx_batch.contains(&ivd) {
        return Err(EvalError::new(
            "gather: batching dimension lists do not pair up",
        ));
    }
    if slice_sizes.len() != rank {
        return Err(EvalError::new(format!(
            "gather: {} slice sizes for an operand of rank {rank}",
            slice_sizes.len()
        )));
    }
    for d in 0..rank {
        if slice_sizes[d] < 0 || slice_sizes[d] > od[d] {
            return Err(EvalError::new(format!(
                "gather: slice size {} does not fit operand dimension {d} of size {}",
                slice_sizes[d], od[d]
            )));
        }
    }
    // Operand dims that carry offsets, in increasing order.
    let window_dims: Vec<usize> = (0..rank)
        .filter(|d| !collapsed.contains(d) && !op_batch.contains(d))
        .collect();
    if window_dims.len() != offset_dims.len()
        || collapsed
            .iter()
            .chain(&op_batch)
            .any(|&d| slice_sizes[d] > 1)
    {
        return Err(EvalError::new(
            "gather: offset_dims do not match the non-collapsed slice dimensions",
        ));
    }
    let batch_dims: Vec<usize> = (0..out.dims.len())
        .filter(|d| !offset_dims.contains(d))
        .collect();
    let idx_batch_count = id.len() - usize::from(ivd < id.len());
    if batch_dims.len() != idx_batch_count {
        return Err(EvalError::new(format!(
            "gather: result has {} batch dimensions, indices provide {idx_batch_count}",
            batch_dims.len()
        )));
    }
    // Result sizes must agree with the slice and index shapes.
    for (i, &o) in offset_dims.iter().enumerate() {
        if out.dims[o] != slice_sizes[window_dims[i]] {
            return Err(EvalError::new(format!(
                "gather: result dimension {o} has size {}, slice size is {}",
                out.dims[o], slice_sizes[window_dims[i]]
            )));
        }
    }
    // Indices dims other than index_vector_dim, in order; batch dim j of the result is indices dim idx_dims[j].
    let idx_dims: Vec<usize> = (0..id.len()).filter(|&d| d != ivd).collect();
    for (j, &o) in batch_dims.iter().enumerate() {
        if out.dims[o] != id[idx_dims[j]] {
            return Err(EvalError::new(format!(
                "gather: result batch dimension {o} has size {}, indices dimension {} has {}",
                out.dims[o], idx_dims[j], id[idx_dims[j]]
            )));
        }
    }
    for (&ob, &ib) in op_batch.iter().zip(&idx_batch) {
        if od[ob] != id[ib] {
            return Err(EvalError::new(format!(
                "gather: operand batching dimension {ob} (size {}) differs from indices dimension {ib} (size {})",
                od[ob], id[ib]
            )));
        }
    }
    // Each operand batching dim takes its index from the result batch dim of the paired indices dim.
    let batching: Vec<(usize, usize)> = op_batch
        .iter()
        .zip(&idx_batch)
        .map(|(&ob, &ib)| {
            let j = idx_dims.iter().position(|&d| d == ib).unwrap_or(0);
            (ob, batch_dims[j])
        })
        .collect();
    let istr = rxla_ir::index::row_major_strides(id);
    let ostr = rxla_ir::index::row_major_strides(od);
    let n = out.element_count()?;
    let mut take = Vec::with_capacity(n);
    let mut oidx = vec![0i64; out.dims.len()];
    let mut start = vec![0i64; rank];
    for _ in 0..n {
        // Linear position in the indices of this result's batch index (index vector element 0).
        let mut ipos = 0usize;
        for (j, &o) in batch_dims.iter().enumerate() {
            ipos += oidx[o] as usize * istr[idx_dims[j]];
        }
        start.iter_mut().for_each(|s| *s = 0);
        for (k, &d) in start_map.iter().enumerate() {
            let p = ipos + if ivd < id.len() { k * istr[ivd] } else { 0 };
            start[d] = idx[p].clamp(0, od[d] - slice_sizes[d]);
        }
        for &(ob, o) in &batching {
            start[ob] = oidx[o];
        }
        for (i, &o) in offset_dims.iter().enumerate() {
            start[window_dims[i]] += oidx[o];
        }
        take.push(
            start
                .iter()
                .zip(&ostr)
                .map(|(&s, &st)| s as usize * st)
                .sum(),
        );
        rxla_ir::index::increment(&mut oidx, &out.dims);
    }
    make_array(out, operand.data.take(&take))
}
