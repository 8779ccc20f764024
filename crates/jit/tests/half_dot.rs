//! f16/bf16 dots run on the GEMM engine: operands widened to f32 (exact),
//! f32 accumulation, the result rounded once — the evaluator's semantics
//! (SEMANTICS.md), so results differ from it only by the accumulation
//! order's rounding, then at most one ulp of the narrow type.

use rxla_eval::{RunOptions, evaluate};
use rxla_ir::{ArrayData, Literal, parse_module};
use rxla_jit::{CompileOptions, compile};

fn values(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s % 2001) as f32 / 1000.0 - 1.0
        })
        .collect()
}

fn as_f64(l: &Literal) -> Vec<f64> {
    match &l.as_array().unwrap().data {
        ArrayData::F16(v) => v.iter().map(|x| x.to_f64()).collect(),
        ArrayData::BF16(v) => v.iter().map(|x| x.to_f64()).collect(),
        ArrayData::F32(v) => v.iter().map(|&x| x as f64).collect(),
        other => panic!("unexpected {other:?}"),
    }
}

fn literal(ty: &str, dims: &[i64], v: Vec<f32>) -> Literal {
    match ty {
        "f16" => Literal::from_vec(dims, v.into_iter().map(half::f16::from_f32).collect()),
        "bf16" => Literal::from_vec(dims, v.into_iter().map(half::bf16::from_f32).collect()),
        _ => Literal::from_vec(dims, v),
    }
    .unwrap()
}

#[test]
fn half_dots_take_the_gemm_engine_and_match_the_evaluator() {
    let (m, k, n) = (37i64, 301i64, 29i64);
    for (lt, rt, ot, ulp) in [
        ("bf16", "bf16", "bf16", 2f64.powi(-8)),
        ("f16", "f16", "f16", 2f64.powi(-11)),
        ("bf16", "bf16", "f32", 0.0),
        ("f32", "bf16", "bf16", 2f64.powi(-8)),
    ] {
        let text = format!(
            "HloModule hd
ENTRY e {{
  a = {lt}[{m},{k}] parameter(0)
  b = {rt}[{k},{n}]{{0,1}} parameter(1)
  ROOT d = {ot}[{m},{n}] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
}}
"
        );
        let module = parse_module(&text, "hd").expect("parses");
        let args = [
            literal(lt, &[m, k], values((m * k) as usize, 7)),
            literal(rt, &[k, n], values((k * n) as usize, 11)),
        ];
        let want = evaluate(&module, &args, &RunOptions::default()).expect("evaluates");
        let exe = compile(
            &module,
            &CompileOptions {
                allow_interpreter_fallback: false,
                ..Default::default()
            },
        )
        .expect("compiles");
        assert_eq!(
            exe.stats().kernels,
            0,
            "{lt}x{rt}->{ot}: the dot must be a GEMM step, not a loop kernel"
        );
        let got = exe.run(&args).expect("runs");
        let (g, w) = (as_f64(&got), as_f64(&want));
        assert_eq!(g.len(), w.len());
        for (i, (x, y)) in g.iter().zip(&w).enumerate() {
            // f32 accumulation order differs: allow 1e-5 of the row's magnitude, plus one narrow ulp.
            let tol = 1e-5 * (k as f64) + 2.0 * ulp * y.abs();
            assert!(
                (x - y).abs() <= tol,
                "{lt}x{rt}->{ot} element {i}: {x} vs {y}"
            );
        }
    }
}
