//! Bounded dynamic dimensions: which ops propagate them and how, following
//! XLA's dynamic dimension inference. One rule serves shape inference
//! (which result dims are dynamic) and the evaluator (their runtime
//! sizes): a dim is `Some(size)` when dynamic, `None` when static. Ops
//! without a rule here are not defined on dynamic operands (the evaluator
//! refuses them); shape inference then keeps the dynamism written in the
//! text. Pure: never panics on bad input, allocates only per-dim vectors.

use crate::error::{IrError, Result};
use crate::ops::Op;
use crate::shape::{ArrayShape, DynamicDims, Shape};

/// One array's dims: `Some(size)` for a dynamic dim (its runtime size, or
/// the bound when only the type is known), `None` for a static one.
pub type DimSizes = Vec<Option<i64>>;

/// The dims of `shape` with each dynamic dim given its bound.
pub fn bound_sizes(shape: &ArrayShape) -> DimSizes {
    (0..shape.rank())
        .map(|d| shape.is_dynamic_dim(d).then(|| shape.dims[d]))
        .collect()
}

/// The dynamic mask of a per-dim size list.
pub fn mask_of(sizes: &[Option<i64>]) -> DynamicDims {
    let mut m = DynamicDims::STATIC;
    for (d, s) in sizes.iter().enumerate() {
        if s.is_some() {
            // Ranks past 64 cannot hold dynamic dims: shapes refuse them.
            m = m.with(d);
        }
    }
    m
}

/// Ops whose values just flow through (parameters, tuples, calls, loops,
/// barriers): dynamic operands are fine, the shapes carry the dynamism.
pub fn passes_through(op: &Op) -> bool {
    matches!(
        op,
        Op::Parameter { .. }
            | Op::Tuple
            | Op::GetTupleElement { .. }
            | Op::Call { .. }
            | Op::Fusion { .. }
            | Op::AsyncStart { .. }
            | Op::AsyncUpdate { .. }
            | Op::AsyncDone { .. }
            | Op::While { .. }
            | Op::Conditional { .. }
            | Op::OptimizationBarrier
    )
}

/// Ops [`propagate`] has a rule for (plus get/set-dimension-size).
pub fn has_rule(op: &Op) -> bool {
    op.is_elementwise()
        || matches!(
            op,
            Op::Copy
                | Op::BitcastConvert
                | Op::Map { .. }
                | Op::Broadcast { .. }
                | Op::Transpose { .. }
                | Op::Reshape
                | Op::Slice { .. }
                | Op::Concatenate { .. }
                | Op::Reduce { .. }
                | Op::Dot { .. }
                | Op::GetDimensionSize { .. }
                | Op::SetDimensionSize { .. }
        )
        || runs_on_valid_box(op)
}

/// Ops the evaluator runs on the valid box of their operands: each
/// dynamic dim cut to its runtime size (convolution's feature dims, which
/// it contracts, are masked with zero instead), the static kernel run on
/// those static values with the result's runtime sizes as its dims
/// (attributes that name sizes adjusted by [`valid_box_op`]), and the
/// result padded back to its bounds. So the padding never reaches a
/// result: reverse reverses the valid prefix, pad pads it, sort sorts it,
/// windows see the explicit padding value past the runtime size.
pub fn runs_on_valid_box(op: &Op) -> bool {
    matches!(
        op,
        Op::Reverse { .. }
            | Op::Pad { .. }
            | Op::DynamicSlice { .. }
            | Op::DynamicUpdateSlice
            | Op::Scatter { .. }
            | Op::SelectAndScatter { .. }
            | Op::TopK { .. }
            | Op::Fft { .. }
            | Op::Cholesky { .. }
            | Op::TriangularSolve(_)
            | Op::Sort { .. }
            | Op::ReduceWindow { .. }
            | Op::Convolution { .. }
            | Op::Gather { .. }
    )
}

/// `op` with its size attributes fitted to operands cut to their runtime
/// `sizes` (see [`runs_on_valid_box`]): a dynamic-slice's sizes become the
/// result's `kernel_dims`, a gather's slice size along a dynamic operand
/// dim is at most its runtime size. Other ops are returned unchanged.
pub fn valid_box_op(op: &Op, sizes: &[DimSizes], kernel_dims: &[i64]) -> Op {
    match op {
        Op::DynamicSlice { .. } => Op::DynamicSlice {
            sizes: kernel_dims.to_vec(),
        },
        Op::Gather {
            dims,
            slice_sizes,
            indices_are_sorted,
        } => {
            let s0 = sizes.first().map(Vec::as_slice).unwrap_or(&[]);
            Op::Gather {
                dims: dims.clone(),
                slice_sizes: slice_sizes
                    .iter()
                    .enumerate()
                    .map(|(d, &s)| match s0.get(d).copied().flatten() {
                        Some(n) => s.min(n),
                        None => s,
                    })
                    .collect(),
                indices_are_sorted: *indices_are_sorted,
            }
        }
        _ => op.clone(),
    }
}

/// The operand dims of operand `k` of a [`runs_on_valid_box`] op that are
/// masked with zero and kept at their bound instead of being cut: the
/// feature dims a convolution contracts.
pub fn masked_dims(op: &Op, k: usize) -> Vec<usize> {
    match op {
        Op::Convolution { dims, .. } => {
            let d = if k == 0 {
                dims.input_feature
            } else {
                dims.kernel_input_feature
            };
            usize::try_from(d).map(|d| vec![d]).unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

/// Fits the cut dims `dims` of operand `k` of a [`runs_on_valid_box`] op
/// to the result's `kernel_dims` and the other operands' `sizes` where the
/// op needs it: a dynamic-update-slice's operand takes the result's dims (a
/// static operand under a full-size dynamic update is cut to the update's
/// size) and its update at most those (only the part inside the valid
/// result is written); a scatter's indices batch dims and updates scatter
/// dims take their agreed size (a static one is cut to a dynamic
/// partner's size); a select-and-scatter's source takes the window count
/// of the valid operand (the evaluator first sets its own padding to the
/// init value, XLA's padder).
pub fn fit_operand(op: &Op, k: usize, dims: &mut [i64], kernel_dims: &[i64], sizes: &[DimSizes]) {
    match op {
        Op::DynamicUpdateSlice => match k {
            0 if dims.len() == kernel_dims.len() => dims.copy_from_slice(kernel_dims),
            1 => dims
                .iter_mut()
                .zip(kernel_dims)
                .for_each(|(d, &r)| *d = (*d).min(r)),
            _ => {}
        },
        Op::TriangularSolve(_) => {
            // Both operands' batch dims take the result's (b's) sizes.
            let batch = kernel_dims.len().saturating_sub(2);
            for (d, &r) in dims.iter_mut().zip(kernel_dims).take(batch) {
                *d = r;
            }
        }
        Op::SelectAndScatter { window, .. } if k == 1 => {
            for ((d, &r), w) in dims.iter_mut().zip(kernel_dims).zip(&window.dims) {
                *d = crate::geometry::window_output_size(r, w);
            }
        }
        Op::Scatter { dims: sd, .. } => {
            let n = sizes.len().saturating_sub(1) / 2;
            if k < n {
                return;
            }
            for (j, u, size) in scatter_batch_pairs(sd, sizes) {
                if let Some(s) = size {
                    let d = if k == n { j } else { u };
                    if let Some(x) = dims.get_mut(d) {
                        *x = s;
                    }
                }
            }
        }
        _ => {}
    }
}

/// The batch dims of a scatter's indices paired with the updates' scatter
/// dims, with their agreed dynamic size (`None` when all are static; the
/// first dynamic size when they disagree, which [`propagate`] reports).
fn scatter_batch_pairs(
    sd: &crate::ops::ScatterDims,
    sizes: &[DimSizes],
) -> Vec<(usize, usize, Option<i64>)> {
    let n = sizes.len().saturating_sub(1) / 2;
    let (Some(ind), Some(upd0)) = (sizes.get(n), sizes.get(n + 1)) else {
        return Vec::new();
    };
    let batch: Vec<usize> = (0..ind.len())
        .filter(|&j| j as i64 != sd.index_vector_dim)
        .collect();
    let scatter: Vec<usize> = (0..upd0.len())
        .filter(|&u| !sd.update_window_dims.contains(&(u as i64)))
        .collect();
    batch
        .iter()
        .zip(&scatter)
        .map(|(&j, &u)| {
            let size = std::iter::once(ind[j])
                .chain(sizes[n + 1..].iter().map(|s| s.get(u).copied().flatten()))
                .flatten()
                .next();
            (j, u, size)
        })
        .collect()
}

/// An operand dim of size 1 sliced out of a dynamic dim of runtime size 0
/// (a dynamic-slice or gather of one element): nothing valid to read.
fn empty_pick(op: &Op, d: usize) -> IrError {
    IrError::shape(format!(
        "{} takes one element of dimension {d}, whose runtime size is 0",
        op.opcode()
    ))
}

/// Agrees the sizes of one dim across operands: all dynamic ones must be
/// equal (XLA's runtime shape check); static operands take the dynamic size.
fn agree(dim: usize, sizes: impl Iterator<Item = Option<i64>>) -> Result<Option<i64>> {
    let mut out: Option<i64> = None;
    for s in sizes.flatten() {
        match out {
            Some(o) if o != s => {
                return Err(IrError::shape(format!(
                    "dynamic sizes of dimension {dim} differ between operands ({o} vs {s})"
                )));
            }
            _ => out = Some(s),
        }
    }
    Ok(out)
}

/// The result dim of a reshape from `from` to `to` that holds operand dim
/// `d` unchanged (same size, same product of dims before and after), if any.
pub fn reshape_dim(from: &[i64], to: &[i64], d: usize) -> Option<usize> {
    reshape_dims(from, to, d).first().copied()
}

/// Every result dim that holds operand dim `d` unchanged: several only
/// when `d` has size 1 next to other size-1 dims (`[<=1,4] → [1,<=1,4]`
/// or `[<=1,1,4]`), all equivalent for the data.
pub fn reshape_dims(from: &[i64], to: &[i64], d: usize) -> Vec<usize> {
    let before: i128 = from[..d].iter().map(|&x| x as i128).product();
    let mut acc: i128 = 1;
    let mut out = Vec::new();
    for (e, &t) in to.iter().enumerate() {
        if acc == before && t == from[d] {
            let after_from: i128 = from[d + 1..].iter().map(|&x| x as i128).product();
            let after_to: i128 = to[e + 1..].iter().map(|&x| x as i128).product();
            if after_from == after_to {
                out.push(e);
            }
        }
        acc = acc.saturating_mul(t as i128);
    }
    out
}

/// The result dim of a reshape from `from` to `to` into which operand dim
/// `d` merges with the static dims right after it (`[<=4,3] → [<=12]`:
/// the valid rows are a prefix of the merged dim), with the factor its
/// size is multiplied by. `dynamic[i]` says whether operand dim i is
/// dynamic: the merged dims after `d` must be static.
pub fn reshape_merge(from: &[i64], to: &[i64], dynamic: &[bool], d: usize) -> Option<(usize, i64)> {
    let before: i128 = from[..d].iter().map(|&x| x as i128).product();
    let mut acc: i128 = 1;
    for (e, &t) in to.iter().enumerate() {
        if acc == before {
            let mut group: i128 = from[d] as i128;
            let mut j = d + 1;
            while group < t as i128 && j < from.len() {
                if dynamic.get(j).copied().unwrap_or(false) {
                    return None;
                }
                group *= from[j] as i128;
                j += 1;
            }
            if group == t as i128 && j > d + 1 {
                let after_from: i128 = from[j..].iter().map(|&x| x as i128).product();
                let after_to: i128 = to[e + 1..].iter().map(|&x| x as i128).product();
                if after_from == after_to {
                    let factor: i128 = from[d + 1..j].iter().map(|&x| x as i128).product();
                    return i64::try_from(factor).ok().map(|f| (e, f));
                }
            }
        }
        acc = acc.saturating_mul(t as i128);
    }
    None
}

fn ix_of(v: i64) -> Option<usize> {
    usize::try_from(v).ok()
}

/// Shape rule of `get-dimension-size(x), dimensions={d}`: `s32[]`.
pub(crate) fn get_dimension_size_shape(ops: &[&Shape], dimension: i64) -> Result<Shape> {
    let [x] = ops else {
        return Err(IrError::shape(format!(
            "takes 1 operand, got {}",
            ops.len()
        )));
    };
    let a = x.as_array()?;
    check_dim(a, dimension)?;
    Ok(Shape::scalar(crate::ElementType::S32))
}

/// Shape rule of `set-dimension-size(x, s32[] n), dimensions={d}`: x's
/// shape with dimension d dynamic (bound = its size).
pub(crate) fn set_dimension_size_shape(ops: &[&Shape], dimension: i64) -> Result<Shape> {
    let [x, n] = ops else {
        return Err(IrError::shape(format!(
            "takes 2 operands (the array and an s32[] size), got {}",
            ops.len()
        )));
    };
    let a = x.as_array()?;
    let d = check_dim(a, dimension)?;
    match n.as_array() {
        Ok(s) if s.is_scalar() && s.element_type == crate::ElementType::S32 => {}
        _ => {
            return Err(IrError::shape(format!(
                "the size operand must be s32[], got {}",
                n.to_string_no_layout()
            )));
        }
    }
    if a.dims[d] == 0 {
        return Err(IrError::shape(format!(
            "dimension {d} of {} has size 0 and cannot be dynamic (a bound must be positive)",
            a
        )));
    }
    let mut out = a.clone();
    out.dynamic.set(d, true)?;
    Ok(Shape::Array(out))
}

fn check_dim(a: &ArrayShape, dimension: i64) -> Result<usize> {
    if a.element_type == crate::ElementType::Token {
        return Err(IrError::shape("the operand must be an array, got a token"));
    }
    match usize::try_from(dimension) {
        Ok(d) if d < a.rank() => Ok(d),
        _ => Err(IrError::shape(format!(
            "dimension {dimension} is out of range for {} (rank {})",
            a,
            a.rank()
        ))),
    }
}

/// The per-dim sizes of the result (of one array leaf of the result, for
/// a variadic reduce) of `op` on operands with `sizes`, `shapes` being the
/// operands' shapes and `result_dims` the result's (leaf) dims. `None`
/// when `op` has no rule for dynamic operands (or the rule does not cover
/// this case, like a reshape that splits a dynamic dim); `Some(Err)` when
/// the runtime sizes disagree. `hint` (the declared result's dynamic
/// dims, when known) picks among equivalent choices: which of several
/// size-1 result dims of a reshape a dynamic size-1 dim becomes.
pub fn propagate(
    op: &Op,
    sizes: &[DimSizes],
    shapes: &[&ArrayShape],
    result_dims: &[i64],
    hint: DynamicDims,
) -> Option<Result<DimSizes>> {
    let rank = result_dims.len();
    let r = match op {
        _ if op.is_elementwise()
            || matches!(op, Op::Copy | Op::Map { .. } | Op::BitcastConvert) =>
        {
            if sizes
                .iter()
                .any(|s| !s.is_empty() && s.len() != rank && s.iter().any(Option::is_some))
            {
                return None;
            }
            (0..rank)
                .map(|d| agree(d, sizes.iter().filter(|s| s.len() == rank).map(|s| s[d])))
                .collect()
        }
        Op::Broadcast { dimensions } => {
            let mut out = vec![None; rank];
            for (i, &d) in dimensions.iter().enumerate() {
                let s = sizes.first()?.get(i).copied()?;
                *out.get_mut(usize::try_from(d).ok()?)? = s;
            }
            Ok(out)
        }
        Op::Transpose { permutation } => {
            let s0 = sizes.first()?;
            let v: Option<DimSizes> = permutation
                .iter()
                .map(|&p| s0.get(usize::try_from(p).ok()?).copied())
                .collect();
            Ok(v?)
        }
        Op::Reshape => {
            let from = &shapes.first()?.dims;
            let s0 = sizes.first()?;
            let dynamic: Vec<bool> = s0.iter().map(Option::is_some).collect();
            let mut out = vec![None; rank];
            for (d, s) in s0.iter().enumerate() {
                if let Some(s) = s {
                    let cands = reshape_dims(from, result_dims, d);
                    let pick = cands
                        .iter()
                        .copied()
                        .find(|&e| hint.get(e) && out[e].is_none())
                        .or_else(|| cands.iter().copied().find(|&e| out[e].is_none()));
                    let (e, factor) = match pick {
                        Some(e) => (e, 1),
                        None => match reshape_merge(from, result_dims, &dynamic, d) {
                            Some(m) => m,
                            // No data at all: nothing to keep dynamic.
                            None if result_dims.contains(&0) => continue,
                            None => return None,
                        },
                    };
                    if out[e].is_some() {
                        return None;
                    }
                    out[e] = Some(s.saturating_mul(factor));
                }
            }
            Ok(out)
        }
        Op::Slice {
            starts,
            limits,
            strides,
        } => {
            let s0 = sizes.first()?;
            let mut out = vec![None; rank];
            for d in 0..rank {
                if let (Some(n), true) = (s0.get(d).copied()?, result_dims[d] != 1) {
                    let (start, limit, stride) =
                        (*starts.get(d)?, *limits.get(d)?, (*strides.get(d)?).max(1));
                    let end = n.min(limit);
                    let len = if end <= start {
                        0
                    } else {
                        (end - start + stride - 1) / stride
                    };
                    out[d] = Some(len.clamp(0, result_dims[d]));
                }
            }
            Ok(out)
        }
        Op::Concatenate { dimension } => {
            let cd = usize::try_from(*dimension).ok()?;
            let mut out = Vec::with_capacity(rank);
            for d in 0..rank {
                if d == cd {
                    let any = sizes.iter().any(|s| s.get(d).copied().flatten().is_some());
                    if !any {
                        out.push(None);
                        continue;
                    }
                    let mut total = 0i64;
                    for (s, sh) in sizes.iter().zip(shapes) {
                        let n = s.get(d).copied().flatten().or(sh.dims.get(d).copied())?;
                        total = total.saturating_add(n);
                    }
                    out.push(Some(total));
                } else {
                    match agree(d, sizes.iter().map(|s| s.get(d).copied().flatten())) {
                        Ok(v) => out.push(v),
                        Err(e) => return Some(Err(e)),
                    }
                }
            }
            Ok(out)
        }
        Op::Reduce { dimensions, .. } => {
            let n = sizes.len() / 2;
            let kept: Vec<usize> = (0..shapes.first()?.rank())
                .filter(|d| !dimensions.contains(&(*d as i64)))
                .collect();
            if kept.len() != rank {
                return None;
            }
            kept.iter()
                .enumerate()
                .map(|(i, &d)| agree(i, sizes[..n].iter().map(|s| s.get(d).copied().flatten())))
                .collect()
        }
        Op::Dot { dims } => {
            let (l, r) = (sizes.first()?, sizes.get(1)?);
            let mut out = Vec::with_capacity(rank);
            for (i, (&lb, &rb)) in dims.lhs_batch.iter().zip(&dims.rhs_batch).enumerate() {
                let a = l.get(usize::try_from(lb).ok()?).copied()?;
                let b = r.get(usize::try_from(rb).ok()?).copied()?;
                match agree(i, [a, b].into_iter()) {
                    Ok(v) => out.push(v),
                    Err(e) => return Some(Err(e)),
                }
            }
            for (d, s) in l.iter().enumerate() {
                let d = d as i64;
                if !dims.lhs_batch.contains(&d) && !dims.lhs_contracting.contains(&d) {
                    out.push(*s);
                }
            }
            for (d, s) in r.iter().enumerate() {
                let d = d as i64;
                if !dims.rhs_batch.contains(&d) && !dims.rhs_contracting.contains(&d) {
                    out.push(*s);
                }
            }
            if out.len() != rank {
                return None;
            }
            Ok(out)
        }
        Op::Reverse { .. } => {
            let s0 = sizes.first()?;
            if s0.len() != rank {
                return None;
            }
            Ok(s0.clone())
        }
        Op::DynamicUpdateSlice => {
            let (o, u) = (sizes.first()?, sizes.get(1)?);
            let (ob, ub) = (&shapes.first()?.dims, &shapes.get(1)?.dims);
            if o.len() != rank || u.len() != rank || ub.len() != rank {
                return None;
            }
            Ok((0..rank)
                .map(|d| match (o[d], u[d]) {
                    (Some(n), _) => Some(n),
                    // A dynamic update as large as the operand: XLA's
                    // inference gives the result its size.
                    (None, Some(m)) if ub[d] == ob[d] => Some(m),
                    _ => None,
                })
                .collect())
        }
        Op::Scatter { dims: sd, .. } => {
            if sizes.len() < 3 {
                return None;
            }
            let n = (sizes.len() - 1) / 2;
            let (inputs, ind, upds) = (&sizes[..n], &sizes[n], &sizes[n + 1..]);
            if inputs.iter().any(|s| s.len() != rank) {
                return None;
            }
            // A dynamic index vector or operand batching dim: no rule.
            if ind
                .get(usize::try_from(sd.index_vector_dim).unwrap_or(usize::MAX))
                .copied()
                .flatten()
                .is_some()
                || sd.input_batching_dims.iter().any(|&d| {
                    inputs
                        .iter()
                        .any(|s| s.get(d as usize).copied().flatten().is_some())
                })
            {
                return None;
            }
            let pairs = scatter_batch_pairs(sd, sizes);
            for (b, &(j, u, _)) in pairs.iter().enumerate() {
                let all = std::iter::once(ind.get(j).copied().flatten())
                    .chain(upds.iter().map(|s| s.get(u).copied().flatten()));
                if let Err(e) = agree(b, all) {
                    return Some(Err(e));
                }
            }
            // The updates' window dims agree among the updates.
            if let Some(u0) = upds.first() {
                for (w, _) in u0.iter().enumerate() {
                    if let Err(e) = agree(w, upds.iter().map(|s| s.get(w).copied().flatten())) {
                        return Some(Err(e));
                    }
                }
            }
            (0..rank)
                .map(|d| agree(d, inputs.iter().map(|s| s[d])))
                .collect()
        }
        Op::SelectAndScatter { .. } => {
            // The operand's sizes (XLA's rule); a dynamic source is padded
            // with the init value to the window count.
            let s0 = sizes.first()?;
            if s0.len() != rank {
                return None;
            }
            Ok(s0.clone())
        }
        Op::Fft { fft_length, .. } => {
            // Batch dims keep their sizes; a dynamic transformed dim has no
            // rule (the transform length is fixed).
            let s0 = sizes.first()?;
            let batch = rank.checked_sub(fft_length.len())?;
            if s0.len() != rank || s0[batch..].iter().any(Option::is_some) {
                return None;
            }
            Ok(s0.clone())
        }
        Op::Cholesky { .. } => {
            // Batch dims keep their sizes; dynamic matrix dims have no rule.
            let s0 = sizes.first()?;
            if s0.len() != rank || rank < 2 || s0[rank - 2..].iter().any(Option::is_some) {
                return None;
            }
            Ok(s0.clone())
        }
        Op::TriangularSolve(o) => {
            // Batch dims agree between a and b; b's free dim (its columns
            // for left_side, its rows otherwise) keeps its size; a's matrix
            // dims and the dim of b they multiply have no rule.
            let (a, b) = (sizes.first()?, sizes.get(1)?);
            if a.len() != rank || b.len() != rank || rank < 2 {
                return None;
            }
            let tied = if o.left_side { rank - 2 } else { rank - 1 };
            if a[rank - 2..].iter().any(Option::is_some) || b[tied].is_some() {
                return None;
            }
            let mut out = Vec::with_capacity(rank);
            for d in 0..rank - 2 {
                match agree(d, [a[d], b[d]].into_iter()) {
                    Ok(v) => out.push(v),
                    Err(e) => return Some(Err(e)),
                }
            }
            out.push(b[rank - 2]);
            out.push(b[rank - 1]);
            Ok(out)
        }
        Op::TopK { k, .. } => {
            // Batch dims keep their sizes; the k results along the last
            // dim are static and need k valid elements.
            let s0 = sizes.first()?;
            if s0.len() != rank || rank == 0 {
                return None;
            }
            if let Some(n) = s0[rank - 1]
                && n < *k
            {
                return Some(Err(IrError::shape(format!(
                    "topk takes {k} elements of the last dimension, whose runtime size is {n}"
                ))));
            }
            let mut out = s0.clone();
            out[rank - 1] = None;
            Ok(out)
        }
        Op::Sort { .. } => {
            if sizes.iter().any(|s| s.len() != rank) {
                return None;
            }
            (0..rank)
                .map(|d| agree(d, sizes.iter().map(|s| s[d])))
                .collect()
        }
        Op::Pad { config } => {
            let s0 = sizes.first()?;
            if s0.len() != rank || config.len() != rank {
                return None;
            }
            Ok((0..rank)
                .map(|d| {
                    s0[d].map(|n| {
                        let c = &config[d];
                        let n = n as i128;
                        let size = n
                            + c.low as i128
                            + c.high as i128
                            + c.interior as i128 * (n - 1).max(0);
                        size.clamp(0, result_dims[d] as i128) as i64
                    })
                })
                .collect())
        }
        Op::DynamicSlice { sizes: slice_sizes } => {
            let s0 = sizes.first()?;
            let bounds = &shapes.first()?.dims;
            if s0.len() != rank || slice_sizes.len() != rank {
                return None;
            }
            let mut out = vec![None; rank];
            for d in 0..rank {
                if let Some(n) = s0[d] {
                    let s = slice_sizes[d];
                    if s == 1 && bounds[d] != 1 {
                        // One element: static (XLA's rule).
                        if n == 0 {
                            return Some(Err(empty_pick(op, d)));
                        }
                    } else {
                        out[d] = Some(s.min(n));
                    }
                }
            }
            Ok(out)
        }
        Op::ReduceWindow { window, .. } => {
            let k = sizes.len() / 2;
            if k == 0 || sizes[..k].iter().any(|s| s.len() != rank) || window.dims.len() != rank {
                return None;
            }
            (0..rank)
                .map(|d| {
                    agree(d, sizes[..k].iter().map(|s| s[d])).map(|v| {
                        v.map(|n| {
                            crate::geometry::window_output_size(n, &window.dims[d])
                                .clamp(0, result_dims[d])
                        })
                    })
                })
                .collect()
        }
        Op::Convolution {
            window,
            dims,
            feature_group_count,
            batch_group_count,
        } => {
            let (l, r) = (sizes.first()?, sizes.get(1)?);
            let ix = |v: i64| usize::try_from(v).ok();
            let mut out = vec![None; rank];
            if let Some(n) = l.get(ix(dims.input_batch)?).copied()? {
                if *batch_group_count != 1 {
                    return None;
                }
                *out.get_mut(ix(dims.output_batch)?)? = Some(n);
            }
            for (i, &sd) in dims.input_spatial.iter().enumerate() {
                if let Some(n) = l.get(ix(sd)?).copied()? {
                    let w = window.dims.get(i)?;
                    let o = ix(*dims.output_spatial.get(i)?)?;
                    *out.get_mut(o)? =
                        Some(crate::geometry::window_output_size(n, w).clamp(0, result_dims[o]));
                }
            }
            for &kd in &dims.kernel_spatial {
                if r.get(ix(kd)?).copied()?.is_some() {
                    return None;
                }
            }
            if let Some(n) = r.get(ix(dims.kernel_output_feature)?).copied()? {
                if *feature_group_count != 1 || *batch_group_count != 1 {
                    return None;
                }
                *out.get_mut(ix(dims.output_feature)?)? = Some(n);
            }
            Ok(out)
        }
        Op::Gather {
            dims, slice_sizes, ..
        } => {
            let (o, ind) = (sizes.first()?, sizes.get(1)?);
            let bounds = &shapes.first()?.dims;
            let mut out = vec![None; rank];
            // Operand dims that stay in the result, in order, are the
            // offset dims.
            let kept: Vec<usize> = (0..o.len())
                .filter(|&d| {
                    !dims.collapsed_slice_dims.contains(&(d as i64))
                        && !dims.operand_batching_dims.contains(&(d as i64))
                })
                .collect();
            if kept.len() != dims.offset_dims.len() {
                return None;
            }
            for (d, s) in o.iter().enumerate() {
                let Some(n) = *s else { continue };
                if dims.operand_batching_dims.contains(&(d as i64)) {
                    return None;
                }
                let size = *slice_sizes.get(d)?;
                if dims.collapsed_slice_dims.contains(&(d as i64)) || (size == 1 && bounds[d] != 1)
                {
                    if n == 0 {
                        return Some(Err(empty_pick(op, d)));
                    }
                    continue;
                }
                let k = kept.iter().position(|&x| x == d)?;
                *out.get_mut(ix_of(dims.offset_dims[k])?)? = Some(size.min(n));
            }
            let batch_out: Vec<usize> = (0..rank)
                .filter(|&e| !dims.offset_dims.contains(&(e as i64)))
                .collect();
            let mut b = 0;
            for (j, s) in ind.iter().enumerate() {
                if j as i64 == dims.index_vector_dim {
                    if s.is_some() {
                        return None;
                    }
                    continue;
                }
                if let Some(m) = *s {
                    *out.get_mut(*batch_out.get(b)?)? = Some(m);
                }
                b += 1;
            }
            Ok(out)
        }
        _ => return None,
    };
    // A result dim of size 0 holds no data: it is static (a bound is ≥ 1).
    // Only the first 64 dims can be dynamic.
    Some(r.and_then(|mut v| {
        for (d, (s, &b)) in v.iter_mut().zip(result_dims).enumerate() {
            if b == 0 {
                *s = None;
            }
            if s.is_some() && d >= crate::shape::MAX_DYNAMIC_DIM {
                return Err(IrError::shape(format!(
                    "result dimension {d} would be dynamic: only the first {} dimensions can be",
                    crate::shape::MAX_DYNAMIC_DIM
                )));
            }
        }
        Ok(v)
    }))
}

/// Sets the dynamic dims of `inferred` (the result shape shape inference
/// computed from the bounds) for `op` on `operands`. Ops with a rule get
/// exactly the rule's dims (so `f32[<=4] add(f32[4], f32[4])` is refused);
/// ops without one keep `declared`'s dims when an operand is dynamic (the
/// evaluator refuses to run them) and otherwise the inferred ones.
pub(crate) fn apply(
    op: &Op,
    operands: &[&Shape],
    declared: Option<&Shape>,
    mut inferred: Shape,
) -> Result<Shape> {
    if passes_through(op)
        || matches!(
            op,
            Op::SetDimensionSize { .. } | Op::GetDimensionSize { .. }
        )
    {
        return Ok(inferred);
    }
    let any_dynamic = operands.iter().any(|s| s.is_dynamic());
    if !has_rule(op) {
        if any_dynamic
            && let Some(d) = declared
            && d.compatible(&inferred)
        {
            copy_dynamism(d, &mut inferred);
        }
        return Ok(inferred);
    }
    let arrays: Option<Vec<&ArrayShape>> = operands.iter().map(|s| s.as_array().ok()).collect();
    let Some(arrays) = arrays else {
        return Ok(inferred);
    };
    let sizes: Vec<DimSizes> = arrays.iter().map(|a| bound_sizes(a)).collect();
    let mut leaves: Vec<&mut ArrayShape> = Vec::new();
    collect_leaves(&mut inferred, &mut leaves);
    let hint = match declared {
        Some(Shape::Array(d)) => d.dynamic,
        _ => DynamicDims::STATIC,
    };
    for leaf in leaves {
        if !any_dynamic {
            leaf.dynamic = DynamicDims::STATIC;
            continue;
        }
        match propagate(op, &sizes, &arrays, &leaf.dims, hint) {
            Some(Ok(s)) => leaf.dynamic = mask_of(&s),
            Some(Err(e)) => return Err(e),
            None => {
                return Err(IrError::shape(format!(
                    "dynamic dimension not supported by {} in this form yet",
                    op.opcode()
                )));
            }
        }
    }
    Ok(inferred)
}

fn collect_leaves<'a>(s: &'a mut Shape, out: &mut Vec<&'a mut ArrayShape>) {
    match s {
        Shape::Array(a) => out.push(a),
        Shape::Tuple(t) => t.iter_mut().for_each(|x| collect_leaves(x, out)),
    }
}

/// Copies `from`'s dynamic masks onto the compatible shape `to`.
fn copy_dynamism(from: &Shape, to: &mut Shape) {
    match (from, to) {
        (Shape::Array(a), Shape::Array(b)) => b.dynamic = a.dynamic,
        (Shape::Tuple(a), Shape::Tuple(b)) => a
            .iter()
            .zip(b.iter_mut())
            .for_each(|(x, y)| copy_dynamism(x, y)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reshape_keeps_only_unsplit_dims() {
        assert_eq!(reshape_dim(&[4, 3], &[4, 3, 1], 0), Some(0));
        assert_eq!(reshape_dim(&[1, 4], &[4], 1), Some(0));
        assert_eq!(reshape_dim(&[2, 4, 3], &[2, 1, 4, 3], 1), Some(2));
        assert_eq!(reshape_dim(&[4, 3], &[12], 0), None);
        assert_eq!(reshape_dim(&[4, 3], &[2, 2, 3], 0), None);
        assert_eq!(reshape_dim(&[0, 4], &[0, 2, 2], 1), None);
        assert_eq!(reshape_dims(&[1, 4], &[1, 1, 4], 0), vec![0, 1]);
    }

    #[test]
    fn reshape_merges_a_dynamic_dim_with_static_minor_dims() {
        let st = [false, false, false];
        assert_eq!(reshape_merge(&[4, 3], &[12], &st, 0), Some((0, 3)));
        assert_eq!(reshape_merge(&[2, 4, 3], &[2, 12], &st, 1), Some((1, 3)));
        assert_eq!(reshape_merge(&[4, 3, 2], &[24], &st, 0), Some((0, 6)));
        assert_eq!(reshape_merge(&[4, 3, 2], &[12, 2], &st, 0), Some((0, 3)));
        // The minor dim is dynamic too, or the dim is not the major one.
        assert_eq!(reshape_merge(&[4, 3], &[12], &[false, true], 0), None);
        assert_eq!(reshape_merge(&[3, 4], &[12], &st, 1), None);
        // A split is not a merge.
        assert_eq!(reshape_merge(&[12], &[4, 3], &st, 0), None);
    }

    fn run(
        op: &Op,
        sizes: &[DimSizes],
        bounds: &[&[i64]],
        result: &[i64],
    ) -> Option<Result<DimSizes>> {
        let shapes: Vec<ArrayShape> = bounds
            .iter()
            .map(|b| ArrayShape::new(crate::ElementType::F32, b.to_vec()).unwrap())
            .collect();
        let refs: Vec<&ArrayShape> = shapes.iter().collect();
        propagate(op, sizes, &refs, result, DynamicDims::STATIC)
    }

    #[test]
    fn pad_size_counts_edges_and_interior_of_the_valid_prefix() {
        let pad = |low, high, interior| Op::Pad {
            config: vec![crate::ops::PadDim {
                low,
                high,
                interior,
            }],
        };
        let p = |op: &Op, n| {
            run(op, &[vec![Some(n)], vec![]], &[&[4], &[]], &[10])
                .unwrap()
                .unwrap()
        };
        assert_eq!(p(&pad(1, 2, 1), 2), vec![Some(6)]);
        assert_eq!(p(&pad(1, 2, 1), 0), vec![Some(3)]);
        assert_eq!(p(&pad(-1, 0, 0), 0), vec![Some(0)]);
        assert_eq!(p(&pad(-1, 0, 0), 3), vec![Some(2)]);
    }

    #[test]
    fn dynamic_slice_keeps_whole_and_partial_slices_dynamic() {
        let ds = |s: i64| Op::DynamicSlice { sizes: vec![s] };
        let r = |s, n| run(&ds(s), &[vec![Some(n)], vec![]], &[&[5], &[]], &[s]);
        assert_eq!(r(5, 3).unwrap().unwrap(), vec![Some(3)]);
        assert_eq!(r(3, 2).unwrap().unwrap(), vec![Some(2)]);
        assert_eq!(r(3, 4).unwrap().unwrap(), vec![Some(3)]);
        assert_eq!(r(1, 2).unwrap().unwrap(), vec![None]);
        assert!(r(1, 0).unwrap().is_err());
    }

    #[test]
    fn windows_count_the_valid_input() {
        let mut w = crate::ops::WindowDim::new(5);
        w.pad_low = 4;
        let op = Op::ReduceWindow {
            window: crate::ops::Window { dims: vec![w] },
            to_apply: crate::ops::CompId(0),
        };
        let r = |n| run(&op, &[vec![Some(n)], vec![]], &[&[5], &[]], &[5]);
        assert_eq!(r(3).unwrap().unwrap(), vec![Some(3)]);
        assert_eq!(r(0).unwrap().unwrap(), vec![Some(0)]);
    }

    #[test]
    fn convolution_refuses_a_dynamic_kernel_window() {
        let op = Op::Convolution {
            window: crate::ops::Window {
                dims: vec![crate::ops::WindowDim::new(2)],
            },
            dims: crate::ops::ConvDims {
                input_batch: 0,
                input_feature: 1,
                input_spatial: vec![2],
                kernel_input_feature: 1,
                kernel_output_feature: 0,
                kernel_spatial: vec![2],
                output_batch: 0,
                output_feature: 1,
                output_spatial: vec![2],
            },
            feature_group_count: 1,
            batch_group_count: 1,
        };
        let lhs = vec![Some(1), None, Some(3)];
        let got = run(
            &op,
            &[lhs.clone(), vec![None; 3]],
            &[&[1, 1, 5], &[1, 1, 2]],
            &[1, 1, 4],
        );
        assert_eq!(got.unwrap().unwrap(), vec![Some(1), None, Some(2)]);
        let dyn_kernel = vec![None, None, Some(1)];
        assert!(
            run(
                &op,
                &[lhs, dyn_kernel],
                &[&[1, 1, 5], &[1, 1, 2]],
                &[1, 1, 4]
            )
            .is_none()
        );
    }
}
