//! The worked examples of the specification (operation semantics and
//! shapes-and-layout pages), value for value, run through the evaluator
//! from HLO text.

mod eval_support;
use eval_support::*;
use rxla_ir::Literal;

fn r1(v: &[f32]) -> Literal {
    Literal::vec1(v.to_vec())
}

fn m(rows: &[&[f32]]) -> Literal {
    Literal::mat(rows).unwrap()
}

#[test]
fn collapse_and_reshape_in_order() {
    let flat = run(
        "HloModule m\nENTRY e {\n p = f32[4,2,3] parameter(0)\n ROOT r = f32[24] reshape(p)\n}\n",
        vec![spec_v()],
    );
    assert_eq!(
        f32s(&flat),
        [
            10., 11., 12., 15., 16., 17., 20., 21., 22., 25., 26., 27., 30., 31., 32., 35., 36.,
            37., 40., 41., 42., 45., 46., 47.
        ]
    );
    let v01 = run(
        "HloModule m\nENTRY e {\n p = f32[4,2,3] parameter(0)\n ROOT r = f32[4,6] reshape(p)\n}\n",
        vec![spec_v()],
    );
    let (dims, vals) = values::<f32>(&v01);
    assert_eq!(dims, [4, 6]);
    assert_eq!(&vals[6..12], &[20., 21., 22., 25., 26., 27.]);
    let v12 = run(
        "HloModule m\nENTRY e {\n p = f32[4,2,3] parameter(0)\n ROOT r = f32[8,3] reshape(p)\n}\n",
        vec![spec_v()],
    );
    let (dims, vals) = values::<f32>(&v12);
    assert_eq!(dims, [8, 3]);
    assert_eq!(&vals[3..9], &[15., 16., 17., 20., 21., 22.]);
    assert_eq!(&vals[21..], &[45., 46., 47.]);
}

#[test]
fn reshape_out_of_order() {
    // Reshape(v, {1,2,0}, sizes) = reshape(transpose(v, {1,2,0})).
    let text = |shape: &str| {
        format!(
            "HloModule m\nENTRY e {{\n p = f32[4,2,3] parameter(0)\n t = f32[2,3,4] transpose(p), dimensions={{1,2,0}}\n ROOT r = {shape} reshape(t)\n}}\n"
        )
    };
    let v24 = run(&text("f32[24]"), vec![spec_v()]);
    assert_eq!(
        f32s(&v24),
        [
            10., 20., 30., 40., 11., 21., 31., 41., 12., 22., 32., 42., 15., 25., 35., 45., 16.,
            26., 36., 46., 17., 27., 37., 47.
        ]
    );
    let v83 = run(&text("f32[8,3]"), vec![spec_v()]);
    assert_eq!(values::<f32>(&v83).0, [8, 3]);
    assert_eq!(&f32s(&v83)[..6], &[10., 20., 30., 40., 11., 21.]);
    let v262 = run(&text("f32[2,6,2]"), vec![spec_v()]);
    let (dims, vals) = values::<f32>(&v262);
    assert_eq!(dims, [2, 6, 2]);
    assert_eq!(&vals[12..16], &[15., 25., 35., 45.]);
    assert_eq!(&vals[20..], &[17., 27., 37., 47.]);
}

#[test]
fn reshape_scalar_and_back() {
    let s = run(
        "HloModule m\nENTRY e {\n p = f32[1,1] parameter(0)\n ROOT r = f32[] reshape(p)\n}\n",
        vec![m(&[&[5.0]])],
    );
    assert_eq!(s, Literal::scalar(5.0f32));
    let back = run(
        "HloModule m\nENTRY e {\n p = f32[] parameter(0)\n ROOT r = f32[1,1] reshape(p)\n}\n",
        vec![Literal::scalar(5.0f32)],
    );
    assert_eq!(back, m(&[&[5.0]]));
}

#[test]
fn concatenate_examples() {
    let one = run(
        "HloModule m\nENTRY e {\n a = f32[2] parameter(0)\n b = f32[2] parameter(1)\n c = f32[2] parameter(2)\n ROOT r = f32[6] concatenate(a, b, c), dimensions={0}\n}\n",
        vec![r1(&[2., 3.]), r1(&[4., 5.]), r1(&[6., 7.])],
    );
    assert_eq!(f32s(&one), [2., 3., 4., 5., 6., 7.]);
    let two = run(
        "HloModule m\nENTRY e {\n a = f32[3,2] parameter(0)\n b = f32[1,2] parameter(1)\n ROOT r = f32[4,2] concatenate(a, b), dimensions={0}\n}\n",
        vec![m(&[&[1., 2.], &[3., 4.], &[5., 6.]]), m(&[&[7., 8.]])],
    );
    assert_eq!(f32s(&two), [1., 2., 3., 4., 5., 6., 7., 8.]);
    // Along the minor dimension too.
    let cols = run(
        "HloModule m\nENTRY e {\n a = f32[2,1] parameter(0)\n b = f32[2,2] parameter(1)\n ROOT r = f32[2,3] concatenate(a, b), dimensions={1}\n}\n",
        vec![m(&[&[1.], &[2.]]), m(&[&[3., 4.], &[5., 6.]])],
    );
    assert_eq!(f32s(&cols), [1., 3., 4., 2., 5., 6.]);
}

#[test]
fn convert_element_type_example() {
    let b = run(
        "HloModule m\nENTRY e {\n a = s32[3] parameter(0)\n ROOT b = f32[3] convert(a)\n}\n",
        vec![Literal::vec1(vec![0i32, 1, 2])],
    );
    assert_eq!(b, r1(&[0.0, 1.0, 2.0]));
}

fn spec_b() -> Literal {
    m(&[&[0., 1., 2.], &[3., 4., 5.], &[6., 7., 8.], &[9., 10., 11.]])
}

#[test]
fn slice_examples() {
    let a = run(
        "HloModule m\nENTRY e {\n a = f32[5] parameter(0)\n ROOT s = f32[2] slice(a), slice={[2:4]}\n}\n",
        vec![r1(&[0., 1., 2., 3., 4.])],
    );
    assert_eq!(f32s(&a), [2., 3.]);
    let b = run(
        "HloModule m\nENTRY e {\n b = f32[4,3] parameter(0)\n ROOT s = f32[2,2] slice(b), slice={[2:4], [1:3]}\n}\n",
        vec![spec_b()],
    );
    assert_eq!(f32s(&b), [7., 8., 10., 11.]);
    let strided = run(
        "HloModule m\nENTRY e {\n b = f32[4,3] parameter(0)\n ROOT s = f32[2,2] slice(b), slice={[0:4:2], [0:3:2]}\n}\n",
        vec![spec_b()],
    );
    assert_eq!(f32s(&strided), [0., 2., 6., 8.]);
}

#[test]
fn dynamic_slice_examples() {
    let a = run(
        "HloModule m\nENTRY e {\n a = f32[5] parameter(0)\n s = s32[] parameter(1)\n ROOT d = f32[2] dynamic-slice(a, s), dynamic_slice_sizes={2}\n}\n",
        vec![r1(&[0., 1., 2., 3., 4.]), Literal::scalar(2i32)],
    );
    assert_eq!(f32s(&a), [2., 3.]);
    let b = run(
        "HloModule m\nENTRY e {\n b = f32[4,3] parameter(0)\n i = s32[] parameter(1)\n j = s32[] parameter(2)\n ROOT d = f32[2,2] dynamic-slice(b, i, j), dynamic_slice_sizes={2,2}\n}\n",
        vec![spec_b(), Literal::scalar(2i32), Literal::scalar(1i32)],
    );
    assert_eq!(f32s(&b), [7., 8., 10., 11.]);
}

#[test]
fn dynamic_update_slice_examples() {
    let a = run(
        "HloModule m\nENTRY e {\n a = f32[5] parameter(0)\n u = f32[2] parameter(1)\n s = s32[] parameter(2)\n ROOT d = f32[5] dynamic-update-slice(a, u, s)\n}\n",
        vec![
            r1(&[0., 1., 2., 3., 4.]),
            r1(&[5., 6.]),
            Literal::scalar(2i32),
        ],
    );
    assert_eq!(f32s(&a), [0., 1., 5., 6., 4.]);
    let b = run(
        "HloModule m\nENTRY e {\n b = f32[4,3] parameter(0)\n u = f32[3,2] parameter(1)\n i = s32[] parameter(2)\n j = s32[] parameter(3)\n ROOT d = f32[4,3] dynamic-update-slice(b, u, i, j)\n}\n",
        vec![
            spec_b(),
            m(&[&[12., 13.], &[14., 15.], &[16., 17.]]),
            Literal::scalar(1i32),
            Literal::scalar(1i32),
        ],
    );
    assert_eq!(
        f32s(&b),
        [0., 1., 2., 3., 12., 13., 6., 14., 15., 9., 16., 17.]
    );
}

#[test]
fn select_examples() {
    let text = |pred: &str| {
        format!(
            "HloModule m\nENTRY e {{\n p = {pred} parameter(0)\n a = s32[4] parameter(1)\n b = s32[4] parameter(2)\n ROOT s = s32[4] select(p, a, b)\n}}\n"
        )
    };
    let v1 = Literal::vec1(vec![1i32, 2, 3, 4]);
    let v2 = Literal::vec1(vec![100i32, 200, 300, 400]);
    let arr = run(
        &text("pred[4]"),
        vec![
            Literal::vec1(vec![true, false, false, true]),
            v1.clone(),
            v2.clone(),
        ],
    );
    assert_eq!(s32s(&arr), [1, 200, 300, 4]);
    let sc = run(
        &text("pred[]"),
        vec![Literal::scalar(true), v1.clone(), v2.clone()],
    );
    assert_eq!(s32s(&sc), [1, 2, 3, 4]);
    let sc = run(&text("pred[]"), vec![Literal::scalar(false), v1, v2]);
    assert_eq!(s32s(&sc), [100, 200, 300, 400]);
    // Tuples are chosen whole by a scalar pred.
    let t = run(
        "HloModule m\nENTRY e {\n p = pred[] parameter(0)\n a = s32[] parameter(1)\n b = f32[] parameter(2)\n t1 = (s32[], f32[]) tuple(a, b)\n t2 = (s32[], f32[]) tuple(a, b)\n c = s32[] constant(7)\n t3 = (s32[], f32[]) tuple(c, b)\n ROOT s = (s32[], f32[]) select(p, t1, t3)\n}\n",
        vec![
            Literal::scalar(false),
            Literal::scalar(1i32),
            Literal::scalar(2.5f32),
        ],
    );
    assert_eq!(
        t,
        Literal::Tuple(vec![Literal::scalar(7i32), Literal::scalar(2.5f32)])
    );
}

const ADD: &str =
    "add {\n x = f32[] parameter(0)\n y = f32[] parameter(1)\n ROOT s = f32[] add(x, y)\n}\n";

fn reduce_text(in_shape: &str, out_shape: &str, dims: &str) -> String {
    format!(
        "HloModule m\n{ADD}\nENTRY e {{\n p = {in_shape} parameter(0)\n z = f32[] constant(0)\n ROOT r = {out_shape} reduce(p, z), dimensions={{{dims}}}, to_apply=add\n}}\n"
    )
}

#[test]
fn reduce_2d_examples() {
    let x = m(&[&[1., 2., 3.], &[4., 5., 6.]]);
    assert_eq!(
        f32s(&run(
            &reduce_text("f32[2,3]", "f32[3]", "0"),
            vec![x.clone()]
        )),
        [5., 7., 9.]
    );
    assert_eq!(
        f32s(&run(&reduce_text("f32[2,3]", "f32[2]", "1"), vec![x])),
        [6., 15.]
    );
}

#[test]
fn reduce_3d_examples() {
    let vals: Vec<f32> = (0..4).flat_map(|_| [1., 2., 3., 4., 5., 6.]).collect();
    let x = Literal::from_vec(&[4, 2, 3], vals).unwrap();
    let d0 = run(&reduce_text("f32[4,2,3]", "f32[2,3]", "0"), vec![x.clone()]);
    assert_eq!(f32s(&d0), [4., 8., 12., 16., 20., 24.]);
    let d2 = run(&reduce_text("f32[4,2,3]", "f32[4,2]", "2"), vec![x.clone()]);
    assert_eq!(f32s(&d2), [6., 15., 6., 15., 6., 15., 6., 15.]);
    let d01 = run(&reduce_text("f32[4,2,3]", "f32[3]", "0,1"), vec![x.clone()]);
    assert_eq!(f32s(&d01), [20., 28., 36.]);
    let all = run(&reduce_text("f32[4,2,3]", "f32[]", "0,1,2"), vec![x]);
    assert_eq!(all, Literal::scalar(84.0f32));
}

#[test]
fn pad_with_negative_edges_and_interior() {
    // Interior first, then edges: dim 0 low 1 interior 1; dim 1 low -1 high 1 interior 1.
    let r = run(
        "HloModule m\nENTRY e {\n p = f32[2,3] parameter(0)\n z = f32[] constant(0)\n ROOT r = f32[4,5] pad(p, z), padding=1_0_1x-1_1_1\n}\n",
        vec![m(&[&[1., 2., 3.], &[4., 5., 6.]])],
    );
    assert_eq!(
        f32s(&r),
        [
            0., 0., 0., 0., 0., 0., 2., 0., 3., 0., 0., 0., 0., 0., 0., 0., 5., 0., 6., 0.
        ]
    );
}

#[test]
fn while_loop_of_1000_iterations() {
    let text = "HloModule m
cond {
  t = (s32[], f32[10]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  n = s32[] constant(1000)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  t = (s32[], f32[10]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  v = f32[10] get-tuple-element(t), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  c = f32[10] constant({0.125, 0.25, 0.5, 1, 2, 3, 4, 5, 6, 7})
  v2 = f32[10] add(v, c)
  ROOT r = (s32[], f32[10]) tuple(i2, v2)
}
ENTRY e {
  z = s32[] constant(0)
  zf = f32[] constant(0)
  zv = f32[10] broadcast(zf), dimensions={}
  init = (s32[], f32[10]) tuple(z, zv)
  ROOT w = (s32[], f32[10]) while(init), condition=cond, body=body
}
";
    let r = run(text, vec![]);
    let Literal::Tuple(t) = &r else {
        panic!("tuple result")
    };
    assert_eq!(t[0], Literal::scalar(1000i32));
    assert_eq!(
        f32s(&t[1]),
        [
            125., 250., 500., 1000., 2000., 3000., 4000., 5000., 6000., 7000.
        ]
    );
}

#[test]
fn layout_bitcast_exposes_column_major_order() {
    // {{a,b,c},{d,e,f}} with layout {0,1} is stored a d b e c f.
    let x = m(&[&[1., 2., 3.], &[4., 5., 6.]]);
    let col = run(
        "HloModule m\nENTRY e {\n p = f32[2,3]{0,1} parameter(0)\n ROOT b = f32[6]{0} bitcast(p)\n}\n",
        vec![x.clone()],
    );
    assert_eq!(f32s(&col), [1., 4., 2., 5., 3., 6.]);
    let row = run(
        "HloModule m\nENTRY e {\n p = f32[2,3]{1,0} parameter(0)\n ROOT b = f32[6]{0} bitcast(p)\n}\n",
        vec![x.clone()],
    );
    assert_eq!(f32s(&row), [1., 2., 3., 4., 5., 6.]);
    // copy changes only the layout; the bitcast after it sees the new order.
    let copied = run(
        "HloModule m\nENTRY e {\n p = f32[2,3]{1,0} parameter(0)\n c = f32[2,3]{0,1} copy(p)\n ROOT b = f32[6]{0} bitcast(c)\n}\n",
        vec![x.clone()],
    );
    assert_eq!(f32s(&copied), [1., 4., 2., 5., 3., 6.]);
    // And back: a column-major bitcast to [3,2]{1,0} is the transpose.
    let tr = run(
        "HloModule m\nENTRY e {\n p = f32[2,3]{0,1} parameter(0)\n ROOT b = f32[3,2]{1,0} bitcast(p)\n}\n",
        vec![x],
    );
    assert_eq!(f32s(&tr), [1., 4., 2., 5., 3., 6.]);
}

#[test]
fn layout_padded_example() {
    // [2x3] padded to [3,5], column-major, padding value 0:
    // a d 0 b e 0 c f 0 0 0 0 0 0 0.
    let module = parse(
        "HloModule m\nENTRY e {\n p = f32[2,3]{0,1:P(3,5)} parameter(0)\n ROOT b = f32[15]{0} bitcast(p)\n}\n",
    );
    let x = m(&[&[1., 2., 3.], &[4., 5., 6.]]);
    let r = rxla_eval::evaluate(&module, &[x], &Default::default()).unwrap();
    assert_eq!(
        f32s(&r),
        [1., 4., 0., 2., 5., 0., 3., 6., 0., 0., 0., 0., 0., 0., 0.]
    );
}

#[test]
fn result_comes_back_in_the_entry_layout() {
    let r = run(
        "HloModule m, entry_computation_layout={(f32[2,3]{1,0})->f32[2,3]{0,1}}\nENTRY e {\n p = f32[2,3]{1,0} parameter(0)\n ROOT n = f32[2,3]{1,0} negate(p)\n}\n",
        vec![m(&[&[1., 2., 3.], &[4., 5., 6.]])],
    );
    let a = r.as_array().unwrap();
    assert_eq!(a.shape.layout, rxla_ir::Layout::column_major(2));
    assert_eq!(f32s(&r), [-1., -2., -3., -4., -5., -6.]);
}

const MAX_GE_ADD: &str = "max {\n x = f32[] parameter(0)\n y = f32[] parameter(1)\n ROOT m = f32[] maximum(x, y)\n}\nge {\n x = f32[] parameter(0)\n y = f32[] parameter(1)\n ROOT c = pred[] compare(x, y), direction=GE\n}\nadd {\n x = f32[] parameter(0)\n y = f32[] parameter(1)\n ROOT s = f32[] add(x, y)\n}\n";

fn pool_input() -> Literal {
    m(&[
        &[5., 1., 9., 0., 3., 2.],
        &[4., 8., 2., 7., 6., 1.],
        &[0., 3., 1., 9., 9., 2.],
        &[6., 2., 8., 1., 4., 5.],
    ])
}

#[test]
fn reduce_window_4x6_with_2x3_max() {
    let text = format!(
        "HloModule m\n{MAX_GE_ADD}\nENTRY e {{\n p = f32[4,6] parameter(0)\n init = f32[] constant(-inf)\n ROOT r = f32[2,2] reduce-window(p, init), window={{size=2x3 stride=2x3}}, to_apply=max\n}}\n"
    );
    let r = run(&text, vec![pool_input()]);
    assert_eq!(f32s(&r), [9., 7., 8., 9.]);
}

#[test]
fn select_and_scatter_routes_source_to_the_window_maxima() {
    let text = format!(
        "HloModule m\n{MAX_GE_ADD}\nENTRY e {{\n p = f32[4,6] parameter(0)\n s = f32[2,2] parameter(1)\n z = f32[] constant(0)\n ROOT r = f32[4,6] select-and-scatter(p, s, z), window={{size=2x3 stride=2x3}}, select=ge, scatter=add\n}}\n"
    );
    let r = run(&text, vec![pool_input(), m(&[&[2., 6.], &[3., 1.]])]);
    // Maxima: 9 at (0,2), 7 at (1,3), 8 at (3,2); the tie 9/9 at (2,3)/(2,4) keeps the first.
    assert_eq!(
        f32s(&r),
        [
            0., 0., 2., 0., 0., 0., //
            0., 0., 0., 6., 0., 0., //
            0., 0., 0., 1., 0., 0., //
            0., 0., 3., 0., 0., 0.,
        ]
    );
}

extern "C" fn myfunc(out: *mut u8, ins: *const *const u8) {
    // SAFETY: the evaluator passes f32[2] and f32[2,3] inputs and an f32[3,3] output buffer.
    unsafe {
        let x = std::slice::from_raw_parts(*ins as *const f32, 2);
        let y = std::slice::from_raw_parts(*ins.add(1) as *const f32, 6);
        let z = std::slice::from_raw_parts_mut(out as *mut f32, 9);
        for i in 0..3 {
            for j in 0..3 {
                z[i * 3 + j] = x[i % 2] + y[(i % 2) * 3 + j];
            }
        }
        z[0] = x[1] + y[3];
    }
}

#[test]
fn custom_call_myfunc() {
    let text = "HloModule m\nENTRY e {\n x = f32[2] parameter(0)\n y = f32[2,3] parameter(1)\n ROOT z = f32[3,3] custom-call(x, y), custom_call_target=\"myfunc\"\n}\n";
    let mut opts = rxla_eval::RunOptions::default();
    opts.custom_calls.register("myfunc", myfunc);
    let r = try_run_with(
        text,
        vec![r1(&[1., 2.]), m(&[&[10., 20., 30.], &[40., 50., 60.]])],
        &opts,
    )
    .unwrap();
    assert_eq!(f32s(&r), [42., 21., 31., 42., 52., 62., 11., 21., 31.]);
}
