//! Every-f32 error sweep of one inline transcendental: runs the JIT's
//! `OP(x)` on all 2^32 bit patterns (16Mi at a time, one thread) and
//! compares with the evaluator's definition (`rxla_eval::elementwise`),
//! printing the largest distance in ulps and where. NaN must come out
//! exactly where the evaluator gives NaN. The sampled figures in
//! docs/SEMANTICS.md come from `tests/ulp.rs`; this is the slow
//! exhaustive check (about 5 minutes for tanh).
//! `cargo run --release -p rxla-jit --example ulp_sweep -- tanh`
use rxla_ir::{ArrayData, Literal, UnaryOp, parse_module};
use rxla_jit::{CompileOptions, compile};

fn ordered(x: f32) -> i64 {
    let b = x.to_bits() as i32 as i64;
    if b < 0 { i32::MIN as i64 - b } else { b }
}

fn f32s(d: &ArrayData) -> Vec<f32> {
    match d {
        ArrayData::F32(v) => v.clone(),
        _ => panic!("not f32"),
    }
}

fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "tanh".into());
    let op = UnaryOp::ALL
        .into_iter()
        .find(|o| o.name() == name)
        .unwrap_or_else(|| panic!("unknown unary op {name}"));
    const N: usize = 1 << 24;
    let text = format!(
        "HloModule m\nENTRY e {{\n  x = f32[{N}] parameter(0)\n  ROOT t = f32[{N}] {name}(x)\n}}\n"
    );
    let m = parse_module(&text, "sweep").expect("parses");
    let opts = CompileOptions {
        threads: Some(1),
        ..CompileOptions::default()
    };
    let exe = compile(&m, &opts).expect("compiles");
    let (mut worst, mut at) = (0u64, 0f32);
    for chunk in 0..(1u64 << 32) / N as u64 {
        let xs: Vec<f32> = (0..N as u64)
            .map(|i| f32::from_bits((chunk * N as u64 + i) as u32))
            .collect();
        let arg = Literal::from_vec(&[N as i64], xs.clone()).expect("literal");
        let got = exe.run(&[arg]).expect("runs");
        let got = f32s(&got.leaves()[0].data);
        let want = f32s(
            &rxla_eval::elementwise::unary(op, &ArrayData::F32(xs.clone())).expect("evaluates"),
        );
        for ((x, w), g) in xs.iter().zip(&want).zip(&got) {
            if w.is_nan() || g.is_nan() {
                assert!(
                    w.is_nan() && g.is_nan(),
                    "{name}({x:e}): want {w:e}, got {g:e}"
                );
                continue;
            }
            let d = (ordered(*w) - ordered(*g)).unsigned_abs();
            if d > worst {
                (worst, at) = (d, *x);
            }
        }
    }
    println!("{name} over every f32: max {worst} ulp (at x = {at:e})");
}
