//! Wide row blocks: the instructions of a kernel that run a block of a row
//! at a time through a wide routine (`crate::wide`: 512-bit exp, tanh,
//! divide, and the add/subtract/multiply that feed them) instead of inline
//! F32X4 code.
//!
//! [`wide_nodes`] picks them (plan of one kernel or one reduction);
//! [`run_blocks`] emits, for one block `j0..j1` of the contiguous
//! dimension, each node's operands into scratch blocks (an input row is
//! read in place, a row-invariant value passed as one value, another wide
//! node's block read where it is) and the routine call, then records where
//! each result lives in `Emitter::blocked` so the rest of the expression
//! reads it from there. The routines compute what the inline code computes,
//! bit for bit; this module must not change any value, only where the
//! work runs. Callers own the loop over blocks and clear `blocked` after
//! each block.

use super::emit::{Emitter, Sym};
use crate::error::{JitError, Result};
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{
    FuncRef, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use rxla_ir::{CompId, ElementType, InstrId};

/// An instruction a wide block routine computes a block at a time.
#[derive(Clone, Debug)]
pub(super) struct WideNode {
    pub id: InstrId,
    /// One operand (`routine(dst, src, n)`) or two
    /// (`routine(dst, a, step_a, b, step_b, n)`).
    pub operands: Vec<InstrId>,
    pub routine: &'static str,
    /// A whole expression (`rxla_block_program`, see `codegen/program`):
    /// the routine's words; `operands` are then the program's leaves.
    pub program: Option<Vec<u64>>,
}

/// The f32 exp, expm1, tanh, logistic, erf, log, log1p and cbrt instructions (and, with `binary`, divides, powers and the
/// adds, subtracts and multiplies that feed one, see below) under
/// `root` (down to `is_input`) whose every use reads them at `root`'s own
/// index (`root` itself, or elementwise ops of the same `dims` that are
/// read so; `d` is the contiguous dimension), in dependency order.
pub(super) fn wide_nodes(
    comp: &rxla_ir::Computation,
    root: InstrId,
    dims: &[i64],
    d: usize,
    is_input: &dyn Fn(InstrId) -> bool,
    binary: bool,
) -> Vec<WideNode> {
    use rxla_ir::{BinaryOp, Op, UnaryOp};
    use std::collections::HashSet;
    let (ids, users) = kernel_users(comp, root, is_input);
    let same = |id: InstrId| comp.get(id).shape.dims() == dims;
    let mut at_root: HashSet<InstrId> = HashSet::new();
    let mut found: Vec<WideNode> = Vec::new();
    for &id in &ids {
        let ok = id == root && same(id)
            || same(id)
                && users.get(&id).is_some_and(|us| {
                    us.iter()
                        .all(|u| at_root.contains(u) && comp.get(*u).op.is_elementwise())
                });
        if !ok || is_input(id) {
            continue;
        }
        at_root.insert(id);
        let i = comp.get(id);
        let f32_ = i
            .shape
            .as_array()
            .is_ok_and(|a| a.element_type == ElementType::F32);
        // Cheap arithmetic only where it saves a pass: as the operand of
        // an expensive wide node (exp, tanh, divide) whose own operands
        // need no computing (input rows, row-invariant values, expensive
        // wide nodes' blocks). A longer chain of cheap ops stays inline in
        // the expensive node's fill loop: one pass for the whole chain
        // beats a routine call per op (GELU's tanh argument: 1.6 vs 2.2 ms
        // over 4 Mi elements).
        let expensive = |r: &str| {
            matches!(
                r,
                "rxla_block_exp"
                    | "rxla_block_tanh"
                    | "rxla_block_logistic"
                    | "rxla_block_erf"
                    | "rxla_block_log"
                    | "rxla_block_div"
                    | "rxla_block_pow"
                    | "rxla_block_cbrt"
                    | "rxla_block_log1p"
                    | "rxla_block_expm1"
            )
        };
        let feeds_wide = || {
            users.get(&id).is_some_and(|us| {
                us.iter()
                    .all(|u| found.iter().any(|w| w.id == *u && expensive(w.routine)))
            }) && i.operands.iter().all(|&o| {
                is_input(o) && same(o)
                    || row_invariant(comp, o, d, 4)
                    || column_broadcast(comp, o, d, is_input)
                    || found.iter().any(|w| w.id == o && expensive(w.routine))
            })
        };
        // Not sqrt/rsqrt: measured on an Adam-style update over 4 Mi
        // values (memory-bound), block passes cost more than the inline
        // `sqrtps` they replace (1.50 vs 1.37 ms).
        let routine = match i.op {
            Op::Unary(UnaryOp::Exp) if f32_ => "rxla_block_exp",
            Op::Unary(UnaryOp::Tanh) if f32_ => "rxla_block_tanh",
            Op::Unary(UnaryOp::Logistic) if f32_ => "rxla_block_logistic",
            Op::Unary(UnaryOp::Erf) if f32_ => "rxla_block_erf",
            Op::Unary(UnaryOp::Log) if f32_ => "rxla_block_log",
            Op::Unary(UnaryOp::Cbrt) if f32_ => "rxla_block_cbrt",
            Op::Unary(UnaryOp::Log1p) if f32_ => "rxla_block_log1p",
            Op::Unary(UnaryOp::Expm1) if f32_ => "rxla_block_expm1",
            Op::Binary(BinaryOp::Divide) if f32_ && binary => "rxla_block_div",
            // Not a constant half-integer exponent: the inline code takes
            // √|x|·|x|^k for those (`approx::pow`), not ln and exp.
            Op::Binary(BinaryOp::Power)
                if f32_ && binary && !half_integer_exponent(comp, i.operands[1]) =>
            {
                "rxla_block_pow"
            }
            Op::Binary(BinaryOp::Add) if f32_ && binary && feeds_wide() => "rxla_block_add",
            Op::Binary(BinaryOp::Subtract) if f32_ && binary && feeds_wide() => "rxla_block_sub",
            Op::Binary(BinaryOp::Multiply) if f32_ && binary && feeds_wide() => "rxla_block_mul",
            _ => continue,
        };
        found.push(WideNode {
            id,
            operands: i.operands.clone(),
            routine,
            program: None,
        });
    }
    found.reverse();
    found
}

/// Whether `id` is an f32 constant k + ½ with |k| ≤ 3 (or a broadcast of
/// one): the exponents `approx::pow` computes without ln and exp.
fn half_integer_exponent(comp: &rxla_ir::Computation, id: InstrId) -> bool {
    let i = comp.get(id);
    match &i.op {
        rxla_ir::Op::Broadcast { .. } => i
            .operands
            .first()
            .is_some_and(|&o| half_integer_exponent(comp, o)),
        rxla_ir::Op::Constant { literal } => literal.as_slice::<f32>().is_some_and(|v| {
            v.first().is_some_and(|&y| {
                let k = y - 0.5;
                v.iter().all(|&w| w.to_bits() == y.to_bits()) && k.fract() == 0.0 && k.abs() <= 3.0
            })
        }),
        _ => false,
    }
}

/// Whether `id` broadcasts a kernel input along the rows with dimension
/// `d` mapped (a per-column value, which `run_blocks` reads in place when
/// the input's minor dimension is the mapped one).
fn column_broadcast(
    comp: &rxla_ir::Computation,
    id: InstrId,
    d: usize,
    is_input: &dyn Fn(InstrId) -> bool,
) -> bool {
    let i = comp.get(id);
    match &i.op {
        rxla_ir::Op::Broadcast { dimensions } => {
            dimensions.contains(&(d as i64)) && i.operands.first().is_some_and(|&o| is_input(o))
        }
        _ => false,
    }
}

/// Whether `id` has one value along dimension `d` of its shape (a
/// broadcast that does not map `d`, or elementwise ops of such values, up
/// to `depth` levels), so a row block can use one value for all of it.
pub(super) fn row_invariant(
    comp: &rxla_ir::Computation,
    id: InstrId,
    d: usize,
    depth: usize,
) -> bool {
    use rxla_ir::Op;
    let i = comp.get(id);
    match &i.op {
        Op::Broadcast { dimensions } => !dimensions.contains(&(d as i64)),
        op if op.is_elementwise() && depth > 0 && !i.operands.is_empty() => i
            .operands
            .iter()
            .all(|&o| row_invariant(comp, o, d, depth - 1)),
        _ => false,
    }
}

/// The scratch blocks of a kernel's wide nodes, allocated once per kernel:
/// per node, its result block (none when it is written straight into the
/// output row), a block per operand the node may need filled (a binary
/// node's second operand, every leaf of a program; a first operand is
/// filled into the result block), and for a program its words' address
/// and a table of leaf addresses.
pub(super) struct BlockSlots {
    slots: Vec<NodeSlots>,
}

struct NodeSlots {
    own: Option<Value>,
    fills: Vec<Option<Value>>,
    /// The words' address, the leaf table, and the compiled program
    /// (`None`: the interpreter runs it).
    program: Option<(Value, Value, Option<FuncRef>)>,
}

impl BlockSlots {
    /// Blocks of `block` f32 values for `nodes`; with `root_direct` the
    /// last node writes into the output row and gets no result block.
    pub fn new(em: &mut Emitter, nodes: &[WideNode], root_direct: bool, block: i64) -> Self {
        let slot = |em: &mut Emitter, bytes: i64| {
            let s = em.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                bytes as u32,
                6,
            ));
            em.b.ins().stack_addr(I64, s, 0)
        };
        let last = nodes.len().saturating_sub(1);
        let slots = nodes
            .iter()
            .enumerate()
            .map(|(k, node)| {
                let own = (!(root_direct && k == last)).then(|| slot(em, block * 4));
                let program = node.program.as_ref().map(|program| {
                    let compiled =
                        super::program::define_compiled(em, program, node.operands.len());
                    let words: Box<[u64]> = program.clone().into_boxed_slice();
                    let addr = words.as_ptr() as i64;
                    em.consts.push(words);
                    let table = slot(em, 8 * node.operands.len().max(1) as i64);
                    (em.iconst(addr), table, compiled)
                });
                let fills = (0..node.operands.len())
                    .map(|i| (program.is_some() || i == 1).then(|| slot(em, block * 4)))
                    .collect();
                NodeSlots {
                    own,
                    fills,
                    program,
                }
            })
            .collect();
        BlockSlots { slots }
    }
}

/// One block of a row: elements `j0..j1` of dimension `d` of values with
/// dims `dims` in computation `comp`; with `rows`, whole rows `r0..r1` of
/// the next dimension out (`j0..j1` then spans the row, `0..n`).
pub(super) struct BlockRow<'a> {
    pub comp: CompId,
    pub dims: &'a [i64],
    pub d: usize,
    pub j0: Value,
    pub j1: Value,
    pub rows: Option<RowSpan>,
}

/// Consecutive short rows computed as one block (`kernel.rs`): rows
/// `r0..r1` of dimension `d`, `n` elements each; element `j` of row `r`
/// is element `(r - r0)·n + j` of every block.
#[derive(Clone, Copy)]
pub(super) struct RowSpan {
    pub d: usize,
    pub r0: Value,
    pub r1: Value,
    pub n: i64,
}

/// Whether `nodes` can run over blocks of whole rows of dimension `d`
/// inside dimension `dr` (`RowSpan`): a program reads a value that has
/// one value per row as one value for its whole block, so each such leaf
/// must also have one value along `dr`. Binary routines fill such operands
/// per row instead.
pub(super) fn spans_rows(
    comp: &rxla_ir::Computation,
    nodes: &[WideNode],
    d: usize,
    dr: usize,
) -> bool {
    nodes.iter().all(|w| {
        w.program.is_none()
            || w.operands
                .iter()
                .all(|&o| !row_invariant(comp, o, d, 4) || row_invariant(comp, o, dr, 4))
    })
}

/// Computes `nodes` over the block `row` (the other indices in `idx`) and
/// records each result's block in `em.blocked`; with `out_row` (the output
/// row's address at index 0 of `d`) the last node is written there.
pub(super) fn run_blocks(
    em: &mut Emitter,
    row: &BlockRow,
    nodes: &[WideNode],
    slots: &BlockSlots,
    idx: &mut [Value],
    out_row: Option<Value>,
    leaf_rows: &[(InstrId, Value)],
) -> Result<()> {
    let (c, d, j0, j1) = (row.comp, row.d, row.j0, row.j1);
    let mut unit = vec![0i64; idx.len()];
    unit[d] = 1;
    let sym = Sym::Dims(unit);
    let len = match row.rows {
        Some(s) => {
            idx[s.d] = s.r0;
            let k = em.b.ins().isub(s.r1, s.r0);
            em.b.ins().imul_imm_s(k, s.n)
        }
        None => em.b.ins().isub(j1, j0),
    };
    let len4 = em.b.ins().band_imm_s(len, !3);
    let vhi = em.b.ins().iadd(j0, len4);
    let shift = em.b.ins().ishl_imm_s(j0, 2);
    for (node, ns) in nodes.iter().zip(&slots.slots) {
        let own = ns.own;
        // `base + 4·j` addresses element `j` of the node's result.
        let base = match (own, out_row) {
            (Some(own), _) => em.b.ins().isub(own, shift),
            (None, Some(out)) => out,
            (None, None) => return Err(JitError::codegen("a wide node without a block")),
        };
        // Per operand: its block's address and step (1, or 0 for a value
        // the whole row shares).
        let mut ptrs = Vec::new();
        for (k, &operand) in node.operands.iter().enumerate() {
            idx[d] = j0;
            if let Some(&(ob, _)) = em.blocked.get(&(c, operand)) {
                // Another wide node's block, computed just before.
                let p = em.b.ins().iadd(ob, shift);
                ptrs.push((p, 1));
                continue;
            }
            // A kernel output the program reads: filled into its row below.
            let leaf_row = leaf_rows.iter().find(|(id, _)| *id == operand).map(|r| r.1);
            let binary = (node.operands.len() == 2 || ns.program.is_some()) && leaf_row.is_none();
            let comp = em.module.comp(c);
            let one = row_invariant(comp, operand, d, 4)
                && row
                    .rows
                    .is_none_or(|s| row_invariant(comp, operand, s.d, 4));
            if binary && one {
                let v = em.emit(c, operand, idx, None)?;
                let one = em.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    4,
                    2,
                ));
                em.b.ins().stack_store(I64, v, one, 0);
                let p = em.b.ins().stack_addr(I64, one, 0);
                ptrs.push((p, 0));
                continue;
            }
            if binary && let Some(p) = input_row(em, row, operand, idx)? {
                ptrs.push((p, 1));
                continue;
            }
            // Over several rows, a per-column value the rows share repeats
            // with the row length as its period (whole vectors only).
            let period = match row.rows {
                None => Some(1),
                Some(s) => (s.n % 16 == 0 && !maps_dim(comp, operand, s.d)).then_some(s.n),
            };
            if binary
                && let Some(step) = period
                && (step == 1 || node.program.is_none())
                && let Some(p) = broadcast_row(em, row, operand, idx)?
            {
                ptrs.push((p, step));
                continue;
            }
            // Filled by inline code: an operand that is also a kernel
            // output into its output row (written once, read back hot),
            // else the first operand into the result block (the routine may
            // run in place), a second into its own.
            let fill = match (leaf_row, ns.fills.get(k).copied().flatten()) {
                (Some(r), _) => r,
                (None, Some(s)) => em.b.ins().isub(s, shift),
                (None, None) if k == 0 => base,
                (None, None) => return Err(JitError::codegen("no block for an operand")),
            };
            if let Some(s) = row.rows {
                fill_rows(em, c, operand, s, d, fill, idx, &sym)?;
                ptrs.push((fill, 1));
                continue;
            }
            em.hoist(c, operand, idx, &sym);
            let flags = MemFlagsData::new().with_notrap();
            em.for_range(j0, vhi, 4, |em, j| {
                idx[d] = j;
                let v = em.emit(c, operand, idx, Some(&sym))?;
                let off = em.b.ins().ishl_imm_s(j, 2);
                let a = em.b.ins().iadd(fill, off);
                em.b.ins().store(flags, v, a, 0);
                Ok(())
            })?;
            em.for_range(vhi, j1, 1, |em, j| {
                idx[d] = j;
                let v = em.emit(c, operand, idx, None)?;
                let off = em.b.ins().ishl_imm_s(j, 2);
                let a = em.b.ins().iadd(fill, off);
                em.b.ins().store(flags, v, a, 0);
                Ok(())
            })?;
            ptrs.push((em.b.ins().iadd(fill, shift), 1));
        }
        let dst = em.b.ins().iadd(base, shift);
        if let Some((prog, table, compiled)) = ns.program {
            let flags = MemFlagsData::new().with_notrap();
            for (k, &(p, _)) in ptrs.iter().enumerate() {
                em.b.ins().store(flags, p, table, 8 * k as i32);
            }
            match compiled {
                Some(f) => {
                    em.b.ins().call(f, &[prog, dst, table, len]);
                }
                None => {
                    em.call(node.routine, &[prog, dst, table, len])?;
                }
            }
            em.blocked.insert((c, node.id), (base, d));
            continue;
        }
        match *ptrs.as_slice() {
            [(src, _)] => {
                em.call(node.routine, &[dst, src, len])?;
            }
            [(a, sa), (b, sb)] => {
                let (sa, sb) = (em.iconst(sa), em.iconst(sb));
                em.call(node.routine, &[dst, a, sa, b, sb, len])?;
            }
            _ => return Err(JitError::codegen("a wide node of another arity")),
        }
        em.blocked.insert((c, node.id), (base, d));
    }
    Ok(())
}

/// Whether `id` is a broadcast that maps dimension `d` of its result to
/// one of its operand's (so its value changes along `d`).
fn maps_dim(comp: &rxla_ir::Computation, id: InstrId, d: usize) -> bool {
    match &comp.get(id).op {
        rxla_ir::Op::Broadcast { dimensions } => dimensions.contains(&(d as i64)),
        _ => true,
    }
}

/// The wide nodes' blocks (`Emitter::blocked`) of a group of rows, each
/// holding the rows one after the other (row `r`'s element `j` at `base +
/// 4·((r - r0)·n + j)`): code reading row `r` must see that row's part,
/// not the first row's.
pub(super) struct RowBlocks(Vec<((CompId, InstrId), (Value, usize))>);

impl RowBlocks {
    /// The blocks as `run_blocks` left them (at the group's first row).
    pub fn snapshot(em: &Emitter) -> Self {
        RowBlocks(em.blocked.iter().map(|(k, v)| (*k, *v)).collect())
    }

    /// Points every block at row `r` of the span; returns the byte offset
    /// of that row from the first.
    pub fn select_row(&self, em: &mut Emitter, s: RowSpan, r: Value) -> Value {
        let k = em.b.ins().isub(r, s.r0);
        let off = em.b.ins().imul_imm_s(k, 4 * s.n);
        for &(key, (b, d)) in &self.0 {
            let p = em.b.ins().iadd(b, off);
            em.blocked.insert(key, (p, d));
        }
        off
    }

    /// The blocks at the group's first row again.
    pub fn restore(self, em: &mut Emitter) {
        for (key, v) in self.0 {
            em.blocked.insert(key, v);
        }
    }
}

/// Fills `operand` over the rows of `s` (element `j` of row `r` at
/// `fill + 4·((r - r0)·n + j)`) with the inline code: vectors of 4, then
/// a scalar tail per row.
#[allow(clippy::too_many_arguments)]
fn fill_rows(
    em: &mut Emitter,
    c: CompId,
    operand: InstrId,
    s: RowSpan,
    d: usize,
    fill: Value,
    idx: &mut [Value],
    sym: &Sym,
) -> Result<()> {
    let flags = MemFlagsData::new().with_notrap();
    let zero = em.iconst(0);
    let n4 = em.iconst(s.n & !3);
    let n = em.iconst(s.n);
    // Earlier wide nodes' blocks: row `r` reads its own rows of them.
    let group_blocks = RowBlocks::snapshot(em);
    em.for_range(s.r0, s.r1, 1, |em, r| {
        idx[s.d] = r;
        idx[d] = zero;
        let off = group_blocks.select_row(em, s, r);
        let at = em.b.ins().iadd(fill, off);
        em.hoist(c, operand, idx, sym);
        em.for_range(zero, n4, 4, |em, j| {
            idx[d] = j;
            let v = em.emit(c, operand, idx, Some(sym))?;
            let o = em.b.ins().ishl_imm_s(j, 2);
            let a = em.b.ins().iadd(at, o);
            em.b.ins().store(flags, v, a, 0);
            Ok(())
        })?;
        em.for_range(n4, n, 1, |em, j| {
            idx[d] = j;
            let v = em.emit(c, operand, idx, None)?;
            let o = em.b.ins().ishl_imm_s(j, 2);
            let a = em.b.ins().iadd(at, o);
            em.b.ins().store(flags, v, a, 0);
            Ok(())
        })
    })?;
    group_blocks.restore(em);
    idx[s.d] = s.r0;
    idx[d] = zero;
    Ok(())
}

/// When `operand` is an f32 input of the kernel with the row's dims whose
/// physically minor dimension is the row's (read at the row's own index,
/// contiguously; with several rows, the rows' dimension next out, so the
/// rows follow each other), the address of its element at `idx`.
fn input_row(
    em: &mut Emitter,
    row: &BlockRow,
    operand: InstrId,
    idx: &[Value],
) -> Result<Option<Value>> {
    let Some((base, shape)) = em.inputs.get(&(row.comp, operand)).cloned() else {
        return Ok(None);
    };
    let direct = matches!(
        shape.element_type,
        ElementType::F32 | ElementType::S32 | ElementType::U32
    ) && !shape.layout.is_padded()
        && shape.dims == row.dims
        && shape.layout.minor_to_major.first() == Some(&(row.d as i64))
        && row
            .rows
            .is_none_or(|s| shape.layout.minor_to_major.get(1) == Some(&(s.d as i64)));
    if !direct {
        return Ok(None);
    }
    em.address(base, &shape, idx).map(Some)
}

/// When `operand` broadcasts an f32 input of the kernel whose physically
/// minor dimension becomes the row's (a per-column value repeated down
/// the rows: the max or sum a softmax over axis 0 divides by), the
/// address of the input element the row's element at `idx` reads, so
/// the routine reads the input in place instead of a copied block.
fn broadcast_row(
    em: &mut Emitter,
    row: &BlockRow,
    operand: InstrId,
    idx: &[Value],
) -> Result<Option<Value>> {
    let i = em.module.comp(row.comp).get(operand);
    let rxla_ir::Op::Broadcast { dimensions } = &i.op else {
        return Ok(None);
    };
    let (Some(&src), true) = (i.operands.first(), i.shape.dims() == row.dims) else {
        return Ok(None);
    };
    let Some((base, shape)) = em
        .inputs
        .get(&(row.comp, src))
        .cloned()
        .or_else(|| reshaped_input(em, row.comp, src))
    else {
        return Ok(None);
    };
    let minor = shape.layout.minor_to_major.first().map(|&m| m as usize);
    let direct = shape.element_type == ElementType::F32
        && !shape.layout.is_padded()
        && !shape.is_dynamic()
        && dimensions.len() == shape.dims.len()
        && minor.is_some_and(|m| dimensions.get(m) == Some(&(row.d as i64)))
        && dimensions
            .iter()
            .zip(&shape.dims)
            .all(|(&o, &n)| row.dims.get(o as usize) == Some(&n));
    if !direct {
        return Ok(None);
    }
    let src_idx: Vec<Value> = dimensions.iter().map(|&o| idx[o as usize]).collect();
    em.address(base, &shape, &src_idx).map(Some)
}

/// A row-major reshape of a kernel input (JAX's `[b, 1, c]` → `[b, c]`
/// before a broadcast back): the input's bytes addressed as the reshape's
/// shape, both in the default layout.
fn reshaped_input(em: &Emitter, comp: CompId, id: InstrId) -> Option<(Value, rxla_ir::ArrayShape)> {
    let r = em.module.comp(comp).get(id);
    if !matches!(r.op, rxla_ir::Op::Reshape) {
        return None;
    }
    let (base, inner) = em.inputs.get(&(comp, *r.operands.first()?)).cloned()?;
    let shape = r.shape.as_array().ok()?;
    let plain =
        |a: &rxla_ir::ArrayShape| a.layout.is_default() && !a.layout.is_padded() && !a.is_dynamic();
    (plain(&inner) && plain(shape) && inner.element_type == shape.element_type)
        .then(|| (base, shape.clone()))
}

/// The kernel's instructions from `root` down to (and including) those
/// `is_input` names, users before operands, and each one's users inside
/// the kernel.
#[allow(clippy::type_complexity)]
pub(super) fn kernel_users(
    comp: &rxla_ir::Computation,
    root: InstrId,
    is_input: &dyn Fn(InstrId) -> bool,
) -> (
    Vec<InstrId>,
    std::collections::HashMap<InstrId, Vec<InstrId>>,
) {
    let mut nodes = std::collections::HashSet::new();
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if nodes.insert(id) && !is_input(id) {
            stack.extend(comp.get(id).operands.iter().copied());
        }
    }
    let mut ids: Vec<InstrId> = nodes.into_iter().collect();
    ids.sort_by_key(|i| std::cmp::Reverse(i.index()));
    let mut users: std::collections::HashMap<InstrId, Vec<InstrId>> = Default::default();
    for &id in &ids {
        if !is_input(id) {
            for &o in &comp.get(id).operands {
                users.entry(o).or_default().push(id);
            }
        }
    }
    (ids, users)
}
