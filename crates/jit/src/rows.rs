//! Row groups: consecutive kernels of a host computation that run block of
//! rows by block of rows instead of one whole output after another.
//!
//! Every kernel computes output rows `lo..hi` of its physically major
//! dimension. When kernel B reads kernel A's output only at the row it is
//! computing (softmax: max → exp → sum → divide, each row of the next
//! needs the same row of the previous), the pair can run A(rows r..r+b),
//! B(rows r..r+b), then the next block: A's block is still in cache when B
//! reads it. A value read only inside the group never needs a whole buffer:
//! it lives in a per-block scratch buffer that the kernels address through
//! a base pointer shifted by the block's first row.
//!
//! A column reduction that keeps the operand's first dimension (softmax or
//! a norm over a middle axis: `[b, n, c]` reduced over `n`) joins a group
//! too: its output row `b` folds operand slab `b` only, so the slab is
//! read from memory once by the whole group instead of once per member.
//!
//! This module decides (plan time): [`row_local_inputs`] tells, per input
//! of a kernel, whether computing output row r reads only row r of it;
//! [`find_groups`] picks the groups. `runtime` executes them. It must not
//! change what any kernel computes — only the order in which rows are
//! computed and where intermediate rows are kept.

use crate::codegen::KernelSpec;
use crate::plan::{Program, Step};
use rxla_ir::{ArrayShape, InstrId, Module, Op, Shape};
use std::collections::HashMap;

/// A value the group reads: computed before the group, or by a member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupInput {
    /// Another instruction's buffer (ready before the group runs).
    Outside(InstrId),
    /// The output of member `k` (index into `RowGroup::members`).
    Member(usize),
}

/// Consecutive kernels run row block by row block.
#[derive(Clone, Debug)]
pub struct RowGroup {
    /// Step indices, ascending; the group runs when the last is reached.
    pub members: Vec<usize>,
    /// The shared extent of the members' major output dimension.
    pub rows: i64,
    /// Rows per block.
    pub block: i64,
    /// Per member, per kernel input.
    pub inputs: Vec<Vec<GroupInput>>,
    /// Per member: `Some(bytes per row)` when its output is read only by
    /// later members (kept in per-block scratch), `None` when it needs its
    /// whole buffer (read after the group, or the program's result).
    pub scratch_row_bytes: Vec<Option<usize>>,
}

/// Bytes the members of a block may touch together (inputs, outputs and
/// scratch rows): half of a 512 KiB L2.
const BLOCK_BYTES: usize = 256 << 10;

/// The most bytes one row of a group with a column reduction may touch
/// (inputs counted once per member that reads them): a 1 MiB L2.
const COL_ROW_MAX_BYTES: usize = 1 << 20;

/// For each input of the kernel `spec` (in `spec.inputs` order): whether
/// computing output row `r` (index `r` of the output's physically major
/// dimension) reads only row `r` of that input's physically major
/// dimension, both of the same extent. Conservative: any op this does not
/// understand reads "everything".
pub fn row_local_inputs(module: &Module, spec: &KernelSpec, out: &ArrayShape) -> Vec<bool> {
    let comp = module.comp(spec.comp);
    let rows_of = |a: &ArrayShape| -> Option<(usize, i64)> {
        let d = *a.layout.minor_to_major.last()? as usize;
        Some((d, *a.dims.get(d)?))
    };
    let Some((out_dim, rows)) = rows_of(out) else {
        return vec![false; spec.inputs.len()];
    };
    let index: HashMap<InstrId, usize> = spec
        .inputs
        .iter()
        .enumerate()
        .map(|(k, (id, _))| (*id, k))
        .collect();
    // `local[k]`: None = not read yet, Some(ok).
    let mut local: Vec<Option<bool>> = vec![None; spec.inputs.len()];
    // Each (instruction, row dim) is visited once.
    let mut seen = std::collections::HashSet::new();
    let mut stack: Vec<(InstrId, Option<usize>)> = vec![(spec.root, Some(out_dim))];
    while let Some((id, d)) = stack.pop() {
        if !seen.insert((id, d)) {
            continue;
        }
        if let Some(&k) = index.get(&id) {
            let shape = &spec.inputs[k].1;
            // Read at the row dimension, which is the input's major one,
            // of the same extent.
            let ok =
                !shape.layout.is_padded() && d.is_some() && rows_of(shape) == d.zip(Some(rows));
            local[k] = Some(local[k].unwrap_or(true) && ok);
            continue;
        }
        let instr = comp.get(id);
        let dims = |o: InstrId| -> Option<&[i64]> {
            match &comp.get(o).shape {
                Shape::Array(a) => Some(&a.dims),
                Shape::Tuple(_) => None,
            }
        };
        let my_dims: &[i64] = match &instr.shape {
            Shape::Array(a) => &a.dims,
            Shape::Tuple(_) => &[],
        };
        for (pos, &o) in instr.operands.iter().enumerate() {
            // The operand dimension whose index equals the output row.
            let od = d.and_then(|d| {
                let odims = dims(o)?;
                let same = |e: usize| (odims.get(e) == my_dims.get(d)).then_some(e);
                match &instr.op {
                    op if op.is_elementwise() => {
                        (odims.len() == my_dims.len()).then_some(d).and_then(same)
                    }
                    Op::Map { .. } | Op::Copy => same(d),
                    Op::Broadcast { dimensions } => dimensions
                        .iter()
                        .position(|&x| x as usize == d)
                        .and_then(same),
                    Op::Transpose { permutation } => {
                        permutation.get(d).and_then(|&p| same(p as usize))
                    }
                    // Row-major reshapes keep the leading index when the
                    // leading extents agree.
                    Op::Reshape if d == 0 => same(0),
                    Op::Reduce { dimensions, .. } if pos < instr.operands.len() / 2 => {
                        let kept: Vec<usize> = (0..odims.len())
                            .filter(|e| !dimensions.contains(&(*e as i64)))
                            .collect();
                        kept.get(d).copied().and_then(same)
                    }
                    Op::Slice {
                        starts,
                        limits,
                        strides,
                    } if starts.get(d) == Some(&0)
                        && strides.get(d) == Some(&1)
                        && limits.get(d) == odims.get(d) =>
                    {
                        same(d)
                    }
                    Op::Concatenate { dimension } if *dimension as usize != d => same(d),
                    Op::Reverse { dimensions } if !dimensions.contains(&(d as i64)) => same(d),
                    Op::Pad { config }
                        if pos == 0
                            && config
                                .get(d)
                                .is_some_and(|c| c.low == 0 && c.high == 0 && c.interior == 0) =>
                    {
                        same(d)
                    }
                    _ => None,
                }
            });
            stack.push((o, od));
        }
    }
    local.into_iter().map(|l| l.unwrap_or(true)).collect()
}

/// A step that can join a row group: its row count (the extent of its
/// output's physically major dimension, which it computes block by block)
/// and the values it reads, in the order of its `row_local` entry. A
/// kernel without a relayout after it; a column reduction
/// (`runtime::colreduce`) that keeps the operand's first dimension: output
/// row `r` folds operand row `r` (its slab) only, read from the operand
/// or, with a producer, computed by the producer kernel at row `r`; an
/// epilogue must compute its rows from the same rows of the reduced value
/// (the planner records the step's `row_local` entry only then). A column
/// reduction reads the instruction's operands.
pub fn member_rows(prog: &Program, i: usize) -> Option<(i64, Vec<InstrId>)> {
    match prog.steps.get(i)? {
        Step::Kernel {
            meta, inputs, post, ..
        } if post.is_none() => Some((meta.outer, inputs.clone())),
        Step::ColReduce(c) if c.reduced.first() == Some(&false) => {
            let rows = *c.dims.first()?;
            if c.epilogue.as_ref().is_some_and(|e| e.meta.outer != rows) {
                return None;
            }
            Some((rows, prog.operands.get(i)?.clone()))
        }
        _ => None,
    }
}

/// Picks the row groups of `prog`: maximal runs of kernel and column
/// reduction steps ([`member_rows`]; only dead, parameter and constant
/// steps between them) with one output leaf,
/// the same major extent, each reading earlier members only row-locally
/// (`row_local`, per kernel step, per input, from `row_local_inputs`),
/// writing at least `min_bytes` together.
pub fn find_groups(
    prog: &Program,
    row_local: &HashMap<usize, Vec<bool>>,
    users: &[Vec<InstrId>],
    min_bytes: usize,
) -> Vec<RowGroup> {
    let mut groups = Vec::new();
    let mut cur: Vec<usize> = Vec::new();
    // The members of `cur`, for constant-time lookups (a chain of
    // thousands of kernels would otherwise scan `cur` per input).
    let mut in_cur: std::collections::HashSet<usize> = std::collections::HashSet::new();
    let mut rows = 0i64;
    let flush = |cur: &mut Vec<usize>,
                 in_cur: &mut std::collections::HashSet<usize>,
                 rows: i64,
                 groups: &mut Vec<RowGroup>| {
        if cur.len() >= 2
            && let Some(g) = make_group(prog, std::mem::take(cur), rows, users, min_bytes)
        {
            groups.push(g);
        }
        cur.clear();
        in_cur.clear();
    };
    for (i, step) in prog.steps.iter().enumerate() {
        match step {
            Step::Dead | Step::Param(_) | Step::Const(_) => continue,
            Step::Kernel { .. } | Step::ColReduce(_)
                if let Some((outer, inputs)) = member_rows(prog, i)
                    && prog.leaf_bytes[i].len() == 1
                    && outer >= 2 =>
            {
                let Some(local) = row_local.get(&i) else {
                    flush(&mut cur, &mut in_cur, rows, &mut groups);
                    continue;
                };
                let fits = !cur.is_empty()
                    && outer == rows
                    && inputs
                        .iter()
                        .zip(local)
                        .all(|(id, &ok)| ok || !in_cur.contains(&id.index()));
                if !fits {
                    flush(&mut cur, &mut in_cur, rows, &mut groups);
                    rows = outer;
                }
                cur.push(i);
                in_cur.insert(i);
            }
            _ => flush(&mut cur, &mut in_cur, rows, &mut groups),
        }
    }
    flush(&mut cur, &mut in_cur, rows, &mut groups);
    groups
}

fn make_group(
    prog: &Program,
    members: Vec<usize>,
    rows: i64,
    users: &[Vec<InstrId>],
    min_bytes: usize,
) -> Option<RowGroup> {
    let total: usize = members.iter().map(|&m| prog.leaf_bytes[m][0]).sum();
    if total < min_bytes {
        return None;
    }
    let mut inputs = Vec::with_capacity(members.len());
    let mut scratch = Vec::with_capacity(members.len());
    let mut per_row = 0usize;
    // Member step -> its position in the group (lookups stay O(1) in
    // groups of thousands of kernels).
    let pos: std::collections::HashMap<usize, usize> =
        members.iter().enumerate().map(|(j, &m)| (m, j)).collect();
    for (k, &m) in members.iter().enumerate() {
        let (_, ins) = member_rows(prog, m)?;
        let mut v = Vec::with_capacity(ins.len());
        for id in &ins {
            match pos.get(&id.index()).copied() {
                Some(j) => v.push(GroupInput::Member(j)),
                None => {
                    per_row +=
                        prog.leaf_bytes[id.index()].first().copied().unwrap_or(0) / rows as usize;
                    v.push(GroupInput::Outside(*id));
                }
            }
        }
        inputs.push(v);
        let bytes = prog.leaf_bytes[m][0];
        per_row += bytes / rows as usize;
        let inside = users[m]
            .iter()
            .all(|u| pos.get(&u.index()).is_some_and(|&j| j > k));
        let scratch_ok = inside && m != prog.root.index() && bytes.is_multiple_of(rows as usize);
        scratch.push(scratch_ok.then_some(bytes / rows as usize));
    }
    // A column reduction's row is a whole slab: where one row of every
    // member no longer fits in L2, blocks bring no reuse, only the cost of
    // cutting the reductions up (group norm over NHWC images).
    let col = members
        .iter()
        .any(|&m| matches!(prog.steps[m], Step::ColReduce(_)));
    if col && per_row > COL_ROW_MAX_BYTES {
        return None;
    }
    let block = (BLOCK_BYTES / per_row.max(1)).clamp(1, rows as usize) as i64;
    Some(RowGroup {
        members,
        rows,
        block,
        inputs,
        scratch_row_bytes: scratch,
    })
}
