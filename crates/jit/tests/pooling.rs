//! Pooling reduce-windows run vectorized along the contiguous output
//! dimension (strided loads for stride 2, a scalar border where a window
//! touches padding along it) and stay bit-identical to the evaluator:
//! every lane folds its own window in the evaluator's order.

use rxla_eval::{RunOptions, evaluate};
use rxla_ir::{Literal, parse_module};
use rxla_jit::{CompileOptions, compile};

fn bits(l: &Literal) -> Vec<u8> {
    l.leaves()
        .iter()
        .flat_map(|a| a.to_physical_bytes().unwrap())
        .collect()
}

fn values(n: usize) -> Vec<f32> {
    let mut s = 0x9e37_79b9u32;
    (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            match i % 97 {
                13 => f32::NAN,
                29 => -0.0,
                31 => 0.0,
                _ => (s % 20001) as f32 / 1000.0 - 10.0,
            }
        })
        .collect()
}

fn check(dims: &[i64], op: &str, init: &str, window: &str, out: &[i64]) {
    let shape = |d: &[i64]| {
        d.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let text = format!(
        "HloModule pool
r {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] {op}(a, b)
}}
ENTRY e {{
  x = f32[{}] parameter(0)
  i = f32[] constant({init})
  ROOT w = f32[{}] reduce-window(x, i), window={{{window}}}, to_apply=r
}}
",
        shape(dims),
        shape(out)
    );
    let m = parse_module(&text, "pool").expect("parses");
    let n: i64 = dims.iter().product();
    let x = Literal::from_vec(dims, values(n as usize)).unwrap();
    let want = evaluate(&m, std::slice::from_ref(&x), &RunOptions::default()).expect("evaluates");
    for vectorize in [true, false] {
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
        let got = exe.run(std::slice::from_ref(&x)).expect("runs");
        assert_eq!(bits(&got), bits(&want), "vectorize={vectorize}\n{text}");
    }
}

#[test]
fn nchw_max_pool_same_padding_stride_2() {
    // JAX's 3x3/2 SAME max-pool: padding 0_1 on H and W (the last column's window leaves the input).
    check(
        &[2, 3, 24, 24],
        "maximum",
        "-inf",
        "size=1x1x3x3 stride=1x1x2x2 pad=0_0x0_0x0_1x0_1",
        &[2, 3, 12, 12],
    );
    // Padding on both sides, stride 1 and 3, a window dilation.
    check(
        &[1, 2, 17, 30],
        "maximum",
        "-inf",
        "size=1x1x3x3 pad=0_0x0_0x1_1x1_1",
        &[1, 2, 17, 30],
    );
    check(
        &[1, 2, 17, 31],
        "minimum",
        "inf",
        "size=1x1x2x4 stride=1x1x3x3 pad=0_0x0_0x1_0x2_2",
        &[1, 2, 6, 11],
    );
    check(
        &[1, 1, 9, 40],
        "maximum",
        "-inf",
        "size=1x1x2x3 pad=0_0x0_0x0_0x2_2 rhs_dilate=1x1x1x2",
        &[1, 1, 8, 40],
    );
}

#[test]
fn nhwc_avg_pool_sums() {
    check(
        &[2, 12, 12, 20],
        "add",
        "0",
        "size=1x2x2x1 stride=1x2x2x1",
        &[2, 6, 6, 20],
    );
    check(
        &[1, 9, 9, 7],
        "add",
        "0",
        "size=1x3x3x1 pad=0_0x1_1x1_1x0_0",
        &[1, 9, 9, 7],
    );
}

#[test]
fn narrow_rows_and_windows_wider_than_the_row() {
    check(&[3, 5], "maximum", "-inf", "size=1x7 pad=0_0x3_3", &[3, 5]);
    check(&[4, 6], "add", "0", "size=2x2 stride=2x2", &[2, 3]);
}

/// A 5-point stencil through `pad` and four slices: the rows vectorize in
/// the interior (every lane inside the padded operand) and run scalar at
/// the borders; the same bits as the evaluator.
#[test]
fn stencil_through_pad_and_slices() {
    for (r, c) in [(13i64, 37i64), (6, 9), (5, 3)] {
        let text = format!(
            "HloModule st
ENTRY e {{
  u = f32[{r},{c}] parameter(0)
  z = f32[] constant(0)
  p = f32[{r2},{c2}] pad(u, z), padding=1_1x1_1
  n = f32[{r},{c}] slice(p), slice={{[0:{r}], [1:{c1}]}}
  s = f32[{r},{c}] slice(p), slice={{[2:{r2}], [1:{c1}]}}
  w = f32[{r},{c}] slice(p), slice={{[1:{r1}], [0:{c}]}}
  e = f32[{r},{c}] slice(p), slice={{[1:{r1}], [2:{c2}]}}
  a = f32[{r},{c}] add(n, s)
  b = f32[{r},{c}] add(w, e)
  ROOT t = f32[{r},{c}] subtract(a, b)
}}
",
            r1 = r + 1,
            r2 = r + 2,
            c1 = c + 1,
            c2 = c + 2
        );
        let m = parse_module(&text, "st").expect("parses");
        let x = Literal::from_vec(&[r, c], values((r * c) as usize)).unwrap();
        let want =
            evaluate(&m, std::slice::from_ref(&x), &RunOptions::default()).expect("evaluates");
        let exe = compile(
            &m,
            &CompileOptions {
                threads: Some(1),
                allow_interpreter_fallback: false,
                ..CompileOptions::default()
            },
        )
        .expect("compiles");
        let got = exe.run(std::slice::from_ref(&x)).expect("runs");
        assert_eq!(bits(&got), bits(&want), "{r}x{c}");
        if c >= 8 {
            assert!(
                exe.stats().vectorized_kernels >= 1,
                "{r}x{c}: {:?}",
                exe.stats()
            );
        }
    }
}
