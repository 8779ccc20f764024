//! The loop nest of one kernel: loops over the output in physical order
//! (major to minor, the outermost bounded by the `lo..hi` arguments so
//! threads can split it), the innermost over the physically contiguous
//! dimension — F32X4 with a scalar remainder when every value on the way
//! is vectorizable, else scalar (in 32×32 tiles over the two minor-most
//! dimensions when both are large, for transposed reads). Stores go to
//! the single output buffer.

use super::blocks::{
    BlockRow, BlockSlots, RowBlocks, RowSpan, WideNode, kernel_users, run_blocks, spans_rows,
    wide_nodes,
};
use super::emit::{Emitter, Sym};
use super::jit::{Jit, KernelSpec};
use super::repr;
use super::rowcheck::RowCheck;
use crate::error::{JitError, Result};
use cranelift_codegen::ir::types::{F32X4, I8X16, I32X4, I64};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value};
use cranelift_module::Module as _;
use rxla_ir::{ArrayShape, ElementType, InstrId, Module};

/// Builds the kernel function into `jit.ctx`. Returns (outer extent,
/// output elements, vectorized).
pub fn build(
    jit: &mut Jit,
    module: &Module,
    spec: &KernelSpec,
    vec_outer: bool,
    vec_reduce: bool,
) -> Result<(i64, usize, bool)> {
    match build_with(jit, module, spec, vec_outer, vec_reduce, false)? {
        (r, false) => Ok(r),
        // Strided or transposed vector reads: again, in tiles.
        (_, true) => Ok(build_with(jit, module, spec, vec_outer, vec_reduce, true)?.0),
    }
}

/// One attempt; the flag says whether the vector loops read with a lane
/// stride other than 0 or 1 (so tiles would help).
fn build_with(
    jit: &mut Jit,
    module: &Module,
    spec: &KernelSpec,
    vec_outer: bool,
    vec_reduce: bool,
    tile_vectors: bool,
) -> Result<((i64, usize, bool), bool)> {
    let comp = module.comp(spec.comp);
    let root = comp.get(spec.root);
    // A tuple root (a multi-output fusion): one output buffer per operand,
    // all over the same index space.
    let roots: Vec<InstrId> = match root.op {
        rxla_ir::Op::Tuple => root.operands.clone(),
        _ => vec![spec.root],
    };
    let mut shapes: Vec<ArrayShape> = Vec::with_capacity(roots.len());
    for &r in &roots {
        let ri = comp.get(r);
        let a = ri
            .shape
            .as_array()
            .map_err(|_| JitError::unsupported(format!("{}: tuple-shaped result", ri.name)))?;
        if a.layout.is_padded() {
            return Err(JitError::unsupported("padded output layout"));
        }
        repr::storage(a.element_type)?;
        shapes.push(a.clone());
    }
    let out: ArrayShape = shapes
        .first()
        .cloned()
        .ok_or_else(|| JitError::unsupported(format!("{}: empty tuple result", root.name)))?;
    if shapes
        .iter()
        .any(|s| s.dims != out.dims || s.layout.minor_to_major != out.layout.minor_to_major)
    {
        return Err(JitError::unsupported(format!(
            "{}: outputs over different index spaces",
            root.name
        )));
    }
    let elements = out.element_count()?;
    let frontend = jit.jm.isa().frontend_config();
    let wide = jit.opts.wide_math;
    let (mut em, [ins, outs, lo, hi]) = jit.kernel_emitter(module);
    em.vec_reduce = vec_reduce;
    em.wide_reduce = wide && crate::wide::available();
    em.allow_strided = !reads_through_reductions(module, spec);
    let flags = MemFlagsData::trusted();
    for (k, (id, shape)) in spec.inputs.iter().enumerate() {
        let base = em.b.ins().load(I64, flags, ins, (8 * k) as i32);
        em.inputs.insert((spec.comp, *id), (base, shape.clone()));
    }
    let outputs: Vec<Output> = roots
        .iter()
        .zip(&shapes)
        .enumerate()
        .map(|(k, (&id, shape))| Output {
            id,
            base: em.b.ins().load(I64, flags, outs, (8 * k) as i32),
            shape: shape.clone(),
        })
        .collect();
    let rank = out.rank();
    let order: Vec<usize> = out
        .layout
        .minor_to_major
        .iter()
        .rev()
        .map(|&d| d as usize)
        .collect();
    let lane_type = |t: ElementType| {
        matches!(
            t,
            ElementType::F32 | ElementType::F16 | ElementType::BF16 | ElementType::Pred
        ) || super::ivector::is_int_lane(t)
    };
    // Inner dims collapsed into one row (pure elementwise of same-shape
    // row-major values): one loop over everything but the outermost dim.
    let collapse = collapsed_row(module, spec, &outputs);
    let minor = collapse.unwrap_or_else(|| {
        if rank == 0 {
            0
        } else {
            out.dims[order[rank - 1]]
        }
    });
    let vectorize =
        vec_outer && rank > 0 && shapes.iter().all(|s| lane_type(s.element_type)) && minor >= 4;
    // A minor dim of 2 (`stack([a, b], -1)`, interleaved pairs): vectors
    // along the dim before it, interleaved into the row (`Nest::pairs`).
    let pairs =
        vec_outer && !vectorize && outputs.len() == 1 && collapse.is_none() && small_minor(&out);
    let outer = if rank == 0 { 1 } else { out.dims[order[0]] };
    if elements > 0 {
        if rank == 0 {
            for o in &outputs {
                let v = em.emit(spec.comp, o.id, &[], None)?;
                em.store_elem(v, o.base, o.shape.element_type)?;
            }
        } else {
            let zero = em.iconst(0);
            let mut idx = vec![zero; rank];
            // Scalar kernels over two large minor dims run in square tiles:
            // a transposed read then touches TILE cache lines per tile row
            // instead of one line (and one page) per element of a row.
            let tile = (!vectorize || tile_vectors)
                && collapse.is_none()
                && rank >= 2
                && out.dims[order[rank - 1]] >= 2 * TILE
                && out.dims[order[rank - 2]] >= 2 * TILE;
            let interior = if vectorize {
                window_interior(module, spec, &out, order[rank - 1])
            } else {
                None
            };
            let blocks = if vectorize && wide && crate::wide::available() {
                blockable(module, spec, &outputs)
            } else {
                Vec::new()
            };
            // The output the last wide node writes in place, the outputs a
            // program reads as leaves (filled straight into their rows),
            // and the outputs the row loops store.
            let direct = blocks
                .last()
                .and_then(|w| outputs.iter().position(|o| o.id == w.id));
            let leaf_outs: Vec<usize> = match (direct, blocks.last()) {
                (Some(p), Some(w)) if w.program.is_some() => (0..outputs.len())
                    .filter(|&i| {
                        i != p
                            && w.operands.contains(&outputs[i].id)
                            && outputs[i].shape.element_type.byte_size() == 4
                    })
                    .collect(),
                _ => Vec::new(),
            };
            let pending: Vec<usize> = (0..outputs.len())
                .filter(|&i| Some(i) != direct && !leaf_outs.contains(&i))
                .collect();
            let nest = Nest {
                spec,
                direct,
                leaf_outs,
                pending,
                collapse,
                out: &out,
                order: &order,
                outputs: &outputs,
                vectorize,
                tile,
                interior,
                blocks,
                pairs,
            };
            nest.level(&mut em, 0, &mut idx, lo, hi)?;
        }
    }
    let strided = em.strided_loads && (vectorize || pairs) && !tile_vectors;
    em.b.ins().return_(&[]);
    em.b.seal_all_blocks();
    em.b.finalize(frontend);
    if strided {
        jit.fctx = cranelift_frontend::FunctionBuilderContext::new();
        jit.jm.clear_context(&mut jit.ctx);
    }
    Ok(((outer, elements, vectorize || pairs), strided))
}

/// An f32 array whose physically minor dim has 2 elements and the one
/// before it at least 4, in the default layout: a kernel writing it
/// computes 4 pairs at a time (`Nest::pairs`).
pub fn small_minor(out: &ArrayShape) -> bool {
    let rank = out.rank();
    rank >= 2
        && out.element_type == ElementType::F32
        && out.layout.is_default()
        && !out.layout.is_padded()
        && out.dims[rank - 1] == 2
        && out.dims[rank - 2] >= 4
}

/// The length of one row over all dims but the outermost, when the kernel
/// is elementwise over same-shape row-major values (inputs and outputs of
/// the output's dims in the default layout, elementwise ops, scalars and
/// their broadcasts): every value is then addressed linearly in the
/// row-major index, so the inner dims run as one loop (NHWC tensors with
/// 64 channels: 16 vectors per row and a loop setup each, now one row of
/// H·W·C). `None` for rank < 3, a contiguous dim of one element, or any
/// other op.
fn collapsed_row(module: &Module, spec: &KernelSpec, outputs: &[Output]) -> Option<i64> {
    use rxla_ir::Op;
    let out = &outputs.first()?.shape;
    let rank = out.rank();
    let plain = |a: &ArrayShape| a.layout.is_default() && !a.layout.is_padded();
    // The contiguous dim must have more than one element: addresses drop
    // the terms of dims of extent 1 (and lanes along one would not move).
    if rank < 3
        || out.dims[rank - 1] < 2
        || outputs
            .iter()
            .any(|o| !plain(&o.shape) || o.shape.dims != out.dims)
    {
        return None;
    }
    let comp = module.comp(spec.comp);
    let is_input = |id: InstrId| spec.inputs.iter().any(|(i, _)| *i == id);
    for o in outputs {
        let (ids, _) = kernel_users(comp, o.id, &is_input);
        for id in ids {
            if let Some((_, a)) = spec.inputs.iter().find(|(i, _)| *i == id) {
                if !(a.dims.is_empty() || a.dims == out.dims && plain(a)) {
                    return None;
                }
                continue;
            }
            let i = comp.get(id);
            let dims = i.shape.dims();
            let ok = match &i.op {
                Op::Constant { .. } => dims.is_empty(),
                Op::Broadcast { .. } => i
                    .operands
                    .first()
                    .is_some_and(|&x| comp.get(x).shape.dims().is_empty()),
                op if op.is_elementwise() => dims.is_empty() || dims == out.dims.as_slice(),
                _ => false,
            };
            if !ok {
                return None;
            }
        }
    }
    let rest = out.dims[1..]
        .iter()
        .try_fold(1i64, |a, &d| a.checked_mul(d))?;
    (rest > out.dims[rank - 1]).then_some(rest)
}

/// Side of the square tiles of scalar kernels (32×32 f32 = 4 KiB).
const TILE: i64 = 32;

/// Outputs per row block of a kernel with wide transcendentals (1 KiB of
/// scratch per routine, in L1 with the row's other reads).
const BLOCK: i64 = 256;

/// Rows at most this long run their wide nodes over several rows per
/// call (`Nest::row_groups`): a softmax over a middle axis of 64×512×64
/// called each routine once per 64 values, and the calls (which also
/// spill every vector register) cost more than the work.
const SHORT_ROW: i64 = 128;

/// Outputs per block of several short rows (4 KiB of scratch per routine).
const ROWS_BLOCK: i64 = 1024;

/// One output of a kernel: the value stored, its buffer, its shape (every
/// output of a kernel has the same dims and layout).
struct Output {
    id: InstrId,
    base: Value,
    shape: ArrayShape,
}

struct Nest<'s> {
    spec: &'s KernelSpec,
    /// The index space (the first output's shape).
    out: &'s ArrayShape,
    order: &'s [usize],
    outputs: &'s [Output],
    vectorize: bool,
    tile: bool,
    /// Outputs `[a, b)` along the contiguous dim whose reduce-window
    /// positions never touch padding: vectorized; the rest scalar.
    interior: Option<(i64, i64, Vec<InstrId>)>,
    /// Values computed per row block by a wide routine (`crate::wide`),
    /// in dependency order.
    blocks: Vec<WideNode>,
    /// The minor dim has 2 elements ([`small_minor`]): the two minor loops
    /// are `Nest::pairs`.
    pairs: bool,
    /// The output (index into `outputs`) the last wide node writes into
    /// its row itself.
    direct: Option<usize>,
    /// Outputs a program reads as leaves: the inline code fills them
    /// straight into their rows.
    leaf_outs: Vec<usize>,
    /// Outputs the row's own vector loops store (after the blocks).
    pending: Vec<usize>,
    /// The dims after the outermost collapsed into one row of this many
    /// elements ([`collapsed_row`]).
    collapse: Option<i64>,
}

impl Nest<'_> {
    fn level(
        &self,
        em: &mut Emitter,
        level: usize,
        idx: &mut Vec<Value>,
        lo: Value,
        hi: Value,
    ) -> Result<()> {
        let rank = self.order.len();
        if let Some(rest) = self.collapse {
            // The outermost dim, then one row over all the others (their
            // indices 0, the contiguous one running over `rest`: every
            // address is linear in the row-major index).
            let d0 = self.order[0];
            return em.for_range(lo, hi, 1, |em, i| {
                idx[d0] = i;
                let zero = em.iconst(0);
                for &k in &self.order[1..rank - 1] {
                    idx[k] = zero;
                }
                let n = em.iconst(rest);
                self.row(em, idx, zero, n)
            });
        }
        let d = self.order[level];
        let n = self.out.dims[d];
        let (lo, hi) = if level == 0 {
            (lo, hi)
        } else {
            (em.iconst(0), em.iconst(n))
        };
        if self.pairs && level + 2 == rank {
            return self.pair_rows(em, idx, lo, hi);
        }
        if self.tile && level + 2 == rank {
            return self.tiled(em, idx, lo, hi);
        }
        if level + 2 == rank
            && let Some(per) = self.rows_per_block(em)
        {
            return self.row_groups(em, idx, lo, hi, per);
        }
        if level + 1 < rank {
            return em.for_range(lo, hi, 1, |em, i| {
                idx[d] = i;
                self.level(em, level + 1, idx, lo, hi)
            });
        }
        self.row(em, idx, lo, hi)
    }

    /// Rows per block when the wide nodes run over several whole rows at a
    /// time: vector rows no longer than [`SHORT_ROW`] without padded
    /// windows, whose nodes can span rows ([`spans_rows`]).
    fn rows_per_block(&self, em: &Emitter) -> Option<i64> {
        let rank = self.order.len();
        if rank < 2 || !self.vectorize || self.tile || self.interior.is_some() {
            return None;
        }
        let (dr, d) = (self.order[rank - 2], self.order[rank - 1]);
        let n = self.out.dims[d];
        let comp = em.module.comp(self.spec.comp);
        (!self.blocks.is_empty()
            && n <= SHORT_ROW
            && self.out.dims[dr] > 1
            && spans_rows(comp, &self.blocks, d, dr))
        .then(|| (ROWS_BLOCK / n.max(1)).max(1))
    }

    /// Rows `lo..hi` of the second-innermost dimension, `per` at a time:
    /// the wide nodes over all of a group's rows in one call each (see
    /// `blocks::RowSpan`), then each row's own loops reading their
    /// results (or nothing more when a wide root wrote the output rows).
    fn row_groups(
        &self,
        em: &mut Emitter,
        idx: &mut Vec<Value>,
        lo: Value,
        hi: Value,
        per: i64,
    ) -> Result<()> {
        let rank = self.order.len();
        let (dr, d) = (self.order[rank - 2], self.order[rank - 1]);
        let n = self.out.dims[d];
        let c = self.spec.comp;
        let root_direct = self.direct.is_some();
        let slots = BlockSlots::new(em, &self.blocks, root_direct, per * n);
        em.for_range(lo, hi, per, |em, r0| {
            let end = em.b.ins().iadd_imm_s(r0, per);
            let r1 = em.b.ins().smin(end, hi);
            let (zero, nv) = (em.iconst(0), em.iconst(n));
            idx[dr] = r0;
            idx[d] = zero;
            let out_row = match self.direct {
                Some(p) => Some(em.address(self.outputs[p].base, self.out, idx)?),
                None => None,
            };
            let leaf_rows = self.leaf_rows(em, idx)?;
            let row = BlockRow {
                comp: c,
                dims: &self.out.dims,
                d,
                j0: zero,
                j1: nv,
                rows: Some(RowSpan { d: dr, r0, r1, n }),
            };
            run_blocks(em, &row, &self.blocks, &slots, idx, out_row, &leaf_rows)?;
            let r = if self.pending.is_empty() {
                Ok(())
            } else {
                let blocks = RowBlocks::snapshot(em);
                let span = RowSpan { d: dr, r0, r1, n };
                em.for_range(r0, r1, 1, |em, r| {
                    idx[dr] = r;
                    blocks.select_row(em, span, r);
                    self.vector_loops(em, idx, zero, nv)
                })
            };
            em.blocked.clear();
            r
        })
    }

    /// The innermost loop over `lo..hi` of the contiguous dimension:
    /// vector loops (optimistic, then the exact redo if a lane flagged)
    /// and a scalar tail, or scalar only.
    fn row(&self, em: &mut Emitter, idx: &mut Vec<Value>, lo: Value, hi: Value) -> Result<()> {
        let rank = self.order.len();
        let d = self.order[rank - 1];
        if let (true, Some((a, b, windows))) = (self.vectorize, &self.interior) {
            // Scalar up to the interior, vectors inside it, scalar after.
            let (a, b) = (em.iconst(*a), em.iconst(*b));
            let s1 = em.b.ins().smax(a, lo);
            let s1 = em.b.ins().smin(s1, hi);
            let s2 = em.b.ins().smin(b, hi);
            let s2 = em.b.ins().smax(s2, s1);
            self.scalar_row(em, idx, d, lo, s1)?;
            em.interior = windows.iter().map(|&w| (self.spec.comp, w, d)).collect();
            let r = self.vector_row(em, idx, s1, s2);
            em.interior.clear();
            r?;
            return self.scalar_row(em, idx, d, s2, hi);
        }
        if self.vectorize {
            return self.vector_row(em, idx, lo, hi);
        }
        self.scalar_row(em, idx, d, lo, hi)
    }

    /// Vector loops over `lo..hi` of the contiguous dimension, then a
    /// scalar tail.
    fn vector_row(
        &self,
        em: &mut Emitter,
        idx: &mut Vec<Value>,
        lo: Value,
        hi: Value,
    ) -> Result<()> {
        if self.blocks.is_empty() {
            return self.vector_loops(em, idx, lo, hi);
        }
        // Blocks of BLOCK outputs: the wide nodes a block at a time (see
        // `blocks`), then the row's own loops reading their results; a wide
        // root writes straight into the output row, and the row's own loops
        // are not needed.
        let rank = self.order.len();
        let d = self.order[rank - 1];
        let root_direct = self.direct.is_some();
        let slots = BlockSlots::new(em, &self.blocks, root_direct, BLOCK);
        let mut i0 = idx.clone();
        i0[d] = em.iconst(0);
        let out_row = match self.direct {
            Some(p) => Some(em.address(self.outputs[p].base, self.out, &i0)?),
            None => None,
        };
        let leaf_rows = self.leaf_rows(em, &i0)?;
        em.for_range(lo, hi, BLOCK, |em, j0| {
            let end = em.b.ins().iadd_imm_s(j0, BLOCK);
            let j1 = em.b.ins().smin(end, hi);
            let row = BlockRow {
                comp: self.spec.comp,
                dims: &self.out.dims,
                d,
                j0,
                j1,
                rows: None,
            };
            run_blocks(em, &row, &self.blocks, &slots, idx, out_row, &leaf_rows)?;
            let r = if self.pending.is_empty() {
                Ok(())
            } else {
                self.vector_loops(em, idx, j0, j1)
            };
            em.blocked.clear();
            r
        })
    }

    /// The addresses of the leaf outputs' rows at `at` (its contiguous
    /// index 0), by instruction.
    fn leaf_rows(&self, em: &mut Emitter, at: &[Value]) -> Result<Vec<(InstrId, Value)>> {
        self.leaf_outs
            .iter()
            .map(|&i| {
                let o = &self.outputs[i];
                Ok((o.id, em.address(o.base, &o.shape, at)?))
            })
            .collect()
    }

    /// Vector loops over `lo..hi` of the contiguous dimension storing the
    /// pending outputs, then a scalar tail.
    fn vector_loops(
        &self,
        em: &mut Emitter,
        idx: &mut Vec<Value>,
        lo: Value,
        hi: Value,
    ) -> Result<()> {
        let rank = self.order.len();
        let d = self.order[rank - 1];
        {
            // Vector loop unrolled twice over [lo, lo + len/8*8) (two
            // independent chains keep both FMA pipes busy), one vector step
            // for a remaining 4, then a scalar tail.
            let len = em.b.ins().isub(hi, lo);
            let len8 = em.b.ins().band_imm_s(len, !7);
            let len4 = em.b.ins().band_imm_s(len, !3);
            let v8hi = em.b.ins().iadd(lo, len8);
            let vhi = em.b.ins().iadd(lo, len4);
            let mut unit = vec![0i64; rank];
            unit[d] = 1;
            let sym = Sym::Dims(unit);
            // Row-invariant values and constants before the loop.
            idx[d] = lo;
            super::approx::warm(em);
            for o in self.pending.iter().map(|&i| &self.outputs[i]) {
                em.hoist(self.spec.comp, o.id, idx, &sym);
                // The output row's address prefix too (computed once here,
                // not in every iteration: the mid-end is off).
                em.address(o.base, &o.shape, idx)?;
            }
            let step = |em: &mut Emitter, idx: &mut Vec<Value>, j: Value| -> Result<()> {
                idx[d] = j;
                for o in self.pending.iter().map(|&i| &self.outputs[i]) {
                    let v = em.emit(self.spec.comp, o.id, idx, Some(&sym))?;
                    let t = o.shape.element_type;
                    let want = if super::ivector::is_int_lane(t) || t == ElementType::Pred {
                        I32X4
                    } else {
                        F32X4
                    };
                    if em.b.func.dfg.value_type(v) != want {
                        return Err(JitError::unsupported("vector root of another type"));
                    }
                    let a = em.address(o.base, &o.shape, idx)?;
                    em.store_elem(v, a, t)?;
                }
                Ok(())
            };
            let vector_loops = |em: &mut Emitter, idx: &mut Vec<Value>| -> Result<()> {
                em.for_range(lo, v8hi, 8, |em, j| {
                    step(em, idx, j)?;
                    let j4 = em.b.ins().iadd_imm_s(j, 4);
                    step(em, idx, j4)
                })?;
                em.for_range(v8hi, vhi, 4, |em, j| step(em, idx, j))
            };
            // Optimistic first (fast paths without per-vector branches);
            // if one of them flagged a lane, the row's vector part again
            // with the complete code.
            em.row_check = Some(RowCheck::begin(&mut em.b));
            let first = vector_loops(em, idx);
            let check = em.row_check.take();
            first?;
            if let Some(rc) = check.filter(|rc| rc.used()) {
                let redo = rc.failed(&mut em.b);
                let redo_b = em.b.create_block();
                let join = em.b.create_block();
                em.b.ins().brif(redo, redo_b, &[], join, &[]);
                em.b.switch_to_block(redo_b);
                em.b.seal_block(redo_b);
                vector_loops(em, idx)?;
                em.b.ins().jump(join, &[]);
                em.b.switch_to_block(join);
                em.b.seal_block(join);
            }
            em.for_range(vhi, hi, 1, |em, j| {
                idx[d] = j;
                self.store_scalars(em, idx, &self.pending)
            })
        }
    }

    /// The two minor loops of an output whose minor dim has 2 elements:
    /// over `lo..hi` of the dim before it, 4 at a time, the value at minor
    /// index 0 and at 1 as vectors along that dim (`a`, `b`), stored as
    /// the 8 contiguous outputs `a0 b0 a1 b1 a2 b2 a3 b3` (two shuffles);
    /// a scalar tail.
    fn pair_rows(&self, em: &mut Emitter, idx: &mut [Value], lo: Value, hi: Value) -> Result<()> {
        let rank = self.order.len();
        let (d0, d1) = (self.order[rank - 2], self.order[rank - 1]);
        let len = em.b.ins().isub(hi, lo);
        let len4 = em.b.ins().band_imm_s(len, !3);
        let vhi = em.b.ins().iadd(lo, len4);
        let mut unit = vec![0i64; rank];
        unit[d0] = 1;
        let sym = Sym::Dims(unit);
        super::approx::warm(em);
        em.for_range(lo, vhi, 4, |em, i| {
            idx[d0] = i;
            let mut v = [None; 2];
            for (t, slot) in v.iter_mut().enumerate() {
                idx[d1] = em.iconst(t as i64);
                let x = em.emit(self.spec.comp, self.outputs[0].id, idx, Some(&sym))?;
                if em.b.func.dfg.value_type(x) != F32X4 {
                    return Err(JitError::unsupported("pair rows of another type"));
                }
                *slot = Some(x);
            }
            let (a, b) = (v[0].expect("set"), v[1].expect("set"));
            // Lanes 0-3 of `a`, 4-7 of `b`: a0 b0 a1 b1, then a2 b2 a3 b3.
            let lo_mask = em.b.func.dfg.immediates.push(
                [0u8, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23]
                    .to_vec()
                    .into(),
            );
            let hi_mask = em.b.func.dfg.immediates.push(
                [
                    8u8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31,
                ]
                .to_vec()
                .into(),
            );
            let ab = em.b.ins().bitcast(I8X16, super::emit::le(), a);
            let bb = em.b.ins().bitcast(I8X16, super::emit::le(), b);
            let first = em.b.ins().shuffle(ab, bb, lo_mask);
            let second = em.b.ins().shuffle(ab, bb, hi_mask);
            let first = em.b.ins().bitcast(F32X4, super::emit::le(), first);
            let second = em.b.ins().bitcast(F32X4, super::emit::le(), second);
            idx[d1] = em.iconst(0);
            let at = em.address(self.outputs[0].base, self.out, idx)?;
            em.store_elem(first, at, ElementType::F32)?;
            let at4 = em.b.ins().iadd_imm_s(at, 16);
            em.store_elem(second, at4, ElementType::F32)
        })?;
        em.for_range(vhi, hi, 1, |em, i| {
            idx[d0] = i;
            for t in 0..2 {
                idx[d1] = em.iconst(t);
                self.store_scalars(em, idx, &self.all())?;
            }
            Ok(())
        })
    }

    /// `idx[d]` over `lo..hi`, one scalar element each.
    fn scalar_row(
        &self,
        em: &mut Emitter,
        idx: &mut [Value],
        d: usize,
        lo: Value,
        hi: Value,
    ) -> Result<()> {
        em.for_range(lo, hi, 1, |em, j| {
            idx[d] = j;
            self.store_scalars(em, idx, &self.all())
        })
    }

    /// Every output's index.
    fn all(&self) -> Vec<usize> {
        (0..self.outputs.len()).collect()
    }

    /// The scalar values of outputs `which` at `idx`, stored.
    fn store_scalars(&self, em: &mut Emitter, idx: &[Value], which: &[usize]) -> Result<()> {
        for o in which.iter().map(|&i| &self.outputs[i]) {
            let v = em.emit(self.spec.comp, o.id, idx, None)?;
            let a = em.address(o.base, &o.shape, idx)?;
            em.store_elem(v, a, o.shape.element_type)?;
        }
        Ok(())
    }

    /// The two minor-most loops in TILE×TILE tiles: the outer of the two
    /// over `lo..hi` (the thread's range when it is the outermost loop).
    fn tiled(&self, em: &mut Emitter, idx: &mut Vec<Value>, lo: Value, hi: Value) -> Result<()> {
        let rank = self.order.len();
        let (d0, d1) = (self.order[rank - 2], self.order[rank - 1]);
        let n1 = self.out.dims[d1];
        em.for_range(lo, hi, TILE, |em, i0| {
            let i_end = em.b.ins().iadd_imm_s(i0, TILE);
            let i1 = em.b.ins().smin(i_end, hi);
            let (zero, n) = (em.iconst(0), em.iconst(n1));
            em.for_range(zero, n, TILE, |em, j0| {
                let j_end = em.b.ins().iadd_imm_s(j0, TILE);
                let j1 = em.b.ins().smin(j_end, n);
                em.for_range(i0, i1, 1, |em, i| {
                    idx[d0] = i;
                    self.row(em, idx, j0, j1)
                })
            })
        })
    }
}

/// Whether the kernel's expression (from its root down to its inputs)
/// contains a reduction-like op, whose vector forms rely on strided loads
/// failing (reduce-window is not one: its lanes are whole windows).
pub(super) fn reads_through_reductions(module: &Module, spec: &KernelSpec) -> bool {
    let comp = module.comp(spec.comp);
    let is_input = |id: InstrId| spec.inputs.iter().any(|(i, _)| *i == id);
    let (ids, _) = kernel_users(comp, spec.root, &is_input);
    ids.into_iter().filter(|&id| !is_input(id)).any(|id| {
        matches!(
            comp.get(id).op,
            rxla_ir::Op::Reduce { .. }
                | rxla_ir::Op::Dot { .. }
                | rxla_ir::Op::Convolution { .. }
                | rxla_ir::Op::Fusion { .. }
                | rxla_ir::Op::Map { .. }
        )
    })
}

/// The outputs `[a, b)` along the contiguous dim `d` of `out` at which
/// every pad and reduce-window of the kernel that is padded along `d` is
/// read inside its operand, with those instructions. Tracked are the
/// instructions whose every use in the kernel is the root's own index
/// shifted along `d` (through elementwise ops of the same dims and
/// unit-stride slices); a padded one reached otherwise leaves the kernel
/// as it is (`None`).
fn window_interior(
    module: &Module,
    spec: &KernelSpec,
    out: &ArrayShape,
    d: usize,
) -> Option<(i64, i64, Vec<InstrId>)> {
    use rxla_ir::Op;
    use std::collections::{BTreeSet, HashMap};
    let comp = module.comp(spec.comp);
    let is_input = |id: InstrId| spec.inputs.iter().any(|(i, _)| *i == id);
    let (ids, users) = kernel_users(comp, spec.root, &is_input);
    // Offsets along `d` at which each tracked instruction is read (index = root index + offset).
    let mut offsets: HashMap<InstrId, BTreeSet<i64>> = HashMap::new();
    offsets.insert(spec.root, BTreeSet::from([0]));
    let (mut a, mut b) = (0i64, out.dims[d]);
    let (mut windows, mut poisoned) = (Vec::new(), false);
    for &id in &ids {
        let i = comp.get(id);
        if id != spec.root {
            let mut offs = BTreeSet::new();
            let mut tracked = true;
            for &u in users.get(&id).map(Vec::as_slice).unwrap_or(&[]) {
                let ui = comp.get(u);
                let (Some(uo), true) = (offsets.get(&u), ui.shape.dims().len() == out.rank())
                else {
                    tracked = false;
                    break;
                };
                match &ui.op {
                    op if op.is_elementwise() && ui.shape.dims() == i.shape.dims() => {
                        offs.extend(uo.iter().copied())
                    }
                    Op::Slice {
                        starts, strides, ..
                    } if strides.get(d) == Some(&1) => {
                        offs.extend(uo.iter().map(|o| o + starts[d]))
                    }
                    _ => {
                        tracked = false;
                        break;
                    }
                }
            }
            if !tracked {
                let padded = match &i.op {
                    Op::Pad { config } => config.get(d).is_some_and(|p| p.low != 0 || p.high != 0),
                    Op::ReduceWindow { window, .. } => window
                        .dims
                        .get(d)
                        .is_some_and(|w| w.pad_low != 0 || w.pad_high != 0),
                    _ => false,
                };
                poisoned |= padded;
                continue;
            }
            offsets.insert(id, offs);
        }
        let offs = &offsets[&id];
        match &i.op {
            Op::Pad { config } if !is_input(id) => {
                let p = config.get(d)?;
                if p.low == 0 && p.high == 0 {
                    continue;
                }
                if p.interior != 0 {
                    return None;
                }
                let n = comp.get(i.operands[0]).shape.dims().get(d).copied()?;
                windows.push(id);
                for &off in offs {
                    // Operand position j + off - low in [0, n).
                    a = a.max(p.low - off);
                    b = b.min(p.low - off + n);
                }
            }
            Op::ReduceWindow { window, .. } if !is_input(id) && i.operands.len() == 2 => {
                let w = window.dims.get(d)?;
                if w.pad_low == 0 && w.pad_high == 0 {
                    continue;
                }
                if w.base_dilation != 1 || w.stride < 1 {
                    return None;
                }
                let n = comp.get(i.operands[0]).shape.dims().get(d).copied()?;
                windows.push(id);
                // First output whose window starts at >= 0; last whose end <= n - 1.
                let first = (w.pad_low.max(0) + w.stride - 1) / w.stride;
                let reach = n - 1 + w.pad_low - (w.size - 1) * w.window_dilation;
                let end = if reach < 0 { 0 } else { reach / w.stride + 1 };
                for &off in offs {
                    a = a.max(first - off);
                    b = b.min(end - off);
                }
            }
            _ => {}
        }
    }
    (!poisoned && !windows.is_empty() && a < b).then_some((a, b, windows))
}

/// The values of the kernel that a wide routine can compute per row block
/// (see [`wide_nodes`]): a program or the wide nodes of a single output;
/// of several outputs, the wide nodes of each (f32 outputs only), each
/// node once, in dependency order.
fn blockable(module: &Module, spec: &KernelSpec, outputs: &[Output]) -> Vec<WideNode> {
    let is_input = |id: InstrId| spec.inputs.iter().any(|(i, _)| *i == id);
    let Some(out) = outputs.first().map(|o| &o.shape) else {
        return Vec::new();
    };
    if out.element_type != ElementType::F32 && !super::ivector::is_word_lane(out.element_type) {
        return Vec::new();
    }
    let d = out.layout.minor_to_major.first().map_or(0, |&d| d as usize);
    let comp = module.comp(spec.comp);
    if outputs.len() > 1 {
        // A program for one output (the others filled as its leaves or
        // stored by the row loops).
        if super::program::enabled() {
            for o in outputs {
                if let Some(p) = super::program::wide_program(comp, o.id, &out.dims, d, &is_input) {
                    return vec![WideNode {
                        id: o.id,
                        operands: p.leaves,
                        routine: "rxla_block_program",
                        program: Some(p.words),
                    }];
                }
            }
        }
        if outputs
            .iter()
            .any(|o| o.shape.element_type != ElementType::F32)
        {
            return Vec::new();
        }
        let mut all: Vec<WideNode> = Vec::new();
        for o in outputs {
            for w in wide_nodes(comp, o.id, &out.dims, d, &is_input, true) {
                if !all.iter().any(|x| x.id == w.id) {
                    all.push(w);
                }
            }
        }
        return all;
    }
    let program = super::program::enabled()
        .then(|| super::program::wide_program(comp, spec.root, &out.dims, d, &is_input))
        .flatten();
    if let Some(p) = program {
        return vec![WideNode {
            id: spec.root,
            operands: p.leaves,
            routine: "rxla_block_program",
            program: Some(p.words),
        }];
    }
    if out.element_type != ElementType::F32 {
        // Integer lanes: programs only.
        return Vec::new();
    }
    wide_nodes(
        module.comp(spec.comp),
        spec.root,
        &out.dims,
        d,
        &is_input,
        true,
    )
}
