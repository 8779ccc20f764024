//! Measures the inline transcendental approximations (exp, tanh,
//! logistic; F32X4 and scalar lanes) against the evaluator's definitions
//! (Rust std: `exp`, `tanh`, `1/(1+exp(-x))`) over the whole f32 range:
//! every 509th bit pattern (8.4M values: both signs, denormals, huge
//! arguments) plus ±0, ±inf, NaN, and the extremes. Prints the max ulp
//! error per function (the table in docs/SEMANTICS.md) and asserts ≤ 4.

use rxla_ir::{ArrayLiteral, ArrayShape, ElementType, Literal, parse_module};
use rxla_jit::{CompileOptions, compile};

fn ordered(x: f32) -> i64 {
    let b = x.to_bits() as i32 as i64;
    if b < 0 { i32::MIN as i64 - b } else { b }
}

fn ulp(a: f32, b: f32) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    (ordered(a) - ordered(b)).unsigned_abs()
}

fn inputs() -> Vec<f32> {
    let mut v: Vec<f32> = (0..(1u64 << 32))
        .step_by(509)
        .map(|b| f32::from_bits(b as u32))
        .collect();
    v.extend([
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MAX,
        f32::MIN,
        f32::MIN_POSITIVE,
        1e-45,
    ]);
    v.extend((-2000..2000).map(|i| i as f32 * 0.05));
    // Pad to a multiple of 4 plus 3 so both vector and scalar lanes run.
    while v.len() % 4 != 3 {
        v.push(0.5);
    }
    v
}

fn measure(op: &str, reference: fn(f32) -> f32) -> (u64, f32) {
    let xs = inputs();
    let n = xs.len();
    let text = format!(
        "HloModule m\nENTRY e {{\n  p = f32[{n}] parameter(0)\n  ROOT r = f32[{n}] {op}(p)\n}}\n"
    );
    let m = parse_module(&text, op).expect("parses");
    let exe = compile(
        &m,
        &CompileOptions {
            threads: Some(1),
            ..CompileOptions::default()
        },
    )
    .expect("compiles");
    assert!(
        exe.stats().fallbacks.is_empty(),
        "{op} fell back: {:?}",
        exe.stats().fallbacks
    );
    let arg = Literal::Array(
        ArrayLiteral::new(
            ArrayShape::new(ElementType::F32, vec![n as i64]).unwrap(),
            rxla_ir::ArrayData::F32(xs.clone()),
        )
        .unwrap(),
    );
    let out = exe.run(&[arg]).expect("runs");
    let got = out.as_slice::<f32>().expect("f32 result");
    let mut worst = (0u64, 0f32);
    for (&x, &g) in xs.iter().zip(got) {
        let e = ulp(g, reference(x));
        if e > worst.0 {
            worst = (e, x);
        }
    }
    println!("{op}: max {} ulp (at x = {:e})", worst.0, worst.1);
    worst
}

#[test]
fn exp_within_4_ulp() {
    let (u, x) = measure("exponential", |x| x.exp());
    assert!(u <= 4, "exp: {u} ulp at {x:e}");
}

#[test]
fn tanh_within_4_ulp() {
    let (u, x) = measure("tanh", |x| x.tanh());
    assert!(u <= 4, "tanh: {u} ulp at {x:e}");
}

#[test]
fn logistic_within_4_ulp() {
    let (u, x) = measure("logistic", |x| 1.0 / (1.0 + (-x).exp()));
    assert!(u <= 4, "logistic: {u} ulp at {x:e}");
}
