//! Optimistic vector loops (`codegen::rowcheck`): exp's fast path runs
//! with no per-vector branch and an out-of-range lane sends its row to an
//! exact redo. Rows with and without such lanes (in the unrolled body, the
//! single-vector step and the scalar tail) must give, lane by lane, the
//! bits of the scalar path, within exp's 1 ulp of the evaluator, and the
//! exact special values.

use rxla_eval::elementwise::unary;
use rxla_ir::literal::ArrayData;
use rxla_ir::{Literal, UnaryOp, parse_module};
use rxla_jit::{CompileOptions, compile};

const ROWS: usize = 8;
/// 1030 = 128·8 + 4 + 2: the unrolled loop, one single-vector step and a
/// scalar tail of two.
const COLS: usize = 1030;

/// Deterministic values in [-80, 80] (the fast path's range).
fn in_range(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i as u32).wrapping_mul(2654435761) % 16001) as f32 / 100.0 - 80.0)
        .collect()
}

/// Ordered distance in ulps between two non-NaN floats.
fn ulps(a: f32, b: f32) -> u64 {
    let key = |x: f32| {
        let i = x.to_bits() as i32 as i64;
        if i < 0 { i64::from(i32::MIN) - i } else { i }
    };
    key(a).abs_diff(key(b))
}

fn matrix(x: &[f32]) -> Literal {
    Literal::from_vec(&[ROWS as i64, COLS as i64], x.to_vec()).expect("literal")
}

fn run(text: &str, x: &[f32], vectorize: bool) -> Vec<f32> {
    let m = parse_module(text, "optimistic").expect("parses");
    let exe = compile(
        &m,
        &CompileOptions {
            threads: Some(1),
            vectorize,
            allow_interpreter_fallback: false,
            ..CompileOptions::default()
        },
    )
    .expect("compiles");
    exe.run(&[matrix(x)])
        .expect("runs")
        .as_slice::<f32>()
        .expect("f32")
        .to_vec()
}

#[test]
fn exp_rows_with_and_without_out_of_range_lanes() {
    let mut x = in_range(ROWS * COLS);
    // Row 0 and 7 stay in range; the others get one lane the fast path
    // cannot take, at different places of the loop structure.
    let odd = [
        (1, 517, 100.0),
        (2, 3, -100.0),
        (3, 1025, f32::INFINITY),
        (4, 0, f32::NEG_INFINITY),
        (5, 1029, f32::NAN),
        (6, 600, -86.5),
    ];
    for &(r, c, v) in &odd {
        x[r * COLS + c] = v;
    }
    let text = format!(
        "HloModule m\nENTRY e {{\n  p = f32[{ROWS},{COLS}] parameter(0)\n  ROOT r = f32[{ROWS},{COLS}] exponential(p)\n}}\n"
    );
    let vector = run(&text, &x, true);
    let scalar = run(&text, &x, false);
    let want = match unary(UnaryOp::Exp, &ArrayData::F32(x.clone())).expect("evaluates") {
        ArrayData::F32(v) => v,
        _ => unreachable!(),
    };
    for i in 0..x.len() {
        let (v, s, w) = (vector[i], scalar[i], want[i]);
        assert_eq!(
            v.to_bits(),
            s.to_bits(),
            "exp({:e}) at {i}: vector {v:e}, scalar {s:e}",
            x[i]
        );
        if w.is_nan() {
            assert!(v.is_nan(), "exp(NaN) at {i} = {v:e}");
        } else {
            assert!(
                ulps(v, w) <= 1,
                "exp({:e}) at {i} = {v:e}, evaluator {w:e}",
                x[i]
            );
        }
    }
    assert_eq!(vector[COLS + 517], f32::INFINITY);
    assert_eq!(vector[3 * COLS + 1025], f32::INFINITY);
    assert_eq!(vector[4 * COLS].to_bits(), 0);
    assert_eq!(vector[2 * COLS + 3], want[2 * COLS + 3]);
}

#[test]
fn softmax_rows_with_extreme_logits() {
    // Softmax's exp argument is x − max(x) ≤ 0: rows whose spread exceeds
    // 86 send it below the fast range (tiny or zero probabilities).
    let mut x = in_range(ROWS * COLS);
    for v in x.iter_mut() {
        *v /= 20.0;
    }
    x[2 * COLS + 700] = 95.0;
    x[5 * COLS + 9] = -1.0e4;
    x[6 * COLS + 1027] = 300.0;
    let text = format!(
        "HloModule m
max {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] maximum(a, b)
}}
add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}}
ENTRY e {{
  x = f32[{ROWS},{COLS}] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[{ROWS}] reduce(x, ninf), dimensions={{1}}, to_apply=max
  mb = f32[{ROWS},{COLS}] broadcast(m), dimensions={{0}}
  d = f32[{ROWS},{COLS}] subtract(x, mb)
  e = f32[{ROWS},{COLS}] exponential(d)
  z = f32[] constant(0)
  s = f32[{ROWS}] reduce(e, z), dimensions={{1}}, to_apply=add
  sb = f32[{ROWS},{COLS}] broadcast(s), dimensions={{0}}
  ROOT r = f32[{ROWS},{COLS}] divide(e, sb)
}}
"
    );
    let got = run(&text, &x, true);
    let m = parse_module(&text, "softmax").expect("parses");
    let want = rxla_eval::evaluate(&m, &[matrix(&x)], &rxla_eval::RunOptions::default())
        .expect("evaluates");
    let want = want.as_slice::<f32>().expect("f32");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        // Reductions sum in another order: relative 1e-5, or both tiny.
        let tol = 1.0e-5 * w.abs() + 1.0e-30;
        assert!(
            (g - w).abs() <= tol,
            "softmax at {i}: {g:e}, evaluator {w:e}"
        );
    }
    // The rows with a dominating logit: that entry ~1, the rest 0 or tiny.
    assert!((got[2 * COLS + 700] - 1.0).abs() < 1.0e-6);
    assert!((got[6 * COLS + 1027] - 1.0).abs() < 1.0e-6);
    assert_eq!(got[5 * COLS + 9], 0.0);
}
