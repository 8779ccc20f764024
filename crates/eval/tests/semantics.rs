//! Numeric and structural semantics of the evaluator, one decision per
//! test (see docs/SEMANTICS.md): integer division edge cases, conversion
//! saturation and rounding, compare (IEEE and total order), NaN and ±0 in
//! max/min, shifts, clamped dynamic slices, bitcast-convert, map/reduce
//! fast and general paths, control flow.

mod eval_support;
use eval_support::*;
use rxla_ir::Literal;

fn unary(ty_in: &str, ty_out: &str, op: &str, arg: Literal) -> Literal {
    let n = arg.as_array().unwrap().data.len();
    run(
        &format!(
            "HloModule m\nENTRY e {{\n p = {ty_in}[{n}] parameter(0)\n ROOT r = {ty_out}[{n}] {op}(p)\n}}\n"
        ),
        vec![arg],
    )
}

fn binary(ty: &str, ty_out: &str, op: &str, a: Literal, b: Literal) -> Literal {
    let n = a.as_array().unwrap().data.len();
    run(
        &format!(
            "HloModule m\nENTRY e {{\n a = {ty}[{n}] parameter(0)\n b = {ty}[{n}] parameter(1)\n ROOT r = {ty_out}[{n}] {op}(a, b)\n}}\n"
        ),
        vec![a, b],
    )
}

#[test]
fn integer_division_edge_cases() {
    let a = Literal::vec1(vec![7i32, -7, i32::MIN, 5, -5]);
    let b = Literal::vec1(vec![0i32, 0, -1, 2, 2]);
    let q = binary("s32", "s32", "divide", a.clone(), b.clone());
    assert_eq!(s32s(&q), [-1, -1, i32::MIN, 2, -2]);
    let r = binary("s32", "s32", "remainder", a, b);
    assert_eq!(s32s(&r), [7, -7, 0, 1, -1]);
    let uq = binary(
        "u32",
        "u32",
        "divide",
        Literal::vec1(vec![7u32, 9]),
        Literal::vec1(vec![0u32, 2]),
    );
    assert_eq!(values::<u32>(&uq).1, [u32::MAX, 4]);
    let ur = binary(
        "u32",
        "u32",
        "remainder",
        Literal::vec1(vec![7u32, 9]),
        Literal::vec1(vec![0u32, 2]),
    );
    assert_eq!(values::<u32>(&ur).1, [7, 1]);
    // Overflow wraps.
    let w = binary(
        "s32",
        "s32",
        "add",
        Literal::vec1(vec![i32::MAX]),
        Literal::vec1(vec![1i32]),
    );
    assert_eq!(s32s(&w), [i32::MIN]);
    let n = unary("s32", "s32", "negate", Literal::vec1(vec![i32::MIN]));
    assert_eq!(s32s(&n), [i32::MIN]);
}

#[test]
fn integer_power_and_shifts() {
    let p = binary(
        "s32",
        "s32",
        "power",
        Literal::vec1(vec![2i32, 2, 1, -1, -1, 0, 3]),
        Literal::vec1(vec![10i32, -1, -7, -3, -4, 0, 3]),
    );
    // Negative exponents give 0 except for base 1 (XLA CPU's EmitIntegerPow; -1 is not special).
    assert_eq!(s32s(&p), [1024, 0, 1, 0, 0, 1, 27]);
    let a = Literal::vec1(vec![1i32, -8, -8, 1, -1]);
    let b = Literal::vec1(vec![32i32, 1, 40, -1, 31]);
    assert_eq!(
        s32s(&binary("s32", "s32", "shift-left", a.clone(), b.clone())),
        [0, -16, 0, 0, i32::MIN]
    );
    assert_eq!(
        s32s(&binary(
            "s32",
            "s32",
            "shift-right-arithmetic",
            a.clone(),
            b.clone()
        )),
        [0, -4, -1, 0, -1]
    );
    assert_eq!(
        s32s(&binary("s32", "s32", "shift-right-logical", a, b)),
        [0, 0x7FFF_FFFC, 0, 0, 1]
    );
}

#[test]
fn popcnt_clz_sign_and_rounding() {
    let x = Literal::vec1(vec![0i32, 1, -1, 255]);
    assert_eq!(
        s32s(&unary("s32", "s32", "popcnt", x.clone())),
        [0, 1, 32, 8]
    );
    assert_eq!(
        s32s(&unary("s32", "s32", "count-leading-zeros", x.clone())),
        [32, 31, 0, 24]
    );
    assert_eq!(s32s(&unary("s32", "s32", "sign", x)), [0, 1, -1, 1]);
    let f = Literal::vec1(vec![-0.0f32, 0.0, f32::NAN, -3.5, 2.0]);
    let s = f32s(&unary("f32", "f32", "sign", f));
    assert!(s[0] == 0.0 && s[0].is_sign_negative());
    assert!(s[1] == 0.0 && s[1].is_sign_positive());
    assert!(s[2].is_nan());
    assert_eq!(&s[3..], &[-1.0, 1.0]);
    let h = Literal::vec1(vec![0.5f32, 1.5, 2.5, -0.5, -2.5]);
    assert_eq!(
        f32s(&unary("f32", "f32", "round-nearest-afz", h.clone())),
        [1.0, 2.0, 3.0, -1.0, -3.0]
    );
    assert_eq!(
        f32s(&unary("f32", "f32", "round-nearest-even", h)),
        [0.0, 2.0, 2.0, -0.0, -2.0]
    );
}

#[test]
fn convert_saturates_and_rounds() {
    let f = Literal::vec1(vec![
        1e10f32,
        -1e10,
        f32::NAN,
        2.7,
        -2.7,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ]);
    assert_eq!(
        s32s(&unary("f32", "s32", "convert", f.clone())),
        [i32::MAX, i32::MIN, 0, 2, -2, i32::MAX, i32::MIN]
    );
    assert_eq!(
        values::<u8>(&unary("f32", "u8", "convert", f.clone())).1,
        [255, 0, 0, 2, 0, 255, 0]
    );
    // int → float rounds to nearest even.
    let big = Literal::vec1(vec![16_777_217i32, 16_777_219, -16_777_217]);
    assert_eq!(
        f32s(&unary("s32", "f32", "convert", big)),
        [16_777_216.0, 16_777_220.0, -16_777_216.0]
    );
    // float → pred is x != 0; pred → number is 0/1.
    let p = Literal::vec1(vec![0.0f32, -0.0, f32::NAN, 0.5]);
    assert_eq!(
        preds(&unary("f32", "pred", "convert", p)),
        [false, false, true, true]
    );
    let b = Literal::vec1(vec![true, false]);
    assert_eq!(
        f32s(&unary("pred", "f32", "convert", b.clone())),
        [1.0, 0.0]
    );
    assert_eq!(s32s(&unary("pred", "s32", "convert", b)), [1, 0]);
    // int → int wraps.
    assert_eq!(
        values::<i8>(&unary(
            "s32",
            "s8",
            "convert",
            Literal::vec1(vec![300i32, -129])
        ))
        .1,
        [44, 127]
    );
    // f32 → f16 rounds, overflow to inf; bf16 arithmetic rounds once per op.
    let h = unary("f32", "f16", "convert", Literal::vec1(vec![1e6f32, 0.1]));
    let hv = values::<half::f16>(&h).1;
    assert!(hv[0].is_infinite());
    assert_eq!(hv[1], half::f16::from_f32(0.1));
}

#[test]
fn compare_ieee_and_total_order() {
    let nan = f32::NAN;
    let a = Literal::vec1(vec![nan, nan, -0.0f32, 1.0]);
    let b = Literal::vec1(vec![nan, 1.0, 0.0f32, 1.0]);
    let eq = run(
        "HloModule m\nENTRY e {\n a = f32[4] parameter(0)\n b = f32[4] parameter(1)\n ROOT r = pred[4] compare(a, b), direction=EQ\n}\n",
        vec![a.clone(), b.clone()],
    );
    assert_eq!(preds(&eq), [false, false, true, true]);
    let ne = run(
        "HloModule m\nENTRY e {\n a = f32[4] parameter(0)\n b = f32[4] parameter(1)\n ROOT r = pred[4] compare(a, b), direction=NE\n}\n",
        vec![a, b],
    );
    assert_eq!(preds(&ne), [true, true, false, false]);
    // Total order: -NaN < -inf < -1 < -0 < +0 < 1 < +inf < +NaN.
    let seq = [
        -nan,
        f32::NEG_INFINITY,
        -1.0,
        -0.0,
        0.0,
        1.0,
        f32::INFINITY,
        nan,
    ];
    let lo: Vec<f32> = seq[..7].to_vec();
    let hi: Vec<f32> = seq[1..].to_vec();
    let lt = run(
        "HloModule m\nENTRY e {\n a = f32[7] parameter(0)\n b = f32[7] parameter(1)\n ROOT r = pred[7] compare(a, b), direction=LT, type=TOTALORDER\n}\n",
        vec![Literal::vec1(lo.clone()), Literal::vec1(hi.clone())],
    );
    assert_eq!(preds(&lt), [true; 7]);
    let ge = run(
        "HloModule m\nENTRY e {\n a = f32[7] parameter(0)\n b = f32[7] parameter(1)\n ROOT r = pred[7] compare(a, b), direction=GE, type=TOTALORDER\n}\n",
        vec![Literal::vec1(lo), Literal::vec1(hi)],
    );
    assert_eq!(preds(&ge), [false; 7]);
    // Unsigned compare of large values.
    let u = run(
        "HloModule m\nENTRY e {\n a = u32[1] parameter(0)\n b = u32[1] parameter(1)\n ROOT r = pred[1] compare(a, b), direction=GT\n}\n",
        vec![Literal::vec1(vec![u32::MAX]), Literal::vec1(vec![1u32])],
    );
    assert_eq!(preds(&u), [true]);
}

#[test]
fn max_min_propagate_nan_and_order_zeros() {
    let a = Literal::vec1(vec![f32::NAN, 1.0, -0.0, 0.0, 2.0]);
    let b = Literal::vec1(vec![1.0f32, f32::NAN, 0.0, -0.0, 3.0]);
    let mx = f32s(&binary("f32", "f32", "maximum", a.clone(), b.clone()));
    assert!(mx[0].is_nan() && mx[1].is_nan());
    assert!(mx[2] == 0.0 && mx[2].is_sign_positive());
    assert!(mx[3] == 0.0 && mx[3].is_sign_positive());
    assert_eq!(mx[4], 3.0);
    let mn = f32s(&binary("f32", "f32", "minimum", a, b));
    assert!(mn[0].is_nan() && mn[1].is_nan());
    assert!(mn[2] == 0.0 && mn[2].is_sign_negative());
    assert!(mn[3] == 0.0 && mn[3].is_sign_negative());
    assert_eq!(mn[4], 2.0);
}

#[test]
fn transcendentals_follow_rust_std() {
    let x = Literal::vec1(vec![0.5f32, -1.25, 2.0]);
    let xs = [0.5f32, -1.25, 2.0];
    let check = |op: &str, f: fn(f32) -> f32| {
        let got = f32s(&unary("f32", "f32", op, x.clone()));
        let want: Vec<f32> = xs.iter().map(|&v| f(v)).collect();
        for (g, w) in got.iter().zip(&want) {
            assert!(
                g == w || (g.is_nan() && w.is_nan()),
                "{op}: {got:?} vs {want:?}"
            );
        }
    };
    check("exponential", f32::exp);
    check("exponential-minus-one", f32::exp_m1);
    check("log", f32::ln);
    check("log-plus-one", f32::ln_1p);
    check("tanh", f32::tanh);
    check("sine", f32::sin);
    check("cosine", f32::cos);
    check("tan", f32::tan);
    check("cbrt", f32::cbrt);
    check("sqrt", f32::sqrt);
    check("rsqrt", |v| 1.0 / v.sqrt());
    check("logistic", |v| 1.0 / (1.0 + (-v).exp()));
}

#[test]
fn dynamic_slices_clamp_start_indices() {
    let text = "HloModule m\nENTRY e {\n a = f32[5] parameter(0)\n s = s32[] parameter(1)\n ROOT d = f32[2] dynamic-slice(a, s), dynamic_slice_sizes={2}\n}\n";
    let a = Literal::vec1(vec![0.0f32, 1.0, 2.0, 3.0, 4.0]);
    assert_eq!(
        f32s(&run(text, vec![a.clone(), Literal::scalar(10i32)])),
        [3.0, 4.0]
    );
    assert_eq!(
        f32s(&run(text, vec![a.clone(), Literal::scalar(-3i32)])),
        [0.0, 1.0]
    );
    assert_eq!(
        f32s(&run(text, vec![a.clone(), Literal::scalar(i32::MIN)])),
        [0.0, 1.0]
    );
    let dus = "HloModule m\nENTRY e {\n a = f32[5] parameter(0)\n u = f32[2] parameter(1)\n s = s32[] parameter(2)\n ROOT d = f32[5] dynamic-update-slice(a, u, s)\n}\n";
    let u = Literal::vec1(vec![8.0f32, 9.0]);
    assert_eq!(
        f32s(&run(dus, vec![a.clone(), u.clone(), Literal::scalar(4i32)])),
        [0., 1., 2., 8., 9.]
    );
    assert_eq!(
        f32s(&run(dus, vec![a, u, Literal::scalar(-1i32)])),
        [8., 9., 2., 3., 4.]
    );
}

#[test]
fn bitcast_convert_same_and_changing_width() {
    let r = unary(
        "f32",
        "s32",
        "bitcast-convert",
        Literal::vec1(vec![1.0f32, -0.0]),
    );
    assert_eq!(s32s(&r), [0x3F80_0000, i32::MIN]);
    let wide = run(
        "HloModule m\nENTRY e {\n a = f32[2] parameter(0)\n ROOT r = u16[2,2] bitcast-convert(a)\n}\n",
        vec![Literal::vec1(vec![1.0f32, 2.0])],
    );
    assert_eq!(values::<u16>(&wide).1, [0x0000, 0x3F80, 0x0000, 0x4000]);
    let narrow = run(
        "HloModule m\nENTRY e {\n a = u16[2,2] parameter(0)\n ROOT r = f32[2] bitcast-convert(a)\n}\n",
        vec![Literal::mat(&[&[0u16, 0x3F80], &[0, 0x4000]]).unwrap()],
    );
    assert_eq!(f32s(&narrow), [1.0, 2.0]);
}

#[test]
fn iota_broadcast_transpose_reverse_clamp() {
    let r = run(
        "HloModule m\nENTRY e {\n ROOT i = s32[2,3] iota(), iota_dimension=1\n}\n",
        vec![],
    );
    assert_eq!(s32s(&r), [0, 1, 2, 0, 1, 2]);
    let b = run(
        "HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n ROOT b = f32[2,3] broadcast(p), dimensions={0}\n}\n",
        vec![Literal::vec1(vec![1.0f32, 2.0])],
    );
    assert_eq!(f32s(&b), [1., 1., 1., 2., 2., 2.]);
    let rv = run(
        "HloModule m\nENTRY e {\n p = f32[2,3] parameter(0)\n ROOT r = f32[2,3] reverse(p), dimensions={1}\n}\n",
        vec![Literal::mat(&[&[1.0f32, 2., 3.], &[4., 5., 6.]]).unwrap()],
    );
    assert_eq!(f32s(&rv), [3., 2., 1., 6., 5., 4.]);
    let c = run(
        "HloModule m\nENTRY e {\n lo = f32[] parameter(0)\n x = f32[4] parameter(1)\n hi = f32[] parameter(2)\n ROOT c = f32[4] clamp(lo, x, hi)\n}\n",
        vec![
            Literal::scalar(0.0f32),
            Literal::vec1(vec![-1.0f32, 0.5, 2.0, f32::NAN]),
            Literal::scalar(1.0f32),
        ],
    );
    let cv = f32s(&c);
    assert_eq!(&cv[..3], &[0.0, 0.5, 1.0]);
    assert!(cv[3].is_nan());
}

const GENERAL_ADD: &str = "gadd {\n x = f32[] parameter(0)\n y = f32[] parameter(1)\n one = f32[] constant(1)\n y1 = f32[] multiply(y, one)\n ROOT s = f32[] add(x, y1)\n}\n";
const FAST_ADD: &str =
    "fadd {\n x = f32[] parameter(0)\n y = f32[] parameter(1)\n ROOT s = f32[] add(x, y)\n}\n";

#[test]
fn reduce_fast_and_general_paths_agree_bit_for_bit() {
    // Values whose sum depends on the order: the fixed row-major order must match.
    let vals: Vec<f32> = (0..64)
        .map(|i| if i % 3 == 0 { 1e8 } else { 0.1 * i as f32 })
        .collect();
    let x = Literal::from_vec(&[4, 16], vals.clone()).unwrap();
    let text = |f: &str| {
        format!(
            "HloModule m\n{GENERAL_ADD}\n{FAST_ADD}\nENTRY e {{\n p = f32[4,16] parameter(0)\n z = f32[] constant(0.5)\n ROOT r = f32[16] reduce(p, z), dimensions={{0}}, to_apply={f}\n}}\n"
        )
    };
    let fast = run(&text("fadd"), vec![x.clone()]);
    let general = run(&text("gadd"), vec![x]);
    assert_eq!(fast, general);
    // Sequential from the init in row-major order of the reduced dims.
    let mut want = vec![0.5f32; 16];
    for r in 0..4 {
        for c in 0..16 {
            want[c] += vals[r * 16 + c];
        }
    }
    assert_eq!(f32s(&fast), want);
}

#[test]
fn variadic_reduce_argmax() {
    let text = "HloModule m
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(bv, av), direction=GT
  v = f32[] select(gt, bv, av)
  i = s32[] select(gt, bi, ai)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  p = f32[2,4] parameter(0)
  idx = s32[2,4] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[2], s32[2]) reduce(p, idx, ninf, zero), dimensions={1}, to_apply=argmax
}
";
    let x = Literal::mat(&[&[1.0f32, 5.0, 3.0, 5.0], &[-1.0, -2.0, 0.5, 0.25]]).unwrap();
    let r = run(text, vec![x]);
    let Literal::Tuple(t) = &r else {
        panic!("tuple")
    };
    assert_eq!(f32s(&t[0]), [5.0, 0.5]);
    assert_eq!(s32s(&t[1]), [1, 2]);
}

#[test]
fn map_fast_and_general() {
    let text = |f: &str| {
        format!(
            "HloModule m\n{GENERAL_ADD}\n{FAST_ADD}\nENTRY e {{\n a = f32[3] parameter(0)\n b = f32[3] parameter(1)\n ROOT r = f32[3] map(a, b), dimensions={{0}}, to_apply={f}\n}}\n"
        )
    };
    let a = Literal::vec1(vec![1.0f32, 2.0, 3.0]);
    let b = Literal::vec1(vec![0.5f32, 0.25, 0.125]);
    let fast = run(&text("fadd"), vec![a.clone(), b.clone()]);
    let general = run(&text("gadd"), vec![a, b]);
    assert_eq!(f32s(&fast), [1.5, 2.25, 3.125]);
    assert_eq!(fast, general);
}

#[test]
fn conditional_pred_and_index_out_of_range() {
    let text = "HloModule m
b0 {
  x = f32[] parameter(0)
  ROOT r = f32[] negate(x)
}
b1 {
  x = f32[] parameter(0)
  ROOT r = f32[] exponential(x)
}
b2 {
  x = f32[] parameter(0)
  ROOT r = f32[] add(x, x)
}
ENTRY e {
  i = s32[] parameter(0)
  x = f32[] parameter(1)
  ROOT c = f32[] conditional(i, x, x, x), branch_computations={b0, b1, b2}
}
";
    let go = |i: i32| {
        f32s(&run(
            text,
            vec![Literal::scalar(i), Literal::scalar(1.0f32)],
        ))[0]
    };
    assert_eq!(go(0), -1.0);
    assert_eq!(go(1), 1.0f32.exp());
    assert_eq!(go(2), 2.0);
    assert_eq!(go(7), 2.0, "out of range selects the last branch");
    assert_eq!(go(-1), 2.0, "negative selects the last branch");
    let pred = "HloModule m
t {
  x = f32[] parameter(0)
  ROOT r = f32[] negate(x)
}
f {
  x = f32[] parameter(0)
  ROOT r = f32[] add(x, x)
}
ENTRY e {
  p = pred[] parameter(0)
  x = f32[] parameter(1)
  ROOT c = f32[] conditional(p, x, x), true_computation=t, false_computation=f
}
";
    assert_eq!(
        f32s(&run(
            pred,
            vec![Literal::scalar(true), Literal::scalar(3.0f32)]
        )),
        [-3.0]
    );
    assert_eq!(
        f32s(&run(
            pred,
            vec![Literal::scalar(false), Literal::scalar(3.0f32)]
        )),
        [6.0]
    );
}

#[test]
fn call_fusion_and_opt_barrier() {
    let text = "HloModule m
sq {
  x = f32[2] parameter(0)
  ROOT r = f32[2] multiply(x, x)
}
fused {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  ROOT r = f32[2] subtract(a, b)
}
ENTRY e {
  p = f32[2] parameter(0)
  c = f32[2] call(p), to_apply=sq
  f = f32[2] fusion(c, p), kind=kLoop, calls=fused
  ROOT o = f32[2] opt-barrier(f)
}
";
    let r = run(text, vec![Literal::vec1(vec![3.0f32, -2.0])]);
    assert_eq!(f32s(&r), [6.0, 6.0]);
}

#[test]
fn half_types_round_once_per_op() {
    let a = Literal::vec1(vec![half::bf16::from_f32(1.0), half::bf16::from_f32(256.0)]);
    let b = Literal::vec1(vec![
        half::bf16::from_f32(1.0 / 256.0),
        half::bf16::from_f32(1.0),
    ]);
    let r = binary("bf16", "bf16", "add", a, b);
    // bf16 has 8 significand bits: 1 + 2^-8 rounds to 1; 256 + 1 rounds to 256.
    assert_eq!(
        values::<half::bf16>(&r).1,
        [half::bf16::from_f32(1.0), half::bf16::from_f32(256.0)]
    );
}

#[test]
fn scalar_program_agrees_with_the_general_interpreter() {
    let text = "HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  i = s32[] parameter(2)
  ne.a = pred[] compare(a, a), direction=NE
  nan = f32[] constant(nan)
  zero = f32[] constant(0)
  eq.a = pred[] compare(a, zero), direction=EQ
  s1 = f32[] select(eq.a, zero, a)
  s2 = f32[] select(ne.a, nan, s1)
  lt = pred[] compare(s2, b), direction=LT, type=TOTALORDER
  m = f32[] maximum(a, b)
  c = s32[] convert(m)
  d = s32[] divide(c, i)
  cl = f32[] clamp(zero, a, b)
  ROOT t = (pred[], s32[], f32[]) tuple(lt, d, cl)
}
ENTRY e {
  ROOT z = f32[] constant(0)
}
";
    let module = parse(text);
    let cid = module.find_computation("cmp").unwrap();
    let comp = module.comp(cid);
    let prog = rxla_eval::scalar::ScalarProgram::compile(comp, &comp.live_mask())
        .expect("an all-scalar computation compiles");
    let vals = [
        f32::NAN,
        -f32::NAN,
        -0.0,
        0.0,
        1.5,
        -2.5,
        f32::INFINITY,
        3e9,
    ];
    for &a in &vals {
        for &b in &vals {
            for i in [0i32, -1, 3] {
                let args = vec![Literal::scalar(a), Literal::scalar(b), Literal::scalar(i)];
                let general = rxla_eval::evaluate_computation(&module, cid, &args).unwrap();
                let fast = prog.run(&prog.scalar_args(&args).unwrap()).unwrap();
                assert_eq!(format!("{general}"), format!("{fast}"), "a={a} b={b} i={i}");
            }
        }
    }
}
