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
