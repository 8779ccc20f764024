//! `reduce` (one operand) at one output element: the reduced dims walked
//! in inner loops through the inlined reducer, in the layout's order for
//! an associative reducer and else in the evaluator's. A float
//! add/multiply/max/min along the contiguous dim runs as four F32X4
//! accumulators (with a streaming wide routine for long input rows, and
//! exp/tanh operands in wide blocks, `blocks`); any result where the
//! reassociation could differ from the evaluator beyond rounding (inf,
//! NaN, a max/min of zero) is redone in the evaluator's order. Must not
//! change a result beyond the rounding the evaluator's contract allows,
//! nor depend on another lowering family.

use super::blocks;
use super::emit::{At, Emitter, Sym, le};
use super::repr;
use super::vector;
use crate::error::{JitError, Result};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::types::{F32, F32X4, I32, I32X4, I64};
use cranelift_codegen::ir::{InstBuilder, StackSlotData, StackSlotKind, Type, Value};
use cranelift_frontend::Variable;
use rxla_ir::{ArrayShape, BinaryOp, CompId, ElementType, InstrId, Op};

/// A reduction combiner the vectorized reduce loops know how to reassociate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Combiner {
    Add,
    Mul,
    Max,
    Min,
}

/// Shortest row a sum streams through the wide routine (`rxla_block_sum`).
const STREAM_SUM_MIN: i64 = 256;

/// Elements per block of a reduction whose exp/tanh run in a wide routine
/// (a multiple of 16: see `reduce_vec_loops`; 2 KiB of scratch each).
const REDUCE_BLOCK: i64 = 512;

/// One output element's reduction: `operand` of computation `c` (shape
/// `os`) read at `base_idx` with the reduced dims set by the loops,
/// folded through `reducer` starting from `init_v`.
struct Row<'r> {
    c: CompId,
    operand: InstrId,
    os: &'r ArrayShape,
    base_idx: &'r [Value],
    reducer: CompId,
    init_v: Value,
}

/// `reduce` of `at` over `dims` with `reducer` (operands: the array and
/// the init value).
pub fn reduce(em: &mut Emitter, at: &At, dims: &[i64], reducer: CompId) -> Result<Value> {
    let (c, out, idx, lanes) = (at.c, &at.shape, at.idx, at.lanes);
    let (operand, init) = (at.instr.operands[0], at.instr.operands[1]);
    let os = em.array_shape(c, operand)?;
    let reduced: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
    // Operand index: kept dims from the output, reduced dims from loops.
    let zero = em.iconst(0);
    let mut base_idx = vec![zero; os.rank()];
    let mut k = 0;
    let mut op_coefs = vec![0i64; os.rank()];
    let out_coefs = match lanes {
        Some(s) => Some(s.dims(out.rank())?),
        None => None,
    };
    for d in 0..os.rank() {
        if !reduced.contains(&d) {
            base_idx[d] = idx[k];
            if let Some(cs) = &out_coefs {
                op_coefs[d] = cs[k];
            }
            k += 1;
        }
    }
    // Reduced dims in physical major-to-minor order; for a reducer
    // that is not a known associative op (power, subtract, ...) in the
    // evaluator's order instead (logical row-major), since the result
    // depends on it.
    let order: Vec<usize> = if associative(em, reducer) {
        os.layout
            .minor_to_major
            .iter()
            .rev()
            .map(|&d| d as usize)
            .filter(|d| reduced.contains(d))
            .collect()
    } else {
        let mut r = reduced.clone();
        r.sort_unstable();
        r
    };
    let mut logical = reduced.clone();
    logical.sort_unstable();
    let init_v = em.emit(c, init, &[], None)?;
    if os.dims.contains(&0) || order.is_empty() && os.dims.iter().product::<i64>() == 0 {
        return match lanes {
            Some(_) => vector::splat(em, init_v, out.element_type),
            None => Ok(init_v),
        };
    }
    let row = Row {
        c,
        operand,
        os: &os,
        base_idx: &base_idx,
        reducer,
        init_v,
    };
    let minor = order.last().copied();
    let vec_inner = lanes.is_none()
        && em.vec_reduce
        && minor.is_some_and(|m| m == os.layout.minor_to_major[0] as usize && os.dims[m] >= 8)
        && combiner(em, reducer).is_some()
        && !reads_row_reduction(em, c, operand);
    if vec_inner {
        let comb = combiner(em, reducer).unwrap_or(Combiner::Add);
        if !matches!(comb, Combiner::Max | Combiner::Min) {
            // Add/multiply: the accumulators start at the identity and
            // the init joins last, so where the evaluator (init first)
            // stays finite a reordered partial result may not: `0·x…`
            // is ±0 there, but a partial product that overflowed to
            // inf makes `0·inf` = NaN here; and with several NaNs the
            // payload depends on the order. A non-finite result is
            // therefore redone by the sequential loop (the evaluator's
            // order, bit for bit); a finite one is a legitimate
            // reassociation (rounding only).
            let (fast, _) = reduce_vec_loops(em, &row, &order, comb, false)?;
            return redo_if_non_finite(em, fast, |em| reduce_seq(em, &row, &logical, None));
        }
        // Max/min: a fast loop (one maxps/minps per vector, NaNs only
        // flagged); a row with a NaN or a zero result (where the NaN
        // payload order or ±0 matter) is redone by the sequential loop
        // below, bit for bit the evaluator's.
        let (fast, nan) = reduce_vec_loops(em, &row, &order, comb, true)?;
        let zero = em.b.ins().f32const(0.0);
        let z = em.b.ins().fcmp(FloatCC::Equal, fast, zero);
        let flag = match nan {
            Some(n) => em.b.ins().bor(z, n),
            None => z,
        };
        let [r] = em.rare_branch(flag, [fast], |em| {
            Ok::<_, JitError>([reduce_seq(em, &row, &order, None)?])
        })?;
        return Ok(r);
    }
    let sym = out_coefs.map(|_| Sym::Dims(op_coefs));
    let r = reduce_seq(em, &row, &order, sym.clone())?;
    if order == logical || !os.element_type.is_float() {
        return Ok(r);
    }
    // A float add/multiply walked in the layout's order: the result is
    // the evaluator's but for rounding, or for NaN payloads and
    // overflow when it is not finite; then it is redone in the
    // evaluator's (logical) order.
    redo_if_non_finite(em, r, |em| reduce_seq(em, &row, &logical, sym))
}

/// Whether `operand` (in computation `c`, up to the kernel's inputs)
/// reads through a reduce along its operand's contiguous dim (a nested
/// `reduce(reduce(x, minor), ...)`, as in a mean of per-row sums).
/// Lanes across the outer reduce would make each lane a row of the inner
/// one, read with a row's stride (which kernels that read through
/// reductions do not allow, so the whole kernel fell back to scalar
/// code); the outer reduce is then walked one element at a time and the
/// inner one vectorizes along its own contiguous dim instead.
fn reads_row_reduction(em: &Emitter, c: CompId, operand: InstrId) -> bool {
    let comp = em.module.comp(c);
    let mut stack = vec![operand];
    let mut seen = std::collections::HashSet::new();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) || em.inputs.contains_key(&(c, id)) {
            continue;
        }
        let i = comp.get(id);
        if let Op::Reduce { dimensions, .. } = &i.op {
            let minor = i
                .operands
                .first()
                .and_then(|&o| em.array_shape(c, o).ok())
                .and_then(|s| s.layout.minor_to_major.first().copied());
            if minor.is_some_and(|m| dimensions.contains(&m)) {
                return true;
            }
        }
        stack.extend(i.operands.iter().copied());
    }
    false
}

/// A combiner the vectorized reduction may reassociate: the reducer's
/// root is add/multiply/maximum/minimum of its two f32 parameters.
fn combiner(em: &Emitter, comp: CompId) -> Option<Combiner> {
    let cc = em.module.comp(comp);
    let root = cc.root_instruction();
    let ps = cc.parameters();
    if ps.len() != 2 || root.shape.element_type() != Some(ElementType::F32) {
        return None;
    }
    let mut ops = root.operands.clone();
    ops.sort();
    if ops != ps {
        return None;
    }
    match root.op {
        Op::Binary(BinaryOp::Add) => Some(Combiner::Add),
        Op::Binary(BinaryOp::Multiply) => Some(Combiner::Mul),
        Op::Binary(BinaryOp::Maximum) => Some(Combiner::Max),
        Op::Binary(BinaryOp::Minimum) => Some(Combiner::Min),
        _ => None,
    }
}

/// Whether `comp` is `op(p0, p1)` for an op whose reduction does not
/// depend on the order of the elements, but for float rounding (which
/// the evaluator's contract allows to differ): the commutative ones
/// (add, multiply, max, min, and, or, xor) are all associative too,
/// except float max/min, which return the first NaN they meet (its
/// payload depends on the order).
fn associative(em: &Emitter, comp: CompId) -> bool {
    let cc = em.module.comp(comp);
    let root = cc.root_instruction();
    let mut ops = root.operands.clone();
    ops.sort();
    let float = root.shape.element_type().is_some_and(|t| t.is_float());
    ops == cc.parameters()
        && matches!(root.op, Op::Binary(b) if b.is_commutative()
            && !(float && matches!(b, BinaryOp::Maximum | BinaryOp::Minimum)))
}

/// `r`, or `redo(em)` when `r` (a float scalar, or any lane of an
/// F32X4) is inf or NaN: a reassociated reduction's rare path back
/// to the evaluator's order.
fn redo_if_non_finite(
    em: &mut Emitter,
    r: Value,
    redo: impl FnOnce(&mut Emitter) -> Result<Value>,
) -> Result<Value> {
    let ty = em.b.func.dfg.value_type(r);
    let inf = match ty {
        F32X4 => em.vconst(f32::INFINITY),
        cranelift_codegen::ir::types::F64 => em.b.ins().f64const(f64::INFINITY),
        _ => em.b.ins().f32const(f32::INFINITY),
    };
    let mag = em.b.ins().fabs(r);
    let odd =
        em.b.ins()
            .fcmp(FloatCC::UnorderedOrGreaterThanOrEqual, mag, inf);
    let odd = if ty.is_vector() {
        em.b.ins().vany_true(odd)
    } else {
        odd
    };
    let [r] = em.rare_branch(odd, [r], |em| Ok::<_, JitError>([redo(em)?]))?;
    Ok(r)
}

/// The reduction in the evaluator's order: one accumulator (F32X4
/// across output lanes with `sym`, else scalar) through the inlined
/// reducer.
fn reduce_seq(em: &mut Emitter, row: &Row, order: &[usize], sym: Option<Sym>) -> Result<Value> {
    let Row {
        c,
        operand,
        os,
        base_idx,
        reducer,
        init_v,
    } = *row;
    let out_type = em
        .module
        .comp(c)
        .get(operand)
        .shape
        .as_array()
        .map(|a| a.element_type);
    let et = out_type.map_err(|_| JitError::unsupported("tuple reduce operand"))?;
    let vector = sym.is_some();
    let start = if vector {
        vector::splat(em, init_v, et)?
    } else {
        init_v
    };
    // The accumulator has the lanes' own type (F32X4, or the integer and
    // predicate lane types); a reducer whose result differs is refused
    // (the kernel is then built another way), never defined mismatched.
    let ty = em.b.func.dfg.value_type(start);
    if !vector && ty != repr::storage(et)? {
        return Err(JitError::unsupported("reduce init type"));
    }
    let acc = em.b.declare_var(ty);
    em.b.def_var(acc, start);
    let extents: Vec<i64> = order.iter().map(|&d| os.dims[d]).collect();
    em.nest(&extents, &mut Vec::new(), &mut |em, vars| {
        let mut oi = base_idx.to_vec();
        for (&d, &v) in order.iter().zip(vars) {
            oi[d] = v;
        }
        let v = em.emit(c, operand, &oi, sym.as_ref())?;
        let a = em.b.use_var(acc);
        if em.b.func.dfg.value_type(v) != ty {
            return Err(JitError::unsupported("reduce operand lanes"));
        }
        let r = em.inline(reducer, &[a, v], vector)?;
        if em.b.func.dfg.value_type(r) != ty {
            return Err(JitError::unsupported("reduce result lanes"));
        }
        em.b.def_var(acc, r);
        Ok(())
    })?;
    Ok(em.b.use_var(acc))
}

/// A reduction along the contiguous dimension: four F32X4
/// accumulators, then the lanes, the init value and a scalar tail.
/// With `fast` (max/min only) the vector accumulators use the bare x86 min/max (a NaN
/// element is skipped) and the second result is an `i8` flag: some
/// vector element was NaN.
fn reduce_vec_loops(
    em: &mut Emitter,
    row: &Row,
    order: &[usize],
    comb: Combiner,
    fast: bool,
) -> Result<(Value, Option<Value>)> {
    let Row {
        c,
        operand,
        os,
        base_idx,
        init_v,
        ..
    } = *row;
    let (m, outer) = order
        .split_last()
        .ok_or_else(|| JitError::codegen("empty reduce order"))?;
    let m = *m;
    let n = os.dims[m];
    let ident = match comb {
        Combiner::Add => -0.0f32,
        Combiner::Mul => 1.0,
        Combiner::Max => f32::NEG_INFINITY,
        Combiner::Min => f32::INFINITY,
    };
    let op = match comb {
        Combiner::Add => BinaryOp::Add,
        Combiner::Mul => BinaryOp::Multiply,
        Combiner::Max => BinaryOp::Maximum,
        Combiner::Min => BinaryOp::Minimum,
    };
    let max = comb == Combiner::Max;
    // acc ⊕ v on vectors: exact, or `v > acc ? v : acc` (`v < acc` for
    // min), the operand order x64 lowers to one maxps/minps, NaN v
    // keeping acc; the NaN is recorded in `nan`.
    let nan = fast.then(|| {
        let v = em.b.declare_var(I32X4);
        let z = em.b.ins().iconst(I32, 0);
        let z = em.b.ins().splat(I32X4, z);
        em.b.def_var(v, z);
        v
    });
    let vop = |em: &mut Emitter, a: Value, v: Value| -> Result<Value> {
        let Some(nan) = nan else {
            return em.binary(op, ElementType::F32, a, v, true);
        };
        let wins = if max {
            em.b.ins().fcmp(FloatCC::LessThan, a, v)
        } else {
            em.b.ins().fcmp(FloatCC::LessThan, v, a)
        };
        let wins = em.b.ins().bitcast(F32X4, le(), wins);
        let r = em.b.ins().bitselect(wins, v, a);
        let un = em.b.ins().fcmp(FloatCC::Unordered, v, v);
        let acc = em.b.use_var(nan);
        let acc = em.b.ins().bor(acc, un);
        em.b.def_var(nan, acc);
        Ok(r)
    };
    let ids = em.b.ins().f32const(ident);
    let idv = em.b.ins().splat(F32X4, ids);
    let accs: Vec<Variable> = (0..4)
        .map(|_| {
            let v = em.b.declare_var(F32X4);
            em.b.def_var(v, idv);
            v
        })
        .collect();
    let sacc = em.b.declare_var(F32);
    em.b.def_var(sacc, ids);
    let mut unit = vec![0i64; os.rank()];
    unit[m] = 1;
    let sym = Sym::Dims(unit);
    let extents: Vec<i64> = outer.iter().map(|&d| os.dims[d]).collect();
    // Elements `lo..hi` of the reduced dim (`lo` a multiple of 16): the
    // whole vectors of 16 into the four accumulators, then vectors of
    // 4 into the first, then scalars. The element → accumulator
    // assignment depends only on the element's index, so splitting
    // `0..n` into ranges at multiples of 16 sums in the same order.
    let range = |em: &mut Emitter, oi: &[Value], lo: Value, hi: Value| -> Result<()> {
        let len = em.b.ins().isub(hi, lo);
        let len16 = em.b.ins().band_imm_s(len, !15);
        let len4 = em.b.ins().band_imm_s(len, !3);
        let hi16 = em.b.ins().iadd(lo, len16);
        let hi4 = em.b.ins().iadd(lo, len4);
        em.for_range(lo, hi16, 16, |em, j| {
            for (k, &acc) in accs.iter().enumerate() {
                let mut oi2 = oi.to_vec();
                oi2[m] = em.b.ins().iadd_imm_s(j, 4 * k as i64);
                let v = em.emit(c, operand, &oi2, Some(&sym))?;
                let a = em.b.use_var(acc);
                let r = vop(em, a, v)?;
                em.b.def_var(acc, r);
            }
            Ok(())
        })?;
        em.for_range(hi16, hi4, 4, |em, j| {
            let mut oi2 = oi.to_vec();
            oi2[m] = j;
            let v = em.emit(c, operand, &oi2, Some(&sym))?;
            let a = em.b.use_var(accs[0]);
            let r = vop(em, a, v)?;
            em.b.def_var(accs[0], r);
            Ok(())
        })?;
        em.for_range(hi4, hi, 1, |em, j| {
            let mut oi2 = oi.to_vec();
            oi2[m] = j;
            let v = em.emit(c, operand, &oi2, None)?;
            let a = em.b.use_var(sacc);
            let r = em.binary(op, ElementType::F32, a, v, false)?;
            em.b.def_var(sacc, r);
            Ok(())
        })
    };
    let wide = if em.wide_reduce {
        let inputs = &em.inputs;
        let bound = &em.bound;
        let is_input = |id: InstrId| inputs.contains_key(&(c, id)) || bound.contains_key(&(c, id));
        blocks::wide_nodes(em.module.comp(c), operand, &os.dims, m, &is_input, true)
    } else {
        Vec::new()
    };
    // A sum of an input's rows streaming from memory: the whole vectors
    // of 16 through the wide routine (512-bit loads, a prefetch ahead;
    // the same lanes and order as the loop below), the rest as usual.
    let streamed = (em.wide_reduce
        && wide.is_empty()
        && (comb == Combiner::Add && nan.is_none()
            || matches!(comb, Combiner::Max | Combiner::Min) && nan.is_some())
        && n >= STREAM_SUM_MIN)
        .then(|| em.inputs.get(&(c, operand)).cloned())
        .flatten()
        .filter(|(_, shape)| {
            shape.element_type == ElementType::F32
                && !shape.layout.is_padded()
                && shape.layout.minor_to_major.first() == Some(&(m as i64))
                && shape.dims == os.dims
        });
    if let Some((base, shape)) = streamed {
        let keep =
            em.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 80, 6));
        let n16 = n / 16 * 16;
        em.nest(&extents, &mut Vec::new(), &mut |em, vars| {
            let mut oi = base_idx.to_vec();
            for (&d, &v) in outer.iter().zip(vars) {
                oi[d] = v;
            }
            let mut oi0 = oi.clone();
            oi0[m] = em.iconst(0);
            let row = em.address(base, &shape, &oi0)?;
            for (k, &v) in accs.iter().enumerate() {
                let x = em.b.use_var(v);
                em.b.ins().stack_store(I64, x, keep, 16 * k as i32);
            }
            let at = em.b.ins().stack_addr(I64, keep, 0);
            let len = em.iconst(n16);
            match nan {
                None => {
                    em.call("rxla_block_sum", &[row, len, at])?;
                }
                Some(nv) => {
                    // Max/min: the NaN lanes go through memory too.
                    let x = em.b.use_var(nv);
                    em.b.ins().stack_store(I64, x, keep, 64);
                    let np = em.b.ins().stack_addr(I64, keep, 64);
                    let is_max = em.iconst(i64::from(comb == Combiner::Max));
                    em.call("rxla_block_maxmin", &[row, len, at, np, is_max])?;
                    let x = em.b.ins().stack_load(I64, I32X4, keep, 64);
                    em.b.def_var(nv, x);
                }
            }
            for (k, &v) in accs.iter().enumerate() {
                let x = em.b.ins().stack_load(I64, F32X4, keep, 16 * k as i32);
                em.b.def_var(v, x);
            }
            let (lo, hi) = (em.iconst(n16), em.iconst(n));
            range(em, &oi, lo, hi)
        })?;
    } else if wide.is_empty() || n < 16 {
        em.nest(&extents, &mut Vec::new(), &mut |em, vars| {
            let mut oi = base_idx.to_vec();
            for (&d, &v) in outer.iter().zip(vars) {
                oi[d] = v;
            }
            let (lo, hi) = (em.iconst(0), em.iconst(n));
            let mut oi0 = oi.clone();
            oi0[m] = lo;
            em.hoist(c, operand, &oi0, &sym);
            range(em, &oi, lo, hi)
        })?;
    } else {
        // The wide nodes under the reduction a block at a time
        // (`blocks`; bit-identical to the inline code), then the
        // block's accumulation reading their results from there.
        let slots = blocks::BlockSlots::new(em, &wide, false, REDUCE_BLOCK);
        // The accumulators go to memory around the fill loops and the
        // calls (which clobber every vector register): left live
        // across them, the register allocator kept them on the stack
        // in the accumulation loop too, a load and a store per add.
        let vars: Vec<(Variable, Type)> = accs
            .iter()
            .map(|&v| (v, F32X4))
            .chain([(sacc, F32)])
            .chain(nan.map(|v| (v, I32X4)))
            .collect();
        let keep = em.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            16 * vars.len() as u32,
            4,
        ));
        em.nest(&extents, &mut Vec::new(), &mut |em, outer_vars| {
            let mut oi = base_idx.to_vec();
            for (&d, &v) in outer.iter().zip(outer_vars) {
                oi[d] = v;
            }
            let (lo, hi) = (em.iconst(0), em.iconst(n));
            em.for_range(lo, hi, REDUCE_BLOCK, |em, j0| {
                for (k, &(v, _)) in vars.iter().enumerate() {
                    let x = em.b.use_var(v);
                    em.b.ins().stack_store(I64, x, keep, 16 * k as i32);
                }
                let end = em.b.ins().iadd_imm_s(j0, REDUCE_BLOCK);
                let j1 = em.b.ins().smin(end, hi);
                let mut oi0 = oi.clone();
                let block = blocks::BlockRow {
                    comp: c,
                    dims: &os.dims,
                    d: m,
                    j0,
                    j1,
                    rows: None,
                };
                blocks::run_blocks(em, &block, &wide, &slots, &mut oi0, None, &[])?;
                for (k, &(v, ty)) in vars.iter().enumerate() {
                    let x = em.b.ins().stack_load(I64, ty, keep, 16 * k as i32);
                    em.b.def_var(v, x);
                }
                let mut oi0 = oi.clone();
                oi0[m] = j0;
                em.hoist(c, operand, &oi0, &sym);
                let r = range(em, &oi, j0, j1);
                for w in &wide {
                    em.blocked.remove(&(c, w.id));
                }
                r
            })
        })?;
    }
    let a: Vec<Value> = accs.iter().map(|&v| em.b.use_var(v)).collect();
    let a01 = em.binary(op, ElementType::F32, a[0], a[1], true)?;
    let a23 = em.binary(op, ElementType::F32, a[2], a[3], true)?;
    let all = em.binary(op, ElementType::F32, a01, a23, true)?;
    let l: Vec<Value> = (0..4u8).map(|k| em.b.ins().extractlane(all, k)).collect();
    let h01 = em.binary(op, ElementType::F32, l[0], l[1], false)?;
    let h23 = em.binary(op, ElementType::F32, l[2], l[3], false)?;
    let h = em.binary(op, ElementType::F32, h01, h23, false)?;
    let r = em.binary(op, ElementType::F32, init_v, h, false)?;
    let s = em.b.use_var(sacc);
    let any_nan = nan.map(|v| {
        let v = em.b.use_var(v);
        em.b.ins().vany_true(v)
    });
    Ok((em.binary(op, ElementType::F32, r, s, false)?, any_nan))
}
