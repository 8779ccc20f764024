//! Host steps that talk to the caller through `RunOptions`: `custom-call`
//! (the registered function of `RunOptions::custom_calls`, called directly
//! on the physical buffers with the evaluator's marshalling convention —
//! crates/eval/src/kernels/custom_call.rs — and XLA:CPU's `TopK` target
//! on the native top-k when nothing is registered under that name),
//! `infeed` (pops `RunOptions::infeed`) and `outfeed` (pushes to
//! `RunOptions::outfeed`). No evaluator instruction interpreter here.

use super::sort::{TopKStep, top_k};
use crate::codegen::KernelFn;
use crate::error::{JitError, Result};
use crate::fallback::literal_from_leaves;
use rxla_eval::RunOptions;
use rxla_ir::{ArrayLiteral, ArrayShape, Literal, Shape};

/// A planned custom call.
pub struct CustomCallStep {
    pub target: String,
    pub operands: Vec<ArrayShape>,
    pub result: Shape,
    /// XLA:CPU's `TopK` (target `TopK` with a comparator): run natively
    /// when the registry has no function of that name, as the evaluator.
    pub topk: Option<TopKStep>,
}

/// 8-byte aligned copy of a buffer (custom-call arguments are aligned
/// copies holding the argument's physical bytes, as in the evaluator).
fn aligned(bytes: &[u8]) -> Vec<u64> {
    let mut w = vec![0u64; bytes.len().div_ceil(8).max(1)];
    for (d, ch) in w.iter_mut().zip(bytes.chunks(8)) {
        let mut a = [0u8; 8];
        a[..ch.len()].copy_from_slice(ch);
        *d = u64::from_ne_bytes(a);
    }
    w
}

/// The pointer the target gets for `shape`: a leaf's buffer, or (tuples)
/// a table of pointers to the elements' storage; `tables` keeps the
/// tables alive.
fn out_pointer(
    shape: &Shape,
    leaves: &mut std::slice::IterMut<'_, &mut [u8]>,
    tables: &mut Vec<Vec<*mut u8>>,
) -> Result<*mut u8> {
    match shape {
        Shape::Array(_) => leaves
            .next()
            .map(|l| l.as_mut_ptr())
            .ok_or_else(|| JitError::input("custom-call: missing result buffer")),
        Shape::Tuple(ts) => {
            let mut table = Vec::with_capacity(ts.len());
            for t in ts {
                table.push(out_pointer(t, leaves, tables)?);
            }
            // The table's heap storage does not move when pushed.
            let p = table.as_mut_ptr().cast::<u8>();
            tables.push(table);
            Ok(p)
        }
    }
}

/// Runs a custom call: `ins` one buffer per operand, `outs` one per leaf
/// of the result (8-byte aligned step buffers).
pub fn custom_call(
    step: &CustomCallStep,
    opts: &RunOptions,
    topk_fn: Option<KernelFn>,
    ins: &[&[u8]],
    outs: &mut [&mut [u8]],
) -> Result<()> {
    let Some(f) = opts.custom_calls.get(&step.target) else {
        return match &step.topk {
            Some(t) => top_k(t, topk_fn, ins.first().copied().unwrap_or(&[]), outs),
            None => Err(JitError::input(format!(
                "custom-call: no function is registered for target \"{}\"",
                step.target
            ))),
        };
    };
    if ins.len() != step.operands.len() {
        return Err(JitError::input("custom-call: operand count"));
    }
    let mut args: Vec<Vec<u64>> = Vec::with_capacity(ins.len());
    for (b, s) in ins.iter().zip(&step.operands) {
        if b.len() != s.byte_size()? {
            return Err(JitError::input(format!(
                "custom-call: argument buffer of {} bytes for {s}",
                b.len()
            )));
        }
        args.push(aligned(b));
    }
    let in_ptrs: Vec<*const u8> = args.iter().map(|a| a.as_ptr().cast::<u8>()).collect();
    let leaves: Vec<ArrayShape> = step.result.leaves().into_iter().cloned().collect();
    if leaves.len() != outs.len() {
        return Err(JitError::input("custom-call: result buffer count"));
    }
    for (o, s) in outs.iter_mut().zip(&leaves) {
        if o.len() != s.byte_size()? {
            return Err(JitError::input("custom-call: result buffer size"));
        }
        o.fill(0);
    }
    let mut tables = Vec::new();
    let out = out_pointer(&step.result, &mut outs.iter_mut(), &mut tables)?;
    // The called function is trusted to write within the buffers it gets
    // (the evaluator's contract).
    f(out, in_ptrs.as_ptr());
    drop(tables);
    // Padded results: padding holds the padding value, as the evaluator's
    // read-back and re-serialization leave it.
    for (o, s) in outs.iter_mut().zip(&leaves) {
        if s.layout.is_padded() {
            let v = ArrayLiteral::from_physical_bytes(s.clone(), o)?;
            o.copy_from_slice(&v.to_physical_bytes()?);
        }
    }
    Ok(())
}

/// Runs `infeed`: the next queued value (checked against the data shape of
/// `shape`, a `(data, token)` tuple) written into `outs`, one buffer per
/// leaf of `shape` (the token's is empty).
pub fn infeed(shape: &Shape, opts: &RunOptions, outs: &mut [&mut [u8]]) -> Result<()> {
    let want = shape
        .tuple_elements()
        .and_then(|t| t.first())
        .ok_or_else(|| JitError::input("infeed result must be (data, token)"))?;
    if matches!(want, Shape::Tuple(t) if t.is_empty()) {
        return Ok(());
    }
    let v = opts.pop_infeed().ok_or_else(|| {
        JitError::input(format!("infeed exhausted: no value left for shape {want}"))
    })?;
    if !v.shape().compatible(want) {
        return Err(JitError::input(format!(
            "infeed value of shape {} does not match the expected {want}",
            v.shape()
        )));
    }
    let v = Literal::Tuple(vec![v, Literal::token()]).relayout_to(shape)?;
    let leaves = v.leaves();
    if leaves.len() != outs.len() {
        return Err(JitError::input("infeed: result buffer count"));
    }
    for (l, o) in leaves.iter().zip(outs.iter_mut()) {
        if l.shape.element_type.is_token() {
            continue;
        }
        let b = l.to_physical_bytes()?;
        if b.len() != o.len() {
            return Err(JitError::input("infeed: result buffer size"));
        }
        o.copy_from_slice(&b);
    }
    Ok(())
}

/// Runs `outfeed`: the value of `shape` held in `leaves` is recorded.
pub fn outfeed(shape: &Shape, leaves: &[&[u8]], opts: &RunOptions) -> Result<()> {
    let mut pos = 0;
    let v = literal_from_leaves(shape, leaves, &mut pos)?;
    opts.push_outfeed(v);
    Ok(())
}
