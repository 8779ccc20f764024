//! The interpreter: evaluates computations instruction by instruction in
//! SSA order, dispatching each [`Op`] to the elementwise, movement,
//! reduce or kernel modules, and handling control flow (call, fusion,
//! while, conditional), tokens, infeed/outfeed and the collectives
//! (`coll`). Values are
//! dropped after their last use. It never changes the module.

use crate::collectives::Collectives;
use crate::data;
use crate::elementwise;
use crate::error::{EvalError, Result};
use crate::kernels::{self, rng::RngState};
use crate::movement;
use crate::options::RunOptions;
use crate::reduce::{self, FastBody};
use crate::scalar::ScalarProgram;
use rxla_ir::{
    ArrayLiteral, ArrayShape, CompId, Computation, ElementType, Instruction, Literal, Module, Op,
    Shape,
};
mod coll;

use std::cell::RefCell;
use std::rc::Rc;

/// Per-computation facts computed once per evaluation.
struct CompInfo {
    /// Instructions to evaluate (reachable from the root, or side effects).
    live: Vec<bool>,
    /// Number of live uses of each instruction (root counted once more).
    uses: Vec<u32>,
    /// The body as a single elementwise op, when it is one.
    fast: Option<FastBody>,
    /// The body as an allocation-free scalar program, when it is one.
    scalar: Option<ScalarProgram>,
    /// Largest array leaf (element count) declared by a live instruction,
    /// with that instruction's index; `usize::MAX` when a count overflows.
    largest: (usize, usize),
}

/// Largest element count among the array leaves of `shape`.
fn largest_leaf(shape: &Shape) -> usize {
    shape
        .leaves()
        .iter()
        .map(|a| a.element_count().unwrap_or(usize::MAX))
        .max()
        .unwrap_or(0)
}

/// The device an evaluator runs as, in a multi-device evaluation:
/// `id = replica · partitions + partition` on `grid`.
#[derive(Clone, Copy)]
pub struct ReplicaCtx<'a> {
    pub id: usize,
    pub grid: rxla_ir::DeviceGrid,
    pub collectives: &'a Collectives,
}

/// One evaluation's state.
pub struct Evaluator<'a> {
    module: &'a Module,
    opts: &'a RunOptions,
    rng: RngState,
    replica: Option<ReplicaCtx<'a>>,
    collective_seq: u64,
    info: Vec<Option<Rc<CompInfo>>>,
    /// Bytes of the values alive now (every computation on the call
    /// stack), checked against `RunOptions::max_memory`.
    live_bytes: u64,
    /// Loop iterations run so far, all loops together.
    total_iterations: u64,
}

fn arr<'l>(ops: &[&'l Literal], i: usize) -> Result<&'l ArrayLiteral> {
    let l = ops
        .get(i)
        .ok_or_else(|| EvalError::new(format!("missing operand {i}")))?;
    l.as_array()
        .map_err(|_| EvalError::new(format!("operand {i} must be an array, got a tuple")))
}

fn arrays<'l>(ops: &[&'l Literal]) -> Result<Vec<&'l ArrayLiteral>> {
    (0..ops.len()).map(|i| arr(ops, i)).collect()
}

/// `shape` with its array leaves given the next dims of `dims` (static).
fn with_leaf_dims<'d>(shape: &Shape, dims: &mut impl Iterator<Item = &'d Vec<i64>>) -> Shape {
    match shape {
        Shape::Array(a) => {
            let mut a = a.clone();
            if let Some(d) = dims.next() {
                a.dims = d.clone();
            }
            a.dynamic = rxla_ir::DynamicDims::STATIC;
            Shape::Array(a)
        }
        Shape::Tuple(t) => Shape::Tuple(t.iter().map(|s| with_leaf_dims(s, dims)).collect()),
    }
}

/// A literal of `shape`'s tuple structure from its array leaves in order.
fn rebuild(shape: &Shape, leaves: &mut impl Iterator<Item = ArrayLiteral>) -> Result<Literal> {
    match shape {
        Shape::Array(_) => leaves
            .next()
            .map(Literal::Array)
            .ok_or_else(|| EvalError::new("fewer result arrays than the shape has")),
        Shape::Tuple(t) => Ok(Literal::Tuple(
            t.iter()
                .map(|s| rebuild(s, leaves))
                .collect::<Result<_>>()?,
        )),
    }
}

fn out_array(instr: &Instruction) -> Result<&ArrayShape> {
    instr
        .shape
        .as_array()
        .map_err(|_| EvalError::new(format!("result shape {} must be an array", instr.shape)))
}

/// Checks that `lit` has `shape`'s types and dims and gives it `shape`'s
/// layouts (data is row-major, so only the metadata changes).
pub fn conform(lit: &mut Literal, shape: &Shape) -> Result<()> {
    match (lit, shape) {
        (Literal::Array(a), Shape::Array(s)) if a.shape.compatible(s) => {
            if a.shape.layout != s.layout {
                s.layout.validate(&s.dims)?;
                a.shape.layout = s.layout.clone();
            }
            crate::dynamic::conform_array(a, s)
        }
        (Literal::Tuple(t), Shape::Tuple(s)) if t.len() == s.len() => {
            t.iter_mut().zip(s).try_for_each(|(l, s)| conform(l, s))
        }
        (lit, shape) => Err(EvalError::new(format!(
            "produced a value of shape {} where {} was declared",
            lit.shape().to_string_no_layout(),
            shape.to_string_no_layout()
        ))),
    }
}

/// Recognises `ROOT op(p0, p1)` / `ROOT op(p0)` bodies.
fn fast_body(comp: &Computation) -> Option<FastBody> {
    let root = comp.instructions.get(comp.root.index())?;
    let param = |i: usize| -> Option<i64> {
        match comp.instructions.get(root.operands.get(i)?.index())?.op {
            Op::Parameter { number } => Some(number),
            _ => None,
        }
    };
    match root.op {
        Op::Binary(op) if comp.len() == 3 && root.operands.len() == 2 => {
            match (param(0)?, param(1)?) {
                (0, 1) => Some(FastBody::Binary(op, false)),
                (1, 0) => Some(FastBody::Binary(op, true)),
                _ => None,
            }
        }
        Op::Unary(op) if comp.len() == 2 && root.operands.len() == 1 => {
            (param(0)? == 0).then_some(FastBody::Unary(op))
        }
        _ => None,
    }
}

impl<'a> Evaluator<'a> {
    pub fn new(module: &'a Module, opts: &'a RunOptions, replica: Option<ReplicaCtx<'a>>) -> Self {
        let seed =
            opts.seed ^ replica.map_or(0, |r| (r.id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        Evaluator {
            module,
            opts,
            rng: RngState::new(seed),
            replica,
            collective_seq: 0,
            info: vec![None; module.computations.len()],
            live_bytes: 0,
            total_iterations: 0,
        }
    }

    fn comp(&self, cid: CompId) -> Result<&'a Computation> {
        let module = self.module;
        module.computations.get(cid.index()).ok_or_else(|| {
            EvalError::new(format!(
                "computation {cid} does not exist (module has {})",
                module.computations.len()
            ))
        })
    }

    fn info(&mut self, cid: CompId) -> Result<Rc<CompInfo>> {
        if let Some(Some(i)) = self.info.get(cid.index()) {
            return Ok(i.clone());
        }
        let comp = self.comp(cid)?;
        let live = comp.live_mask();
        let mut uses = vec![0u32; comp.len()];
        for (i, instr) in comp.instructions.iter().enumerate() {
            if live[i] {
                for o in &instr.operands {
                    if let Some(u) = uses.get_mut(o.index()) {
                        *u += 1;
                    }
                }
            }
        }
        if let Some(u) = uses.get_mut(comp.root.index()) {
            *u += 1;
        }
        let largest = comp
            .instructions
            .iter()
            .enumerate()
            .filter(|(i, _)| live[*i])
            .map(|(i, instr)| (largest_leaf(&instr.shape), i))
            .max()
            .unwrap_or((0, 0));
        let info = Rc::new(CompInfo {
            largest,
            scalar: ScalarProgram::compile(comp, &live),
            live,
            uses,
            fast: fast_body(comp),
        });
        self.info[cid.index()] = Some(info.clone());
        Ok(info)
    }

    /// Evaluates computation `cid` on `args` (one per parameter number).
    pub fn eval_comp(&mut self, cid: CompId, args: &[&Literal]) -> Result<Literal> {
        let comp = self.comp(cid)?;
        let info = self.info(cid)?;
        let n = comp.len();
        if comp.root.index() >= n {
            return Err(EvalError::new(format!(
                "computation {} has no root instruction",
                comp.name
            )));
        }
        if info.largest.0 > self.opts.max_elements {
            let name = &comp.instructions[info.largest.1].name;
            return Err(EvalError::new(format!(
                "{name}: result of {} elements exceeds max_elements ({})",
                info.largest.0, self.opts.max_elements
            )));
        }
        // Every value of this computation is dropped on return: the live
        // bytes go back to what they were (the caller counts the result).
        let base = self.live_bytes;
        let r = self.eval_body(comp, &info, args);
        self.live_bytes = base;
        r
    }

    /// The instructions of `comp` in order (see [`Evaluator::eval_comp`]).
    fn eval_body(
        &mut self,
        comp: &'a Computation,
        info: &CompInfo,
        args: &[&Literal],
    ) -> Result<Literal> {
        let n = comp.len();
        let mut uses = info.uses.clone();
        let mut values: Vec<Option<Literal>> = vec![None; n];
        let mut bytes: Vec<u64> = vec![0; n];
        for (i, instr) in comp.instructions.iter().enumerate() {
            if !info.live[i] {
                continue;
            }
            if self.opts.deadline.is_some() {
                self.opts
                    .check_deadline()
                    .map_err(|e| e.context(&instr.name))?;
            }
            let need = crate::limits::shape_bytes(&instr.shape);
            let total = self.live_bytes.saturating_add(need);
            if total > self.opts.max_memory {
                return Err(EvalError::new(format!(
                    "{}: its result of {need} bytes would bring the live values to {total} bytes, more than max_memory ({} bytes)",
                    instr.name, self.opts.max_memory
                )));
            }
            let ops: Vec<&Literal> = instr
                .operands
                .iter()
                .map(|o| {
                    values
                        .get(o.index())
                        .and_then(|v| v.as_ref())
                        .ok_or_else(|| {
                            EvalError::new(format!(
                                "{}: operand #{} is not defined before its use",
                                instr.name,
                                o.index()
                            ))
                        })
                })
                .collect::<Result<_>>()?;
            let dynamic = !rxla_ir::dynamic::passes_through(&instr.op)
                && ops.iter().any(|l| crate::dynamic::is_dynamic_value(l));
            let mut r = if dynamic {
                self.eval_dynamic(comp, instr, &ops, args)
            } else {
                self.eval_instr(comp, instr, &ops, args)
            }
            .map_err(|e| e.context(&instr.name))?;
            conform(&mut r, &instr.shape).map_err(|e| e.context(&instr.name))?;
            for o in &instr.operands {
                let u = &mut uses[o.index()];
                *u = u.saturating_sub(1);
                if *u == 0 && values[o.index()].take().is_some() {
                    self.live_bytes = self.live_bytes.saturating_sub(bytes[o.index()]);
                }
            }
            values[i] = Some(r);
            bytes[i] = need;
            self.live_bytes = self.live_bytes.saturating_add(need);
        }
        values[comp.root.index()]
            .take()
            .ok_or_else(|| EvalError::new(format!("root of {} was not evaluated", comp.name)))
    }

    /// Calls a sub-computation on owned arguments (kernel callbacks): the
    /// scalar program when it applies, else (or on any error, for a precise
    /// message) the general interpreter.
    fn call_owned(&mut self, cid: CompId, args: &[Literal]) -> Result<Literal> {
        let info = self.info(cid)?;
        if let Some(p) = &info.scalar
            && let Some(sargs) = p.scalar_args(args)
            && let Ok(r) = p.run(&sargs)
        {
            return Ok(r);
        }
        let refs: Vec<&Literal> = args.iter().collect();
        self.eval_comp(cid, &refs)
    }

    /// An instruction with a dynamic operand (see `crate::dynamic`): the
    /// padding masked where the op would read it (the reducer's init for
    /// reduce, zero for dot), a concatenate along a dynamic dim packed,
    /// then the static kernel on the bound-sized data and the result's
    /// runtime sizes from `rxla_ir::dynamic::propagate`.
    fn eval_dynamic(
        &mut self,
        comp: &Computation,
        instr: &Instruction,
        ops: &[&Literal],
        args: &[&Literal],
    ) -> Result<Literal> {
        use rxla_ir::dynamic;
        let op = &instr.op;
        if matches!(
            op,
            Op::GetDimensionSize { .. } | Op::SetDimensionSize { .. }
        ) {
            return self.eval_instr(comp, instr, ops, args);
        }
        let unsupported = || {
            EvalError::new(format!(
                "dynamic dimension not supported by {} yet",
                op.opcode()
            ))
        };
        if !dynamic::has_rule(op) {
            return Err(unsupported());
        }
        let arrays = arrays(ops)?;
        let sizes: Vec<dynamic::DimSizes> =
            arrays.iter().map(|a| crate::dynamic::sizes_of(a)).collect();
        let shapes: Vec<&ArrayShape> = arrays.iter().map(|a| &a.shape).collect();
        if dynamic::runs_on_valid_box(op) {
            return self.eval_on_valid_box(comp, instr, &arrays, &sizes, args);
        }
        let masked: Option<Vec<Literal>> = match op {
            Op::Reduce { .. } => {
                let n = arrays.len() / 2;
                let mut v = Vec::with_capacity(arrays.len());
                for (i, a) in arrays.iter().enumerate() {
                    v.push(Literal::Array(if i < n {
                        crate::dynamic::mask_padding(a, &arrays[n + i].data)?
                    } else {
                        (*a).clone()
                    }));
                }
                Some(v)
            }
            Op::Dot { .. } => Some(
                arrays
                    .iter()
                    .map(|a| {
                        let zero = rxla_ir::ArrayData::zeros(a.shape.element_type, 1);
                        crate::dynamic::mask_padding(a, &zero).map(Literal::Array)
                    })
                    .collect::<Result<_>>()?,
            ),
            _ => None,
        };
        let mut r = match op {
            Op::Concatenate { dimension }
                if sizes
                    .iter()
                    .any(|s| s.get(*dimension as usize).copied().flatten().is_some()) =>
            {
                Literal::Array(crate::dynamic::concatenate(
                    &arrays,
                    *dimension as usize,
                    out_array(instr)?,
                )?)
            }
            _ => match &masked {
                Some(m) => {
                    let refs: Vec<&Literal> = m.iter().collect();
                    self.eval_instr(comp, instr, &refs, args)?
                }
                None => self.eval_instr(comp, instr, ops, args)?,
            },
        };
        let mut leaves: Vec<&mut ArrayLiteral> = Vec::new();
        fn collect<'x>(l: &'x mut Literal, out: &mut Vec<&'x mut ArrayLiteral>) {
            match l {
                Literal::Array(a) => out.push(a),
                Literal::Tuple(t) => t.iter_mut().for_each(|x| collect(x, out)),
            }
        }
        collect(&mut r, &mut leaves);
        let declared: Vec<&ArrayShape> = instr.shape.leaves();
        for (i, leaf) in leaves.into_iter().enumerate() {
            let hint = declared
                .get(i)
                .map(|a| a.dynamic)
                .unwrap_or(rxla_ir::DynamicDims::STATIC);
            let s = dynamic::propagate(op, &sizes, &shapes, &leaf.shape.dims, hint)
                .ok_or_else(unsupported)??;
            crate::dynamic::attach_sizes(leaf, &s);
        }
        Ok(r)
    }

    /// A [`rxla_ir::dynamic::runs_on_valid_box`] op with dynamic
    /// operands: the result's runtime sizes from the shared rule, each
    /// operand cut to its runtime sizes (convolution's contracted feature
    /// dims masked with zero instead, a select-and-scatter source's padding
    /// set to the init; `dynamic::fit_operand` fits the cuts that depend on
    /// other operands or the result), the static kernel on those values
    /// with a result of the runtime sizes, then padded back to the bounds
    /// (zeros past the runtime sizes). An empty valid result skips the
    /// kernel.
    fn eval_on_valid_box(
        &mut self,
        comp: &Computation,
        instr: &Instruction,
        arrays: &[&ArrayLiteral],
        sizes: &[rxla_ir::dynamic::DimSizes],
        args: &[&Literal],
    ) -> Result<Literal> {
        use rxla_ir::dynamic;
        let op = &instr.op;
        let shapes: Vec<&ArrayShape> = arrays.iter().map(|a| &a.shape).collect();
        let declared: Vec<&ArrayShape> = instr.shape.leaves();
        let mut leaf_sizes = Vec::with_capacity(declared.len());
        for leaf in &declared {
            let s = dynamic::propagate(op, sizes, &shapes, &leaf.dims, leaf.dynamic).ok_or_else(
                || {
                    EvalError::new(format!(
                        "dynamic dimension not supported by {} in this form yet",
                        op.opcode()
                    ))
                },
            )??;
            leaf_sizes.push(s);
        }
        let kernel_dims: Vec<Vec<i64>> = declared
            .iter()
            .zip(&leaf_sizes)
            .map(|(leaf, s)| {
                leaf.dims
                    .iter()
                    .zip(s)
                    .map(|(&b, s)| s.unwrap_or(b))
                    .collect()
            })
            .collect();
        let empty = kernel_dims.iter().any(|d| d.contains(&0));
        let mut leaves: Vec<ArrayLiteral> = if empty {
            declared
                .iter()
                .zip(&kernel_dims)
                .map(|(leaf, d)| {
                    let mut s = (*leaf).clone();
                    s.dims = d.clone();
                    s.dynamic = rxla_ir::DynamicDims::STATIC;
                    let n = data::count(&s)?;
                    ArrayLiteral::new(s, rxla_ir::ArrayData::zeros(leaf.element_type, n))
                        .map_err(EvalError::from)
                })
                .collect::<Result<_>>()?
        } else {
            let first_kernel = kernel_dims.first().map(Vec::as_slice).unwrap_or(&[]);
            let mut cut = Vec::with_capacity(arrays.len());
            for (k, a) in arrays.iter().enumerate() {
                let masked = dynamic::masked_dims(op, k);
                let mut dims = a.shape.dims.clone();
                let mut mask = false;
                for (d, s) in sizes[k].iter().enumerate() {
                    if let Some(n) = s {
                        if masked.contains(&d) {
                            mask = true;
                        } else {
                            dims[d] = *n;
                        }
                    }
                }
                dynamic::fit_operand(op, k, &mut dims, first_kernel, sizes);
                let src = if k == 1
                    && matches!(op, Op::SelectAndScatter { .. })
                    && let Some(init) = arrays.get(2)
                {
                    // The source's padding scatters the init value.
                    crate::dynamic::mask_padding(a, &init.data)?
                } else if mask {
                    let zero = rxla_ir::ArrayData::zeros(a.shape.element_type, 1);
                    crate::dynamic::mask_padding(a, &zero)?
                } else {
                    (*a).clone()
                };
                cut.push(Literal::Array(crate::dynamic::resize(&src, &dims)?));
            }
            let mut it = kernel_dims.iter();
            let shape = with_leaf_dims(&instr.shape, &mut it);
            let kernel = Instruction {
                name: instr.name.clone(),
                op: dynamic::valid_box_op(op, sizes, first_kernel),
                operands: instr.operands.clone(),
                shape,
                attrs: instr.attrs.clone(),
            };
            let refs: Vec<&Literal> = cut.iter().collect();
            let r = self.eval_instr(comp, &kernel, &refs, args)?;
            let mut out = Vec::new();
            fn flatten(l: Literal, out: &mut Vec<ArrayLiteral>) {
                match l {
                    Literal::Array(a) => out.push(a),
                    Literal::Tuple(t) => t.into_iter().for_each(|x| flatten(x, out)),
                }
            }
            flatten(r, &mut out);
            out
        };
        if leaves.len() != declared.len() {
            return Err(EvalError::new(format!(
                "{} produced {} arrays, its shape has {}",
                op.opcode(),
                leaves.len(),
                declared.len()
            )));
        }
        for ((leaf, decl), s) in leaves.iter_mut().zip(&declared).zip(&leaf_sizes) {
            let mut padded = crate::dynamic::resize(leaf, &decl.dims)?;
            crate::dynamic::attach_sizes(&mut padded, s);
            *leaf = padded;
        }
        let mut it = leaves.into_iter();
        rebuild(&instr.shape, &mut it)
    }

    fn eval_instr(
        &mut self,
        comp: &Computation,
        instr: &Instruction,
        ops: &[&Literal],
        args: &[&Literal],
    ) -> Result<Literal> {
        let a = |x: ArrayLiteral| Ok(Literal::Array(x));
        match &instr.op {
            Op::Parameter { number } => args
                .get(*number as usize)
                .map(|l| (*l).clone())
                .ok_or_else(|| {
                    EvalError::new(format!(
                        "parameter {number} was not passed ({} arguments)",
                        args.len()
                    ))
                }),
            Op::Constant { literal } => Ok(literal.clone()),
            Op::Iota { dimension } => a(movement::iota(out_array(instr)?, *dimension)?),
            Op::Broadcast { dimensions } => a(movement::broadcast(
                arr(ops, 0)?,
                dimensions,
                out_array(instr)?,
            )?),
            Op::Reshape => {
                let x = arr(ops, 0)?;
                a(ArrayLiteral::new(
                    out_array(instr)?.clone(),
                    x.data.clone(),
                )?)
            }
            Op::Transpose { permutation } => a(movement::transpose(
                arr(ops, 0)?,
                permutation,
                out_array(instr)?,
            )?),
            Op::Bitcast => a(movement::bitcast(arr(ops, 0)?, out_array(instr)?)?),
            Op::Copy => ops
                .first()
                .map(|l| (*l).clone())
                .ok_or_else(|| EvalError::new("copy needs an operand")),
            Op::Convert => {
                let out = out_array(instr)?;
                a(data::array(
                    out,
                    elementwise::convert(&arr(ops, 0)?.data, out.element_type)?,
                )?)
            }
            Op::BitcastConvert => {
                let out = out_array(instr)?;
                let d = elementwise::bitcast_convert(
                    &arr(ops, 0)?.data,
                    out.element_type,
                    data::count(out)?,
                )?;
                a(data::array(out, d)?)
            }
            Op::Slice {
                starts, strides, ..
            } => a(movement::slice(
                arr(ops, 0)?,
                starts,
                strides,
                out_array(instr)?,
            )?),
            Op::DynamicSlice { .. } => {
                let starts = start_indices(&ops[1.min(ops.len())..])?;
                let refs: Vec<&ArrayLiteral> = starts.iter().collect();
                a(movement::dynamic_slice(
                    arr(ops, 0)?,
                    &refs,
                    out_array(instr)?,
                )?)
            }
            Op::DynamicUpdateSlice => {
                let starts = start_indices(&ops[2.min(ops.len())..])?;
                let refs: Vec<&ArrayLiteral> = starts.iter().collect();
                a(movement::dynamic_update_slice(
                    arr(ops, 0)?,
                    arr(ops, 1)?,
                    &refs,
                    out_array(instr)?,
                )?)
            }
            Op::Concatenate { dimension } => a(movement::concatenate(
                &arrays(ops)?,
                *dimension,
                out_array(instr)?,
            )?),
            Op::Pad { config } => a(movement::pad(
                arr(ops, 0)?,
                arr(ops, 1)?,
                config,
                out_array(instr)?,
            )?),
            Op::Reverse { dimensions } => a(movement::reverse(
                arr(ops, 0)?,
                dimensions,
                out_array(instr)?,
            )?),
            Op::Dot { dims } => a(kernels::dot::dot(
                arr(ops, 0)?,
                arr(ops, 1)?,
                dims,
                out_array(instr)?,
            )?),
            Op::Convolution {
                window,
                dims,
                feature_group_count,
                batch_group_count,
            } => a(kernels::conv::convolution(
                arr(ops, 0)?,
                arr(ops, 1)?,
                window,
                dims,
                *feature_group_count,
                *batch_group_count,
                out_array(instr)?,
            )?),
            Op::Reduce {
                dimensions,
                to_apply,
            } => {
                let all = arrays(ops)?;
                let n = all.len() / 2;
                let fast = self.info(*to_apply)?.fast;
                let f = *to_apply;
                let mut apply = |x: &[Literal]| self.call_owned(f, x);
                reduce::reduce(
                    &all[..n],
                    &all[n..],
                    dimensions,
                    fast,
                    &mut apply,
                    &instr.shape,
                )
            }
            Op::ReduceWindow { window, to_apply } => {
                let all = arrays(ops)?;
                let n = all.len() / 2;
                let f = *to_apply;
                let mut apply = |x: &[Literal]| self.call_owned(f, x);
                kernels::reduce_window::reduce_window(
                    &all[..n],
                    &all[n..],
                    window,
                    &mut apply,
                    &instr.shape,
                )
            }
            Op::SelectAndScatter {
                window,
                select,
                scatter,
            } => {
                let (s, t) = (*select, *scatter);
                let cell = RefCell::new(&mut *self);
                let mut sel = |x: &[Literal]| cell.borrow_mut().call_owned(s, x);
                let mut sca = |x: &[Literal]| cell.borrow_mut().call_owned(t, x);
                a(kernels::select_and_scatter::select_and_scatter(
                    arr(ops, 0)?,
                    arr(ops, 1)?,
                    arr(ops, 2)?,
                    window,
                    &mut sel,
                    &mut sca,
                    out_array(instr)?,
                )?)
            }
            Op::Select => {
                if ops.len() != 3 {
                    return Err(EvalError::new("select needs 3 operands"));
                }
                movement::select(ops[0], ops[1], ops[2])
            }
            Op::Clamp => a(movement::clamp(
                arr(ops, 0)?,
                arr(ops, 1)?,
                arr(ops, 2)?,
                out_array(instr)?,
            )?),
            Op::Compare { direction, kind } => {
                let d = elementwise::compare(
                    *direction,
                    *kind,
                    &arr(ops, 0)?.data,
                    &arr(ops, 1)?.data,
                )?;
                a(data::array(out_array(instr)?, d)?)
            }
            Op::Map { to_apply, .. } => {
                let all = arrays(ops)?;
                let fast = self.info(*to_apply)?.fast;
                let f = *to_apply;
                let mut apply = |x: &[Literal]| self.call_owned(f, x);
                a(reduce::map(&all, fast, &mut apply, out_array(instr)?)?)
            }
            Op::Sort {
                dimension,
                is_stable,
                comparator,
            } => {
                let all = arrays(ops)?;
                let f = *comparator;
                let mut apply = |x: &[Literal]| self.call_owned(f, x);
                kernels::sort::sort(&all, *dimension, *is_stable, &mut apply, &instr.shape)
            }
            Op::Gather {
                dims, slice_sizes, ..
            } => a(kernels::gather::gather(
                arr(ops, 0)?,
                arr(ops, 1)?,
                dims,
                slice_sizes,
                out_array(instr)?,
            )?),
            Op::Scatter { dims, to_apply, .. } => {
                let all = arrays(ops)?;
                if all.len() < 3 || (all.len() - 1) % 2 != 0 {
                    return Err(EvalError::new(format!(
                        "scatter needs N operands, indices and N updates; got {} operands",
                        all.len()
                    )));
                }
                let n = (all.len() - 1) / 2;
                let f = *to_apply;
                let mut apply = |x: &[Literal]| self.call_owned(f, x);
                kernels::scatter::scatter(
                    &all[..n],
                    all[n],
                    &all[n + 1..],
                    dims,
                    &mut apply,
                    &instr.shape,
                )
            }
            Op::Call { to_apply } => self.eval_comp(*to_apply, ops),
            Op::Fusion { calls, .. } => self.eval_comp(*calls, ops),
            // XLA's generic async wrappers, run synchronously: the start
            // calls its computation (collectives inside rendezvous as
            // usual); context elements are zeros.
            Op::AsyncStart { calls } => {
                let result = self.eval_comp(*calls, ops)?;
                let mut v = vec![
                    Literal::Tuple(ops.iter().map(|l| (*l).clone()).collect()),
                    result,
                ];
                if let Shape::Tuple(t) = &instr.shape {
                    for s in t.iter().skip(2) {
                        v.push(Literal::zeros(s)?);
                    }
                }
                Ok(Literal::Tuple(v))
            }
            Op::AsyncUpdate { .. } => match ops.first() {
                Some(l @ Literal::Tuple(t)) if t.len() >= 2 => Ok((*l).clone()),
                _ => Err(EvalError::new(format!(
                    "async-update {}: the operand must be an async-start's tuple",
                    instr.name
                ))),
            },
            Op::AsyncDone { .. } => match ops.first() {
                Some(Literal::Tuple(t)) if t.len() >= 2 => Ok(t[1].clone()),
                _ => Err(EvalError::new(format!(
                    "async-done {}: the operand must be an async-start's tuple",
                    instr.name
                ))),
            },
            Op::While { condition, body } => self.eval_while(instr, *condition, *body, ops),
            Op::Conditional { branches } => {
                let sel = arr(ops, 0)?;
                if branches.is_empty() {
                    return Err(EvalError::new("conditional without branches"));
                }
                let b = if sel.shape.element_type == ElementType::Pred {
                    if data::pred_scalar(sel, "conditional predicate")? {
                        0
                    } else {
                        1
                    }
                } else {
                    let i = data::int_scalar(sel, "conditional branch index")?;
                    if i < 0 || i as usize >= branches.len() {
                        branches.len() - 1
                    } else {
                        i as usize
                    }
                };
                let cid = *branches
                    .get(b)
                    .ok_or_else(|| EvalError::new("conditional with a pred needs 2 branches"))?;
                let arg = ops
                    .get(b + 1)
                    .ok_or_else(|| EvalError::new(format!("branch {b} has no operand")))?;
                self.eval_comp(cid, &[*arg])
            }
            Op::Tuple => Ok(Literal::Tuple(ops.iter().map(|l| (*l).clone()).collect())),
            Op::GetTupleElement { index } => match ops.first() {
                Some(Literal::Tuple(t)) => t.get(*index as usize).cloned().ok_or_else(|| {
                    EvalError::new(format!("tuple index {index} out of range ({})", t.len()))
                }),
                _ => Err(EvalError::new("get-tuple-element of a non-tuple")),
            },
            Op::CustomCall { target, called, .. }
                if !self.opts.custom_calls.contains(target) && is_builtin_custom_call(target) =>
            {
                // XLA:CPU's TopK: operand 0's rows sorted by the comparator
                // computation, first k kept (k from the result shape).
                let x = arr(ops, 0)?;
                let k = match &instr.shape {
                    Shape::Tuple(t) => t.first().and_then(|s| s.dims().last().copied()),
                    _ => None,
                }
                .ok_or_else(|| {
                    EvalError::new("TopK custom call needs a (values, indices) result")
                })?;
                let cmp = *called
                    .first()
                    .ok_or_else(|| EvalError::new("TopK custom call needs a comparator"))?;
                // The comparator sees (lhs, rhs) values, and when it takes
                // four parameters also their s32 indices within the row.
                let data = &x.data;
                let row = x.shape.dims.last().copied().unwrap_or(1).max(1) as usize;
                let with_indices = self.module.comp(cmp).parameters().len() == 4;
                kernels::topk::top_k(x, k, &mut |a, b| {
                    let (va, vb) = (data::scalar_at(data, a), data::scalar_at(data, b));
                    let r = if with_indices {
                        let ia = Literal::scalar((a % row) as i32);
                        let ib = Literal::scalar((b % row) as i32);
                        self.eval_comp(cmp, &[&va, &vb, &ia, &ib])?
                    } else {
                        self.eval_comp(cmp, &[&va, &vb])?
                    };
                    data::pred_scalar(r.as_array()?, "the TopK comparator result")
                })
            }
            Op::CustomCall { target, .. }
                if !self.opts.custom_calls.contains(target)
                    && kernels::linalg::is_lapack_target(target) =>
            {
                let config = instr.attr("backend_config").unwrap_or("");
                kernels::linalg::lapack_call(target, config, &arrays(ops)?, &instr.shape)
            }
            Op::CustomCall { target, .. } => {
                let all = arrays(ops)?;
                kernels::custom_call::call(&self.opts.custom_calls, target, &all, &instr.shape)
            }
            Op::Cholesky { lower } => a(kernels::linalg::cholesky(arr(ops, 0)?, *lower)?),
            Op::TriangularSolve(o) => a(kernels::linalg::triangular_solve(
                arr(ops, 0)?,
                arr(ops, 1)?,
                o,
            )?),
            Op::TopK { k, largest } => kernels::topk::top_k_builtin(arr(ops, 0)?, *k, *largest),
            Op::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            } => {
                let out = out_array(instr)?;
                a(data::array(
                    out,
                    elementwise::reduce_precision(
                        &arr(ops, 0)?.data,
                        *exponent_bits,
                        *mantissa_bits,
                    )?,
                )?)
            }
            Op::Infeed { .. } => {
                let want = instr
                    .shape
                    .tuple_elements()
                    .and_then(|t| t.first())
                    .ok_or_else(|| EvalError::new("infeed result must be (data, token)"))?;
                if matches!(want, Shape::Tuple(t) if t.is_empty()) {
                    return Ok(Literal::Tuple(vec![
                        Literal::Tuple(vec![]),
                        Literal::token(),
                    ]));
                }
                let v = self.opts.pop_infeed().ok_or_else(|| {
                    EvalError::new(format!("infeed exhausted: no value left for shape {want}"))
                })?;
                if !v.shape().compatible(want) {
                    return Err(EvalError::new(format!(
                        "infeed value of shape {} does not match the expected {want}",
                        v.shape()
                    )));
                }
                Ok(Literal::Tuple(vec![v, Literal::token()]))
            }
            Op::Outfeed { .. } => {
                let v = ops
                    .first()
                    .ok_or_else(|| EvalError::new("outfeed needs a value"))?;
                self.opts.push_outfeed((*v).clone());
                Ok(Literal::token())
            }
            Op::AllReduce { .. }
            | Op::AllReduceStart { .. }
            | Op::AllReduceDone
            | Op::AllGather { .. }
            | Op::AllGatherStart { .. }
            | Op::AllGatherDone
            | Op::ReduceScatter { .. }
            | Op::AllToAll { .. }
            | Op::CollectivePermute { .. }
            | Op::CollectivePermuteInPlace { .. }
            | Op::CollectivePermuteStart { .. }
            | Op::CollectivePermuteDone
            | Op::CollectiveBroadcast { .. }
            | Op::ReplicaId
            | Op::PartitionId => self.eval_collective(comp, instr, ops),
            Op::Rng { distribution } => a(kernels::rng::rng(
                *distribution,
                arr(ops, 0)?,
                arr(ops, 1)?,
                out_array(instr)?,
                &mut self.rng,
            )?),
            Op::RngBitGenerator { algorithm } => {
                kernels::rng::rng_bit_generator(*algorithm, arr(ops, 0)?, &instr.shape)
            }
            Op::AfterAll => Ok(Literal::token()),
            Op::OptimizationBarrier => ops
                .first()
                .map(|l| (*l).clone())
                .ok_or_else(|| EvalError::new("opt-barrier needs an operand")),
            Op::GetDimensionSize { dimension } => {
                let x = arr(ops, 0)?;
                let d = usize::try_from(*dimension)
                    .ok()
                    .filter(|&d| d < x.shape.rank())
                    .ok_or_else(|| {
                        EvalError::new(format!("dimension {dimension} is out of range"))
                    })?;
                let n = i32::try_from(x.runtime_size(d)).map_err(|_| {
                    EvalError::new(format!("the size of dimension {d} does not fit s32"))
                })?;
                Ok(Literal::scalar(n))
            }
            Op::SetDimensionSize { dimension } => {
                let d = usize::try_from(*dimension).map_err(|_| {
                    EvalError::new(format!("dimension {dimension} is out of range"))
                })?;
                a(crate::dynamic::set_dimension_size(
                    arr(ops, 0)?,
                    arr(ops, 1)?,
                    d,
                )?)
            }
            Op::Unary(op) => {
                let out = out_array(instr)?;
                a(data::array(
                    out,
                    elementwise::unary(*op, &arr(ops, 0)?.data)?,
                )?)
            }
            Op::Binary(op) => {
                let out = out_array(instr)?;
                let d = elementwise::binary(*op, &arr(ops, 0)?.data, &arr(ops, 1)?.data)?;
                a(data::array(out, d)?)
            }
            Op::Complex => {
                let out = out_array(instr)?;
                let d = crate::complex::make(&arr(ops, 0)?.data, &arr(ops, 1)?.data)?;
                a(data::array(out, d)?)
            }
            Op::Fft {
                fft_type,
                fft_length,
            } => a(kernels::fft::fft(
                arr(ops, 0)?,
                *fft_type,
                fft_length,
                out_array(instr)?,
            )?),
        }
    }

    fn eval_while(
        &mut self,
        instr: &Instruction,
        cond: CompId,
        body: CompId,
        ops: &[&Literal],
    ) -> Result<Literal> {
        let mut state = ops
            .first()
            .map(|l| (*l).clone())
            .ok_or_else(|| EvalError::new("while needs an operand"))?;
        let mut iterations = 0u64;
        loop {
            let c = self.eval_comp(cond, &[&state])?;
            let go = data::pred_scalar(c.as_array()?, "while condition result")?;
            if !go {
                return Ok(state);
            }
            if iterations >= self.opts.max_while_iterations {
                return Err(EvalError::new(format!(
                    "while instruction {} exceeded max_while_iterations ({}); runaway loop?",
                    instr.name, self.opts.max_while_iterations
                )));
            }
            iterations += 1;
            self.total_iterations += 1;
            if self.total_iterations > self.opts.max_total_iterations {
                return Err(EvalError::new(format!(
                    "while instruction {}: the run exceeded max_total_iterations ({} loop iterations, all loops together)",
                    instr.name, self.opts.max_total_iterations
                )));
            }
            self.opts
                .check_deadline()
                .map_err(|e| e.context(&instr.name))?;
            state = self.eval_comp(body, &[&state])?;
        }
    }
}

/// Dynamic start indices: scalars, or (old form) one rank-1 array.
fn start_indices(ops: &[&Literal]) -> Result<Vec<ArrayLiteral>> {
    let all = arrays(ops)?;
    if let [v] = all.as_slice()
        && v.shape.rank() == 1
    {
        return (0..v.data.len())
            .map(|i| Ok(data::scalar_at(&v.data, i).into_array()?))
            .collect();
    }
    Ok(all.into_iter().cloned().collect())
}

/// Custom-call targets the evaluator implements itself when the registry
/// has no function of that name (XLA:CPU's `TopK`).
pub fn is_builtin_custom_call(target: &str) -> bool {
    target == "TopK"
}
