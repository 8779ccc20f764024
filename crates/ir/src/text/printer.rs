//! The canonical HLO text printer. The header carries
//! `entry_computation_layout` then the verbatim header attributes; debug
//! tables follow verbatim; then each computation with bare names, 2-space
//! indent, shapes with layouts, typed attributes in XLA's order, then the
//! verbatim attributes in source order. Printing never fails; the reader
//! accepts everything printed here (print → parse → print is a fixed
//! point).

use super::attrs::{
    fmt_dim_labels, fmt_list, fmt_padding, fmt_pairs, fmt_replica_groups, fmt_slice, fmt_string,
    fmt_window,
};
use super::lexer::is_name_char;
use crate::collective::CollectiveAttrs;
use crate::element_type::ElementType;
use crate::module::{Computation, Module};
use crate::ops::{CompId, InstrId, Op};
use std::fmt::Write as _;

pub fn module(m: &Module) -> String {
    let mut out = String::new();
    let _ = write!(out, "HloModule {}", name_text(&m.name, None));
    // A module without a valid entry (only possible when built by hand)
    // prints without a layout rather than panicking.
    if m.entry_layout.is_some() || m.computations.get(m.entry.index()).is_some() {
        let _ = write!(
            out,
            ", entry_computation_layout={{{}}}",
            m.entry_program_shape()
        );
    }
    for (k, v) in &m.attrs {
        let _ = write!(out, ", {k}={v}");
    }
    out.push_str("\n\n");
    if !m.debug_tables.is_empty() {
        out.push_str(m.debug_tables.trim_end());
        out.push_str("\n\n");
    }
    for (i, id) in m.comp_ids().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&computation(m, id));
    }
    out
}

/// One computation, ending with a newline.
pub fn computation(m: &Module, id: CompId) -> String {
    let Some(c) = m.computations.get(id.index()) else {
        return format!("<no computation {}>\n", id.0);
    };
    let mut out = String::new();
    if id == m.entry {
        out.push_str("ENTRY ");
    }
    let _ = writeln!(out, "{} {{", name_text(&c.name, Some("ENTRY")));
    for i in c.ids() {
        out.push_str("  ");
        out.push_str(&instruction(m, c, i));
        out.push('\n');
    }
    out.push_str("}\n");
    out
}

/// A name as printed: bare when the reader takes it back bare, else with
/// `%` (names starting with a digit, `-` or `.`, empty names, and the
/// keyword that would otherwise start the line).
fn name_text(name: &str, keyword: Option<&str>) -> String {
    let bare_ok = name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name.bytes().all(is_name_char)
        && keyword != Some(name);
    if bare_ok {
        name.to_string()
    } else {
        format!("%{name}")
    }
}

fn comp_name(m: &Module, id: CompId) -> String {
    m.computations.get(id.index()).map_or_else(
        || format!("<missing computation {}>", id.0),
        |c| name_text(&c.name, None),
    )
}

fn comp_names(m: &Module, ids: &[CompId]) -> String {
    let names: Vec<String> = ids.iter().map(|&i| comp_name(m, i)).collect();
    format!("{{{}}}", names.join(", "))
}

/// One instruction line without indent or newline:
/// `[ROOT ]name = shape opcode(operands), attrs...`.
pub fn instruction(m: &Module, c: &Computation, id: InstrId) -> String {
    let Some(instr) = c.instructions.get(id.index()) else {
        return format!("<no instruction {} in {}>", id.0, c.name);
    };
    let mut out = String::new();
    if id == c.root {
        out.push_str("ROOT ");
    }
    let _ = write!(
        out,
        "{} = {} {}(",
        name_text(&instr.name, Some("ROOT")),
        instr.shape,
        instr.opcode()
    );
    match &instr.op {
        Op::Parameter { number } => {
            let _ = write!(out, "{number}");
        }
        Op::Constant { literal } => out.push_str(&literal.to_text()),
        _ => {
            let names: Vec<String> = instr
                .operands
                .iter()
                .map(|o| {
                    c.instructions
                        .get(o.index())
                        .map_or("<missing>".to_string(), |i| name_text(&i.name, None))
                })
                .collect();
            out.push_str(&names.join(", "));
        }
    }
    out.push(')');
    let pred_selector = instr
        .operands
        .first()
        .and_then(|o| c.instructions.get(o.index()))
        .is_some_and(|s| s.shape.element_type() == Some(ElementType::Pred));
    for (k, v) in typed_attrs(m, &instr.op, pred_selector) {
        let _ = write!(out, ", {k}={v}");
    }
    for (k, v) in &instr.attrs {
        let _ = write!(out, ", {k}={v}");
    }
    out
}

/// The typed attributes of `op` in XLA's printing order.
fn typed_attrs(m: &Module, op: &Op, pred_selector: bool) -> Vec<(&'static str, String)> {
    let mut v: Vec<(&'static str, String)> = Vec::new();
    let cn = |id: &CompId| comp_name(m, *id);
    match op {
        Op::Iota { dimension } => v.push(("iota_dimension", dimension.to_string())),
        Op::Broadcast { dimensions } | Op::Reverse { dimensions } => {
            v.push(("dimensions", fmt_list(dimensions)))
        }
        Op::Transpose { permutation } => v.push(("dimensions", fmt_list(permutation))),
        Op::Slice {
            starts,
            limits,
            strides,
        } => v.push(("slice", fmt_slice(starts, limits, strides))),
        Op::DynamicSlice { sizes } => v.push(("dynamic_slice_sizes", fmt_list(sizes))),
        Op::Concatenate { dimension }
        | Op::GetDimensionSize { dimension }
        | Op::SetDimensionSize { dimension } => v.push(("dimensions", fmt_list(&[*dimension]))),
        // A rank-0 pad has an empty config, which has no text: omit it.
        Op::Pad { config } => {
            if !config.is_empty() {
                v.push(("padding", fmt_padding(config)));
            }
        }
        Op::Dot { dims } => {
            if !dims.lhs_batch.is_empty() {
                v.push(("lhs_batch_dims", fmt_list(&dims.lhs_batch)));
            }
            if !dims.lhs_contracting.is_empty() {
                v.push(("lhs_contracting_dims", fmt_list(&dims.lhs_contracting)));
            }
            if !dims.rhs_batch.is_empty() {
                v.push(("rhs_batch_dims", fmt_list(&dims.rhs_batch)));
            }
            if !dims.rhs_contracting.is_empty() {
                v.push(("rhs_contracting_dims", fmt_list(&dims.rhs_contracting)));
            }
        }
        Op::Convolution {
            window,
            dims,
            feature_group_count,
            batch_group_count,
        } => {
            if !window.dims.is_empty() {
                v.push(("window", fmt_window(window)));
            }
            v.push(("dim_labels", fmt_dim_labels(dims)));
            if *feature_group_count != 1 {
                v.push(("feature_group_count", feature_group_count.to_string()));
            }
            if *batch_group_count != 1 {
                v.push(("batch_group_count", batch_group_count.to_string()));
            }
        }
        Op::Reduce {
            dimensions,
            to_apply,
        } => {
            v.push(("dimensions", fmt_list(dimensions)));
            v.push(("to_apply", cn(to_apply)));
        }
        Op::ReduceWindow { window, to_apply } => {
            v.push(("window", fmt_window(window)));
            v.push(("to_apply", cn(to_apply)));
        }
        Op::SelectAndScatter {
            window,
            select,
            scatter,
        } => {
            v.push(("window", fmt_window(window)));
            v.push(("select", cn(select)));
            v.push(("scatter", cn(scatter)));
        }
        Op::Compare { direction, kind } => {
            v.push(("direction", direction.name().to_string()));
            if let Some(k) = kind {
                v.push(("type", k.name().to_string()));
            }
        }
        Op::Map {
            dimensions,
            to_apply,
        } => {
            v.push(("dimensions", fmt_list(dimensions)));
            v.push(("to_apply", cn(to_apply)));
        }
        Op::Sort {
            dimension,
            is_stable,
            comparator,
        } => {
            v.push(("dimensions", fmt_list(&[*dimension])));
            if *is_stable {
                v.push(("is_stable", "true".to_string()));
            }
            v.push(("to_apply", cn(comparator)));
        }
        Op::Gather {
            dims,
            slice_sizes,
            indices_are_sorted,
        } => {
            v.push(("offset_dims", fmt_list(&dims.offset_dims)));
            v.push(("collapsed_slice_dims", fmt_list(&dims.collapsed_slice_dims)));
            v.push(("start_index_map", fmt_list(&dims.start_index_map)));
            if !dims.operand_batching_dims.is_empty() {
                v.push((
                    "operand_batching_dims",
                    fmt_list(&dims.operand_batching_dims),
                ));
            }
            if !dims.start_indices_batching_dims.is_empty() {
                v.push((
                    "start_indices_batching_dims",
                    fmt_list(&dims.start_indices_batching_dims),
                ));
            }
            v.push(("index_vector_dim", dims.index_vector_dim.to_string()));
            v.push(("slice_sizes", fmt_list(slice_sizes)));
            if *indices_are_sorted {
                v.push(("indices_are_sorted", "true".to_string()));
            }
        }
        Op::Scatter {
            dims,
            to_apply,
            indices_are_sorted,
            unique_indices,
        } => {
            v.push(("update_window_dims", fmt_list(&dims.update_window_dims)));
            v.push(("inserted_window_dims", fmt_list(&dims.inserted_window_dims)));
            v.push((
                "scatter_dims_to_operand_dims",
                fmt_list(&dims.scatter_dims_to_operand_dims),
            ));
            if !dims.input_batching_dims.is_empty() {
                v.push(("input_batching_dims", fmt_list(&dims.input_batching_dims)));
            }
            if !dims.scatter_indices_batching_dims.is_empty() {
                v.push((
                    "scatter_indices_batching_dims",
                    fmt_list(&dims.scatter_indices_batching_dims),
                ));
            }
            v.push(("index_vector_dim", dims.index_vector_dim.to_string()));
            if *indices_are_sorted {
                v.push(("indices_are_sorted", "true".to_string()));
            }
            if *unique_indices {
                v.push(("unique_indices", "true".to_string()));
            }
            v.push(("to_apply", cn(to_apply)));
        }
        Op::Call { to_apply } => v.push(("to_apply", cn(to_apply))),
        Op::AsyncStart { calls } | Op::AsyncUpdate { calls } | Op::AsyncDone { calls } => {
            v.push(("calls", cn(calls)))
        }
        Op::Fusion { kind, calls } => {
            if !kind.0.is_empty() {
                v.push(("kind", kind.0.clone()));
            }
            v.push(("calls", cn(calls)));
        }
        Op::While { condition, body } => {
            v.push(("condition", cn(condition)));
            v.push(("body", cn(body)));
        }
        Op::Conditional { branches } => {
            if branches.len() == 2 && pred_selector {
                v.push(("true_computation", cn(&branches[0])));
                v.push(("false_computation", cn(&branches[1])));
            } else {
                v.push(("branch_computations", comp_names(m, branches)));
            }
        }
        Op::GetTupleElement { index } => v.push(("index", index.to_string())),
        Op::CustomCall {
            target,
            has_side_effect,
            called,
        } => {
            v.push(("custom_call_target", fmt_string(target)));
            if *has_side_effect {
                v.push(("custom_call_has_side_effect", "true".to_string()));
            }
            if !called.is_empty() {
                v.push(("called_computations", comp_names(m, called)));
            }
        }
        Op::Infeed { config } => {
            if !config.is_empty() {
                v.push(("infeed_config", fmt_string(config)));
            }
        }
        Op::Outfeed { config } => {
            if !config.is_empty() {
                v.push(("outfeed_config", fmt_string(config)));
            }
        }
        Op::AllReduce { to_apply, attrs } | Op::AllReduceStart { to_apply, attrs } => {
            collective(&mut v, attrs, true);
            v.push(("to_apply", cn(to_apply)));
        }
        Op::AllGather { dimension, attrs } | Op::AllGatherStart { dimension, attrs } => {
            collective(&mut v, attrs, true);
            v.push(("dimensions", fmt_list(&[*dimension])));
        }
        Op::ReduceScatter {
            dimension,
            to_apply,
            attrs,
        } => {
            collective(&mut v, attrs, true);
            v.push(("dimensions", fmt_list(&[*dimension])));
            v.push(("to_apply", cn(to_apply)));
        }
        Op::AllToAll { dimension, attrs } => {
            collective(&mut v, attrs, false);
            if let Some(d) = dimension {
                v.push(("dimensions", fmt_list(&[*d])));
            }
        }
        Op::CollectiveBroadcast { attrs } => collective(&mut v, attrs, false),
        Op::CollectivePermute { pairs, channel_id }
        | Op::CollectivePermuteStart { pairs, channel_id } => {
            if let Some(c) = channel_id {
                v.push(("channel_id", c.to_string()));
            }
            v.push(("source_target_pairs", fmt_pairs(pairs)));
        }
        Op::CollectivePermuteInPlace {
            pairs,
            channel_id,
            slice_sizes,
        } => {
            if let Some(c) = channel_id {
                v.push(("channel_id", c.to_string()));
            }
            v.push(("source_target_pairs", fmt_pairs(pairs)));
            let lists: Vec<String> = slice_sizes.iter().map(|l| fmt_list(l)).collect();
            v.push(("slice_sizes", format!("{{{}}}", lists.join(","))));
        }
        Op::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        } => {
            v.push(("exponent_bits", exponent_bits.to_string()));
            v.push(("mantissa_bits", mantissa_bits.to_string()));
        }
        Op::Fft {
            fft_type,
            fft_length,
        } => {
            v.push(("fft_type", fft_type.name().to_string()));
            v.push(("fft_length", fmt_list(fft_length)));
        }
        Op::TopK { k, largest } => {
            v.push(("k", k.to_string()));
            v.push(("largest", largest.to_string()));
        }
        Op::Cholesky { lower } => v.push(("lower", lower.to_string())),
        Op::TriangularSolve(o) => {
            v.push(("left_side", o.left_side.to_string()));
            v.push(("lower", o.lower.to_string()));
            v.push(("unit_diagonal", o.unit_diagonal.to_string()));
            v.push(("transpose_a", o.transpose_a.name().to_string()));
        }
        Op::Rng { distribution } => v.push(("distribution", distribution.name().to_string())),
        Op::RngBitGenerator { algorithm } => v.push(("algorithm", algorithm.name().to_string())),
        Op::Parameter { .. }
        | Op::Constant { .. }
        | Op::Reshape
        | Op::Bitcast
        | Op::Copy
        | Op::Convert
        | Op::BitcastConvert
        | Op::Complex
        | Op::DynamicUpdateSlice
        | Op::Select
        | Op::Clamp
        | Op::Tuple
        | Op::AfterAll
        | Op::OptimizationBarrier
        | Op::AllReduceDone
        | Op::AllGatherDone
        | Op::CollectivePermuteDone
        | Op::ReplicaId
        | Op::PartitionId
        | Op::Unary(_)
        | Op::Binary(_) => {}
    }
    v
}

/// `channel_id=`, `replica_groups=`, `use_global_device_ids=` in XLA's
/// order (the last only when true and the op has it).
fn collective(v: &mut Vec<(&'static str, String)>, a: &CollectiveAttrs, global_ids: bool) {
    if let Some(c) = a.channel_id {
        v.push(("channel_id", c.to_string()));
    }
    v.push(("replica_groups", fmt_replica_groups(&a.replica_groups)));
    if global_ids && a.use_global_device_ids {
        v.push(("use_global_device_ids", "true".to_string()));
    }
}
