//! Prefix reduce-windows (cumsum, cumprod, cummax as JAX lowers them) run
//! as one-pass scans (`codegen/scan.rs`) and match the evaluator bit for
//! bit: the scan makes the same combiner calls in the same order.

use rxla_eval::{RunOptions, evaluate};
use rxla_ir::{Literal, parse_module};
use rxla_jit::{CompileOptions, compile};

fn bits(l: &Literal) -> Vec<u8> {
    l.leaves()
        .iter()
        .flat_map(|a| a.to_physical_bytes().unwrap())
        .collect()
}

/// A module with one reduce-window of `ty[dims]` along `axis` with a full
/// low padding (JAX's cumulative ops), reducer `op`.
fn cumulative(ty: &str, dims: &[i64], axis: usize, op: &str, init: &str, layout: &str) -> String {
    let n = dims[axis];
    let shape = dims
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let size = (0..dims.len())
        .map(|d| if d == axis { n.to_string() } else { "1".into() })
        .collect::<Vec<_>>()
        .join("x");
    let pad = (0..dims.len())
        .map(|d| {
            if d == axis {
                format!("{}_0", n - 1)
            } else {
                "0_0".into()
            }
        })
        .collect::<Vec<_>>()
        .join("x");
    format!(
        "HloModule scan
r {{
  a = {ty}[] parameter(0)
  b = {ty}[] parameter(1)
  ROOT c = {ty}[] {op}(a, b)
}}
ENTRY e {{
  x = {ty}[{shape}]{{{layout}}} parameter(0)
  i = {ty}[] constant({init})
  ROOT w = {ty}[{shape}]{{{layout}}} reduce-window(x, i), window={{size={size} pad={pad}}}, to_apply=r
}}
"
    )
}

fn check(text: &str, x: Literal) {
    let m = parse_module(text, "scan").expect("parses");
    let want = evaluate(&m, std::slice::from_ref(&x), &RunOptions::default()).expect("evaluates");
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
        let got = exe.run(std::slice::from_ref(&x)).expect("runs");
        assert_eq!(bits(&got), bits(&want), "threads={threads}\n{text}");
    }
}

/// Deterministic values with cancellation, tiny and huge magnitudes, a NaN.
fn floats(n: usize) -> Vec<f32> {
    let mut s = 0x2545_f491u32;
    (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            let v = (s as f32 / u32::MAX as f32 - 0.5) * 10f32.powi((i % 7) as i32 - 3);
            if i == n / 3 { f32::NAN } else { v }
        })
        .collect()
}

#[test]
fn cumsum_of_floats_is_bitwise_the_evaluators() {
    let n = 1000;
    check(
        &cumulative("f32", &[n], 0, "add", "0", "0"),
        Literal::from_vec(&[n], floats(n as usize)).unwrap(),
    );
    // Along rows and along columns (the scanned dim major), row- and column-major.
    for (axis, layout) in [(1, "1,0"), (0, "1,0"), (1, "0,1")] {
        let text = cumulative("f32", &[13, 40], axis, "add", "0", layout);
        check(
            &text,
            Literal::from_vec(&[13, 40], floats(13 * 40)).unwrap(),
        );
    }
}

#[test]
fn cumprod_and_cummax_of_integers() {
    let data: Vec<i32> = (0..9 * 12).map(|i| (i * 7919 % 23) - 11).collect();
    check(
        &cumulative("s32", &[9, 12], 1, "multiply", "1", "1,0"),
        Literal::from_vec(&[9, 12], data.clone()).unwrap(),
    );
    check(
        &cumulative("s32", &[9, 12], 0, "maximum", "-2147483648", "1,0"),
        Literal::from_vec(&[9, 12], data).unwrap(),
    );
}

#[test]
fn strided_prefix_windows() {
    // Windows of 16 with stride 3 and low padding 15: outputs i = 0..5 end at 3i+1.
    let text = "HloModule s
r { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] subtract(a, b) }
ENTRY e {
  x = f32[16] parameter(0)
  i = f32[] constant(0.5)
  ROOT w = f32[6] reduce-window(x, i), window={size=16 stride=3 pad=15_0}, to_apply=r
}
";
    // A non-associative reducer still matches: the scan folds in the evaluator's order.
    check(text, Literal::from_vec(&[16], floats(16)).unwrap());
}

/// A scan along a dimension that is not the contiguous one runs 64 lines
/// side by side (`codegen/scan.rs` `tile`): the same fold order per line,
/// so still bit for bit the evaluator's, with partial tiles at the edge,
/// column-major layouts and a middle dimension.
#[test]
fn scans_across_contiguous_lines_are_tiled_and_bitwise() {
    for (dims, axis, layout, op, init) in [
        (vec![37i64, 150i64], 0usize, "1,0", "add", "0"),
        (vec![150, 37], 1, "0,1", "add", "0"),
        (vec![37, 150], 0, "1,0", "maximum", "-inf"),
        (vec![5, 20, 70], 1, "2,1,0", "add", "0"),
        (vec![5, 20, 64], 0, "2,1,0", "minimum", "inf"),
    ] {
        let n: i64 = dims.iter().product();
        let text = cumulative("f32", &dims, axis, op, init, layout);
        check(&text, Literal::from_vec(&dims, floats(n as usize)).unwrap());
    }
}
