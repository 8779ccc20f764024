//! Numeric and structural semantics of the evaluator (see
//! docs/SEMANTICS.md). One decision per file lives in
//! `tests/filetests/interp/semantics/` (integer division, shifts,
//! conversion saturation and rounding, IEEE and total-order compare, NaN
//! and ±0 in max/min, clamped dynamic slices, bitcast-convert, map fast and
//! general paths, control flow); what stays here compares with a Rust
//! reference: transcendentals against Rust's std, the reduce fast and
//! general paths against a sequential sum, and the scalar program against
//! the general interpreter.

use crate::eval_support;
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
