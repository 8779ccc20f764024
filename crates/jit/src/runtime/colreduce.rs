//! A reduction that keeps the operand's contiguous (minor) dimension — a
//! softmax or a mean over axis 0, a variance over a middle axis — as a
//! host step that streams the operand row by row: each output row is an
//! accumulator row, and every operand row along the reduced dimensions is
//! folded into it with one pass over contiguous memory. Per output element
//! the fold is the evaluator's exactly (the init first, then the reduced
//! elements in row-major order, `reducer(acc, x)` with its operands in the
//! reducer's order), so results are bit-identical but for the sign and
//! payload of a NaN result (which NaN operand an add or multiply keeps is
//! the compiler's choice, as everywhere in rxla); only the loop order
//! differs from a per-element walk down a column, which strides through
//! memory (a TLB miss per row) and was five times slower than XLA.
//! f32 add/multiply/maximum/minimum reducers only; the planner decides.

use crate::error::{JitError, Result};

/// The reducer's operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColOp {
    Add,
    Mul,
    Max,
    Min,
}

/// A planned column reduction over a row-major f32 operand.
#[derive(Clone, Debug)]
pub struct ColReduceStep {
    /// Operand dimensions (row-major); the last one is kept.
    pub dims: Vec<i64>,
    /// Per operand dimension: reduced.
    pub reduced: Vec<bool>,
    pub op: ColOp,
    /// The reducer computes `op(acc, x)` (else `op(x, acc)`).
    pub acc_first: bool,
    pub init: f32,
}

/// Folds `row` into `acc` element by element.
fn fold(op: ColOp, acc_first: bool, acc: &mut [f32], row: &[f32]) {
    macro_rules! each {
        ($f:expr) => {
            for (a, &x) in acc.iter_mut().zip(row) {
                *a = if acc_first { $f(*a, x) } else { $f(x, *a) };
            }
        };
    }
    match op {
        ColOp::Add => each!(|a: f32, b: f32| a + b),
        ColOp::Mul => each!(|a: f32, b: f32| a * b),
        ColOp::Max => each!(rxla_eval::elementwise::max_f32),
        ColOp::Min => each!(rxla_eval::elementwise::min_f32),
    }
}

fn as_f32(b: &[u8]) -> Result<&[f32]> {
    // SAFETY: every bit pattern is a valid f32; alignment is checked.
    let (pre, mid, post) = unsafe { b.align_to::<f32>() };
    if !pre.is_empty() || !post.is_empty() {
        return Err(JitError::input("column reduction: unaligned f32 buffer"));
    }
    Ok(mid)
}

fn as_f32_mut(b: &mut [u8]) -> Result<&mut [f32]> {
    // SAFETY: as in `as_f32`.
    let (pre, mid, post) = unsafe { b.align_to_mut::<f32>() };
    if !pre.is_empty() || !post.is_empty() {
        return Err(JitError::input("column reduction: unaligned f32 buffer"));
    }
    Ok(mid)
}

/// Runs the reduction of `input` into `out`.
pub fn run(step: &ColReduceStep, input: &[u8], out: &mut [u8]) -> Result<()> {
    let dims = &step.dims;
    let rank = dims.len();
    if rank == 0 || step.reduced.len() != rank || step.reduced[rank - 1] {
        return Err(JitError::codegen(
            "column reduction without a kept minor dimension",
        ));
    }
    let input = as_f32(input)?;
    let out = as_f32_mut(out)?;
    let n = dims[rank - 1] as usize;
    let total: usize = dims.iter().map(|&d| d as usize).product();
    let kept_major: Vec<usize> = (0..rank - 1).filter(|&d| !step.reduced[d]).collect();
    let reduced: Vec<usize> = (0..rank).filter(|&d| step.reduced[d]).collect();
    let rows_out: usize = kept_major.iter().map(|&d| dims[d] as usize).product();
    if input.len() < total || out.len() < rows_out * n {
        return Err(JitError::input(
            "column reduction: buffers shorter than their shapes",
        ));
    }
    let mut stride = vec![0usize; rank];
    let mut acc_s = 1usize;
    for d in (0..rank).rev() {
        stride[d] = acc_s;
        acc_s *= dims[d] as usize;
    }
    if n == 0 {
        return Ok(());
    }
    let mut ko = vec![0usize; kept_major.len()];
    let mut ri = vec![0usize; reduced.len()];
    for r in 0..rows_out {
        let acc = &mut out[r * n..(r + 1) * n];
        acc.fill(step.init);
        let base: usize = kept_major
            .iter()
            .zip(&ko)
            .map(|(&d, &i)| i * stride[d])
            .sum();
        let count: usize = reduced.iter().map(|&d| dims[d] as usize).product();
        ri.iter_mut().for_each(|x| *x = 0);
        for _ in 0..count {
            let off = base
                + reduced
                    .iter()
                    .zip(&ri)
                    .map(|(&d, &i)| i * stride[d])
                    .sum::<usize>();
            fold(step.op, step.acc_first, acc, &input[off..off + n]);
            for k in (0..reduced.len()).rev() {
                ri[k] += 1;
                if ri[k] < dims[reduced[k]] as usize {
                    break;
                }
                ri[k] = 0;
            }
        }
        for k in (0..kept_major.len()).rev() {
            ko[k] += 1;
            if ko[k] < dims[kept_major[k]] as usize {
                break;
            }
            ko[k] = 0;
        }
    }
    Ok(())
}
