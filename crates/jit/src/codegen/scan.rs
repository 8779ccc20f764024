//! Prefix reduce-windows as scans: a `reduce-window` whose window moves
//! along one dimension and whose every window starts at or before the
//! first element (JAX's `cumsum`/`cumprod`/`cummax` lower to this: window
//! = the whole axis, low padding = axis − 1) is computed in one pass per
//! line, O(n) instead of O(n·window).
//!
//! Exact for any reducer: window `i` covers elements `[0, end_i)` (padding
//! is skipped, as in the evaluator), so its value is window `i−1`'s
//! accumulator folded with the elements `end_{i−1}..end_i` in order —
//! the same combiner calls in the same order as the evaluator makes.
//!
//! Must not take a window that does not start at or before 0 for every
//! output (that would need a different fold order), nor dilated windows.

use super::emit::Emitter;
use super::jit::{Jit, KernelSpec};
use super::whole::{accumulators, combine, for_each_index, out_leaves, with_kernel};
use crate::error::{JitError, Result};
use cranelift_codegen::ir::InstBuilder;
use rxla_ir::{ArrayShape, CompId, InstrId, Module, Op};

/// Below this window size the ordinary window loop is as good.
const MIN_WINDOW: i64 = 8;

/// Lines scanned side by side when the scanned dimension is not the
/// contiguous one (64 f32 accumulators: one 256-byte stack block).
const TILE: i64 = 64;

/// The scanned dimension of a prefix reduce-window `root`, if it is one.
pub fn prefix_dim(module: &Module, comp: CompId, root: InstrId) -> Option<usize> {
    let c = module.comp(comp);
    let i = c.get(root);
    let Op::ReduceWindow { window, .. } = &i.op else {
        return None;
    };
    let n_ops = i.operands.len() / 2;
    let base = c.get(*i.operands.first()?).shape.as_array().ok()?;
    let out = i.shape.leaves().first().map(|l| l.dims.clone())?;
    window
        .prefix_dim(&base.dims, &out, MIN_WINDOW)
        .filter(|_| n_ops >= 1)
}

/// One scan: the reduce-window's operands and init values (same order) in
/// computation `c`, its reducer, the scanned dim `d` (`n` input and
/// `out_n` output elements), and the window geometry along it: window
/// `i` ends (exclusively) at `i·stride + reach`, clamped to `[0, n]`.
struct Scan<'s> {
    c: CompId,
    operands: &'s [InstrId],
    inits: &'s [InstrId],
    reducer: CompId,
    d: usize,
    n: i64,
    out_n: i64,
    stride: i64,
    reach: i64,
}

/// The scan kernel: lines over every dimension but the scanned one (in
/// the first result leaf's physical order, the outermost split over
/// threads), and along the line one running accumulator per operand.
pub fn scan(jit: &mut Jit, module: &Module, spec: &KernelSpec) -> Result<(i64, usize, bool)> {
    let comp = module.comp(spec.comp);
    let root = comp.get(spec.root);
    let Op::ReduceWindow { window, to_apply } = &root.op else {
        return Err(JitError::codegen("scan kernel of another op"));
    };
    let d = prefix_dim(module, spec.comp, spec.root)
        .ok_or_else(|| JitError::codegen("scan kernel of a non-prefix window"))?;
    let leaves = out_leaves(&root.shape)?;
    let half = root.operands.len() / 2;
    if root.operands.len() != 2 * half || leaves.len() != half {
        return Err(JitError::unsupported("reduce-window operand count"));
    }
    let (operands, inits) = root.operands.split_at(half);
    let first = leaves[0].clone();
    let n = comp
        .get(operands[0])
        .shape
        .as_array()
        .map_err(|_| JitError::unsupported("reduce-window of a tuple operand"))?;
    let n = n.dims[d];
    let out_n = first.dims[d];
    let w = window.dims[d].clone();
    // Window i ends (exclusively) at i·stride + (size − pad_low), clamped to [0, n].
    let reach = w.size - w.pad_low;
    let mut lines: ArrayShape = first.clone();
    lines.dims[d] = 1;
    let elements = first.element_count()?;
    let outer = if lines.rank() == 0 {
        1
    } else {
        lines.dims[lines.layout.minor_to_major[lines.rank() - 1] as usize]
    };
    let scan = Scan {
        c: spec.comp,
        operands,
        inits,
        reducer: *to_apply,
        d,
        n,
        out_n,
        stride: w.stride,
        reach,
    };
    // A scan along a dimension that is not the contiguous one walks its
    // lines TILE at a time side by side (TILE accumulators in a stack
    // block), so every step reads contiguous memory instead of one value
    // per cache line (and per page for wide rows): the same fold order per
    // line, so the same values.
    let m = first.layout.minor_to_major.first().map(|&m| m as usize);
    let tiled = half == 1
        && first.element_type == rxla_ir::ElementType::F32
        && m.is_some_and(|m| m != d && first.dims[m] >= TILE);
    if let (true, Some(m)) = (tiled, m) {
        let mut tiles = lines.clone();
        tiles.dims[m] = (first.dims[m] + TILE - 1) / TILE;
        let outer = if tiles.rank() == 0 {
            1
        } else {
            tiles.dims[tiles.layout.minor_to_major[tiles.rank() - 1] as usize]
        };
        let width = first.dims[m];
        with_kernel(jit, module, spec, 1, |em, outs, lo, hi| {
            if elements == 0 {
                return Ok(());
            }
            for_each_index(em, &tiles, Some((lo, hi)), &mut |em, idx| {
                tile(em, &scan, idx, (m, width), &first, outs[0])
            })
        })?;
        return Ok((outer, elements, false));
    }
    with_kernel(jit, module, spec, leaves.len(), |em, outs, lo, hi| {
        if elements == 0 {
            return Ok(());
        }
        for_each_index(em, &lines, Some((lo, hi)), &mut |em, idx| {
            line(em, &scan, idx, &leaves, outs)
        })
    })?;
    Ok((outer, elements, false))
}

/// One line: `cur` walks the input once; output `i` is stored after the
/// elements up to its window's end are folded in.
fn line(
    em: &mut Emitter,
    scan: &Scan,
    idx: &[cranelift_codegen::ir::Value],
    leaves: &[ArrayShape],
    outs: &[cranelift_codegen::ir::Value],
) -> Result<()> {
    let Scan {
        c,
        operands,
        inits,
        reducer,
        d,
        n,
        out_n,
        stride,
        reach,
    } = *scan;
    let accs = accumulators(em, c, operands, inits)?;
    let cur = em.var(cranelift_codegen::ir::types::I64);
    let zero = em.iconst(0);
    em.b.def_var(cur, zero);
    let (lo, hi) = (em.iconst(0), em.iconst(out_n));
    em.for_range(lo, hi, 1, |em, i| {
        let e = em.b.ins().imul_imm_s(i, stride);
        let e = em.b.ins().iadd_imm_s(e, reach);
        let end = em.clamp_idx(e, 0, n);
        let start = em.b.use_var(cur);
        em.for_range(start, end, 1, |em, j| {
            let mut at = idx.to_vec();
            at[d] = j;
            let mut xs = Vec::with_capacity(operands.len());
            for &o in operands {
                xs.push(em.emit(c, o, &at, None)?);
            }
            combine(em, reducer, &accs, &xs, None)
        })?;
        let start = em.b.use_var(cur);
        let next = em.b.ins().smax(start, end);
        em.b.def_var(cur, next);
        let mut at = idx.to_vec();
        at[d] = i;
        for ((&acc, leaf), &base) in accs.iter().zip(leaves).zip(outs) {
            let v = em.b.use_var(acc);
            let a = em.address(base, leaf, &at)?;
            em.store_elem(v, a, leaf.element_type)?;
        }
        Ok(())
    })
}

/// Lines `j0..j0+TILE` of the contiguous dimension `m` (`j0` = TILE ×
/// `idx[m]`, fewer at the edge) of a single-operand f32 scan along `d`:
/// their accumulators in a stack block, each step of the scan folding one
/// contiguous row segment into them, outputs stored as in [`line`].
fn tile(
    em: &mut Emitter,
    scan: &Scan,
    idx: &[cranelift_codegen::ir::Value],
    (m, width): (usize, i64),
    leaf: &ArrayShape,
    out: cranelift_codegen::ir::Value,
) -> Result<()> {
    let Scan {
        c,
        reducer,
        d,
        n,
        out_n,
        stride,
        reach,
        ..
    } = *scan;
    let (operand, init) = (scan.operands[0], scan.inits[0]);
    use cranelift_codegen::ir::types::{F32, I64};
    use cranelift_codegen::ir::{MemFlagsData, StackSlotData, StackSlotKind};
    let slot = em.b.create_sized_stack_slot(StackSlotData::new(
        StackSlotKind::ExplicitSlot,
        (TILE * 4) as u32,
        4,
    ));
    let block = em.b.ins().stack_addr(I64, slot, 0);
    let acc = accumulators(em, c, &[operand], &[init])?[0];
    let init_v = em.b.use_var(acc);
    let j0 = em.b.ins().imul_imm_s(idx[m], TILE);
    let end = em.b.ins().iadd_imm_s(j0, TILE);
    let w = em.iconst(width);
    let j1 = em.b.ins().smin(end, w);
    let lanes = em.b.ins().isub(j1, j0);
    let flags = MemFlagsData::new().with_notrap();
    let zero = em.iconst(0);
    em.for_range(zero, lanes, 1, |em, k| {
        let off = em.b.ins().ishl_imm_s(k, 2);
        let a = em.b.ins().iadd(block, off);
        em.b.ins().store(flags, init_v, a, 0);
        Ok(())
    })?;
    let cur = em.var(I64);
    em.b.def_var(cur, zero);
    let (lo, hi) = (em.iconst(0), em.iconst(out_n));
    em.for_range(lo, hi, 1, |em, i| {
        let e = em.b.ins().imul_imm_s(i, stride);
        let e = em.b.ins().iadd_imm_s(e, reach);
        let end = em.clamp_idx(e, 0, n);
        let start = em.b.use_var(cur);
        em.for_range(start, end, 1, |em, j| {
            let zero = em.iconst(0);
            em.for_range(zero, lanes, 1, |em, k| {
                let mut at = idx.to_vec();
                at[d] = j;
                at[m] = em.b.ins().iadd(j0, k);
                let x = em.emit(c, operand, &at, None)?;
                let off = em.b.ins().ishl_imm_s(k, 2);
                let a = em.b.ins().iadd(block, off);
                let v = em.b.ins().load(F32, flags, a, 0);
                em.b.def_var(acc, v);
                combine(em, reducer, &[acc], &[x], None)?;
                let r = em.b.use_var(acc);
                em.b.ins().store(flags, r, a, 0);
                Ok(())
            })
        })?;
        let start = em.b.use_var(cur);
        let next = em.b.ins().smax(start, end);
        em.b.def_var(cur, next);
        let zero = em.iconst(0);
        em.for_range(zero, lanes, 1, |em, k| {
            let mut at = idx.to_vec();
            at[d] = i;
            at[m] = em.b.ins().iadd(j0, k);
            let off = em.b.ins().ishl_imm_s(k, 2);
            let a = em.b.ins().iadd(block, off);
            let v = em.b.ins().load(F32, flags, a, 0);
            let o = em.address(out, leaf, &at)?;
            em.store_elem(v, o, leaf.element_type)
        })
    })
}
