//! The structural layout rules of every op, shared by propagation and
//! copy insertion: which operand layouts an op accepts (hard
//! constraints), which result layouts are pinned (parameters, call
//! interfaces, existing bitcasts, custom calls), the "natural" result
//! layout that costs nothing given the operand layouts, and the operand
//! layout an op would like (a hint). Emitter preferences come from
//! [`LayoutConstraints`]; this module decides nothing by itself.

use super::constraints::LayoutConstraints;
use super::physical::{reshape_bitcast_layout, transpose_bitcast_layout};
use rxla_ir::layout_verifier::{layouts_equal, operand_must_match_result, same_dims};
use rxla_ir::{ArrayShape, CompId, Computation, Instruction, Layout, Module, Op, Shape};

/// The fixed signature of every computation: parameter shapes and the
/// layouts its root must have.
#[derive(Clone, Debug)]
pub struct Interfaces {
    pub params: Vec<Vec<Shape>>,
    pub results: Vec<Shape>,
}

impl Interfaces {
    /// The input's parameter and root shapes, except: the ENTRY follows
    /// `entry_computation_layout`; a while condition takes the body's
    /// parameter layout and the body must return it; every branch of a
    /// conditional returns the first branch's root layout.
    pub fn of(module: &Module) -> Interfaces {
        let mut params: Vec<Vec<Shape>> = Vec::new();
        let mut results = Vec::new();
        for c in &module.computations {
            let ps = c.program_shape();
            params.push(ps.parameters);
            results.push(ps.result);
        }
        if let Some(l) = &module.entry_layout {
            let e = module.entry.index();
            if let (Some(p), Some(r)) = (params.get_mut(e), results.get_mut(e)) {
                if p.len() == l.parameters.len()
                    && p.iter().zip(&l.parameters).all(|(a, b)| a.compatible(b))
                {
                    *p = l.parameters.clone();
                }
                if r.compatible(&l.result) {
                    *r = l.result.clone();
                }
            }
        }
        for c in &module.computations {
            for i in &c.instructions {
                match &i.op {
                    Op::While { condition, body } => {
                        let Some(state) = params.get(body.index()).and_then(|p| p.first()).cloned()
                        else {
                            continue;
                        };
                        if let Some(p) = params
                            .get_mut(condition.index())
                            .and_then(|p| p.first_mut())
                            && p.compatible(&state)
                        {
                            *p = state.clone();
                        }
                        if let Some(r) = results.get_mut(body.index())
                            && r.compatible(&state)
                        {
                            *r = state;
                        }
                    }
                    Op::Conditional { branches } => {
                        let Some(first) = branches
                            .first()
                            .and_then(|b| results.get(b.index()))
                            .cloned()
                        else {
                            continue;
                        };
                        for b in branches {
                            if let Some(r) = results.get_mut(b.index())
                                && r.compatible(&first)
                            {
                                *r = first.clone();
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        Interfaces { params, results }
    }

    fn param(&self, c: CompId, n: usize) -> Option<&Shape> {
        self.params.get(c.index())?.get(n)
    }

    fn result(&self, c: CompId) -> Option<&Shape> {
        self.results.get(c.index())
    }
}

/// `layout` for an array of type `ty`: an element size (`E(n)`) that
/// does not fit `ty` is dropped (an s4 operand's packed `E(4)` says
/// nothing about its s8 convert).
fn fit_element_size(mut layout: Layout, ty: rxla_ir::ElementType) -> Layout {
    if layout.validate_element_size(ty).is_err() {
        layout.element_size_in_bits = None;
    }
    layout
}

/// `target` (types and dims) with the layouts of `layouts` (same dims).
pub fn relayout_like(target: &Shape, layouts: &Shape) -> Shape {
    match (target, layouts) {
        (Shape::Array(t), Shape::Array(l)) if t.dims == l.dims => Shape::Array(ArrayShape {
            element_type: t.element_type,
            dims: t.dims.clone(),
            layout: fit_element_size(l.layout.clone(), t.element_type),
            dynamic: t.dynamic,
        }),
        (Shape::Tuple(t), Shape::Tuple(l)) if t.len() == l.len() => {
            Shape::Tuple(t.iter().zip(l).map(|(a, b)| relayout_like(a, b)).collect())
        }
        _ => target.clone(),
    }
}

fn with_layout(target: &Shape, layout: Layout) -> Option<Shape> {
    let a = target.as_array().ok()?;
    let layout = fit_element_size(layout, a.element_type);
    layout.validate(&a.dims).ok()?;
    Some(Shape::Array(ArrayShape {
        element_type: a.element_type,
        dims: a.dims.clone(),
        layout,
        dynamic: a.dynamic,
    }))
}

/// The operand's minor-to-major order without padding, when the ranks
/// agree (slices, pads, reverses keep the physical dim order).
fn same_order(target: &Shape, operand: &Shape) -> Option<Shape> {
    let o = operand.as_array().ok()?;
    with_layout(
        target,
        Layout::from_minor_to_major(o.layout.minor_to_major.clone()),
    )
}

/// The rules, bound to one module, its interfaces and an emitter.
pub struct Rules<'a> {
    pub module: &'a Module,
    pub iface: &'a Interfaces,
    pub emitter: &'a dyn LayoutConstraints,
}

impl Rules<'_> {
    /// Accepted layouts for operand `i` of `instr` in `comp` (the input
    /// computation), given the instruction's result shape when known.
    /// `None`: any layout. Never empty.
    pub fn operand_accepts(
        &self,
        comp: &Computation,
        instr: &Instruction,
        i: usize,
        result: Option<&Shape>,
    ) -> Option<Vec<Shape>> {
        let operand = &comp.instructions.get(instr.operands.get(i)?.index())?.shape;
        let list = match &instr.op {
            Op::Bitcast
            | Op::BitcastConvert
            | Op::CustomCall { .. }
            | Op::Outfeed { .. }
            | Op::AsyncStart { .. }
            | Op::AsyncUpdate { .. }
            | Op::AsyncDone { .. } => {
                vec![operand.clone()]
            }
            Op::Call { to_apply: f } | Op::Fusion { calls: f, .. } => {
                vec![self.iface.param(*f, i)?.clone()]
            }
            Op::Conditional { branches } if i > 0 => {
                vec![self.iface.param(*branches.get(i - 1)?, 0)?.clone()]
            }
            Op::While { body, .. } => vec![self.iface.param(*body, 0)?.clone()],
            Op::Dot { dims } if i < 2 => {
                let a = operand.as_array().ok()?;
                self.emitter
                    .dot_operand_layouts(dims, i, a)
                    .into_iter()
                    .filter_map(|l| with_layout(operand, l))
                    .collect()
            }
            Op::Convolution { dims, .. } if i < 2 => {
                let a = operand.as_array().ok()?;
                self.emitter
                    .conv_operand_layouts(dims, i, a)
                    .into_iter()
                    .filter_map(|l| with_layout(operand, l))
                    .collect()
            }
            op if operand_must_match_result(op, i) && same_dims(operand, &instr.shape) => {
                vec![relayout_like(operand, result?)]
            }
            _ => return None,
        };
        (!list.is_empty()).then_some(list)
    }

    /// The result shape an instruction must have whatever its operands:
    /// parameters, call results, and ops whose layout is part of their
    /// meaning (bitcasts, custom calls, feeds) keep the input's.
    pub fn fixed_result(&self, comp_id: CompId, instr: &Instruction) -> Option<Shape> {
        match &instr.op {
            Op::Parameter { number } => Some(
                self.iface
                    .param(comp_id, usize::try_from(*number).ok()?)
                    .cloned()
                    .unwrap_or_else(|| instr.shape.clone()),
            ),
            Op::Call { to_apply: f } | Op::Fusion { calls: f, .. } => {
                self.iface.result(*f).cloned()
            }
            Op::Conditional { branches } => self.iface.result(*branches.first()?).cloned(),
            Op::While { body, .. } => self.iface.param(*body, 0).cloned(),
            Op::Bitcast
            | Op::BitcastConvert
            | Op::CustomCall { .. }
            | Op::Infeed { .. }
            | Op::Outfeed { .. }
            | Op::RngBitGenerator { .. }
            | Op::AsyncStart { .. }
            | Op::AsyncUpdate { .. }
            | Op::AsyncDone { .. }
            | Op::AfterAll => Some(instr.shape.clone()),
            Op::Constant { .. } if instr.shape.is_tuple() => Some(instr.shape.clone()),
            _ => None,
        }
    }

    /// Ops whose result layouts simply follow their operands (no choice).
    pub fn is_derived(op: &Op) -> bool {
        matches!(
            op,
            Op::Tuple | Op::GetTupleElement { .. } | Op::OptimizationBarrier
        )
    }

    /// The result layout that costs nothing given the operand shapes
    /// `ops` (the layouts chosen for them), if there is one.
    pub fn natural(&self, instr: &Instruction, ops: &[&Shape]) -> Option<Shape> {
        let target = &instr.shape;
        match &instr.op {
            Op::Tuple => Some(Shape::Tuple(ops.iter().map(|s| (*s).clone()).collect())),
            Op::GetTupleElement { index } => ops
                .first()?
                .tuple_elements()?
                .get(usize::try_from(*index).ok()?)
                .cloned(),
            Op::OptimizationBarrier => ops.first().map(|s| (*s).clone()),
            Op::Transpose { permutation } => with_layout(
                target,
                transpose_bitcast_layout(ops.first()?.as_array().ok()?, permutation)?,
            ),
            Op::Reshape => with_layout(
                target,
                reshape_bitcast_layout(ops.first()?.as_array().ok()?, target.dims())?,
            ),
            Op::Broadcast { dimensions } => {
                let o = ops.first()?.as_array().ok()?;
                let rank = target.dims().len() as i64;
                let mapped: Vec<i64> = o
                    .layout
                    .minor_to_major
                    .iter()
                    .map(|&d| dimensions.get(d as usize).copied())
                    .collect::<Option<_>>()?;
                let mut m2m = mapped.clone();
                m2m.extend((0..rank).rev().filter(|d| !mapped.contains(d)));
                with_layout(target, Layout::from_minor_to_major(m2m))
            }
            Op::Reduce { dimensions, .. } => {
                let n = ops.len() / 2;
                let leaf = |k: usize, t: &Shape| -> Option<Shape> {
                    let o = ops.get(k)?.as_array().ok()?;
                    let kept: Vec<i64> = (0..o.rank() as i64)
                        .filter(|d| !dimensions.contains(d))
                        .collect();
                    let m2m: Vec<i64> = o
                        .layout
                        .minor_to_major
                        .iter()
                        .filter_map(|d| kept.iter().position(|k| k == d).map(|p| p as i64))
                        .collect();
                    with_layout(t, Layout::from_minor_to_major(m2m))
                };
                match target {
                    Shape::Array(_) => leaf(0, target),
                    Shape::Tuple(ts) if ts.len() == n => Some(Shape::Tuple(
                        ts.iter()
                            .enumerate()
                            .map(|(k, t)| leaf(k, t))
                            .collect::<Option<_>>()?,
                    )),
                    _ => None,
                }
            }
            Op::Dot { dims } => with_layout(
                target,
                self.emitter
                    .dot_result_layout(dims, target.as_array().ok()?),
            ),
            Op::Convolution { dims, .. } => with_layout(
                target,
                self.emitter
                    .conv_result_layout(dims, target.as_array().ok()?),
            ),
            op if op.is_elementwise() || matches!(op, Op::Map { .. } | Op::DynamicUpdateSlice) => {
                // The most common layout among the operands of the result's dims.
                let cands: Vec<&Shape> = ops
                    .iter()
                    .enumerate()
                    .filter(|(i, s)| operand_must_match_result(op, *i) && same_dims(s, target))
                    .map(|(_, s)| *s)
                    .collect();
                let best = cands.iter().max_by_key(|c| {
                    let votes = cands.iter().filter(|d| layouts_equal(c, d)).count();
                    // Ties go to the earliest operand.
                    let first = cands.iter().position(|d| layouts_equal(c, d)).unwrap_or(0);
                    (votes, usize::MAX - first)
                })?;
                Some(relayout_like(target, best))
            }
            Op::Slice { .. }
            | Op::DynamicSlice { .. }
            | Op::Pad { .. }
            | Op::Reverse { .. }
            | Op::Concatenate { .. }
            | Op::Sort { .. }
            | Op::Scatter { .. }
            | Op::ReduceWindow { .. }
            | Op::SelectAndScatter { .. }
            | Op::AllReduce { .. } => match target {
                Shape::Array(_) => same_order(target, ops.first()?),
                Shape::Tuple(ts) => Some(Shape::Tuple(
                    ts.iter()
                        .enumerate()
                        .map(|(k, t)| same_order(t, ops.get(k)?))
                        .collect::<Option<_>>()?,
                )),
            },
            _ => None,
        }
    }

    /// The layout `instr` would like operand `i` to have, given its own
    /// (provisional) result shape: the one that makes it free.
    pub fn operand_hint(
        &self,
        comp: &Computation,
        instr: &Instruction,
        i: usize,
        result: &Shape,
    ) -> Option<Shape> {
        let operand = &comp.instructions.get(instr.operands.get(i)?.index())?.shape;
        match &instr.op {
            Op::Transpose { permutation } => {
                let mut inv = vec![0i64; permutation.len()];
                for (k, &p) in permutation.iter().enumerate() {
                    *inv.get_mut(usize::try_from(p).ok()?)? = k as i64;
                }
                with_layout(
                    operand,
                    transpose_bitcast_layout(result.as_array().ok()?, &inv)?,
                )
            }
            Op::Reshape => with_layout(
                operand,
                reshape_bitcast_layout(result.as_array().ok()?, operand.dims())?,
            ),
            Op::Reduce { dimensions, .. } => {
                let r = match result {
                    Shape::Array(a) => a,
                    Shape::Tuple(t) => t.get(i)?.as_array().ok()?,
                };
                let l = self.emitter.reduce_operand_preference(
                    operand.as_array().ok()?,
                    dimensions,
                    &r.layout,
                )?;
                with_layout(operand, l)
            }
            Op::Broadcast { dimensions } => {
                let r = result.as_array().ok()?;
                let m2m: Vec<i64> = r
                    .layout
                    .minor_to_major
                    .iter()
                    .filter_map(|d| dimensions.iter().position(|x| x == d).map(|p| p as i64))
                    .collect();
                with_layout(operand, Layout::from_minor_to_major(m2m))
            }
            Op::Slice { .. }
            | Op::DynamicSlice { .. }
            | Op::Pad { .. }
            | Op::Reverse { .. }
            | Op::Concatenate { .. }
            | Op::ReduceWindow { .. } => match result {
                Shape::Array(_) => same_order(operand, result),
                Shape::Tuple(t) => same_order(operand, t.get(i)?),
            },
            _ => None,
        }
    }
}
