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
use crate::runtime::colreduce::{self, ColReduceStep};
use rayon::prelude::*;

/// Scratch buffers of one group: per chunk, per scratch member.
#[derive(Default)]
pub struct GroupState {
    chunks: Vec<Vec<Buf>>,
}

/// One member, resolved for a run.
struct Member {
    work: Work,
    /// Per input: a whole buffer, or member `k`'s scratch.
    ins: Vec<Src>,
    /// A whole output buffer, or `None` for scratch.
    out: Option<*mut u8>,
    /// Output bytes per row.
    row_bytes: usize,
}

/// What a member computes for a block of rows.
enum Work {
    /// A kernel over output rows `lo..hi`.
    Kernel(KernelFn),
    /// A column reduction (`colreduce`) of operand slabs `lo..hi` into
    /// output rows `lo..hi`: `steps` is the step cut to a full block and
    /// to the last, shorter one.
    Col {
        steps: [Box<ColReduceStep>; 2],
        /// Bytes of one operand slab (the plain form's input row).
        in_row_bytes: usize,
        /// Which input is the reduced operand (plain form).
        input: usize,
        /// The producer kernel (its inputs are `Member::ins`).
        producer: Option<KernelFn>,
        /// Producer scratch bytes (a block of operand rows).
        scratch_bytes: usize,
        /// The epilogue kernel (inputs: the reduced rows, then
        /// `Member::ins`) and the reduced value's bytes per row.
        epilogue: Option<(KernelFn, usize)>,
    },
}

/// `step` with its first dimension cut to `rows`.
fn cut(step: &ColReduceStep, rows: i64) -> Box<ColReduceStep> {
    let mut s = step.clone();
    if let Some(d) = s.dims.first_mut() {
        *d = rows;
    }
    Box::new(s)
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
    let rows = group.rows;
    let block = group.block.max(1);
    for (k, &m) in group.members.iter().enumerate() {
        let Some((_, inputs)) = crate::rows::member_rows(prog, m) else {
            return Err(JitError::codegen("row group member is not a kernel"));
        };
        let work = match &prog.steps[m] {
            Step::Kernel { meta, .. } => {
                elements += meta.elements;
                Work::Kernel(kernel(ctx, meta.index)?)
            }
            Step::ColReduce(c) => {
                let slab: usize = c.dims.iter().skip(1).map(|&d| d as usize).product();
                elements += slab * rows as usize;
                let producer = match &c.producer {
                    Some(p) => Some(kernel(ctx, p.meta.index)?),
                    None => None,
                };
                let epilogue = match &c.epilogue {
                    Some(e) => Some((kernel(ctx, e.meta.index)?, e.acc_bytes / rows as usize)),
                    None => None,
                };
                let tail = match rows % block {
                    0 => block,
                    t => t,
                };
                Work::Col {
                    steps: [cut(c, block), cut(c, tail)],
                    in_row_bytes: 4 * slab,
                    input: c.input,
                    producer,
                    scratch_bytes: c.scratch_bytes(),
                    epilogue,
                }
            }
            _ => return Err(JitError::codegen("row group member is not a kernel")),
        };
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
                let row_bytes = prog.leaf_bytes[m].first().copied().unwrap_or(0) / rows as usize;
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
                (Some(p), row_bytes)
            }
        };
        members.push(Member {
            work,
            ins,
            out: out_ptr,
            row_bytes,
        });
    }
    let blocks = (rows + block - 1) / block;
    let chunks = match ctx.pool {
        Some(_) if ctx.threads > 1 && elements >= PARALLEL_MIN_ELEMENTS => {
            (ctx.threads as i64 * 4).min(blocks).max(1)
        }
        _ => 1,
    };
    // Scratch: one block per scratch member per chunk (kept between runs),
    // then per member its producer's block of operand rows, then its
    // epilogue's block of reduced rows.
    let sizes: Vec<usize> = members
        .iter()
        .map(|m| {
            if m.out.is_none() {
                m.row_bytes * block as usize
            } else {
                0
            }
        })
        .chain(members.iter().map(|m| match m.work {
            Work::Col { scratch_bytes, .. } => scratch_bytes,
            Work::Kernel(_) => 0,
        }))
        .chain(members.iter().map(|m| match m.work {
            Work::Col {
                epilogue: Some((_, acc_row)),
                ..
            } => acc_row * block as usize,
            _ => 0,
        }))
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
    let run_chunk = |c: i64| -> Result<()> {
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
                match &m.work {
                    // SAFETY: rows r0..r1 of every output are written by
                    // this block only; scratch rows r0..r1 are this chunk's
                    // buffer; every member reads earlier members only at
                    // those rows (`rows::row_local_inputs`).
                    Work::Kernel(f) => unsafe { f(ins.as_ptr(), outs.as_ptr(), r0, r1) },
                    Work::Col { .. } => {
                        let scratch = [own[members.len() + k], own[2 * members.len() + k]];
                        // SAFETY: as for kernels: output rows r0..r1 and
                        // operand slabs r0..r1 lie inside their buffers
                        // (whole, or this chunk's scratch block shifted by
                        // r0 rows), and `scratch` is this chunk's own.
                        unsafe { run_col(m, &ins, outs[0], scratch, r0, r1, r1 - r0 < block) }?;
                    }
                }
            }
        }
        Ok(())
    };
    match ctx.pool {
        Some(pool) if chunks > 1 => {
            pool.install(|| (0..chunks).into_par_iter().try_for_each(run_chunk))?
        }
        _ => run_chunk(0)?,
    }
    Ok(())
}

/// Runs column-reduction member `m` for rows `r0..r1` (`tail`: the last,
/// shorter block): output rows from `out` shifted by r0 rows, operand
/// slabs from its reduced input likewise (plain form), or computed by the
/// producer into `scratch[0]` (its inputs at their row-`r0`-shifted
/// addresses); with an epilogue the rows are reduced into `scratch[1]`
/// and the epilogue kernel computes the output rows from them.
///
/// # Safety
/// `out + r0·row_bytes` holds `r1 - r0` output rows; `ins` point at
/// buffers whose rows `r0..r1` are readable at the member's row sizes;
/// `scratch` are live buffers no one else uses, of the sizes `run_group`
/// gives them.
unsafe fn run_col(
    m: &Member,
    ins: &[*const u8],
    out: *mut u8,
    scratch: [Leaf; 2],
    r0: i64,
    r1: i64,
    tail: bool,
) -> Result<()> {
    let Work::Col {
        steps,
        in_row_bytes,
        input,
        producer,
        epilogue,
        ..
    } = &m.work
    else {
        return Err(JitError::codegen(
            "row group member is not a column reduction",
        ));
    };
    let n = (r1 - r0) as usize;
    let step = &steps[usize::from(tail)];
    if step.dims.first() != Some(&(r1 - r0)) {
        return Err(JitError::codegen("row group: column reduction block size"));
    }
    // SAFETY: the caller's contract (the reduced rows go to the epilogue's
    // block when there is one).
    let red = unsafe {
        match epilogue {
            Some((_, acc_row)) if scratch[1].len >= n * acc_row => {
                std::slice::from_raw_parts_mut(scratch[1].ptr, n * acc_row)
            }
            Some(_) => return Err(JitError::codegen("row group: epilogue scratch too small")),
            None => std::slice::from_raw_parts_mut(
                out.wrapping_add(r0 as usize * m.row_bytes),
                n * m.row_bytes,
            ),
        }
    };
    unsafe {
        fold_col(
            step,
            red,
            ins,
            scratch[0],
            *in_row_bytes,
            *input,
            *producer,
            r0,
            n,
        )
    }?;
    if let Some((f, acc_row)) = epilogue {
        let mut e_ins = Vec::with_capacity(ins.len() + 1);
        // Shifted back so that row r0 is the block's first.
        e_ins.push(scratch[1].ptr.wrapping_sub(r0 as usize * acc_row) as *const u8);
        e_ins.extend_from_slice(ins);
        let outs = [out];
        // SAFETY: the epilogue reads reduced rows r0..r1 only (the
        // planner's condition) and writes output rows r0..r1.
        unsafe { f(e_ins.as_ptr(), outs.as_ptr(), r0, r1) };
    }
    Ok(())
}

/// Folds slabs `r0..r0+n` into `out` (the reduced rows of the block).
///
/// # Safety
/// As [`run_col`].
#[allow(clippy::too_many_arguments)]
unsafe fn fold_col(
    step: &ColReduceStep,
    out: &mut [u8],
    ins: &[*const u8],
    scratch: Leaf,
    in_row_bytes: usize,
    input: usize,
    producer: Option<KernelFn>,
    r0: i64,
    n: usize,
) -> Result<()> {
    match producer {
        Some(f) => {
            let row_bytes = in_row_bytes;
            // SAFETY: this chunk's own scratch buffer.
            let sb = unsafe { std::slice::from_raw_parts_mut(scratch.ptr, scratch.len) };
            colreduce::run_with_producer(step, out, sb, |lo, hi, block| {
                // Rows lo..hi of the cut step are rows r0+lo..r0+hi of the
                // whole: the kernel writes them at its base plus that many
                // rows, so a base shifted back puts them at `block`'s start.
                let base = block
                    .as_mut_ptr()
                    .wrapping_sub((r0 + lo) as usize * row_bytes);
                let outs = [base];
                // SAFETY: the kernel writes exactly those rows, inside
                // `block`, and reads its inputs at rows r0+lo..r0+hi.
                unsafe { f(ins.as_ptr(), outs.as_ptr(), r0 + lo, r0 + hi) };
                Ok(())
            })
        }
        None => {
            let p = *ins
                .get(input)
                .ok_or_else(|| JitError::codegen("column reduction without its operand"))?;
            // SAFETY: the caller's contract: slabs r0..r1 of the operand.
            let input = unsafe {
                std::slice::from_raw_parts(
                    p.wrapping_add(r0 as usize * in_row_bytes),
                    n * in_row_bytes,
                )
            };
            colreduce::run(step, input, out)
        }
    }
}
