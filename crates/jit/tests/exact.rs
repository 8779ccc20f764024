//! Exact ops must match the evaluator bit for bit, in the vector lanes and
//! the scalar tail alike: max/min with NaN and signed zeros, compares,
//! integer division/remainder by zero and MIN/-1, shifts past the width,
//! saturating converts.

use rxla_eval::{RunOptions, evaluate};
use rxla_ir::{Literal, parse_module};
use rxla_jit::{CompileOptions, compile};

fn bits(l: &Literal) -> Vec<u8> {
    l.leaves()
        .iter()
        .flat_map(|a| a.to_physical_bytes().unwrap())
        .collect()
}

fn same(text: &str, args: &[Literal]) {
    let m = parse_module(text, "exact").expect("parses");
    let want = evaluate(&m, args, &RunOptions::default()).expect("evaluates");
    for vectorize in [true, false] {
        let exe = compile(
            &m,
            &CompileOptions {
                threads: Some(1),
                vectorize,
                ..CompileOptions::default()
            },
        )
        .expect("compiles");
        assert!(
            exe.stats().fallbacks.is_empty(),
            "{:?}",
            exe.stats().fallbacks
        );
        let got = exe.run(args).expect("runs");
        assert_eq!(
            bits(&got),
            bits(&want),
            "vectorize={vectorize}\n{text}\ngot  {got}\nwant {want}"
        );
    }
}

fn specials() -> Vec<f32> {
    let s = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e-45,
        -3.5,
        2.5e9,
        -2.5e9,
    ];
    let mut v = Vec::new();
    for &a in &s {
        for &b in &s {
            v.push((a, b));
        }
    }
    let (mut xs, mut ys): (Vec<f32>, Vec<f32>) = v.into_iter().unzip();
    xs.push(7.0);
    ys.push(-0.0);
    xs.iter().zip(&ys).flat_map(|(&x, &y)| [x, y]).collect()
}

#[test]
fn float_max_min_compare_bitwise() {
    let v = specials();
    let n = v.len() / 2;
    let x = Literal::vec1(v.iter().step_by(2).copied().collect::<Vec<f32>>());
    let y = Literal::vec1(v.iter().skip(1).step_by(2).copied().collect::<Vec<f32>>());
    for op in [
        "maximum", "minimum", "add", "multiply", "divide", "subtract",
    ] {
        same(
            &format!(
                "HloModule m\nENTRY e {{\n  x = f32[{n}] parameter(0)\n  y = f32[{n}] parameter(1)\n  ROOT r = f32[{n}] {op}(x, y)\n}}\n"
            ),
            &[x.clone(), y.clone()],
        );
    }
    for dir in ["LT", "GE", "EQ", "NE"] {
        same(
            &format!(
                "HloModule m\nENTRY e {{\n  x = f32[{n}] parameter(0)\n  y = f32[{n}] parameter(1)\n  c = pred[{n}] compare(x, y), direction={dir}\n  ROOT r = f32[{n}] select(c, x, y)\n}}\n"
            ),
            &[x.clone(), y.clone()],
        );
    }
    same(
        &format!(
            "HloModule m\nENTRY e {{\n  x = f32[{n}] parameter(0)\n  ROOT r = s32[{n}] convert(x)\n}}\n"
        ),
        std::slice::from_ref(&x),
    );
}

#[test]
fn integer_edge_cases() {
    let a: Vec<i32> = vec![7, -7, i32::MIN, i32::MIN, 5, -1, 0, 3, 1 << 30];
    let b: Vec<i32> = vec![0, 0, -1, 1, 33, 31, 0, -2, 2];
    let n = a.len();
    for op in [
        "divide",
        "remainder",
        "shift-left",
        "shift-right-arithmetic",
        "shift-right-logical",
        "power",
        "maximum",
    ] {
        same(
            &format!(
                "HloModule m\nENTRY e {{\n  x = s32[{n}] parameter(0)\n  y = s32[{n}] parameter(1)\n  ROOT r = s32[{n}] {op}(x, y)\n}}\n"
            ),
            &[Literal::vec1(a.clone()), Literal::vec1(b.clone())],
        );
    }
    let ua: Vec<u8> = vec![7, 200, 0, 255, 128];
    let ub: Vec<u8> = vec![0, 3, 0, 9, 7];
    for op in ["divide", "remainder", "shift-right-arithmetic", "minimum"] {
        same(
            &format!(
                "HloModule m\nENTRY e {{\n  x = u8[5] parameter(0)\n  y = u8[5] parameter(1)\n  ROOT r = u8[5] {op}(x, y)\n}}\n"
            ),
            &[Literal::vec1(ua.clone()), Literal::vec1(ub.clone())],
        );
    }
}

#[test]
fn half_types_round_like_the_evaluator() {
    use half::{bf16, f16};
    let xs: Vec<f64> = vec![
        0.1,
        -0.0,
        65504.0,
        70000.0,
        1e-8,
        -3.3333,
        f64::NAN,
        2.5,
        1.0009765625,
        1e30,
    ];
    let n = xs.len();
    let x64 = Literal::vec1(xs.clone());
    for ty in ["f16", "bf16"] {
        same(
            &format!(
                "HloModule m\nENTRY e {{\n  x = f64[{n}] parameter(0)\n  h = {ty}[{n}] convert(x)\n  s = {ty}[{n}] add(h, h)\n  m = {ty}[{n}] multiply(s, h)\n  i = s32[{n}] convert(m)\n  j = {ty}[{n}] convert(i)\n  k = {ty}[{n}] add(j, m)\n  ROOT r = f32[{n}] convert(k)\n}}\n"
            ),
            std::slice::from_ref(&x64),
        );
    }
    let h = Literal::vec1(xs.iter().map(|&v| f16::from_f64(v)).collect::<Vec<_>>());
    same(
        &format!(
            "HloModule m\nENTRY e {{\n  x = f16[{n}] parameter(0)\n  ROOT r = f16[{n}] divide(x, x)\n}}\n"
        ),
        std::slice::from_ref(&h),
    );
    let b = Literal::vec1(xs.iter().map(|&v| bf16::from_f64(v)).collect::<Vec<_>>());
    same(
        &format!(
            "HloModule m\nENTRY e {{\n  x = bf16[{n}] parameter(0)\n  ROOT r = bf16[{n}] subtract(x, x)\n}}\n"
        ),
        std::slice::from_ref(&b),
    );
}

/// Row max/min reductions (the vector loop runs a fast max/min and
/// recomputes rows with a NaN or a zero result exactly): rows of ±0 mixes,
/// NaNs of both signs in the vector part and the tail, infinities, a
/// denormal; lengths with and without a 16-wide body, a 4-wide step and a
/// scalar tail.
#[test]
fn row_max_min_reductions_bitwise() {
    let nan_neg = f32::from_bits(0xffc0_0001);
    let rows: Vec<Vec<f32>> = vec![
        vec![-0.0; 37],
        (0..37)
            .map(|i| if i % 3 == 0 { 0.0 } else { -0.0 })
            .collect(),
        (0..37).map(|i| if i == 36 { 0.0 } else { -0.0 }).collect(),
        (0..37)
            .map(|i| if i == 5 { f32::NAN } else { i as f32 })
            .collect(),
        (0..37)
            .map(|i| if i == 20 { nan_neg } else { -(i as f32) })
            .collect(),
        (0..37)
            .map(|i| if i == 36 { f32::NAN } else { i as f32 - 9.0 })
            .collect(),
        (0..37)
            .map(|i| match i {
                3 => nan_neg,
                30 => f32::NAN,
                _ => 1.0,
            })
            .collect(),
        vec![f32::NEG_INFINITY; 37],
        vec![f32::INFINITY; 37],
        (0..37)
            .map(|i| if i == 17 { 1e-45 } else { -0.0 })
            .collect(),
        (0..37).map(|i| ((i * 7919) % 37) as f32 - 18.0).collect(),
    ];
    for len in [37usize, 16, 20, 3] {
        let n = rows.len();
        let data: Vec<f32> = rows.iter().flat_map(|r| r[..len].to_vec()).collect();
        let x = Literal::from_vec(&[n as i64, len as i64], data).unwrap();
        for (op, init) in [("maximum", "-inf"), ("minimum", "inf"), ("maximum", "0")] {
            same(
                &format!(
                    "HloModule m\nr {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] {op}(a, b)\n}}\nENTRY e {{\n  x = f32[{n},{len}] parameter(0)\n  i = f32[] constant({init})\n  ROOT r = f32[{n}] reduce(x, i), dimensions={{1}}, to_apply=r\n}}\n"
                ),
                std::slice::from_ref(&x),
            );
        }
    }
}

/// max/min against a broadcast constant (one maxps/minps, the operand
/// order chosen by the constant's sign): NaNs, ±0 ties and infinities
/// bit for bit.
#[test]
fn max_min_against_constants_bitwise() {
    let v = specials();
    let n = v.len();
    let x = Literal::vec1(v);
    for op in ["maximum", "minimum"] {
        for c in ["0", "-0", "1.5", "-2", "inf", "-inf", "1e-45"] {
            same(
                &format!(
                    "HloModule m\nENTRY e {{\n  x = f32[{n}] parameter(0)\n  k = f32[] constant({c})\n  b = f32[{n}] broadcast(k), dimensions={{}}\n  ROOT r = f32[{n}] {op}(x, b)\n}}\n"
                ),
                std::slice::from_ref(&x),
            );
        }
    }
}

/// A reducer whose result depends on the element order (power, subtract)
/// over an operand in column-major layout: the JIT walks the reduced
/// dimensions in the evaluator's (logical row-major) order, not the
/// physical one (fuzz seed 923054).
#[test]
fn order_dependent_reducers_follow_the_logical_order() {
    for (ty, op, init) in [
        ("u8", "power", "2"),
        ("s32", "subtract", "7"),
        ("f32", "subtract", "0.5"),
    ] {
        let text = format!(
            "HloModule m\nr {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  ROOT c = {ty}[] {op}(b, a)\n}}\nENTRY e {{\n  x = {ty}[8,4]{{0,1}} iota(), iota_dimension=0\n  z = {ty}[] constant({init})\n  a = {ty}[] reduce(x, z), dimensions={{0,1}}, to_apply=r\n  b = {ty}[4] reduce(x, z), dimensions={{0}}, to_apply=r\n  ROOT t = ({ty}[], {ty}[4]) tuple(a, b)\n}}\n"
        );
        same(&text, &[]);
    }
}

/// Every f16/bf16 bit pattern class (signalling and quiet NaNs with
/// payloads, infinities, denormals, signed zeros) as s16 bits.
fn half_patterns() -> Vec<i16> {
    [
        0x7c01u16, 0xfc01, 0x7dff, 0x7e00, 0xfe01, 0x7fff, 0x7c00, 0xfc00, 0x0001, 0x8001, 0x0000,
        0x8000, 0x3c00, 0xc500, 0x7f81, 0xff81, 0x7fc1, 0x7f80,
    ]
    .iter()
    .map(|&b| b as i16)
    .collect()
}

#[test]
fn half_bitcast_converts_keep_every_bit_pattern() {
    // Data movement keeps signalling NaNs as the evaluator does; arithmetic
    // (negate, clamp) and convert quiet them as its conversions do;
    // bitcast-convert to and from 16-bit integers, the other half type and
    // wider/narrower types is native (no interpreter fallback).
    for ty in ["f16", "bf16"] {
        let text = format!(
            "HloModule h\n\nENTRY e {{\n  \
             bits = s16[18] parameter(0)\n  \
             h = {ty}[18] bitcast-convert(bits)\n  \
             r = {ty}[18] reverse(h), dimensions={{0}}\n  \
             rb = s16[18] bitcast-convert(r)\n  \
             n = {ty}[18] negate(h)\n  \
             nb = u16[18] bitcast-convert(n)\n  \
             lo = {ty}[] constant(-1)\n  \
             lob = {ty}[18] broadcast(lo), dimensions={{}}\n  \
             hi = {ty}[] constant(1)\n  \
             hib = {ty}[18] broadcast(hi), dimensions={{}}\n  \
             c = {ty}[18] clamp(lob, h, hib)\n  \
             cb = s16[18] bitcast-convert(c)\n  \
             f = f32[18] convert(h)\n  \
             fb = s32[18] bitcast-convert(f)\n  \
             w = u8[18,2] bitcast-convert(h)\n  \
             back = {ty}[18] bitcast-convert(w)\n  \
             other = bf16[18] bitcast-convert(back)\n  \
             ob = u16[18] bitcast-convert(other)\n  \
             pairs = {ty}[9,2] reshape(h)\n  \
             wide = f32[9] bitcast-convert(pairs)\n  \
             ROOT t = (s16[18], u16[18], s16[18], s32[18], u16[18], f32[9], {ty}[18]) tuple(rb, nb, cb, fb, ob, wide, r)\n}}\n"
        );
        same(&text, &[Literal::vec1(half_patterns())]);
    }
}

#[test]
fn max_min_reductions_over_column_major_operands_bitwise() {
    // Two different NaNs in a row: the result is the first in the
    // evaluator's (logical) order, whatever the physical order.
    let nan_neg = f32::from_bits(0xffc0_0001);
    let nan_pos = f32::from_bits(0x7fc0_0002);
    let (n, len) = (5usize, 9usize);
    let data: Vec<f32> = (0..n * len)
        .map(|k| match (k / len, k % len) {
            (r, 2) if r % 2 == 0 => nan_pos,
            (r, 6) if r % 2 == 0 => nan_neg,
            (1, 0) => nan_neg,
            (1, 8) => nan_pos,
            (_, c) => c as f32 - 4.0,
        })
        .collect();
    let x = Literal::from_vec(&[n as i64, len as i64], data).unwrap();
    for op in ["maximum", "minimum"] {
        for dims in ["1", "0", "0,1"] {
            let out = match dims {
                "1" => format!("f32[{n}]"),
                "0" => format!("f32[{len}]"),
                _ => "f32[]".to_string(),
            };
            same(
                &format!(
                    "HloModule m\nr {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] {op}(a, b)\n}}\nENTRY e {{\n  x = f32[{n},{len}]{{0,1}} parameter(0)\n  i = f32[] constant(0)\n  ROOT r = {out} reduce(x, i), dimensions={{{dims}}}, to_apply=r\n}}\n"
                ),
                std::slice::from_ref(&x),
            );
        }
    }
}

#[test]
fn add_multiply_reductions_with_non_finite_results_bitwise() {
    // The vector loops reassociate and apply the init last; where that
    // changes more than rounding the row is redone in the evaluator's
    // order. Rows of 11 (vector body plus scalar tail):
    // - product with init 0 whose partial products overflow: ±0, not NaN
    //   (0·1e30·1e30… stays 0 in the evaluator's order; 0·inf is NaN);
    // - sum with init -inf whose partial sums overflow to +inf: -inf;
    // - two different NaNs: the first one's payload;
    // - an inf element: inf (product: NaN with init 0).
    let nan_a = f32::from_bits(0x7fc0_0011);
    let nan_b = f32::from_bits(0xffc0_0022);
    let len = 11usize;
    let rows: Vec<Vec<f32>> = vec![
        vec![1e30, 1e30, -1.0, 1e30, 2.0, 3.0, 1.0, 1.0, 1e30, 1.0, 1.0],
        vec![3e38, 3e38, 3e38, 3e38, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, -2.0],
        vec![1.0, nan_a, 1.0, 1.0, 1.0, 1.0, nan_b, 1.0, 1.0, 1.0, 1.0],
        [[1.0; 10].as_slice(), &[f32::INFINITY]].concat(),
        // Column 0 holds a NaN here: a column-major walk meets it before
        // row 2's NaNs, the evaluator's row-major walk after them.
        [[nan_b, 1.0, 2.0].as_slice(), &[1.0; 8]].concat(),
        (0..len).map(|k| k as f32 - 5.5).collect(),
    ];
    let n = rows.len();
    let x = Literal::from_vec(&[n as i64, len as i64], rows.concat()).unwrap();
    // The transpose, column-major: the same memory, the rows now the
    // contiguous dim 0 (long enough for the vector loops).
    let xt: Vec<f32> = (0..len)
        .flat_map(|j| rows.iter().map(move |r| r[j]))
        .collect();
    let xt = Literal::from_vec(&[len as i64, n as i64], xt).unwrap();
    let (rows_out, all) = (format!("f32[{n}]"), "f32[]".to_string());
    // (operand, dims, result, argument): row-major rows; the whole array;
    // the whole array column-major (the redo walks the evaluator's logical
    // order, not the layout's); the transpose's rows and whole.
    let cases = [
        (format!("f32[{n},{len}]{{1,0}}"), "1", &rows_out, &x),
        (format!("f32[{n},{len}]{{1,0}}"), "0,1", &all, &x),
        (format!("f32[{n},{len}]{{0,1}}"), "0,1", &all, &x),
        (format!("f32[{len},{n}]{{0,1}}"), "0", &rows_out, &xt),
        (format!("f32[{len},{n}]{{0,1}}"), "0,1", &all, &xt),
    ];
    for (op, init) in [
        ("multiply", "0"),
        ("multiply", "-0"),
        ("multiply", "1"),
        ("add", "-inf"),
        ("add", "0"),
    ] {
        for (operand, dims, out, arg) in &cases {
            same(
                &format!(
                    "HloModule m\nr {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] {op}(a, b)\n}}\nENTRY e {{\n  x = {operand} parameter(0)\n  i = f32[] constant({init})\n  ROOT r = {out} reduce(x, i), dimensions={{{dims}}}, to_apply=r\n}}\n"
                ),
                std::slice::from_ref(*arg),
            );
        }
    }
}
