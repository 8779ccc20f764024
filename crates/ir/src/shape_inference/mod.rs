//! Shape inference for every op: given the op, its operand shapes and (for
//! ops whose result cannot be inferred, such as reshape or custom-call) the
//! declared shape, return the result shape or an error saying what was
//! expected and what was given. Pure: reads the module only for called
//! computations' signatures; never mutates anything and never panics on bad
//! input.
//!
//! One file per op family; this file dispatches and holds shared helpers.

mod collective;
mod contraction;
mod control;
mod data_movement;
mod elementwise;
mod gather_scatter;
mod lapack;
mod linalg;
mod reduction;

pub(crate) use data_movement::check_permutation;

use crate::element_type::ElementType;
use crate::error::{IrError, Result};
use crate::module::Module;
use crate::ops::{CompId, Op, WindowDim};
use crate::shape::{ArrayShape, ProgramShape, Shape, check_dims};

/// Infers the result shape of `op` applied to `operands`. `declared` is the
/// shape written in the text or passed to the builder; it is required for
/// ops whose result is not determined by their operands (parameter,
/// reshape, bitcast, convert's type, iota, broadcast, custom-call, infeed,
/// rng, ...). The returned shape has the default layout unless the declared
/// shape supplies one; callers compare with [`Shape::compatible_dynamic`]
/// (dynamic dims are part of the type, see `crate::dynamic`).
pub fn infer_shape(
    module: &Module,
    op: &Op,
    operands: &[&Shape],
    declared: Option<&Shape>,
) -> Result<Shape> {
    let inferred = dispatch(module, op, operands, declared)
        .and_then(|s| crate::dynamic::apply(op, operands, declared, s))
        .map_err(|e| e.context(op.opcode()))?;
    Ok(match declared {
        Some(d) if d.compatible_dynamic(&inferred) => d.clone(),
        _ => inferred,
    })
}

fn dispatch(module: &Module, op: &Op, ops: &[&Shape], declared: Option<&Shape>) -> Result<Shape> {
    match op {
        Op::Parameter { .. } => control::parameter(ops, declared),
        Op::Constant { literal } => control::constant(ops, literal),
        Op::Iota { dimension } => data_movement::iota(ops, *dimension, declared),
        Op::Broadcast { dimensions } => data_movement::broadcast(ops, dimensions, declared),
        Op::Reshape => data_movement::reshape(ops, declared),
        Op::Transpose { permutation } => data_movement::transpose(ops, permutation),
        Op::Bitcast => data_movement::bitcast(ops, declared),
        Op::Copy => data_movement::copy(ops),
        Op::Convert => elementwise::convert(ops, declared),
        Op::BitcastConvert => elementwise::bitcast_convert(ops, declared),
        Op::Slice {
            starts,
            limits,
            strides,
        } => data_movement::slice(ops, starts, limits, strides),
        Op::DynamicSlice { sizes } => data_movement::dynamic_slice(ops, sizes),
        Op::DynamicUpdateSlice => data_movement::dynamic_update_slice(ops),
        Op::Concatenate { dimension } => data_movement::concatenate(ops, *dimension),
        Op::GetDimensionSize { dimension } => {
            crate::dynamic::get_dimension_size_shape(ops, *dimension)
        }
        Op::SetDimensionSize { dimension } => {
            crate::dynamic::set_dimension_size_shape(ops, *dimension)
        }
        Op::Pad { config } => data_movement::pad(ops, config),
        Op::Reverse { dimensions } => data_movement::reverse(ops, dimensions),
        Op::Dot { dims } => contraction::dot(ops, dims, declared),
        Op::Convolution {
            window,
            dims,
            feature_group_count,
            batch_group_count,
        } => contraction::convolution(
            ops,
            window,
            dims,
            *feature_group_count,
            *batch_group_count,
            declared,
        ),
        Op::Reduce {
            dimensions,
            to_apply,
        } => reduction::reduce(module, ops, dimensions, *to_apply),
        Op::ReduceWindow { window, to_apply } => {
            reduction::reduce_window(module, ops, window, *to_apply)
        }
        Op::SelectAndScatter {
            window,
            select,
            scatter,
        } => reduction::select_and_scatter(module, ops, window, *select, *scatter),
        Op::Select => elementwise::select(ops),
        Op::Clamp => elementwise::clamp(ops),
        Op::Compare { direction, kind } => elementwise::compare(ops, *direction, *kind),
        Op::Map {
            dimensions,
            to_apply,
        } => elementwise::map(module, ops, dimensions, *to_apply),
        Op::Sort {
            dimension,
            comparator,
            ..
        } => reduction::sort(module, ops, *dimension, *comparator),
        Op::Gather {
            dims, slice_sizes, ..
        } => gather_scatter::gather(ops, dims, slice_sizes),
        Op::Scatter { dims, to_apply, .. } => gather_scatter::scatter(module, ops, dims, *to_apply),
        Op::Call { to_apply } => control::call(module, ops, *to_apply),
        Op::Fusion { calls, .. } => control::call(module, ops, *calls),
        Op::While { condition, body } => control::while_loop(module, ops, *condition, *body),
        Op::Conditional { branches } => control::conditional(module, ops, branches),
        Op::Tuple => Ok(Shape::Tuple(ops.iter().map(|s| (*s).clone()).collect())),
        Op::GetTupleElement { index } => control::get_tuple_element(ops, *index),
        Op::CustomCall { target, .. } => match crate::linalg::lapack_target(target) {
            Some((kind, ty)) => lapack::custom_call(kind, ty, target, ops, declared),
            None => control::custom_call(declared),
        },
        Op::Infeed { .. } => control::infeed(ops, declared),
        Op::Outfeed { .. } => control::outfeed(ops),
        Op::AllReduce { to_apply, attrs } | Op::AllReduceStart { to_apply, attrs } => {
            collective::all_reduce(module, ops, *to_apply, attrs)
        }
        Op::AllReduceDone => collective::done(ops, None, "all-reduce-start"),
        Op::AllGather { dimension, attrs } => {
            collective::all_gather(ops, *dimension, attrs, declared)
        }
        Op::AllGatherStart { dimension, attrs } => {
            collective::all_gather_start(ops, *dimension, attrs, declared)
        }
        Op::AllGatherDone => collective::done(ops, Some(1), "all-gather-start"),
        Op::ReduceScatter {
            dimension,
            to_apply,
            attrs,
        } => collective::reduce_scatter(module, ops, *dimension, *to_apply, attrs, declared),
        Op::AllToAll { dimension, attrs } => collective::all_to_all(ops, *dimension, attrs),
        Op::CollectivePermute { pairs, .. } => collective::collective_permute(ops, pairs),
        Op::CollectivePermuteInPlace {
            pairs, slice_sizes, ..
        } => collective::collective_permute_in_place(ops, pairs, slice_sizes),
        Op::CollectivePermuteStart { pairs, .. } => {
            collective::collective_permute_start(ops, pairs, declared)
        }
        Op::CollectivePermuteDone => collective::done(ops, Some(1), "collective-permute-start"),
        Op::AsyncStart { calls } => control::async_start(module, ops, *calls, declared),
        Op::AsyncUpdate { calls } => control::async_update(module, ops, *calls),
        Op::AsyncDone { calls } => control::async_done(module, ops, *calls),
        Op::CollectiveBroadcast { attrs } => collective::same_shape(ops, Some(attrs)),
        Op::ReplicaId | Op::PartitionId => collective::device_id(ops),
        Op::Rng { distribution } => control::rng(ops, *distribution, declared),
        Op::RngBitGenerator { .. } => control::rng_bit_generator(ops, declared),
        Op::AfterAll => control::after_all(ops),
        Op::OptimizationBarrier => {
            expect_count(ops, 1)?;
            Ok(ops[0].clone())
        }
        Op::Cholesky { .. } => linalg::cholesky(ops),
        Op::TriangularSolve(o) => linalg::triangular_solve(ops, o),
        Op::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        } => elementwise::reduce_precision(ops, *exponent_bits, *mantissa_bits),
        Op::TopK { k, .. } => reduction::top_k(ops, *k),
        Op::Complex => elementwise::complex(ops),
        Op::Fft {
            fft_type,
            fft_length,
        } => contraction::fft(ops, *fft_type, fft_length),
        Op::Unary(u) => elementwise::unary(ops, *u),
        Op::Binary(b) => elementwise::binary(ops, *b),
    }
}

// ---------------------------------------------------------------------------
// Shared helpers (also used by the builder).

/// Formats a shape without layout for messages (`f32[2,3]`).
pub(crate) fn sh(s: &Shape) -> String {
    s.to_string_no_layout()
}

/// Formats an array shape without layout.
pub(crate) fn ash(s: &ArrayShape) -> String {
    let mut out = String::new();
    let _ = s.fmt_no_layout(&mut out);
    out
}

pub(crate) fn err<T>(msg: impl Into<String>) -> Result<T> {
    Err(IrError::Shape(msg.into()))
}

/// Checks the operand count.
pub(crate) fn expect_count(ops: &[&Shape], n: usize) -> Result<()> {
    if ops.len() != n {
        return err(format!(
            "expects {n} operand{}, got {}",
            if n == 1 { "" } else { "s" },
            ops.len()
        ));
    }
    Ok(())
}

/// The operand as an array with data (not a tuple, not a token).
pub(crate) fn array<'a>(s: &'a Shape, what: &str) -> Result<&'a ArrayShape> {
    match s {
        Shape::Array(a) if a.element_type != ElementType::Token => Ok(a),
        _ => err(format!("{what} must be an array, got {}", sh(s))),
    }
}

/// The declared shape, or an error saying the op needs one.
pub(crate) fn need_declared(declared: Option<&Shape>) -> Result<&Shape> {
    declared.ok_or_else(|| {
        IrError::shape("the result shape is not determined by the operands and none was declared")
    })
}

/// An array shape of `ty` and `dims` with the default layout (dims checked).
pub(crate) fn make(ty: ElementType, dims: Vec<i64>) -> Result<Shape> {
    Ok(Shape::Array(ArrayShape::new(ty, dims)?))
}

/// Converts an i128 intermediate to a dimension size, checking the range.
pub(crate) fn to_dim(x: i128, what: &str) -> Result<i64> {
    let d = i64::try_from(x).map_err(|_| IrError::shape(format!("{what} {x} overflows")))?;
    check_dims(&[d]).map_err(|_| IrError::shape(format!("{what} is {d}, out of range")))?;
    Ok(d)
}

/// Checks `dims` are distinct dimension numbers of a rank-`rank` shape
/// (optionally strictly increasing). `what` names the list in messages.
pub(crate) fn check_dim_list(dims: &[i64], rank: usize, what: &str, sorted: bool) -> Result<()> {
    let mut seen = vec![false; rank];
    for (i, &d) in dims.iter().enumerate() {
        if d < 0 || d as usize >= rank {
            return err(format!(
                "{what} {dims:?}: dimension {d} is out of range for rank {rank}"
            ));
        }
        if seen[d as usize] {
            return err(format!("{what} {dims:?}: dimension {d} appears twice"));
        }
        seen[d as usize] = true;
        if sorted && i > 0 && dims[i - 1] >= d {
            return err(format!("{what} {dims:?} must be strictly increasing"));
        }
    }
    Ok(())
}

/// Output size of one window dimension over an input of size `input`
/// (XLA's InferWindowOutputShape): dilate the base, pad, slide the dilated
/// window with the stride.
pub(crate) fn window_output_dim(input: i64, w: &WindowDim, i: usize) -> Result<i64> {
    // XLA's InferWindowOutputShape: every window dimension has size,
    // stride and both dilations >= 1.
    if w.size < 1 {
        return err(format!(
            "window dimension {i} has size {}, expected >= 1",
            w.size
        ));
    }
    if w.stride < 1 {
        return err(format!(
            "window dimension {i} has stride {}, expected >= 1",
            w.stride
        ));
    }
    if w.base_dilation < 1 || w.window_dilation < 1 {
        return err(format!(
            "window dimension {i} has dilations lhs={} rhs={}, expected >= 1",
            w.base_dilation, w.window_dilation
        ));
    }
    let (padded, _) = crate::geometry::window_extents(input, w);
    if padded < 0 {
        return err(format!(
            "window dimension {i}: padding {}_{} makes the input of size {input} negative",
            w.pad_low, w.pad_high
        ));
    }
    to_dim(
        crate::geometry::window_output_size_wide(input, w),
        "window output size",
    )
}

/// The signature of computation `id`, or an error if it does not exist.
pub(crate) fn callee(module: &Module, id: CompId) -> Result<ProgramShape> {
    let c = module.computations.get(id.index()).ok_or_else(|| {
        IrError::shape(format!(
            "calls computation {id} which does not exist (the module has {})",
            module.computations.len()
        ))
    })?;
    if c.instructions.get(c.root.index()).is_none() {
        return err(format!("called computation {} has no root", c.name));
    }
    Ok(c.program_shape())
}

/// Name of computation `id` for messages.
pub(crate) fn comp_name(module: &Module, id: CompId) -> String {
    module
        .computations
        .get(id.index())
        .map_or_else(|| id.to_string(), |c| c.name.clone())
}

/// Formats a program shape without layouts.
pub(crate) fn psh(p: &ProgramShape) -> String {
    let params: Vec<String> = p.parameters.iter().map(sh).collect();
    format!("({}) -> {}", params.join(", "), sh(&p.result))
}

/// Checks a reducer-like computation: parameters `(T1..TN, T1..TN)` (all
/// scalars) and result `T1` (N = 1) or `(T1..TN)`.
pub(crate) fn check_reducer(
    module: &Module,
    id: CompId,
    types: &[ElementType],
    role: &str,
) -> Result<()> {
    let p = callee(module, id)?;
    let scalars: Vec<Shape> = types.iter().map(|&t| Shape::scalar(t)).collect();
    let mut params = scalars.clone();
    params.extend(scalars.iter().cloned());
    let result = if scalars.len() == 1 {
        scalars[0].clone()
    } else {
        Shape::Tuple(scalars)
    };
    let want = ProgramShape {
        parameters: params,
        result,
    };
    if !p.compatible(&want) {
        return err(format!(
            "{role} computation {} must have signature {}, got {}",
            comp_name(module, id),
            psh(&want),
            psh(&p)
        ));
    }
    Ok(())
}
