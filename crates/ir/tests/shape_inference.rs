//! Shape inference: every op family's result shapes and error messages.

use rxla_ir::ElementType::{self, *};
use rxla_ir::builder::ModuleBuilder;
use rxla_ir::shape_inference::infer_shape;
use rxla_ir::{
    BinaryOp, CompId, ComparisonDirection, ComparisonType, ConvDims, DotDims, FusionKind,
    GatherDims, Layout, Literal, Module, Op, PadDim, RngAlgorithm, RngDistribution, ScatterDims,
    Shape, UnaryOp, Window, WindowDim,
};

fn a(t: ElementType, d: &[i64]) -> Shape {
    Shape::array(t, d.to_vec()).unwrap()
}

fn ok(m: &Module, op: Op, ops: &[&Shape], decl: Option<&Shape>) -> String {
    infer_shape(m, &op, ops, decl)
        .unwrap_or_else(|e| panic!("{} failed: {e}", op.opcode()))
        .to_string_no_layout()
}

fn err(m: &Module, op: Op, ops: &[&Shape], decl: Option<&Shape>) -> String {
    match infer_shape(m, &op, ops, decl) {
        Ok(s) => panic!("{} unexpectedly gave {s}", op.opcode()),
        Err(e) => e.to_string(),
    }
}

fn empty() -> Module {
    Module::new("m")
}

/// Called computations: add_f32, add_s32, lt_f32, a (f32, s32) variadic
/// reducer, while cond/body over s32[], a f32 -> s32 map function.
struct Comps {
    m: Module,
    add: CompId,
    add_s32: CompId,
    lt: CompId,
    ge: CompId,
    pair: CompId,
    cond: CompId,
    body: CompId,
    to_s32: CompId,
    lt2: CompId,
}

fn comps() -> Comps {
    let mut mb = ModuleBuilder::new("m");
    let mut b = mb.computation("scratch");
    let add = b.scalar_binary_computation(BinaryOp::Add, F32).unwrap();
    let add_s32 = b.scalar_binary_computation(BinaryOp::Add, S32).unwrap();
    let lt = b
        .scalar_compare_computation(ComparisonDirection::Lt, F32)
        .unwrap();
    let ge = b
        .scalar_compare_computation(ComparisonDirection::Ge, F32)
        .unwrap();
    let pair = {
        let mut c = b.sub_computation("pair");
        let x = c.parameter(0, Shape::scalar(F32), "x").unwrap();
        let xi = c.parameter(1, Shape::scalar(S32), "xi").unwrap();
        let y = c.parameter(2, Shape::scalar(F32), "y").unwrap();
        let yi = c.parameter(3, Shape::scalar(S32), "yi").unwrap();
        let mx = c.max(x, y).unwrap();
        let mi = c.min(xi, yi).unwrap();
        let t = c.tuple(&[mx, mi]).unwrap();
        c.build(t).unwrap()
    };
    let cond = {
        let mut c = b.sub_computation("cond");
        let x = c.parameter(0, Shape::scalar(S32), "x").unwrap();
        let k = c.constant_r0(10i32).unwrap();
        let r = c.lt(x, k).unwrap();
        c.build(r).unwrap()
    };
    let body = {
        let mut c = b.sub_computation("body");
        let x = c.parameter(0, Shape::scalar(S32), "x").unwrap();
        let k = c.constant_r0(1i32).unwrap();
        let r = c.add(x, k).unwrap();
        c.build(r).unwrap()
    };
    let to_s32 = {
        let mut c = b.sub_computation("to_s32");
        let x = c.parameter(0, Shape::scalar(F32), "x").unwrap();
        let r = c.convert_element_type(x, S32).unwrap();
        c.build(r).unwrap()
    };
    let lt2 = {
        let mut c = b.sub_computation("lt2");
        let x = c.parameter(0, Shape::scalar(F32), "x").unwrap();
        let y = c.parameter(1, Shape::scalar(F32), "y").unwrap();
        let _ = c.parameter(2, Shape::scalar(S32), "xi").unwrap();
        let _ = c.parameter(3, Shape::scalar(S32), "yi").unwrap();
        let r = c.lt(x, y).unwrap();
        c.build(r).unwrap()
    };
    drop(b);
    Comps {
        m: mb.module().clone(),
        add,
        add_s32,
        lt,
        ge,
        pair,
        cond,
        body,
        to_s32,
        lt2,
    }
}

#[test]
fn unary_types() {
    let m = empty();
    let f = a(F32, &[2, 3]);
    let i = a(S32, &[2]);
    let p = a(Pred, &[2]);
    assert_eq!(ok(&m, Op::Unary(UnaryOp::Exp), &[&f], None), "f32[2,3]");
    assert_eq!(
        err(&m, Op::Unary(UnaryOp::Exp), &[&i], None),
        "exponential: expects a floating-point operand, got s32[2]"
    );
    assert_eq!(
        err(&m, Op::Unary(UnaryOp::Popcnt), &[&f], None),
        "popcnt: expects an integer operand, got f32[2,3]"
    );
    assert_eq!(ok(&m, Op::Unary(UnaryOp::Popcnt), &[&i], None), "s32[2]");
    assert_eq!(ok(&m, Op::Unary(UnaryOp::Not), &[&p], None), "pred[2]");
    assert_eq!(ok(&m, Op::Unary(UnaryOp::Not), &[&i], None), "s32[2]");
    assert_eq!(
        err(&m, Op::Unary(UnaryOp::Not), &[&f], None),
        "not: expects a pred or integer operand, got f32[2,3]"
    );
    assert_eq!(
        ok(&m, Op::Unary(UnaryOp::IsFinite), &[&f], None),
        "pred[2,3]"
    );
    assert_eq!(
        err(&m, Op::Unary(UnaryOp::Negate), &[&p], None),
        "negate: expects a numeric operand, got pred[2]"
    );
    assert_eq!(ok(&m, Op::Unary(UnaryOp::Abs), &[&i], None), "s32[2]");
    assert_eq!(
        err(&m, Op::Unary(UnaryOp::Abs), &[&f, &f], None),
        "abs: expects 1 operand, got 2"
    );
    assert_eq!(
        err(&m, Op::Unary(UnaryOp::Abs), &[&Shape::tuple(vec![])], None),
        "abs: the operand must be an array, got ()"
    );
}

#[test]
fn binary_types_and_shapes() {
    let m = empty();
    let f23 = a(F32, &[2, 3]);
    let f3 = a(F32, &[3]);
    let i = a(S32, &[3]);
    let p = a(Pred, &[3]);
    let add = Op::Binary(BinaryOp::Add);
    assert_eq!(ok(&m, add.clone(), &[&f23, &f23], None), "f32[2,3]");
    assert_eq!(
        err(&m, add.clone(), &[&f23, &f3], None),
        "add: operands have different shapes f32[2,3] and f32[3]"
    );
    assert_eq!(
        err(&m, add.clone(), &[&f3, &i], None),
        "add: operands have different element types f32[3] and s32[3]"
    );
    assert_eq!(
        err(&m, add, &[&p, &p], None),
        "add: expects numeric operands, got pred[3]"
    );
    assert_eq!(
        ok(&m, Op::Binary(BinaryOp::And), &[&p, &p], None),
        "pred[3]"
    );
    assert_eq!(ok(&m, Op::Binary(BinaryOp::Xor), &[&i, &i], None), "s32[3]");
    assert_eq!(
        err(&m, Op::Binary(BinaryOp::Or), &[&f3, &f3], None),
        "or: expects pred or integer operands, got f32[3]"
    );
    assert_eq!(
        err(&m, Op::Binary(BinaryOp::ShiftLeft), &[&p, &p], None),
        "shift-left: expects integer operands, got pred[3]"
    );
    assert_eq!(
        ok(&m, Op::Binary(BinaryOp::ShiftRightLogical), &[&i, &i], None),
        "s32[3]"
    );
    assert_eq!(
        ok(&m, Op::Binary(BinaryOp::Maximum), &[&p, &p], None),
        "pred[3]"
    );
    assert_eq!(
        err(&m, Op::Binary(BinaryOp::Atan2), &[&i, &i], None),
        "atan2: expects floating-point operands, got s32[3]"
    );
    assert_eq!(
        ok(&m, Op::Binary(BinaryOp::Power), &[&i, &i], None),
        "s32[3]"
    );
}

#[test]
fn compare_select_clamp() {
    let m = empty();
    let f = a(F32, &[2, 3]);
    let f3 = a(F32, &[3]);
    let i = a(S32, &[2, 3]);
    let p = a(Pred, &[2, 3]);
    let ps = Shape::scalar(Pred);
    let cmp = |kind| Op::Compare {
        direction: ComparisonDirection::Lt,
        kind,
    };
    assert_eq!(ok(&m, cmp(None), &[&f, &f], None), "pred[2,3]");
    assert_eq!(
        ok(&m, cmp(Some(ComparisonType::TotalOrder)), &[&f, &f], None),
        "pred[2,3]"
    );
    assert_eq!(
        err(&m, cmp(None), &[&f, &i], None),
        "compare: operands have different element types f32[2,3] and s32[2,3]"
    );
    assert_eq!(
        err(&m, cmp(Some(ComparisonType::Float)), &[&i, &i], None),
        "compare: comparison type FLOAT needs floating-point operands, got s32[2,3]"
    );
    assert_eq!(ok(&m, Op::Select, &[&p, &f, &f], None), "f32[2,3]");
    assert_eq!(ok(&m, Op::Select, &[&ps, &f, &f], None), "f32[2,3]");
    assert_eq!(
        err(&m, Op::Select, &[&a(Pred, &[3]), &f, &f], None),
        "select: the selector pred[3] must be a scalar or have the dims of the operands f32[2,3]"
    );
    assert_eq!(
        err(&m, Op::Select, &[&i, &f, &f], None),
        "select: the selector must be a pred array, got s32[2,3]"
    );
    assert_eq!(
        err(&m, Op::Select, &[&p, &f, &i], None),
        "select: on_true and on_false have different shapes f32[2,3] and s32[2,3]"
    );
    let t = Shape::tuple(vec![f.clone(), i.clone()]);
    assert_eq!(
        ok(&m, Op::Select, &[&ps, &t, &t], None),
        "(f32[2,3], s32[2,3])"
    );
    assert_eq!(
        err(&m, Op::Select, &[&p, &t, &t], None),
        "select: selecting tuples needs a scalar pred, got pred[2,3]"
    );
    let fs = Shape::scalar(F32);
    assert_eq!(ok(&m, Op::Clamp, &[&fs, &f, &fs], None), "f32[2,3]");
    assert_eq!(ok(&m, Op::Clamp, &[&f, &f, &f], None), "f32[2,3]");
    assert_eq!(
        err(&m, Op::Clamp, &[&f3, &f, &fs], None),
        "clamp: min f32[3] must be a scalar or have the operand's shape f32[2,3]"
    );
    assert_eq!(
        err(&m, Op::Clamp, &[&Shape::scalar(S32), &f, &fs], None),
        "clamp: min s32[] has a different element type from the operand f32[2,3]"
    );
}

#[test]
fn converts() {
    let m = empty();
    let f = a(F32, &[2, 3]);
    assert_eq!(
        ok(&m, Op::Convert, &[&f], Some(&a(S32, &[2, 3]))),
        "s32[2,3]"
    );
    assert_eq!(
        err(&m, Op::Convert, &[&f], None),
        "convert: the result shape is not determined by the operands and none was declared"
    );
    let u8s = Shape::scalar(U8);
    assert_eq!(ok(&m, Op::BitcastConvert, &[&f], Some(&u8s)), "u8[2,3,4]");
    assert_eq!(
        ok(
            &m,
            Op::BitcastConvert,
            &[&a(U8, &[2, 4])],
            Some(&Shape::scalar(F32))
        ),
        "f32[2]"
    );
    assert_eq!(
        ok(&m, Op::BitcastConvert, &[&f], Some(&Shape::scalar(S32))),
        "s32[2,3]"
    );
    assert_eq!(
        err(
            &m,
            Op::BitcastConvert,
            &[&a(U8, &[2, 3])],
            Some(&Shape::scalar(F32))
        ),
        "bitcast-convert: converting u8[2,3] to the wider f32 needs a minor dimension of size 4"
    );
}

#[test]
fn broadcast_reshape_transpose_bitcast() {
    let m = empty();
    let x = a(F32, &[3]);
    let out = a(F32, &[2, 3]);
    let bc = |d: &[i64]| Op::Broadcast {
        dimensions: d.to_vec(),
    };
    assert_eq!(ok(&m, bc(&[1]), &[&x], Some(&out)), "f32[2,3]");
    assert_eq!(
        err(&m, bc(&[0]), &[&x], Some(&out)),
        "broadcast: operand dimension 0 of f32[3] (size 3) maps to result dimension 0 of f32[2,3] (size 2)"
    );
    // Unsorted dims (a folded transpose) are valid HLO; repeated ones are not.
    assert_eq!(
        ok(&m, bc(&[1, 0]), &[&a(F32, &[3, 2])], Some(&a(F32, &[2, 3]))),
        "f32[2,3]"
    );
    assert_eq!(
        err(&m, bc(&[1, 1]), &[&a(F32, &[3, 3])], Some(&a(F32, &[3, 3]))),
        "broadcast: dimensions [1, 1]: dimension 1 appears twice"
    );
    assert_eq!(
        err(&m, bc(&[1]), &[&x], None),
        "broadcast: the result shape is not determined by the operands and none was declared"
    );
    assert_eq!(
        ok(
            &m,
            Op::Reshape,
            &[&a(F32, &[4, 2, 3])],
            Some(&a(F32, &[8, 3]))
        ),
        "f32[8,3]"
    );
    assert_eq!(
        err(
            &m,
            Op::Reshape,
            &[&a(F32, &[4, 2, 3])],
            Some(&a(F32, &[5, 5]))
        ),
        "reshape: element counts differ: f32[4,2,3] has 24 elements, f32[5,5] has 25"
    );
    let tr = |p: &[i64]| Op::Transpose {
        permutation: p.to_vec(),
    };
    assert_eq!(
        ok(&m, tr(&[2, 0, 1]), &[&a(F32, &[4, 2, 3])], None),
        "f32[3,4,2]"
    );
    assert_eq!(
        err(&m, tr(&[0, 0, 1]), &[&a(F32, &[4, 2, 3])], None),
        "transpose: dimensions [0, 0, 1] is not a permutation of 0..3"
    );
    assert_eq!(
        ok(&m, Op::Bitcast, &[&a(F32, &[2, 3])], Some(&a(S32, &[6]))),
        "s32[6]"
    );
    assert_eq!(
        err(&m, Op::Bitcast, &[&a(F32, &[2, 3])], Some(&a(F32, &[7]))),
        "bitcast: byte sizes differ: f32[2,3]{1,0} has 24 bytes, f32[7]{0} has 28"
    );
    assert_eq!(ok(&m, Op::Copy, &[&x], None), "f32[3]");
}

#[test]
fn declared_layout_is_kept() {
    let m = empty();
    let declared = Shape::Array(
        rxla_ir::ArrayShape::with_layout(F32, vec![3, 2], Layout::column_major(2)).unwrap(),
    );
    let op = Op::Transpose {
        permutation: vec![1, 0],
    };
    let s = infer_shape(&m, &op, &[&a(F32, &[2, 3])], Some(&declared)).unwrap();
    assert_eq!(s.to_string(), "f32[3,2]{0,1}");
    // An incompatible declaration gives back the inferred shape (default
    // layout) for the caller to compare.
    let wrong = a(F32, &[2, 3]);
    let s = infer_shape(&m, &op, &[&a(F32, &[2, 3])], Some(&wrong)).unwrap();
    assert_eq!(s.to_string(), "f32[3,2]{1,0}");
}

#[test]
fn slices() {
    let m = empty();
    let x = a(F32, &[10, 4]);
    let sl = |s: &[i64], l: &[i64], st: &[i64]| Op::Slice {
        starts: s.to_vec(),
        limits: l.to_vec(),
        strides: st.to_vec(),
    };
    assert_eq!(
        ok(&m, sl(&[1, 0], &[8, 4], &[3, 1]), &[&x], None),
        "f32[3,4]"
    );
    assert_eq!(
        ok(&m, sl(&[2, 2], &[2, 4], &[1, 1]), &[&x], None),
        "f32[0,2]"
    );
    assert_eq!(
        err(&m, sl(&[0, 0], &[11, 4], &[1, 1]), &[&x], None),
        "slice: dimension 0: [0:11] is out of range for f32[10,4] (need 0 <= start <= limit <= 10)"
    );
    assert_eq!(
        err(&m, sl(&[3, 0], &[2, 4], &[1, 1]), &[&x], None),
        "slice: dimension 0: [3:2] is out of range for f32[10,4] (need 0 <= start <= limit <= 10)"
    );
    assert_eq!(
        err(&m, sl(&[0, 0], &[1, 4], &[1, 0]), &[&x], None),
        "slice: dimension 1: stride 0 must be >= 1"
    );
    let i = Shape::scalar(S32);
    let ds = |s: &[i64]| Op::DynamicSlice { sizes: s.to_vec() };
    assert_eq!(ok(&m, ds(&[2, 2]), &[&x, &i, &i], None), "f32[2,2]");
    assert_eq!(ok(&m, ds(&[2, 2]), &[&x, &a(S32, &[2])], None), "f32[2,2]");
    assert_eq!(
        err(&m, ds(&[2, 2]), &[&x, &i], None),
        "dynamic-slice: expects 2 scalar integer start indices, got (s32[])"
    );
    assert_eq!(
        err(&m, ds(&[2, 2]), &[&x, &i, &Shape::scalar(F32)], None),
        "dynamic-slice: start indices must be integers, got f32[]"
    );
    assert_eq!(
        err(&m, ds(&[2, 5]), &[&x, &i, &i], None),
        "dynamic-slice: slice size 5 of dimension 1 is out of range for f32[10,4] (need 0 <= size <= 4)"
    );
    let u = a(F32, &[2, 4]);
    assert_eq!(
        ok(&m, Op::DynamicUpdateSlice, &[&x, &u, &i, &i], None),
        "f32[10,4]"
    );
    assert_eq!(
        err(
            &m,
            Op::DynamicUpdateSlice,
            &[&x, &a(F32, &[2, 5]), &i, &i],
            None
        ),
        "dynamic-update-slice: the update f32[2,5] must have the operand's rank and fit in it (f32[10,4])"
    );
}

#[test]
fn concatenate_pad_reverse_iota() {
    let m = empty();
    let cat = |d| Op::Concatenate { dimension: d };
    let x = a(F32, &[2, 3]);
    let y = a(F32, &[2, 5]);
    assert_eq!(ok(&m, cat(1), &[&x, &y], None), "f32[2,8]");
    assert_eq!(
        err(&m, cat(0), &[&x, &y], None),
        "concatenate: operands f32[2,3] and f32[2,5] differ in dimension 1 (only dimension 0 may differ)"
    );
    let s = Shape::scalar(F32);
    assert_eq!(
        err(&m, cat(0), &[&s, &s], None),
        "concatenate: cannot concatenate scalars (f32[])"
    );
    assert_eq!(
        err(&m, cat(0), &[], None),
        "concatenate: expects at least one operand"
    );
    assert_eq!(
        err(&m, cat(1), &[&x, &a(S32, &[2, 3])], None),
        "concatenate: operands have different element types f32[2,3] and s32[2,3]"
    );
    let pd = |l, h, i| PadDim {
        low: l,
        high: h,
        interior: i,
    };
    let pad = |c: Vec<PadDim>| Op::Pad { config: c };
    assert_eq!(
        ok(&m, pad(vec![pd(1, 2, 0), pd(-1, 0, 1)]), &[&x, &s], None),
        "f32[5,4]"
    );
    assert_eq!(
        err(&m, pad(vec![pd(0, 0, 0), pd(-3, -3, 0)]), &[&x, &s], None),
        "pad: dimension 1: padding -3_-3_0 of size 3 gives negative size -3"
    );
    assert_eq!(
        err(&m, pad(vec![pd(0, 0, -1), pd(0, 0, 0)]), &[&x, &s], None),
        "pad: dimension 0: interior padding -1 must be >= 0"
    );
    assert_eq!(
        err(&m, pad(vec![pd(0, 0, 0)]), &[&x, &s], None),
        "pad: padding has 1 dimensions but the operand f32[2,3] has rank 2"
    );
    let rev = |d: &[i64]| Op::Reverse {
        dimensions: d.to_vec(),
    };
    assert_eq!(ok(&m, rev(&[0, 1]), &[&x], None), "f32[2,3]");
    assert_eq!(
        err(&m, rev(&[1, 1]), &[&x], None),
        "reverse: dimensions [1, 1]: dimension 1 appears twice"
    );
    assert_eq!(
        ok(&m, Op::Iota { dimension: 1 }, &[], Some(&a(S32, &[2, 3]))),
        "s32[2,3]"
    );
    assert_eq!(
        err(&m, Op::Iota { dimension: 2 }, &[], Some(&a(S32, &[2, 3]))),
        "iota: iota_dimension 2 is out of range for s32[2,3]"
    );
}

fn dd(lb: &[i64], lc: &[i64], rb: &[i64], rc: &[i64]) -> Op {
    Op::Dot {
        dims: DotDims {
            lhs_batch: lb.to_vec(),
            lhs_contracting: lc.to_vec(),
            rhs_batch: rb.to_vec(),
            rhs_contracting: rc.to_vec(),
        },
    }
}

#[test]
fn dot_shapes() {
    let m = empty();
    let l = a(F32, &[2, 3]);
    let r = a(F32, &[3, 4]);
    assert_eq!(
        ok(&m, dd(&[], &[1], &[], &[0]), &[&l, &r], None),
        "f32[2,4]"
    );
    assert_eq!(
        ok(
            &m,
            dd(&[], &[0], &[], &[0]),
            &[&a(F32, &[3]), &a(F32, &[3])],
            None
        ),
        "f32[]"
    );
    let bl = a(F32, &[5, 2, 3]);
    let br = a(F32, &[5, 3, 4]);
    assert_eq!(
        ok(&m, dd(&[0], &[2], &[0], &[1]), &[&bl, &br], None),
        "f32[5,2,4]"
    );
    assert_eq!(
        err(&m, dd(&[], &[0], &[], &[0]), &[&l, &r], None),
        "dot: contracting dimension sizes differ: lhs f32[2,3] dimension 0 vs rhs f32[3,4] dimension 0"
    );
    assert_eq!(
        err(&m, dd(&[], &[2], &[], &[0]), &[&l, &r], None),
        "dot: lhs contracting dimension 2 is out of range for rank 2"
    );
    // A declared (preferred) element type.
    let bf = a(BF16, &[2, 3]);
    let bfr = a(BF16, &[3, 4]);
    assert_eq!(
        ok(
            &m,
            dd(&[], &[1], &[], &[0]),
            &[&bf, &bfr],
            Some(&a(F32, &[2, 4]))
        ),
        "f32[2,4]"
    );
}

fn window(sizes: &[i64], strides: &[i64], pads: &[(i64, i64)]) -> Window {
    Window {
        dims: sizes
            .iter()
            .zip(strides)
            .zip(pads)
            .map(|((&s, &st), &(lo, hi))| WindowDim {
                stride: st,
                pad_low: lo,
                pad_high: hi,
                ..WindowDim::new(s)
            })
            .collect(),
    }
}

fn conv(w: Window, dims: ConvDims, fgc: i64, bgc: i64) -> Op {
    Op::Convolution {
        window: w,
        dims,
        feature_group_count: fgc,
        batch_group_count: bgc,
    }
}

#[test]
fn convolution_shapes() {
    let m = empty();
    // b01f_01io->b01f
    let nhwc = ConvDims::nhwc(2);
    let lhs = a(F32, &[1, 5, 5, 3]);
    let rhs = a(F32, &[3, 3, 3, 8]);
    let w = window(&[3, 3], &[1, 1], &[(1, 1), (1, 1)]);
    assert_eq!(
        ok(&m, conv(w, nhwc.clone(), 1, 1), &[&lhs, &rhs], None),
        "f32[1,5,5,8]"
    );
    let w = window(&[3, 3], &[2, 2], &[(0, 0), (0, 0)]);
    assert_eq!(
        ok(&m, conv(w, nhwc.clone(), 1, 1), &[&lhs, &rhs], None),
        "f32[1,2,2,8]"
    );
    // Dilations: lhs dilation 2 makes 5 -> 9, rhs dilation 2 makes 3 -> 5.
    let mut w = window(&[3, 3], &[1, 1], &[(0, 0), (0, 0)]);
    w.dims[0].base_dilation = 2;
    w.dims[1].window_dilation = 2;
    assert_eq!(
        ok(&m, conv(w, nhwc.clone(), 1, 1), &[&lhs, &rhs], None),
        "f32[1,7,1,8]"
    );
    // Feature groups (spec layout bf01_oi01->bf01).
    let w = window(&[3, 3], &[1, 1], &[(0, 0), (0, 0)]);
    assert_eq!(
        ok(
            &m,
            conv(w.clone(), ConvDims::nchw(2), 2, 1),
            &[&a(F32, &[1, 4, 5, 5]), &a(F32, &[8, 2, 3, 3])],
            None
        ),
        "f32[1,8,3,3]"
    );
    assert_eq!(
        err(
            &m,
            conv(w.clone(), ConvDims::nchw(2), 1, 1),
            &[&a(F32, &[1, 4, 5, 5]), &a(F32, &[8, 2, 3, 3])],
            None
        ),
        "convolution: input features 4 / feature_group_count 1 must equal the kernel's input features 2 (lhs f32[1,4,5,5], rhs f32[8,2,3,3])"
    );
    // Batch groups: batch 4 / 2 groups, output features 6.
    assert_eq!(
        ok(
            &m,
            conv(w.clone(), ConvDims::nchw(2), 1, 2),
            &[&a(F32, &[4, 3, 5, 5]), &a(F32, &[6, 3, 3, 3])],
            None
        ),
        "f32[2,6,3,3]"
    );
    let w2 = window(&[2, 3], &[1, 1], &[(0, 0), (0, 0)]);
    assert_eq!(
        err(
            &m,
            conv(w2, ConvDims::nchw(2), 1, 1),
            &[&a(F32, &[1, 3, 5, 5]), &a(F32, &[8, 3, 3, 3])],
            None
        ),
        "convolution: window dimension 0 has size 2 but the kernel f32[8,3,3,3] has 3 there"
    );
    // A kernel with a zero spatial size is a window of size 0 (issue 20).
    let wz = window(&[0, 3], &[1, 1], &[(0, 0), (0, 0)]);
    assert_eq!(
        err(
            &m,
            conv(wz, ConvDims::nchw(2), 1, 1),
            &[&a(F32, &[1, 3, 5, 5]), &a(F32, &[8, 3, 0, 3])],
            None
        ),
        "convolution: window dimension 0 has size 0, expected >= 1"
    );
}

#[test]
fn reductions() {
    let c = comps();
    let m = &c.m;
    let x = a(F32, &[2, 3]);
    let xi = a(S32, &[2, 3]);
    let f = Shape::scalar(F32);
    let i = Shape::scalar(S32);
    let red = |d: &[i64], to_apply| Op::Reduce {
        dimensions: d.to_vec(),
        to_apply,
    };
    assert_eq!(ok(m, red(&[1], c.add), &[&x, &f], None), "f32[2]");
    assert_eq!(ok(m, red(&[0, 1], c.add), &[&x, &f], None), "f32[]");
    assert_eq!(
        ok(m, red(&[1], c.pair), &[&x, &xi, &f, &i], None),
        "(f32[2], s32[2])"
    );
    assert_eq!(
        err(m, red(&[1], c.add_s32), &[&x, &f], None),
        "reduce: the reduction computation add_s32 must have signature (f32[], f32[]) -> f32[], got (s32[], s32[]) -> s32[]"
    );
    assert_eq!(
        err(m, red(&[1], c.add), &[&x, &i], None),
        "reduce: init value 0 must be a f32 scalar (the type of input f32[2,3]), got s32[]"
    );
    assert_eq!(
        err(m, red(&[2], c.add), &[&x, &f], None),
        "reduce: dimensions [2]: dimension 2 is out of range for rank 2"
    );
    assert_eq!(
        err(m, red(&[1], CompId(99)), &[&x, &f], None),
        "reduce: calls computation comp#99 which does not exist (the module has 9)"
    );
    // ReduceWindow: the spec's 4x6 array with a 2x3 window, stride 2x3.
    let rw = |w, to_apply| Op::ReduceWindow {
        window: w,
        to_apply,
    };
    let x46 = a(F32, &[4, 6]);
    let w = window(&[2, 3], &[2, 3], &[(0, 0), (0, 0)]);
    assert_eq!(ok(m, rw(w.clone(), c.add), &[&x46, &f], None), "f32[2,2]");
    let wp = window(&[2, 3], &[1, 1], &[(0, 1), (1, 1)]);
    assert_eq!(ok(m, rw(wp, c.add), &[&x46, &f], None), "f32[4,6]");
    assert_eq!(
        ok(
            m,
            rw(w.clone(), c.pair),
            &[&x46, &a(S32, &[4, 6]), &f, &i],
            None
        ),
        "(f32[2,2], s32[2,2])"
    );
    assert_eq!(
        err(
            m,
            rw(window(&[2], &[1], &[(0, 0)]), c.add),
            &[&x46, &f],
            None
        ),
        "reduce-window: the window has 1 dimensions but the input f32[4,6] has rank 2"
    );
    // Issue 20: XLA requires size, stride and both dilations >= 1.
    let w0 = window(&[2, 0], &[1, 1], &[(0, 0), (0, 0)]);
    assert_eq!(
        err(m, rw(w0.clone(), c.add), &[&x46, &f], None),
        "reduce-window: window dimension 1 has size 0, expected >= 1"
    );
    let s0 = window(&[2, 3], &[0, 1], &[(0, 0), (0, 0)]);
    assert_eq!(
        err(m, rw(s0, c.add), &[&x46, &f], None),
        "reduce-window: window dimension 0 has stride 0, expected >= 1"
    );
    let mut d0 = window(&[2, 3], &[1, 1], &[(0, 0), (0, 0)]);
    d0.dims[1].window_dilation = 0;
    assert_eq!(
        err(m, rw(d0, c.add), &[&x46, &f], None),
        "reduce-window: window dimension 1 has dilations lhs=1 rhs=0, expected >= 1"
    );
    // SelectAndScatter.
    let sas = |w| Op::SelectAndScatter {
        window: w,
        select: c.ge,
        scatter: c.add,
    };
    let src = a(F32, &[2, 2]);
    assert_eq!(ok(m, sas(w.clone()), &[&x46, &src, &f], None), "f32[4,6]");
    assert_eq!(
        err(m, sas(w.clone()), &[&x46, &a(F32, &[2, 3]), &f], None),
        "select-and-scatter: the source must have the windowed operand's shape f32[2,2], got f32[2,3]"
    );
    assert_eq!(
        err(m, sas(w0), &[&x46, &src, &f], None),
        "select-and-scatter: window dimension 1 has size 0, expected >= 1"
    );
    let bad = Op::SelectAndScatter {
        window: w,
        select: c.add,
        scatter: c.add,
    };
    assert_eq!(
        err(m, bad, &[&x46, &src, &f], None),
        "select-and-scatter: the select computation add_f32 must have signature (f32[], f32[]) -> pred[], got (f32[], f32[]) -> f32[]"
    );
}

#[test]
fn map_sort_all_reduce() {
    let c = comps();
    let m = &c.m;
    let x = a(F32, &[2, 3]);
    let map = |f| Op::Map {
        dimensions: vec![0, 1],
        to_apply: f,
    };
    assert_eq!(ok(m, map(c.to_s32), &[&x], None), "s32[2,3]");
    assert_eq!(
        err(m, map(c.add), &[&x], None),
        "map: computation add_f32 must take scalars (f32[]) and return a scalar, got (f32[], f32[]) -> f32[]"
    );
    let sort = |d, f| Op::Sort {
        dimension: d,
        is_stable: false,
        comparator: f,
    };
    assert_eq!(ok(m, sort(1, c.lt), &[&x], None), "f32[2,3]");
    assert_eq!(
        ok(m, sort(0, c.lt2), &[&x, &a(S32, &[2, 3])], None),
        "(f32[2,3], s32[2,3])"
    );
    assert_eq!(
        err(m, sort(0, c.lt), &[&x, &a(S32, &[2, 3])], None),
        "sort: the comparator compare_LT_f32 must have signature (f32[], f32[], s32[], s32[]) -> pred[], got (f32[], f32[]) -> pred[]"
    );
    assert_eq!(
        err(m, sort(2, c.lt), &[&x], None),
        "sort: dimension 2 is out of range for f32[2,3]"
    );
    let ar = Op::AllReduce {
        to_apply: c.add,
        attrs: Default::default(),
    };
    assert_eq!(ok(m, ar.clone(), &[&x], None), "f32[2,3]");
    assert_eq!(ok(m, ar, &[&x, &x], None), "(f32[2,3], f32[2,3])");
}

#[test]
fn gather_and_scatter() {
    let c = comps();
    let m = &c.m;
    let operand = a(F32, &[5, 4]);
    let idx = a(S32, &[3, 1]);
    let g = |d: GatherDims, s: &[i64]| Op::Gather {
        dims: d,
        slice_sizes: s.to_vec(),
        indices_are_sorted: false,
    };
    let take = GatherDims {
        offset_dims: vec![1],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 1,
        ..GatherDims::default()
    };
    assert_eq!(
        ok(m, g(take.clone(), &[1, 4]), &[&operand, &idx], None),
        "f32[3,4]"
    );
    // Implicit trailing index vector dim.
    let take2 = GatherDims {
        index_vector_dim: 1,
        ..take.clone()
    };
    assert_eq!(
        ok(m, g(take2, &[1, 4]), &[&operand, &a(S32, &[3])], None),
        "f32[3,4]"
    );
    assert_eq!(
        err(m, g(take.clone(), &[2, 4]), &[&operand, &idx], None),
        "gather: collapsed or batching dimension 0 must have slice size 1, got 2"
    );
    assert_eq!(
        err(m, g(take.clone(), &[1, 5]), &[&operand, &idx], None),
        "gather: slice size 5 of dimension 1 is out of range for f32[5,4] (0..=4)"
    );
    assert_eq!(
        err(
            m,
            g(take.clone(), &[1, 4]),
            &[&operand, &a(F32, &[3, 1])],
            None
        ),
        "gather: indices must be integers, got f32[3,1]"
    );
    // Batching dims: operand [2,5,4], indices [2,3,1].
    let batched = GatherDims {
        offset_dims: vec![2],
        collapsed_slice_dims: vec![1],
        start_index_map: vec![1],
        index_vector_dim: 2,
        operand_batching_dims: vec![0],
        start_indices_batching_dims: vec![0],
    };
    assert_eq!(
        ok(
            m,
            g(batched.clone(), &[1, 1, 4]),
            &[&a(F32, &[2, 5, 4]), &a(S32, &[2, 3, 1])],
            None
        ),
        "f32[2,3,4]"
    );
    assert_eq!(
        err(
            m,
            g(batched, &[1, 1, 4]),
            &[&a(F32, &[2, 5, 4]), &a(S32, &[3, 3, 1])],
            None
        ),
        "gather: batching dimension sizes differ: operand dimension 0 is 2, indices dimension 0 is 3"
    );
    let sd = ScatterDims {
        update_window_dims: vec![1],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..ScatterDims::default()
    };
    let sc = |d: ScatterDims| Op::Scatter {
        dims: d,
        to_apply: c.add,
        indices_are_sorted: false,
        unique_indices: false,
    };
    assert_eq!(
        ok(m, sc(sd.clone()), &[&operand, &idx, &a(F32, &[3, 4])], None),
        "f32[5,4]"
    );
    assert_eq!(
        err(m, sc(sd.clone()), &[&operand, &idx, &a(F32, &[2, 4])], None),
        "scatter: update scatter dimension 0 of f32[2,4] has size 2 but the indices give 3"
    );
    assert_eq!(
        err(m, sc(sd.clone()), &[&operand, &idx, &a(F32, &[3, 5])], None),
        "scatter: update window dimension 1 of f32[3,5] (size 5) exceeds operand dimension 1 of f32[5,4]"
    );
    assert_eq!(
        err(m, sc(sd), &[&operand, &idx], None),
        "scatter: expects N operands, the indices and N updates (an odd count >= 3), got 2"
    );
}

#[test]
fn control_flow() {
    let c = comps();
    let m = &c.m;
    let i = Shape::scalar(S32);
    let f = Shape::scalar(F32);
    assert_eq!(
        ok(m, Op::Call { to_apply: c.add }, &[&f, &f], None),
        "f32[]"
    );
    assert_eq!(
        err(m, Op::Call { to_apply: c.add }, &[&f], None),
        "call: arguments (f32[]) do not match the parameters of add_f32 (f32[], f32[]) -> f32[]"
    );
    let fusion = Op::Fusion {
        kind: FusionKind("kLoop".into()),
        calls: c.body,
    };
    assert_eq!(ok(m, fusion, &[&i], None), "s32[]");
    let w = |cond, body| Op::While {
        condition: cond,
        body,
    };
    assert_eq!(ok(m, w(c.cond, c.body), &[&i], None), "s32[]");
    assert_eq!(
        err(m, w(c.body, c.body), &[&i], None),
        "while: the condition body must have signature (s32[]) -> pred[], got (s32[]) -> s32[]"
    );
    assert_eq!(
        err(m, w(c.cond, c.to_s32), &[&i], None),
        "while: the body to_s32 must have signature (s32[]) -> s32[], got (f32[]) -> s32[]"
    );
    let cond = |b: Vec<CompId>| Op::Conditional { branches: b };
    let p = Shape::scalar(Pred);
    assert_eq!(
        ok(m, cond(vec![c.body, c.body]), &[&p, &i, &i], None),
        "s32[]"
    );
    assert_eq!(
        ok(
            m,
            cond(vec![c.body, c.body, c.body]),
            &[&i, &i, &i, &i],
            None
        ),
        "s32[]"
    );
    assert_eq!(
        err(
            m,
            cond(vec![c.body, c.body, c.body]),
            &[&p, &i, &i, &i],
            None
        ),
        "conditional: a pred selector needs 2 branches, got 3"
    );
    assert_eq!(
        err(m, cond(vec![c.body, c.to_s32]), &[&p, &i, &i], None),
        "conditional: branch 1 (to_s32) must take one parameter of shape s32[], got (f32[]) -> s32[]"
    );
    assert_eq!(
        err(m, cond(vec![c.body, c.cond]), &[&p, &i, &i], None),
        "conditional: branch 1 (cond) returns pred[] but branch 0 returns s32[]"
    );
    let t = Shape::tuple(vec![f.clone(), i.clone()]);
    assert_eq!(ok(m, Op::Tuple, &[&f, &i], None), "(f32[], s32[])");
    assert_eq!(
        ok(m, Op::GetTupleElement { index: 1 }, &[&t], None),
        "s32[]"
    );
    assert_eq!(
        err(m, Op::GetTupleElement { index: 2 }, &[&t], None),
        "get-tuple-element: index 2 is out of range for (f32[], s32[]) (2 elements)"
    );
    assert_eq!(
        err(m, Op::GetTupleElement { index: 0 }, &[&f], None),
        "get-tuple-element: the operand must be a tuple, got f32[]"
    );
}

#[test]
fn leaves_and_effects() {
    let m = empty();
    let f = a(F32, &[2]);
    let tok = Shape::token();
    assert_eq!(ok(&m, Op::Parameter { number: 0 }, &[], Some(&f)), "f32[2]");
    assert_eq!(
        ok(
            &m,
            Op::Constant {
                literal: Literal::vec1(vec![1i32, 2, 3])
            },
            &[],
            None
        ),
        "s32[3]"
    );
    let cc = Op::CustomCall {
        target: "myfunc".into(),
        has_side_effect: false,
        called: vec![],
    };
    assert_eq!(ok(&m, cc.clone(), &[&f], Some(&f)), "f32[2]");
    assert_eq!(
        err(&m, cc, &[&f], None),
        "custom-call: the result shape is not determined by the operands and none was declared"
    );
    assert_eq!(ok(&m, Op::AfterAll, &[], None), "token[]");
    assert_eq!(
        err(&m, Op::AfterAll, &[&f], None),
        "after-all: operands must be tokens, got f32[2]"
    );
    let inf = Shape::tuple(vec![f.clone(), tok.clone()]);
    assert_eq!(
        ok(
            &m,
            Op::Infeed {
                config: String::new()
            },
            &[&tok],
            Some(&inf)
        ),
        "(f32[2], token[])"
    );
    assert_eq!(
        err(
            &m,
            Op::Infeed {
                config: String::new()
            },
            &[&tok],
            Some(&f)
        ),
        "infeed: the result must be a (data, token[]) tuple, got f32[2]"
    );
    assert_eq!(
        ok(
            &m,
            Op::Outfeed {
                config: String::new()
            },
            &[&f, &tok],
            None
        ),
        "token[]"
    );
    let fs = Shape::scalar(F32);
    let rng = |d| Op::Rng { distribution: d };
    assert_eq!(
        ok(&m, rng(RngDistribution::Normal), &[&fs, &fs], Some(&f)),
        "f32[2]"
    );
    let is = Shape::scalar(S32);
    assert_eq!(
        err(
            &m,
            rng(RngDistribution::Normal),
            &[&is, &is],
            Some(&a(S32, &[2]))
        ),
        "rng: rng_normal does not support element type s32"
    );
    assert_eq!(
        ok(
            &m,
            rng(RngDistribution::Uniform),
            &[&is, &is],
            Some(&a(S32, &[2]))
        ),
        "s32[2]"
    );
    let state = a(U64, &[2]);
    let rbg = Op::RngBitGenerator {
        algorithm: RngAlgorithm::Default,
    };
    let decl = Shape::tuple(vec![state.clone(), a(U32, &[4, 4])]);
    assert_eq!(
        ok(&m, rbg.clone(), &[&state], Some(&decl)),
        "(u64[2], u32[4,4])"
    );
    assert_eq!(
        err(&m, rbg, &[&state], Some(&a(U32, &[4]))),
        "rng-bit-generator: the result must be a (state u64[2], bits) tuple, got u32[4]"
    );
    assert_eq!(ok(&m, Op::OptimizationBarrier, &[&f], None), "f32[2]");
}

/// A tiny deterministic generator for the no-panic sweep.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// Mostly small numbers, sometimes negative or absurd.
    fn int(&mut self) -> i64 {
        match self.below(10) {
            0 => -1 - self.below(3) as i64,
            1 => [i64::MAX, i64::MIN, 1 << 40, (1 << 40) + 1][self.below(4) as usize],
            _ => self.below(5) as i64,
        }
    }
    fn ints(&mut self) -> Vec<i64> {
        let n = self.below(4);
        (0..n).map(|_| self.int()).collect()
    }
    fn ty(&mut self) -> ElementType {
        ElementType::ALL[self.below(ElementType::ALL.len() as u64) as usize]
    }
    fn shape(&mut self) -> Shape {
        if self.below(8) == 0 {
            let n = self.below(3);
            return Shape::tuple((0..n).map(|_| self.shape()).collect());
        }
        let rank = self.below(4) as usize;
        let dims: Vec<i64> = (0..rank)
            .map(|_| {
                if self.below(12) == 0 {
                    self.int()
                } else {
                    self.below(4) as i64
                }
            })
            .collect();
        Shape::Array(rxla_ir::ArrayShape {
            element_type: self.ty(),
            layout: Layout::default_for_rank(dims.len()),
            dims,
            dynamic: rxla_ir::DynamicDims::STATIC,
        })
    }
    fn window(&mut self) -> Window {
        let n = self.below(4);
        Window {
            dims: (0..n)
                .map(|_| WindowDim {
                    size: self.int(),
                    stride: self.int(),
                    pad_low: self.int(),
                    pad_high: self.int(),
                    window_dilation: self.int(),
                    base_dilation: self.int(),
                    window_reversal: false,
                })
                .collect(),
        }
    }
    fn comp(&mut self, n: usize) -> CompId {
        CompId(self.below(n as u64 + 2) as u32)
    }
}

#[test]
fn random_inputs_never_panic() {
    let c = comps();
    let m = &c.m;
    let n = m.computations.len();
    let mut g = Lcg(42);
    for _ in 0..50000 {
        let op = match g.below(24) {
            0 => Op::Broadcast {
                dimensions: g.ints(),
            },
            1 => Op::Transpose {
                permutation: g.ints(),
            },
            2 => Op::Slice {
                starts: g.ints(),
                limits: g.ints(),
                strides: g.ints(),
            },
            3 => Op::DynamicSlice { sizes: g.ints() },
            4 => Op::Concatenate { dimension: g.int() },
            5 => Op::Pad {
                config: (0..g.below(4))
                    .map(|_| PadDim {
                        low: g.int(),
                        high: g.int(),
                        interior: g.int(),
                    })
                    .collect(),
            },
            6 => Op::Dot {
                dims: DotDims {
                    lhs_batch: g.ints(),
                    lhs_contracting: g.ints(),
                    rhs_batch: g.ints(),
                    rhs_contracting: g.ints(),
                },
            },
            7 => Op::Convolution {
                window: g.window(),
                dims: ConvDims {
                    input_batch: g.int(),
                    input_feature: g.int(),
                    input_spatial: g.ints(),
                    kernel_input_feature: g.int(),
                    kernel_output_feature: g.int(),
                    kernel_spatial: g.ints(),
                    output_batch: g.int(),
                    output_feature: g.int(),
                    output_spatial: g.ints(),
                },
                feature_group_count: g.int(),
                batch_group_count: g.int(),
            },
            8 => Op::Reduce {
                dimensions: g.ints(),
                to_apply: g.comp(n),
            },
            9 => Op::ReduceWindow {
                window: g.window(),
                to_apply: g.comp(n),
            },
            10 => Op::SelectAndScatter {
                window: g.window(),
                select: g.comp(n),
                scatter: g.comp(n),
            },
            11 => Op::Gather {
                dims: GatherDims {
                    offset_dims: g.ints(),
                    collapsed_slice_dims: g.ints(),
                    start_index_map: g.ints(),
                    index_vector_dim: g.int(),
                    operand_batching_dims: g.ints(),
                    start_indices_batching_dims: g.ints(),
                },
                slice_sizes: g.ints(),
                indices_are_sorted: false,
            },
            12 => Op::Scatter {
                dims: ScatterDims {
                    update_window_dims: g.ints(),
                    inserted_window_dims: g.ints(),
                    scatter_dims_to_operand_dims: g.ints(),
                    index_vector_dim: g.int(),
                    input_batching_dims: g.ints(),
                    scatter_indices_batching_dims: g.ints(),
                },
                to_apply: g.comp(n),
                indices_are_sorted: false,
                unique_indices: false,
            },
            13 => Op::Sort {
                dimension: g.int(),
                is_stable: false,
                comparator: g.comp(n),
            },
            14 => Op::Conditional {
                branches: (0..g.below(4)).map(|_| g.comp(n)).collect(),
            },
            15 => Op::While {
                condition: g.comp(n),
                body: g.comp(n),
            },
            16 => Op::Iota { dimension: g.int() },
            17 => Op::GetTupleElement { index: g.int() },
            18 => Op::Map {
                dimensions: g.ints(),
                to_apply: g.comp(n),
            },
            19 => Op::Reverse {
                dimensions: g.ints(),
            },
            20 => Op::Unary(UnaryOp::ALL[g.below(23) as usize]),
            21 => Op::Binary(BinaryOp::ALL[g.below(15) as usize]),
            22 => [
                Op::Reshape,
                Op::Bitcast,
                Op::BitcastConvert,
                Op::Convert,
                Op::Select,
                Op::Clamp,
            ][g.below(6) as usize]
                .clone(),
            _ => Op::Call {
                to_apply: g.comp(n),
            },
        };
        let shapes: Vec<Shape> = (0..g.below(5)).map(|_| g.shape()).collect();
        let refs: Vec<&Shape> = shapes.iter().collect();
        let declared = if g.below(2) == 0 {
            Some(g.shape())
        } else {
            None
        };
        let _ = infer_shape(m, &op, &refs, declared.as_ref());
    }
}
