//! 8-bit integer dots (quantized inference, `preferred_element_type=int32`)
//! run on the f32 GEMM engine where every partial sum is an integer below
//! 2^24 (exact in f32): bit-identical to the evaluator's wrapping integer
//! sums, in every result width. Beyond that bound an s32/u32 result runs
//! on the int8 engine where the host has AVX-512 VNNI (`rxla_gemm::
//! int8_available`), else (and for other result types) the exact loop
//! kernel runs them.

use rxla_eval::{RunOptions, evaluate};
use rxla_ir::{Literal, parse_module};
use rxla_jit::{CompileOptions, compile};

/// Deterministic bytes covering the whole 8-bit range.
fn bytes(n: usize, seed: u32) -> Vec<u8> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s >> 7) as u8
        })
        .collect()
}

fn literal(ty: &str, dims: &[i64], b: Vec<u8>) -> Literal {
    match ty {
        "s8" => Literal::from_vec(dims, b.into_iter().map(|x| x as i8).collect()),
        _ => Literal::from_vec(dims, b),
    }
    .unwrap()
}

/// Compiles `lt[m,k] x rt[k,n] -> ot[m,n]`, checks the JIT against the
/// evaluator bit for bit, and returns the number of loop kernels compiled.
fn check(lt: &str, rt: &str, ot: &str, (m, k, n): (i64, i64, i64)) -> usize {
    let text = format!(
        "HloModule q
ENTRY e {{
  a = {lt}[{m},{k}] parameter(0)
  b = {rt}[{k},{n}] parameter(1)
  ROOT d = {ot}[{m},{n}] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
}}
"
    );
    let module = parse_module(&text, "q").expect("parses");
    let args = [
        literal(lt, &[m, k], bytes((m * k) as usize, 11)),
        literal(rt, &[k, n], bytes((k * n) as usize, 29)),
    ];
    let want = evaluate(&module, &args, &RunOptions::default()).expect("evaluates");
    let exe = compile(
        &module,
        &CompileOptions {
            allow_interpreter_fallback: false,
            ..CompileOptions::default()
        },
    )
    .expect("compiles");
    let got = exe.run(&args).expect("runs");
    assert_eq!(got, want, "{lt} x {rt} -> {ot}, k = {k}");
    exe.stats().kernels
}

#[test]
fn int8_dots_within_the_exact_bound_take_the_gemm_engine() {
    // s8 x s8: k = 1024 is the bound (1024 * 128 * 128 = 2^24).
    assert_eq!(check("s8", "s8", "s32", (37, 1024, 29)), 0);
    // u8 x u8 up to k = 258; s8 x u8 up to 514.
    assert_eq!(check("u8", "u8", "s32", (19, 258, 33)), 0);
    assert_eq!(check("s8", "u8", "s32", (8, 514, 17)), 0);
    // Narrow and unsigned results wrap the exact sum to their width.
    assert_eq!(check("s8", "s8", "s8", (16, 300, 16)), 0);
    assert_eq!(check("s8", "s8", "u16", (16, 300, 16)), 0);
    assert_eq!(check("u8", "s8", "s64", (5, 200, 7)), 0);
}

#[test]
fn int8_dots_beyond_the_bound_run_the_int8_engine_or_the_exact_loop_kernel() {
    // 1025 * 128 * 128 > 2^24: a sum could round in f32.
    let loops = usize::from(!rxla_gemm::int8_available(&rxla_gemm::Options::default()));
    assert_eq!(check("s8", "s8", "s32", (9, 1025, 7)), loops);
    assert_eq!(check("u8", "u8", "u32", (9, 259, 7)), loops);
    assert_eq!(check("s8", "u8", "s32", (33, 3000, 40)), loops);
    // Other result widths never take the int8 engine.
    assert_eq!(check("s8", "s8", "s16", (9, 1025, 7)), 1);
    // 32-bit operands are never taken.
    let text = "HloModule q
ENTRY e {
  a = s32[4,8] parameter(0)
  b = s32[8,4] parameter(1)
  ROOT d = s32[4,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
";
    let module = parse_module(text, "q").expect("parses");
    let exe = compile(&module, &CompileOptions::default()).expect("compiles");
    assert_eq!(exe.stats().kernels, 1);
}
