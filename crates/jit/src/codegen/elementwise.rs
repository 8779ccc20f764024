//! Elementwise ops, lowered at the output index itself: unary, binary,
//! clamp, compare, select, convert, bitcast-convert, reduce-precision and
//! map (the mapped computation inlined). A rank-0 operand of an array op
//! is read once and splat. The arithmetic itself is `scalar`'s and
//! `vector`'s (and `bitcast`'s, `reduce_precision`'s); this file only
//! picks the scalar or vector form and reads the operands. Must not move
//! indices (that is `movement`'s) nor depend on another lowering family.

use super::bitcast;
use super::emit::{At, Emitter, Sym, le};
use super::ivector;
use super::reduce_precision;
use super::scalar;
use super::vector;
use crate::error::{JitError, Result};
use cranelift_codegen::ir::types::I32X4;
use cranelift_codegen::ir::{InstBuilder, Value};
use rxla_ir::{
    ArrayShape, BinaryOp, CompId, ComparisonDirection, ComparisonType, ElementType, InstrId, Op,
    UnaryOp,
};

/// An elementwise operand, which may be a scalar feeding an array op.
fn operand(
    em: &mut Emitter,
    c: CompId,
    o: InstrId,
    out: &ArrayShape,
    idx: &[Value],
    lanes: Option<&Sym>,
) -> Result<Value> {
    let os = em.array_shape(c, o)?;
    if os.rank() == 0 && out.rank() != 0 {
        let v = em.emit(c, o, &[], None)?;
        return Ok(match lanes {
            Some(_) => vector::splat(em, v, os.element_type)?,
            None => v,
        });
    }
    em.emit(c, o, idx, lanes)
}

/// Elementwise operand `k` of `at`.
fn operand_at(em: &mut Emitter, at: &At, k: usize) -> Result<Value> {
    operand(em, at.c, at.instr.operands[k], &at.shape, at.idx, at.lanes)
}

/// `select(p, t, f)`; a scalar predicate of an array select is one value
/// for every lane.
pub fn select(em: &mut Emitter, at: &At) -> Result<Value> {
    let (c, idx, lanes, shape) = (at.c, at.idx, at.lanes, &at.shape);
    let ops = &at.instr.operands;
    let ps = at.operand_shape(em, 0)?;
    let pi: Vec<Value> = if ps.rank() == 0 { vec![] } else { idx.to_vec() };
    // A scalar predicate of an array select is the same for
    // every lane; inside an inlined computation (everything
    // rank 0) it moves with the lanes like the other operands.
    let psym = match lanes {
        Some(_) if ps.rank() == 0 && shape.rank() != 0 => None,
        Some(s) => Some(s.clone()),
        None => None,
    };
    let p = em.emit(c, ops[0], &pi, psym.as_ref())?;
    if lanes.is_none()
        && let Some(k) = em.known_int(p)
    {
        // A predicate known at compile time (`ranges` folds compares).
        return em.emit(c, ops[if k != 0 { 1 } else { 2 }], idx, None);
    }
    let t = em.emit(c, ops[1], idx, lanes)?;
    let f = em.emit(c, ops[2], idx, lanes)?;
    if lanes.is_some() && psym.is_some() {
        Ok(vector::select_mask(em, p, t, f))
    } else {
        Ok(em.b.ins().select(p, t, f))
    }
}

/// `clamp(lo, x, hi)` as `min(max(x, lo), hi)`.
pub fn clamp(em: &mut Emitter, at: &At) -> Result<Value> {
    let (c, idx, lanes, et) = (at.c, at.idx, at.lanes, at.et());
    let lo = operand_at(em, at, 0)?;
    let x = em.emit(c, at.instr.operands[1], idx, lanes)?;
    let hi = operand_at(em, at, 2)?;
    let m = em.binary(BinaryOp::Maximum, et, x, lo, lanes.is_some())?;
    em.binary(BinaryOp::Minimum, et, m, hi, lanes.is_some())
}

/// `compare` (a pred result: `i8`, or an I32X4 lane mask).
pub fn compare(
    em: &mut Emitter,
    at: &At,
    direction: ComparisonDirection,
    kind: Option<ComparisonType>,
) -> Result<Value> {
    let lanes = at.lanes;
    let ot = at.operand_shape(em, 0)?.element_type;
    if let Some(sym) = lanes
        && !matches!(ot, ElementType::F32 | ElementType::F16 | ElementType::BF16)
    {
        // Inside an inlined reducer body the operands are bound lane
        // values, not addressable per lane: the compare must be one vector
        // compare (pred lane masks and s32/u32 lanes are I32X4).
        let in_body = em.bound.keys().any(|&(c, _)| c == at.c);
        let lane_type = ivector::is_int_lane(ot) || ot == ElementType::Pred;
        if lane_type && (in_body || straight_line(em, at)) {
            // s32/u32 operands in integer lanes (a one-hot's
            // `iota == broadcast(label)`) or pred lane masks: one vector
            // compare; an operand the lanes cannot hold falls back to the
            // per-lane compare (no control flow was emitted on the way:
            // `straight_line`).
            match int_lane_compare(em, at, ot, direction) {
                Err(JitError::Unsupported(_)) if !in_body => {}
                r => return r,
            }
        }
        return per_lane_compare(em, at, sym, direction, kind);
    }
    let a = operand_at(em, at, 0)?;
    let b = operand_at(em, at, 1)?;
    if lanes.is_some() && kind == Some(ComparisonType::TotalOrder) {
        Ok(vector_total_order(em, direction, a, b))
    } else if lanes.is_some() {
        vector::compare(em, direction, kind, a, b)
    } else {
        scalar::compare(em, direction, kind, ot, a, b)
    }
}

/// An s32/u32 (or pred mask) compare in integer lanes: an I32X4 lane mask (all ones
/// where true), signed or unsigned by the element type, exactly the
/// scalar compare of each lane. `Unsupported` when an operand is not
/// held in integer lanes.
fn int_lane_compare(
    em: &mut Emitter,
    at: &At,
    ot: ElementType,
    direction: ComparisonDirection,
) -> Result<Value> {
    let a = operand_at(em, at, 0)?;
    let b = operand_at(em, at, 1)?;
    let ty = |em: &Emitter, v: Value| em.b.func.dfg.value_type(v);
    if ty(em, a) != I32X4 || ty(em, b) != I32X4 {
        return Err(JitError::unsupported(
            "compare operands not in integer lanes",
        ));
    }
    // Pred lane masks are all ones (true) or zero: unsigned order is
    // false < true, as on the 0/1 bytes. Narrow lanes are extended by
    // their signedness, so the 32-bit order is theirs.
    let signed = ot.is_signed_int();
    let cc = scalar::int_cc(direction, signed);
    Ok(em.b.ins().icmp(cc, a, b))
}

/// Whether the compare's operands are straight-line lane code
/// ([`Emitter::straight_line`]).
fn straight_line(em: &Emitter, at: &At) -> bool {
    em.straight_line(at.c, at.instr.operands.clone())
}

/// A compare of non-f32 operands in a vector kernel (a causal mask's
/// `iota >= iota`, an integer index test): each lane's scalar compare at
/// its own index, packed into an I32X4 lane mask (all ones where true),
/// so the kernel around it stays vectorized.
fn per_lane_compare(
    em: &mut Emitter,
    at: &At,
    sym: &super::emit::Sym,
    direction: ComparisonDirection,
    kind: Option<ComparisonType>,
) -> Result<Value> {
    use cranelift_codegen::ir::types::{I32, I32X4};
    let unit = sym.dims(at.idx.len())?;
    let mut mask: Option<Value> = None;
    for k in 0..4i64 {
        let idx = at.lane_index(em, &unit, k);
        let p = compare(em, &at.scalar_at(&idx), direction, kind)?;
        let p = em.b.ins().uextend(I32, p);
        let m = em.b.ins().ineg(p);
        mask = Some(match mask {
            None => em.b.ins().splat(I32X4, m),
            Some(v) => em.b.ins().insertlane(v, m, k as u8),
        });
    }
    mask.ok_or_else(|| JitError::codegen("no lanes"))
}

/// `convert` and `bitcast-convert` (a width-changing one reads the
/// operand at its own index: `bitcast::width_changing`).
pub fn convert(em: &mut Emitter, at: &At) -> Result<Value> {
    let (c, idx, lanes, shape, et) = (at.c, at.idx, at.lanes, &at.shape, at.et());
    let ops = &at.instr.operands;
    let from = at.operand_shape(em, 0)?.element_type;
    // A width-changing bitcast-convert also changes the rank:
    // the operand cannot be indexed with this op's index.
    if matches!(at.instr.op, Op::BitcastConvert) && from.bit_width() != et.bit_width() {
        if lanes.is_some() {
            return Err(JitError::unsupported(
                "vector width-changing bitcast-convert",
            ));
        }
        return bitcast::width_changing(em, c, ops[0], shape, idx);
    }
    if lanes.is_some()
        && matches!(at.instr.op, Op::Convert)
        && ivector::is_int_lane(et)
        && from.is_integer()
        && from.bit_width() >= 32
        && let Op::Iota { dimension } = em.module.comp(c).get(ops[0]).op
    {
        // An integer iota of 32 bits or more converted to s32/u32 (jax's
        // PRNG counters: `convert(iota(u64))`): the index modulo 2^32 both
        // ways, i.e. the iota made in the 32-bit type itself.
        return super::movement::iota(em, at, dimension);
    }
    let x = em.emit(c, ops[0], idx, lanes)?;
    if lanes.is_some() {
        return if from == et {
            Ok(x)
        } else if matches!(at.instr.op, Op::BitcastConvert) {
            ivector::bitcast(em, from, et, x)
        } else if ivector::is_int_lane(from) || ivector::is_int_lane(et) {
            ivector::convert(em, from, et, x)
        } else if matches!(
            (from, et),
            (ElementType::F32, ElementType::Pred) | (ElementType::Pred, ElementType::F32)
        ) {
            vector::convert(em, from, et, x)
        } else {
            vector_convert(em, at, x, from, et)
        };
    }
    if matches!(at.instr.op, Op::Convert) {
        scalar::convert(em, x, from, et)
    } else {
        bitcast::same_width(em, x, from, et)
    }
}

/// `convert` between f32 and the halves on F32X4 lanes (halves held as
/// f32, as `scalar::convert`: a half source quieted by `x + (-0)`, an f32
/// rounded once to a half result); a bitcast-convert only to its own type.
fn vector_convert(
    em: &mut Emitter,
    at: &At,
    x: Value,
    from: ElementType,
    to: ElementType,
) -> Result<Value> {
    use cranelift_codegen::ir::types::F32X4;
    let float =
        |t: ElementType| matches!(t, ElementType::F32 | ElementType::F16 | ElementType::BF16);
    if from == to {
        return Ok(x);
    }
    if !matches!(at.instr.op, Op::Convert) || !float(from) || !float(to) {
        return Err(JitError::unsupported("vector convert"));
    }
    let x = if from == ElementType::F32 {
        x
    } else {
        let nz = em.b.ins().f32const(-0.0);
        let nz = em.b.ins().splat(F32X4, nz);
        em.b.ins().fadd(x, nz)
    };
    if to == ElementType::F32 {
        Ok(x)
    } else {
        super::repr::vround_half(em, x, to)
    }
}

/// A unary op.
pub fn unary(em: &mut Emitter, at: &At, u: UnaryOp) -> Result<Value> {
    let from = at.operand_shape(em, 0)?.element_type;
    let x = em.emit(at.c, at.instr.operands[0], at.idx, at.lanes)?;
    if at.lanes.is_some() && ivector::is_int_lane(from) {
        ivector::unary(em, u, from, x)
    } else if at.lanes.is_some() {
        vector::unary(em, u, x)
    } else {
        scalar::unary(em, u, from, x)
    }
}

/// A binary op.
pub fn binary(em: &mut Emitter, at: &At, op: BinaryOp) -> Result<Value> {
    let a = operand_at(em, at, 0)?;
    let b = operand_at(em, at, 1)?;
    em.binary(op, at.et(), a, b, at.lanes.is_some())
}

/// `map`: the mapped (scalar) computation inlined on the operands'
/// elements.
pub fn map(em: &mut Emitter, at: &At, to_apply: CompId) -> Result<Value> {
    let cc = em.module.comp(to_apply);
    if cc.instructions.iter().any(|i| {
        i.shape
            .as_array()
            .map_or(true, |a| a.rank() != 0 || a.element_type.is_token())
    }) {
        return Err(JitError::unsupported("map of a non-scalar computation"));
    }
    // In lanes only f32 bodies (compares to pred included): an integer
    // body's constants would stay scalar.
    if at.lanes.is_some()
        && cc.instructions.iter().any(|i| {
            let t = i.shape.element_type();
            !(t == Some(ElementType::F32)
                || t == Some(ElementType::Pred) && matches!(i.op, Op::Compare { .. }))
        })
    {
        return Err(JitError::unsupported("vector map of a non-f32 computation"));
    }
    let mut args = Vec::with_capacity(at.instr.operands.len());
    for &o in &at.instr.operands {
        args.push(em.emit(at.c, o, at.idx, at.lanes)?);
    }
    em.inline(to_apply, &args, at.lanes.is_some())
}

/// `reduce-precision` of the operand (`reduce_precision::emit`).
pub fn reduce_precision(
    em: &mut Emitter,
    at: &At,
    exponent_bits: i64,
    mantissa_bits: i64,
) -> Result<Value> {
    let x = em.emit(at.c, at.instr.operands[0], at.idx, at.lanes)?;
    reduce_precision::emit(em, x, at.et(), exponent_bits, mantissa_bits)
}

/// Total-order compare of F32X4 lanes: each lane's bits as a signed
/// integer, the magnitude bits flipped for negative values (so
/// -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN), then an integer
/// compare; an I32X4 mask like the other vector compares.
fn vector_total_order(em: &mut Emitter, dir: ComparisonDirection, a: Value, b: Value) -> Value {
    let key = |em: &mut Emitter, x: Value| {
        let i = em.b.ins().bitcast(I32X4, le(), x);
        let s = em.b.ins().sshr_imm_s(i, 31);
        let m = em.b.ins().ushr_imm_s(s, 1);
        em.b.ins().bxor(i, m)
    };
    let (ka, kb) = (key(em, a), key(em, b));
    em.b.ins().icmp(scalar::int_cc(dir, true), ka, kb)
}
