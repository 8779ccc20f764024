//! Ops that used to run on the evaluator fallback and now compile
//! natively (variadic reduce and reduce-window, map, reduce-precision,
//! mixed-type and half dots, scatter, select-and-scatter, vectorized
//! total-order compares in inlined combiners): each must match the
//! evaluator bit for bit, vectorized and scalar, with no fallback, on
//! several shapes (empty dims, odd sizes, non-default layouts) and special
//! values (NaN, ±0, ±inf, out-of-range indices).

use rxla_eval::{RunOptions, evaluate};
use rxla_fuzzgen::oracles::compare::same_values;
use rxla_ir::{ArrayData, ArrayLiteral, ArrayShape, ElementType, Literal, Shape, parse_module};
use rxla_jit::{CompileOptions, compile};

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
        ElementType::Token => panic!("token"),
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
