//! Relu and residual-add + relu fusions run inside f32 GEMM steps
//! (`gemm_epilogue`): NHWC 1×1, 3×3 padded, strided and dilated
//! convolutions (position-major GEMM), an NCHW convolution (feature-major),
//! dots with odd sizes; the residual first or second in the add; the fusion
//! as the root or read by a later instruction; inf operands (the product is
//! redone unfused and guarded), NaN residuals, and values that are exactly
//! zero. Small integer values make every sum exact, so each result must be
//! the evaluator's bytes, with the epilogue fused (one and two threads) and
//! not; the epilogue must actually be fused.

use rxla_eval::{RunOptions, evaluate};
use rxla_ir::{Literal, Module, parse_module};
use rxla_jit::{CompileOptions, compile};

fn bytes(l: &Literal) -> Vec<Vec<u8>> {
    match l {
        Literal::Array(a) => vec![a.to_physical_bytes().expect("bytes")],
        Literal::Tuple(t) => t.iter().flat_map(bytes).collect(),
    }
}

/// Integer values in -3..=3 (seeded), with `specials` written at the
/// given positions.
fn values(dims: &[i64], seed: u64, specials: &[(usize, f32)]) -> Literal {
    let n: i64 = dims.iter().product();
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut v: Vec<f32> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 33) % 7) as f32 - 3.0
        })
        .collect();
    for &(i, x) in specials {
        if i < v.len() {
            v[i] = x;
        }
    }
    Literal::from_vec(dims, v).expect("literal")
}

/// Runs `text` on `args` every way; returns the epilogues fused.
fn check(name: &str, text: &str, args: &[Literal]) -> usize {
    let m: Module = parse_module(text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let want = evaluate(&m, args, &RunOptions::default()).expect("evaluates");
    let mut fused = 0;
    for (threads, on) in [(1, true), (2, true), (1, false)] {
        let opts = CompileOptions {
            threads: Some(threads),
            allow_interpreter_fallback: false,
            gemm_epilogues: on,
            verify_clif: true,
            ..CompileOptions::default()
        };
        let exe = compile(&m, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        if on {
            fused = exe.stats().gemm_epilogues;
        } else {
            assert_eq!(exe.stats().gemm_epilogues, 0, "{name}");
        }
        for _ in 0..2 {
            let got = exe.run(args).expect("runs");
            assert!(
                bytes(&got) == bytes(&want),
                "{name}: {threads} threads, fused {on}"
            );
        }
    }
    fused
}

/// An NHWC convolution `x[n,h,w,ci] * k[kh,kw,ci,co]` with `window`, then
/// `relu`, or `relu(add)` with a residual parameter (`first`: the residual
/// is the add's first operand; declared after the convolution, as JAX
/// does); `tail`: the result is read once more.
#[allow(clippy::too_many_arguments)]
fn conv_module(
    x: [i64; 4],
    k: [i64; 4],
    out: [i64; 4],
    window: &str,
    residual: Option<bool>,
    tail: bool,
) -> String {
    let xs = format!("f32[{},{},{},{}]", x[0], x[1], x[2], x[3]);
    let ks = format!("f32[{},{},{},{}]", k[0], k[1], k[2], k[3]);
    let os = format!("f32[{},{},{},{}]", out[0], out[1], out[2], out[3]);
    let (rparam, fbody, fargs, fparams) = match residual {
        None => (
            String::new(),
            format!("  ROOT m = {os} maximum(p0, zb)\n"),
            "c",
            format!("  p0 = {os} parameter(0)\n"),
        ),
        Some(first) => (
            format!("  r = {os} parameter(2)\n"),
            format!(
                "  a = {os} add({})\n  ROOT m = {os} maximum(a, zb)\n",
                if first { "p1, p0" } else { "p0, p1" }
            ),
            "c, r",
            format!("  p0 = {os} parameter(0)\n  p1 = {os} parameter(1)\n"),
        ),
    };
    let root = if tail {
        format!(
            "  f = {os} fusion({fargs}), kind=kLoop, calls=ep\n  ROOT t = {os} multiply(f, f)\n"
        )
    } else {
        format!("  ROOT f = {os} fusion({fargs}), kind=kLoop, calls=ep\n")
    };
    format!(
        "HloModule conv_ep

ep {{
{fparams}  z = f32[] constant(0)
  zb = {os} broadcast(z), dimensions={{}}
{fbody}}}

ENTRY e {{
  x = {xs} parameter(0)
  k = {ks} parameter(1)
  c = {os} convolution(x, k), window={{{window}}}, dim_labels=b01f_01io->b01f
{rparam}{root}}}
"
    )
}

/// Input, kernel and output dims, window.
type ConvCase = ([i64; 4], [i64; 4], [i64; 4], &'static str);

#[test]
fn nhwc_convolutions_with_relu_and_residual() {
    // (input, kernel, output, window)
    let cases: [ConvCase; 5] = [
        ([2, 5, 6, 40], [1, 1, 40, 72], [2, 5, 6, 72], "size=1x1"),
        (
            [2, 9, 7, 16],
            [3, 3, 16, 24],
            [2, 9, 7, 24],
            "size=3x3 pad=1_1x1_1",
        ),
        (
            [1, 11, 9, 8],
            [3, 3, 8, 33],
            [1, 6, 5, 33],
            "size=3x3 stride=2x2 pad=1_1x1_1",
        ),
        (
            [1, 10, 10, 12],
            [3, 3, 12, 20],
            [1, 6, 6, 20],
            "size=3x3 rhs_dilate=2x2",
        ),
        ([3, 4, 4, 64], [1, 1, 64, 256], [3, 4, 4, 256], "size=1x1"),
    ];
    for (ci, (x, k, o, w)) in cases.into_iter().enumerate() {
        for residual in [None, Some(false), Some(true)] {
            for tail in [false, true] {
                let text = conv_module(x, k, o, w, residual, tail);
                let name = format!("conv{ci} {residual:?} tail {tail}");
                let mut args = vec![values(&x, 1 + ci as u64, &[]), values(&k, 7, &[])];
                if residual.is_some() {
                    // A NaN, an inf and -0 in the residual.
                    let specials = [(3, f32::NAN), (10, f32::INFINITY), (17, -0.0)];
                    args.push(values(&o, 11, &specials));
                }
                assert_eq!(check(&name, &text, &args), 1, "{name}");
            }
        }
    }
}

#[test]
fn non_finite_operands_redo_the_product() {
    // inf in the input (unpadded: the fused run sees a non-finite raw value
    // and redoes it; padded: the guard's kernel runs first), inf in the
    // kernel (padded: guarded before the GEMM).
    let cases: [ConvCase; 2] = [
        ([2, 5, 6, 40], [1, 1, 40, 72], [2, 5, 6, 72], "size=1x1"),
        (
            [2, 9, 7, 16],
            [3, 3, 16, 24],
            [2, 9, 7, 24],
            "size=3x3 pad=1_1x1_1",
        ),
    ];
    for (ci, (x, k, o, w)) in cases.into_iter().enumerate() {
        for (xs, ks) in [
            (vec![(5, f32::INFINITY), (6, f32::NEG_INFINITY)], vec![]),
            (vec![], vec![(2, f32::INFINITY)]),
            (vec![(0, f32::NAN)], vec![]),
        ] {
            let text = conv_module(x, k, o, w, Some(false), false);
            let args = [values(&x, 3, &xs), values(&k, 5, &ks), values(&o, 9, &[])];
            assert_eq!(check(&format!("conv{ci} {xs:?} {ks:?}"), &text, &args), 1);
        }
    }
}

#[test]
fn nchw_convolution_and_dots() {
    let nchw = "HloModule nchw
ep {
  p0 = f32[2,24,9,7] parameter(0)
  z = f32[] constant(0)
  zb = f32[2,24,9,7] broadcast(z), dimensions={}
  ROOT m = f32[2,24,9,7] maximum(zb, p0)
}
ENTRY e {
  x = f32[2,16,9,7] parameter(0)
  k = f32[24,16,3,3] parameter(1)
  c = f32[2,24,9,7] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  ROOT f = f32[2,24,9,7] fusion(c), kind=kLoop, calls=ep
}
";
    let args = [
        values(&[2, 16, 9, 7], 2, &[]),
        values(&[24, 16, 3, 3], 4, &[]),
    ];
    assert_eq!(check("nchw", nchw, &args), 1);
    for (m, k, n) in [(37, 50, 45), (1, 64, 33), (130, 9, 70)] {
        let text = format!(
            "HloModule dot_ep
ep {{
  p0 = f32[{m},{n}] parameter(0)
  p1 = f32[{m},{n}] parameter(1)
  z = f32[] constant(0)
  zb = f32[{m},{n}] broadcast(z), dimensions={{}}
  a = f32[{m},{n}] add(p1, p0)
  ROOT mx = f32[{m},{n}] maximum(a, zb)
}}
ENTRY e {{
  r = f32[{m},{n}] parameter(2)
  x = f32[{m},{k}] parameter(0)
  y = f32[{k},{n}] parameter(1)
  d = f32[{m},{n}] dot(x, y), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  ROOT f = f32[{m},{n}] fusion(d, r), kind=kLoop, calls=ep
}}
"
        );
        let args = [
            values(&[m, k], 3, &[]),
            values(&[k, n], 5, &[]),
            values(&[m, n], 6, &[(1, f32::NAN), (4, -0.0)]),
        ];
        assert_eq!(check(&format!("dot {m}x{k}x{n}"), &text, &args), 1);
    }
}

#[test]
fn other_bodies_are_not_fused() {
    // maximum with 1 (not zero), and a residual used after the GEMM.
    let text = "HloModule nf
ep {
  p0 = f32[8,16] parameter(0)
  o = f32[] constant(1)
  ob = f32[8,16] broadcast(o), dimensions={}
  ROOT m = f32[8,16] maximum(p0, ob)
}
ENTRY e {
  x = f32[8,12] parameter(0)
  y = f32[12,16] parameter(1)
  d = f32[8,16] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT f = f32[8,16] fusion(d), kind=kLoop, calls=ep
}
";
    let args = [values(&[8, 12], 1, &[]), values(&[12, 16], 2, &[])];
    assert_eq!(check("max1", text, &args), 0);
}
