//! Generators of computing ops: unary and binary elementwise ops, compare,
//! select, clamp, map, dot, convolution, reduce, reduce-window,
//! select-and-scatter and sort, with the element types each op accepts.
//! Result shapes are computed by construction; nothing here may emit an
//! invalid instruction.

use super::data::emit_array;
use super::{Cb, Gen, scalar, strided_bound};
use crate::values::Choices;
use rxla_ir::{
    ArrayShape, BinaryOp, ComparisonDirection, ComparisonType, ConvDims, DotDims, ElementType,
    FftType, InstrId, Literal, Op, Shape, UnaryOp, Window, WindowDim,
};

pub(super) fn by_name(g: &mut Gen, cb: &mut Cb, name: &str) -> bool {
    match name {
        "compare" => compare(g, cb),
        "select" => select(g, cb),
        "clamp" => {
            let x = g.array_where(cb, |t| !t.is_pred(), Gen::ty_numeric, 0);
            let a = cb
                .array(x)
                .cloned()
                .unwrap_or_else(|| scalar(ElementType::F32));
            let lo = bound_like(g, cb, &a);
            let hi = bound_like(g, cb, &a);
            emit_array(
                g,
                cb,
                Op::Clamp,
                vec![lo, x, hi],
                a.element_type,
                a.dims.clone(),
            );
        }
        "map" => map(g, cb),
        "dot" => dot(g, cb),
        "convolution" => convolution(g, cb),
        "reduce" => reduce(g, cb),
        "reduce-window" => reduce_window(g, cb),
        "select-and-scatter" => select_and_scatter(g, cb),
        "sort" => sort(g, cb),
        "complex" => {
            let last = g.pick(&[UnaryOp::Real, UnaryOp::Imag, UnaryOp::Abs]);
            complex_chain(g, cb, last);
        }
        "real" => complex_chain(g, cb, UnaryOp::Real),
        "imag" => complex_chain(g, cb, UnaryOp::Imag),
        "fft" => return fft(g, cb),
        "reduce-precision" => {
            let x = g.array_where(cb, |t| t.is_float() && !t.is_f8(), Gen::ty_float, 0);
            let a = cb
                .array(x)
                .cloned()
                .unwrap_or_else(|| scalar(ElementType::F32));
            let op = Op::ReducePrecision {
                exponent_bits: g.range(1, 11),
                mantissa_bits: g.range(0, 23),
            };
            emit_array(g, cb, op, vec![x], a.element_type, a.dims.clone());
        }
        "topk" => {
            let x = g.array_where(cb, |t| !t.is_pred(), Gen::ty_numeric, 1);
            let a = cb
                .array(x)
                .cloned()
                .unwrap_or_else(|| scalar(ElementType::F32));
            let Some(&last) = a.dims.last() else {
                return false;
            };
            let k = g.range(0, last);
            let mut dims = a.dims.clone();
            if let Some(d) = dims.last_mut() {
                *d = k;
            }
            let shape = Shape::Tuple(vec![
                Shape::Array(
                    ArrayShape::new(a.element_type, dims.clone()).unwrap_or_else(|_| a.clone()),
                ),
                Shape::Array(
                    ArrayShape::new(ElementType::S32, dims)
                        .unwrap_or_else(|_| scalar(ElementType::S32)),
                ),
            ]);
            let largest = g.coin();
            g.emit(cb, Op::TopK { k, largest }, vec![x], shape);
        }
        _ => return false,
    }
    true
}

/// A min/max operand for clamp: a scalar or the operand's shape.
fn bound_like(g: &mut Gen, cb: &mut Cb, a: &ArrayShape) -> InstrId {
    if g.coin() {
        g.scalar(cb, a.element_type)
    } else {
        g.value_of(cb, a)
    }
}

/// Unary ops defined on complex values that keep the type.
const COMPLEX_UNARY: [UnaryOp; 12] = [
    UnaryOp::Negate,
    UnaryOp::Sign,
    UnaryOp::Sqrt,
    UnaryOp::Rsqrt,
    UnaryOp::Exp,
    UnaryOp::Expm1,
    UnaryOp::Log,
    UnaryOp::Log1p,
    UnaryOp::Tanh,
    UnaryOp::Sin,
    UnaryOp::Cos,
    UnaryOp::Tan,
];

/// Binary ops defined on complex values.
const COMPLEX_BINARY: [BinaryOp; 5] = [
    BinaryOp::Add,
    BinaryOp::Subtract,
    BinaryOp::Multiply,
    BinaryOp::Divide,
    BinaryOp::Power,
];

/// A complex value of `dims`: `complex(re, im)` of two f32 (f64) values,
/// or an existing complex value of that shape.
pub(super) fn complex_value(g: &mut Gen, cb: &mut Cb, part: ElementType, dims: &[i64]) -> InstrId {
    let ps = ArrayShape::new(part, dims.to_vec()).unwrap_or_else(|_| scalar(part));
    let ct = part.complex_of().unwrap_or(ElementType::C64);
    let cs = ArrayShape::new(ct, ps.dims.clone()).unwrap_or_else(|_| scalar(ct));
    let c = g.complex_candidates(cb, &cs);
    if !c.is_empty() && g.coin() {
        return g.pick(&c);
    }
    let re = g.value_of(cb, &ps);
    let im = g.other_value_of(cb, &ps, re);
    emit_array(g, cb, Op::Complex, vec![re, im], ct, ps.dims.clone())
}

/// `complex(re, im)`, a few complex ops (unary, binary, compare EQ/NE +
/// select, convert between c64 and c128), then `last` (real, imag or abs)
/// back to a real value, which the rest of the program may use.
pub(super) fn complex_chain(g: &mut Gen, cb: &mut Cb, last: UnaryOp) {
    let x = g.array_where(
        cb,
        |t| matches!(t, ElementType::F32 | ElementType::F64),
        |g| g.pick(&[ElementType::F32, ElementType::F64]),
        0,
    );
    let a = cb
        .array(x)
        .cloned()
        .unwrap_or_else(|| scalar(ElementType::F32));
    let mut part = a.element_type;
    let dims = a.dims.clone();
    let im = g.other_value_of(cb, &a, x);
    let mut z = emit_array(
        g,
        cb,
        Op::Complex,
        vec![x, im],
        part.complex_of().unwrap_or(ElementType::C64),
        dims.clone(),
    );
    for _ in 0..g.range(0, 3) {
        let ct = part.complex_of().unwrap_or(ElementType::C64);
        z = match g.range(0, 4) {
            0 => {
                let u = g.pick(&COMPLEX_UNARY);
                emit_array(g, cb, Op::Unary(u), vec![z], ct, dims.clone())
            }
            1 | 2 => {
                let b = g.pick(&COMPLEX_BINARY);
                let y = complex_value(g, cb, part, &dims);
                let (l, r) = if g.coin() { (z, y) } else { (y, z) };
                emit_array(g, cb, Op::Binary(b), vec![l, r], ct, dims.clone())
            }
            3 => {
                let y = complex_value(g, cb, part, &dims);
                let direction = if g.coin() {
                    ComparisonDirection::Eq
                } else {
                    ComparisonDirection::Ne
                };
                let p = emit_array(
                    g,
                    cb,
                    Op::Compare {
                        direction,
                        kind: None,
                    },
                    vec![z, y],
                    ElementType::Pred,
                    dims.clone(),
                );
                emit_array(g, cb, Op::Select, vec![p, z, y], ct, dims.clone())
            }
            _ => {
                part = if part == ElementType::F32 {
                    ElementType::F64
                } else {
                    ElementType::F32
                };
                let to = part.complex_of().unwrap_or(ElementType::C64);
                emit_array(g, cb, Op::Convert, vec![z], to, dims.clone())
            }
        };
    }
    emit_array(g, cb, Op::Unary(last), vec![z], part, dims);
}

/// `fft` of a random type over 1 to 3 trailing dims (not in scalar
/// computations), ending in a real value (`real` of a complex result).
fn fft(g: &mut Gen, cb: &mut Cb) -> bool {
    if g.scalar_mode {
        return false;
    }
    let fft_type = g.pick(&FftType::ALL);
    let x = g.array_where(
        cb,
        |t| matches!(t, ElementType::F32 | ElementType::F64),
        |g| g.pick(&[ElementType::F32, ElementType::F64]),
        1,
    );
    let a = cb
        .array(x)
        .cloned()
        .unwrap_or_else(|| scalar(ElementType::F32));
    let rank = a.rank();
    if rank == 0 {
        return false;
    }
    let part = a.element_type;
    let ct = part.complex_of().unwrap_or(ElementType::C64);
    let k = g.range(1, rank.min(3) as i64) as usize;
    let mut fft_length: Vec<i64> = a.dims[rank - k..].to_vec();
    let (input, in_dims) = match fft_type {
        FftType::Rfft => (x, a.dims.clone()),
        FftType::Fft | FftType::Ifft => {
            let z = complex_value(g, cb, part, &a.dims);
            (z, a.dims.clone())
        }
        FftType::Irfft => {
            // The operand's last dim is n/2+1 for an n of 2m or 2m-1.
            let h = a.dims[rank - 1];
            let n = if h == 0 {
                0
            } else {
                2 * (h - 1) + g.range(0, 1)
            };
            let n = if h > 0 { n.max(1) } else { 0 };
            let half = if n == 0 { 0 } else { n / 2 + 1 };
            if half != h {
                return false;
            }
            fft_length[k - 1] = n;
            let z = complex_value(g, cb, part, &a.dims);
            (z, a.dims.clone())
        }
    };
    let mut out_dims = in_dims;
    let n = fft_length[k - 1];
    let (out_ty, last) = match fft_type {
        FftType::Rfft => {
            out_dims[rank - 1] = if n == 0 { 0 } else { n / 2 + 1 };
            (ct, true)
        }
        FftType::Irfft => {
            out_dims[rank - 1] = n;
            (part, false)
        }
        _ => (ct, true),
    };
    let op = Op::Fft {
        fft_type,
        fft_length,
    };
    let f = emit_array(g, cb, op, vec![input], out_ty, out_dims.clone());
    if last {
        let u = g.pick(&[UnaryOp::Real, UnaryOp::Imag, UnaryOp::Abs]);
        emit_array(g, cb, Op::Unary(u), vec![f], part, out_dims);
    }
    true
}

/// The element-type class a unary op accepts.
fn unary_type_ok(u: UnaryOp, t: ElementType) -> bool {
    if matches!(u, UnaryOp::Real | UnaryOp::Imag) {
        return t.is_float();
    }
    if u.float_only() {
        return t.is_float();
    }
    if u.int_only() {
        return t.is_integer();
    }
    match u {
        UnaryOp::Not => t.is_integer() || t.is_pred(),
        _ => !t.is_pred(),
    }
}

fn unary_type(g: &mut Gen, u: UnaryOp) -> ElementType {
    if u.float_only() || matches!(u, UnaryOp::Real | UnaryOp::Imag) {
        g.ty_float()
    } else if u.int_only() {
        g.ty_int()
    } else if u == UnaryOp::Not {
        g.pick(&super::DATA_TYPES[..9])
    } else {
        g.ty_numeric()
    }
}

fn binary_type_ok(b: BinaryOp, t: ElementType) -> bool {
    if b.is_bitwise() {
        t.is_pred() || t.is_integer()
    } else if b.is_shift() {
        t.is_integer()
    } else if b == BinaryOp::Atan2 {
        t.is_float()
    } else if matches!(b, BinaryOp::Maximum | BinaryOp::Minimum) {
        true
    } else {
        !t.is_pred()
    }
}

fn binary_type(g: &mut Gen, b: BinaryOp) -> ElementType {
    loop {
        let t = g.ty_any();
        if binary_type_ok(b, t) {
            return t;
        }
        // The byte source may be exhausted: fall back deterministically.
        if g.range(0, 1) == 0 && !binary_type_ok(b, t) {
            return if b == BinaryOp::Atan2 {
                ElementType::F32
            } else {
                ElementType::S32
            };
        }
    }
}

/// A unary op (random when `u` is None) on a suitable operand.
pub(super) fn unary(g: &mut Gen, cb: &mut Cb, u: Option<UnaryOp>) {
    let u = u.unwrap_or_else(|| g.pick(&UnaryOp::ALL));
    let x = match g.candidates(cb, |s| {
        matches!(s, Shape::Array(a) if a.element_type != ElementType::Token && unary_type_ok(u, a.element_type))
    }) {
        c if !c.is_empty() && g.chance(4, 5) => g.pick(&c),
        _ => {
            let t = unary_type(g, u);
            let r = g.rank();
            let s = g.array_shape(t, r);
            g.fresh(cb, &s)
        }
    };
    let a = cb
        .array(x)
        .cloned()
        .unwrap_or_else(|| scalar(ElementType::F32));
    let ty = if u == UnaryOp::IsFinite {
        ElementType::Pred
    } else {
        a.element_type
    };
    emit_array(g, cb, Op::Unary(u), vec![x], ty, a.dims.clone());
}

/// A binary op (random when `b` is None) on two operands of one shape.
pub(super) fn binary(g: &mut Gen, cb: &mut Cb, b: Option<BinaryOp>) {
    let b = b.unwrap_or_else(|| g.pick(&BinaryOp::ALL));
    let x = match g.candidates(cb, |s| {
        matches!(s, Shape::Array(a) if a.element_type != ElementType::Token && binary_type_ok(b, a.element_type))
    }) {
        c if !c.is_empty() && g.chance(4, 5) => g.pick(&c),
        _ => {
            let t = binary_type(g, b);
            let r = g.rank();
            let s = g.array_shape(t, r);
            g.fresh(cb, &s)
        }
    };
    let a = cb
        .array(x)
        .cloned()
        .unwrap_or_else(|| scalar(ElementType::S32));
    let y = g.other_value_of(cb, &a, x);
    let (x, y) = if g.coin() { (x, y) } else { (y, x) };
    emit_array(
        g,
        cb,
        Op::Binary(b),
        vec![x, y],
        a.element_type,
        a.dims.clone(),
    );
}

/// A compare kind valid for `t`: usually the default.
fn compare_kind(g: &mut Gen, t: ElementType) -> Option<ComparisonType> {
    if g.chance(2, 3) {
        return None;
    }
    if t.is_float() {
        Some(if g.coin() {
            ComparisonType::TotalOrder
        } else {
            ComparisonType::Float
        })
    } else if t.is_signed_int() {
        Some(ComparisonType::Signed)
    } else if t.is_unsigned_int() {
        Some(ComparisonType::Unsigned)
    } else {
        None
    }
}

fn compare(g: &mut Gen, cb: &mut Cb) {
    let x = g.any_array(cb, 0);
    let a = cb
        .array(x)
        .cloned()
        .unwrap_or_else(|| scalar(ElementType::F32));
    let y = g.other_value_of(cb, &a, x);
    let direction = g.pick(&ComparisonDirection::ALL);
    let kind = compare_kind(g, a.element_type);
    let op = Op::Compare { direction, kind };
    emit_array(g, cb, op, vec![x, y], ElementType::Pred, a.dims.clone());
}

fn select(g: &mut Gen, cb: &mut Cb) {
    if g.chance(1, 6) {
        // Selecting whole tuples with a scalar pred.
        let c = g.candidates(cb, |s| s.is_tuple());
        if !c.is_empty() {
            let t = g.pick(&c);
            let p = g.scalar(cb, ElementType::Pred);
            let s = cb.shape(t).with_default_layouts();
            g.emit(cb, Op::Select, vec![p, t, t], s);
            return;
        }
    }
    let x = g.any_array(cb, 0);
    let a = cb
        .array(x)
        .cloned()
        .unwrap_or_else(|| scalar(ElementType::F32));
    let y = g.other_value_of(cb, &a, x);
    let p = if g.chance(1, 3) {
        g.scalar(cb, ElementType::Pred)
    } else {
        let ps = ArrayShape::new(ElementType::Pred, a.dims.clone())
            .unwrap_or_else(|_| scalar(ElementType::Pred));
        g.value_of(cb, &ps)
    };
    emit_array(
        g,
        cb,
        Op::Select,
        vec![p, x, y],
        a.element_type,
        a.dims.clone(),
    );
}

/// One scalar elementwise op inside a scalar body.
pub(super) fn scalar_op(g: &mut Gen, cb: &mut Cb) {
    match g.range(0, 5) {
        0 | 1 => binary(g, cb, None),
        2 => unary(g, cb, None),
        3 => compare(g, cb),
        4 => select(g, cb),
        _ => {
            let x = g.any_array(cb, 0);
            let a = cb
                .array(x)
                .cloned()
                .unwrap_or_else(|| scalar(ElementType::F32));
            let t = g.ty_any();
            emit_array(g, cb, Op::Convert, vec![x], t, a.dims.clone());
        }
    }
}

fn map(g: &mut Gen, cb: &mut Cb) {
    let x = g.any_array(cb, 0);
    let a = cb
        .array(x)
        .cloned()
        .unwrap_or_else(|| scalar(ElementType::F32));
    let k = g.range(1, 3);
    let mut ops = vec![x];
    let mut types = vec![a.element_type];
    for _ in 1..k {
        let t = g.ty_any();
        let s = ArrayShape::new(t, a.dims.clone()).unwrap_or_else(|_| scalar(t));
        ops.push(g.value_of(cb, &s));
        types.push(t);
    }
    let rt = g.ty_any();
    let to_apply = g.scalar_comp(&types, &[rt]);
    let dimensions = (0..a.rank() as i64).collect();
    let op = Op::Map {
        dimensions,
        to_apply,
    };
    emit_array(g, cb, op, ops, rt, a.dims.clone());
}

fn dot(g: &mut Gen, cb: &mut Cb) {
    let ty = g.ty_numeric();
    let nb = g.range(0, 1) as usize;
    let nc = g.range(0, 2) as usize;
    let nm = g.range(0, (4 - nb - nc).min(2) as i64) as usize;
    let nn = g.range(0, (4 - nb - nc).min(2) as i64) as usize;
    let size = |g: &mut Gen| if g.chance(1, 12) { 0 } else { g.range(1, 4) };
    let bs: Vec<i64> = (0..nb).map(|_| size(g)).collect();
    let cs: Vec<i64> = (0..nc).map(|_| size(g)).collect();
    let ms: Vec<i64> = (0..nm).map(|_| size(g)).collect();
    let ns: Vec<i64> = (0..nn).map(|_| size(g)).collect();
    // Roles: 0 = batch, 1 = contracting, 2 = free; placed in random order.
    let side = |g: &mut Gen, free: &[i64]| {
        let mut roles: Vec<(u8, usize)> = (0..nb).map(|i| (0, i)).collect();
        roles.extend((0..nc).map(|i| (1, i)));
        roles.extend((0..free.len()).map(|i| (2, i)));
        let perm = g.permutation(roles.len());
        let roles: Vec<(u8, usize)> = perm.iter().map(|&p| roles[p as usize]).collect();
        let dims: Vec<i64> = roles
            .iter()
            .map(|&(r, i)| match r {
                0 => bs[i],
                1 => cs[i],
                _ => free[i],
            })
            .collect();
        let pos = |want: u8, n: usize| -> Vec<i64> {
            (0..n)
                .map(|k| {
                    roles
                        .iter()
                        .position(|&(r, i)| r == want && i == k)
                        .unwrap_or(0) as i64
                })
                .collect()
        };
        let frees: Vec<i64> = roles
            .iter()
            .filter(|r| r.0 == 2)
            .map(|r| free[r.1])
            .collect();
        (dims, pos(0, nb), pos(1, nc), frees)
    };
    let (ld, lb, lc, lfree) = side(g, &ms);
    let (rd, rb, rc, rfree) = side(g, &ns);
    let ls = ArrayShape::new(ty, ld).unwrap_or_else(|_| scalar(ty));
    let rs = ArrayShape::new(ty, rd).unwrap_or_else(|_| scalar(ty));
    let lhs = g.value_of(cb, &ls);
    let rhs = g.value_of(cb, &rs);
    let mut out = bs.clone();
    out.extend(lfree);
    out.extend(rfree);
    let dims = DotDims {
        lhs_batch: lb,
        lhs_contracting: lc,
        rhs_batch: rb,
        rhs_contracting: rc,
    };
    emit_array(g, cb, Op::Dot { dims }, vec![lhs, rhs], ty, out);
}

fn convolution(g: &mut Gen, cb: &mut Cb) {
    let ty = g.pick(&[
        ElementType::F32,
        ElementType::F16,
        ElementType::BF16,
        ElementType::F64,
        ElementType::S32,
        ElementType::S8,
    ]);
    let s = g.range(0, 2) as usize;
    let (fgc, bgc) = match g.range(0, 3) {
        0 => (2, 1),
        1 => (1, 2),
        _ => (1, 1),
    };
    let batch = bgc * g.range(1, 2);
    let cin_g = g.range(1, 2);
    let cin = fgc * cin_g;
    let cout = fgc * bgc * g.range(1, 2);
    let kin = cin / fgc;
    let mut wdims = vec![];
    let mut in_sp = vec![];
    let mut k_sp = vec![];
    let mut out_sp = vec![];
    for _ in 0..s {
        let input = g.range(1, 5);
        let k = g.range(1, 3);
        let mut w = WindowDim::new(k);
        w.stride = g.range(1, 2);
        w.pad_low = g.range(-1, 2);
        w.pad_high = g.range(-1, 2);
        w.base_dilation = g.range(1, 2);
        w.window_dilation = g.range(1, 2);
        w.window_reversal = g.chance(1, 4);
        let mut padded = (input - 1) * w.base_dilation + 1 + w.pad_low + w.pad_high;
        if padded < 0 {
            w.pad_low = 0;
            w.pad_high = 0;
            padded = (input - 1) * w.base_dilation + 1;
        }
        let dw = (k - 1) * w.window_dilation + 1;
        out_sp.push(strided_bound(padded, dw, w.stride));
        in_sp.push(input);
        k_sp.push(k);
        wdims.push(w);
    }
    let n = s + 2;
    let ip = g.permutation(n);
    let kp = g.permutation(n);
    let op_ = g.permutation(n);
    let dims = ConvDims {
        input_batch: ip[0],
        input_feature: ip[1],
        input_spatial: ip[2..].to_vec(),
        kernel_input_feature: kp[0],
        kernel_output_feature: kp[1],
        kernel_spatial: kp[2..].to_vec(),
        output_batch: op_[0],
        output_feature: op_[1],
        output_spatial: op_[2..].to_vec(),
    };
    let mut ld = vec![0i64; n];
    ld[ip[0] as usize] = batch;
    ld[ip[1] as usize] = cin;
    let mut kd = vec![0i64; n];
    kd[kp[0] as usize] = kin;
    kd[kp[1] as usize] = cout;
    let mut od = vec![0i64; n];
    od[op_[0] as usize] = batch / bgc;
    od[op_[1] as usize] = cout;
    for i in 0..s {
        ld[ip[2 + i] as usize] = in_sp[i];
        kd[kp[2 + i] as usize] = k_sp[i];
        od[op_[2 + i] as usize] = out_sp[i];
    }
    let ls = ArrayShape::new(ty, ld).unwrap_or_else(|_| scalar(ty));
    let ks = ArrayShape::new(ty, kd).unwrap_or_else(|_| scalar(ty));
    let lhs = g.value_of(cb, &ls);
    let rhs = g.value_of(cb, &ks);
    let op = Op::Convolution {
        window: Window { dims: wdims },
        dims,
        feature_group_count: fgc,
        batch_group_count: bgc,
    };
    emit_array(g, cb, op, vec![lhs, rhs], ty, od);
}

/// One or two same-dims operands (the first from `x`) with their types.
fn variadic(
    g: &mut Gen,
    cb: &mut Cb,
    x: InstrId,
    a: &ArrayShape,
) -> (Vec<InstrId>, Vec<ElementType>) {
    let mut ops = vec![x];
    let mut types = vec![a.element_type];
    if g.chance(1, 4) {
        let t = g.ty_any();
        let s = ArrayShape::new(t, a.dims.clone()).unwrap_or_else(|_| scalar(t));
        ops.push(g.value_of(cb, &s));
        types.push(t);
    }
    (ops, types)
}

/// The result shape of a variadic reduction: one array or a tuple.
fn variadic_shape(types: &[ElementType], dims: &[i64]) -> Shape {
    let arrays: Vec<Shape> = types
        .iter()
        .map(|&t| Shape::Array(ArrayShape::new(t, dims.to_vec()).unwrap_or_else(|_| scalar(t))))
        .collect();
    if arrays.len() == 1 {
        arrays[0].clone()
    } else {
        Shape::Tuple(arrays)
    }
}

fn reduce(g: &mut Gen, cb: &mut Cb) {
    let x = g.any_array(cb, 0);
    let a = cb
        .array(x)
        .cloned()
        .unwrap_or_else(|| scalar(ElementType::F32));
    let (mut ops, types) = variadic(g, cb, x, &a);
    for &t in &types {
        ops.push(g.scalar(cb, t));
    }
    let dimensions = g.subset(a.rank());
    let dims: Vec<i64> = (0..a.rank())
        .filter(|i| !dimensions.contains(&(*i as i64)))
        .map(|i| a.dims[i])
        .collect();
    let mut params = types.clone();
    params.extend(types.iter().copied());
    let to_apply = g.scalar_comp(&params, &types);
    let shape = variadic_shape(&types, &dims);
    g.emit(
        cb,
        Op::Reduce {
            dimensions,
            to_apply,
        },
        ops,
        shape,
    );
}

/// A random window over `dims` and its output dims.
fn window(g: &mut Gen, dims: &[i64], dilations: bool, max_pad: i64) -> (Window, Vec<i64>) {
    let mut w = vec![];
    let mut out = vec![];
    for &d in dims {
        let mut wd = WindowDim::new(g.range(1, 3));
        wd.stride = g.range(1, 3);
        wd.pad_low = g.range(-(max_pad.min(1)), max_pad);
        wd.pad_high = g.range(-(max_pad.min(1)), max_pad);
        if dilations {
            wd.base_dilation = g.range(1, 2);
            wd.window_dilation = g.range(1, 2);
        }
        let base = if d == 0 {
            0
        } else {
            (d - 1) * wd.base_dilation + 1
        };
        let mut padded = base + wd.pad_low + wd.pad_high;
        if padded < 0
            || wd.pad_low < 0 && -wd.pad_low > base
            || wd.pad_high < 0 && -wd.pad_high > base
        {
            wd.pad_low = wd.pad_low.max(0);
            wd.pad_high = wd.pad_high.max(0);
            padded = base + wd.pad_low + wd.pad_high;
        }
        let dw = (wd.size - 1) * wd.window_dilation + 1;
        out.push(strided_bound(padded, dw, wd.stride));
        w.push(wd);
    }
    (Window { dims: w }, out)
}

fn reduce_window(g: &mut Gen, cb: &mut Cb) {
    let x = g.any_array(cb, 0);
    let a = cb
        .array(x)
        .cloned()
        .unwrap_or_else(|| scalar(ElementType::F32));
    let (mut ops, types) = variadic(g, cb, x, &a);
    for &t in &types {
        ops.push(g.scalar(cb, t));
    }
    let (window, dims) = window(g, &a.dims, true, 1);
    let mut params = types.clone();
    params.extend(types.iter().copied());
    let to_apply = g.scalar_comp(&params, &types);
    let shape = variadic_shape(&types, &dims);
    g.emit(cb, Op::ReduceWindow { window, to_apply }, ops, shape);
}

fn select_and_scatter(g: &mut Gen, cb: &mut Cb) {
    let x = g.array_where(cb, |t| !t.is_pred(), Gen::ty_numeric, 0);
    let a = cb
        .array(x)
        .cloned()
        .unwrap_or_else(|| scalar(ElementType::F32));
    let ty = a.element_type;
    let (window, sdims) = window(g, &a.dims, false, 0);
    let ss = ArrayShape::new(ty, sdims).unwrap_or_else(|_| scalar(ty));
    let source = g.value_of(cb, &ss);
    let init = g.scalar(cb, ty);
    let select = g.scalar_comp(&[ty, ty], &[ElementType::Pred]);
    let scatter = g.scalar_comp(&[ty, ty], &[ty]);
    let op = Op::SelectAndScatter {
        window,
        select,
        scatter,
    };
    emit_array(g, cb, op, vec![x, source, init], ty, a.dims.clone());
}

/// JAX's `select(ne(x, x), nan, select(eq(x, 0), 0, x))` of scalar `x`.
fn canonicalise(g: &mut Gen, cb: &mut Cb, x: InstrId, ty: ElementType, nan: InstrId) -> InstrId {
    let zero = match ty {
        ElementType::F64 => Literal::scalar(0.0f64),
        _ => Literal::scalar(0.0f32),
    };
    let zero = g.emit(
        cb,
        Op::Constant { literal: zero },
        vec![],
        Shape::scalar(ty),
    );
    let pred = Shape::scalar(ElementType::Pred);
    let cmp = |direction| Op::Compare {
        direction,
        kind: None,
    };
    let is_nan = g.emit(cb, cmp(ComparisonDirection::Ne), vec![x, x], pred.clone());
    let is_zero = g.emit(cb, cmp(ComparisonDirection::Eq), vec![x, zero], pred);
    let inner = g.emit(cb, Op::Select, vec![is_zero, zero, x], Shape::scalar(ty));
    g.emit(cb, Op::Select, vec![is_nan, nan, inner], Shape::scalar(ty))
}

fn sort(g: &mut Gen, cb: &mut Cb) {
    let x = g.any_array(cb, 1);
    let a = cb
        .array(x)
        .cloned()
        .unwrap_or_else(|| scalar(ElementType::F32));
    if a.rank() == 0 {
        return unary(g, cb, None);
    }
    let (ops, types) = variadic(g, cb, x, &a);
    // Comparator: compare one operand's pair of scalars.
    let mut params = vec![];
    for &t in &types {
        params.push(Shape::scalar(t));
        params.push(Shape::scalar(t));
    }
    let (mut ccb, ps) = g.sub(&params, usize::MAX);
    let key = g.range(0, types.len() as i64 - 1) as usize;
    let direction = g.pick(&[ComparisonDirection::Lt, ComparisonDirection::Gt]);
    let mut kind = compare_kind(g, types[key]);
    let mut sides = [ps[2 * key], ps[2 * key + 1]];
    if matches!(types[key], ElementType::F32 | ElementType::F64) && g.coin() {
        // JAX's total-order comparator: NaNs and zeros canonicalised first
        // (the JIT sorts such a sort by key, runtime/key_sort.rs).
        kind = Some(ComparisonType::TotalOrder);
        let nan = g.scalar_const(&mut ccb, types[key]);
        sides = sides.map(|x| canonicalise(g, &mut ccb, x, types[key], nan));
    }
    if g.coin() {
        sides.reverse();
    }
    let root = g.emit(
        &mut ccb,
        Op::Compare { direction, kind },
        sides.to_vec(),
        Shape::scalar(ElementType::Pred),
    );
    let comparator = g.finish(ccb, root);
    let dimension = g.range(0, a.rank() as i64 - 1);
    let is_stable = g.coin();
    let shape = variadic_shape(&types, &a.dims);
    let op = Op::Sort {
        dimension,
        is_stable,
        comparator,
    };
    g.emit(cb, op, ops, shape);
}
