//! Wide block routines (`rxla_jit::wide`, AVX-512): f32 exp, tanh,
//! logistic, erf and log (and divides, and the arithmetic feeding them) at a
//! row's own index are computed per row block in 512-bit vectors, by the
//! same algorithm as the inline F32X4 code — so the results are bit for
//! bit those of the inline code, specials (NaN, ±inf, overflow, denormal
//! results) and row tails included — except a NaN's sign and payload,
//! which the project's policy leaves unspecified (docs/FUZZING.md: any two
//! NaNs are equal): when both operands of an add are NaN, x86 returns the
//! first source's, and which operand is first is not fixed (Cranelift
//! swaps a commutative op's operands to fold a load, and so may LLVM), so
//! these tests compare every NaN as the canonical quiet NaN.

use rxla_ir::{Literal, parse_module};
use rxla_jit::{CompileOptions, compile};

fn bits(l: &Literal) -> Vec<u8> {
    let mut out = Vec::new();
    for a in l.leaves() {
        let bytes = a.to_physical_bytes().unwrap();
        if a.shape.element_type != rxla_ir::ElementType::F32 {
            out.extend(bytes);
            continue;
        }
        for c in bytes.chunks(4) {
            let v = u32::from_le_bytes(c.try_into().unwrap());
            let v = if f32::from_bits(v).is_nan() {
                0x7fc0_0000
            } else {
                v
            };
            out.extend(v.to_le_bytes());
        }
    }
    out
}

fn inputs(n: usize) -> Vec<f32> {
    let specials = [
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        88.7,
        -87.5,
        -103.9,
        1e-30,
        -1e-40,
        3e-41,
        20.5,
        -9.0,
        86.0,
        -86.0001,
        f32::MAX,
    ];
    let mut s = 0x1234_5678u32;
    (0..n)
        .map(|i| {
            if i % 37 < specials.len() && i % 3 == 0 {
                return specials[i % 37];
            }
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s % 400_001) as f32 / 1000.0 - 200.0
        })
        .collect()
}

/// Runs `m` on `args` (one thread, no interpreter fallback) with the wide
/// routines on or off: the result and how many kernels call a host
/// function (a block routine).
fn run_with(m: &rxla_ir::Module, args: &[Literal], wide_math: bool) -> (Literal, usize) {
    let exe = compile(
        m,
        &CompileOptions {
            threads: Some(1),
            wide_math,
            keep_clif: true,
            allow_interpreter_fallback: false,
            ..CompileOptions::default()
        },
    )
    .expect("compiles");
    let calls = exe
        .stats()
        .clif
        .iter()
        .filter(|(_, c)| c.contains("call"))
        .count();
    (exe.run(args).expect("runs"), calls)
}

#[test]
fn wide_transcendentals_equal_the_inline_code() {
    for (rows, cols) in [(3i64, 1001i64), (2, 3), (1, 16), (5, 256), (2, 517)] {
        let text = format!(
            "HloModule w
ENTRY e {{
  x = f32[{rows},{cols}] parameter(0)
  e = f32[{rows},{cols}] exponential(x)
  h = f32[] constant(0.5)
  hb = f32[{rows},{cols}] broadcast(h), dimensions={{}}
  m = f32[{rows},{cols}] multiply(e, hb)
  t = f32[{rows},{cols}] tanh(m)
  u = f32[{rows},{cols}] tanh(x)
  a = f32[{rows},{cols}] add(t, u)
  g = f32[{rows},{cols}] logistic(x)
  k = f32[{rows},{cols}] logistic(m)
  f = f32[{rows},{cols}] erf(x)
  q = f32[{rows},{cols}] erf(m)
  fq = f32[{rows},{cols}] add(f, q)
  gk0 = f32[{rows},{cols}] add(g, k)
  l = f32[{rows},{cols}] log(x)
  lq = f32[{rows},{cols}] add(fq, l)
  gk = f32[{rows},{cols}] add(gk0, lq)
  b = f32[{rows},{cols}] add(a, gk)
  ROOT r = f32[{rows},{cols}] add(b, e)
}}
"
        );
        let m = parse_module(&text, "w").expect("parses");
        let x = Literal::from_vec(&[rows, cols], inputs((rows * cols) as usize)).unwrap();
        let args = std::slice::from_ref(&x);
        let (narrow, _) = run_with(&m, args, false);
        let (wide, calls) = run_with(&m, args, true);
        assert_eq!(bits(&wide), bits(&narrow), "{rows}x{cols}");
        if rxla_jit::wide::available() && cols >= 4 {
            assert!(calls > 0, "{rows}x{cols}: no block routine was called");
        }
    }
}

/// Exp and tanh under a reduction along the contiguous dimension run in
/// blocks through the wide routines; the accumulators see the elements in
/// the same lanes and order as the inline loop, so sums (softmax's
/// `sum(exp(x - max))`), products and maxima are bit for bit the same,
/// block edges, row tails and specials included.
#[test]
fn wide_exp_under_reductions_equals_the_inline_code() {
    for (rows, cols) in [
        (3i64, 1001i64),
        (2, 3),
        (1, 16),
        (4, 512),
        (2, 1537),
        (2, 20),
    ] {
        for (name, init) in [("add", "0"), ("maximum", "-inf"), ("multiply", "1")] {
            let text = format!(
                "HloModule w
red {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] {name}(a, b)
}}
ENTRY e {{
  x = f32[{rows},{cols}] parameter(0)
  m = f32[{rows}] parameter(1)
  mb = f32[{rows},{cols}] broadcast(m), dimensions={{0}}
  s = f32[{rows},{cols}] subtract(x, mb)
  e = f32[{rows},{cols}] exponential(s)
  t = f32[{rows},{cols}] tanh(e)
  a = f32[{rows},{cols}] add(e, t)
  z = f32[] constant({init})
  ROOT r = f32[{rows}] reduce(a, z), dimensions={{1}}, to_apply=red
}}
"
            );
            let m = parse_module(&text, "w").expect("parses");
            let mut xs = inputs((rows * cols) as usize);
            if name == "multiply" {
                // Keep most products finite (the non-finite redo path is
                // covered by the specials of the other reducers).
                for v in &mut xs {
                    *v = (*v * 0.0001).clamp(-0.1, 0.1);
                }
            }
            let x = Literal::from_vec(&[rows, cols], xs).unwrap();
            let mv =
                Literal::from_vec(&[rows], (0..rows).map(|r| r as f32 * 0.5).collect()).unwrap();
            let args = [x, mv];
            let (narrow, _) = run_with(&m, &args, false);
            let (wide, calls) = run_with(&m, &args, true);
            assert_eq!(bits(&wide), bits(&narrow), "{name} {rows}x{cols}");
            if rxla_jit::wide::available() && cols >= 16 {
                assert!(
                    calls > 0,
                    "{name} {rows}x{cols}: no block routine was called"
                );
            }
        }
    }
}

/// A row sum, max or min of an input streams its whole vectors of 16
/// through the wide routines (`rxla_block_sum`, `rxla_block_maxmin`) with
/// the same lanes and order as the F32X4 loop: bit for bit the same
/// results, tails (n mod 16, n mod 4), specials (the non-finite and NaN
/// redo) and a column-major input (not streamed) included.
#[test]
fn streamed_row_sums_equal_the_inline_loop() {
    for (rows, cols, layout, op, init) in [
        (3i64, 256i64, "1,0", "add", "0.5"),
        (2, 1001, "1,0", "add", "0.5"),
        (4, 4096, "1,0", "add", "0.5"),
        (5, 259, "1,0", "add", "0.5"),
        (3, 300, "0,1", "add", "0.5"),
        (4, 1001, "1,0", "maximum", "-inf"),
        (3, 4096, "1,0", "minimum", "inf"),
        (3, 300, "0,1", "maximum", "-inf"),
    ] {
        let text = format!(
            "HloModule s
red {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] {op}(a, b)
}}
ENTRY e {{
  x = f32[{rows},{cols}]{{{layout}}} parameter(0)
  z = f32[] constant({init})
  ROOT r = f32[{rows}] reduce(x, z), dimensions={{1}}, to_apply=red
}}
"
        );
        let m = parse_module(&text, "s").expect("parses");
        let mut xs = inputs((rows * cols) as usize);
        // Keep row 0 finite (the streamed fast path's result is kept), the
        // others with the specials (redone in the evaluator's order).
        for v in xs.iter_mut().take(cols as usize) {
            if !v.is_finite() || v.abs() > 1e6 {
                *v = 1.25;
            }
        }
        let x = Literal::from_vec(&[rows, cols], xs).unwrap();
        let args = std::slice::from_ref(&x);
        let (narrow, _) = run_with(&m, args, false);
        let (wide, calls) = run_with(&m, args, true);
        assert_eq!(
            bits(&wide),
            bits(&narrow),
            "{op} {rows}x{cols} {{{layout}}}"
        );
        if rxla_jit::wide::available() && layout == "1,0" {
            assert!(calls > 0, "{op} {rows}x{cols}: the row was not streamed");
        }
    }
}

/// Divides, and the adds, subtracts and multiplies that feed a wide node,
/// run per row block in 512-bit vectors (`rxla_block_div` and friends):
/// IEEE operations, so bit for bit the inline code's results — for a
/// row-invariant operand (a broadcast, passed as one value), an input row
/// read in place, a computed operand filled into a block, a wide node that
/// is the root (written straight into the output) or read by the root,
/// and row tails (n mod 16, n mod 4, rows longer than a block).
#[test]
fn wide_arithmetic_equals_the_inline_code() {
    let bodies = [
        // Softmax's last two steps: exp(x - max), then the divide by the
        // row sum (an input row over a broadcast), both roots.
        "  s = f32[{R},{C}] subtract(x, mb)\n  ROOT r = f32[{R},{C}] exponential(s)",
        "  ROOT r = f32[{R},{C}] divide(x, mb)",
        // Two input rows; a broadcast numerator (1 / x).
        "  ROOT r = f32[{R},{C}] divide(x, y)",
        "  ROOT r = f32[{R},{C}] divide(mb, x)",
        // A computed numerator and divisor; the divide not the root.
        "  n = f32[{R},{C}] negate(x)\n  a = f32[{R},{C}] abs(y)\n  q = f32[{R},{C}] divide(n, a)\n  ROOT r = f32[{R},{C}] add(q, x)",
        // A chain: tanh((x * y + mb) / y) + 1.
        "  p = f32[{R},{C}] multiply(x, y)\n  s = f32[{R},{C}] add(p, mb)\n  q = f32[{R},{C}] divide(s, y)\n  t = f32[{R},{C}] tanh(q)\n  one = f32[] constant(1)\n  ob = f32[{R},{C}] broadcast(one), dimensions={}\n  ROOT r = f32[{R},{C}] add(t, ob)",
    ];
    for (rows, cols) in [
        (3i64, 1001i64),
        (2, 3),
        (1, 16),
        (5, 256),
        (2, 517),
        (3, 37),
    ] {
        for body in bodies {
            let body = body
                .replace("{R}", &rows.to_string())
                .replace("{C}", &cols.to_string());
            let text = format!(
                "HloModule w
ENTRY e {{
  x = f32[{rows},{cols}] parameter(0)
  y = f32[{rows},{cols}] parameter(1)
  m = f32[{rows}] parameter(2)
  mb = f32[{rows},{cols}] broadcast(m), dimensions={{0}}
{body}
}}
"
            );
            let m = parse_module(&text, "w").expect("parses");
            let n = (rows * cols) as usize;
            let x = Literal::from_vec(&[rows, cols], inputs(n)).unwrap();
            let mut ys = inputs(n + 7);
            ys.drain(..7);
            let y = Literal::from_vec(&[rows, cols], ys).unwrap();
            let mv = Literal::from_vec(&[rows], (0..rows).map(|r| r as f32 * 0.5 - 0.25).collect())
                .unwrap();
            let args = [x, y, mv];
            let (narrow, _) = run_with(&m, &args, false);
            let (wide, calls) = run_with(&m, &args, true);
            assert_eq!(bits(&wide), bits(&narrow), "{rows}x{cols}: {body}");
            if rxla_jit::wide::available() && cols >= 4 {
                assert!(
                    calls > 0,
                    "{rows}x{cols}: {body}: no block routine was called"
                );
            }
        }
    }
}

/// Under a reduction too: `sum(x / y)` and `max(exp(x * y - m))` run their
/// divide, multiply, subtract and exp a block at a time, with the same
/// accumulation order as the inline loop.
#[test]
fn wide_arithmetic_under_reductions_equals_the_inline_code() {
    for (rows, cols) in [(3i64, 1001i64), (2, 20), (4, 512), (2, 37)] {
        for (name, init, body) in [
            ("add", "0", "  q = f32[{R},{C}] divide(x, y)"),
            (
                "maximum",
                "-inf",
                "  p = f32[{R},{C}] multiply(x, y)\n  s = f32[{R},{C}] subtract(p, mb)\n  q = f32[{R},{C}] exponential(s)",
            ),
        ] {
            let body = body
                .replace("{R}", &rows.to_string())
                .replace("{C}", &cols.to_string());
            let text = format!(
                "HloModule w
red {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] {name}(a, b)
}}
ENTRY e {{
  x = f32[{rows},{cols}] parameter(0)
  y = f32[{rows},{cols}] parameter(1)
  m = f32[{rows}] parameter(2)
  mb = f32[{rows},{cols}] broadcast(m), dimensions={{0}}
{body}
  z = f32[] constant({init})
  ROOT r = f32[{rows}] reduce(q, z), dimensions={{1}}, to_apply=red
}}
"
            );
            let m = parse_module(&text, "w").expect("parses");
            let n = (rows * cols) as usize;
            let x = Literal::from_vec(&[rows, cols], inputs(n)).unwrap();
            let ys: Vec<f32> = inputs(n + 3)
                .into_iter()
                .skip(3)
                .map(|v| v * 0.01)
                .collect();
            let y = Literal::from_vec(&[rows, cols], ys).unwrap();
            let mv =
                Literal::from_vec(&[rows], (0..rows).map(|r| r as f32 * 0.5).collect()).unwrap();
            let args = [x, y, mv];
            let (narrow, _) = run_with(&m, &args, false);
            let (wide, calls) = run_with(&m, &args, true);
            assert_eq!(bits(&wide), bits(&narrow), "{name} {rows}x{cols}");
            if rxla_jit::wide::available() && cols >= 16 {
                assert!(
                    calls > 0,
                    "{name} {rows}x{cols}: no block routine was called"
                );
            }
        }
    }
}

/// Short rows (at most 128 values) run their wide nodes over a block of
/// several whole rows per call (`Nest::row_groups`): a per-column operand
/// the rows share is read in place with the row length as its period
/// (whole vectors: lengths that are multiples of 16) or filled row by row,
/// a per-row value filled row by row, and the rows' own loops read the
/// nodes' blocks. Bit for bit the inline code's results, with partial
/// groups of rows and row tails.
#[test]
fn wide_nodes_over_several_short_rows_equal_the_inline_code() {
    let bodies = [
        // Softmax over a middle axis: exp(x - max), then the divide by the
        // per-column sum, both roots.
        "  s = f32[{S}] subtract(x, cb)\n  ROOT r = f32[{S}] exponential(s)",
        "  ROOT r = f32[{S}] divide(x, cb)",
        "  ROOT r = f32[{S}] divide(cb, x)",
        // A per-row value subtracted (softmax over short last-axis rows).
        "  s = f32[{S}] subtract(x, mb)\n  ROOT r = f32[{S}] exponential(s)",
        // Wide nodes read by the root: exp and tanh of computed operands.
        "  s = f32[{S}] subtract(x, cb)\n  e = f32[{S}] exponential(s)\n  q = f32[{S}] divide(e, mb)\n  t = f32[{S}] tanh(y)\n  ROOT r = f32[{S}] add(q, t)",
        // A wide node's block read by the inline fill of the next node's
        // operand (cbrt is no program op: two nodes): each row its own
        // (a fuzz find, seed 123206: every row read the first row's tanh).
        "  t = f32[{S}] tanh(x)\n  n = f32[{S}] negate(t)\n  ROOT r = f32[{S}] cbrt(n)",
    ];
    for (a, rows, cols) in [
        (2i64, 37i64, 64i64),
        (1, 20, 16),
        (3, 9, 20),
        (2, 5, 128),
        (2, 33, 5),
        (1, 3, 48),
    ] {
        let shape = format!("{a},{rows},{cols}");
        for body in bodies {
            let body = body.replace("{S}", &shape);
            let text = format!(
                "HloModule w
ENTRY e {{
  x = f32[{shape}] parameter(0)
  y = f32[{shape}] parameter(1)
  c = f32[{a},{cols}] parameter(2)
  m = f32[{a},{rows}] parameter(3)
  cb = f32[{shape}] broadcast(c), dimensions={{0,2}}
  mb = f32[{shape}] broadcast(m), dimensions={{0,1}}
{body}
}}
"
            );
            let m = parse_module(&text, "w").expect("parses");
            let n = (a * rows * cols) as usize;
            let x = Literal::from_vec(&[a, rows, cols], inputs(n)).unwrap();
            let mut ys = inputs(n + 7);
            ys.drain(..7);
            let y = Literal::from_vec(&[a, rows, cols], ys).unwrap();
            let mut cs = inputs(a as usize * cols as usize + 3);
            cs.drain(..3);
            let cv = Literal::from_vec(&[a, cols], cs).unwrap();
            let mv = Literal::from_vec(
                &[a, rows],
                (0..a * rows).map(|r| r as f32 * 0.5 - 3.25).collect(),
            )
            .unwrap();
            let args = [x, y, cv, mv];
            let (narrow, _) = run_with(&m, &args, false);
            let (wide, calls) = run_with(&m, &args, true);
            assert_eq!(bits(&wide), bits(&narrow), "{shape}: {body}");
            if rxla_jit::wide::available() {
                assert!(calls > 0, "{shape}: {body}: no block routine was called");
            }
        }
    }
}

/// JAX's norm over a middle axis: the per-column divisor arrives as
/// `[a, 1, c]`, reshaped to `[a, c]` and broadcast back over the rows. The
/// block routine reads it in place through the reshape (with the row
/// length as its period) instead of a filled copy; the same bits.
#[test]
fn per_column_values_through_a_reshape_equal_the_inline_code() {
    for (a, rows, cols) in [(2i64, 37i64, 64i64), (3, 20, 16), (1, 9, 128), (2, 7, 20)] {
        let text = format!(
            "HloModule w
ENTRY e {{
  x = f32[{a},{rows},{cols}] parameter(0)
  n = f32[{a},1,{cols}] parameter(1)
  r = f32[{a},{cols}] reshape(n)
  b = f32[{a},{rows},{cols}] broadcast(r), dimensions={{0,2}}
  ROOT d = f32[{a},{rows},{cols}] divide(x, b)
}}
"
        );
        let m = parse_module(&text, "w").expect("parses");
        let x = Literal::from_vec(&[a, rows, cols], inputs((a * rows * cols) as usize)).unwrap();
        let mut ns = inputs((a * cols) as usize + 5);
        ns.drain(..5);
        let n = Literal::from_vec(&[a, 1, cols], ns).unwrap();
        let args = [x, n];
        let (narrow, _) = run_with(&m, &args, false);
        let (wide, calls) = run_with(&m, &args, true);
        assert_eq!(bits(&wide), bits(&narrow), "{a}x{rows}x{cols}");
        if rxla_jit::wide::available() {
            assert!(calls > 0, "{a}x{rows}x{cols}: no block routine was called");
        }
    }
}

/// `pow` as a block routine (eight f64 lanes, `rxla_block_pow`) gives the
/// inline F64X2 code's bits: a variable exponent, constant ones (integral,
/// odd and even, negative, zero, infinite, a half-integer the inline code
/// keeps), bases around ±1, zeros, infinities, NaNs, denormals.
#[test]
fn wide_pow_equals_the_inline_code() {
    let exps = [
        "y", "2.2", "-1.7", "3", "-2", "0", "inf", "-inf", "0.5", "1e-3", "23.5",
    ];
    for (rows, cols) in [(3i64, 1001i64), (2, 37), (1, 16)] {
        for e in exps {
            let (ydecl, yuse) = if e == "y" {
                (String::new(), "y".to_string())
            } else {
                (
                    format!(
                        "  k = f32[] constant({e})\n  kb = f32[{rows},{cols}] broadcast(k), dimensions={{}}\n"
                    ),
                    "kb".to_string(),
                )
            };
            let text = format!(
                "HloModule w
ENTRY e {{
  x = f32[{rows},{cols}] parameter(0)
  y = f32[{rows},{cols}] parameter(1)
{ydecl}  ROOT r = f32[{rows},{cols}] power(x, {yuse})
}}
"
            );
            let m = parse_module(&text, "w").expect("parses");
            let n = (rows * cols) as usize;
            let xs: Vec<f32> = inputs(n)
                .iter()
                .enumerate()
                .map(|(i, &v)| match i % 11 {
                    0 => 1.0,
                    1 => -1.0,
                    2 => 1.0 + (i as f32) * 1e-7,
                    _ => v / 40.0,
                })
                .collect();
            let ys: Vec<f32> = inputs(n + 5)[5..]
                .iter()
                .enumerate()
                .map(|(i, &v)| {
                    if i % 7 == 0 {
                        (v / 8.0).trunc()
                    } else {
                        v / 50.0
                    }
                })
                .collect();
            let args = [
                Literal::from_vec(&[rows, cols], xs).unwrap(),
                Literal::from_vec(&[rows, cols], ys).unwrap(),
            ];
            let (narrow, _) = run_with(&m, &args, false);
            let (wide, calls) = run_with(&m, &args, true);
            assert_eq!(bits(&wide), bits(&narrow), "{rows}x{cols}: pow(x, {e})");
            if rxla_jit::wide::available() && e != "0.5" && e != "23.5" {
                assert!(
                    calls > 0,
                    "{rows}x{cols}: pow(x, {e}): no block routine was called"
                );
            }
        }
    }
}

/// `cbrt` (`rxla_block_cbrt`, f64 ln and exp in eight lanes), `log1p`
/// and `expm1` (`rxla_block_log1p`, `_expm1`) as block routines give the inline code's
/// bits: signs, zeros, infinities, NaNs, denormals, exact cubes, values
/// near −1 and tiny ones.
#[test]
fn wide_cbrt_log1p_expm1_equal_the_inline_code() {
    for (op, (rows, cols)) in ["cbrt", "log-plus-one", "exponential-minus-one"]
        .into_iter()
        .flat_map(|op| [(3i64, 1001i64), (2, 37), (1, 16)].map(|s| (op, s)))
    {
        let text = format!(
            "HloModule w
ENTRY e {{
  x = f32[{rows},{cols}] parameter(0)
  ROOT r = f32[{rows},{cols}] {op}(x)
}}
"
        );
        let m = parse_module(&text, "w").expect("parses");
        let n = (rows * cols) as usize;
        let xs: Vec<f32> = inputs(n)
            .iter()
            .enumerate()
            .map(|(i, &v)| match i % 13 {
                0 => ((i % 9) as f32 - 4.0).powi(3),
                1 => v * 1e-3,
                2 => -1.0 + (i % 5) as f32 * 1e-7,
                3 => v * 1e-9,
                4 => v / 150.0,
                _ => v,
            })
            .collect();
        let x = Literal::from_vec(&[rows, cols], xs).unwrap();
        let args = std::slice::from_ref(&x);
        let (narrow, _) = run_with(&m, args, false);
        let (wide, calls) = run_with(&m, args, true);
        assert_eq!(bits(&wide), bits(&narrow), "{op} {rows}x{cols}");
        if rxla_jit::wide::available() {
            assert!(calls > 0, "{op} {rows}x{cols}: no block routine was called");
        }
    }
}
