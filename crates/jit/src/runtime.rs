//! Execution of a plan on raw buffers: each instruction's value is a list
//! of leaf buffers (pointer, length); kernels write into buffers owned by
//! the per-executable state (allocated on first use, reused by every later
//! call), or straight into the caller's output for the root. Loop-carried
//! values of `while` are double-buffered so a body never overwrites what
//! it reads. Sort/topk, rng and custom-call/feed steps live in the
//! submodules `sort`, `rng` and `calls`. No compilation here.

pub mod calls;
pub mod collective;
pub mod colreduce;
pub mod complex;
pub mod dus;
pub mod fft;
pub mod fft_native;
pub mod key_sort;
pub mod relayout;
pub mod rng;
pub mod row_gather;
pub mod rows;
pub mod sort;
pub mod tape;

use crate::codegen::KernelFn;
use crate::error::{JitError, Result};
use crate::plan::{GemmGuard, GemmPlan, LeafPlan, Program, Step};
use rayon::prelude::*;
use rxla_eval::RunOptions;
use rxla_eval::kernels::rng::RngState;
use rxla_ir::{ElementType, InstrId, Shape};
use std::sync::Mutex;

/// The leaf buffers of one value (inline for up to two: no allocation per
/// step for arrays and pairs).
pub type Leaves = smallvec::SmallVec<[Leaf; 2]>;

/// One leaf buffer of a value.
#[derive(Clone, Copy, Debug)]
pub struct Leaf {
    pub ptr: *mut u8,
    pub len: usize,
}

/// Owned, 8-byte aligned storage.
pub struct Buf {
    words: Vec<u64>,
    len: usize,
}

impl Buf {
    fn new(len: usize) -> Buf {
        Buf {
            words: vec![0u64; len.div_ceil(8).max(1)],
            len,
        }
    }
    fn leaf(&mut self) -> Leaf {
        Leaf {
            ptr: self.words.as_mut_ptr() as *mut u8,
            len: self.len,
        }
    }
}

fn bufs(sizes: &[usize]) -> Vec<Buf> {
    sizes.iter().map(|&n| Buf::new(n)).collect()
}

/// Reusable storage of one program run.
#[derive(Default)]
pub struct ProgState {
    steps: Vec<StepState>,
    /// Arguments relayouted into the parameters' layouts.
    entry: Vec<Buf>,
    /// The root relayouted into the caller's layouts.
    exit: Vec<Buf>,
    /// Scratch of each row group.
    groups: Vec<rows::GroupState>,
    /// When set, the run appends its kernel and GEMM calls here (a loop
    /// recording an iteration, `tape`).
    tape: Option<tape::Recording>,
}

/// Applies a leaf plan to `leaves`: rewritten leaves go to `own` (one
/// buffer per rewritten leaf, allocated on first use), the others are
/// passed through.
fn adapt(leaves: &[Leaf], plan: &LeafPlan, own: &mut Vec<Buf>, at: &mut usize) -> Result<Leaves> {
    if leaves.len() != plan.len() {
        return Err(JitError::input("boundary relayout: leaf count"));
    }
    let mut out = Leaves::with_capacity(leaves.len());
    for (&l, p) in leaves.iter().zip(plan) {
        let Some(r) = p else {
            out.push(l);
            continue;
        };
        let n = r.1.byte_size()?;
        if own.len() <= *at {
            own.push(Buf::new(n));
        } else if own[*at].len != n {
            own[*at] = Buf::new(n);
        }
        let d = own[*at].leaf();
        *at += 1;
        // SAFETY: `l` is a live buffer of its length; `d` is owned here,
        // distinct from every source.
        let (sb, db) = unsafe { (bytes(l), bytes_mut(d)) };
        relayout::relayout(sb, &r.0, db, &r.1)?;
        out.push(d);
    }
    Ok(out)
}

#[derive(Default)]
enum StepState {
    #[default]
    Empty,
    Bufs(Vec<Buf>),
    Subs(Vec<ProgState>),
    Loop {
        cond: Box<ProgState>,
        body: Box<ProgState>,
        carry: [Vec<Buf>; 2],
        /// The initial value relayouted into the carry's layouts.
        first: Vec<Buf>,
    },
}

/// What every step may need.
pub struct Ctx<'a> {
    pub fns: &'a [KernelFn],
    pub opts: &'a RunOptions,
    pub pool: Option<&'a rayon::ThreadPool>,
    pub threads: usize,
    /// The run's random state (`rng`), seeded from `opts.seed` (mixed
    /// with the replica id in replicated runs, as the evaluator).
    pub rng: Mutex<RngState>,
    /// The replica this run executes as (`Executable::run_replicated`).
    pub replica: Option<collective::ReplicaRun<'a>>,
    /// Loop iterations run so far, all loops together
    /// (`RunOptions::max_total_iterations`).
    pub iterations: std::sync::atomic::AtomicU64,
    /// Computation names by `CompId` index (for messages).
    pub comp_names: &'a [String],
}

impl Ctx<'_> {
    /// The name of computation `c` for messages.
    fn comp_name(&self, c: rxla_ir::CompId) -> String {
        self.comp_names
            .get(c.index())
            .cloned()
            .unwrap_or_else(|| c.to_string())
    }
}

struct SendPtrs(*const *const u8, *const *mut u8);
// SAFETY: the pointers are only read by kernels writing disjoint rows.
unsafe impl Send for SendPtrs {}
unsafe impl Sync for SendPtrs {}

/// Output elements above which a kernel is split across threads.
const PARALLEL_MIN_ELEMENTS: usize = 1 << 16;

fn call_kernel(
    ctx: &Ctx,
    f: KernelFn,
    ins: &[*const u8],
    outs: &[*mut u8],
    outer: i64,
    elements: usize,
) {
    let p = SendPtrs(ins.as_ptr(), outs.as_ptr());
    match ctx.pool {
        Some(pool) if ctx.threads > 1 && elements >= PARALLEL_MIN_ELEMENTS && outer >= 2 => {
            let chunks = (ctx.threads as i64 * 4).min(outer);
            pool.install(|| {
                (0..chunks).into_par_iter().for_each(|c| {
                    let lo = outer * c / chunks;
                    let hi = outer * (c + 1) / chunks;
                    let p = &p;
                    // SAFETY: rows lo..hi of the output are written by this chunk only.
                    unsafe { f(p.0, p.1, lo, hi) };
                });
            });
        }
        // SAFETY: the buffers match the kernel's compiled shapes.
        _ => unsafe { f(p.0, p.1, 0, outer) },
    }
}

/// Copies a carry leaf's bytes from `s` to `d` (nothing when they are the
/// same buffer or empty).
fn copy_leaf(s: Leaf, d: Leaf) {
    if s.len > 0 && s.ptr != d.ptr {
        // SAFETY: the while loop's live buffers, sizes checked against the
        // carry's; distinct (checked above).
        unsafe { std::ptr::copy(s.ptr, d.ptr, d.len.min(s.len)) };
    }
}

fn leaves_of(state: &mut StepState, sizes: &[usize]) -> Leaves {
    if !matches!(state, StepState::Bufs(_)) {
        *state = StepState::Bufs(bufs(sizes));
    }
    match state {
        StepState::Bufs(b) => b.iter_mut().map(Buf::leaf).collect(),
        _ => Leaves::new(),
    }
}

fn subs(state: &mut StepState, n: usize) -> &mut Vec<ProgState> {
    if !matches!(state, StepState::Subs(_)) {
        *state = StepState::Subs((0..n).map(|_| ProgState::default()).collect());
    }
    match state {
        StepState::Subs(s) => s,
        _ => unreachable!("just set"),
    }
}

/// Reads leaf bytes (valid for the duration of a run).
///
/// # Safety
/// `l` must point at `l.len` readable bytes.
unsafe fn bytes<'a>(l: Leaf) -> &'a [u8] {
    if l.len == 0 {
        return &[];
    }
    // SAFETY: guaranteed by the caller.
    unsafe { std::slice::from_raw_parts(l.ptr, l.len) }
}

/// Writable leaf bytes.
///
/// # Safety
/// `l` must point at `l.len` writable bytes not otherwise borrowed.
unsafe fn bytes_mut<'a>(l: Leaf) -> &'a mut [u8] {
    if l.len == 0 {
        return &mut [];
    }
    // SAFETY: guaranteed by the caller.
    unsafe { std::slice::from_raw_parts_mut(l.ptr, l.len) }
}

/// Checks that `leaves` have the byte sizes of the value they stand for
/// (what every kernel and copy relies on to stay in bounds).
fn check_sizes(leaves: &[Leaf], sizes: &[usize], what: &str) -> Result<()> {
    if leaves.len() != sizes.len() || leaves.iter().zip(sizes).any(|(l, &n)| l.len != n) {
        return Err(JitError::input(format!(
            "{what}: buffers of {:?} bytes where the shape needs {sizes:?}",
            leaves.iter().map(|l| l.len).collect::<Vec<_>>()
        )));
    }
    Ok(())
}

/// Runs `prog` on `args` (leaves per parameter); the root's leaves are
/// returned. With `out` the root kernel writes into those buffers.
pub fn run_program(
    ctx: &Ctx,
    prog: &Program,
    state: &mut ProgState,
    args: &[Leaves],
    out: Option<&[Leaf]>,
) -> Result<Leaves> {
    let n = prog.steps.len();
    if state.steps.len() != n {
        state.steps = (0..n).map(|_| StepState::Empty).collect();
    }
    let module_comp = prog.comp;
    let adapted_args: Vec<Leaves>;
    let args = match &prog.entry {
        Some(plans) => {
            let mut at = 0;
            let mut v = Vec::with_capacity(args.len());
            for (a, p) in args.iter().zip(plans) {
                v.push(adapt(a, p, &mut state.entry, &mut at)?);
            }
            adapted_args = v;
            &adapted_args[..]
        }
        None => args,
    };
    let mut vals: Vec<Leaves> = vec![Leaves::new(); n];
    let into_out = tuple_root_outputs(prog, out);
    let into_leaves = kernel_leaf_outputs(prog, out);
    if state.groups.len() != prog.groups.len() {
        state.groups = prog.groups.iter().map(|_| Default::default()).collect();
    }
    for (i, step) in prog.steps.iter().enumerate() {
        // A row group runs when its last member is reached.
        if let Some(g) = prog.in_group.get(i).copied().flatten() {
            let group = &prog.groups[g];
            if group.members.last() == Some(&i) {
                rows::run_group(
                    ctx,
                    prog,
                    group,
                    &mut state.steps,
                    &mut state.groups[g],
                    &mut vals,
                    (out, &into_out),
                )?;
            }
            continue;
        }
        let sizes = &prog.leaf_bytes[i];
        let st = &mut state.steps[i];
        // A single replica's all-reduce is its operands' value.
        let step = match step {
            Step::AllReduce { single, .. } if ctx.replica.is_none() => single.as_ref(),
            // A select of tuples runs the chosen operand's step.
            Step::Select { pred, branches } => {
                let l = vals[pred.index()]
                    .first()
                    .copied()
                    .filter(|l| l.len == 1)
                    .ok_or_else(|| JitError::input("select predicate buffer"))?;
                // SAFETY: the predicate leaf is a live 1-byte buffer.
                let take_true = unsafe { bytes(l) }[0] != 0;
                branches[usize::from(!take_true)].as_ref()
            }
            s => s,
        };
        let v = match step {
            Step::Dead => continue,
            Step::Param(k) => args
                .get(*k)
                .cloned()
                .ok_or_else(|| JitError::input(format!("missing argument {k} of {module_comp}")))?,
            Step::Const(data) => data
                .iter()
                .zip(sizes)
                .map(|(w, &len)| Leaf {
                    ptr: w.as_ptr() as *mut u8,
                    len,
                })
                .collect(),
            Step::Alias { src, start, len } => {
                let v = vals[src.index()]
                    .get(*start..*start + *len)
                    .ok_or_else(|| JitError::input("tuple index out of range"))?
                    .iter()
                    .copied()
                    .collect::<Leaves>();
                check_sizes(&v, sizes, "alias")?;
                v
            }
            Step::Tuple => {
                let v: Leaves = operands(prog, i, &vals).into_iter().flatten().collect();
                check_sizes(&v, sizes, "tuple")?;
                v
            }
            Step::Leaves { from, bytes: own } => {
                let own = leaves_of(st, own);
                let mut v = Leaves::with_capacity(from.len());
                for (k, f) in from.iter().enumerate() {
                    let s = vals[f.src.index()]
                        .get(f.leaf)
                        .copied()
                        .ok_or_else(|| JitError::input("leaf index out of range"))?;
                    match (&f.relayout, own.get(k)) {
                        (Some(r), Some(&d)) => {
                            // SAFETY: `s` is a live buffer of its length; `d` is
                            // this step's own buffer, distinct from every source.
                            let (sb, db) = unsafe { (bytes(s), bytes_mut(d)) };
                            relayout::relayout(sb, &r.0, db, &r.1)?;
                            v.push(d);
                        }
                        _ => v.push(s),
                    }
                }
                check_sizes(&v, sizes, "relayout")?;
                v
            }
            Step::Token => smallvec::smallvec![Leaf {
                ptr: std::ptr::null_mut(),
                len: 0,
            }],
            Step::Kernel { meta, inputs, post } => {
                // One output buffer per leaf (tuple results: variadic reduce).
                let all = match post {
                    // Own buffers, then the kernel's scratch buffers.
                    Some(p) => leaves_of(st, &[sizes.as_slice(), &p.scratch_bytes].concat()),
                    None => Leaves::new(),
                };
                let os = match (out, caller_leaves(prog, i, sizes, out, &into_out)) {
                    (_, Some(l)) => l,
                    _ if post.is_some() => Leaves::from_slice(&all[..sizes.len()]),
                    // A multi-output kernel whose outputs are elements of a
                    // tuple root: those leaves straight into the root's.
                    (Some(o), None) if into_leaves.iter().any(|&(s, _, _)| s == i) => {
                        let mut l = leaves_of(st, sizes);
                        for &(_, k, j) in into_leaves.iter().filter(|&&(s, _, _)| s == i) {
                            if let (Some(d), Some(&src)) = (l.get_mut(k), o.get(j))
                                && src.len == sizes[k]
                            {
                                *d = src;
                            }
                        }
                        l
                    }
                    _ => leaves_of(st, sizes),
                };
                let written = match post {
                    Some(_) => &all[sizes.len()..],
                    None => &os[..],
                };
                let outs: smallvec::SmallVec<[*mut u8; 4]> =
                    written.iter().map(|l| l.ptr).collect();
                let ins = inputs
                    .iter()
                    .map(|&id| kernel_input(prog, &vals, id))
                    .collect::<Result<smallvec::SmallVec<[_; 8]>>>()?;
                let f = kernel(ctx, meta.index)?;
                call_kernel(ctx, f, &ins, &outs, meta.outer, meta.elements);
                if let Some(t) = state.tape.as_mut() {
                    t.ops.push(tape::Op::Kernel {
                        f,
                        ins: ins.clone(),
                        outs: outs.clone(),
                        outer: meta.outer,
                        elements: meta.elements,
                    });
                }
                if let Some(p) = post {
                    for ((s, d), (from, to)) in written.iter().zip(&os).zip(&p.leaves) {
                        // SAFETY: scratch and destination are distinct live buffers.
                        let (sb, db) = unsafe { (bytes(*s), bytes_mut(*d)) };
                        relayout::relayout(sb, from, db, to)?;
                    }
                }
                os
            }
            Step::Gemm {
                plan,
                inputs,
                guard,
                types,
                epi,
            } => {
                // (A fused epilogue's result is the root when its fusion is.)
                let root_here = i == prog.root.index()
                    || epi.as_ref().is_some_and(|e| e.fused_into == prog.root);
                let o = match out {
                    Some(o) if root_here && o.len() == 1 && o[0].len == sizes[0] => o[0],
                    _ => leaves_of(st, sizes)[0],
                };
                let l = vals[inputs[0].index()]
                    .first()
                    .copied()
                    .ok_or_else(|| JitError::input("dot lhs"))?;
                let r = vals[inputs[1].index()]
                    .first()
                    .copied()
                    .ok_or_else(|| JitError::input("dot rhs"))?;
                check_sizes(&[l], &prog.leaf_bytes[inputs[0].index()], "dot lhs")?;
                check_sizes(&[r], &prog.leaf_bytes[inputs[1].index()], "dot rhs")?;
                // SAFETY: the kernel leaf is a live f32 buffer of r.len bytes.
                let finite = || {
                    unsafe { bytes(r) }
                        .chunks_exact(4)
                        .all(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]).is_finite())
                };
                let is_dot = matches!(plan.as_ref(), GemmPlan::Dot(_));
                let guarded = guard.is_some() && !is_dot && !finite();
                if let Some(e) = epi {
                    run_gemm_epilogue(
                        ctx,
                        prog,
                        (&vals, args),
                        i,
                        plan,
                        guard,
                        guarded,
                        e,
                        [l, r],
                        o,
                    )?;
                    vals[i] = smallvec::smallvec![o];
                    continue;
                }
                if let (true, Some(g)) = (guarded, guard) {
                    run_gemm_guard(ctx, g, &operands(prog, i, &vals), [l, r], o)?;
                    vals[i] = smallvec::smallvec![o];
                    continue;
                }
                let opts = rxla_gemm::Options::with_threads(ctx.threads);
                let floats = types.iter().all(|t| t.is_float());
                if let (true, true, GemmPlan::Dot(p)) = (
                    floats,
                    types.iter().any(|&t| t != ElementType::F32),
                    plan.as_ref(),
                ) {
                    // Halves converted while packing, the f32 result rounded once.
                    let ek = |t: ElementType| match t {
                        ElementType::F16 => rxla_gemm::ElemKind::F16,
                        ElementType::BF16 => rxla_gemm::ElemKind::BF16,
                        _ => rxla_gemm::ElemKind::F32,
                    };
                    // SAFETY: the leaves are live buffers of their planned lengths;
                    // the output is distinct from the inputs.
                    let res = unsafe {
                        p.run_mixed_raw(
                            l.ptr as *const u8,
                            ek(types[0]),
                            r.ptr as *const u8,
                            ek(types[1]),
                            o.ptr,
                            ek(types[2]),
                            None,
                            &opts,
                        )
                    };
                    res.map_err(|e| JitError::input(format!("gemm: {e}")))?;
                    // As for f32 dots below: a result with inf/NaN is redone
                    // exactly.
                    // SAFETY: `o` is the live result just written.
                    if let Some(g) = guard
                        && half_non_finite(unsafe { bytes(o) }, types[2])
                    {
                        run_gemm_guard(ctx, g, &operands(prog, i, &vals), [l, r], o)?;
                    }
                    vals[i] = smallvec::smallvec![o];
                    continue;
                }
                if let (true, GemmPlan::Dot(p)) =
                    (crate::plan::int8_engine_dot(*types), plan.as_ref())
                {
                    // 8-bit operands on the VNNI kernels: exact wrapping sums.
                    // SAFETY: the leaves are live buffers of their planned
                    // lengths; the output is distinct from the inputs.
                    let res = unsafe {
                        p.run_i8_raw(
                            l.ptr as *const u8,
                            types[0] == ElementType::S8,
                            r.ptr as *const u8,
                            types[1] == ElementType::S8,
                            o.ptr as *mut i32,
                            &opts,
                        )
                    };
                    res.map_err(|e| JitError::input(format!("gemm: {e}")))?;
                    vals[i] = smallvec::smallvec![o];
                    continue;
                }
                if types.iter().any(|&t| t != ElementType::F32) {
                    // Widened copies in this thread's scratch (kept between
                    // runs: fresh megabytes per call cost more in page
                    // faults than the conversions).
                    let mut scratch = WIDE_SCRATCH.with(|c| c.take());
                    let [lw, rw, acc] = &mut scratch;
                    // SAFETY: the leaves are live buffers of their planned lengths.
                    unsafe {
                        widen_into(l, types[0], lw);
                        widen_into(r, types[1], rw);
                    }
                    let out_len = o.len / types[2].byte_size().max(1);
                    acc.clear();
                    acc.resize(out_len, 0.0);
                    // SAFETY: widened copies and `acc` have the planned shapes in f32.
                    let res = unsafe {
                        match plan.as_ref() {
                            GemmPlan::Dot(p) => p.run_f32_raw(
                                lw.as_ptr(),
                                rw.as_ptr(),
                                acc.as_mut_ptr(),
                                None,
                                &opts,
                            ),
                            GemmPlan::Conv(p) => p.run_f32_raw(
                                lw.as_ptr(),
                                rw.as_ptr(),
                                acc.as_mut_ptr(),
                                None,
                                &opts,
                            ),
                        }
                    };
                    // SAFETY: `o` is this step's own (or the caller's output) buffer.
                    let res = res.map(|()| unsafe { narrow(acc, o, types[2]) });
                    WIDE_SCRATCH.with(|c| c.set(scratch));
                    res.map_err(|e| JitError::input(format!("gemm: {e}")))?;
                    vals[i] = smallvec::smallvec![o];
                    continue;
                }
                let (lp, rp, op) = (l.ptr as *const f32, r.ptr as *const f32, o.ptr as *mut f32);
                // SAFETY: the buffers have the planned shapes; the output is distinct from the inputs.
                let res = unsafe {
                    match plan.as_ref() {
                        GemmPlan::Dot(p) => p.run_f32_raw(lp, rp, op, None, &opts),
                        GemmPlan::Conv(p) => p.run_f32_raw(lp, rp, op, None, &opts),
                    }
                };
                res.map_err(|e| JitError::input(format!("gemm: {e}")))?;
                // An f32 dot or convolution whose result holds inf/NaN is
                // redone exactly (rounded products in the evaluator's order:
                // fused multiply-adds turn `inf + (-big)` into inf where the
                // rounded product is -inf and the sum NaN).
                // SAFETY: `o` is the live f32 result just written.
                let non_finite = || {
                    dot_may_differ_non_finite(unsafe { bytes(l) }, unsafe { bytes(r) }, unsafe {
                        bytes(o)
                    })
                };
                let f32_only = types.iter().all(|&t| t == ElementType::F32);
                if let Some(t) = state.tape.as_mut() {
                    t.ops.push(tape::Op::Gemm {
                        plan: &**plan,
                        lhs: l,
                        rhs: r,
                        out: o,
                        guarded: guard.is_some(),
                    });
                }
                if let (true, Some(g)) = (f32_only, guard)
                    && non_finite()
                {
                    run_gemm_guard(ctx, g, &operands(prog, i, &vals), [l, r], o)?;
                }
                smallvec::smallvec![o]
            }
            Step::DusInPlace(d) => {
                let ops = operands(prog, i, &vals);
                let target = ops
                    .first()
                    .and_then(|l| l.first().copied())
                    .ok_or_else(|| JitError::input("dynamic-update-slice operand"))?;
                let update = ops
                    .get(1)
                    .and_then(|l| l.first().copied())
                    .ok_or_else(|| JitError::input("dynamic-update-slice update"))?;
                // SAFETY: every leaf points at a live buffer of its length.
                let starts: Vec<&[u8]> = ops[2..]
                    .iter()
                    .filter_map(|l| l.first().map(|&x| unsafe { bytes(x) }))
                    .collect();
                // SAFETY: the target is the while loop's own carry leaf,
                // which nothing else reads (the planner's condition), and
                // distinct from the update and the indices (which the
                // planner's single-use condition keeps off this leaf).
                let (buf, upd) = unsafe { (bytes_mut(target), bytes(update)) };
                // (Empty buffers may share a dangling address: nothing is
                // written then.)
                if !upd.is_empty() && std::ptr::eq(buf.as_ptr(), upd.as_ptr()) {
                    return Err(JitError::codegen("in-place update aliases its update"));
                }
                dus::update_in_place(d, buf, upd, &starts)?;
                if let Some(t) = state.tape.as_mut() {
                    t.ops.push(tape::Op::Dus {
                        step: &**d,
                        target,
                        update,
                        starts: ops[2..].iter().filter_map(|l| l.first().copied()).collect(),
                    });
                }
                smallvec::smallvec![target]
            }
            Step::RowGather(g) => {
                let ops = operands(prog, i, &vals);
                let (Some(&table), Some(&indices)) = (
                    ops.first().and_then(|l| l.first()),
                    ops.get(1).and_then(|l| l.first()),
                ) else {
                    return Err(JitError::input("row gather operands"));
                };
                // Straight into the caller's buffer when this is the root
                // (or an element of a tuple root), as kernels do.
                let o = caller_leaves(prog, i, sizes, out, &into_out)
                    .unwrap_or_else(|| leaves_of(st, sizes));
                let dst = o
                    .first()
                    .copied()
                    .ok_or_else(|| JitError::input("row gather result"))?;
                // SAFETY: every leaf points at a live buffer of its length;
                // the result buffer is this step's own (or the caller's
                // output), distinct from the operands.
                unsafe { g.run(bytes(table), bytes(indices), bytes_mut(dst))? };
                o
            }
            Step::ColReduce(c) if c.producer.is_some() || c.epilogue.is_some() => {
                let acc_bytes = c.epilogue.as_ref().map_or(sizes[0], |e| e.acc_bytes);
                let own = leaves_of(st, &[sizes[0], acc_bytes, c.scratch_bytes()]);
                // With an epilogue the reduction folds into its own
                // accumulator, else straight into the result.
                let (out, acc, scratch) = match c.epilogue {
                    Some(_) => (own[0], own[1], own[2]),
                    None => (own[0], own[0], own[2]),
                };
                // SAFETY: `acc` and `scratch` are this step's own buffers,
                // distinct from every operand.
                let (ab, sb) = unsafe { (bytes_mut(acc), bytes_mut(scratch)) };
                match &c.producer {
                    Some(p) => {
                        let ins = p
                            .inputs
                            .iter()
                            .map(|&id| kernel_input(prog, &vals, id))
                            .collect::<Result<Vec<_>>>()?;
                        let f = kernel(ctx, p.meta.index)?;
                        let row_bytes = 4 * p.row_elems;
                        colreduce::run_with_producer(c, ab, sb, |lo, hi, block| {
                            // The kernel writes rows lo..hi at its output base
                            // plus lo rows: a base shifted back by lo rows puts
                            // them at the start of the block.
                            let base = block.as_mut_ptr().wrapping_sub(lo as usize * row_bytes);
                            let outs = [base];
                            // SAFETY: the kernel writes exactly rows lo..hi of
                            // its output, which land inside `block`.
                            unsafe { f(ins.as_ptr(), outs.as_ptr(), lo, hi) };
                            Ok(())
                        })?;
                    }
                    None => {
                        let input = operands(prog, i, &vals)
                            .get(c.input)
                            .and_then(|l| l.first().copied())
                            .ok_or_else(|| JitError::input("column reduction operand"))?;
                        // SAFETY: a live operand buffer of its length.
                        colreduce::run(c, unsafe { bytes(input) }, ab)?;
                    }
                }
                if let Some(e) = &c.epilogue {
                    let mut ins = vec![acc.ptr as *const u8];
                    for &id in &e.inputs {
                        ins.push(kernel_input(prog, &vals, id)?);
                    }
                    let f = kernel(ctx, e.meta.index)?;
                    call_kernel(ctx, f, &ins, &[out.ptr], e.meta.outer, e.meta.elements);
                }
                smallvec::smallvec![out]
            }
            Step::Fallback(_)
            | Step::ColReduce(_)
            | Step::Fft(_)
            | Step::Complex(_)
            | Step::Sort(_)
            | Step::TopK(_)
            | Step::Rng(_)
            | Step::RngBits(_)
            | Step::CustomCall(_)
            | Step::Infeed(_)
            | Step::Outfeed(_) => {
                let ops = operands(prog, i, &vals);
                // SAFETY: every leaf points at a live buffer of its length.
                let slices: Vec<Vec<&[u8]>> = ops
                    .iter()
                    .map(|ls| ls.iter().map(|&l| unsafe { bytes(l) }).collect())
                    .collect();
                let outs = leaves_of(st, sizes);
                // SAFETY: the state's buffers are distinct from every operand.
                let mut outs_mut: Vec<&mut [u8]> =
                    outs.iter().map(|&l| unsafe { bytes_mut(l) }).collect();
                host_step(ctx, step, &slices, &mut outs_mut)?;
                outs
            }
            Step::Select { .. } => return Err(JitError::codegen("nested tuple select step")),
            Step::AllReduce { step: ar, .. } => {
                let flat: Leaves = operands(prog, i, &vals).into_iter().flatten().collect();
                check_sizes(&flat, sizes, "all-reduce")?;
                let replica = ctx
                    .replica
                    .as_ref()
                    .ok_or_else(|| JitError::codegen("replicated all-reduce without a replica"))?;
                let outs = leaves_of(st, sizes);
                // SAFETY: every leaf points at a live buffer of its length.
                let ins: Vec<&[u8]> = flat.iter().map(|&l| unsafe { bytes(l) }).collect();
                // SAFETY: the state's buffers are distinct from every operand.
                let mut om: Vec<&mut [u8]> =
                    outs.iter().map(|&l| unsafe { bytes_mut(l) }).collect();
                collective::all_reduce(ar, replica, ctx.fns, &ins, &mut om)?;
                outs
            }
            Step::Call(p) => {
                let a = operands(prog, i, &vals);
                let s = &mut subs(st, 1)[0];
                run_program(ctx, p, s, &a, None)?
            }
            Step::Conditional(branches) => {
                let a = operands(prog, i, &vals);
                let sel = a
                    .first()
                    .and_then(|l| l.first())
                    .copied()
                    .ok_or_else(|| JitError::input("conditional without selector"))?;
                // SAFETY: the selector leaf is a live scalar buffer.
                let sb = unsafe { bytes(sel) };
                let k = match sb.len() {
                    1 => usize::from(sb[0] == 0),
                    4 => {
                        let v = i32::from_le_bytes([sb[0], sb[1], sb[2], sb[3]]);
                        if v < 0 || v as usize >= branches.len() {
                            branches.len() - 1
                        } else {
                            v as usize
                        }
                    }
                    _ => return Err(JitError::input("conditional selector of unexpected size")),
                };
                let s = &mut subs(st, branches.len())[k];
                let bargs = vec![a.get(k + 1).cloned().unwrap_or_default()];
                run_program(ctx, &branches[k], s, &bargs, None)?
            }
            Step::While { cond, body, init } => {
                let a = operands(prog, i, &vals);
                let mut cur = a.first().cloned().unwrap_or_default();
                if !matches!(st, StepState::Loop { .. }) {
                    *st = StepState::Loop {
                        cond: Box::default(),
                        body: Box::default(),
                        carry: [bufs(sizes), bufs(sizes)],
                        first: Vec::new(),
                    };
                }
                let StepState::Loop {
                    cond: cs,
                    body: bs,
                    carry,
                    first,
                } = st
                else {
                    unreachable!("just set")
                };
                let mut which = 0;
                if let Some(plan) = init {
                    // The initial value in the carry's layouts.
                    cur = adapt(&cur, plan, first, &mut 0)?;
                } else if body.mutates_params {
                    // The body updates carry leaves in place: it must get
                    // the loop's own buffers, never the caller's values.
                    check_sizes(&cur, sizes, "while initial value")?;
                    let own: Leaves = carry[1].iter_mut().map(Buf::leaf).collect();
                    for (s, d) in cur.iter().zip(&own) {
                        copy_leaf(*s, *d);
                    }
                    cur = own;
                }
                let mut iters = 0u64;
                // Recorded iterations, one per carry parity (`tape`).
                let mut tapes: [Option<tape::Tape>; 2] = [None, None];
                let can_record = tape::recordable(cond) && tape::recordable(body);
                let mut recordings = 0;
                loop {
                    let replay = tapes[which].as_ref().filter(|t| t.matches(&cur));
                    // Record from the second iteration on (the first may
                    // start from the caller's buffers), a few times at most.
                    let record = replay.is_none() && can_record && iters >= 1 && recordings < 4;
                    let start = if record { cur.clone() } else { Leaves::new() };
                    let mut cond_rec = None;
                    let (go, pred) = match replay {
                        Some(t) => {
                            t.cond.run(ctx)?;
                            (pred_true(t.pred), t.pred)
                        }
                        None => {
                            if record {
                                cs.tape = Some(tape::Recording::default());
                            }
                            let c = run_program(ctx, cond, cs, std::slice::from_ref(&cur), None);
                            cond_rec = cs.tape.take();
                            let l = c?
                                .first()
                                .copied()
                                .ok_or_else(|| JitError::input("while condition without value"))?;
                            (pred_true(l), l)
                        }
                    };
                    if !go {
                        break;
                    }
                    iters += 1;
                    if iters > ctx.opts.max_while_iterations {
                        return Err(JitError::input(format!(
                            "while loop ran more than {} iterations",
                            ctx.opts.max_while_iterations
                        )));
                    }
                    let total = ctx
                        .iterations
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                        + 1;
                    if total > ctx.opts.max_total_iterations {
                        return Err(JitError::limit(format!(
                            "while loop in computation {}: the run exceeded max_total_iterations ({} loop iterations, all loops together)",
                            ctx.comp_name(module_comp),
                            ctx.opts.max_total_iterations
                        )));
                    }
                    if ctx.opts.check_deadline().is_err() {
                        return Err(JitError::limit(format!(
                            "while loop in computation {}: the run exceeded its time limit (--timeout)",
                            ctx.comp_name(module_comp)
                        )));
                    }
                    if let Some(t) = replay
                        && t.body.run(ctx)?
                    {
                        cur.clear();
                        cur.extend_from_slice(&t.next);
                        which ^= 1;
                        continue;
                    }
                    let dst: Leaves = carry[which].iter_mut().map(Buf::leaf).collect();
                    if record {
                        bs.tape = Some(tape::Recording::default());
                    }
                    // The body's kernels write the next carry in place
                    // (`tuple_root_outputs`): `cur` lives in the other
                    // buffer (or is the caller's value), never in `dst`.
                    let r = run_program(ctx, body, bs, std::slice::from_ref(&cur), Some(&dst));
                    let mut rec = bs.tape.take();
                    let r = r?;
                    check_sizes(&r, sizes, "while body result")?;
                    let mut next = Leaves::with_capacity(dst.len());
                    for (j, (s, d)) in r.iter().zip(&dst).enumerate() {
                        // A leaf the body always returns in the buffer it
                        // was given (passed through, or updated in place:
                        // `Program::stable_leaves`) stays there, uncopied;
                        // no copy ever writes that buffer.
                        let stable = body.stable_leaves.get(j).copied().unwrap_or(false);
                        if stable && cur.get(j).is_some_and(|c| c.ptr == s.ptr) {
                            next.push(*s);
                            continue;
                        }
                        copy_leaf(*s, *d);
                        if let Some(rec) = rec.as_mut() {
                            rec.ops.push(tape::Op::Copy { src: *s, dst: *d });
                        }
                        next.push(*d);
                    }
                    if let (Some(cond_rec), Some(body_rec)) = (cond_rec, rec) {
                        recordings += 1;
                        tapes[which] = Some(tape::Tape {
                            start,
                            cond: cond_rec,
                            pred,
                            body: body_rec,
                            next: next.clone(),
                        });
                    }
                    cur = next;
                    which ^= 1;
                }
                cur
            }
        };
        vals[i] = v;
    }
    let root = vals[prog.root.index()].clone();
    match &prog.exit {
        Some(plan) => adapt(&root, plan, &mut state.exit, &mut 0),
        None => Ok(root),
    }
}

/// Whether an f16/bf16 (or f32) buffer holds an inf or NaN.
fn half_non_finite(b: &[u8], t: ElementType) -> bool {
    let exp = match t {
        ElementType::F16 => 0x7c00u16,
        ElementType::BF16 => 0x7f80,
        ElementType::F32 => return any_exponent_at_least(b, 0x7f80_0000),
        _ => return false,
    };
    b.chunks_exact(2)
        .any(|c| u16::from_le_bytes([c[0], c[1]]) & exp == exp)
}

/// Whether a while condition's predicate leaf holds true.
fn pred_true(l: Leaf) -> bool {
    // SAFETY: the condition's result is a live pred scalar.
    unsafe { bytes(l) }.first().copied().unwrap_or(0) != 0
}

/// The compiled function at `index`.
/// The buffer of kernel input `id` (its first leaf), checked against the
/// byte size its shape needs.
fn kernel_input(prog: &Program, vals: &[Leaves], id: InstrId) -> Result<*const u8> {
    let l = vals[id.index()]
        .first()
        .copied()
        .ok_or_else(|| JitError::input("kernel input without a buffer"))?;
    if Some(&l.len) != prog.leaf_bytes[id.index()].first() {
        return Err(JitError::input(format!(
            "kernel input buffer of {} bytes, its shape needs {:?}",
            l.len,
            prog.leaf_bytes[id.index()]
        )));
    }
    Ok(l.ptr as *const u8)
}

/// Runs a GEMM step's guard into its output `o`: the exact loop kernel
/// on the operands `lr`, or the evaluator on the step's operand leaves
/// `ops`.
/// An f32 GEMM step with a fused epilogue (`gemm_epilogue`): fused into
/// the tiles, or (guarded operands, a non-finite raw value, a segment the
/// GEMM handed over elsewhere) the product unfused, its guard, then the
/// epilogue over the whole buffer.
#[allow(clippy::too_many_arguments)]
fn run_gemm_epilogue(
    ctx: &Ctx,
    prog: &Program,
    (vals, args): (&[Leaves], &[Leaves]),
    i: usize,
    plan: &GemmPlan,
    guard: &Option<GemmGuard>,
    guarded: bool,
    e: &crate::gemm_epilogue::GemmEpi,
    lr: [Leaf; 2],
    o: Leaf,
) -> Result<()> {
    let len = o.len / 4;
    // A residual sharing bytes with the output (a caller's buffer) is
    // copied first.
    let copy: Vec<f32>;
    let res = match e.residual {
        Some(r) => {
            let leaf = match prog.steps.get(r.index()) {
                Some(Step::Param(k)) => args.get(*k),
                _ => vals.get(r.index()),
            }
            .and_then(|l| l.first().copied())
            .ok_or_else(|| JitError::input("gemm epilogue residual"))?;
            if leaf.len != o.len {
                return Err(JitError::codegen("gemm epilogue residual buffer"));
            }
            let (a, b) = (leaf.ptr as usize, o.ptr as usize);
            if a < b + o.len && b < a + leaf.len {
                // SAFETY: the residual leaf is a live buffer of `len` f32s.
                copy = unsafe { std::slice::from_raw_parts(leaf.ptr as *const f32, len) }.to_vec();
                Some(copy.as_ptr())
            } else {
                Some(leaf.ptr as *const f32)
            }
        }
        None => None,
    };
    let opts = rxla_gemm::Options::with_threads(ctx.threads);
    let (lp, rp, op) = (
        lr[0].ptr as *const f32,
        lr[1].ptr as *const f32,
        o.ptr as *mut f32,
    );
    let fused = !guarded
        && unsafe {
            // SAFETY: the buffers have the planned shapes; the output is
            // distinct from the inputs and the residual (checked above).
            crate::gemm_epilogue::run_fused(
                plan,
                lp,
                rp,
                op,
                len,
                res,
                e.residual_first,
                16 * e.minor,
                &opts,
            )
        }
        .map_err(|err| JitError::input(format!("gemm: {err}")))?;
    if fused {
        return Ok(());
    }
    if guarded {
        if let Some(g) = guard {
            run_gemm_guard(ctx, g, &operands(prog, i, vals), lr, o)?;
        }
    } else {
        // SAFETY: as above.
        unsafe {
            match plan {
                GemmPlan::Dot(p) => p.run_f32_raw(lp, rp, op, None, &opts),
                GemmPlan::Conv(p) => p.run_f32_raw(lp, rp, op, None, &opts),
            }
        }
        .map_err(|err| JitError::input(format!("gemm: {err}")))?;
        // SAFETY: the live buffers just read/written.
        let non_finite =
            || unsafe { dot_may_differ_non_finite(bytes(lr[0]), bytes(lr[1]), bytes(o)) };
        if let Some(g) = guard
            && non_finite()
        {
            run_gemm_guard(ctx, g, &operands(prog, i, vals), lr, o)?;
        }
    }
    // SAFETY: `o` holds `len` f32 values, the residual too (checked above),
    // and they do not overlap.
    let (out, res) = unsafe {
        (
            std::slice::from_raw_parts_mut(op, len),
            res.map(|r| std::slice::from_raw_parts(r, len)),
        )
    };
    crate::gemm_epilogue::apply(out, res, e.residual_first);
    Ok(())
}

fn run_gemm_guard(
    ctx: &Ctx,
    guard: &GemmGuard,
    ops: &[Leaves],
    lr: [Leaf; 2],
    o: Leaf,
) -> Result<()> {
    match guard {
        GemmGuard::Kernel(meta) => {
            let f = kernel(ctx, meta.index)?;
            let (ins, outs) = ([lr[0].ptr as *const u8, lr[1].ptr as *const u8], [o.ptr]);
            call_kernel(ctx, f, &ins, &outs, meta.outer, meta.elements);
        }
        GemmGuard::Eval(call) => {
            // SAFETY: every leaf points at a live buffer of its length.
            let slices: Vec<Vec<&[u8]>> = ops
                .iter()
                .map(|ls| ls.iter().map(|&l| unsafe { bytes(l) }).collect())
                .collect();
            // SAFETY: `o` is the step's own (or the caller's output) buffer.
            let mut om: Vec<&mut [u8]> =
                vec![unsafe { std::slice::from_raw_parts_mut(o.ptr, o.len) }];
            call.run(&slices, &mut om, ctx.opts)?;
        }
    }
    Ok(())
}

fn kernel(ctx: &Ctx, index: usize) -> Result<KernelFn> {
    ctx.fns
        .get(index)
        .copied()
        .ok_or_else(|| JitError::codegen("kernel index out of range"))
}

/// The single-array leaf of every operand (sort, topk, rng, custom-call).
fn arrays<'b>(ops: &[Vec<&'b [u8]>], what: &str) -> Result<Vec<&'b [u8]>> {
    ops.iter()
        .map(|o| match o.as_slice() {
            [b] => Ok(*b),
            _ => Err(JitError::input(format!("{what}: operand is not an array"))),
        })
        .collect()
}

/// Runs a step computed on the host from operand slices into its own
/// output buffers: the evaluator fallback and the runtime steps.
fn host_step(ctx: &Ctx, step: &Step, ops: &[Vec<&[u8]>], outs: &mut [&mut [u8]]) -> Result<()> {
    match step {
        Step::Fallback(call) => call.run(ops, outs, ctx.opts),
        Step::ColReduce(c) => {
            let a = arrays(ops, "reduce")?;
            let (Some(input), Some(out)) = (a.get(c.input), outs.first_mut()) else {
                return Err(JitError::input("reduce needs its operand and one result"));
            };
            colreduce::run(c, input, out)
        }
        Step::Fft(f) => {
            let a = arrays(ops, "fft")?;
            let (Some(input), Some(out)) = (a.first(), outs.first_mut()) else {
                return Err(JitError::input("fft needs one operand and one result"));
            };
            fft::fft(f, input, out)
        }
        Step::Complex(c) => {
            let a = arrays(ops, "complex")?;
            let out = outs
                .first_mut()
                .ok_or_else(|| JitError::input("complex step result"))?;
            complex::run(c, &a, out)
        }
        Step::Sort(s) => sort::sort(s, kernel(ctx, s.comparator)?, &arrays(ops, "sort")?, outs),
        Step::TopK(t) => {
            let a = arrays(ops, "topk")?;
            let input = a.first().ok_or_else(|| JitError::input("topk operand"))?;
            sort::top_k(t, None, input, outs)
        }
        Step::Rng(r) => {
            let a = arrays(ops, "rng")?;
            let [lo, hi] = a.as_slice() else {
                return Err(JitError::input("rng needs two operands"));
            };
            let out = outs
                .first_mut()
                .ok_or_else(|| JitError::input("rng result"))?;
            let mut state = ctx.rng.lock().unwrap_or_else(|e| e.into_inner());
            rng::rng(r, lo, hi, &mut state, out)
        }
        Step::RngBits(r) => {
            let a = arrays(ops, "rng-bit-generator")?;
            let s = a
                .first()
                .ok_or_else(|| JitError::input("rng-bit-generator state"))?;
            rng::rng_bits(r, s, outs)
        }
        Step::CustomCall(c) => {
            let f = match &c.topk {
                Some(sort::TopKStep {
                    order: sort::TopKOrder::Comparator { kernel: k, .. },
                    ..
                }) => Some(kernel(ctx, *k)?),
                _ => None,
            };
            calls::custom_call(c, ctx.opts, f, &arrays(ops, "custom-call")?, outs)
        }
        Step::Infeed(shape) => calls::infeed(shape, ctx.opts, outs),
        Step::Outfeed(shape) => {
            let leaves = ops
                .first()
                .ok_or_else(|| JitError::input("outfeed needs a value"))?;
            calls::outfeed(shape, leaves, ctx.opts)
        }
        _ => Err(JitError::codegen("host_step of another step")),
    }
}

fn operands(prog: &Program, i: usize, vals: &[Leaves]) -> Vec<Leaves> {
    prog.operands[i]
        .iter()
        .map(|o| vals[o.index()].clone())
        .collect()
}

/// Per step: the leaf of `out` it computes when the program's root is a
/// tuple of single-leaf steps, each appearing once (a while body's new
/// carry: its kernels write the loop's next buffers directly, no copy).
fn tuple_root_outputs(prog: &Program, out: Option<&[Leaf]>) -> Vec<Option<usize>> {
    // Empty (no allocation) unless a tuple root's leaves are given: this
    // runs once per while-loop iteration.
    let Some(out) = out else { return Vec::new() };
    let root = prog.root.index();
    if prog.exit.is_some() || !matches!(prog.steps.get(root), Some(Step::Tuple)) {
        return Vec::new();
    }
    let mut into = vec![None; prog.steps.len()];
    let ops = &prog.operands[root];
    let mut leaf = 0;
    for (k, o) in ops.iter().enumerate() {
        let s = o.index();
        let leaves = prog.leaf_bytes[s].len();
        let once = ops.iter().filter(|p| p.index() == s).count() == 1;
        if leaves == 1 && once && leaf < out.len() && s != root && k < ops.len() {
            into[s] = Some(leaf);
        }
        leaf += leaves;
    }
    into
}

/// The caller's buffers step `i` writes its value into: all of `out` when
/// `i` is the root and they have its sizes, or one leaf of a tuple root
/// (`tuple_root_outputs`); `None` when it needs its own.
fn caller_leaves(
    prog: &Program,
    i: usize,
    sizes: &[usize],
    out: Option<&[Leaf]>,
    into_out: &[Option<usize>],
) -> Option<Leaves> {
    let o = out?;
    if i == prog.root.index()
        && o.len() == sizes.len()
        && o.iter().zip(sizes).all(|(l, &n)| l.len == n)
    {
        return Some(Leaves::from_slice(o));
    }
    let j = into_out.get(i).copied().flatten()?;
    (sizes.len() == 1 && o.get(j).is_some_and(|l| l.len == sizes[0]))
        .then(|| Leaves::from_slice(&o[j..j + 1]))
}

/// For a tuple root given `out` leaves: `(kernel step, its leaf, root
/// leaf)` for each element of the root that reads one leaf of a
/// multi-output kernel (a get-tuple-element of a multi-output fusion) and
/// that no other element reads, so the kernel writes it in place. Empty
/// (no allocation) otherwise: this runs once per while-loop iteration.
fn kernel_leaf_outputs(prog: &Program, out: Option<&[Leaf]>) -> Vec<(usize, usize, usize)> {
    let Some(out) = out else { return Vec::new() };
    let root = prog.root.index();
    if prog.exit.is_some() || !matches!(prog.steps.get(root), Some(Step::Tuple)) {
        return Vec::new();
    }
    let ops = &prog.operands[root];
    let mut into = Vec::new();
    let mut leaf = 0;
    for o in ops {
        let s = o.index();
        let leaves = prog.leaf_bytes[s].len();
        if let Some(Step::Alias { src, start, len: 1 }) = prog.steps.get(s)
            && leaves == 1
            && leaf < out.len()
            && let Some(Step::Kernel { post: None, .. }) = prog.steps.get(src.index())
            && prog.leaf_bytes[src.index()].len() > 1
        {
            let key = (src.index(), *start);
            let reads = ops
                .iter()
                .filter(|p| match prog.steps.get(p.index()) {
                    Some(Step::Alias {
                        src: q, start: t, ..
                    }) => (q.index(), *t) == key,
                    _ => p.index() == key.0,
                })
                .count();
            if reads == 1 {
                into.push((key.0, key.1, leaf));
            }
        }
        leaf += leaves;
    }
    into
}

/// Leaf count of a shape.
pub fn leaf_count(s: &Shape) -> usize {
    s.leaves().len()
}

/// Whether some f32 value in `b` has an exponent field of at least
/// `at_least` (the field's bits in place: `0x7f80_0000` finds inf/NaN):
/// 16 values per AVX-512 compare where the host has it, else counted over
/// blocks of 1024 values with no early exit inside a block (so the loop
/// vectorizes). Costs about one read of `b`.
fn any_exponent_at_least(b: &[u8], at_least: u32) -> bool {
    const EXP: u32 = 0x7f80_0000;
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f") {
        // SAFETY: AVX-512F checked; the routine reads within `b`.
        return unsafe { exponent_scan_avx512(b, at_least) };
    }
    b.chunks(4096).any(|block| {
        block
            .chunks_exact(4)
            .map(|c| (u32::from_le_bytes([c[0], c[1], c[2], c[3]]) & EXP >= at_least) as u32)
            .sum::<u32>()
            != 0
    })
}

/// [`any_exponent_at_least`] in 512-bit vectors (unaligned loads, the
/// tail by value).
///
/// # Safety
/// The host has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn exponent_scan_avx512(b: &[u8], at_least: u32) -> bool {
    use std::arch::x86_64::*;
    let exp = _mm512_set1_epi32(0x7f80_0000);
    let limit = _mm512_set1_epi32(at_least as i32);
    let whole = b.len() / 64;
    let mut hit: __mmask16 = 0;
    for i in 0..whole {
        // SAFETY: bytes 64i..64i+64 are inside `b`.
        let v = unsafe { _mm512_loadu_si512(b.as_ptr().add(64 * i).cast()) };
        hit |= _mm512_cmpge_epu32_mask(_mm512_and_si512(v, exp), limit);
        if i % 256 == 255 && hit != 0 {
            return true;
        }
    }
    hit != 0
        || b[64 * whole..]
            .chunks_exact(4)
            .any(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) & 0x7f80_0000 >= at_least)
}

/// Whether an f32 dot of `lhs` and `rhs` into `out` may hold an inf or
/// NaN the GEMM got differently from the evaluator: never when every
/// operand value is finite and below 2^40 in magnitude (products below
/// 2^80, any sum of them far below f32::MAX, in either order) — checked on
/// the operands when they are smaller than the result; else the result
/// is scanned for inf/NaN.
fn dot_may_differ_non_finite(lhs: &[u8], rhs: &[u8], out: &[u8]) -> bool {
    const INF: u32 = 0x7f80_0000;
    const BIG: u32 = (127 + 40) << 23;
    if lhs.len() + rhs.len() < out.len()
        && !any_exponent_at_least(lhs, BIG)
        && !any_exponent_at_least(rhs, BIG)
    {
        return false;
    }
    any_exponent_at_least(out, INF)
}

thread_local! {
    /// Widened operands and the f32 result of a GEMM step whose types are
    /// not all f32, reused by the thread's later calls.
    static WIDE_SCRATCH: std::cell::Cell<[Vec<f32>; 3]> = const {
        std::cell::Cell::new([Vec::new(), Vec::new(), Vec::new()])
    };
}

/// [`widen`] into `dst` (its allocation reused).
///
/// # Safety
/// As [`widen`].
unsafe fn widen_into(leaf: Leaf, ty: ElementType, dst: &mut Vec<f32>) {
    // SAFETY: forwarded contract.
    let b = unsafe { bytes(leaf) };
    dst.clear();
    match ty {
        ElementType::S8 => dst.extend(b.iter().map(|&x| f32::from(x as i8))),
        ElementType::U8 => dst.extend(b.iter().map(|&x| f32::from(x))),
        // SAFETY: forwarded contract.
        _ => dst.extend(unsafe { widen(leaf, ty) }),
    }
}

/// An f16/bf16/f32 buffer as f32 values (exact: every half is an f32).
///
/// # Safety
/// `leaf` points at a live buffer of `leaf.len` bytes of type `ty`.
unsafe fn widen(leaf: Leaf, ty: ElementType) -> Vec<f32> {
    // SAFETY: forwarded contract.
    let b = unsafe { bytes(leaf) };
    match ty {
        // 8-bit integers (`plan::exact_int8_dot`): exact in f32.
        ElementType::S8 => b.iter().map(|&x| f32::from(x as i8)).collect(),
        ElementType::U8 => b.iter().map(|&x| f32::from(x)).collect(),
        ElementType::F16 => b
            .chunks_exact(2)
            .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32())
            .collect(),
        ElementType::BF16 => b
            .chunks_exact(2)
            .map(|c| half::bf16::from_le_bytes([c[0], c[1]]).to_f32())
            .collect(),
        _ => b
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    }
}

/// Stores the f32 accumulators into `leaf` as `ty`, each rounded once (as
/// the evaluator rounds an f16/bf16 dot's f32 accumulator).
///
/// # Safety
/// `leaf` points at a live, exclusively owned buffer of `leaf.len` bytes.
unsafe fn narrow(acc: &[f32], leaf: Leaf, ty: ElementType) {
    // SAFETY: forwarded contract.
    let out = unsafe { std::slice::from_raw_parts_mut(leaf.ptr, leaf.len) };
    if ty.is_integer() {
        // Exact integer sums (`plan::exact_int8_dot`), wrapped to the
        // result's width (little-endian two's complement: its low bytes).
        let w = ty.byte_size().max(1);
        if w == 4 {
            for (c, &v) in out.chunks_exact_mut(4).zip(acc) {
                c.copy_from_slice(&((v as i64) as i32).to_le_bytes());
            }
            return;
        }
        for (c, &v) in out.chunks_exact_mut(w).zip(acc) {
            c.copy_from_slice(&(v as i64).to_le_bytes()[..w]);
        }
        return;
    }
    match ty {
        ElementType::F16 => {
            for (c, &v) in out.chunks_exact_mut(2).zip(acc) {
                c.copy_from_slice(&half::f16::from_f32(v).to_le_bytes());
            }
        }
        ElementType::BF16 => {
            for (c, &v) in out.chunks_exact_mut(2).zip(acc) {
                c.copy_from_slice(&half::bf16::from_f32(v).to_le_bytes());
            }
        }
        _ => {
            for (c, &v) in out.chunks_exact_mut(4).zip(acc) {
                c.copy_from_slice(&v.to_le_bytes());
            }
        }
    }
}

#[cfg(test)]
mod dot_guard_tests {
    use super::{any_exponent_at_least, dot_may_differ_non_finite};

    fn bytes(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn exponent_scan_finds_inf_nan_and_large_values_anywhere() {
        const INF: u32 = 0x7f80_0000;
        const BIG: u32 = (127 + 40) << 23;
        // Lengths around the 16-value vectors and the 256-vector early exit.
        for n in [0usize, 1, 15, 16, 17, 4095, 4096, 4097, 5000] {
            let mut v = vec![1.5f32; n];
            assert!(!any_exponent_at_least(&bytes(&v), INF), "{n}");
            for pos in [0, n / 2, n.saturating_sub(1)] {
                if n == 0 {
                    continue;
                }
                for special in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
                    v[pos] = special;
                    assert!(
                        any_exponent_at_least(&bytes(&v), INF),
                        "{n} {pos} {special}"
                    );
                    v[pos] = 1.5;
                }
                v[pos] = -2e12; // 2^40.9: large, finite
                assert!(!any_exponent_at_least(&bytes(&v), INF), "{n} {pos}");
                assert!(any_exponent_at_least(&bytes(&v), BIG), "{n} {pos}");
                v[pos] = 1e12; // below 2^40
                assert!(!any_exponent_at_least(&bytes(&v), BIG), "{n} {pos}");
                v[pos] = 1.5;
            }
        }
    }

    #[test]
    fn small_finite_operands_skip_the_result_scan() {
        let small = bytes(&[1.0, -3.0]);
        let inf_out = bytes(&[f32::INFINITY; 8]);
        // Operands smaller than the result, all small and finite: no scan.
        assert!(!dot_may_differ_non_finite(&small, &small, &inf_out));
        // A large operand: the result is scanned.
        let big = bytes(&[3e38, 1.0]);
        assert!(dot_may_differ_non_finite(&big, &small, &inf_out));
        assert!(!dot_may_differ_non_finite(&big, &small, &bytes(&[0.5; 8])));
        // Operands larger than the result: the result is scanned.
        let long = bytes(&[1.0; 16]);
        assert!(dot_may_differ_non_finite(&long, &long, &bytes(&[f32::NAN])));
        assert!(!dot_may_differ_non_finite(&long, &long, &bytes(&[2.0])));
    }
}
