//! Row groups (consecutive kernels run block of rows by block of rows):
//! they form where each kernel reads the previous ones row-locally, never
//! where a kernel reads another row (a transpose, a reverse along the
//! rows), and give the same bits as running each kernel over its whole
//! output — on one thread and split over threads, with row counts that
//! are not a multiple of the block.

use rxla_ir::{Literal, parse_module};
use rxla_jit::{CompileOptions, compile};

fn arg(n: usize, salt: u32) -> Vec<f32> {
    (0..n)
        .map(|i| (((i as u32).wrapping_mul(2654435761) ^ salt) % 1000) as f32 / 125.0 - 4.0)
        .collect()
}

/// Compiles `text` with and without row groups (on `threads`), checks
/// both give the same bits and returns the number of groups formed.
fn groups_and_same_bits(text: &str, args: &[Literal], threads: usize) -> usize {
    groups_and_same_bits_from(
        text,
        args,
        threads,
        CompileOptions::default().row_group_min_bytes,
    )
}

/// As [`groups_and_same_bits`], grouping from `min_bytes` of output.
fn groups_and_same_bits_from(
    text: &str,
    args: &[Literal],
    threads: usize,
    min_bytes: usize,
) -> usize {
    let m = parse_module(text, "row_groups").expect("parses");
    let opts = |row_groups| CompileOptions {
        threads: Some(threads),
        row_groups,
        row_group_min_bytes: min_bytes,
        allow_interpreter_fallback: false,
        ..CompileOptions::default()
    };
    let grouped = compile(&m, &opts(true)).expect("compiles");
    let plain = compile(&m, &opts(false)).expect("compiles");
    assert_eq!(plain.stats().row_groups, 0);
    let a = grouped.run(args).expect("runs");
    let b = plain.run(args).expect("runs");
    assert_eq!(a, b, "row groups changed the result of\n{text}");
    // And a second run on the reused scratch buffers.
    assert_eq!(grouped.run(args).expect("runs"), b);
    // Several kernels or row-streaming reductions (else there is nothing
    // to group).
    let st = grouped.stats();
    assert!(st.kernels + st.column_reductions >= 2, "{st:?}");
    grouped.stats().row_groups
}

/// The f32 add and maximum reducers.
const ADD: &str =
    "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] add(a, b)\n}\n";
const MAX: &str = "max {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] maximum(a, b)\n}\n";

fn softmax(rows: usize, cols: usize) -> String {
    format!(
        "HloModule m
{MAX}{ADD}ENTRY e {{
  x = f32[{rows},{cols}] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[{rows}] reduce(x, ninf), dimensions={{1}}, to_apply=max
  mb = f32[{rows},{cols}] broadcast(m), dimensions={{0}}
  d = f32[{rows},{cols}] subtract(x, mb)
  e = f32[{rows},{cols}] exponential(d)
  z = f32[] constant(0)
  s = f32[{rows}] reduce(e, z), dimensions={{1}}, to_apply=add
  sb = f32[{rows},{cols}] broadcast(s), dimensions={{0}}
  ROOT r = f32[{rows},{cols}] divide(e, sb)
}}
"
    )
}

#[test]
fn softmax_runs_as_one_group_with_the_same_bits() {
    // 1027 rows: not a multiple of any block size.
    let (rows, cols) = (1027, 1024);
    let x = Literal::from_vec(&[rows as i64, cols as i64], arg(rows * cols, 3)).unwrap();
    for threads in [1, 2, 3] {
        let g = groups_and_same_bits(&softmax(rows, cols), std::slice::from_ref(&x), threads);
        assert_eq!(g, 1, "softmax on {threads} threads");
    }
}

#[test]
fn softmax_rows_sum_to_one() {
    let (rows, cols) = (1024, 1024);
    let x = Literal::from_vec(&[rows as i64, cols as i64], arg(rows * cols, 5)).unwrap();
    let m = parse_module(&softmax(rows, cols), "softmax").unwrap();
    let exe = compile(&m, &CompileOptions::default()).unwrap();
    assert_eq!(exe.stats().row_groups, 1);
    let out = exe.run(&[x]).unwrap();
    let v: &[f32] = out.as_slice().unwrap();
    for r in 0..rows {
        let s: f64 = v[r * cols..(r + 1) * cols].iter().map(|&p| p as f64).sum();
        assert!((s - 1.0).abs() < 1e-4, "row {r} sums to {s}");
    }
}

#[test]
fn a_kernel_reading_other_rows_is_not_grouped() {
    // Row r of the divide needs every column sum: all of s first.
    let n = 1024;
    let text = format!(
        "HloModule m
{ADD}
ENTRY e {{
  x = f32[{n},{n}] parameter(0)
  z = f32[] constant(0)
  s = f32[{n}] reduce(x, z), dimensions={{0}}, to_apply=add
  sb = f32[{n},{n}] broadcast(s), dimensions={{1}}
  ROOT r = f32[{n},{n}] divide(x, sb)
}}
"
    );
    let x = Literal::from_vec(&[n as i64, n as i64], arg(n * n, 9)).unwrap();
    for threads in [1, 2] {
        assert_eq!(
            groups_and_same_bits(&text, std::slice::from_ref(&x), threads),
            0
        );
    }
    // Row r of the sum reversed along the rows is row n-1-r.
    let text = format!(
        "HloModule m
{ADD}
ENTRY e {{
  x = f32[{n},{n}] parameter(0)
  z = f32[] constant(0)
  s = f32[{n}] reduce(x, z), dimensions={{1}}, to_apply=add
  v = f32[{n}] reverse(s), dimensions={{0}}
  vb = f32[{n},{n}] broadcast(v), dimensions={{0}}
  ROOT r = f32[{n},{n}] divide(x, vb)
}}
"
    );
    assert_eq!(groups_and_same_bits(&text, &[x], 1), 0);
}

#[test]
fn an_intermediate_read_after_the_group_keeps_its_whole_buffer() {
    // The exp is both inside the group and part of the tuple result.
    let n = 1024;
    let text = format!(
        "HloModule m
{ADD}ENTRY e {{
  x = f32[{n},{n}] parameter(0)
  e = f32[{n},{n}] exponential(x)
  z = f32[] constant(0)
  s = f32[{n}] reduce(e, z), dimensions={{1}}, to_apply=add
  sb = f32[{n},{n}] broadcast(s), dimensions={{0}}
  d = f32[{n},{n}] divide(e, sb)
  ROOT t = (f32[{n},{n}], f32[{n},{n}]) tuple(e, d)
}}
"
    );
    let x = Literal::from_vec(&[n as i64, n as i64], arg(n * n, 11)).unwrap();
    for threads in [1, 2] {
        assert!(groups_and_same_bits(&text, std::slice::from_ref(&x), threads) >= 1);
    }
}

/// Softmax over the middle axis of `[b, n, c]`: two column reductions
/// (the max, then the sum with its `exp(x - max)` producer) and the
/// divide.
fn softmax_mid(b: usize, n: usize, c: usize) -> String {
    format!(
        "HloModule m
{MAX}{ADD}ENTRY e {{
  x = f32[{b},{n},{c}] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[{b},{c}] reduce(x, ninf), dimensions={{1}}, to_apply=max
  mb = f32[{b},{n},{c}] broadcast(m), dimensions={{0,2}}
  d = f32[{b},{n},{c}] subtract(x, mb)
  e = f32[{b},{n},{c}] exponential(d)
  z = f32[] constant(0)
  s = f32[{b},{c}] reduce(e, z), dimensions={{1}}, to_apply=add
  sb = f32[{b},{n},{c}] broadcast(s), dimensions={{0,2}}
  ROOT r = f32[{b},{n},{c}] divide(e, sb)
}}
"
    )
}

#[test]
fn column_reductions_over_a_middle_axis_join_the_group() {
    // 37 slabs of 96×64: several per block, and a shorter last block.
    let (b, n, c) = (37, 96, 64);
    let x = Literal::from_vec(&[b as i64, n as i64, c as i64], arg(b * n * c, 13)).unwrap();
    for threads in [1, 2, 3] {
        let g =
            groups_and_same_bits_from(&softmax_mid(b, n, c), std::slice::from_ref(&x), threads, 0);
        assert_eq!(g, 1, "softmax over axis 1 on {threads} threads");
    }
    // Each slab's columns sum to one.
    let m = parse_module(&softmax_mid(b, n, c), "m").unwrap();
    let out = compile(&m, &CompileOptions::default())
        .unwrap()
        .run(&[x])
        .unwrap();
    let v = out.as_array().unwrap().as_slice::<f32>().unwrap().to_vec();
    for slab in 0..b {
        for col in 0..c {
            let s: f32 = (0..n).map(|r| v[(slab * n + r) * c + col]).sum();
            assert!((s - 1.0).abs() < 1e-4, "slab {slab} column {col}: {s}");
        }
    }
}

#[test]
fn a_column_reduction_with_an_epilogue_joins_the_group_when_row_local() {
    // x / sqrt(sum(x², axis 1)): a reduction with a producer (x·x) and an
    // epilogue (sqrt), then the divide.
    let (b, n, c) = (29, 64, 48);
    let norm = |epilogue: &str| {
        format!(
            "HloModule m
{ADD}ENTRY e {{
  x = f32[{b},{n},{c}] parameter(0)
  sq = f32[{b},{n},{c}] multiply(x, x)
  z = f32[] constant(0)
  s = f32[{b},{c}] reduce(sq, z), dimensions={{1}}, to_apply=add
  {epilogue}
  nb = f32[{b},{n},{c}] broadcast(q), dimensions={{0,2}}
  ROOT r = f32[{b},{n},{c}] divide(x, nb)
}}
"
        )
    };
    let x = Literal::from_vec(&[b as i64, n as i64, c as i64], arg(b * n * c, 17)).unwrap();
    let local = norm(&format!("q = f32[{b},{c}] sqrt(s)"));
    for threads in [1, 2] {
        let g = groups_and_same_bits_from(&local, std::slice::from_ref(&x), threads, 0);
        assert_eq!(g, 1, "norm on {threads} threads");
    }
    // A fused epilogue reading the sums of another slab (reversed along
    // the slabs; the fusion pass never builds this, a dumped module may):
    // the reduction is never run by blocks, same bits.
    let other = format!(
        "HloModule m
{ADD}fused {{
  p = f32[{b},{n},{c}] parameter(0)
  sq = f32[{b},{n},{c}] multiply(p, p)
  z = f32[] constant(0)
  s = f32[{b},{c}] reduce(sq, z), dimensions={{1}}, to_apply=add
  t = f32[{b},{c}] sqrt(s)
  ROOT q = f32[{b},{c}] reverse(t), dimensions={{0}}
}}
ENTRY e {{
  x = f32[{b},{n},{c}] parameter(0)
  q = f32[{b},{c}] fusion(x), kind=kInput, calls=fused
  nb = f32[{b},{n},{c}] broadcast(q), dimensions={{0,2}}
  ROOT r = f32[{b},{n},{c}] divide(x, nb)
}}
"
    );
    for threads in [1, 2] {
        assert_eq!(
            groups_and_same_bits_from(&other, std::slice::from_ref(&x), threads, 0),
            0
        );
    }
}
