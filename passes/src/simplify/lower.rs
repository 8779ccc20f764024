//! Lowering: one computation (a DAG of instructions) → an e-graph over
//! [`Hlo`]. Modeled ops (tuples and `get-tuple-element` included) become
//! their nodes with attribute leaves; every other instruction
//! (parameters, while, custom-call, variadic reduce, bitcasts that
//! depend on a non-default layout, ops with unmodeled verbatim
//! attributes, dots whose result type differs from the operands', ...)
//! becomes an [`Hlo::Opaque`] node named after the instruction, with its
//! operands as children, so the pass works on any computation. Nodes are
//! logical values: an instruction's layout is not lowered (see
//! [`unsupported_reason`] for why that is sound and `raise.rs` for how
//! layouts come back). Also builds the same term as a `RecExpr` (for
//! explanations). Does not rewrite.

use crate::simplify::analysis::{HloAnalysis, HloGraph, Sh, Ty, node_shape, node_ty};
use crate::simplify::cost::Deadline;
use crate::simplify::lang::{Attr, ConstVal, Hlo};
use egg::{EGraph, Id, RecExpr, Symbol};
use rxla_ir::{Computation, Instruction, Literal, Op, Shape};

/// Verbatim attributes a modeled instruction may carry (they do not change
/// its value).
const HARMLESS_ATTRS: [&str; 6] = [
    "metadata",
    "frontend_attributes",
    "sharding",
    "precision_config",
    "operand_precision",
    "backend_config",
];

/// A lowered computation.
pub struct Lowered {
    pub egraph: HloGraph,
    /// The e-class of each instruction.
    pub classes: Vec<Id>,
    /// The node each instruction was lowered to (children as added).
    pub nodes: Vec<Hlo>,
    /// The whole computation as one term, and each instruction's index in it.
    pub expr: RecExpr<Hlo>,
    pub expr_index: Vec<Id>,
    /// Whether two instructions were lowered into one class (identical
    /// nodes are hash-consed). When not, and no rule applies, the e-graph
    /// holds exactly the original program and extraction can be skipped.
    pub merged: bool,
}

/// Why a computation is left alone, if it is: opaque nodes are bound to
/// instructions by name, so names must be unique, and the rules and the
/// constant analysis read elements as at most 64 bits of a real number,
/// so complex values are left alone.
///
/// Layouts are no reason: the e-graph holds *logical* values (the
/// evaluator computes every op but `bitcast` on logical, row-major data),
/// and physical placement matters only where a value is read through its
/// bytes. So a `bitcast` between non-default layouts (or from or to
/// padded ones) is never modeled (it is opaque), and `raise` hands every
/// opaque instruction its operands in their original layouts, keeps the
/// root's layout and never touches parameters. Every other instruction
/// may be rewritten whatever its layout.
pub fn unsupported_reason(comp: &Computation) -> Option<String> {
    unsupported_reason_until(comp, Deadline::none()).unwrap_or(None)
}

/// [`unsupported_reason`], `Err(())` when `deadline` passes first.
#[allow(clippy::result_unit_err)]
pub fn unsupported_reason_until(
    comp: &Computation,
    deadline: Deadline,
) -> Result<Option<String>, ()> {
    let mut names = std::collections::HashSet::with_capacity(comp.len());
    for (k, i) in comp.instructions.iter().enumerate() {
        if deadline.passed_at(k + 1) {
            return Err(());
        }
        if !names.insert(i.name.as_str()) {
            return Ok(Some(format!("the name {} is used twice", i.name)));
        }
        if i.shape.leaves().iter().any(|a| a.element_type.is_complex()) {
            return Ok(Some(format!("{} has complex values", i.name)));
        }
        // Rewrites build shapes from bounds (and fold sizes): computations
        // with dynamic dimensions are left alone.
        if i.shape.is_dynamic() || matches!(i.op, Op::GetDimensionSize { .. }) {
            return Ok(Some(format!("{} has dynamic dimensions", i.name)));
        }
    }
    Ok(None)
}

/// Whether every array of `shape` has the default layout.
pub fn default_layouts(shape: &Shape) -> bool {
    shape.leaves().iter().all(|a| a.layout.is_default())
}

/// The array shape of an instruction (no tuples, no tokens).
pub fn array_sh(shape: &Shape) -> Option<Sh> {
    match shape {
        Shape::Array(a) if !a.element_type.is_token() => {
            Some(Sh::new(a.element_type, a.dims.clone()))
        }
        _ => None,
    }
}

/// Lowers `comp`; `explain` enables egg explanations. `None` when
/// `deadline` passes first.
pub fn lower(comp: &Computation, explain: bool, deadline: Deadline) -> Option<Lowered> {
    let mut eg = EGraph::new(HloAnalysis::default());
    if explain {
        eg = eg.with_explanations_enabled();
    }
    let mut out = Lowered {
        egraph: eg,
        classes: Vec::with_capacity(comp.len()),
        nodes: Vec::with_capacity(comp.len()),
        expr: RecExpr::default(),
        expr_index: Vec::with_capacity(comp.len()),
        merged: false,
    };
    for (k, instr) in comp.instructions.iter().enumerate() {
        if deadline.passed_at(k + 1) {
            return None;
        }
        let operands: Vec<Id> = instr
            .operands
            .iter()
            .map(|o| out.classes[o.index()])
            .collect();
        let rec_ops: Vec<Id> = instr
            .operands
            .iter()
            .map(|o| out.expr_index[o.index()])
            .collect();
        let modeled = modeled_node(comp, instr, &operands, &rec_ops, &mut out);
        let (node, rec_node) = match modeled {
            Some(pair) => pair,
            None => {
                let name = Symbol::from(instr.name.as_str());
                out.egraph
                    .analysis
                    .opaque_shapes
                    .insert(name, Ty::of(&instr.shape));
                (Hlo::Opaque(name, operands), Hlo::Opaque(name, rec_ops))
            }
        };
        let classes_before = out.egraph.number_of_classes();
        let id = out.egraph.add(node.clone());
        out.merged |= out.egraph.number_of_classes() == classes_before;
        out.classes.push(id);
        out.nodes.push(node);
        out.expr_index.push(out.expr.add(rec_node));
    }
    Some(out)
}

/// The modeled node of `instr` (and its `RecExpr` twin), when the op is
/// modeled and the node's computed type matches the instruction's.
fn modeled_node(
    comp: &Computation,
    instr: &Instruction,
    ops: &[Id],
    rec_ops: &[Id],
    out: &mut Lowered,
) -> Option<(Hlo, Hlo)> {
    if instr
        .attrs
        .iter()
        .any(|(k, _)| !HARMLESS_ATTRS.contains(&k.as_str()))
    {
        return None;
    }
    if let Op::Tuple | Op::GetTupleElement { .. } = instr.op {
        return tuple_node(instr, ops, rec_ops, out);
    }
    // A bitcast reinterprets physical bytes: it is a reshape only between
    // default (row-major, unpadded) layouts.
    if matches!(instr.op, Op::Bitcast)
        && !(default_layouts(&instr.shape)
            && instr
                .operands
                .iter()
                .all(|o| default_layouts(&comp.instructions[o.index()].shape)))
    {
        return None;
    }
    let want = array_sh(&instr.shape)?;
    let attr: Option<Attr> = match &instr.op {
        Op::Compare { direction, kind } => Some(Attr::Cmp {
            dir: *direction,
            kind: *kind,
        }),
        Op::Convert => Some(Attr::Ty(want.ty)),
        Op::Reshape | Op::Bitcast => Some(Attr::Ints(want.dims.clone())),
        Op::Transpose { permutation } => Some(Attr::Ints(permutation.clone())),
        Op::Broadcast { dimensions } => Some(Attr::Bcast {
            out: want.dims.clone(),
            map: dimensions.clone(),
        }),
        Op::Reverse { dimensions } => Some(Attr::Ints(dimensions.clone())),
        Op::Slice {
            starts,
            limits,
            strides,
        } => Some(Attr::Slice {
            starts: starts.clone(),
            limits: limits.clone(),
            strides: strides.clone(),
        }),
        Op::Concatenate { dimension } => Some(Attr::Ints(vec![*dimension])),
        Op::Pad { config } => Some(Attr::Pad(
            config.iter().map(|p| (p.low, p.high, p.interior)).collect(),
        )),
        Op::Dot { dims } => Some(Attr::Dot {
            lb: dims.lhs_batch.clone(),
            lc: dims.lhs_contracting.clone(),
            rb: dims.rhs_batch.clone(),
            rc: dims.rhs_contracting.clone(),
        }),
        Op::Reduce {
            dimensions,
            to_apply,
        } => Some(Attr::Reduce {
            dims: dimensions.clone(),
            comp: to_apply.0,
        }),
        _ => None,
    };
    let (a, ra) = match attr {
        Some(a) => {
            let id = out.egraph.add(Hlo::Attr(a.clone()));
            (Some(id), Some(out.expr.add(Hlo::Attr(a))))
        }
        None => (None, None),
    };
    let build = |ops: &[Id], a: Option<Id>| -> Option<Hlo> {
        let n = ops.len();
        Some(match (&instr.op, n) {
            (Op::Unary(u), 1) => Hlo::unary(*u, ops[0])?,
            (Op::Binary(b), 2) => Hlo::binary(*b, ops[0], ops[1]),
            (Op::Compare { .. }, 2) => Hlo::Compare([a?, ops[0], ops[1]]),
            (Op::Select, 3) => Hlo::Select([ops[0], ops[1], ops[2]]),
            (Op::Clamp, 3) => Hlo::Clamp([ops[0], ops[1], ops[2]]),
            (Op::Convert, 1) => Hlo::Convert([a?, ops[0]]),
            (Op::Copy, 1) => Hlo::Copy([ops[0]]),
            (Op::Reshape, 1) | (Op::Bitcast, 1) => Hlo::Reshape([a?, ops[0]]),
            (Op::Transpose { .. }, 1) => Hlo::Transpose([a?, ops[0]]),
            (Op::Broadcast { .. }, 1) => Hlo::Broadcast([a?, ops[0]]),
            (Op::Reverse { .. }, 1) => Hlo::Reverse([a?, ops[0]]),
            (Op::Slice { .. }, 1) => Hlo::Slice([a?, ops[0]]),
            (Op::Concatenate { .. }, n) if n >= 1 => {
                let mut v = vec![a?];
                v.extend_from_slice(ops);
                Hlo::Concatenate(v.into_boxed_slice())
            }
            (Op::Pad { .. }, 2) => Hlo::Pad([a?, ops[0], ops[1]]),
            (Op::Dot { .. }, 2) => Hlo::Dot([a?, ops[0], ops[1]]),
            (Op::Reduce { .. }, 2) => Hlo::Reduce([a?, ops[0], ops[1]]),
            (
                Op::Constant {
                    literal: Literal::Array(l),
                },
                0,
            ) => Hlo::Const(ConstVal::from_literal(l)),
            _ => return None,
        })
    };
    let node = build(ops, a)?;
    let rec = build(rec_ops, ra)?;
    if node_shape(&out.egraph, &node)? != want {
        return None;
    }
    Some((node, rec))
}

/// The node of a `tuple` or `get-tuple-element` (and its `RecExpr` twin),
/// when its computed type matches the instruction's.
fn tuple_node(
    instr: &Instruction,
    ops: &[Id],
    rec_ops: &[Id],
    out: &mut Lowered,
) -> Option<(Hlo, Hlo)> {
    let (node, rec) = match (&instr.op, ops, rec_ops) {
        (Op::Tuple, _, _) => (
            Hlo::Tuple(ops.to_vec().into_boxed_slice()),
            Hlo::Tuple(rec_ops.to_vec().into_boxed_slice()),
        ),
        (Op::GetTupleElement { index }, &[t], &[rt]) => {
            let a = Attr::Ints(vec![*index]);
            let id = out.egraph.add(Hlo::Attr(a.clone()));
            let rid = out.expr.add(Hlo::Attr(a));
            (Hlo::Gte([id, t]), Hlo::Gte([rid, rt]))
        }
        _ => return None,
    };
    (node_ty(&out.egraph, &node)? == Ty::of(&instr.shape)).then_some((node, rec))
}
