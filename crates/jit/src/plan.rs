//! The host plan of a computation: one step per instruction, deciding
//! what runs where — parameters, constants, tuples, get-tuple-element and
//! bitcasts are buffer bookkeeping; while/conditional/call (and fusions
//! that do not compile as one loop nest) run nested plans; sort, topk,
//! rng, rng-bit-generator, custom-call, infeed and outfeed are runtime
//! steps (`runtime::{sort, rng, calls}`; comparators compiled as rank-0
//! kernels); a single-replica all-reduce aliases its operand; the other
//! collectives are single-device (1×1) evaluator fallbacks (multi-device
//! runs of them go to the evaluator, see `Executable::run_replicated`); every other
//! live instruction is a JIT kernel, or as a last resort the evaluator
//! (fallback). Decisions only; execution lives in `runtime`.

use crate::codegen::{Jit, KernelMeta, KernelSpec};
use crate::error::{JitError, Result};
use crate::fallback::FallbackCall;
use crate::options::{CompileOptions, CompileStats};
use crate::rows::{self, RowGroup};
use crate::runtime::calls::CustomCallStep;
use crate::runtime::collective::AllReduceStep;
use crate::runtime::rng::{RngBitsStep, RngStep};
use crate::runtime::sort::{SortStep, TopKOrder, TopKStep};
use rxla_ir::{ArrayShape, CompId, ElementType, InstrId, Module, Op, RngDistribution, Shape};
use std::collections::HashMap;

/// What one instruction does at run time.
pub enum Step {
    /// Not needed for the result.
    Dead,
    Param(usize),
    /// Physical bytes of each leaf.
    Const(Vec<Vec<u64>>),
    /// Leaves `start..start+len` of another instruction's value.
    Alias {
        src: InstrId,
        start: usize,
        len: usize,
    },
    Tuple,
    /// Leaves of other values, each aliased or — when the instruction
    /// declares another layout than its source (or the source is padded
    /// and bitcast, so its padding must hold the padding value) — rewritten
    /// into this step's own buffer (`bytes` per leaf, 0 for aliased ones).
    Leaves {
        from: Vec<LeafFrom>,
        bytes: Vec<usize>,
    },
    Token,
    Kernel {
        meta: KernelMeta,
        inputs: Vec<InstrId>,
        /// For a fusion whose fused root has other layouts than the fusion:
        /// the kernel writes scratch buffers in the root's layouts, which
        /// are then relayouted into the fusion's.
        post: Option<Box<PostRelayout>>,
    },
    /// An f32 dot or convolution on the tiled GEMM engine (`rxla-gemm`).
    Gemm {
        plan: Box<GemmPlan>,
        inputs: [InstrId; 2],
        /// For padded or input-dilated convolutions: the GEMM multiplies the
        /// inserted zeros by the kernel (0·inf = NaN), which the evaluator
        /// never does, so a kernel with a non-finite value runs this
        /// instead.
        guard: Option<GemmGuard>,
        /// Element types of lhs, rhs and result: f32, or f16/bf16 for a
        /// dot, whose operands are widened to f32 scratch buffers and whose
        /// f32 result is rounded once (the evaluator's semantics).
        types: [rxla_ir::ElementType; 3],
        /// A relu (or residual add + relu) fused into the GEMM's tiles
        /// (`gemm_epilogue`); the fusion's step aliases this value.
        epi: Option<Box<crate::gemm_epilogue::GemmEpi>>,
    },
    Fallback(Box<FallbackCall>),
    /// `fft` with rustfft plans (`runtime::fft`).
    Fft(Box<crate::runtime::fft::FftStep>),
    /// A gather of whole contiguous rows (`runtime::row_gather`): inputs
    /// the table and the indices.
    RowGather(Box<crate::runtime::row_gather::RowGatherStep>),
    /// A complex elementwise instruction on the buffers
    /// (`runtime::complex`).
    Complex(Box<crate::runtime::complex::ComplexStep>),
    /// `sort` (`runtime::sort`): merge sort with a compiled comparator.
    Sort(Box<SortStep>),
    /// `topk`, builtin (`runtime::sort`).
    TopK(Box<TopKStep>),
    /// A reduction keeping the minor dimension, streamed row by row
    /// (`runtime::colreduce`).
    ColReduce(Box<crate::runtime::colreduce::ColReduceStep>),
    /// `dynamic-update-slice` written into its operand's buffer, which
    /// becomes the result (`runtime::dus`): only on a while body's
    /// loop-owned carry leaf that nothing else reads.
    DusInPlace(Box<crate::runtime::dus::DusStep>),
    /// `rng` from the run's random state (`runtime::rng`).
    Rng(Box<RngStep>),
    /// `rng-bit-generator` (`runtime::rng`).
    RngBits(Box<RngBitsStep>),
    /// `custom-call` through `RunOptions::custom_calls` (`runtime::calls`).
    CustomCall(Box<CustomCallStep>),
    /// `infeed` of a `(data, token)` shape (`runtime::calls`).
    Infeed(Box<Shape>),
    /// `outfeed` of a value of this shape (`runtime::calls`).
    Outfeed(Box<Shape>),
    /// A select of tuples by a scalar pred: `branches[0]` (on true) or
    /// `branches[1]`, each an `Alias` or `Leaves` step.
    Select {
        pred: InstrId,
        branches: [Box<Step>; 2],
    },
    /// `all-reduce`: `single` (the operands' leaves, a `Tuple` or `Leaves`
    /// step) in a single-replica run, `runtime::collective` across
    /// replicas.
    AllReduce {
        step: Box<AllReduceStep>,
        single: Box<Step>,
    },
    Call(Box<Program>),
    While {
        cond: Box<Program>,
        body: Box<Program>,
        /// Relayouts of the initial value into the carry's (the
        /// instruction's) layouts, when they differ.
        init: Option<LeafPlan>,
    },
    Conditional(Vec<Program>),
}

/// One leaf of a [`Step::Leaves`] value: leaf `leaf` of `src`'s value.
pub struct LeafFrom {
    pub src: InstrId,
    pub leaf: usize,
    /// `(from, to)` layouts when the bytes are rewritten (`runtime::relayout`).
    pub relayout: Option<Box<(ArrayShape, ArrayShape)>>,
}

/// The leaves of `to` taken from `from` (source instruction, leaf index,
/// source leaf shape): `None` when every leaf keeps its layout (the value
/// aliases its sources), else the per-leaf plan. `fill` forces a rewrite of
/// padded sources (a bitcast reads their padding).
fn leaves_from(from: &[(InstrId, usize, ArrayShape)], to: &Shape, fill: bool) -> Option<Step> {
    let to = to.leaves();
    if to.len() != from.len() {
        return None;
    }
    let mut any = false;
    let mut out = Vec::with_capacity(from.len());
    let mut bytes = Vec::with_capacity(from.len());
    for ((src, leaf, f), t) in from.iter().zip(&to) {
        let rewrite = !t.element_type.is_token()
            && f.compatible(t)
            && (f.layout != t.layout || (fill && f.layout.is_padded()));
        any |= rewrite;
        bytes.push(if rewrite { t.byte_size().ok()? } else { 0 });
        out.push(LeafFrom {
            src: *src,
            leaf: *leaf,
            relayout: rewrite.then(|| Box::new((f.clone(), (*t).clone()))),
        });
    }
    any.then_some(Step::Leaves { from: out, bytes })
}

/// `(instruction, leaf index, leaf shape)` of every leaf of `id`'s value.
fn leaf_sources(comp: &rxla_ir::Computation, id: InstrId) -> Vec<(InstrId, usize, ArrayShape)> {
    comp.get(id)
        .shape
        .leaves()
        .into_iter()
        .enumerate()
        .map(|(k, a)| (id, k, a.clone()))
        .collect()
}

/// `shape` with every padded layout replaced by its unpadded form.
pub(crate) fn unpad(shape: &Shape) -> Shape {
    match shape {
        Shape::Array(a) => {
            let mut a = a.clone();
            a.layout.padded_dimensions = None;
            a.layout.padding_value = None;
            Shape::Array(a)
        }
        Shape::Tuple(t) => Shape::Tuple(t.iter().map(unpad).collect()),
    }
}

/// Scratch buffers of a kernel writing another layout than its step's,
/// and the `(from, to)` relayout of each leaf.
pub struct PostRelayout {
    pub scratch_bytes: Vec<usize>,
    pub leaves: Vec<(ArrayShape, ArrayShape)>,
}

impl PostRelayout {
    /// `None` when `produced` and `declared` have the same layouts.
    fn new(produced: &Shape, declared: &Shape) -> Result<Option<Box<PostRelayout>>> {
        let (p, d) = (produced.leaves(), declared.leaves());
        if p.len() != d.len() || p.iter().zip(&d).any(|(a, b)| !a.compatible(b)) {
            return Err(JitError::input(format!(
                "fusion root {produced} does not match the fusion's shape {declared}"
            )));
        }
        if p.iter().zip(&d).all(|(a, b)| a.layout == b.layout) {
            return Ok(None);
        }
        Ok(Some(Box::new(PostRelayout {
            scratch_bytes: leaf_bytes(produced)?,
            leaves: p
                .into_iter()
                .zip(d)
                .map(|(a, b)| (a.clone(), b.clone()))
                .collect(),
        })))
    }
}

/// What a guarded GEMM step runs instead — a convolution whose kernel
/// holds inf/NaN, an f32 dot whose result does: the exact loop kernel
/// (inputs lhs, rhs), or the evaluator.
pub enum GemmGuard {
    Kernel(KernelMeta),
    Eval(Box<FallbackCall>),
}

/// Per root leaf of while body `comp`: whether root tuple operand `j` is
/// `get-tuple-element(parameter(0), j)` itself or an in-place update of it
/// (every operand an array, so leaf `j` is operand `j`).
fn stable_leaves(comp: &rxla_ir::Computation, steps: &[Step]) -> Vec<bool> {
    let root = comp.get(comp.root);
    if !matches!(root.op, Op::Tuple) {
        return Vec::new();
    }
    let is_param_leaf = |o: InstrId, j: usize| {
        let i = comp.get(o);
        matches!(i.op, Op::GetTupleElement { index } if index as usize == j)
            && i.operands.first().is_some_and(|&p| {
                matches!(comp.get(p).op, Op::Parameter { number: 0 })
                    && matches!(comp.get(p).shape, Shape::Tuple(_))
            })
    };
    if root
        .operands
        .iter()
        .any(|&o| !matches!(comp.get(o).shape, Shape::Array(_)))
    {
        return Vec::new();
    }
    root.operands
        .iter()
        .enumerate()
        .map(|(j, &o)| {
            is_param_leaf(o, j)
                || (matches!(steps.get(o.index()), Some(Step::DusInPlace(_)))
                    && comp
                        .get(o)
                        .operands
                        .first()
                        .is_some_and(|&t| is_param_leaf(t, j)))
        })
        .collect()
}

/// A `reduce` (alone, or in a fusion: `g(reduce(f(parameters...),
/// constant), parameters...)`) of a row-major, static f32 array that keeps
/// the operand's minor dimension (16 or more wide) and reduces at least one
/// other, with an f32 add/multiply/maximum/minimum reducer of its two
/// parameters and a row-major result: the host's row-streaming column
/// reduction. In a fusion the reduce's operand may be computed from the
/// parameters (`f`, the producer) and the root may compute from the reduced
/// value (`g`, the epilogue); the planner compiles both as kernels.
struct ColumnReduction {
    step: crate::runtime::colreduce::ColReduceStep,
    /// The fused computation's reduce operand when it is not a parameter.
    producer: Option<InstrId>,
    /// The fused reduce when it is not the fusion's root.
    epilogue_of: Option<InstrId>,
}

fn column_reduction(
    module: &Module,
    comp: &rxla_ir::Computation,
    id: InstrId,
) -> Option<ColumnReduction> {
    use crate::runtime::colreduce::{ColOp, ColReduceStep};
    let instr = comp.get(id);
    // The reduce and the computation holding it and its operands.
    let (rc, rid) = match &instr.op {
        Op::Fusion { calls, .. } => {
            let fc = module.comp(*calls);
            let mut reduces = fc
                .ids()
                .filter(|&i| matches!(fc.get(i).op, Op::Reduce { .. }));
            let (Some(r), None) = (reduces.next(), reduces.next()) else {
                return None;
            };
            (fc, r)
        }
        Op::Reduce { .. } => (comp, id),
        _ => return None,
    };
    let r = rc.get(rid);
    let Op::Reduce {
        dimensions,
        to_apply,
    } = &r.op
    else {
        return None;
    };
    let [operand, init] = r.operands.as_slice() else {
        return None;
    };
    // Inside a fusion: the operand is one of the fusion's parameters, or a
    // value computed from them (the producer).
    let (producer, input) = match (&instr.op, &rc.get(*operand).op) {
        (Op::Fusion { .. }, Op::Parameter { number }) => (None, *number as usize),
        (Op::Fusion { .. }, _) => (Some(*operand), 0),
        _ => (None, 0),
    };
    let epilogue_of = match &instr.op {
        Op::Fusion { .. } if rc.root != rid => Some(rid),
        _ => None,
    };
    let Op::Constant { literal } = &rc.get(*init).op else {
        return None;
    };
    let init = *literal.as_array().ok()?.as_slice::<f32>()?.first()?;
    let os = rc.get(*operand).shape.as_array().ok()?;
    let out = r.shape.as_array().ok()?;
    let f32_plain = |a: &ArrayShape| {
        a.element_type == ElementType::F32
            && a.layout.is_default()
            && !a.layout.is_padded()
            && !a.is_dynamic()
    };
    let fused_out = instr.shape.as_array().ok()?;
    let plain_out =
        fused_out.layout.is_default() && !fused_out.layout.is_padded() && !fused_out.is_dynamic();
    if !f32_plain(os) || !f32_plain(out) || !plain_out {
        return None;
    }
    if epilogue_of.is_none() && fused_out != out {
        return None;
    }
    let rank = os.rank();
    let reduced: Vec<bool> = (0..rank as i64).map(|d| dimensions.contains(&d)).collect();
    // The minor dimension kept (16 or more wide), or reduced together with
    // some major dimensions while others are kept (group norm: groups of
    // channels over the image); a reduction of the minor dimension alone,
    // or of everything, is a row reduction, not this step.
    let major_kept = reduced[..rank.saturating_sub(1)].iter().any(|&x| !x);
    let major_reduced = reduced[..rank.saturating_sub(1)].iter().any(|&x| x);
    let shape_ok = if reduced.get(rank.wrapping_sub(1)) == Some(&false) {
        os.dims[rank - 1] >= 16 && major_reduced
    } else {
        major_kept && major_reduced
    };
    if rank < 2 || !shape_ok {
        return None;
    }
    // The reducer: op(p0, p1) or op(p1, p0) on f32.
    let red = module.comp(*to_apply);
    let ps = red.parameters();
    let root = red.root_instruction();
    if ps.len() != 2 || root.shape.element_type() != Some(ElementType::F32) {
        return None;
    }
    let acc_first = match root.operands.as_slice() {
        [a, b] if *a == ps[0] && *b == ps[1] => true,
        [a, b] if *a == ps[1] && *b == ps[0] => false,
        _ => return None,
    };
    let op = match root.op {
        Op::Binary(rxla_ir::BinaryOp::Add) => ColOp::Add,
        Op::Binary(rxla_ir::BinaryOp::Multiply) => ColOp::Mul,
        Op::Binary(rxla_ir::BinaryOp::Maximum) => ColOp::Max,
        Op::Binary(rxla_ir::BinaryOp::Minimum) => ColOp::Min,
        _ => return None,
    };
    let (dims, reduced) = merge_column_dims(&os.dims, &reduced);
    Some(ColumnReduction {
        step: ColReduceStep {
            dims,
            reduced,
            op,
            acc_first,
            init,
            input,
            producer: None,
            epilogue: None,
        },
        producer,
        epilogue_of,
    })
}

/// A column reduction's operand dims with each run of adjacent dims after
/// the first that are all kept (or all reduced) merged into one: the same
/// row-major values in the same order, so every output folds the same
/// values in the same order, but a kept minor block (NCHW's `h·w` under a
/// reduction over channels) is one row of `h·w` values instead of `h`
/// rows of `w`. The first dim stays alone: it is the row-group dimension.
fn merge_column_dims(dims: &[i64], reduced: &[bool]) -> (Vec<i64>, Vec<bool>) {
    let mut md: Vec<i64> = Vec::with_capacity(dims.len());
    let mut mr: Vec<bool> = Vec::with_capacity(dims.len());
    for (k, (&d, &r)) in dims.iter().zip(reduced).enumerate() {
        match (md.last_mut(), mr.last()) {
            (Some(last), Some(&lr)) if k >= 2 && lr == r => *last *= d,
            _ => {
                md.push(d);
                mr.push(r);
            }
        }
    }
    (md, mr)
}

/// An array in the default (row-major) layout, without padding or dynamic
/// dimensions: its bytes are its elements in row-major order.
fn row_major_plain(s: &Shape) -> bool {
    matches!(s, Shape::Array(a)
        if a.layout.is_default() && !a.layout.is_padded() && !a.is_dynamic())
}

/// An integer dot the f32 GEMM computes exactly: 8-bit operands (s8 or
/// u8) whose every partial sum of `k` products stays within 2^24, where
/// f32 holds integers exactly (s8·s8: k ≤ 1024; u8·u8: k ≤ 258), and an
/// integer result, which takes the exact sum wrapped to its width — the
/// evaluator's wrapping sum in the result type. Quantized inference
/// (`preferred_element_type=int32`) runs at GEMM speed instead of a
/// scalar loop.
pub(crate) fn exact_int8_dot(types: [ElementType; 3], k: usize) -> bool {
    let magnitude = |t: ElementType| match t {
        ElementType::S8 => Some(128u64),
        ElementType::U8 => Some(255u64),
        _ => None,
    };
    let (Some(a), Some(b)) = (magnitude(types[0]), magnitude(types[1])) else {
        return false;
    };
    let out = types[2];
    out.is_integer() && !out.is_int_n() && (k as u64).saturating_mul(a * b) <= 1 << 24
}

/// An 8-bit integer dot into s32/u32 that the GEMM engine's int8 kernels
/// (AVX-512 VNNI, `DotPlan::run_i8_raw`) compute exactly for any `k`:
/// wrapping i32 sums, the evaluator's.
pub(crate) fn int8_engine_dot(types: [ElementType; 3]) -> bool {
    let byte = |t: ElementType| matches!(t, ElementType::S8 | ElementType::U8);
    byte(types[0])
        && byte(types[1])
        && matches!(types[2], ElementType::S32 | ElementType::U32)
        && rxla_gemm::int8_available(&rxla_gemm::Options::default())
}

/// A depthwise f32 convolution (one input and one output feature per
/// group) whose output features are its contiguous dim (NHWC): the loop
/// kernel computes it in vector lanes along the features
/// (`codegen::conv::convolution_lanes`), where the GEMM engine would run
/// one product with a single column per channel.
fn depthwise_feature_minor(
    comp: &rxla_ir::Computation,
    instr: &rxla_ir::Instruction,
    window: &rxla_ir::Window,
    dims: &rxla_ir::ConvDims,
    fgc: i64,
    bgc: i64,
) -> bool {
    let shapes: Option<Vec<&ArrayShape>> = instr
        .operands
        .iter()
        .map(|&o| comp.get(o).shape.as_array().ok())
        .chain(std::iter::once(instr.shape.as_array().ok()))
        .collect();
    let Some([l, r, o]) = shapes.as_deref() else {
        return false;
    };
    let Ok(g) = rxla_ir::geometry::conv_geometry(&l.dims, &r.dims, &o.dims, window, dims, fgc, bgc)
    else {
        return false;
    };
    [l, r, o].iter().all(|a| a.element_type == ElementType::F32)
        && fgc > 1
        && bgc == 1
        && g.group_in == 1
        && g.c_out == fgc
        && o.layout.minor_to_major.first() == Some(&(g.output.feature as i64))
        && l.layout.minor_to_major.first() == Some(&(g.input.feature as i64))
        && o.dims.get(g.output.feature).is_some_and(|&n| n >= 4)
}

/// A planned product of the GEMM engine.
pub enum GemmPlan {
    Dot(Box<rxla_gemm::DotPlan>),
    Conv(Box<rxla_gemm::ConvPlan>),
}

fn tensor_layout(s: &Shape) -> Option<rxla_gemm::TensorLayout> {
    use rxla_ir::ElementType::{BF16, F16, F32};
    let a = s.as_array().ok()?;
    let gemm_type = matches!(a.element_type, F32 | F16 | BF16)
        || a.element_type.is_integer() && !a.element_type.is_int_n();
    if !gemm_type || a.layout.is_padded() {
        return None;
    }
    let dims: Vec<usize> = a.dims.iter().map(|&d| d as usize).collect();
    let m2m: Vec<usize> = a
        .layout
        .minor_to_major
        .iter()
        .map(|&d| d as usize)
        .collect();
    rxla_gemm::TensorLayout::with_minor_to_major(&dims, &m2m).ok()
}

/// Element types of a GEMM step's lhs, rhs and result (f32, f16, bf16).
fn gemm_types(comp: &rxla_ir::Computation, id: InstrId) -> Option<[rxla_ir::ElementType; 3]> {
    let instr = comp.get(id);
    let ty = |s: &Shape| s.as_array().ok().map(|a| a.element_type);
    Some([
        ty(&comp.get(*instr.operands.first()?).shape)?,
        ty(&comp.get(*instr.operands.get(1)?).shape)?,
        ty(&instr.shape)?,
    ])
}

/// The GEMM engine's plan for an f32 dot or convolution, or a dot with
/// f16/bf16 operands or result, when it takes it.
fn gemm_plan(comp: &rxla_ir::Computation, id: InstrId) -> Option<GemmPlan> {
    let instr = comp.get(id);
    let all_f32 = gemm_types(comp, id)?
        .iter()
        .all(|&t| t == rxla_ir::ElementType::F32);
    if !all_f32 && !matches!(instr.op, Op::Dot { .. }) {
        return None;
    }
    let (l, r) = (instr.operands.first()?, instr.operands.get(1)?);
    let lt = tensor_layout(&comp.get(*l).shape)?;
    let rt = tensor_layout(&comp.get(*r).shape)?;
    let ot = tensor_layout(&instr.shape)?;
    let types = gemm_types(comp, id)?;
    let ints = types.iter().any(|t| t.is_integer());
    match &instr.op {
        Op::Dot { dims } if ints => rxla_gemm::DotPlan::new(&lt, &rt, dims, &ot)
            .ok()
            .filter(|p| exact_int8_dot(types, p.k) || int8_engine_dot(types))
            .map(|p| GemmPlan::Dot(Box::new(p))),
        Op::Dot { dims } => rxla_gemm::DotPlan::new(&lt, &rt, dims, &ot)
            .ok()
            // Many tiny products (a batch of 8x8 matrices): the engine's
            // per-product setup (packing, blocking) costs more than the
            // product; the loop kernel (`codegen/dot.rs`) runs them.
            .filter(|p| !(all_f32 && p.batch >= 16 && p.m * p.n * p.k <= 1024))
            .map(|p| GemmPlan::Dot(Box::new(p))),
        Op::Convolution {
            window,
            dims,
            feature_group_count,
            batch_group_count,
        } if depthwise_feature_minor(
            comp,
            instr,
            window,
            dims,
            *feature_group_count,
            *batch_group_count,
        ) =>
        {
            None
        }
        Op::Convolution {
            window,
            dims,
            feature_group_count,
            batch_group_count,
        } => rxla_gemm::ConvPlan::new(
            &lt,
            &rt,
            &ot,
            window,
            dims,
            *feature_group_count,
            *batch_group_count,
        )
        .ok()
        .map(|p| GemmPlan::Conv(Box::new(p))),
        _ => None,
    }
}

/// The plan of one computation.
pub struct Program {
    pub comp: CompId,
    pub steps: Vec<Step>,
    /// Byte size of each leaf of each instruction's value.
    pub leaf_bytes: Vec<Vec<usize>>,
    /// Operands of each instruction.
    pub operands: Vec<Vec<InstrId>>,
    pub root: InstrId,
    /// Kernels run row block by row block (`rows`).
    pub groups: Vec<RowGroup>,
    /// Per step: the row group it belongs to.
    pub in_group: Vec<Option<usize>>,
    /// Arguments arriving in other layouts than the parameters declare:
    /// per parameter, per leaf, the `(from, to)` relayout (none: aliased).
    pub entry: Option<Vec<LeafPlan>>,
    /// A root to be returned in other layouts (the calling instruction's).
    pub exit: Option<LeafPlan>,
    /// Some step writes into a parameter leaf (`Step::DusInPlace`): the
    /// caller must pass buffers it owns (a while loop's carry).
    pub mutates_params: bool,
    /// Per root leaf of a while body: the body always returns it in the
    /// buffer of the same parameter leaf (passed through unchanged, or
    /// updated in place), so the loop keeps it there instead of copying.
    pub stable_leaves: Vec<bool>,
}

/// Per leaf of a value: `Some((from, to))` when it is rewritten from one
/// layout into another, `None` when it is used as it is.
pub type LeafPlan = Vec<Option<Box<(ArrayShape, ArrayShape)>>>;

/// The relayouts taking a value of shape `from` to `to`: `Some(None)`
/// when no leaf changes layout, `None` when types, dims or structure
/// differ.
pub fn leaf_plan(from: &Shape, to: &Shape) -> Option<Option<LeafPlan>> {
    let (f, t) = (from.leaves(), to.leaves());
    if f.len() != t.len() || f.iter().zip(&t).any(|(a, b)| !a.compatible(b)) {
        return None;
    }
    let plan: LeafPlan = f
        .iter()
        .zip(&t)
        .map(|(a, b)| {
            (!a.element_type.is_token() && a.layout != b.layout)
                .then(|| Box::new(((*a).clone(), (*b).clone())))
        })
        .collect();
    Some(plan.iter().any(Option::is_some).then_some(plan))
}

/// Byte sizes of the leaves of `shape`, in order.
pub fn leaf_bytes(shape: &Shape) -> Result<Vec<usize>> {
    shape
        .leaves()
        .into_iter()
        .map(|a| {
            Ok(if a.element_type.is_token() {
                0
            } else {
                a.byte_size()?
            })
        })
        .collect()
}

fn leaf_count(shape: &Shape) -> usize {
    shape.leaves().len()
}

/// Builds plans, compiling kernels into one JIT module.
pub struct Planner<'m> {
    pub module: &'m Module,
    pub jit: Jit,
    pub stats: CompileStats,
    pub opts: CompileOptions,
    /// Per kernel step `(computation, instruction)`: which inputs it reads
    /// row-locally (`rows::row_local_inputs`), for row groups.
    pub row_local: HashMap<(CompId, InstrId), Vec<bool>>,
    /// The while bodies being planned (innermost last): their parameter
    /// is the loop's own carry, which a step may update in place.
    pub owned_params: Vec<CompId>,
}

impl Planner<'_> {
    /// The evaluator for one instruction (when allowed), recorded.
    /// The kernels of a fused column reduction (`id`, a fusion in `cid`):
    /// the producer (the fused reduce's operand compiled over the fusion's
    /// parameters, run block of rows by block of rows into scratch that the
    /// reduction folds while it is in cache) and the epilogue (the fusion's
    /// root compiled with the reduced value as an input). `None` when a
    /// kernel cannot be compiled or the producer's outer loop is not the
    /// operand's major dimension (the fusion then runs as usual).
    fn column_kernels(
        &mut self,
        cid: CompId,
        id: InstrId,
        cr: ColumnReduction,
    ) -> Result<Option<crate::runtime::colreduce::ColReduceStep>> {
        use crate::runtime::colreduce::{ColEpilogue, ColProducer, PRODUCER_BLOCK_BYTES};
        let mut step = cr.step;
        let comp = self.module.comp(cid);
        let instr = comp.get(id);
        // Row groups (`rows::member_rows`): per operand of the step, whether
        // output row r reads only row r of it. The reduced operand's row r
        // is slab r; the producer and the epilogue say for the others.
        let mut local = vec![true; instr.operands.len()];
        let mut groupable = true;
        if cr.producer.is_none() && cr.epilogue_of.is_none() {
            self.row_local.insert((cid, id), local);
            return Ok(Some(step));
        }
        let Op::Fusion { calls, .. } = &instr.op else {
            return Ok(None);
        };
        let fc = self.module.comp(*calls);
        let mut params = Vec::new();
        for p in fc.parameters() {
            let Op::Parameter { number } = fc.get(p).op else {
                return Ok(None);
            };
            match instr
                .operands
                .get(number as usize)
                .map(|&o| &comp.get(o).shape)
            {
                Some(Shape::Array(a)) => params.push((p, a.clone())),
                _ => return Ok(None),
            }
        }
        if let Some(operand) = cr.producer {
            let Ok(shape) = fc.get(operand).shape.as_array() else {
                return Ok(None);
            };
            let (Some(&rows), Ok(total)) = (shape.dims.first(), shape.element_count()) else {
                return Ok(None);
            };
            let spec = KernelSpec {
                comp: *calls,
                root: operand,
                inputs: params.clone(),
                name: format!("{}_rows", instr.name),
            };
            let meta = match self.jit.compile(self.module, &spec, &mut self.stats) {
                Ok(meta) => meta,
                Err(JitError::Unsupported(_)) => return Ok(None),
                Err(e) => return Err(e),
            };
            if rows <= 0 || meta.outer != rows {
                return Ok(None);
            }
            for (l, p) in local
                .iter_mut()
                .zip(rows::row_local_inputs(self.module, &spec, shape))
            {
                *l &= p;
            }
            let row_elems = total / rows as usize;
            let block_rows =
                (PRODUCER_BLOCK_BYTES / (4 * row_elems).max(1)).clamp(1, rows as usize);
            step.producer = Some(ColProducer {
                meta,
                inputs: instr.operands.clone(),
                row_elems,
                block_rows,
            });
        }
        if let Some(rid) = cr.epilogue_of {
            let Ok(acc) = fc.get(rid).shape.as_array() else {
                return Ok(None);
            };
            let mut inputs = vec![(rid, acc.clone())];
            inputs.extend(params);
            let spec = KernelSpec {
                comp: *calls,
                root: fc.root,
                inputs,
                name: format!("{}_epilogue", instr.name),
            };
            let meta = match self.jit.compile(self.module, &spec, &mut self.stats) {
                Ok(meta) => meta,
                Err(JitError::Unsupported(_)) => return Ok(None),
                Err(e) => return Err(e),
            };
            // The epilogue must read the reduced value at its own row too.
            let out = instr.shape.as_array().ok();
            let e_local = out.map(|o| rows::row_local_inputs(self.module, &spec, o));
            match e_local.as_deref() {
                Some([true, rest @ ..]) => {
                    for (l, e) in local.iter_mut().zip(rest) {
                        *l &= e;
                    }
                }
                // Run by blocks, the reduced value would be read outside
                // the block: never in a row group.
                _ => groupable = false,
            }
            step.epilogue = Some(ColEpilogue {
                meta,
                inputs: instr.operands.clone(),
                acc_bytes: acc.byte_size()?,
            });
        }
        if groupable {
            self.row_local.insert((cid, id), local);
        }
        Ok(Some(step))
    }

    /// The kernel of a fused computation whose root is a reshape between
    /// row-major, unpadded, static arrays of one element type, compiled
    /// with the reshape's operand as its root (the same bytes: the
    /// output buffer is written as the operand's shape), when that kernel
    /// is vectorized; `None` otherwise.
    fn reshape_root_kernel(
        &mut self,
        spec: &KernelSpec,
    ) -> Result<Option<(KernelMeta, KernelSpec)>> {
        let fc = self.module.comp(spec.comp);
        let root = fc.get(spec.root);
        let (Op::Reshape, [operand]) = (&root.op, root.operands.as_slice()) else {
            return Ok(None);
        };
        let os = &fc.get(*operand).shape;
        let same_type =
            os.element_type().is_some() && os.element_type() == root.shape.element_type();
        let minor = os.as_array().ok().and_then(|a| a.dims.last().copied());
        if !same_type
            || !row_major_plain(os)
            || !row_major_plain(&root.shape)
            || minor.is_none_or(|m| m < 4 && !os.as_array().is_ok_and(crate::codegen::small_minor))
            || matches!(fc.get(*operand).op, Op::Parameter { .. })
        {
            return Ok(None);
        }
        let inner = KernelSpec {
            comp: spec.comp,
            root: *operand,
            inputs: spec.inputs.clone(),
            name: format!("{}_unreshaped", spec.name),
        };
        match self.jit.compile(self.module, &inner, &mut self.stats) {
            Ok(meta) if meta.vectorized => Ok(Some((meta, inner))),
            Ok(_) | Err(JitError::Unsupported(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// An instruction with a complex operand or result: the elementwise
    /// host step (`runtime::complex`), a c64 data movement compiled as a
    /// kernel moving u64 bit patterns (bit-exact), else the evaluator.
    fn complex(
        &mut self,
        cid: CompId,
        id: InstrId,
        spec: KernelSpec,
        inputs: Vec<InstrId>,
    ) -> Result<Step> {
        let comp = self.module.comp(cid);
        let instr = comp.get(id);
        let operands: Option<Vec<&ArrayShape>> = instr
            .operands
            .iter()
            .map(|&o| comp.get(o).shape.as_array().ok())
            .collect();
        if let (Some(ops), Ok(out)) = (&operands, instr.shape.as_array())
            && let Some(step) = crate::runtime::complex::ComplexStep::plan(&instr.op, ops, out)
        {
            self.stats.runtime_calls.push(format!(
                "{}/{} ({}): complex elementwise",
                comp.name,
                instr.name,
                instr.opcode()
            ));
            return Ok(Step::Complex(Box::new(step)));
        }
        let movement = matches!(
            instr.op,
            Op::Broadcast { .. }
                | Op::Reshape
                | Op::Transpose { .. }
                | Op::Copy
                | Op::Slice { .. }
                | Op::DynamicSlice { .. }
                | Op::DynamicUpdateSlice
                | Op::Concatenate { .. }
                | Op::Pad { .. }
                | Op::Reverse { .. }
                | Op::Select
                | Op::Gather { .. }
        );
        let c128 = std::iter::once(&instr.shape)
            .chain(instr.operands.iter().map(|&o| &comp.get(o).shape))
            .flat_map(|s| s.leaves())
            .any(|l| l.element_type == ElementType::C128 || l.layout.is_padded());
        if movement && !c128 && instr.shape.as_array().is_ok() {
            let mut m = self.module.clone();
            {
                let mc = &mut m.computations[cid.index()];
                for &o in instr.operands.iter().chain(std::iter::once(&id)) {
                    as_u64(&mut mc.instructions[o.index()].shape);
                }
            }
            let spec = KernelSpec {
                inputs: spec
                    .inputs
                    .into_iter()
                    .map(|(o, mut a)| {
                        if a.element_type == ElementType::C64 {
                            a.element_type = ElementType::U64;
                        }
                        (o, a)
                    })
                    .collect(),
                ..spec
            };
            match self.jit.compile(&m, &spec, &mut self.stats) {
                Ok(meta) => {
                    return Ok(Step::Kernel {
                        meta,
                        inputs,
                        post: None,
                    });
                }
                Err(JitError::Unsupported(why)) => return self.fallback(cid, id, &why),
                Err(e) => return Err(e),
            }
        }
        if movement && instr.shape.as_array().is_ok() {
            // c128 (or padded) movement: a region kernel copies its bytes
            // where the root cuts into regions; else the evaluator.
            return match self.jit.compile(self.module, &spec, &mut self.stats) {
                Ok(meta) => Ok(Step::Kernel {
                    meta,
                    inputs,
                    post: None,
                }),
                Err(JitError::Unsupported(why)) => self.fallback(cid, id, &why),
                Err(e) => Err(e),
            };
        }
        self.fallback(cid, id, "complex (no native code for this op or type)")
    }

    fn fallback(&mut self, cid: CompId, id: InstrId, why: &str) -> Result<Step> {
        let comp = self.module.comp(cid);
        let instr = comp.get(id);
        let what = format!("{}/{} ({}): {why}", comp.name, instr.name, instr.opcode());
        if !self.opts.allow_interpreter_fallback {
            return Err(JitError::unsupported(what));
        }
        self.stats.fallbacks.push(what);
        Ok(Step::Fallback(Box::new(FallbackCall::new(
            self.module,
            cid,
            id,
        )?)))
    }

    /// True when every operand's layouts equal the called computations'
    /// parameter layouts and their roots produce the instruction's layouts
    /// (buffers cross the boundary unchanged).
    fn layouts_agree(&self, cid: CompId, id: InstrId) -> bool {
        let comp = self.module.comp(cid);
        let instr = comp.get(id);
        let same = |a: &Shape, b: &Shape| {
            let (la, lb) = (a.leaves(), b.leaves());
            la.len() == lb.len()
                && la
                    .iter()
                    .zip(&lb)
                    .all(|(x, y)| x.dims == y.dims && x.layout == y.layout)
        };
        let callee_ok = |callee: CompId, args: &[InstrId], result: Option<&Shape>| {
            let cc = self.module.comp(callee);
            let ps = cc.parameters();
            ps.len() == args.len()
                && ps
                    .iter()
                    .zip(args)
                    .all(|(&p, &a)| same(&cc.get(p).shape, &comp.get(a).shape))
                && result.is_none_or(|r| same(&cc.root_instruction().shape, r))
        };
        match &instr.op {
            Op::Call { to_apply } => callee_ok(*to_apply, &instr.operands, Some(&instr.shape)),
            Op::Fusion { calls, .. } => callee_ok(*calls, &instr.operands, Some(&instr.shape)),
            Op::While { condition, body } => {
                callee_ok(*condition, &instr.operands, None)
                    && callee_ok(*body, &instr.operands, Some(&instr.shape))
            }
            Op::Conditional { branches } => branches.iter().enumerate().all(|(k, &b)| {
                callee_ok(
                    b,
                    instr.operands.get(k + 1..k + 2).unwrap_or(&[]),
                    Some(&instr.shape),
                )
            }),
            _ => true,
        }
    }

    /// Compiles a comparator computation as a rank-0 kernel reading one
    /// scalar per parameter (input k = parameter number k, of type
    /// `types[k]`) and writing a pred byte. `Ok(Err(why))` when it does not
    /// fit or compile.
    fn comparator(
        &mut self,
        cmp: CompId,
        types: &[ElementType],
        name: &str,
    ) -> Result<std::result::Result<usize, String>> {
        self.scalar_kernel(cmp, types, ElementType::Pred, &format!("{name}_cmp"))
    }

    /// Compiles computation `cmp` on scalars as a rank-0 kernel: input k is
    /// parameter number k, of type `types[k]`; the root must be a `result`
    /// scalar. `Ok(Err(why))` when it does not fit or compile.
    fn scalar_kernel(
        &mut self,
        cmp: CompId,
        types: &[ElementType],
        result: ElementType,
        name: &str,
    ) -> Result<std::result::Result<usize, String>> {
        let fc = self.module.comp(cmp);
        let params = fc.parameters();
        if params.len() != types.len() {
            return Ok(Err(format!(
                "comparator takes {} parameters, expected {}",
                params.len(),
                types.len()
            )));
        }
        let mut inputs: Vec<Option<(InstrId, ArrayShape)>> = vec![None; types.len()];
        for p in params {
            let Op::Parameter { number } = fc.get(p).op else {
                return Ok(Err("comparator parameter".into()));
            };
            let slot = usize::try_from(number).ok().and_then(|n| {
                let t = types.get(n)?;
                let s = fc.get(p).shape.as_array().ok()?;
                (s.rank() == 0 && s.element_type == *t).then(|| (n, s.clone()))
            });
            match slot {
                Some((n, s)) if inputs[n].is_none() => inputs[n] = Some((p, s)),
                _ => return Ok(Err("comparator parameter types".into())),
            }
        }
        let root = fc.root_instruction();
        if !matches!(&root.shape, Shape::Array(a) if a.rank() == 0 && a.element_type == result) {
            return Ok(Err(format!("{} does not return {result}[]", fc.name)));
        }
        let spec = KernelSpec {
            comp: cmp,
            root: fc.root,
            inputs: inputs.into_iter().flatten().collect(),
            name: name.to_string(),
        };
        match self.jit.compile(self.module, &spec, &mut self.stats) {
            Ok(meta) => Ok(Ok(meta.index)),
            Err(JitError::Unsupported(why)) => Ok(Err(format!("{}: {why}", fc.name))),
            Err(e) => Err(e),
        }
    }

    /// The native step of a sort, top-k, rng, custom call or feed;
    /// `Ok(Err(why))` when it does not fit (the caller falls back).
    fn runtime_step(
        &mut self,
        cid: CompId,
        id: InstrId,
    ) -> Result<std::result::Result<Step, String>> {
        let comp = self.module.comp(cid);
        let instr = comp.get(id);
        let mut arrays = Vec::with_capacity(instr.operands.len());
        for &o in &instr.operands {
            match &comp.get(o).shape {
                Shape::Array(a) => arrays.push(a.clone()),
                Shape::Tuple(_) => arrays.clear(),
            }
        }
        let all_arrays = arrays.len() == instr.operands.len();
        let leaves: Vec<ArrayShape> = instr.shape.leaves().into_iter().cloned().collect();
        let narrow = |s: &Shape| s.leaves().iter().any(|l| l.element_type.is_narrow());
        // Sort and top-k move narrow elements as bytes (keys and comparator
        // kernels decode them); the other runtime steps leave them to the
        // evaluator.
        let moves_bytes = matches!(instr.op, Op::Sort { .. } | Op::TopK { .. });
        if !moves_bytes
            && (narrow(&instr.shape) || instr.operands.iter().any(|&o| narrow(&comp.get(o).shape)))
        {
            return Ok(Err("narrow element types run on the evaluator".into()));
        }
        let pair = |leaves: &[ArrayShape]| -> Option<[ArrayShape; 2]> {
            match (&instr.shape, leaves) {
                (Shape::Tuple(t), [a, b]) if t.len() == 2 => Some([a.clone(), b.clone()]),
                _ => None,
            }
        };
        Ok(match &instr.op {
            Op::Sort {
                dimension,
                comparator,
                ..
            } => {
                let Some(first) = arrays.first().filter(|_| all_arrays) else {
                    return Ok(Err("sort of tuples".into()));
                };
                if leaves.len() != arrays.len()
                    || arrays
                        .iter()
                        .zip(&leaves)
                        .any(|(a, l)| !a.compatible(l) || a.dims != first.dims)
                {
                    return Ok(Err("sort shapes".into()));
                }
                let dim = if first.rank() == 0 {
                    None
                } else {
                    match first.resolve_dim(*dimension) {
                        Ok(d) => Some(d),
                        Err(_) => return Ok(Err("sort dimension".into())),
                    }
                };
                let types: Vec<ElementType> = arrays
                    .iter()
                    .flat_map(|a| [a.element_type, a.element_type])
                    .collect();
                let operand_types: Vec<ElementType> =
                    arrays.iter().map(|a| a.element_type).collect();
                let key = crate::sort_key::sort_key(self.module, *comparator, &operand_types);
                match self.comparator(*comparator, &types, &instr.name)? {
                    Ok(k) => Ok(Step::Sort(Box::new(SortStep {
                        dimension: dim,
                        operands: arrays,
                        outs: leaves,
                        comparator: k,
                        key,
                    }))),
                    Err(why) => Err(why),
                }
            }
            Op::TopK { k, largest } => match (arrays.first(), pair(&leaves)) {
                (Some(a), Some(outs)) if a.rank() >= 1 && *k >= 0 => {
                    Ok(Step::TopK(Box::new(TopKStep {
                        operand: a.clone(),
                        outs,
                        k: *k as usize,
                        order: TopKOrder::Total { largest: *largest },
                    })))
                }
                _ => Err("topk shapes".into()),
            },
            Op::Rng { distribution } => {
                let Shape::Array(out) = &instr.shape else {
                    return Ok(Err("rng of a tuple".into()));
                };
                let et = out.element_type;
                let defined = match distribution {
                    RngDistribution::Uniform => et.is_float() || et.is_integer() || et.is_pred(),
                    RngDistribution::Normal => et.is_float(),
                };
                if defined
                    && arrays.len() == 2
                    && arrays.iter().all(|a| a.rank() == 0 && a.element_type == et)
                {
                    Ok(Step::Rng(Box::new(RngStep {
                        distribution: *distribution,
                        out: out.clone(),
                    })))
                } else {
                    Err("rng operands".into())
                }
            }
            Op::RngBitGenerator { algorithm } => match (arrays.as_slice(), pair(&leaves)) {
                ([s], Some(outs)) if s.element_type.is_integer() && outs[0].compatible(s) => {
                    Ok(Step::RngBits(Box::new(RngBitsStep {
                        algorithm: *algorithm,
                        state: s.clone(),
                        outs,
                    })))
                }
                _ => Err("rng-bit-generator shapes".into()),
            },
            Op::CustomCall { target, called, .. } => {
                if !all_arrays {
                    return Ok(Err("custom-call with tuple operands".into()));
                }
                if rxla_eval::kernels::linalg::is_lapack_target(target) {
                    // The evaluator's builtin (kernels/linalg/) through
                    // the interpreter fallback.
                    return Ok(Err(format!(
                        "LAPACK custom call {target} has no native code"
                    )));
                }
                let mut topk = None;
                if rxla_eval::evaluator::is_builtin_custom_call(target) {
                    let (Some(a), Some(outs), Some(&cmp)) =
                        (arrays.first(), pair(&leaves), called.first())
                    else {
                        return Ok(Err("TopK custom call shapes".into()));
                    };
                    let k = outs[0].dims.last().copied().unwrap_or(-1);
                    if a.rank() == 0 || k < 0 {
                        return Ok(Err("TopK custom call shapes".into()));
                    }
                    let et = a.element_type;
                    let with_indices = self.module.comp(cmp).parameters().len() == 4;
                    let types: &[ElementType] = if with_indices {
                        &[et, et, ElementType::S32, ElementType::S32]
                    } else {
                        &[et, et]
                    };
                    match self.comparator(cmp, types, &instr.name)? {
                        Ok(kernel) => {
                            topk = Some(TopKStep {
                                operand: a.clone(),
                                outs,
                                k: k as usize,
                                order: TopKOrder::Comparator {
                                    kernel,
                                    with_indices,
                                },
                            })
                        }
                        Err(why) => return Ok(Err(why)),
                    }
                }
                self.stats.runtime_calls.push(format!(
                    "{}/{} (custom-call): target \"{target}\"{}",
                    comp.name,
                    instr.name,
                    if topk.is_some() {
                        " (native top-k unless registered)"
                    } else {
                        ""
                    }
                ));
                Ok(Step::CustomCall(Box::new(CustomCallStep {
                    target: target.clone(),
                    operands: arrays,
                    result: instr.shape.clone(),
                    topk,
                })))
            }
            Op::Fft {
                fft_type,
                fft_length,
            } => match (arrays.as_slice(), &instr.shape) {
                ([a], Shape::Array(out)) => {
                    self.stats.runtime_calls.push(format!(
                        "{}/{} (fft): {} of length {:?} (rustfft)",
                        comp.name,
                        instr.name,
                        fft_type.name(),
                        fft_length
                    ));
                    Ok(Step::Fft(Box::new(crate::runtime::fft::FftStep::new(
                        a.clone(),
                        out.clone(),
                        *fft_type,
                        fft_length.clone(),
                    ))))
                }
                _ => Err("fft shapes".into()),
            },
            Op::Infeed { .. } => Ok(Step::Infeed(Box::new(instr.shape.clone()))),
            Op::Outfeed { .. } => match instr.operands.first() {
                Some(&o) => Ok(Step::Outfeed(Box::new(comp.get(o).shape.clone()))),
                None => Err("outfeed without a value".into()),
            },
            _ => Err("no runtime step".into()),
        })
    }

    /// The plan of computation `cid` called with arguments of shapes
    /// `args` and returning `result` (relayouts at the boundary where the
    /// layouts differ); `None` when types or dims differ.
    fn program_at(
        &mut self,
        cid: CompId,
        args: &[Shape],
        result: Option<&Shape>,
    ) -> Result<Option<Program>> {
        let callee = self.module.comp(cid);
        let params: Vec<Shape> = callee
            .parameters()
            .iter()
            .map(|&p| callee.get(p).shape.clone())
            .collect();
        if params.len() != args.len() {
            return Ok(None);
        }
        let mut entry = Vec::with_capacity(args.len());
        let mut any = false;
        for (a, p) in args.iter().zip(&params) {
            match leaf_plan(a, p) {
                Some(Some(plan)) => {
                    any = true;
                    entry.push(plan);
                }
                Some(None) => entry.push(vec![None; a.leaves().len()]),
                None => return Ok(None),
            }
        }
        let exit = match result.map(|r| leaf_plan(&callee.root_instruction().shape, r)) {
            Some(None) => return Ok(None),
            Some(Some(plan)) => plan,
            None => None,
        };
        let mut prog = self.program(cid)?;
        prog.entry = any.then_some(entry);
        prog.exit = exit;
        Ok(Some(prog))
    }

    /// Call, conditional and while whose layouts change at the boundary:
    /// nested programs relayouting their arguments and results (the
    /// while carry is held in the instruction's layouts). `None` when
    /// types or dims differ.
    fn adapted(&mut self, cid: CompId, id: InstrId) -> Result<Option<Step>> {
        let comp = self.module.comp(cid);
        let instr = comp.get(id);
        let shape = |o: InstrId| comp.get(o).shape.clone();
        let out = instr.shape.clone();
        Ok(match &instr.op {
            Op::Call { to_apply } => {
                let args: Vec<Shape> = instr.operands.iter().map(|&o| shape(o)).collect();
                self.program_at(*to_apply, &args, Some(&out))?
                    .map(|p| Step::Call(Box::new(p)))
            }
            Op::Conditional { branches } => {
                let mut progs = Vec::with_capacity(branches.len());
                for (k, &b) in branches.iter().enumerate() {
                    let Some(&o) = instr.operands.get(k + 1) else {
                        return Ok(None);
                    };
                    match self.program_at(b, &[shape(o)], Some(&out))? {
                        Some(p) => progs.push(p),
                        None => return Ok(None),
                    }
                }
                Some(Step::Conditional(progs))
            }
            Op::While { condition, body } => {
                let Some(&o) = instr.operands.first() else {
                    return Ok(None);
                };
                let Some(init) = leaf_plan(&shape(o), &out) else {
                    return Ok(None);
                };
                let cond = self.program_at(*condition, std::slice::from_ref(&out), None)?;
                let body = self.program_at(*body, std::slice::from_ref(&out), Some(&out))?;
                match (cond, body) {
                    (Some(c), Some(b)) => Some(Step::While {
                        cond: Box::new(c),
                        body: Box::new(b),
                        init,
                    }),
                    _ => None,
                }
            }
            _ => None,
        })
    }

    /// A fusion that is not one kernel and whose layouts change at the
    /// boundary: its parts as a nested plan with boundary relayouts, else
    /// (shapes differ) the evaluator.
    fn fused_parts(&mut self, cid: CompId, id: InstrId, why: &str) -> Result<Step> {
        let comp = self.module.comp(cid);
        let instr = comp.get(id);
        let Op::Fusion { calls, .. } = &instr.op else {
            return Err(JitError::codegen("fused_parts of another op"));
        };
        let args: Vec<Shape> = instr
            .operands
            .iter()
            .map(|&o| comp.get(o).shape.clone())
            .collect();
        match self.program_at(*calls, &args, Some(&instr.shape))? {
            Some(p) => Ok(Step::Call(Box::new(p))),
            None => self.fallback(cid, id, why),
        }
    }

    /// Whether `dynamic-update-slice` `id` may write into its operand's
    /// buffer: `cid` is the while body being planned (its parameter is
    /// the loop's own carry), the operand is the only `get-tuple-element`
    /// of its leaf, read by this instruction alone, the parameter is read
    /// only through `get-tuple-element`s, and operand, update and result
    /// are unpadded arrays of one element type with the operand's layout
    /// the result's.
    fn in_place_update(&self, cid: CompId, id: InstrId) -> bool {
        if self.owned_params.last() != Some(&cid) {
            return false;
        }
        let comp = self.module.comp(cid);
        let instr = comp.get(id);
        let Some(&op0) = instr.operands.first() else {
            return false;
        };
        let Op::GetTupleElement { index } = comp.get(op0).op else {
            return false;
        };
        let Some(&param) = comp.get(op0).operands.first() else {
            return false;
        };
        if !matches!(comp.get(param).op, Op::Parameter { number: 0 }) {
            return false;
        }
        let users = comp.users();
        let param_users = &users[param.index()];
        let only_gtes = param_users
            .iter()
            .all(|&u| matches!(comp.get(u).op, Op::GetTupleElement { .. }));
        let same_leaf = param_users
            .iter()
            .filter(|&&u| matches!(comp.get(u).op, Op::GetTupleElement { index: i } if i == index))
            .count();
        let uses_of_op0 = instr.operands.iter().filter(|&&o| o == op0).count();
        let arrays = match (&instr.shape, &comp.get(op0).shape) {
            (Shape::Array(r), Shape::Array(o)) => {
                r == o
                    && !r.layout.is_padded()
                    && matches!(&comp.get(instr.operands[1]).shape,
                        Shape::Array(u) if u.element_type == r.element_type && !u.layout.is_padded())
            }
            _ => false,
        };
        only_gtes
            && same_leaf == 1
            && users[op0.index()].len() == 1
            && uses_of_op0 == 1
            && arrays
            && comp.root != op0
    }

    /// The kernel of scatter `id` computing `producers` (some of its
    /// operands, see `scatter_inputs`) inline from their operands' buffers;
    /// `None` when it does not compile that way (or the result is padded:
    /// the ordinary step relayouts it).
    fn fused_scatter(
        &mut self,
        cid: CompId,
        id: InstrId,
        producers: &[InstrId],
    ) -> Result<Option<Step>> {
        let comp = self.module.comp(cid);
        let instr = comp.get(id);
        if instr.shape.leaves().iter().any(|l| l.layout.is_padded()) {
            return Ok(None);
        }
        let mut inputs: Vec<InstrId> = Vec::new();
        for &o in &instr.operands {
            let from: &[InstrId] = if producers.contains(&o) {
                &comp.get(o).operands
            } else {
                std::slice::from_ref(&o)
            };
            for &i in from {
                if !inputs.contains(&i) {
                    inputs.push(i);
                }
            }
        }
        let mut spec_inputs = Vec::with_capacity(inputs.len());
        for &i in &inputs {
            match &comp.get(i).shape {
                Shape::Array(a) => spec_inputs.push((i, a.clone())),
                Shape::Tuple(_) => return Ok(None),
            }
        }
        let spec = KernelSpec {
            comp: cid,
            root: id,
            inputs: spec_inputs,
            name: instr.name.clone(),
        };
        match self.jit.compile(self.module, &spec, &mut self.stats) {
            Ok(meta) => {
                self.stats.fused_scatter_inputs += producers.len();
                Ok(Some(Step::Kernel {
                    meta,
                    inputs,
                    post: None,
                }))
            }
            Err(JitError::Unsupported(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub fn program(&mut self, cid: CompId) -> Result<Program> {
        let comp = self.module.comp(cid);
        let live = comp.live_mask();
        // Producers a scatter kernel computes inline (`scatter_inputs`):
        // dead unless that kernel does not compile.
        let absorbed = crate::scatter_inputs::absorbed(self.module, comp, &live);
        let inline: std::collections::HashSet<InstrId> =
            absorbed.values().flatten().copied().collect();
        let mut steps = Vec::with_capacity(comp.len());
        let mut sizes = Vec::with_capacity(comp.len());
        for id in comp.ids() {
            let instr = comp.get(id);
            sizes.push(leaf_bytes(&instr.shape)?);
            if !live[id.index()] || inline.contains(&id) {
                steps.push(Step::Dead);
                continue;
            }
            let fused = match absorbed.get(&id) {
                Some(producers) => match self.fused_scatter(cid, id, producers)? {
                    Some(step) => Some(step),
                    None => {
                        for &p in producers {
                            let step = self.step(cid, p)?;
                            if !matches!(step, Step::Kernel { .. } | Step::Fallback(_)) {
                                self.stats.host_steps += 1;
                            }
                            steps[p.index()] = step;
                        }
                        None
                    }
                },
                None => None,
            };
            let step = match fused {
                Some(step) => step,
                None => self.step(cid, id)?,
            };
            if !matches!(
                step,
                Step::Kernel { .. } | Step::Gemm { .. } | Step::Fallback(_)
            ) {
                self.stats.host_steps += 1;
            }
            steps.push(step);
        }
        let mut prog = Program {
            comp: cid,
            steps,
            leaf_bytes: sizes,
            operands: comp
                .instructions
                .iter()
                .map(|i| i.operands.clone())
                .collect(),
            root: comp.root,
            groups: Vec::new(),
            in_group: Vec::new(),
            entry: None,
            exit: None,
            mutates_params: false,
            stable_leaves: Vec::new(),
        };
        prog.mutates_params = prog.steps.iter().any(|s| matches!(s, Step::DusInPlace(_)));
        if self.owned_params.last() == Some(&cid) {
            prog.stable_leaves = stable_leaves(comp, &prog.steps);
        }
        if self.opts.row_groups {
            let local: HashMap<usize, Vec<bool>> = comp
                .ids()
                .filter_map(|id| Some((id.index(), self.row_local.get(&(cid, id))?.clone())))
                .collect();
            prog.groups =
                rows::find_groups(&prog, &local, &comp.users(), self.opts.row_group_min_bytes);
            self.stats.row_groups += prog.groups.len();
            if std::env::var("RXLA_WHY").is_ok() {
                for g in &prog.groups {
                    let names: Vec<&str> = g
                        .members
                        .iter()
                        .filter_map(|&m| comp.ids().find(|id| id.index() == m))
                        .map(|id| comp.get(id).name.as_str())
                        .collect();
                    eprintln!(
                        "row group of {} rows by {}: {}",
                        g.rows,
                        g.block,
                        names.join(", ")
                    );
                }
            }
        }
        prog.in_group = vec![None; prog.steps.len()];
        for (g, group) in prog.groups.iter().enumerate() {
            for &m in &group.members {
                prog.in_group[m] = Some(g);
            }
        }
        if self.opts.gemm_epilogues {
            self.stats.gemm_epilogues += crate::gemm_epilogue::fuse(self.module, cid, &mut prog);
        }
        Ok(prog)
    }

    fn step(&mut self, cid: CompId, id: InstrId) -> Result<Step> {
        let comp = self.module.comp(cid);
        let instr = comp.get(id);
        let operand_shape = |k: usize| instr.operands.get(k).map(|o| &comp.get(*o).shape);
        Ok(match &instr.op {
            Op::Parameter { number } => Step::Param(*number as usize),
            Op::Constant { literal } => {
                let mut leaves = Vec::new();
                // Physical bytes in the instruction's layouts (padding filled).
                let literal = literal.relayout_to(&instr.shape)?;
                for l in literal.leaves() {
                    let bytes = l.to_physical_bytes()?;
                    let mut w = vec![0u64; bytes.len().div_ceil(8)];
                    for (i, ch) in bytes.chunks(8).enumerate() {
                        let mut b = [0u8; 8];
                        b[..ch.len()].copy_from_slice(ch);
                        w[i] = u64::from_le_bytes(b);
                    }
                    leaves.push(w);
                }
                Step::Const(leaves)
            }
            Op::Tuple => {
                let from: Vec<_> = instr
                    .operands
                    .iter()
                    .flat_map(|&o| leaf_sources(comp, o))
                    .collect();
                leaves_from(&from, &instr.shape, false).unwrap_or(Step::Tuple)
            }
            Op::AfterAll => Step::Token,
            // async-done takes element 1 of its start's tuple.
            Op::GetTupleElement { .. } | Op::AsyncDone { .. } => {
                let index = match instr.op {
                    Op::GetTupleElement { index } => index,
                    _ => 1,
                };
                let src = instr.operands[0];
                let elems = comp.get(src).shape.tuple_elements().ok_or_else(|| {
                    JitError::input(format!("{}: operand is not a tuple", instr.name))
                })?;
                let k = index as usize;
                let start: usize = elems.iter().take(k).map(leaf_count).sum();
                let len = leaf_count(&instr.shape);
                let from: Vec<_> = leaf_sources(comp, src)
                    .into_iter()
                    .skip(start)
                    .take(len)
                    .collect();
                leaves_from(&from, &instr.shape, false).unwrap_or(Step::Alias { src, start, len })
            }
            Op::OptimizationBarrier | Op::AsyncUpdate { .. }
                if operand_shape(0).is_some_and(|s| s.compatible(&instr.shape)) =>
            {
                let src = instr.operands[0];
                leaves_from(&leaf_sources(comp, src), &instr.shape, false).unwrap_or(Step::Alias {
                    src,
                    start: 0,
                    len: leaf_count(&instr.shape),
                })
            }
            // A bitcast reinterprets the operand's physical bytes: they alias,
            // except for a padded operand, whose padding must hold the
            // padding value (rewritten into this step's buffer).
            Op::Bitcast
                if operand_shape(0).is_some_and(|s| {
                    s.is_array() && s.byte_size().ok() == instr.shape.byte_size().ok()
                }) =>
            {
                let src = instr.operands[0];
                let from = leaf_sources(comp, src);
                let me = comp.get(src).shape.clone();
                leaves_from(&from, &me, true).unwrap_or(Step::Alias {
                    src,
                    start: 0,
                    len: 1,
                })
            }
            // A reshape between row-major, unpadded, static arrays keeps
            // the bytes in order: it aliases its operand, as a bitcast
            // (group norm's [n,h,w,c] -> [n,h,w,g,c/g] was a 25 MiB copy).
            Op::Reshape
                if operand_shape(0).is_some_and(row_major_plain)
                    && row_major_plain(&instr.shape)
                    && operand_shape(0).and_then(|s| s.element_type())
                        == instr.shape.element_type() =>
            {
                let src = instr.operands[0];
                let from = leaf_sources(comp, src);
                let me = comp.get(src).shape.clone();
                leaves_from(&from, &me, true).unwrap_or(Step::Alias {
                    src,
                    start: 0,
                    len: 1,
                })
            }
            // A tuple copy is its operand's leaves (relayouted where the
            // declared layouts differ).
            Op::Copy if matches!(instr.shape, Shape::Tuple(_)) && instr.operands.len() == 1 => {
                let src = instr.operands[0];
                leaves_from(&leaf_sources(comp, src), &instr.shape, false).unwrap_or(Step::Alias {
                    src,
                    start: 0,
                    len: leaf_count(&instr.shape),
                })
            }
            // A scalar-predicate select of tuples picks one operand whole.
            Op::Select
                if matches!(instr.shape, Shape::Tuple(_))
                    && instr.operands.len() == 3
                    && matches!(operand_shape(0), Some(Shape::Array(p))
                        if p.rank() == 0 && p.element_type == ElementType::Pred) =>
            {
                let branch = |k: usize| {
                    let src = instr.operands[k];
                    Box::new(
                        leaves_from(&leaf_sources(comp, src), &instr.shape, false).unwrap_or(
                            Step::Alias {
                                src,
                                start: 0,
                                len: leaf_count(&instr.shape),
                            },
                        ),
                    )
                };
                Step::Select {
                    pred: instr.operands[0],
                    branches: [branch(1), branch(2)],
                }
            }
            Op::Call { .. } | Op::While { .. } | Op::Conditional { .. }
                if !self.layouts_agree(cid, id) =>
            {
                match self.adapted(cid, id)? {
                    Some(step) => step,
                    None => self.fallback(cid, id, "shapes differ across the call boundary")?,
                }
            }
            Op::Call { to_apply } => Step::Call(Box::new(self.program(*to_apply)?)),
            Op::While { condition, body } => {
                let cond = Box::new(self.program(*condition)?);
                self.owned_params.push(*body);
                let body = self.program(*body);
                self.owned_params.pop();
                Step::While {
                    cond,
                    body: Box::new(body?),
                    init: None,
                }
            }
            Op::Fusion { .. } | Op::Reduce { .. }
                if column_reduction(self.module, comp, id).is_some() =>
            {
                match column_reduction(self.module, comp, id) {
                    Some(cr) => match self.column_kernels(cid, id, cr)? {
                        Some(step) => {
                            self.stats.column_reductions += 1;
                            Step::ColReduce(Box::new(step))
                        }
                        None => {
                            let Op::Fusion { calls, .. } = &instr.op else {
                                return Err(JitError::codegen("column kernels outside a fusion"));
                            };
                            if self.layouts_agree(cid, id) {
                                Step::Call(Box::new(self.program(*calls)?))
                            } else {
                                self.fused_parts(cid, id, "column reduction kernels")?
                            }
                        }
                    },
                    None => return Err(JitError::codegen("column reduction vanished")),
                }
            }
            Op::DynamicUpdateSlice if self.in_place_update(cid, id) => {
                let shape = |o: InstrId| comp.get(o).shape.as_array().ok().cloned();
                match (
                    shape(instr.operands[0]),
                    shape(instr.operands[1]),
                    instr.operands[2..]
                        .iter()
                        .map(|&o| shape(o).map(|a| a.element_type))
                        .collect::<Option<Vec<_>>>(),
                ) {
                    (Some(operand), Some(update), Some(index_types)) => {
                        self.stats.in_place_updates += 1;
                        Step::DusInPlace(Box::new(crate::runtime::dus::DusStep {
                            operand,
                            update,
                            index_types,
                        }))
                    }
                    _ => return Err(JitError::codegen("in-place update of a non-array")),
                }
            }
            Op::Conditional { branches } => Step::Conditional(
                branches
                    .iter()
                    .map(|&b| self.program(b))
                    .collect::<Result<_>>()?,
            ),
            Op::Dot { .. } | Op::Convolution { .. } if gemm_plan(comp, id).is_some() => {
                let f32_gemm =
                    gemm_types(comp, id).is_some_and(|t| t.iter().all(|&t| t == ElementType::F32));
                let f32_dot = matches!(instr.op, Op::Dot { .. }) && f32_gemm;
                let half_dot = matches!(instr.op, Op::Dot { .. })
                    && gemm_types(comp, id).is_some_and(|t| {
                        t.iter()
                            .any(|t| matches!(t, ElementType::F16 | ElementType::BF16))
                    });
                let guard = match &instr.op {
                    // An f32 dot: the evaluator reruns it when the GEMM's
                    // result holds inf/NaN (fused multiply-adds and blocked
                    // sums overflow differently from the evaluator's
                    // rounded products added in order). Rare, so not a
                    // compiled kernel per dot (compile time).
                    // f16/bf16 dots too (their f32 accumulation overflows
                    // the same way).
                    Op::Dot { .. } if f32_dot || half_dot => Some(GemmGuard::Eval(Box::new(
                        FallbackCall::new(self.module, cid, id)?,
                    ))),
                    Op::Convolution { window, .. }
                        if window
                            .dims
                            .iter()
                            .any(|w| w.pad_low != 0 || w.pad_high != 0 || w.base_dilation != 1) =>
                    {
                        // The exact loop kernel (`codegen/conv.rs`), else the
                        // evaluator.
                        let spec = KernelSpec {
                            comp: cid,
                            root: id,
                            inputs: instr.operands[..2]
                                .iter()
                                .map(|&o| Ok((o, comp.get(o).shape.as_array()?.clone())))
                                .collect::<Result<_>>()?,
                            name: format!("{}_guard", instr.name),
                        };
                        Some(
                            match self.jit.compile(self.module, &spec, &mut self.stats) {
                                Ok(meta) => GemmGuard::Kernel(meta),
                                Err(JitError::Unsupported(_)) => GemmGuard::Eval(Box::new(
                                    FallbackCall::new(self.module, cid, id)?,
                                )),
                                Err(e) => return Err(e),
                            },
                        )
                    }
                    // An unpadded f32 convolution: the evaluator reruns it
                    // when the result holds inf/NaN, as for dots.
                    Op::Convolution { .. } if f32_gemm => Some(GemmGuard::Eval(Box::new(
                        FallbackCall::new(self.module, cid, id)?,
                    ))),
                    _ => None,
                };
                Step::Gemm {
                    plan: Box::new(
                        gemm_plan(comp, id).ok_or_else(|| JitError::codegen("gemm plan"))?,
                    ),
                    inputs: [instr.operands[0], instr.operands[1]],
                    guard,
                    types: gemm_types(comp, id).ok_or_else(|| JitError::codegen("gemm types"))?,
                    epi: None,
                }
            }
            // A fusion around an f32 dot/convolution runs its parts: the
            // product on the GEMM engine, the rest as kernels.
            Op::Fusion { calls, .. }
                if self.layouts_agree(cid, id) && {
                    let fc = self.module.comp(*calls);
                    fc.ids().any(|i| gemm_plan(fc, i).is_some())
                } =>
            {
                Step::Call(Box::new(self.program(*calls)?))
            }
            Op::Fusion { calls, .. } => {
                let fc = self.module.comp(*calls);
                let mut inputs = Vec::new();
                for p in fc.parameters() {
                    let Op::Parameter { number } = fc.get(p).op else {
                        continue;
                    };
                    let o = instr.operands.get(number as usize).copied();
                    match o.map(|o| &comp.get(o).shape) {
                        Some(Shape::Array(a)) => inputs.push((p, a.clone())),
                        _ => inputs.clear(),
                    }
                }
                let spec = KernelSpec {
                    comp: *calls,
                    root: fc.root,
                    inputs,
                    name: instr.name.clone(),
                };
                let all_arrays = spec.inputs.len() == fc.parameters().len();
                // A padded fused root: the kernel writes it unpadded (compiled
                // against a copy of the module), then relayouts.
                let root_shape = fc.root_instruction().shape.clone();
                let produced = unpad(&root_shape);
                let compiled = all_arrays.then(|| {
                    if produced == root_shape {
                        self.jit.compile(self.module, &spec, &mut self.stats)
                    } else {
                        let mut m = self.module.clone();
                        m.computations[calls.index()].instructions[fc.root.index()].shape =
                            produced.clone();
                        self.jit.compile(&m, &spec, &mut self.stats)
                    }
                });
                // A scalar kernel whose root reshapes a row-major value (group
                // norm's `[n,h,w,g,c/g]` back to `[n,h,w,c]`: the lanes cannot
                // cross the reshape): the reshape's operand computed into the
                // same bytes, when that kernel vectorizes.
                let (compiled, spec) = match compiled {
                    Some(Ok(meta)) if !meta.vectorized && produced == root_shape => {
                        match self.reshape_root_kernel(&spec)? {
                            Some((m, s)) => (Some(Ok(m)), s),
                            None => (Some(Ok(meta)), spec),
                        }
                    }
                    other => (other, spec),
                };
                match compiled {
                    Some(Ok(meta)) => {
                        let out = match fc.get(spec.root).shape.as_array() {
                            Ok(a) => Some(a.clone()),
                            Err(_) => None,
                        };
                        let same_rows = |a: &ArrayShape| {
                            produced
                                .as_array()
                                .is_ok_and(|p| p.dims.first() == a.dims.first())
                        };
                        if let Some(out) = out.filter(same_rows) {
                            let local = rows::row_local_inputs(self.module, &spec, &out);
                            self.row_local.insert((cid, id), local);
                        }
                        Step::Kernel {
                            meta,
                            inputs: instr.operands.clone(),
                            post: PostRelayout::new(&produced, &instr.shape)?,
                        }
                    }
                    Some(Err(JitError::Unsupported(_))) | None if self.layouts_agree(cid, id) => {
                        Step::Call(Box::new(self.program(*calls)?))
                    }
                    Some(Err(JitError::Unsupported(why))) => self.fused_parts(cid, id, &why)?,
                    None => self.fused_parts(cid, id, "tuple operands")?,
                    Some(Err(e)) => return Err(e),
                }
            }
            Op::Gather {
                dims, slice_sizes, ..
            } if let (Some(Ok(t)), Some(Ok(ix))) = (
                instr
                    .operands
                    .first()
                    .map(|&o| comp.get(o).shape.as_array()),
                instr.operands.get(1).map(|&o| comp.get(o).shape.as_array()),
            ) && let Some(g) = crate::runtime::row_gather::RowGatherStep::plan(
                t,
                ix,
                &instr.shape,
                dims,
                slice_sizes,
            ) =>
            {
                self.stats.runtime_calls.push(format!(
                    "{}/{} (gather): whole-row gather",
                    comp.name, instr.name
                ));
                Step::RowGather(Box::new(g))
            }
            Op::Sort { .. }
            | Op::TopK { .. }
            | Op::Rng { .. }
            | Op::RngBitGenerator { .. }
            | Op::CustomCall { .. }
            | Op::Fft { .. }
            | Op::Infeed { .. }
            | Op::Outfeed { .. } => match self.runtime_step(cid, id)? {
                Ok(step) => step,
                Err(why) => self.fallback(cid, id, &why)?,
            },
            // One replica (`run_with`): the value itself. Replicated runs
            // (`run_replicated`) fold the contributions with the reducer
            // compiled as a scalar kernel per leaf type.
            Op::AllReduce { to_apply, attrs } => {
                let from: Vec<_> = instr
                    .operands
                    .iter()
                    .flat_map(|&o| leaf_sources(comp, o))
                    .collect();
                let leaves: Vec<ArrayShape> = instr.shape.leaves().into_iter().cloned().collect();
                let mut reducers = Vec::with_capacity(leaves.len());
                for (k, l) in leaves.iter().enumerate() {
                    let et = l.element_type;
                    let name = format!("{}_red{k}", instr.name);
                    reducers.push(self.scalar_kernel(*to_apply, &[et, et], et, &name)?.ok());
                }
                Step::AllReduce {
                    step: Box::new(AllReduceStep {
                        leaves,
                        reducers,
                        groups: attrs.replica_groups.groups().unwrap_or_default(),
                        name: instr.name.clone(),
                        site: rxla_eval::collectives::all_reduce_site(
                            self.module,
                            comp,
                            instr,
                            *to_apply,
                        ),
                    }),
                    single: Box::new(
                        leaves_from(&from, &instr.shape, false).unwrap_or(Step::Tuple),
                    ),
                }
            }
            // The other collectives run on the host through the
            // evaluator: as a 1×1 device here (single-device runs);
            // multi-device runs evaluate the whole module
            // (`Executable::run_replicated`).
            op if op.is_collective() => {
                self.fallback(cid, id, "collective (single-device semantics)")?
            }
            // The generic async wrapper runs its computation on the host
            // through the evaluator (collectives inside with single-device
            // semantics, as above); its done/update halves are views of
            // the start's tuple (above).
            Op::AsyncStart { .. } => {
                self.fallback(cid, id, "async-start (runs its computation synchronously)")?
            }
            _ => {
                let mut inputs: Vec<InstrId> = Vec::new();
                let mut spec_inputs = Vec::new();
                let mut arrays = true;
                for &o in &instr.operands {
                    if inputs.contains(&o) {
                        continue;
                    }
                    match &comp.get(o).shape {
                        Shape::Array(a) => spec_inputs.push((o, a.clone())),
                        Shape::Tuple(_) => arrays = false,
                    }
                    inputs.push(o);
                }
                let spec = KernelSpec {
                    comp: cid,
                    root: id,
                    inputs: spec_inputs,
                    name: instr.name.clone(),
                };
                if arrays && involves_complex(comp, id) {
                    return self.complex(cid, id, spec, inputs);
                }
                // Kernels never write padded layouts: a padded result is
                // computed into unpadded scratch buffers (the kernel compiled
                // against a copy of the module whose instruction is
                // unpadded) and relayouted, padding filled.
                let mut post = None;
                let r = if !arrays || instr.op.has_side_effect() {
                    Err(JitError::unsupported("tuple operands or side effects"))
                } else if instr.shape.leaves().iter().any(|l| l.layout.is_padded()) {
                    let mut m = self.module.clone();
                    let unpadded = unpad(&instr.shape);
                    m.computations[cid.index()].instructions[id.index()].shape = unpadded.clone();
                    post = PostRelayout::new(&unpadded, &instr.shape)?;
                    self.jit.compile(&m, &spec, &mut self.stats)
                } else {
                    self.jit.compile(self.module, &spec, &mut self.stats)
                };
                match r {
                    Ok(meta) => {
                        if let Shape::Array(out) = &instr.shape {
                            let local = rows::row_local_inputs(self.module, &spec, out);
                            self.row_local.insert((cid, id), local);
                        }
                        Step::Kernel { meta, inputs, post }
                    }
                    Err(JitError::Unsupported(why)) => self.fallback(cid, id, &why)?,
                    Err(e) => return Err(e),
                }
            }
        })
    }
}

/// True when instruction `id` has a complex (c64/c128) operand or result
/// leaf.
fn involves_complex(comp: &rxla_ir::Computation, id: InstrId) -> bool {
    let instr = comp.get(id);
    std::iter::once(&instr.shape)
        .chain(instr.operands.iter().map(|&o| &comp.get(o).shape))
        .flat_map(|s| s.leaves())
        .any(|l| l.element_type.is_complex())
}

/// Retypes a c64 array shape as u64 (same size: its bit patterns).
fn as_u64(s: &mut Shape) {
    if let Shape::Array(a) = s
        && a.element_type == ElementType::C64
    {
        a.element_type = ElementType::U64;
    }
}
