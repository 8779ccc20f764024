//! Ops that used to run on the evaluator fallback and now compile
//! natively (variadic reduce and reduce-window, map, reduce-precision,
//! mixed-type and half dots, scatter, select-and-scatter, vectorized
//! total-order compares in inlined combiners): each must match the
//! evaluator bit for bit, vectorized and scalar, with no fallback, on
//! several shapes (empty dims, odd sizes, non-default layouts) and special
//! values (NaN, ±0, ±inf, out-of-range indices).

use rxla_eval::{RunOptions, evaluate};
use rxla_ir::{ArrayData, ArrayLiteral, ArrayShape, ElementType, Literal, Shape, parse_module};
use rxla_jit::{CompileOptions, compile};
use rxla_oracles::compare::same_values;

/// Bit-exact equality of values (NaNs of any sign or payload are equal:
/// x86 makes a negative default NaN where Rust code may keep another).
fn check(want: &Literal, got: &Literal, what: &str, text: &str) {
    if let Err(e) = same_values(want, got) {
        panic!("{what}: {e}\n{text}\ngot  {got}\nwant {want}");
    }
}

/// Compiles `text` vectorized and scalar, fused and unfused; every
/// variant must run without fallback and match the evaluator exactly.
/// Returns the number of vectorized kernels of the default variant.
fn same(text: &str, args: &[Literal]) -> usize {
    let m = parse_module(text, "native").unwrap_or_else(|e| panic!("parses: {e}\n{text}"));
    let want = evaluate(&m, args, &RunOptions::default()).expect("evaluates");
    let mut vectorized = 0;
    for (vectorize, fusion) in [(true, true), (false, true), (true, false), (false, false)] {
        let opts = CompileOptions {
            threads: Some(1),
            vectorize,
            fusion,
            ..CompileOptions::default()
        };
        let exe = compile(&m, &opts).unwrap_or_else(|e| panic!("compiles: {e}\n{text}"));
        assert!(
            exe.stats().fallbacks.is_empty(),
            "{:?}\n{text}",
            exe.stats().fallbacks
        );
        if vectorize && fusion {
            vectorized = exe.stats().vectorized_kernels;
        }
        let got = exe.run(args).expect("runs");
        check(
            &want,
            &got,
            &format!("vectorize={vectorize} fusion={fusion}"),
            text,
        );
    }
    // Two threads (kernels with many output elements split their rows).
    let exe = compile(
        &m,
        &CompileOptions {
            threads: Some(2),
            ..CompileOptions::default()
        },
    )
    .expect("compiles");
    let got = exe.run(args).expect("runs");
    check(&want, &got, "2 threads", text);
    vectorized
}

/// Special values every float argument mixes in.
const SPECIAL: [f64; 10] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    2.5,
    -2.5,
    1e-45,
];

fn parse_shape(s: &str) -> ArrayShape {
    match rxla_ir::text::parse_shape(s).unwrap_or_else(|e| panic!("shape {s}: {e}")) {
        Shape::Array(a) => a,
        Shape::Tuple(_) => panic!("tuple shape {s}"),
    }
}

/// A literal of `shape` (any type and layout) from values given as f64
/// in row-major order (Rust `as` conversions, pred is `!= 0`).
fn lit(shape: &str, v: &[f64]) -> Literal {
    use half::{bf16, f16};
    let s = parse_shape(shape);
    assert_eq!(v.len(), s.element_count().unwrap(), "{shape}");
    let d = match s.element_type {
        ElementType::Pred => ArrayData::Pred(v.iter().map(|&x| x != 0.0).collect()),
        ElementType::S8 => ArrayData::S8(v.iter().map(|&x| x as i8).collect()),
        ElementType::S16 => ArrayData::S16(v.iter().map(|&x| x as i16).collect()),
        ElementType::S32 => ArrayData::S32(v.iter().map(|&x| x as i32).collect()),
        ElementType::S64 => ArrayData::S64(v.iter().map(|&x| x as i64).collect()),
        ElementType::U8 => ArrayData::U8(v.iter().map(|&x| x as u8).collect()),
        ElementType::U16 => ArrayData::U16(v.iter().map(|&x| x as u16).collect()),
        ElementType::U32 => ArrayData::U32(v.iter().map(|&x| x as u32).collect()),
        ElementType::U64 => ArrayData::U64(v.iter().map(|&x| x as u64).collect()),
        ElementType::F16 => ArrayData::F16(v.iter().map(|&x| f16::from_f64(x)).collect()),
        ElementType::BF16 => ArrayData::BF16(v.iter().map(|&x| bf16::from_f64(x)).collect()),
        ElementType::F32 => ArrayData::F32(v.iter().map(|&x| x as f32).collect()),
        ElementType::F64 => ArrayData::F64(v.to_vec()),
        // Narrow types: f8 rounds, s2/s4/u2/u4 saturate.
        t @ (rxla_ir::narrow_types!()) => ArrayData::narrow(
            t,
            v.iter().map(|&x| rxla_ir::narrow::from_f64(t, x)).collect(),
        ),
        ElementType::C64 | ElementType::C128 | ElementType::Token => panic!("{shape}"),
    };
    Literal::Array(ArrayLiteral::new(s, d).unwrap())
}

/// Deterministic pseudo-random values: specials (when `special`), small
/// integers (ties) and fractions, for `shape`.
fn arg(shape: &str, seed: u64, special: bool) -> Literal {
    let n = parse_shape(shape).element_count().unwrap();
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let v: Vec<f64> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 4 {
                0 if special => SPECIAL[(x >> 8) as usize % SPECIAL.len()],
                0 | 1 => ((x >> 8) % 7) as f64 - 3.0,
                _ => ((x >> 8) % 1000) as f64 / 64.0 - 7.0,
            }
        })
        .collect();
    lit(shape, &v)
}

/// Integers in `lo..hi` for `shape` (any integer type).
fn ints(shape: &str, lo: i64, hi: i64, seed: u64) -> Literal {
    let n = parse_shape(shape).element_count().unwrap();
    let mut x = seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1;
    let v: Vec<f64> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (lo + (x % (hi - lo) as u64) as i64) as f64
        })
        .collect();
    lit(shape, &v)
}

// ------------------------------------------------- total order in combiners

#[test]
fn total_order_combiner_vectorizes() {
    // The fuzz regression: select(compare(b, a, GT, TOTALORDER), b, 0).
    for (shape, dims, out) in [
        ("f32[6,1,1,1]", "1,2,3", "f32[6]"),
        ("f32[9,13]", "0", "f32[13]"),
        ("f32[9,13]{0,1}", "0", "f32[13]"),
        ("f32[3,0,8]", "1", "f32[3,8]"),
        ("f32[5,17]", "1", "f32[5]"),
    ] {
        for dir in ["GT", "LT", "GE", "LE", "EQ", "NE"] {
            let text = format!(
                "HloModule m\n\nr {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = pred[] compare(b, a), direction={dir}, type=TOTALORDER\n  z = f32[] constant(0)\n  ROOT s = f32[] select(c, b, a)\n}}\n\nENTRY e {{\n  x = {shape} parameter(0)\n  i = f32[] constant(-inf)\n  ROOT y = {out} reduce(x, i), dimensions={{{dims}}}, to_apply=r\n}}\n"
            );
            same(&text, &[arg(shape, 3, true)]);
        }
    }
    // Lanes along the kept minor dimension: the kernel vectorizes.
    let text = "HloModule m\n\nr {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = pred[] compare(b, a), direction=GT, type=TOTALORDER\n  ROOT s = f32[] select(c, b, a)\n}\n\nENTRY e {\n  x = f32[7,32] parameter(0)\n  i = f32[] constant(0)\n  ROOT y = f32[32] reduce(x, i), dimensions={0}, to_apply=r\n}\n";
    assert!(same(text, &[arg("f32[7,32]", 5, true)]) > 0);
}

// ------------------------------------------------------------------- map

#[test]
fn map_inlines_its_computation() {
    // Binary with a constant and a compare/select, on f32 (vectorizes).
    for shape in ["f32[0]", "f32[7]", "f32[5,9]{0,1}", "f32[2,3,17]"] {
        let text = format!(
            "HloModule m\n\nf {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  k = f32[] constant(0.5)\n  s = f32[] multiply(a, k)\n  t = f32[] maximum(s, b)\n  c = pred[] compare(a, b), direction=LT\n  ROOT r = f32[] select(c, t, a)\n}}\n\nENTRY e {{\n  x = {shape} parameter(0)\n  y = {shape} parameter(1)\n  ROOT m = {shape} map(x, y), dimensions={{{}}}, to_apply=f\n}}\n",
            (0..parse_shape(shape).rank())
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        same(&text, &[arg(shape, 1, true), arg(shape, 2, true)]);
    }
    // Mixed types: s32 and f16 operands, bf16 result (half rounding per op).
    let text = "HloModule m\n\nf {\n  a = s32[] parameter(0)\n  b = f16[] parameter(1)\n  c = bf16[] convert(a)\n  d = bf16[] convert(b)\n  ROOT r = bf16[] divide(c, d)\n}\n\nENTRY e {\n  x = s32[4,5]{0,1} parameter(0)\n  y = f16[4,5] parameter(1)\n  ROOT m = bf16[4,5] map(x, y), dimensions={0,1}, to_apply=f\n}\n";
    same(
        text,
        &[ints("s32[4,5]{0,1}", -9, 9, 3), arg("f16[4,5]", 4, true)],
    );
    // Unary on integers.
    let text = "HloModule m\n\nf {\n  a = u8[] parameter(0)\n  k = u8[] constant(3)\n  ROOT r = u8[] remainder(a, k)\n}\n\nENTRY e {\n  x = u8[11] parameter(0)\n  ROOT m = u8[11] map(x), dimensions={0}, to_apply=f\n}\n";
    same(text, &[ints("u8[11]", 0, 255, 5)]);
}

// ------------------------------------------------------ reduce-precision

#[test]
fn reduce_precision_matches_bits() {
    let widths = [
        (1, 0),
        (2, 1),
        (5, 10),
        (8, 7),
        (8, 23),
        (4, 3),
        (11, 52),
        (3, 30),
        (9, 2),
    ];
    for ty in ["f32", "f64", "f16", "bf16"] {
        for shape in [
            format!("{ty}[0]"),
            format!("{ty}[13]"),
            format!("{ty}[3,8]{{0,1}}"),
        ] {
            for (e, m) in widths {
                let text = format!(
                    "HloModule m\n\nENTRY e {{\n  x = {shape} parameter(0)\n  ROOT r = {shape} reduce-precision(x), exponent_bits={e}, mantissa_bits={m}\n}}\n"
                );
                // Values near rounding boundaries and range limits.
                let n = parse_shape(&shape).element_count().unwrap();
                let v: Vec<f64> = (0..n)
                    .map(|i| match i % 13 {
                        0 => f64::NAN,
                        1 => -0.0,
                        2 => f64::INFINITY,
                        3 => -1.0e30,
                        4 => 1.0 + 1.0 / 1024.0 + 1.0 / 2048.0,
                        5 => 65504.0 * (i as f64),
                        6 => 1.5e-5,
                        7 => -3.0e-39,
                        8 => 0.1 * i as f64,
                        9 => f64::NEG_INFINITY,
                        10 => 1.0 + 3.0 / 16.0,
                        11 => -2.5,
                        _ => 1e-310,
                    })
                    .collect();
                same(&text, &[lit(&shape, &v)]);
            }
        }
    }
    // Fused with elementwise f32 math: still one vectorized kernel.
    let text = "HloModule m\n\nENTRY e {\n  x = f32[64] parameter(0)\n  y = f32[64] multiply(x, x)\n  r = f32[64] reduce-precision(y), exponent_bits=5, mantissa_bits=10\n  ROOT z = f32[64] add(r, x)\n}\n";
    assert!(same(text, &[arg("f32[64]", 9, true)]) > 0);
}

// -------------------------------------------------------------------- dot

#[test]
fn mixed_and_half_dots_accumulate_like_the_evaluator() {
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "f16[3,5]",
            "f16[5,4]",
            "f16[3,4]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        ),
        (
            "bf16[2,7]",
            "bf16[7,3]{0,1}",
            "bf16[2,3]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        ),
        (
            "f16[4,33]",
            "f16[33]",
            "f16[4]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        ),
        (
            "f16[3,5]",
            "f32[5,4]",
            "f32[3,4]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        ),
        (
            "s8[3,5]",
            "f32[5,2]",
            "f32[3,2]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        ),
        (
            "s8[3,6]",
            "s8[6,2]",
            "s32[3,2]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        ),
        (
            "f32[3,6]",
            "f32[6,2]",
            "s32[3,2]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        ),
        (
            "f32[2,3,4]",
            "f16[2,4,5]",
            "f64[2,3,5]",
            "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}",
        ),
        (
            "pred[3,4]",
            "f32[4,2]",
            "pred[3,2]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        ),
        (
            "f32[3,4]",
            "f32[4,8]",
            "pred[3,8]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        ),
        (
            "f32[3,5]",
            "f32[5,9]{0,1}",
            "f64[3,9]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        ),
        (
            "f16[3,0]",
            "f16[0,2]",
            "f16[3,2]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        ),
        (
            "u8[0,5]",
            "u8[5,3]",
            "u8[0,3]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        ),
        (
            "bf16[2,3,4]{0,2,1}",
            "bf16[4,3]",
            "bf16[2]",
            "lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}",
        ),
    ];
    for &(l, r, o, dims) in cases {
        let text = format!(
            "HloModule m\n\nENTRY e {{\n  a = {l} parameter(0)\n  b = {r} parameter(1)\n  ROOT d = {o} dot(a, b), {dims}\n}}\n"
        );
        same(&text, &[arg(l, 11, true), arg(r, 12, true)]);
        // Without specials (finite sums that round differently per order).
        same(&text, &[arg(l, 13, false), arg(r, 14, false)]);
    }
}

// ------------------------------------------------------- variadic reduce

/// An argmax/argmin combiner over (value, index): `dir` GT or LT; NaN
/// wins (as jnp.argmax), ties keep the smaller index.
fn arg_combiner(name: &str, vt: &str, it: &str, dir: &str) -> String {
    format!(
        "{name} {{\n  av = {vt}[] parameter(0)\n  ai = {it}[] parameter(1)\n  bv = {vt}[] parameter(2)\n  bi = {it}[] parameter(3)\n  gt = pred[] compare(av, bv), direction={dir}\n  an = pred[] compare(av, av), direction=NE\n  pick = pred[] or(gt, an)\n  eq = pred[] compare(av, bv), direction=EQ\n  lt = pred[] compare(ai, bi), direction=LT\n  tie = pred[] and(eq, lt)\n  a = pred[] or(pick, tie)\n  v = {vt}[] select(a, av, bv)\n  i = {it}[] select(a, ai, bi)\n  ROOT t = ({vt}[], {it}[]) tuple(v, i)\n}}\n"
    )
}

#[test]
fn variadic_reduce_argmax_argmin() {
    let cases: &[(&str, &str, &str, usize)] = &[
        // (values shape, reduced dims, index type, iota dimension)
        ("f32[5,7]", "1", "s32", 1),
        ("f32[5,7]{0,1}", "0", "s32", 0),
        ("f32[4,0]", "1", "s32", 1),
        ("f32[0,3]", "1", "s64", 1),
        ("f32[3,4,5]", "0,2", "s32", 2),
        ("f32[9]", "0", "u32", 0),
        ("f16[6,11]", "1", "s32", 1),
        ("bf16[3,5]{0,1}", "0", "s16", 0),
        ("f64[2,3,8]", "2", "s64", 2),
        ("s8[4,9]", "1", "s32", 1),
        ("u16[7,3]", "0", "s32", 0),
    ];
    for &(shape, dims, it, iota_dim) in cases {
        let s = parse_shape(shape);
        let vt = s.element_type.to_string();
        let idx_shape = format!(
            "{it}[{}]",
            s.dims
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        let reduced: Vec<usize> = dims.split(',').map(|d| d.parse().unwrap()).collect();
        let kept: Vec<String> = (0..s.rank())
            .filter(|d| !reduced.contains(d))
            .map(|d| s.dims[d].to_string())
            .collect();
        let kept = kept.join(",");
        let low = if vt == "f32" || vt == "f64" || vt == "f16" || vt == "bf16" {
            "-inf"
        } else {
            "0"
        };
        for dir in ["GT", "LT"] {
            let text = format!(
                "HloModule m\n\n{}\nENTRY e {{\n  x = {shape} parameter(0)\n  i = {idx_shape} iota(), iota_dimension={iota_dim}\n  v0 = {vt}[] constant({low})\n  i0 = {it}[] constant(0)\n  ROOT r = ({vt}[{kept}], {it}[{kept}]{{{}}}) reduce(x, i, v0, i0), dimensions={{{dims}}}, to_apply=argf\n}}\n",
                arg_combiner("argf", &vt, it, dir),
                (0..kept.split(',').filter(|k| !k.is_empty()).count())
                    .rev()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
            );
            same(&text, &[arg(shape, 21, true)]);
            same(&text, &[arg(shape, 22, false)]);
        }
    }
}

#[test]
fn variadic_reduce_sum_and_count_with_layouts() {
    // Two different element types and result layouts; a non-associative
    // f32 sum must follow the evaluator's row-major order bit for bit.
    let text = "HloModule m\n\nf {\n  a = f32[] parameter(0)\n  b = s32[] parameter(1)\n  x = f32[] parameter(2)\n  y = s32[] parameter(3)\n  s = f32[] add(a, x)\n  n = s32[] add(b, y)\n  ROOT t = (f32[], s32[]) tuple(s, n)\n}\n\nENTRY e {\n  x = f32[6,5,7]{0,2,1} parameter(0)\n  y = s32[6,5,7]{1,0,2} parameter(1)\n  z = f32[] constant(0.1)\n  w = s32[] constant(-3)\n  ROOT r = (f32[6,7]{0,1}, s32[6,7]) reduce(x, y, z, w), dimensions={1}, to_apply=f\n}\n";
    same(
        text,
        &[
            arg("f32[6,5,7]{0,2,1}", 31, true),
            ints("s32[6,5,7]{1,0,2}", -100, 100, 32),
        ],
    );
    // A scalar result, many elements: three operands.
    let text = "HloModule m\n\nf {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = pred[] parameter(2)\n  x = f32[] parameter(3)\n  y = f32[] parameter(4)\n  z = pred[] parameter(5)\n  s = f32[] add(a, x)\n  m = f32[] maximum(b, y)\n  o = pred[] or(c, z)\n  ROOT t = (f32[], f32[], pred[]) tuple(s, m, o)\n}\n\nENTRY e {\n  x = f32[300] parameter(0)\n  y = f32[300] parameter(1)\n  p = pred[300] parameter(2)\n  z = f32[] constant(0)\n  n = f32[] constant(-inf)\n  q = pred[] constant(false)\n  ROOT r = (f32[], f32[], pred[]) reduce(x, y, p, z, n, q), dimensions={0}, to_apply=f\n}\n";
    same(
        text,
        &[
            arg("f32[300]", 41, false),
            arg("f32[300]", 42, true),
            ints("pred[300]", 0, 2, 43),
        ],
    );
    // Many output rows: two threads split them.
    let text = format!(
        "HloModule m\n\n{}\nENTRY e {{\n  x = f32[70000,3] parameter(0)\n  i = s32[70000,3] iota(), iota_dimension=1\n  v0 = f32[] constant(-inf)\n  i0 = s32[] constant(0)\n  ROOT r = (f32[70000], s32[70000]) reduce(x, i, v0, i0), dimensions={{1}}, to_apply=argf\n}}\n",
        arg_combiner("argf", "f32", "s32", "GT")
    );
    same(&text, &[arg("f32[70000,3]", 44, true)]);
}

#[test]
fn variadic_reduce_window() {
    let windows = [
        "size=3 stride=1",
        "size=2 stride=2 pad=1_1",
        "size=3 stride=2 pad=2_0 lhs_dilate=2",
        "size=2 stride=1 rhs_dilate=2 pad=0_3",
        "size=4 stride=3 pad=5_5",
    ];
    for shape in ["f32[9]", "f32[0]", "f32[1]"] {
        for w in windows {
            let s = parse_shape(shape);
            let text = format!(
                "HloModule m\n\n{}\nENTRY e {{\n  x = {shape} parameter(0)\n  i = s32[{n}] iota(), iota_dimension=0\n  v0 = f32[] constant(-inf)\n  i0 = s32[] constant(-1)\n  ROOT r = (f32[{o}], s32[{o}]) reduce-window(x, i, v0, i0), window={{{w}}}, to_apply=argf\n}}\n",
                arg_combiner("argf", "f32", "s32", "GT"),
                n = s.dims[0],
                o = out_len(s.dims[0], w),
            );
            same(&text, &[arg(shape, 51, true)]);
        }
    }
    // 2-D, column-major operand and result, f16 values.
    let text = format!(
        "HloModule m\n\n{}\nENTRY e {{\n  x = f16[7,6]{{0,1}} parameter(0)\n  i = s32[7,6] iota(), iota_dimension=1\n  v0 = f16[] constant(inf)\n  i0 = s32[] constant(0)\n  ROOT r = (f16[4,6]{{0,1}}, s32[4,6]) reduce-window(x, i, v0, i0), window={{size=2x3 stride=2x1 pad=1_0x1_1}}, to_apply=argf\n}}\n",
        arg_combiner("argf", "f16", "s32", "LT")
    );
    same(&text, &[arg("f16[7,6]{0,1}", 52, true)]);
}

/// Output length of a 1-D window spec as written in the tests.
fn out_len(n: i64, w: &str) -> i64 {
    let get = |k: &str, d: i64| -> i64 {
        w.split(' ')
            .find_map(|p| p.strip_prefix(k))
            .map(|v| v.parse().unwrap())
            .unwrap_or(d)
    };
    let (size, stride) = (get("size=", 1), get("stride=", 1));
    let (ld, rd) = (get("lhs_dilate=", 1), get("rhs_dilate=", 1));
    let (pl, ph) = w
        .split(' ')
        .find_map(|p| p.strip_prefix("pad="))
        .map(|v| {
            let (a, b) = v.split_once('_').unwrap();
            (a.parse::<i64>().unwrap(), b.parse::<i64>().unwrap())
        })
        .unwrap_or((0, 0));
    let base = if n == 0 { 0 } else { (n - 1) * ld + 1 };
    let padded = base + pl + ph;
    let win = (size - 1) * rd + 1;
    if padded < win {
        0
    } else {
        (padded - win) / stride + 1
    }
}

// ---------------------------------------------------------------- scatter

fn add_comp(name: &str, t: &str) -> String {
    format!(
        "{name} {{\n  a = {t}[] parameter(0)\n  b = {t}[] parameter(1)\n  ROOT r = {t}[] add(a, b)\n}}\n"
    )
}

#[test]
fn scatter_serial_updates_skip_out_of_bounds_windows() {
    // (operand, indices, updates, dimension numbers): indices include
    // negative and too-large starts (whole window skipped) and repeats
    // (updates accumulate in order: non-associative f32 adds).
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "f32[8]",
            "s32[6,1]",
            "f32[6]",
            "update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1",
        ),
        (
            "f32[5,6]",
            "s32[4]",
            "f32[4,6]",
            "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1",
        ),
        (
            "f32[6,7]{0,1}",
            "s64[3,2]",
            "f32[3,2,3]{0,1,2}",
            "update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1",
        ),
        (
            "f32[6,7]",
            "u8[2,5]",
            "f32[5,3]",
            "update_window_dims={1}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1,0}, index_vector_dim=0",
        ),
        (
            "f32[0,4]",
            "s32[3,1]",
            "f32[3,4]",
            "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1",
        ),
        (
            "f32[5,4]",
            "s32[0,1]",
            "f32[0,4]",
            "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1",
        ),
        (
            "f32[3,5,4]",
            "s32[3,2]",
            "f32[3,2,4]",
            "update_window_dims={2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, index_vector_dim=2, input_batching_dims={0}, scatter_indices_batching_dims={0}",
        ),
    ];
    for &(o, i, u, dims) in cases {
        for (comp, ty) in [("add", "f32"), ("max", "f32"), ("set", "f32")] {
            let body = match comp {
                "add" => add_comp("upd", ty),
                "max" => format!(
                    "upd {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  ROOT r = {ty}[] maximum(a, b)\n}}\n"
                ),
                _ => format!(
                    "upd {{\n  a = {ty}[] parameter(0)\n  ROOT b = {ty}[] parameter(1)\n}}\n"
                ),
            };
            let text = format!(
                "HloModule m\n\n{body}\nENTRY e {{\n  x = {o} parameter(0)\n  i = {i} parameter(1)\n  u = {u} parameter(2)\n  ROOT s = {o} scatter(x, i, u), {dims}, to_apply=upd\n}}\n"
            );
            for seed in 0..3 {
                same(
                    &text,
                    &[
                        arg(o, 60 + seed, true),
                        ints(i, -2, 8, 70 + seed),
                        arg(u, 80 + seed, seed != 2),
                    ],
                );
            }
        }
    }
    // u64 indices above i64::MAX and s8 values; the operand is fused
    // (broadcast of a constant) and the indices come from a computation.
    let text = "HloModule m\n\nupd {\n  a = s8[] parameter(0)\n  b = s8[] parameter(1)\n  ROOT r = s8[] multiply(a, b)\n}\n\nENTRY e {\n  c = s8[] constant(3)\n  x = s8[9] broadcast(c), dimensions={}\n  i = u64[5,1] parameter(0)\n  u = s8[5] parameter(1)\n  ROOT s = s8[9] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=upd\n}\n";
    let idx = Literal::Array(
        ArrayLiteral::new(
            parse_shape("u64[5,1]"),
            ArrayData::U64(vec![1, u64::MAX, 8, 1 << 63, 1]),
        )
        .unwrap(),
    );
    same(text, &[idx, ints("s8[5]", -128, 127, 90)]);
}

#[test]
fn variadic_scatter() {
    // (values, counts): a tuple update computation over two types.
    let text = "HloModule m\n\nupd {\n  a = f32[] parameter(0)\n  n = s32[] parameter(1)\n  b = f32[] parameter(2)\n  m = s32[] parameter(3)\n  s = f32[] add(a, b)\n  k = s32[] add(n, m)\n  ROOT t = (f32[], s32[]) tuple(s, k)\n}\n\nENTRY e {\n  x = f32[7,3]{0,1} parameter(0)\n  y = s32[7,3] parameter(1)\n  i = s32[9] parameter(2)\n  u = f32[9,3] parameter(3)\n  v = s32[9,3] parameter(4)\n  ROOT s = (f32[7,3]{0,1}, s32[7,3]) scatter(x, y, i, u, v), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=upd\n}\n";
    same(
        text,
        &[
            arg("f32[7,3]{0,1}", 91, true),
            ints("s32[7,3]", -5, 5, 92),
            ints("s32[9]", -1, 8, 93),
            arg("f32[9,3]", 94, true),
            ints("s32[9,3]", 0, 3, 95),
        ],
    );
}

// ----------------------------------------------------- select-and-scatter

#[test]
fn select_and_scatter_ties_padding_and_accumulation() {
    let ge = "sel {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=GE\n}\n";
    let gt = "sel {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=GT\n}\n";
    let cases: &[(&str, &str, &str)] = &[
        ("f32[8]", "size=2 stride=2", "f32[4]"),
        ("f32[8]", "size=3 stride=1", "f32[6]"),
        ("f32[7]", "size=3 stride=2 pad=1_1", "f32[4]"),
        ("f32[5]", "size=2 stride=1 pad=2_2 lhs_dilate=2", "f32[12]"),
        ("f32[6]", "size=2 stride=1 rhs_dilate=3", "f32[3]"),
        ("f32[0]", "size=2 stride=1 pad=1_1", "f32[1]"),
        ("f32[3]", "size=4 stride=1 pad=4_4", "f32[8]"),
        (
            "f32[6,5]{0,1}",
            "size=2x3 stride=2x1 pad=0_0x1_1",
            "f32[3,5]",
        ),
        ("f32[4,6]", "size=3x2 stride=1x2", "f32[2,3]{0,1}"),
    ];
    for &(o, w, s) in cases {
        for sel in [ge, gt] {
            let text = format!(
                "HloModule m\n\n{sel}\n{}\nENTRY e {{\n  x = {o} parameter(0)\n  s = {s} parameter(1)\n  z = f32[] constant(-0)\n  ROOT r = {o} select-and-scatter(x, s, z), window={{{w}}}, select=sel, scatter=sc\n}}\n",
                add_comp("sc", "f32")
            );
            same(&text, &[arg(o, 100, true), arg(s, 101, true)]);
            // Small integers: many ties.
            same(&text, &[ints(o, 0, 3, 102), arg(s, 103, false)]);
        }
    }
    // s32 with an f32-free select (LE) and a max scatter.
    let text = "HloModule m\n\nsel {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=LE\n}\n\nsc {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT r = s32[] maximum(a, b)\n}\n\nENTRY e {\n  x = s32[9,4] parameter(0)\n  s = s32[4,2] parameter(1)\n  z = s32[] constant(-7)\n  ROOT r = s32[9,4] select-and-scatter(x, s, z), window={size=3x2 stride=2x2}, select=sel, scatter=sc\n}\n";
    same(
        text,
        &[ints("s32[9,4]", -3, 3, 104), ints("s32[4,2]", -20, 20, 105)],
    );
}

#[test]
fn half_and_integer_scatters() {
    // bf16 scatter-add (rounded after every update) and an f16
    // select-and-scatter; u8 reduce-window pair.
    let text = format!(
        "HloModule m\n\n{}\nENTRY e {{\n  x = bf16[6,4]{{0,1}} parameter(0)\n  i = s32[5,1] parameter(1)\n  u = bf16[5,4] parameter(2)\n  ROOT s = bf16[6,4]{{0,1}} scatter(x, i, u), update_window_dims={{1}}, inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply=upd\n}}\n",
        add_comp("upd", "bf16")
    );
    same(
        &text,
        &[
            arg("bf16[6,4]{0,1}", 110, true),
            ints("s32[5,1]", -1, 7, 111),
            arg("bf16[5,4]", 112, true),
        ],
    );
    let text = format!(
        "HloModule m\n\nsel {{\n  a = f16[] parameter(0)\n  b = f16[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=GE\n}}\n\n{}\nENTRY e {{\n  x = f16[7,5] parameter(0)\n  s = f16[4,2] parameter(1)\n  z = f16[] constant(0.1)\n  ROOT r = f16[7,5] select-and-scatter(x, s, z), window={{size=2x3 stride=2x2 pad=1_0x0_0}}, select=sel, scatter=sc\n}}\n",
        add_comp("sc", "f16")
    );
    same(
        &text,
        &[arg("f16[7,5]", 113, true), arg("f16[4,2]", 114, false)],
    );
    let text = "HloModule m\n\nf {\n  a = u8[] parameter(0)\n  b = s64[] parameter(1)\n  x = u8[] parameter(2)\n  y = s64[] parameter(3)\n  m = u8[] maximum(a, x)\n  s = s64[] multiply(b, y)\n  ROOT t = (u8[], s64[]) tuple(m, s)\n}\n\nENTRY e {\n  x = u8[5,6]{0,1} parameter(0)\n  y = s64[5,6] parameter(1)\n  z = u8[] constant(7)\n  w = s64[] constant(1)\n  ROOT r = (u8[4,3], s64[4,3]{0,1}) reduce-window(x, y, z, w), window={size=2x2 stride=1x2}, to_apply=f\n}\n";
    same(
        text,
        &[
            ints("u8[5,6]{0,1}", 0, 255, 115),
            ints("s64[5,6]", -9, 9, 116),
        ],
    );
}
