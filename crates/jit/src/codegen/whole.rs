//! Whole-op kernels that are not one array expression per output
//! element: variadic `reduce` and `reduce-window` (a tuple of results, one
//! output buffer per leaf): a scalar loop nest over the output in the
//! physical order of the first leaf, the accumulators of all operands
//! carried together through the inlined combiner, reduced or window
//! elements visited in row-major order exactly as the evaluator does (so
//! tie-breaking and NaN handling come from the combiner itself). Also the
//! helpers the other whole-op kernels (`scan.rs`, `scatter.rs`) share:
//! output leaves, the kernel function frame, index loops, accumulators.
//! Which kernel builder runs is `mod.rs`'s choice.
//!
//! Must not compute element semantics itself (those are `emit`'s and
//! `scalar`'s) nor write outside its output buffers.

use super::emit::Emitter;
use super::jit::{Jit, KernelSpec};
use super::repr;
use crate::error::{JitError, Result};
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value};
use cranelift_module::Module as _;
use rxla_ir::{ArrayShape, CompId, InstrId, Module, Op, Shape};

/// The array leaves of a result shape (no padded layouts: the kernels
/// address outputs with plain strides).
pub fn out_leaves(shape: &Shape) -> Result<Vec<ArrayShape>> {
    let leaves: Vec<ArrayShape> = shape.leaves().into_iter().cloned().collect();
    for l in &leaves {
        if l.layout.is_padded() {
            return Err(JitError::unsupported("padded output layout"));
        }
        repr::storage(l.element_type)?;
    }
    Ok(leaves)
}

/// Creates the kernel function `fn(inputs, outputs, lo, hi)`, binds the
/// spec's inputs, and runs `body` with the output base pointers (one per
/// leaf) and `lo`/`hi`; then finishes the function.
pub fn with_kernel(
    jit: &mut Jit,
    module: &Module,
    spec: &KernelSpec,
    n_outs: usize,
    body: impl FnOnce(&mut Emitter, &[Value], Value, Value) -> Result<()>,
) -> Result<()> {
    let frontend = jit.jm.isa().frontend_config();
    let (mut em, [ins, outs, lo, hi]) = jit.kernel_emitter(module);
    em.vec_reduce = false;
    let flags = MemFlagsData::trusted();
    for (k, (id, shape)) in spec.inputs.iter().enumerate() {
        let base = em.b.ins().load(I64, flags, ins, (8 * k) as i32);
        em.inputs.insert((spec.comp, *id), (base, shape.clone()));
    }
    let mut out_bases = Vec::with_capacity(n_outs);
    for k in 0..n_outs {
        out_bases.push(em.b.ins().load(I64, flags, outs, (8 * k) as i32));
    }
    body(&mut em, &out_bases, lo, hi)?;
    em.b.ins().return_(&[]);
    em.b.seal_all_blocks();
    em.b.finalize(frontend);
    Ok(())
}

/// Loops over every index of `dims` in the physical order of `layout_of`
/// (major to minor), the outermost bounded by `lo..hi` when given.
pub fn for_each_index(
    em: &mut Emitter,
    layout_of: &ArrayShape,
    bounds: Option<(Value, Value)>,
    body: &mut dyn FnMut(&mut Emitter, &[Value]) -> Result<()>,
) -> Result<()> {
    let rank = layout_of.rank();
    if rank == 0 {
        return body(em, &[]);
    }
    let order: Vec<usize> = layout_of
        .layout
        .minor_to_major
        .iter()
        .rev()
        .map(|&d| d as usize)
        .collect();
    let zero = em.iconst(0);
    let mut idx = vec![zero; rank];
    level(em, layout_of, &order, 0, bounds, &mut idx, body)
}

fn level(
    em: &mut Emitter,
    shape: &ArrayShape,
    order: &[usize],
    l: usize,
    bounds: Option<(Value, Value)>,
    idx: &mut Vec<Value>,
    body: &mut dyn FnMut(&mut Emitter, &[Value]) -> Result<()>,
) -> Result<()> {
    if l == order.len() {
        return body(em, idx);
    }
    let d = order[l];
    let (lo, hi) = match bounds {
        Some(b) if l == 0 => b,
        _ => (em.iconst(0), em.iconst(shape.dims[d])),
    };
    em.for_range(lo, hi, 1, |em, i| {
        idx[d] = i;
        level(em, shape, order, l + 1, bounds, idx, body)
    })
}

/// The operands (first half) and init values (second half) of a variadic
/// reduce or reduce-window.
fn split_operands(ops: &[InstrId]) -> Result<(&[InstrId], &[InstrId])> {
    if ops.is_empty() || !ops.len().is_multiple_of(2) {
        return Err(JitError::unsupported("reduce operand count"));
    }
    Ok(ops.split_at(ops.len() / 2))
}

/// Variadic reduce / reduce-window: one kernel writing every result leaf.
pub fn variadic(jit: &mut Jit, module: &Module, spec: &KernelSpec) -> Result<(i64, usize, bool)> {
    let comp = module.comp(spec.comp);
    let root = comp.get(spec.root);
    let leaves = out_leaves(&root.shape)?;
    let (operands, inits) = split_operands(&root.operands)?;
    if leaves.len() != operands.len() || leaves.iter().any(|l| l.dims != leaves[0].dims) {
        return Err(JitError::unsupported("variadic reduce result shape"));
    }
    let first = leaves[0].clone();
    let elements = first.element_count()?;
    let outer = if first.rank() == 0 {
        1
    } else {
        first.dims[first.layout.minor_to_major[first.rank() - 1] as usize]
    };
    let c = spec.comp;
    let op = root.op.clone();
    with_kernel(jit, module, spec, leaves.len(), |em, outs, lo, hi| {
        if elements == 0 {
            return Ok(());
        }
        let bounds = (first.rank() > 0).then_some((lo, hi));
        for_each_index(em, &first, bounds, &mut |em, idx| {
            let vals = match &op {
                Op::Reduce {
                    dimensions,
                    to_apply,
                } => {
                    let fold = Fold {
                        c,
                        operands,
                        inits,
                        reducer: *to_apply,
                    };
                    reduce_values(em, &fold, dimensions, idx)?
                }
                Op::ReduceWindow { window, to_apply } => {
                    let fold = Fold {
                        c,
                        operands,
                        inits,
                        reducer: *to_apply,
                    };
                    window_values(em, &fold, window, idx)?
                }
                _ => return Err(JitError::codegen("variadic kernel of another op")),
            };
            for ((v, leaf), &base) in vals.into_iter().zip(&leaves).zip(outs) {
                let a = em.address(base, leaf, idx)?;
                em.store_elem(v, a, leaf.element_type)?;
            }
            Ok(())
        })
    })?;
    Ok((outer, elements, false))
}

/// A variadic reduction's operands in computation `c`: the arrays, their
/// init values (same order) and the reducer.
struct Fold<'o> {
    c: CompId,
    operands: &'o [InstrId],
    inits: &'o [InstrId],
    reducer: CompId,
}

/// Accumulators of all operands, starting at the init values.
pub(super) fn accumulators(
    em: &mut Emitter,
    c: CompId,
    operands: &[InstrId],
    inits: &[InstrId],
) -> Result<Vec<cranelift_frontend::Variable>> {
    let mut accs = Vec::with_capacity(inits.len());
    for (&o, &i) in operands.iter().zip(inits) {
        let et = em.array_shape(c, i)?.element_type;
        if em.array_shape(c, o)?.element_type != et {
            return Err(JitError::unsupported("reduce init of another type"));
        }
        let v = em.emit(c, i, &[], None)?;
        let var = em.var(repr::storage(et)?);
        em.b.def_var(var, v);
        accs.push(var);
    }
    Ok(accs)
}

/// One combiner step: `accs = f(accs..., xs...)` (`valid`: only when that
/// `i8` is true).
pub(super) fn combine(
    em: &mut Emitter,
    reducer: CompId,
    accs: &[cranelift_frontend::Variable],
    xs: &[Value],
    valid: Option<Value>,
) -> Result<()> {
    let mut args: Vec<Value> = accs.iter().map(|&a| em.b.use_var(a)).collect();
    let old = args.clone();
    args.extend_from_slice(xs);
    let rs = em.inline_multi(reducer, &args)?;
    if rs.len() != accs.len() {
        return Err(JitError::unsupported("reducer result arity"));
    }
    for ((&acc, r), o) in accs.iter().zip(rs).zip(old) {
        if em.b.func.dfg.value_type(r) != em.b.func.dfg.value_type(o) {
            return Err(JitError::unsupported("reducer result type"));
        }
        let r = match valid {
            Some(v) => em.b.ins().select(v, r, o),
            None => r,
        };
        em.b.def_var(acc, r);
    }
    Ok(())
}

/// Variadic `reduce` at output index `idx`: the reduced dimensions in
/// row-major order (the evaluator's order).
fn reduce_values(em: &mut Emitter, fold: &Fold, dims: &[i64], idx: &[Value]) -> Result<Vec<Value>> {
    let Fold {
        c,
        operands,
        inits,
        reducer,
    } = *fold;
    let os = em.array_shape(c, operands[0])?;
    for &o in operands {
        if em.array_shape(c, o)?.dims != os.dims {
            return Err(JitError::unsupported("reduce operands of different dims"));
        }
    }
    let mut reduced: Vec<usize> = Vec::with_capacity(dims.len());
    for &d in dims {
        match usize::try_from(d) {
            Ok(d) if d < os.rank() && !reduced.contains(&d) => reduced.push(d),
            _ => return Err(JitError::unsupported("reduce dimensions")),
        }
    }
    reduced.sort_unstable();
    if idx.len() + reduced.len() != os.rank() {
        return Err(JitError::unsupported("reduce result rank"));
    }
    let zero = em.iconst(0);
    let mut base = vec![zero; os.rank()];
    let mut k = 0;
    for (d, b) in base.iter_mut().enumerate() {
        if !reduced.contains(&d) {
            *b = idx[k];
            k += 1;
        }
    }
    let accs = accumulators(em, c, operands, inits)?;
    let extents: Vec<i64> = reduced.iter().map(|&d| os.dims[d]).collect();
    if !extents.contains(&0) {
        em.nest(&extents, &mut Vec::new(), &mut |em, vars| {
            let mut oi = base.clone();
            for (&d, &v) in reduced.iter().zip(vars) {
                oi[d] = v;
            }
            let mut xs = Vec::with_capacity(operands.len());
            for &o in operands {
                xs.push(em.emit(c, o, &oi, None)?);
            }
            combine(em, reducer, &accs, &xs, None)
        })?;
    }
    Ok(accs.iter().map(|&a| em.b.use_var(a)).collect())
}

/// Variadic `reduce-window` at output index `idx`: window elements in
/// row-major order, those on padding or base-dilation holes skipped.
fn window_values(
    em: &mut Emitter,
    fold: &Fold,
    window: &rxla_ir::Window,
    idx: &[Value],
) -> Result<Vec<Value>> {
    let Fold {
        c,
        operands,
        inits,
        reducer,
    } = *fold;
    let os = em.array_shape(c, operands[0])?;
    for &o in operands {
        if em.array_shape(c, o)?.dims != os.dims {
            return Err(JitError::unsupported(
                "reduce-window operands of different dims",
            ));
        }
    }
    if window.dims.len() != os.rank() || idx.len() != os.rank() {
        return Err(JitError::unsupported("reduce-window rank"));
    }
    let accs = accumulators(em, c, operands, inits)?;
    let extents: Vec<i64> = window.dims.iter().map(|w| w.size).collect();
    if !os.dims.contains(&0) && !extents.contains(&0) {
        em.nest(&extents, &mut Vec::new(), &mut |em, ks| {
            let (valid, oi) = em.window_position(window, &os.dims, idx, ks);
            let mut xs = Vec::with_capacity(operands.len());
            for &o in operands {
                xs.push(em.emit(c, o, &oi, None)?);
            }
            combine(em, reducer, &accs, &xs, Some(valid))
        })?;
    }
    Ok(accs.iter().map(|&a| em.b.use_var(a)).collect())
}
