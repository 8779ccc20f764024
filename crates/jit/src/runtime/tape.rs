//! Replay of `while` iterations. Once a loop is running, its carry
//! alternates between two buffer sets and every step of the condition and
//! body owns fixed buffers, so an iteration that starts from the same
//! carry buffers makes the same kernel calls on the same pointers. When
//! both programs consist only of pointer moves (parameters, constants,
//! tuples, tuple elements), kernels and plain f32 GEMMs (`recordable`),
//! the loop records one iteration per carry parity as a [`Tape`] and then
//! replays it: a list of calls and copies instead of an interpretation of
//! the programs (per iteration a few nanoseconds instead of a few hundred).
//!
//! Must not: record a program with a step whose choice of work depends on
//! data (selects of tuples, guards, nested loops and conditionals,
//! relayouts, row groups, host steps); outlive the programs it points
//! into (a tape is local to one execution of the `while` step).

use super::{Ctx, Leaf, Leaves, call_kernel};
use crate::codegen::KernelFn;
use crate::error::{JitError, Result};
use crate::plan::{GemmPlan, Program, Step};
use rxla_ir::ElementType;

/// One recorded action.
pub enum Op {
    Kernel {
        f: KernelFn,
        ins: smallvec::SmallVec<[*const u8; 8]>,
        outs: smallvec::SmallVec<[*mut u8; 4]>,
        outer: i64,
        elements: usize,
    },
    /// An f32 dot or convolution; `plan` points into the program's step.
    Gemm {
        plan: *const GemmPlan,
        lhs: Leaf,
        rhs: Leaf,
        out: Leaf,
        /// The dot's result is checked for inf/NaN (`GemmGuard`).
        guarded: bool,
    },
    /// A dynamic-update-slice of a carry leaf in place; the start indices
    /// are read at replay time.
    Dus {
        step: *const super::dus::DusStep,
        target: Leaf,
        update: Leaf,
        starts: smallvec::SmallVec<[Leaf; 4]>,
    },
    Copy {
        src: Leaf,
        dst: Leaf,
    },
}

/// The actions of a program run (or of a loop body and its carry copies).
#[derive(Default)]
pub struct Recording {
    pub ops: Vec<Op>,
}

// SAFETY: a recording holds raw pointers into buffers and plans of the
// state it is recorded in; it is filled and consumed by one execution of
// a `while` step on one thread and never outlives it (the field in
// `ProgState` is `None` between runs), so moving the state to another
// thread moves no live pointer use.
unsafe impl Send for Recording {}

impl Recording {
    /// Replays the actions in order; `false` when a guarded dot's result
    /// holds inf/NaN, which the interpreter redoes exactly: the caller then
    /// runs the whole program again (its steps write only their own
    /// buffers, so a second run gives the same values).
    pub fn run(&self, ctx: &Ctx) -> Result<bool> {
        for op in &self.ops {
            match op {
                Op::Kernel {
                    f,
                    ins,
                    outs,
                    outer,
                    elements,
                } => call_kernel(ctx, *f, ins, outs, *outer, *elements),
                Op::Gemm {
                    plan,
                    lhs,
                    rhs,
                    out,
                    guarded,
                } => {
                    let opts = rxla_gemm::Options::with_threads(ctx.threads);
                    // SAFETY: the plan lives in the program the loop runs
                    // (the tape never outlives that step's execution); the
                    // buffers are the ones the recorded run checked and used.
                    let (lp, rp, op) = (
                        lhs.ptr as *const f32,
                        rhs.ptr as *const f32,
                        out.ptr as *mut f32,
                    );
                    // SAFETY: as above.
                    let res = unsafe {
                        match &**plan {
                            GemmPlan::Dot(p) => p.run_f32_raw(lp, rp, op, None, &opts),
                            GemmPlan::Conv(p) => p.run_f32_raw(lp, rp, op, None, &opts),
                        }
                    };
                    res.map_err(|e| JitError::input(format!("gemm: {e}")))?;
                    if *guarded
                        // SAFETY: live buffers of the recorded lengths.
                        && unsafe {
                            super::dot_may_differ_non_finite(
                                super::bytes(*lhs),
                                super::bytes(*rhs),
                                super::bytes(*out),
                            )
                        }
                    {
                        return Ok(false);
                    }
                }
                Op::Dus {
                    step,
                    target,
                    update,
                    starts,
                } => {
                    // SAFETY: the step lives in the program (see above); the
                    // leaves are the live buffers the recorded run checked:
                    // the target is the loop's own carry leaf, distinct from
                    // the update and the indices.
                    let (d, buf, upd) =
                        unsafe { (&**step, super::bytes_mut(*target), super::bytes(*update)) };
                    // SAFETY: as above.
                    let starts: smallvec::SmallVec<[&[u8]; 4]> =
                        starts.iter().map(|&l| unsafe { super::bytes(l) }).collect();
                    super::dus::update_in_place(d, buf, upd, &starts)?;
                }
                Op::Copy { src, dst } => super::copy_leaf(*src, *dst),
            }
        }
        Ok(true)
    }
}

/// One recorded loop iteration: valid when the carry starts in `start`.
pub struct Tape {
    pub start: Leaves,
    pub cond: Recording,
    /// Where the condition leaves its predicate.
    pub pred: Leaf,
    pub body: Recording,
    /// The carry after the body (and its copies).
    pub next: Leaves,
}

impl Tape {
    /// Whether the carry is where it was when this tape was recorded.
    pub fn matches(&self, cur: &[Leaf]) -> bool {
        self.start.len() == cur.len()
            && self
                .start
                .iter()
                .zip(cur)
                .all(|(a, b)| a.ptr == b.ptr && a.len == b.len)
    }
}

/// Whether every step of `prog` does the same work on the same buffers
/// whatever the data (see the module doc).
pub fn recordable(prog: &Program) -> bool {
    prog.entry.is_none()
        && prog.exit.is_none()
        && prog.groups.is_empty()
        && prog.steps.iter().all(|s| match s {
            Step::Dead
            | Step::Param(_)
            | Step::Const(_)
            | Step::Alias { .. }
            | Step::Tuple
            | Step::Token => true,
            Step::Leaves { from, .. } => from.iter().all(|f| f.relayout.is_none()),
            Step::Kernel { post, .. } => post.is_none(),
            Step::DusInPlace(_) => true,
            Step::Gemm {
                plan,
                guard,
                types,
                epi,
                ..
            } => {
                epi.is_none()
                    && types.iter().all(|&t| t == ElementType::F32)
                    && (guard.is_none() || matches!(plan.as_ref(), GemmPlan::Dot(_)))
            }
            _ => false,
        })
}
