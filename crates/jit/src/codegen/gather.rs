//! `gather` at one output element (scalar): the start indices read from
//! the index operand and clamped into the operand, batching dims paired,
//! offset dims added — the evaluator's rules; every index stays in
//! bounds. In vector kernels (f32, s32, u32 results) each lane is such a
//! scalar gather at its own output index, so the ops around a gather stay
//! in lanes. Must not read outside the operand nor depend on another
//! lowering family.

use super::emit::{At, Emitter, Sym};
use super::scalar;
use crate::error::{JitError, Result};
use cranelift_codegen::ir::types::{F32X4, I32X4};
use cranelift_codegen::ir::{InstBuilder, Value};
use rxla_ir::{ElementType, GatherDims};

/// `gather` in vector lanes: lane `k` is the scalar gather at the output
/// index moved `k` steps along `sym` (every lane of a vector step is an
/// output position, so every lane's gather is in bounds as the scalar
/// one is).
pub fn gather_lanes(
    em: &mut Emitter,
    at: &At,
    dims: &GatherDims,
    slice_sizes: &[i64],
    sym: &Sym,
) -> Result<Value> {
    let ty = match at.shape.element_type {
        ElementType::F32 => F32X4,
        ElementType::S32 | ElementType::U32 => I32X4,
        _ => return Err(JitError::unsupported("vector gather of this type")),
    };
    let coef = sym.dims(at.shape.rank())?;
    // Lanes along offset dims only: one start for all lanes, and the lanes
    // move through the operand's window dims (never clamped there: a
    // valid output position is inside the slice).
    let offset = |d: usize| dims.offset_dims.contains(&(d as i64));
    if coef.iter().enumerate().all(|(d, &k)| k == 0 || offset(d)) {
        let (oi, moves) = operand_index(em, at, dims, slice_sizes)?;
        let rank = em.array_shape(at.c, at.instr.operands[0])?.rank();
        let mut op_coef = vec![0; rank];
        for (&k, m) in coef.iter().zip(&moves) {
            if let Some(w) = m {
                op_coef[*w] += k;
            }
        }
        return em.emit(at.c, at.instr.operands[0], &oi, Some(&Sym::Dims(op_coef)));
    }
    let mut v: Option<Value> = None;
    for k in 0..4u8 {
        let idx = at.lane_index(em, &coef, i64::from(k));
        let x = gather(em, &at.scalar_at(&idx), dims, slice_sizes)?;
        v = Some(match v {
            None => em.b.ins().scalar_to_vector(ty, x),
            Some(v) => em.b.ins().insertlane(v, x, k),
        });
    }
    v.ok_or_else(|| JitError::codegen("vector gather lanes"))
}

/// Before a row's loop whose lanes move along offset dims only: the
/// gather's clamped starts (cached for the loop body, see
/// `operand_index`) and the operand's row address prefix.
pub fn hoist_starts(em: &mut Emitter, at: &At, dims: &GatherDims, slice_sizes: &[i64], sym: &Sym) {
    let Ok(coef) = sym.dims(at.shape.rank()) else {
        return;
    };
    let offset = |d: usize| dims.offset_dims.contains(&(d as i64));
    if coef.iter().enumerate().any(|(d, &k)| k != 0 && !offset(d)) {
        return;
    }
    let _ = operand_index(em, at, dims, slice_sizes);
}

/// `gather` at an output index (the evaluator's rules: starts from the
/// index vector clamped into the operand, batching dims paired, offset
/// dims added; every index stays in bounds).
pub fn gather(em: &mut Emitter, at: &At, dims: &GatherDims, slice_sizes: &[i64]) -> Result<Value> {
    let (oi, _) = operand_index(em, at, dims, slice_sizes)?;
    em.emit(at.c, at.instr.operands[0], &oi, None)
}

/// The operand index read for the output index `at.idx`, and per output
/// dim the operand dim it moves (offset dims: their window dim).
fn operand_index(
    em: &mut Emitter,
    at: &At,
    dims: &GatherDims,
    slice_sizes: &[i64],
) -> Result<(Vec<Value>, Vec<Option<usize>>)> {
    let (c, out, idx) = (at.c, &at.shape, at.idx);
    let (operand, indices) = (at.instr.operands[0], at.instr.operands[1]);
    let os = em.array_shape(c, operand)?;
    let is = em.array_shape(c, indices)?;
    let bad = || JitError::unsupported("gather dimension numbers");
    let usz = |v: &[i64]| -> Vec<usize> { v.iter().map(|&d| d as usize).collect() };
    let (rank, irank) = (os.rank(), is.rank());
    let ivd = usize::try_from(dims.index_vector_dim).map_err(|_| bad())?;
    let collapsed = usz(&dims.collapsed_slice_dims);
    let op_batch = usz(&dims.operand_batching_dims);
    let idx_batch = usz(&dims.start_indices_batching_dims);
    let start_map = usz(&dims.start_index_map);
    let offset_dims = usz(&dims.offset_dims);
    let window: Vec<usize> = (0..rank)
        .filter(|d| !collapsed.contains(d) && !op_batch.contains(d))
        .collect();
    let batch_dims: Vec<usize> = (0..out.rank())
        .filter(|d| !offset_dims.contains(d))
        .collect();
    let idx_dims: Vec<usize> = (0..irank).filter(|&d| d != ivd).collect();
    if window.len() != offset_dims.len()
        || batch_dims.len() != idx_dims.len()
        || slice_sizes.len() != rank
        || op_batch.len() != idx_batch.len()
        || start_map
            .iter()
            .chain(&window)
            .chain(&op_batch)
            .any(|&d| d >= rank)
        || offset_dims.iter().any(|&d| d >= out.rank())
    {
        return Err(bad());
    }
    let zero = em.iconst(0);
    // The clamped starts depend on the batch dims' indices only: computed
    // once per such index in a scope (`hoist_starts` puts them before a
    // row's loop).
    let key = (c, at.id, batch_dims.iter().map(|&o| idx[o]).collect(), None);
    let cached = em
        .gather_starts
        .iter()
        .rev()
        .find_map(|m| m.get(&key).cloned());
    let mut start = match cached {
        Some(s) if s.len() == rank => s,
        _ => {
            let mut start = vec![zero; rank];
            for (k, &d) in start_map.iter().enumerate() {
                let mut ii = vec![zero; irank];
                for (j, &o) in batch_dims.iter().enumerate() {
                    ii[idx_dims[j]] = idx[o];
                }
                if ivd < irank {
                    ii[ivd] = em.iconst(k as i64);
                }
                let v = em.emit(c, indices, &ii, None)?;
                let v = scalar::to_i64(em, v, is.element_type)?;
                start[d] = em.clamp_start(v, is.element_type, os.dims[d] - slice_sizes[d]);
            }
            if let Some(top) = em.gather_starts.last_mut() {
                top.insert(key, start.clone());
            }
            start
        }
    };
    for (&ob, &ib) in op_batch.iter().zip(&idx_batch) {
        let j = idx_dims.iter().position(|&d| d == ib).ok_or_else(bad)?;
        start[ob] = idx[batch_dims[j]];
    }
    let mut oi = start.clone();
    for (i, &o) in offset_dims.iter().enumerate() {
        let wd = window[i];
        // A zero start (a dim the indices do not move) keeps the output's
        // index value itself, so a row's address prefix is found cached.
        let s = match em.known_int(start[wd]) {
            Some(0) => idx[o],
            _ => em.b.ins().iadd(start[wd], idx[o]),
        };
        // The start is clamped into [0, dim - slice] and an output index
        // of an offset dim is below its slice size, so the sum is inside
        // the operand; clamped again only where the sizes disagree.
        oi[wd] = if out.dims[o] <= slice_sizes[wd] && slice_sizes[wd] <= os.dims[wd] {
            s
        } else {
            em.clamp_idx(s, 0, os.dims[wd] - 1)
        };
    }
    if os.dims.contains(&0) {
        return Err(JitError::unsupported("gather from an empty operand"));
    }
    let mut moves = vec![None; out.rank()];
    for (i, &o) in offset_dims.iter().enumerate() {
        moves[o] = Some(window[i]);
    }
    Ok((oi, moves))
}
