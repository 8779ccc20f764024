//! Variadic `reduce` that keeps the operands' contiguous (minor)
//! dimension — `argmax`/`argmin` over an outer or middle axis, a max with
//! its index — as a kernel that walks the operands once in memory order:
//! the output leaves are the accumulators, set to the init values first,
//! then every operand element is folded into the accumulators of its
//! output element through the inlined reducer. Per output element the
//! elements still come in row-major order of the reduced indices, each
//! `reducer(acc..., x...)` call the evaluator's, so results (ties, NaNs)
//! are the evaluator's bit for bit; only the interleaving of different
//! output elements changes. The per-output walk of `whole.rs` strides
//! down a column (a cache line and often a TLB entry per element).
//!
//! Row-major operands and outputs only (`plan` of the kernel is
//! `mod.rs`'s `build`); must not compute element semantics itself (the
//! reducer is inlined through `whole::combine`) nor touch memory outside
//! its output buffers and the operands' elements.

use super::emit::Emitter;
use super::jit::{Jit, KernelSpec};
use super::repr;
use super::whole::{out_leaves, with_kernel};
use crate::error::{JitError, Result};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value};
use rxla_ir::{ArrayShape, InstrId, Module, Op, Shape};

/// Whether the variadic reduce at `spec`'s root runs here: row-major
/// operands and results, the minor dimension kept and another reduced.
pub fn applies(module: &Module, spec: &KernelSpec) -> bool {
    let comp = module.comp(spec.comp);
    let root = comp.get(spec.root);
    let Op::Reduce { dimensions, .. } = &root.op else {
        return false;
    };
    if !matches!(root.shape, Shape::Tuple(_)) || root.operands.len() < 4 {
        return false;
    }
    let n = root.operands.len() / 2;
    let plain = |a: &ArrayShape| a.layout.is_default() && !a.layout.is_padded() && !a.is_dynamic();
    let mut dims: Option<&[i64]> = None;
    for &o in &root.operands[..n] {
        let Ok(a) = comp.get(o).shape.as_array() else {
            return false;
        };
        let input_plain = spec
            .inputs
            .iter()
            .find(|(i, _)| *i == o)
            .is_none_or(|(_, s)| plain(s));
        if !plain(a) || !input_plain || dims.is_some_and(|d| d != a.dims.as_slice()) {
            return false;
        }
        dims = Some(&a.dims);
    }
    let Some(dims) = dims else {
        return false;
    };
    let rank = dims.len();
    let leaves_plain = root.shape.leaves().iter().all(|l| plain(l));
    rank >= 2
        && leaves_plain
        && !dimensions.contains(&(rank as i64 - 1))
        && !dimensions.is_empty()
        && dimensions
            .iter()
            .all(|&d| d >= 0 && (d as usize) < rank - 1)
}

/// The kernel: returns (outer extent, output elements, vectorized).
pub fn build(jit: &mut Jit, module: &Module, spec: &KernelSpec) -> Result<(i64, usize, bool)> {
    let comp = module.comp(spec.comp);
    let root = comp.get(spec.root);
    let Op::Reduce {
        dimensions,
        to_apply,
    } = &root.op
    else {
        return Err(JitError::codegen("column kernel of another op"));
    };
    let leaves = out_leaves(&root.shape)?;
    let n = root.operands.len() / 2;
    let (operands, inits): (&[InstrId], &[InstrId]) = root.operands.split_at(n);
    if leaves.len() != n {
        return Err(JitError::unsupported("variadic reduce result shape"));
    }
    let os = comp.get(operands[0]).shape.as_array()?.clone();
    let rank = os.rank();
    let reduced: Vec<bool> = (0..rank as i64).map(|d| dimensions.contains(&d)).collect();
    let kept: Vec<usize> = (0..rank).filter(|&d| !reduced[d]).collect();
    for l in &leaves {
        let want: Vec<i64> = kept.iter().map(|&d| os.dims[d]).collect();
        if l.dims != want {
            return Err(JitError::unsupported("variadic reduce result dims"));
        }
    }
    let elements = leaves[0].element_count()?;
    // The outermost dimension kept: threads split it, each initializing
    // the block of output it owns; else one call does everything.
    let split = !reduced[0];
    let outer = if split { os.dims[0] } else { 1 };
    let block: i64 = if split {
        kept[1..].iter().map(|&d| os.dims[d]).product()
    } else {
        elements as i64
    };
    let empty = os.dims.contains(&0);
    let (c, reducer) = (spec.comp, *to_apply);
    with_kernel(jit, module, spec, n, |em, outs, lo, hi| {
        if elements == 0 {
            return Ok(());
        }
        let mut inits_v = Vec::with_capacity(n);
        for (k, &i) in inits.iter().enumerate() {
            let et = em.array_shape(c, i)?.element_type;
            if et != leaves[k].element_type || em.array_shape(c, operands[k])?.element_type != et {
                return Err(JitError::unsupported("reduce init of another type"));
            }
            inits_v.push(em.emit(c, i, &[], None)?);
        }
        let fill = |em: &mut Emitter, first: Value| -> Result<()> {
            // Output elements first..first + block set to the inits.
            let zero = em.iconst(0);
            let end = em.iconst(block);
            em.for_range(zero, end, 1, |em, t| {
                let flat = em.b.ins().iadd(first, t);
                for (k, leaf) in leaves.iter().enumerate() {
                    let size = leaf.element_type.byte_size() as i64;
                    let off = em.b.ins().imul_imm_s(flat, size);
                    let a = em.b.ins().iadd(outs[k], off);
                    em.store_elem(inits_v[k], a, leaf.element_type)?;
                }
                Ok(())
            })
        };
        let fold = |em: &mut Emitter, idx: &[Value]| -> Result<()> {
            let out_idx: Vec<Value> = kept.iter().map(|&d| idx[d]).collect();
            let mut args = Vec::with_capacity(2 * n);
            let mut addrs = Vec::with_capacity(n);
            for (k, leaf) in leaves.iter().enumerate() {
                let a = em.address(outs[k], leaf, &out_idx)?;
                let ty = repr::memory(leaf.element_type)?;
                let v = em.b.ins().load(ty, MemFlagsData::new().with_notrap(), a, 0);
                args.push(repr::from_memory(em, v, leaf.element_type)?);
                addrs.push(a);
            }
            for &o in operands {
                args.push(em.emit(c, o, idx, None)?);
            }
            let rs = em.inline_multi(reducer, &args)?;
            if rs.len() != n {
                return Err(JitError::unsupported("reducer result arity"));
            }
            for (k, leaf) in leaves.iter().enumerate() {
                if em.b.func.dfg.value_type(rs[k]) != em.b.func.dfg.value_type(args[k]) {
                    return Err(JitError::unsupported("reducer result type"));
                }
                em.store_elem(rs[k], addrs[k], leaf.element_type)?;
            }
            Ok(())
        };
        if split {
            em.for_range(lo, hi, 1, |em, i0| {
                let first = em.b.ins().imul_imm_s(i0, block);
                fill(em, first)?;
                if empty {
                    return Ok(());
                }
                em.nest(&os.dims[1..], &mut Vec::new(), &mut |em, vars| {
                    let mut idx = Vec::with_capacity(rank);
                    idx.push(i0);
                    idx.extend_from_slice(vars);
                    fold(em, &idx)
                })
            })
        } else {
            // One iteration (outer extent 1), run only by a call given it.
            em.for_range(lo, hi, 1, |em, _| {
                let zero = em.iconst(0);
                fill(em, zero)?;
                if empty {
                    return Ok(());
                }
                em.nest(&os.dims, &mut Vec::new(), &mut |em, vars| fold(em, vars))
            })
        }
    })?;
    Ok((outer, elements, false))
}
