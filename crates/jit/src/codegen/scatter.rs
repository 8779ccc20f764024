//! `scatter` and `select-and-scatter` as serial kernels with exactly the
//! evaluator's semantics (crates/eval/src/kernels/{scatter,
//! select_and_scatter}.rs):
//!
//! - scatter (variadic): every result leaf starts as a copy of its operand;
//!   then update scatter indices in row-major order, each window whose
//!   start would put part of it outside the operand skipped entirely (start
//!   indices never clamped), window elements in row-major order, the
//!   update computation inlined on (current results..., updates...);
//! - select-and-scatter: the result starts as `init`; source positions in
//!   row-major order; per window the first real element (padding and
//!   base-dilation holes skipped) is chosen, and each later element
//!   replaces the choice when `select(choice, element)` is false; then
//!   `result[choice] = scatter(result[choice], source)`.
//!
//! Both run on one thread (outer extent 1). Every load and store index is
//! checked or clamped into its buffer. No other ops here.

use super::emit::Emitter;
use super::jit::{Jit, KernelSpec};
use super::repr;
use super::scalar;
use super::whole::{for_each_index, out_leaves, with_kernel};
use crate::error::{JitError, Result};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I8, I64};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value};
use rxla_ir::{ArrayShape, CompId, InstrId, Module, Op, ScatterDims};

/// A value of a result buffer (read back while the kernel writes it).
fn load_out(em: &mut Emitter, base: Value, shape: &ArrayShape, idx: &[Value]) -> Result<Value> {
    let et = shape.element_type;
    let addr = em.address(base, shape, idx)?;
    let v = em.b.ins().load(
        repr::memory(et)?,
        MemFlagsData::new().with_notrap(),
        addr,
        0,
    );
    repr::from_memory(em, v, et)
}

/// Runs `body` only when the `i8` `cond` is true.
fn when(
    em: &mut Emitter,
    cond: Value,
    body: impl FnOnce(&mut Emitter) -> Result<()>,
) -> Result<()> {
    let then = em.b.create_block();
    let done = em.b.create_block();
    em.b.ins().brif(cond, then, &[], done, &[]);
    em.b.switch_to_block(then);
    em.b.seal_block(then);
    em.push_scope();
    let r = body(em);
    em.pop_scope();
    r?;
    em.b.ins().jump(done, &[]);
    em.b.switch_to_block(done);
    em.b.seal_block(done);
    Ok(())
}

/// Dimension numbers of a scatter resolved against the shapes (the
/// evaluator's, `rxla_ir::geometry::scatter_geometry`); `None` when they do
/// not fit (the evaluator then reports why).
type Plan = rxla_ir::geometry::ScatterGeometry;

fn plan(od: &[i64], id: &[i64], ud: &[i64], dims: &ScatterDims) -> Option<Plan> {
    rxla_ir::geometry::scatter_geometry(od, id, ud, dims).ok()
}

/// `scatter(operands..., indices, updates...)`.
pub fn scatter(jit: &mut Jit, module: &Module, spec: &KernelSpec) -> Result<(i64, usize, bool)> {
    let comp = module.comp(spec.comp);
    let root = comp.get(spec.root);
    let Op::Scatter { dims, to_apply, .. } = &root.op else {
        return Err(JitError::codegen("scatter kernel of another op"));
    };
    let leaves = out_leaves(&root.shape)?;
    let n = leaves.len();
    if root.operands.len() != 2 * n + 1 {
        return Err(JitError::unsupported("scatter operand count"));
    }
    let operands: Vec<InstrId> = root.operands[..n].to_vec();
    let indices = root.operands[n];
    let updates: Vec<InstrId> = root.operands[n + 1..].to_vec();
    let shape = |id: InstrId| -> Result<ArrayShape> {
        Ok(comp
            .get(id)
            .shape
            .as_array()
            .map_err(|_| JitError::unsupported("scatter of tuples"))?
            .clone())
    };
    let os = shape(operands[0])?;
    let is = shape(indices)?;
    let us = shape(updates[0])?;
    for k in 0..n {
        let (o, u) = (shape(operands[k])?, shape(updates[k])?);
        if o.dims != os.dims
            || u.dims != us.dims
            || leaves[k].dims != os.dims
            || leaves[k].element_type != o.element_type
            || u.element_type != o.element_type
        {
            return Err(JitError::unsupported("scatter shapes"));
        }
    }
    let plan = plan(&os.dims, &is.dims, &us.dims, dims)
        .ok_or_else(|| JitError::unsupported("scatter dimension numbers"))?;
    let elements = leaves
        .iter()
        .map(|l| l.element_count())
        .sum::<rxla_ir::Result<usize>>()?;
    let c = spec.comp;
    let reducer = *to_apply;
    with_kernel(jit, module, spec, n, |em, outs, _lo, _hi| {
        for &o in root.operands.iter() {
            bind_fusion_inputs(em, module, c, o)?;
        }
        // The result starts as a copy of the operands.
        for k in 0..n {
            if leaves[k].element_count()? == 0 {
                continue;
            }
            let leaf = leaves[k].clone();
            let base = outs[k];
            let o = operands[k];
            for_each_index(em, &leaf, None, &mut |em, idx| {
                let v = operand_value(em, module, c, o, idx)?;
                let a = em.address(base, &leaf, idx)?;
                em.store_elem(v, a, leaf.element_type)
            })?;
        }
        let scatter_sizes: Vec<i64> = plan
            .update_scatter_dims
            .iter()
            .map(|&d| us.dims[d])
            .collect();
        let window_sizes: Vec<i64> = plan
            .update_window_dims
            .iter()
            .map(|&d| us.dims[d])
            .collect();
        if scatter_sizes.contains(&0) || window_sizes.contains(&0) {
            return Ok(());
        }
        em.nest(&scatter_sizes, &mut Vec::new(), &mut |em, sidx| {
            let zero = em.iconst(0);
            let mut start = vec![zero; os.rank()];
            for (k, &d) in plan.to_operand.iter().enumerate() {
                let mut ii = vec![zero; is.rank()];
                for (j, &id) in plan.idx_dims.iter().enumerate() {
                    ii[id] = sidx[j];
                }
                if plan.ivd < is.rank() {
                    ii[plan.ivd] = em.iconst(k as i64);
                }
                let v = operand_value(em, module, c, indices, &ii)?;
                start[d] = index_i64(em, v, is.element_type)?;
            }
            for &(od, j) in &plan.batching {
                start[od] = sidx[j];
            }
            let mut ok = em.b.ins().iconst(I8, 1);
            for (d, &s) in start.iter().enumerate() {
                let ge = em.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, s, 0);
                let le = em.b.ins().icmp_imm_s(
                    IntCC::SignedLessThanOrEqual,
                    s,
                    os.dims[d] - plan.window_extent[d],
                );
                let both = em.b.ins().band(ge, le);
                ok = em.b.ins().band(ok, both);
            }
            when(em, ok, |em| {
                em.nest(&window_sizes, &mut Vec::new(), &mut |em, widx| {
                    let mut ui = vec![zero; us.rank()];
                    for (j, &d) in plan.update_scatter_dims.iter().enumerate() {
                        ui[d] = sidx[j];
                    }
                    let mut oi = start.clone();
                    for (w, &wi) in widx.iter().enumerate() {
                        ui[plan.update_window_dims[w]] = wi;
                        let d = plan.operand_window_dims[w];
                        let p = em.b.ins().iadd(start[d], wi);
                        oi[d] = p;
                    }
                    for (d, v) in oi.iter_mut().enumerate() {
                        *v = em.clamp_idx(*v, 0, os.dims[d] - 1);
                    }
                    let mut args = Vec::with_capacity(2 * n);
                    for k in 0..n {
                        args.push(load_out(em, outs[k], &leaves[k], &oi)?);
                    }
                    for &u in &updates {
                        args.push(operand_value(em, module, c, u, &ui)?);
                    }
                    let rs = em.inline_multi(reducer, &args)?;
                    if rs.len() != n {
                        return Err(JitError::unsupported("scatter computation arity"));
                    }
                    for (k, r) in rs.into_iter().enumerate() {
                        if em.b.func.dfg.value_type(r) != em.b.func.dfg.value_type(args[k]) {
                            return Err(JitError::unsupported("scatter computation type"));
                        }
                        let a = em.address(outs[k], &leaves[k], &oi)?;
                        em.store_elem(r, a, leaves[k].element_type)?;
                    }
                    Ok(())
                })
            })
        })
    })?;
    Ok((1, elements, false))
}

/// When operand `id` of the scatter is a fusion the planner did not
/// materialize (`scatter_inputs`): its fused computation's parameters read
/// the fusion's operands' buffers (kernel inputs).
fn bind_fusion_inputs(em: &mut Emitter, module: &Module, c: CompId, id: InstrId) -> Result<()> {
    let instr = module.comp(c).get(id);
    let Op::Fusion { calls, .. } = &instr.op else {
        return Ok(());
    };
    if em.inputs.contains_key(&(c, id)) {
        return Ok(());
    }
    let fc = module.comp(*calls);
    for p in fc.parameters() {
        let Op::Parameter { number } = fc.get(p).op else {
            return Err(JitError::codegen("fusion parameter"));
        };
        let src = usize::try_from(number)
            .ok()
            .and_then(|k| instr.operands.get(k))
            .ok_or_else(|| JitError::unsupported("fusion parameter number"))?;
        let bound = em
            .inputs
            .get(&(c, *src))
            .cloned()
            .ok_or_else(|| JitError::unsupported("fused scatter input not a kernel input"))?;
        em.inputs.insert((*calls, p), bound);
    }
    Ok(())
}

/// The value of scatter operand `id` at `idx`: its buffer, or computed
/// inline (a fusion through its fused computation, see
/// [`bind_fusion_inputs`]; a broadcast or iota by the emitter).
fn operand_value(
    em: &mut Emitter,
    module: &Module,
    c: CompId,
    id: InstrId,
    idx: &[Value],
) -> Result<Value> {
    if !em.inputs.contains_key(&(c, id))
        && let Op::Fusion { calls, .. } = &module.comp(c).get(id).op
    {
        let fc = module.comp(*calls);
        return em.emit(*calls, fc.root, idx, None);
    }
    em.emit(c, id, idx, None)
}

/// A scatter index as the evaluator reads it: signed types sign-extend,
/// unsigned zero-extend, u64 above i64::MAX saturates.
fn index_i64(em: &mut Emitter, v: Value, et: rxla_ir::ElementType) -> Result<Value> {
    let w = scalar::to_i64(em, v, et)?;
    if et == rxla_ir::ElementType::U64 {
        let neg = em.b.ins().icmp_imm_s(IntCC::SignedLessThan, w, 0);
        let max = em.iconst(i64::MAX);
        return Ok(em.b.ins().select(neg, max, w));
    }
    Ok(w)
}

/// `select-and-scatter(operand, source, init)`.
pub fn select_and_scatter(
    jit: &mut Jit,
    module: &Module,
    spec: &KernelSpec,
) -> Result<(i64, usize, bool)> {
    let comp = module.comp(spec.comp);
    let root = comp.get(spec.root);
    let Op::SelectAndScatter {
        window,
        select,
        scatter,
    } = &root.op
    else {
        return Err(JitError::codegen("select-and-scatter kernel of another op"));
    };
    let leaves = out_leaves(&root.shape)?;
    let [out] = leaves.as_slice() else {
        return Err(JitError::unsupported("select-and-scatter result"));
    };
    let out = out.clone();
    let [operand, source, init] = root.operands[..] else {
        return Err(JitError::unsupported("select-and-scatter operands"));
    };
    let c = spec.comp;
    let arr = |id: InstrId| -> Result<ArrayShape> {
        Ok(comp
            .get(id)
            .shape
            .as_array()
            .map_err(|_| JitError::unsupported("select-and-scatter of tuples"))?
            .clone())
    };
    let os = arr(operand)?;
    let ss = arr(source)?;
    if os.dims != out.dims
        || window.dims.len() != os.rank()
        || rxla_ir::geometry::window_output_dims(&os.dims, window) != ss.dims
        || ss.rank() != os.rank()
        || arr(init)?.element_type != out.element_type
        || ss.element_type != out.element_type
        || window
            .dims
            .iter()
            .any(|w| w.size < 0 || w.stride < 1 || w.window_dilation < 1 || w.base_dilation < 1)
    {
        return Err(JitError::unsupported("select-and-scatter shapes"));
    }
    let elements = out.element_count()?;
    let (select, scatter) = (*select, *scatter);
    let window = window.clone();
    with_kernel(jit, module, spec, 1, |em, outs, _lo, _hi| {
        let base = outs[0];
        if elements == 0 {
            return Ok(());
        }
        for_each_index(em, &out, None, &mut |em, idx| {
            let v = em.emit(c, init, &[], None)?;
            let a = em.address(base, &out, idx)?;
            em.store_elem(v, a, out.element_type)
        })?;
        let wsizes: Vec<i64> = window.dims.iter().map(|w| w.size).collect();
        if ss.dims.contains(&0) || wsizes.contains(&0) {
            return Ok(());
        }
        let vty = repr::storage(os.element_type)?;
        em.nest(&ss.dims, &mut Vec::new(), &mut |em, sidx| {
            // The chosen element: found?, its index, its value.
            let have = em.var(I8);
            let f = em.b.ins().iconst(I8, 0);
            em.b.def_var(have, f);
            let zero = em.iconst(0);
            let at: Vec<_> = (0..os.rank())
                .map(|_| {
                    let v = em.var(I64);
                    em.b.def_var(v, zero);
                    v
                })
                .collect();
            let val = em.var(vty);
            let z = scalar::zero(em, os.element_type)?;
            em.b.def_var(val, z);
            em.nest(&wsizes, &mut Vec::new(), &mut |em, ks| {
                let (valid, q) = em.window_position(&window, &os.dims, sidx, ks);
                let x = em.emit(c, operand, &q, None)?;
                let h = em.b.use_var(have);
                let cur = em.b.use_var(val);
                let keep = em.inline_multi(select, &[cur, x])?;
                let [keep] = keep[..] else {
                    return Err(JitError::unsupported("select computation arity"));
                };
                if em.b.func.dfg.value_type(keep) != I8 {
                    return Err(JitError::unsupported("select computation type"));
                }
                // take = valid && (!have || !keep)
                let kept = em.b.ins().band(h, keep);
                let one = em.b.ins().iconst(I8, 1);
                let not_kept = em.b.ins().bxor(kept, one);
                let take = em.b.ins().band(valid, not_kept);
                for (d, &v) in at.iter().enumerate() {
                    let old = em.b.use_var(v);
                    let new = em.b.ins().select(take, q[d], old);
                    em.b.def_var(v, new);
                }
                let nv = em.b.ins().select(take, x, cur);
                em.b.def_var(val, nv);
                let nh = em.b.ins().bor(h, valid);
                em.b.def_var(have, nh);
                Ok(())
            })?;
            let h = em.b.use_var(have);
            let at: Vec<Value> = at.iter().map(|&v| em.b.use_var(v)).collect();
            when(em, h, |em| {
                let cur = load_out(em, base, &out, &at)?;
                let s = em.emit(c, source, sidx, None)?;
                let r = em.inline_multi(scatter, &[cur, s])?;
                let [r] = r[..] else {
                    return Err(JitError::unsupported("scatter computation arity"));
                };
                if em.b.func.dfg.value_type(r) != em.b.func.dfg.value_type(cur) {
                    return Err(JitError::unsupported("scatter computation type"));
                }
                let a = em.address(base, &out, &at)?;
                em.store_elem(r, a, out.element_type)
            })
        })
    })?;
    Ok((1, elements, false))
}
