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
use super::emit::Sym;
use super::jit::{Jit, KernelSpec};
use super::repr;
use super::scalar;
use super::whole::{for_each_index, out_leaves, with_kernel};
use crate::error::{JitError, Result};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32X4, I8, I64};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value};
use rxla_ir::index::physical_strides;
use rxla_ir::{ArrayShape, BinaryOp, CompId, ElementType, InstrId, Module, Op, ScatterDims};

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

/// `scatter(operands..., indices, updates...)`; with `vector`, f32 windows
/// run four elements at a time along their unit-stride dimension (each
/// element still receives its updates in scatter-index order: lanes are
/// distinct elements).
pub fn scatter(
    jit: &mut Jit,
    module: &Module,
    spec: &KernelSpec,
    vector: bool,
) -> Result<(i64, usize, bool)> {
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
    let f32_lanes = vector && n == 1 && os.element_type == ElementType::F32;
    // The window dimension run in lanes: its operand dimension has unit
    // stride in the result, at least 4 long.
    let lane_w = f32_lanes
        .then(|| {
            let pst = physical_strides(&leaves[0]);
            (0..window_sizes.len())
                .find(|&w| window_sizes[w] >= 4 && pst[plan.operand_window_dims[w]] == 1)
        })
        .flatten();
    let mut vectorized = false;
    with_kernel(jit, module, spec, n, |em, outs, _lo, _hi| {
        for &o in root.operands.iter() {
            bind_fusion_inputs(em, module, c, o)?;
        }
        // The result starts as a copy of the operands.
        for k in 0..n {
            if leaves[k].element_count()? == 0 {
                continue;
            }
            vectorized |= copy_operand(em, module, c, operands[k], &leaves[k], outs[k], f32_lanes)?;
        }
        if scatter_sizes.contains(&0) || window_sizes.contains(&0) {
            return Ok(());
        }
        let single = window_sizes.iter().all(|&w| w == 1);
        // Where a skipped single-element update goes instead (branch-free:
        // random out-of-bounds indices would mispredict a branch).
        let scratch: Vec<Value> = if single {
            leaves
                .iter()
                .map(|l| {
                    let bytes = repr::memory(l.element_type)?.bytes().max(8);
                    let slot = em.b.create_sized_stack_slot(StackSlotData::new(
                        StackSlotKind::ExplicitSlot,
                        bytes,
                        4,
                    ));
                    Ok(em.b.ins().stack_addr(I64, slot, 0))
                })
                .collect::<Result<_>>()?
        } else {
            Vec::new()
        };
        if single
            && vector
            && let Some(lanes) = index_lanes(&plan, &os, &is, &scatter_sizes)
        {
            // Four scatter indices computed at once in integer lanes, then
            // applied one at a time in order.
            let full = scatter_sizes[0] / 4 * 4;
            let (lo, mid, hi) = (em.iconst(0), em.iconst(full), em.iconst(scatter_sizes[0]));
            let sym = Sym::Dims(lanes.coef.clone());
            let slot = em.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                16,
                4,
            ));
            let lane_slot = em.b.ins().stack_addr(I64, slot, 0);
            em.for_range(lo, mid, 4, |em, i| {
                let zero = em.iconst(0);
                let mut ii = vec![zero; is.rank()];
                ii[plan.idx_dims[0]] = i;
                let v = vector_operand(em, module, c, indices, &ii, &sym)?;
                // Through memory: a sign- or zero-extending load per lane
                // is one instruction (an extract and extend are three).
                let flags = MemFlagsData::new().with_notrap();
                em.b.ins().store(flags, v, lane_slot, 0);
                for l in 0..4u8 {
                    let off = 4 * i32::from(l);
                    let s = if is.element_type == ElementType::S32 {
                        em.b.ins().sload32(flags, lane_slot, off)
                    } else {
                        em.b.ins().uload32(flags, lane_slot, off)
                    };
                    let j = if l == 0 {
                        i
                    } else {
                        em.b.ins().iadd_imm_s(i, i64::from(l))
                    };
                    let mut start = vec![zero; os.rank()];
                    start[plan.to_operand[0]] = s;
                    single_update(
                        em, module, c, reducer, &leaves, &updates, outs, &scratch, &os, &plan,
                        &start, j, &us,
                    )?;
                }
                Ok(())
            })?;
            if full < scatter_sizes[0] {
                em.for_range(mid, hi, 1, |em, j| {
                    let zero = em.iconst(0);
                    let mut ii = vec![zero; is.rank()];
                    ii[plan.idx_dims[0]] = j;
                    if plan.ivd < is.rank() {
                        ii[plan.ivd] = zero;
                    }
                    let v = operand_value(em, module, c, indices, &ii)?;
                    let s = index_i64(em, v, is.element_type)?;
                    let mut start = vec![zero; os.rank()];
                    start[plan.to_operand[0]] = s;
                    single_update(
                        em, module, c, reducer, &leaves, &updates, outs, &scratch, &os, &plan,
                        &start, j, &us,
                    )
                })?;
            }
            vectorized = true;
            return Ok(());
        }
        rotated_nest(em, &scatter_sizes, &mut Vec::new(), &mut |em, sidx| {
            let zero = em.iconst(0);
            let mut start = vec![zero; os.rank()];
            let mut computed = vec![false; os.rank()];
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
                computed[d] = true;
            }
            for &(od, j) in &plan.batching {
                start[od] = sidx[j];
                computed[od] = true;
            }
            // In bounds: 0 <= start[d] <= dims[d] - window extent, as one
            // unsigned compare (a negative start is a huge unsigned one).
            let mut ok: Option<Value> = None;
            for d in 0..os.rank() {
                let max = os.dims[d] - plan.window_extent[d];
                if max >= 0 && (!computed[d] || super::ranges::within(em, start[d], 0, max)) {
                    continue;
                }
                let in_d = if max < 0 {
                    em.b.ins().iconst(I8, 0)
                } else {
                    em.b.ins()
                        .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, start[d], max)
                };
                ok = Some(match ok {
                    Some(o) => em.b.ins().band(o, in_d),
                    None => in_d,
                });
            }
            let mut ui = vec![zero; us.rank()];
            for (j, &d) in plan.update_scatter_dims.iter().enumerate() {
                ui[d] = sidx[j];
            }
            if single {
                let mut addrs = Vec::with_capacity(n);
                for k in 0..n {
                    let a = em.address(outs[k], &leaves[k], &start)?;
                    addrs.push(match ok {
                        Some(ok) => em.b.ins().select(ok, a, scratch[k]),
                        None => a,
                    });
                }
                return combine(em, module, c, reducer, &leaves, &updates, &addrs, &ui, None);
            }
            let body = |em: &mut Emitter| {
                // The rows' address prefixes once per window, not per
                // element (`Emitter::address` caches them per scope).
                for k in 0..n {
                    em.address(outs[k], &leaves[k], &start)?;
                }
                for &u in &updates {
                    if let Some((base, shape)) = em.inputs.get(&(c, u)).cloned() {
                        em.address(base, &shape, &ui)?;
                    }
                }
                window_loop(em, &window_sizes, lane_w, &mut |em, widx, lanes| {
                    let mut ui = ui.clone();
                    let mut oi = start.clone();
                    for (w, &wi) in widx.iter().enumerate() {
                        ui[plan.update_window_dims[w]] = wi;
                        let d = plan.operand_window_dims[w];
                        oi[d] = match em.known_int(start[d]) {
                            Some(0) => wi,
                            _ => em.b.ins().iadd(start[d], wi),
                        };
                    }
                    let addrs = (0..n)
                        .map(|k| em.address(outs[k], &leaves[k], &oi))
                        .collect::<Result<Vec<_>>>()?;
                    let sym = lanes.map(|w| {
                        let mut coef = vec![0; us.rank()];
                        coef[plan.update_window_dims[w]] = 1;
                        Sym::Dims(coef)
                    });
                    combine(
                        em,
                        module,
                        c,
                        reducer,
                        &leaves,
                        &updates,
                        &addrs,
                        &ui,
                        sym.as_ref(),
                    )
                })
            };
            match ok {
                Some(ok) => when(em, ok, body),
                None => body(em),
            }
        })?;
        vectorized |= lane_w.is_some();
        Ok(())
    })?;
    Ok((1, elements, vectorized))
}

/// Where the scatter indices can be computed four at a time: one scatter
/// dimension, a one-element s32/u32 index vector, no batching dims; the
/// lane coefficients step the indices' scatter dimension.
struct IndexLanes {
    coef: Vec<i64>,
}

fn index_lanes(
    plan: &Plan,
    os: &ArrayShape,
    is: &ArrayShape,
    scatter_sizes: &[i64],
) -> Option<IndexLanes> {
    let ok = scatter_sizes.len() == 1
        && os.dims.iter().all(|&d| d >= 1)
        && scatter_sizes[0] >= 8
        && plan.to_operand.len() == 1
        && plan.batching.is_empty()
        && plan.idx_dims.len() == 1
        && super::ivector::is_word_lane(is.element_type);
    ok.then(|| {
        let mut coef = vec![0; is.rank()];
        coef[plan.idx_dims[0]] = 1;
        IndexLanes { coef }
    })
}

/// One single-element update at operand position `start` (only the index
/// dimension computed) from update scatter position `j`: skipped (written
/// to `scratch`) when out of bounds.
#[allow(clippy::too_many_arguments)]
fn single_update(
    em: &mut Emitter,
    module: &Module,
    c: CompId,
    reducer: CompId,
    leaves: &[ArrayShape],
    updates: &[InstrId],
    outs: &[Value],
    scratch: &[Value],
    os: &ArrayShape,
    plan: &Plan,
    start: &[Value],
    j: Value,
    us: &ArrayShape,
) -> Result<()> {
    let d = plan.to_operand[0];
    let max = os.dims[d] - plan.window_extent[d];
    let ok = if max < 0 {
        Some(em.b.ins().iconst(I8, 0))
    } else if super::ranges::within(em, start[d], 0, max) {
        None
    } else {
        Some(
            em.b.ins()
                .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, start[d], max),
        )
    };
    let zero = em.iconst(0);
    let mut ui = vec![zero; us.rank()];
    ui[plan.update_scatter_dims[0]] = j;
    let mut addrs = Vec::with_capacity(leaves.len());
    for k in 0..leaves.len() {
        let a = em.address(outs[k], &leaves[k], start)?;
        addrs.push(match ok {
            Some(ok) => em.b.ins().select(ok, a, scratch[k]),
            None => a,
        });
    }
    combine(em, module, c, reducer, leaves, updates, &addrs, &ui, None)
}

/// `result[addr] = reducer(result[addr], updates[ui])` for every leaf
/// (F32X4 lanes along `lanes` for one f32 leaf).
#[allow(clippy::too_many_arguments)]
fn combine(
    em: &mut Emitter,
    module: &Module,
    c: CompId,
    reducer: CompId,
    leaves: &[ArrayShape],
    updates: &[InstrId],
    addrs: &[Value],
    ui: &[Value],
    lanes: Option<&Sym>,
) -> Result<()> {
    let n = leaves.len();
    let flags = MemFlagsData::new().with_notrap();
    let mut args = Vec::with_capacity(2 * n);
    for k in 0..n {
        args.push(match lanes {
            Some(_) => em.b.ins().load(F32X4, flags, addrs[k], 0),
            None => load_at(em, addrs[k], leaves[k].element_type)?,
        });
    }
    for &u in updates {
        args.push(match lanes {
            Some(sym) => em.emit(c, u, ui, Some(sym))?,
            None => operand_value(em, module, c, u, ui)?,
        });
    }
    if lanes.is_none()
        && n == 1
        && let Some(max) = float_min_max(module, reducer)
    {
        let et = leaves[0].element_type;
        return combine_min_max(em, reducer, max, args[0], args[1], addrs[0], et);
    }
    let rs = match lanes {
        Some(_) => vec![em.inline(reducer, &args, true)?],
        None => em.inline_multi(reducer, &args)?,
    };
    if rs.len() != n {
        return Err(JitError::unsupported("scatter computation arity"));
    }
    for (k, r) in rs.into_iter().enumerate() {
        if em.b.func.dfg.value_type(r) != em.b.func.dfg.value_type(args[k]) {
            return Err(JitError::unsupported("scatter computation type"));
        }
        match lanes {
            Some(_) => {
                em.b.ins().store(flags, r, addrs[k], 0);
            }
            None => em.store_elem(r, addrs[k], leaves[k].element_type)?,
        }
    }
    Ok(())
}

/// `Some(is_max)` when `reducer` is `maximum`/`minimum` of its two float
/// parameters (either order).
fn float_min_max(module: &Module, reducer: CompId) -> Option<bool> {
    let cc = module.comp(reducer);
    let root = cc.root_instruction();
    let mut ops = root.operands.clone();
    ops.sort();
    if ops != cc.parameters() || !root.shape.element_type().is_some_and(|t| t.is_float()) {
        return None;
    }
    match root.op {
        Op::Binary(BinaryOp::Maximum) => Some(true),
        Op::Binary(BinaryOp::Minimum) => Some(false),
        _ => None,
    }
}

/// `result[addr] = min/max(current, update)` by one ordered compare: an
/// element that already beats the update stays as it is (no store, one
/// predictable branch: in a segment max/min most updates lose); the rest
/// (the update wins, ties, NaN) runs the reducer itself on a cold path,
/// so the sign of zero and NaN payloads are exactly the evaluator's.
fn combine_min_max(
    em: &mut Emitter,
    reducer: CompId,
    max: bool,
    cur: Value,
    upd: Value,
    addr: Value,
    et: ElementType,
) -> Result<()> {
    let beats = if max {
        FloatCC::GreaterThan
    } else {
        FloatCC::LessThan
    };
    let other = em.b.create_block();
    let done = em.b.create_block();
    em.b.set_cold_block(other);
    let keep = em.b.ins().fcmp(beats, cur, upd);
    em.b.ins().brif(keep, done, &[], other, &[]);
    em.b.switch_to_block(other);
    em.b.seal_block(other);
    em.push_scope();
    let r = em.inline(reducer, &[cur, upd], false)?;
    em.store_elem(r, addr, et)?;
    em.pop_scope();
    em.b.ins().jump(done, &[]);
    em.b.switch_to_block(done);
    em.b.seal_block(done);
    Ok(())
}

/// A value of a result buffer at a byte address.
fn load_at(em: &mut Emitter, addr: Value, et: ElementType) -> Result<Value> {
    let v = em.b.ins().load(
        repr::memory(et)?,
        MemFlagsData::new().with_notrap(),
        addr,
        0,
    );
    repr::from_memory(em, v, et)
}

/// A window element's update: window index, lane dimension.
type WindowBody<'a> = dyn FnMut(&mut Emitter, &[Value], Option<usize>) -> Result<()> + 'a;

/// The window of one scatter index: nested loops over `sizes`, window
/// dimension `lane_w` (when given) innermost and four at a time, its tail
/// one at a time; the body gets the window index and the lane dimension
/// (`None` for scalar steps).
fn window_loop(
    em: &mut Emitter,
    sizes: &[i64],
    lane_w: Option<usize>,
    body: &mut WindowBody,
) -> Result<()> {
    let Some(w) = lane_w else {
        return em.nest(sizes, &mut Vec::new(), &mut |em, widx| body(em, widx, None));
    };
    let outer: Vec<usize> = (0..sizes.len()).filter(|&k| k != w).collect();
    let outer_sizes: Vec<i64> = outer.iter().map(|&k| sizes[k]).collect();
    let full = sizes[w] / 4 * 4;
    em.nest(&outer_sizes, &mut Vec::new(), &mut |em, o| {
        let zero = em.iconst(0);
        let mut widx = vec![zero; sizes.len()];
        for (&k, &v) in outer.iter().zip(o) {
            widx[k] = v;
        }
        let lo = em.iconst(0);
        let mid = em.iconst(full);
        let hi = em.iconst(sizes[w]);
        em.for_range(lo, mid, 4, |em, j| {
            let mut widx = widx.clone();
            widx[w] = j;
            body(em, &widx, Some(w))
        })?;
        if full < sizes[w] {
            em.for_range(mid, hi, 1, |em, j| {
                let mut widx = widx.clone();
                widx[w] = j;
                body(em, &widx, None)
            })?;
        }
        Ok(())
    })
}

/// Copies scatter operand `o` into the result leaf at `base` (f32 rows
/// four at a time along the leaf's minor dimension when `lanes`); returns
/// whether it ran in lanes.
fn copy_operand(
    em: &mut Emitter,
    module: &Module,
    c: CompId,
    o: InstrId,
    leaf: &ArrayShape,
    base: Value,
    lanes: bool,
) -> Result<bool> {
    let minor = leaf.layout.minor_to_major.first().map(|&d| d as usize);
    let minor = minor.filter(|&m| lanes && leaf.dims[m] >= 4);
    let Some(m) = minor else {
        for_each_index(em, leaf, None, &mut |em, idx| {
            let v = operand_value(em, module, c, o, idx)?;
            let a = em.address(base, leaf, idx)?;
            em.store_elem(v, a, leaf.element_type)
        })?;
        return Ok(false);
    };
    let outer: Vec<usize> = leaf
        .layout
        .minor_to_major
        .iter()
        .rev()
        .map(|&d| d as usize)
        .filter(|&d| d != m)
        .collect();
    let outer_sizes: Vec<i64> = outer.iter().map(|&d| leaf.dims[d]).collect();
    let full = leaf.dims[m] / 4 * 4;
    let mut coef = vec![0; leaf.rank()];
    coef[m] = 1;
    let sym = Sym::Dims(coef);
    em.nest(&outer_sizes, &mut Vec::new(), &mut |em, ov| {
        let zero = em.iconst(0);
        let mut idx = vec![zero; leaf.rank()];
        for (&d, &v) in outer.iter().zip(ov) {
            idx[d] = v;
        }
        let lo = em.iconst(0);
        let mid = em.iconst(full);
        let hi = em.iconst(leaf.dims[m]);
        em.for_range(lo, mid, 4, |em, j| {
            let mut idx = idx.clone();
            idx[m] = j;
            let v = vector_operand(em, module, c, o, &idx, &sym)?;
            let a = em.address(base, leaf, &idx)?;
            em.b.ins().store(MemFlagsData::new().with_notrap(), v, a, 0);
            Ok(())
        })?;
        em.for_range(mid, hi, 1, |em, j| {
            let mut idx = idx.clone();
            idx[m] = j;
            let v = operand_value(em, module, c, o, &idx)?;
            let a = em.address(base, leaf, &idx)?;
            em.store_elem(v, a, leaf.element_type)
        })
    })?;
    Ok(true)
}

/// [`operand_value`] in F32X4 lanes.
fn vector_operand(
    em: &mut Emitter,
    module: &Module,
    c: CompId,
    id: InstrId,
    idx: &[Value],
    sym: &Sym,
) -> Result<Value> {
    if !em.inputs.contains_key(&(c, id))
        && let Op::Fusion { calls, .. } = &module.comp(c).get(id).op
    {
        let fc = module.comp(*calls);
        return em.emit(*calls, fc.root, idx, Some(sym));
    }
    em.emit(c, id, idx, Some(sym))
}

/// Nested loops `0..extents[k]` (every extent at least 1) tested at the
/// bottom: one compare and branch per iteration.
fn rotated_nest(
    em: &mut Emitter,
    extents: &[i64],
    vars: &mut Vec<Value>,
    body: &mut dyn FnMut(&mut Emitter, &[Value]) -> Result<()>,
) -> Result<()> {
    if vars.len() == extents.len() {
        return body(em, vars);
    }
    let n = extents[vars.len()];
    let looped = em.b.create_block();
    let exit = em.b.create_block();
    em.b.append_block_param(looped, I64);
    let zero = em.iconst(0);
    em.b.ins().jump(looped, &[zero.into()]);
    em.b.switch_to_block(looped);
    let i = em.b.block_params(looped)[0];
    em.counters.insert(i, (0, n - 1));
    em.push_scope();
    vars.push(i);
    let r = rotated_nest(em, extents, vars, body);
    vars.pop();
    em.pop_scope();
    r?;
    let next = em.b.ins().iadd_imm_s(i, 1);
    let more = em.b.ins().icmp_imm_s(IntCC::SignedLessThan, next, n);
    em.b.ins().brif(more, looped, &[next.into()], exit, &[]);
    em.b.seal_block(looped);
    em.b.switch_to_block(exit);
    em.b.seal_block(exit);
    Ok(())
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
