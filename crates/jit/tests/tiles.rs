//! Scalar kernels over two large minor dimensions run in 32×32 tiles
//! (`codegen/kernel.rs`): every element is still written once with the
//! evaluator's value, at sizes that leave partial tiles on both sides and
//! with the thread split over the outer loop.

use rxla_eval::{RunOptions, evaluate};
use rxla_ir::{Literal, parse_module};
use rxla_jit::{CompileOptions, compile};

#[test]
fn transposed_reads_in_tiles_match_the_evaluator() {
    for (r, c, layout) in [(67i64, 130i64, "0,1"), (64, 64, "0,1"), (150, 71, "1,0")] {
        let text = format!(
            "HloModule t
ENTRY e {{
  a = s32[{r},{c}] parameter(0)
  b = s32[{c},{r}] parameter(1)
  t = s32[{r},{c}] transpose(b), dimensions={{1,0}}
  ROOT s = s32[{r},{c}]{{{layout}}} add(a, t)
}}
"
        );
        let m = parse_module(&text, "t").expect("parses");
        let n = (r * c) as i32;
        let args = [
            Literal::from_vec(&[r, c], (0..n).collect::<Vec<i32>>()).unwrap(),
            Literal::from_vec(&[c, r], (0..n).map(|x| x * 1000).collect::<Vec<i32>>()).unwrap(),
        ];
        let want = evaluate(&m, &args, &RunOptions::default()).expect("evaluates");
        for threads in [1, 2] {
            let exe = compile(
                &m,
                &CompileOptions {
                    threads: Some(threads),
                    allow_interpreter_fallback: false,
                    ..CompileOptions::default()
                },
            )
            .expect("compiles");
            let got = exe.run(&args).expect("runs");
            assert_eq!(got, want, "{r}x{c} layout {layout}, {threads} threads");
        }
    }
}

/// Reshapes index their operand group by group (a split or a merge of
/// dims, size-1 dims anywhere): attention's `transpose` then `reshape`
/// of heads, and odd groupings, give the evaluator's elements.
#[test]
fn grouped_reshapes_of_transposed_values() {
    for (src, perm, tdims, out) in [
        ("12,16,8", "1,0,2", "16,12,8", "16,96"),
        ("3,5,1,4", "1,0,2,3", "5,3,1,4", "15,2,1,2"),
        ("6,10", "1,0", "10,6", "2,1,5,3,2"),
    ] {
        let text = format!(
            "HloModule r
ENTRY e {{
  x = s32[{src}] parameter(0)
  t = s32[{tdims}] transpose(x), dimensions={{{perm}}}
  ROOT r = s32[{out}] reshape(t)
}}
"
        );
        let m = parse_module(&text, "r").expect("parses");
        let dims: Vec<i64> = src.split(',').map(|d| d.parse().unwrap()).collect();
        let n: i64 = dims.iter().product();
        let args = [Literal::from_vec(&dims, (0..n as i32).collect::<Vec<i32>>()).unwrap()];
        let want = evaluate(&m, &args, &RunOptions::default()).expect("evaluates");
        let exe = compile(
            &m,
            &CompileOptions {
                allow_interpreter_fallback: false,
                ..CompileOptions::default()
            },
        )
        .expect("compiles");
        assert_eq!(exe.run(&args).expect("runs"), want, "{src} -> {out}");
    }
}
