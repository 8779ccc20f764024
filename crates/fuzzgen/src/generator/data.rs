//! Generators of data-movement ops: parameter, constant, iota, broadcast,
//! reshape, transpose, bitcast, copy, convert, bitcast-convert, slice,
//! dynamic-slice, dynamic-update-slice, concatenate, pad, reverse, gather,
//! scatter, tuple, get-tuple-element, opt-barrier, after-all. Each computes
//! its result shape by construction; none may emit an invalid instruction.

use super::{Cb, Gen, scalar};
use crate::values::Choices;
use rxla_ir::{
    ArrayShape, ElementType, GatherDims, InstrId, Layout, Op, PadDim, ScatterDims, Shape,
};

pub(super) fn by_name(g: &mut Gen, cb: &mut Cb, name: &str) -> bool {
    match name {
        "parameter" => {
            if !cb.allow_params {
                return false;
            }
            let ty = g.ty_any();
            let r = g.rank();
            let s = g.array_shape(ty, r);
            let number = cb.nparams;
            cb.nparams += 1;
            g.emit(cb, Op::Parameter { number }, vec![], Shape::Array(s));
        }
        "constant" => {
            let shape = if g.chance(1, 10) {
                let n = g.range(0, 2);
                let elems = (0..n)
                    .map(|_| {
                        let t = g.ty_any();
                        let r = g.range(0, 2) as usize;
                        Shape::Array(g.array_shape(t, r))
                    })
                    .collect();
                Shape::Tuple(elems)
            } else {
                let ty = g.ty_any();
                let r = g.rank();
                Shape::Array(g.array_shape(ty, r))
            };
            g.constant(cb, &shape);
        }
        "iota" => {
            let ty = g.ty_numeric();
            let r = g.range(1, 4) as usize;
            let s = g.array_shape(ty, r);
            let dimension = g.range(0, r as i64 - 1);
            g.emit(cb, Op::Iota { dimension }, vec![], Shape::Array(s));
        }
        "broadcast" => broadcast(g, cb),
        "reshape" => {
            let x = g.any_array(cb, 0);
            let a = cb
                .array(x)
                .cloned()
                .unwrap_or_else(|| scalar(ElementType::F32));
            let n = a.element_count().unwrap_or(0) as i64;
            let dims = reshape_dims(g, n);
            emit_array(g, cb, Op::Reshape, vec![x], a.element_type, dims);
        }
        "transpose" => {
            let x = g.any_array(cb, 0);
            let a = cb
                .array(x)
                .cloned()
                .unwrap_or_else(|| scalar(ElementType::F32));
            let permutation = g.permutation(a.rank());
            let dims = permutation.iter().map(|&p| a.dims[p as usize]).collect();
            emit_array(
                g,
                cb,
                Op::Transpose { permutation },
                vec![x],
                a.element_type,
                dims,
            );
        }
        "bitcast" => {
            let x = g.any_array(cb, 0);
            let a = cb
                .array(x)
                .cloned()
                .unwrap_or_else(|| scalar(ElementType::F32));
            let n = a.physical_element_count().unwrap_or(0) as i64;
            let dims = reshape_dims(g, n);
            let layout = Layout::from_minor_to_major(g.permutation(dims.len()));
            let shape =
                ArrayShape::with_layout(a.element_type, dims, layout).unwrap_or_else(|_| a.clone());
            // Bitcast results keep their chosen layout (emit may not override
            // it: bitcast semantics depend on it), so push directly.
            let name = g.name("bitcast");
            cb.comp.push(rxla_ir::Instruction::new(
                name,
                Op::Bitcast,
                vec![x],
                Shape::Array(shape),
            ));
        }
        "copy" => {
            let x = g.any_value(cb);
            let s = cb.shape(x).clone();
            g.emit(cb, Op::Copy, vec![x], s.with_default_layouts());
        }
        "convert" => {
            let x = g.any_array(cb, 0);
            let a = cb
                .array(x)
                .cloned()
                .unwrap_or_else(|| scalar(ElementType::F32));
            let ty = g.ty_any();
            emit_array(g, cb, Op::Convert, vec![x], ty, a.dims.clone());
        }
        "bitcast-convert" => bitcast_convert(g, cb),
        "slice" => {
            let x = g.any_array(cb, 0);
            let a = cb
                .array(x)
                .cloned()
                .unwrap_or_else(|| scalar(ElementType::F32));
            let (mut starts, mut limits, mut strides, mut dims) = (vec![], vec![], vec![], vec![]);
            for &d in &a.dims {
                let s = g.range(0, d);
                let l = g.range(s, d);
                let st = g.range(1, 3);
                starts.push(s);
                limits.push(l);
                strides.push(st);
                dims.push((l - s + st - 1) / st);
            }
            let op = Op::Slice {
                starts,
                limits,
                strides,
            };
            emit_array(g, cb, op, vec![x], a.element_type, dims);
        }
        "dynamic-slice" => {
            let x = g.any_array(cb, 0);
            let a = cb
                .array(x)
                .cloned()
                .unwrap_or_else(|| scalar(ElementType::F32));
            let sizes: Vec<i64> = a.dims.iter().map(|&d| g.range(0, d)).collect();
            let it = g.ty_index();
            let mut ops = vec![x];
            for _ in 0..a.rank() {
                ops.push(g.index_scalar(cb, it));
            }
            let dims = sizes.clone();
            emit_array(g, cb, Op::DynamicSlice { sizes }, ops, a.element_type, dims);
        }
        "dynamic-update-slice" => {
            let x = g.any_array(cb, 0);
            let a = cb
                .array(x)
                .cloned()
                .unwrap_or_else(|| scalar(ElementType::F32));
            let udims: Vec<i64> = a.dims.iter().map(|&d| g.range(0, d)).collect();
            let us = ArrayShape::new(a.element_type, udims).unwrap_or_else(|_| a.clone());
            let upd = g.value_of(cb, &us);
            let it = g.ty_index();
            let mut ops = vec![x, upd];
            for _ in 0..a.rank() {
                ops.push(g.index_scalar(cb, it));
            }
            emit_array(
                g,
                cb,
                Op::DynamicUpdateSlice,
                ops,
                a.element_type,
                a.dims.clone(),
            );
        }
        "concatenate" => {
            let x = g.any_array(cb, 1);
            let a = cb
                .array(x)
                .cloned()
                .unwrap_or_else(|| scalar(ElementType::F32));
            if a.rank() == 0 {
                return false;
            }
            let d = g.range(0, a.rank() as i64 - 1) as usize;
            let k = g.range(1, 3);
            let mut ops = vec![x];
            let mut total = a.dims[d];
            for _ in 1..k {
                let mut dims = a.dims.clone();
                dims[d] = g.range(0, 4);
                total += dims[d];
                let s = ArrayShape::new(a.element_type, dims).unwrap_or_else(|_| a.clone());
                ops.push(g.value_of(cb, &s));
            }
            let mut dims = a.dims.clone();
            dims[d] = total;
            let op = Op::Concatenate {
                dimension: d as i64,
            };
            emit_array(g, cb, op, ops, a.element_type, dims);
        }
        "pad" => {
            let x = g.any_array(cb, 0);
            let a = cb
                .array(x)
                .cloned()
                .unwrap_or_else(|| scalar(ElementType::F32));
            let v = g.scalar(cb, a.element_type);
            let mut config = vec![];
            let mut dims = vec![];
            for &d in &a.dims {
                let mut p = PadDim {
                    low: g.range(-2, 3),
                    high: g.range(-2, 3),
                    interior: g.range(0, 2),
                };
                let base = d + (d - 1).max(0) * p.interior;
                if base + p.low + p.high < 0 || base + p.low < 0 || base + p.high < 0 {
                    p.low = p.low.max(0);
                    p.high = p.high.max(0);
                }
                dims.push(base + p.low + p.high);
                config.push(p);
            }
            emit_array(g, cb, Op::Pad { config }, vec![x, v], a.element_type, dims);
        }
        "reverse" => {
            let x = g.any_array(cb, 0);
            let a = cb
                .array(x)
                .cloned()
                .unwrap_or_else(|| scalar(ElementType::F32));
            let dimensions = g.subset(a.rank());
            let op = Op::Reverse { dimensions };
            emit_array(g, cb, op, vec![x], a.element_type, a.dims.clone());
        }
        "gather" => gather(g, cb),
        "scatter" => scatter(g, cb),
        "tuple" => {
            let k = g.range(0, 3);
            let ops: Vec<InstrId> = (0..k).map(|_| g.any_value(cb)).collect();
            let shape = Shape::Tuple(ops.iter().map(|&i| cb.shape(i).clone()).collect());
            g.emit(cb, Op::Tuple, ops, shape);
        }
        "get-tuple-element" => {
            let c = g.candidates(cb, |s| matches!(s, Shape::Tuple(t) if !t.is_empty()));
            let t = if c.is_empty() || g.chance(1, 4) {
                let k = g.range(1, 3);
                let ops: Vec<InstrId> = (0..k).map(|_| g.any_value(cb)).collect();
                let shape = Shape::Tuple(ops.iter().map(|&i| cb.shape(i).clone()).collect());
                g.emit(cb, Op::Tuple, ops, shape)
            } else {
                g.pick(&c)
            };
            let elems = cb
                .shape(t)
                .tuple_elements()
                .map(|e| e.to_vec())
                .unwrap_or_default();
            if elems.is_empty() {
                return false;
            }
            let index = g.range(0, elems.len() as i64 - 1);
            let shape = elems[index as usize].clone();
            g.emit(cb, Op::GetTupleElement { index }, vec![t], shape);
        }
        "opt-barrier" => {
            let x = g.any_value(cb);
            let s = cb.shape(x).clone();
            g.emit(cb, Op::OptimizationBarrier, vec![x], s);
        }
        "after-all" => {
            let c = g.candidates(cb, |s| s.is_token());
            let k = if c.is_empty() { 0 } else { g.range(0, 2) };
            let ops: Vec<InstrId> = (0..k).map(|_| g.pick(&c)).collect();
            g.emit(cb, Op::AfterAll, ops, Shape::token());
        }
        _ => return false,
    }
    true
}

/// Emits an op with an array result of `ty` and `dims`.
pub(super) fn emit_array(
    g: &mut Gen,
    cb: &mut Cb,
    op: Op,
    ops: Vec<InstrId>,
    ty: ElementType,
    dims: Vec<i64>,
) -> InstrId {
    let shape = ArrayShape::new(ty, dims).unwrap_or_else(|_| scalar(ty));
    g.emit(cb, op, ops, Shape::Array(shape))
}

fn broadcast(g: &mut Gen, cb: &mut Cb) {
    let x = g.any_array(cb, 0);
    let a = cb
        .array(x)
        .cloned()
        .unwrap_or_else(|| scalar(ElementType::F32));
    let r = a.rank();
    if r > 3 {
        // Broadcast to the same rank (a permutation-free copy).
        let dimensions: Vec<i64> = (0..r as i64).collect();
        emit_array(
            g,
            cb,
            Op::Broadcast { dimensions },
            vec![x],
            a.element_type,
            a.dims,
        );
        return;
    }
    let out_rank = g.range(r as i64, 4) as usize;
    let dimensions = g.subset_of_size(out_rank, r);
    let mut dims = g.dims(out_rank);
    for (i, &d) in dimensions.iter().enumerate() {
        dims[d as usize] = a.dims[i];
    }
    let rem: i64 = dims.iter().product();
    if rem > g.cfg.max_elements * 8 {
        for (i, d) in dims.iter_mut().enumerate() {
            if !dimensions.contains(&(i as i64)) {
                *d = (*d).min(1);
            }
        }
    }
    emit_array(
        g,
        cb,
        Op::Broadcast { dimensions },
        vec![x],
        a.element_type,
        dims,
    );
}

/// Random dims (rank 0..=4) whose product is `n`.
fn reshape_dims(g: &mut Gen, n: i64) -> Vec<i64> {
    if n == 0 {
        let r = g.range(1, 4) as usize;
        let mut dims: Vec<i64> = (0..r).map(|_| g.range(0, 3)).collect();
        let z = g.range(0, r as i64 - 1) as usize;
        dims[z] = 0;
        return dims;
    }
    let mut factors = vec![];
    let mut m = n;
    let mut p = 2;
    while m > 1 && p * p <= m {
        while m % p == 0 {
            factors.push(p);
            m /= p;
        }
        p += 1;
    }
    if m > 1 {
        factors.push(m);
    }
    let max_rank = 4usize;
    let k = g.range(
        factors.len().min(1) as i64,
        factors.len().min(max_rank) as i64,
    ) as usize;
    let mut dims = vec![1i64; k];
    for f in factors {
        if k == 0 {
            break;
        }
        let i = g.range(0, k as i64 - 1) as usize;
        dims[i] *= f;
    }
    while dims.len() < max_rank && g.chance(1, 4) {
        let at = g.range(0, dims.len() as i64) as usize;
        dims.insert(at, 1);
    }
    dims
}

fn bitcast_convert(g: &mut Gen, cb: &mut Cb) {
    let x = g.array_where(cb, |t| !t.is_pred(), Gen::ty_numeric, 0);
    let a = cb
        .array(x)
        .cloned()
        .unwrap_or_else(|| scalar(ElementType::F32));
    // Widths in bits: s4 is 4 bits wide (XLA's BitWidth).
    let wi = a.element_type.bit_width() as usize;
    let want = if g.chance(1, 6) {
        g.pick(&ElementType::NARROW)
    } else {
        g.ty_numeric()
    };
    let wo = want.bit_width() as usize;
    let mut dims = a.dims.clone();
    let ty = if wo < wi && a.rank() < 4 {
        dims.push((wi / wo) as i64);
        want
    } else if wo > wi && dims.last() == Some(&((wo / wi) as i64)) {
        dims.pop();
        want
    } else {
        // Same width: any type of that width (maybe the same type).
        let same: Vec<ElementType> = super::DATA_TYPES[1..]
            .iter()
            .chain(&ElementType::NARROW)
            .copied()
            .filter(|t| t.bit_width() as usize == wi)
            .collect();
        g.pick(&same)
    };
    emit_array(g, cb, Op::BitcastConvert, vec![x], ty, dims);
}

/// Index array dims: `batch` with `m` inserted at `ivd`.
fn index_dims(batch: &[i64], m: i64, ivd: usize) -> Vec<i64> {
    let mut d = batch.to_vec();
    d.insert(ivd.min(d.len()), m);
    d
}

fn gather(g: &mut Gen, cb: &mut Cb) {
    let x = g.any_array(cb, 1);
    let a = cb
        .array(x)
        .cloned()
        .unwrap_or_else(|| scalar(ElementType::F32));
    let r = a.rank();
    if r == 0 {
        let it = g.ty_index();
        return scalar_gather(g, cb, x, &a, it);
    }
    let m = g.range(1, r as i64) as usize;
    let mut start_index_map = g.permutation(r);
    start_index_map.truncate(m);
    let collapsed: Vec<i64> = {
        let mut c: Vec<i64> = start_index_map
            .iter()
            .copied()
            // Only dims of size >= 1 can be collapsed (slice size 1).
            .filter(|&d| a.dims[d as usize] >= 1 && g.coin())
            .collect();
        c.sort();
        c
    };
    let slice_sizes: Vec<i64> = (0..r)
        .map(|i| {
            if collapsed.contains(&(i as i64)) {
                1
            } else {
                g.range(0, a.dims[i])
            }
        })
        .collect();
    let offset_count = r - collapsed.len();
    // Operands of rank 5 exist (a dot's result): no batch dims then.
    let nb = g.range(0, 4usize.saturating_sub(offset_count).min(2) as i64) as usize;
    let batch: Vec<i64> = (0..nb).map(|_| g.range(0, 3)).collect();
    let ivd = g.range(0, nb as i64) as usize;
    let it = g.ty_index();
    let is = ArrayShape::new(it, index_dims(&batch, m as i64, ivd)).unwrap_or_else(|_| scalar(it));
    let idx = g.value_of(cb, &is);
    let out_rank = nb + offset_count;
    let offset_dims = g.subset_of_size(out_rank, offset_count);
    let mut offs = (0..r)
        .filter(|i| !collapsed.contains(&(*i as i64)))
        .map(|i| slice_sizes[i]);
    let mut bs = batch.iter().copied();
    let dims: Vec<i64> = (0..out_rank as i64)
        .map(|p| {
            if offset_dims.contains(&p) {
                offs.next().unwrap_or(0)
            } else {
                bs.next().unwrap_or(0)
            }
        })
        .collect();
    let op = Op::Gather {
        dims: GatherDims {
            offset_dims,
            collapsed_slice_dims: collapsed,
            start_index_map,
            index_vector_dim: ivd as i64,
            operand_batching_dims: vec![],
            start_indices_batching_dims: vec![],
        },
        slice_sizes,
        indices_are_sorted: false,
    };
    emit_array(g, cb, op, vec![x, idx], a.element_type, dims);
}

/// Gather from a scalar: no index components at all.
fn scalar_gather(g: &mut Gen, cb: &mut Cb, x: InstrId, a: &ArrayShape, it: ElementType) {
    let is = ArrayShape::new(it, vec![0]).unwrap_or_else(|_| scalar(it));
    let idx = g.value_of(cb, &is);
    let op = Op::Gather {
        dims: GatherDims {
            index_vector_dim: 0,
            ..GatherDims::default()
        },
        slice_sizes: vec![],
        indices_are_sorted: false,
    };
    emit_array(g, cb, op, vec![x, idx], a.element_type, vec![]);
}

fn scatter(g: &mut Gen, cb: &mut Cb) {
    let x = g.any_array(cb, 1);
    let a = cb
        .array(x)
        .cloned()
        .unwrap_or_else(|| scalar(ElementType::F32));
    let r = a.rank();
    if r == 0 {
        return;
    }
    let m = g.range(1, r as i64) as usize;
    let mut to_operand = g.permutation(r);
    to_operand.truncate(m);
    let inserted = g.subset(r);
    let window: Vec<i64> = (0..r)
        .filter(|i| !inserted.contains(&(*i as i64)))
        .map(|i| g.range(0, a.dims[i]))
        .collect();
    let wcount = window.len();
    let nb = g.range(0, (4 - wcount).min(2) as i64) as usize;
    let batch: Vec<i64> = (0..nb).map(|_| g.range(0, 3)).collect();
    let ivd = g.range(0, nb as i64) as usize;
    let it = g.ty_index();
    let is = ArrayShape::new(it, index_dims(&batch, m as i64, ivd)).unwrap_or_else(|_| scalar(it));
    let idx = g.value_of(cb, &is);
    let urank = nb + wcount;
    let update_window_dims = g.subset_of_size(urank, wcount);
    let mut ws = window.iter().copied();
    let mut bs = batch.iter().copied();
    let udims: Vec<i64> = (0..urank as i64)
        .map(|p| {
            if update_window_dims.contains(&p) {
                ws.next().unwrap_or(0)
            } else {
                bs.next().unwrap_or(0)
            }
        })
        .collect();
    // One or two scattered operands of the same dims.
    let k = if g.chance(1, 4) { 2 } else { 1 };
    let mut operands = vec![x];
    let mut types = vec![a.element_type];
    if k == 2 {
        let t2 = g.ty_any();
        let s2 = ArrayShape::new(t2, a.dims.clone()).unwrap_or_else(|_| a.clone());
        operands.push(g.value_of(cb, &s2));
        types.push(t2);
    }
    let mut updates = vec![];
    for &t in &types {
        let us = ArrayShape::new(t, udims.clone()).unwrap_or_else(|_| scalar(t));
        updates.push(g.value_of(cb, &us));
    }
    let mut params = types.clone();
    params.extend(types.iter().copied());
    let to_apply = g.scalar_comp(&params, &types);
    let shapes: Vec<Shape> = operands
        .iter()
        .map(|&o| cb.shape(o).with_default_layouts())
        .collect();
    let shape = if k == 1 {
        shapes[0].clone()
    } else {
        Shape::Tuple(shapes)
    };
    let mut ops = operands;
    ops.push(idx);
    ops.extend(updates);
    let op = Op::Scatter {
        dims: ScatterDims {
            update_window_dims,
            inserted_window_dims: inserted,
            scatter_dims_to_operand_dims: to_operand,
            index_vector_dim: ivd as i64,
            input_batching_dims: vec![],
            scatter_indices_batching_dims: vec![],
        },
        to_apply,
        indices_are_sorted: false,
        unique_indices: false,
    };
    g.emit(cb, op, ops, shape);
}
