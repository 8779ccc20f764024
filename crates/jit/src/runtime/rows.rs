//! Execution of a row group (`crate::rows`): the members' kernels run on
//! one block of rows after another, each block through every member
//! before the next; blocks are split over threads in chunks. A member
//! whose output is read only inside the group writes a per-chunk scratch
//! buffer of one block, addressed through a base pointer shifted back by
//! the block's first row (the kernel only touches the block's rows).
//! Must not change what a kernel computes or where the group's visible
//! results go.

use super::{
    Buf, Ctx, Leaf, Leaves, PARALLEL_MIN_ELEMENTS, StepState, kernel, kernel_input, leaves_of,
};
use crate::codegen::KernelFn;
use crate::error::{JitError, Result};
use crate::plan::{Program, Step};
use crate::rows::{GroupInput, RowGroup};
use rayon::prelude::*;

/// Scratch buffers of one group: per chunk, per scratch member.
#[derive(Default)]
pub struct GroupState {
    chunks: Vec<Vec<Buf>>,
}

/// One member, resolved for a run.
struct Member {
    f: KernelFn,
    /// Per input: a whole buffer, or member `k`'s scratch.
    ins: Vec<Src>,
    /// A whole output buffer, or `None` for scratch.
    out: Option<*mut u8>,
    /// Scratch bytes per row (scratch members).
    row_bytes: usize,
}

#[derive(Clone, Copy)]
enum Src {
    Whole(*const u8),
    Scratch(usize),
}

/// Raw pointers shared by the chunks.
struct Shared<T>(T);
// SAFETY: the pointers are live buffers for the whole run; chunks write
// disjoint rows of the whole outputs and their own scratch buffers.
unsafe impl<T> Send for Shared<T> {}
unsafe impl<T> Sync for Shared<T> {}
impl<T> Shared<T> {
    fn get(&self) -> &T {
        &self.0
    }
}

/// Runs `group`: fills `vals` for every member with a whole buffer.
pub(super) fn run_group(
    ctx: &Ctx,
    prog: &Program,
    group: &RowGroup,
    steps: &mut [StepState],
    gstate: &mut GroupState,
    vals: &mut [Leaves],
    (out, into_out): (Option<&[Leaf]>, &[Option<usize>]),
) -> Result<()> {
    let mut members = Vec::with_capacity(group.members.len());
    let mut elements = 0usize;
    for (k, &m) in group.members.iter().enumerate() {
        let Step::Kernel { meta, inputs, .. } = &prog.steps[m] else {
            return Err(JitError::codegen("row group member is not a kernel"));
        };
        elements += meta.elements;
        let f = kernel(ctx, meta.index)?;
        let mut ins = Vec::with_capacity(inputs.len());
        for (&id, src) in inputs.iter().zip(&group.inputs[k]) {
            ins.push(match *src {
                GroupInput::Member(j) if group.scratch_row_bytes[j].is_some() => Src::Scratch(j),
                _ => Src::Whole(kernel_input(prog, vals, id)?),
            });
        }
        let (out_ptr, row_bytes) = match group.scratch_row_bytes[k] {
            Some(rb) => (None, rb),
            None => {
                let sizes = &prog.leaf_bytes[m];
                let o = match out {
                    Some(o) if m == prog.root.index() && o.len() == 1 && o[0].len == sizes[0] => {
                        Leaves::from_slice(o)
                    }
                    // An element of a tuple root (`tuple_root_outputs`).
                    Some(o)
                        if let Some(j) = into_out.get(m).copied().flatten()
                            && sizes.len() == 1
                            && o.get(j).is_some_and(|l| l.len == sizes[0]) =>
                    {
                        Leaves::from_slice(&o[j..j + 1])
                    }
                    _ => leaves_of(&mut steps[m], sizes),
                };
                let p = o[0].ptr;
                vals[m] = o;
                (Some(p), 0)
            }
        };
        members.push(Member {
            f,
            ins,
            out: out_ptr,
            row_bytes,
        });
    }
    let rows = group.rows;
    let block = group.block.max(1);
    let blocks = (rows + block - 1) / block;
    let chunks = match ctx.pool {
        Some(_) if ctx.threads > 1 && elements >= PARALLEL_MIN_ELEMENTS => {
            (ctx.threads as i64 * 4).min(blocks).max(1)
        }
        _ => 1,
    };
    // Scratch: one block per scratch member per chunk (kept between runs).
    let sizes: Vec<usize> = members
        .iter()
        .map(|m| {
            if m.out.is_none() {
                m.row_bytes * block as usize
            } else {
                0
            }
        })
        .collect();
    if gstate.chunks.len() != chunks as usize
        || gstate
            .chunks
            .iter()
            .any(|c| c.iter().map(|b| b.len).ne(sizes.iter().copied()))
    {
        gstate.chunks = (0..chunks)
            .map(|_| sizes.iter().map(|&n| Buf::new(n)).collect())
            .collect();
    }
    let scratch: Vec<Leaves> = gstate
        .chunks
        .iter_mut()
        .map(|c| c.iter_mut().map(Buf::leaf).collect())
        .collect();
    let scratch = Shared(scratch);
    let members = Shared(members);
    let run_chunk = |c: i64| {
        let lo_block = blocks * c / chunks;
        let hi_block = blocks * (c + 1) / chunks;
        let own = &scratch.get()[c as usize];
        let members = members.get();
        let mut ins: Vec<*const u8> = Vec::new();
        let mut outs: [*mut u8; 1] = [std::ptr::null_mut()];
        for b in lo_block..hi_block {
            let r0 = b * block;
            let r1 = (r0 + block).min(rows);
            for (k, m) in members.iter().enumerate() {
                // A scratch pointer shifted so that row r0 is its start.
                let shifted =
                    |j: usize| own[j].ptr.wrapping_sub(r0 as usize * members[j].row_bytes);
                ins.clear();
                ins.extend(m.ins.iter().map(|s| match *s {
                    Src::Whole(p) => p,
                    Src::Scratch(j) => shifted(j) as *const u8,
                }));
                outs[0] = m.out.unwrap_or_else(|| shifted(k));
                // SAFETY: rows r0..r1 of every output are written by this
                // block only; scratch rows r0..r1 are this chunk's buffer;
                // every member reads earlier members only at those rows
                // (`rows::row_local_inputs`).
                unsafe { (m.f)(ins.as_ptr(), outs.as_ptr(), r0, r1) };
            }
        }
    };
    match ctx.pool {
        Some(pool) if chunks > 1 => {
            pool.install(|| (0..chunks).into_par_iter().for_each(run_chunk))
        }
        _ => run_chunk(0),
    }
    Ok(())
}
