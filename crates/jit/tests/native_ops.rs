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

fn bits(l: &Literal) -> Vec<Vec<u8>> {
    l.leaves()
        .iter()
        .map(|a| a.to_physical_bytes().unwrap())
        .collect()
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
        assert_eq!(
            bits(&got),
            bits(&want),
            "vectorize={vectorize} fusion={fusion}\n{text}\ngot  {got}\nwant {want}"
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
    assert_eq!(bits(&got), bits(&want), "2 threads\n{text}");
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
#[allow(dead_code)]
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
