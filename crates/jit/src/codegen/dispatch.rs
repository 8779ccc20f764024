//! The dispatch: [`Emitter::emit`], the value of any instruction of a
//! kernel at an index (a Cranelift `i64` per logical dimension), in
//! scalar mode or in vector mode (F32X4, lanes along one output
//! dimension), memoized per scope; each op goes to its lowering family
//! (`movement`, `elementwise`, `reduce`, `window`, `dot`, `conv`,
//! `gather`), which calls back into `emit` for its operands. Also the
//! walks over instructions that are not one op's lowering: hoisting
//! row-invariant values before a loop, and inlining a scalar computation
//! (reducers, map, scatter updates). The only file that names every
//! family; must not lower an op itself (beyond reading inputs and
//! forwarding copies).

use super::conv;
use super::dot;
use super::elementwise;
use super::emit::{At, Emitter, MemoKey, Sym};
use super::gather;
use super::movement;
use super::reduce;
use super::repr;
use super::window;
use crate::error::{JitError, Result};
use cranelift_codegen::ir::types::{F32, F32X4};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value};
use rxla_ir::{CompId, ElementType, InstrId, Op};

impl Emitter<'_, '_> {
    /// The value of instruction `id` of computation `c` at `idx`: scalar
    /// when `lanes` is `None`, else an F32X4 (or I32X4 mask for pred).
    pub fn emit(
        &mut self,
        c: CompId,
        id: InstrId,
        idx: &[Value],
        lanes: Option<&Sym>,
    ) -> Result<Value> {
        if let Some(&v) = self.bound.get(&(c, id)) {
            return Ok(v);
        }
        let key: MemoKey = (c, id, idx.to_vec(), lanes.cloned());
        for scope in self.memo.iter().rev() {
            if let Some(&v) = scope.get(&key) {
                return Ok(v);
            }
        }
        let mut v = self.emit_uncached(c, id, idx, lanes)?;
        let instr = self.module.comp(c).get(id);
        if lanes.is_none()
            && !self.inputs.contains_key(&(c, id))
            && matches!(
                instr.op,
                Op::Unary(_) | Op::Binary(_) | Op::Clamp | Op::Iota { .. }
            )
            && instr.shape.element_type().is_some_and(repr::is_half)
        {
            let et = instr.shape.element_type().unwrap_or(ElementType::F16);
            v = repr::round_half(self, v, et)?;
        }
        if lanes.is_some()
            && !self.inputs.contains_key(&(c, id))
            && matches!(instr.op, Op::Unary(_) | Op::Binary(_) | Op::Clamp)
            && let Some(et) = instr.shape.element_type().filter(|&t| repr::is_half(t))
            && self.b.func.dfg.value_type(v) == F32X4
        {
            // The lane form of the rounding above (`half_lanes` admits
            // f16/bf16 only).
            v = repr::vround_half(self, v, et)?;
        }
        if lanes.is_none()
            && !self.inputs.contains_key(&(c, id))
            && matches!(
                instr.op,
                Op::Unary(_) | Op::Binary(_) | Op::Clamp | Op::Iota { .. }
            )
            && let Some(et) = instr.shape.element_type().filter(|t| t.is_int_n())
        {
            v = repr::wrap_int_n(self, v, et);
        }
        if lanes.is_some_and(Sym::is_zero) {
            self.uniform.insert(v);
        }
        if let Some(top) = self.memo.last_mut() {
            top.insert(key, v);
        }
        Ok(v)
    }

    fn emit_uncached(
        &mut self,
        c: CompId,
        id: InstrId,
        idx: &[Value],
        lanes: Option<&Sym>,
    ) -> Result<Value> {
        let module = self.module;
        let instr = module.comp(c).get(id);
        if let Some((base, shape)) = self.inputs.get(&(c, id)).cloned() {
            return self.load(base, &shape, idx, lanes);
        }
        if let Some(&(base, d)) = self.blocked.get(&(c, id)) {
            // Read at the row's own index (the kernel checked every use).
            let off = self.b.ins().ishl_imm_s(idx[d], 2);
            let addr = self.b.ins().iadd(base, off);
            let flags = MemFlagsData::new().with_notrap();
            return Ok(match lanes {
                Some(_) => self.b.ins().load(F32X4, flags, addr, 0),
                None => self.b.ins().load(F32, flags, addr, 0),
            });
        }
        let shape = self.array_shape(c, id)?;
        let et = shape.element_type;
        repr::storage(et)?;
        if lanes.is_some_and(Sym::is_zero)
            && super::ivector::is_int_lane(et)
            && !self.bound.keys().any(|&(bc, _)| bc == c)
        {
            // One integer value for every lane: computed as a scalar (any
            // op; integer results are exact either way), then splat. Not
            // inside an inlined body (a reducer run on lanes): its
            // parameters are lane values, not one value.
            let v = self.emit(c, id, idx, None)?;
            return super::vector::splat(self, v, et);
        }
        if lanes.is_some() && !has_lanes(et, &instr.op) {
            return Err(JitError::unsupported(format!("vector {et}")));
        }
        let ops = &instr.operands;
        let at = At {
            c,
            id,
            instr,
            shape,
            idx,
            lanes,
        };
        match &instr.op {
            Op::Parameter { .. } => Err(JitError::unsupported(format!(
                "unbound parameter {}",
                instr.name
            ))),
            Op::Constant { literal } => movement::constant(self, &at, literal),
            Op::Iota { dimension } => movement::iota(self, &at, *dimension),
            Op::Broadcast { dimensions } => movement::broadcast(self, &at, dimensions),
            Op::Reshape => {
                let os = at.operand_shape(self, 0)?;
                movement::reshape(self, &at, &os)
            }
            Op::Bitcast => movement::bitcast(self, &at),
            Op::Transpose { permutation } => movement::transpose(self, &at, permutation),
            Op::Copy | Op::OptimizationBarrier => self.emit(c, ops[0], idx, lanes),
            Op::Slice {
                starts, strides, ..
            } => movement::slice(self, &at, starts, strides),
            Op::Reverse { dimensions } => movement::reverse(self, &at, dimensions),
            Op::Pad { config } => movement::pad(self, &at, config),
            Op::Concatenate { dimension } => movement::concatenate(self, &at, *dimension as usize),
            Op::DynamicSlice { sizes } => movement::dynamic_slice(self, &at, sizes),
            Op::DynamicUpdateSlice => movement::dynamic_update_slice(self, &at),
            Op::Select => elementwise::select(self, &at),
            Op::Clamp => elementwise::clamp(self, &at),
            Op::Compare { direction, kind } => elementwise::compare(self, &at, *direction, *kind),
            Op::Convert | Op::BitcastConvert => elementwise::convert(self, &at),
            Op::Unary(u) => elementwise::unary(self, &at, *u),
            Op::Binary(bop) => elementwise::binary(self, &at, *bop),
            Op::Reduce {
                dimensions,
                to_apply,
            } => {
                if ops.len() != 2 {
                    return Err(JitError::unsupported("variadic reduce"));
                }
                reduce::reduce(self, &at, dimensions, *to_apply)
            }
            Op::Dot { dims } => dot::dot(self, &at, dims),
            Op::Convolution {
                window,
                dims,
                feature_group_count,
                batch_group_count,
            } if ops.len() == 2 && lanes.is_some() => conv::convolution_lanes(
                self,
                &at,
                window,
                dims,
                (*feature_group_count, *batch_group_count),
                lanes.ok_or_else(|| JitError::codegen("vector convolution lanes"))?,
            ),
            Op::Convolution {
                window,
                dims,
                feature_group_count,
                batch_group_count,
            } if ops.len() == 2 => conv::convolution(
                self,
                &at,
                window,
                dims,
                *feature_group_count,
                *batch_group_count,
            ),
            Op::ReduceWindow { window, to_apply } => {
                if ops.len() != 2 {
                    return Err(JitError::unsupported("variadic reduce-window"));
                }
                window::reduce_window(self, &at, window, *to_apply)
            }
            Op::Gather {
                dims, slice_sizes, ..
            } => {
                if let Some(sym) = lanes {
                    return gather::gather_lanes(self, &at, dims, slice_sizes, sym);
                }
                gather::gather(self, &at, dims, slice_sizes)
            }
            Op::Map { to_apply, .. } => elementwise::map(self, &at, *to_apply),
            Op::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            } => elementwise::reduce_precision(self, &at, *exponent_bits, *mantissa_bits),
            other => Err(JitError::unsupported(format!("op {}", other.opcode()))),
        }
    }

    /// Emits, before a loop over the vector lanes' dimension, every
    /// subexpression of `id` that does not move with the lanes (all lane
    /// coefficients zero), so the loop body finds it memoized: broadcast
    /// operands and constants are computed once per row, not per vector.
    pub fn hoist(&mut self, c: CompId, id: InstrId, idx: &[Value], sym: &Sym) {
        let mut seen = std::collections::HashSet::new();
        self.hoist_from(c, id, idx, sym, &mut seen);
    }

    /// [`Self::hoist`] skipping what it already walked (a DAG of shared
    /// subexpressions is walked once per index, not once per path).
    fn hoist_from(
        &mut self,
        c: CompId,
        id: InstrId,
        idx: &[Value],
        sym: &Sym,
        seen: &mut std::collections::HashSet<MemoKey>,
    ) {
        if !seen.insert((c, id, idx.to_vec(), Some(sym.clone()))) {
            return;
        }
        if sym.is_zero() {
            let _ = self.emit(c, id, idx, Some(sym));
            return;
        }
        if let Some((base, shape)) = self.inputs.get(&(c, id)).cloned() {
            // The row's address prefix (every term but the moving one),
            // cached in this scope for the loop's loads (the mid-end is
            // off: nothing else would take it out of the loop).
            if idx.len() == shape.rank() {
                let _ = self.address(base, &shape, idx);
            }
            return;
        }
        if self.bound.contains_key(&(c, id)) {
            return;
        }
        let module = self.module;
        let instr = module.comp(c).get(id);
        let Ok(shape) = self.array_shape(c, id) else {
            return;
        };
        match &instr.op {
            op if op.is_elementwise() => {
                for &o in &instr.operands {
                    match self.array_shape(c, o) {
                        Ok(os) if os.rank() == 0 && shape.rank() != 0 => {
                            let _ = self.emit(c, o, &[], None);
                        }
                        Ok(_) => self.hoist_from(c, o, idx, sym, seen),
                        Err(_) => {}
                    }
                }
                // An integer shift by one run-time amount: its scalar
                // and masks before the loop too.
                if let (Op::Binary(b), Some(&a)) = (op, instr.operands.get(1))
                    && b.is_shift()
                    && super::ivector::is_word_lane(shape.element_type)
                    && let Op::Broadcast { .. } = module.comp(c).get(a).op
                    && let Ok(v) = self.emit(c, a, idx, Some(sym))
                {
                    super::ivector::amount(self, v);
                }
            }
            Op::ReduceWindow { window, .. } if instr.operands.len() == 2 => {
                window::hoist(self, c, id, window, idx, sym);
            }
            Op::Gather {
                dims, slice_sizes, ..
            } => {
                let at = At {
                    c,
                    id,
                    instr,
                    shape: shape.clone(),
                    idx,
                    lanes: Some(sym),
                };
                gather::hoist_starts(self, &at, dims, slice_sizes, sym);
            }
            Op::Broadcast { dimensions } => {
                let Ok(cs) = sym.dims(shape.rank()) else {
                    return;
                };
                let oi: Vec<Value> = dimensions.iter().map(|&d| idx[d as usize]).collect();
                let os = Sym::Dims(dimensions.iter().map(|&d| cs[d as usize]).collect());
                if let Some(&o) = instr.operands.first() {
                    self.hoist_from(c, o, &oi, &os, seen);
                }
            }
            _ => {}
        }
    }

    /// Inlines a scalar computation (a reducer) on `args`; returns its
    /// root's value(s). Vector mode when `vector`.
    pub fn inline(&mut self, comp: CompId, args: &[Value], vector: bool) -> Result<Value> {
        let cc = self.module.comp(comp);
        let params = cc.parameters();
        if params.len() != args.len() {
            return Err(JitError::unsupported(format!("reducer {} arity", cc.name)));
        }
        for (&p, &a) in params.iter().zip(args) {
            self.bound.insert((comp, p), a);
        }
        self.push_scope();
        let sym = Sym::Dims(vec![]);
        let r = self.emit(comp, cc.root, &[], if vector { Some(&sym) } else { None });
        self.pop_scope();
        for &p in &params {
            self.bound.remove(&(comp, p));
        }
        r
    }

    /// Inlines a scalar computation whose root is a tuple (variadic
    /// reducers, scatter updates) on `args` (scalar mode); returns the
    /// value of each tuple element. A non-tuple root gives one value.
    pub fn inline_multi(&mut self, comp: CompId, args: &[Value]) -> Result<Vec<Value>> {
        let cc = self.module.comp(comp);
        let params = cc.parameters();
        if params.len() != args.len() {
            return Err(JitError::unsupported(format!(
                "computation {} arity",
                cc.name
            )));
        }
        let root = cc.root_instruction();
        let outs: Vec<InstrId> = match root.op {
            Op::Tuple => root.operands.clone(),
            _ => vec![cc.root],
        };
        for (&p, &a) in params.iter().zip(args) {
            self.bound.insert((comp, p), a);
        }
        self.push_scope();
        let mut r = Ok(Vec::with_capacity(outs.len()));
        for o in outs {
            match self.emit(comp, o, &[], None) {
                Ok(v) => {
                    if let Ok(vs) = &mut r {
                        vs.push(v);
                    }
                }
                Err(e) => {
                    r = Err(e);
                    break;
                }
            }
        }
        self.pop_scope();
        for &p in &params {
            self.bound.remove(&(comp, p));
        }
        r
    }
}

/// Whether an instruction of element type `et` has a vector form.
fn has_lanes(et: ElementType, op: &Op) -> bool {
    match et {
        ElementType::F32 | ElementType::Pred => true,
        t if super::ivector::is_int_lane(t) => int_lane_op(op),
        ElementType::F16 | ElementType::BF16 => half_lanes(op),
        _ => false,
    }
}

/// The ops whose s32/u32 (and s8/u8/s16/u16) results run in integer
/// lanes (`ivector`); any
/// other op of those types keeps the kernel scalar.
fn int_lane_op(op: &Op) -> bool {
    matches!(
        op,
        Op::Constant { .. }
            | Op::Iota { .. }
            | Op::Broadcast { .. }
            | Op::Reshape
            | Op::Bitcast
            | Op::Transpose { .. }
            | Op::Unary(_)
            | Op::Binary(_)
            | Op::Convert
            | Op::BitcastConvert
            | Op::Select
            | Op::Clamp
            | Op::Gather { .. }
    )
}

/// Whether an f16/bf16 instruction has a vector form (F32X4 of the held
/// values, rounded after each op as the scalar form): data movement,
/// select, clamp, f32/half converts, the correctly rounded arithmetic
/// (one f32 op then one rounding, as the scalar form), and the
/// transcendental functions of mixed-precision models (exp, expm1, tanh,
/// logistic, log, log1p, erf, cbrt: the f32 approximation, within a few
/// f32 ulps, then one rounding — at most one ulp of the half type from the
/// scalar form's result, inside the tolerance the JIT oracle gives
/// transcendentals); not reductions, dots, iota nor the other ops.
fn half_lanes(op: &Op) -> bool {
    use rxla_ir::{BinaryOp as B, UnaryOp as U};
    match op {
        Op::Constant { .. }
        | Op::Broadcast { .. }
        | Op::Reshape
        | Op::Bitcast
        | Op::Transpose { .. }
        | Op::Copy
        | Op::OptimizationBarrier
        | Op::Slice { .. }
        | Op::Reverse { .. }
        | Op::Concatenate { .. }
        | Op::Pad { .. }
        | Op::Select
        | Op::Clamp
        | Op::Convert
        | Op::BitcastConvert => true,
        Op::Unary(u) => matches!(
            u,
            U::Negate
                | U::Abs
                | U::Floor
                | U::Ceil
                | U::RoundNearestEven
                | U::RoundNearestAfz
                | U::Sqrt
                | U::Exp
                | U::Expm1
                | U::Tanh
                | U::Logistic
                | U::Log
                | U::Log1p
                | U::Erf
                | U::Cbrt
        ),
        Op::Binary(b) => matches!(
            b,
            B::Add | B::Subtract | B::Multiply | B::Divide | B::Maximum | B::Minimum
        ),
        _ => false,
    }
}
