//! Data-movement roots cut into regions (`codegen/regions.rs`,
//! `codegen/assemble.rs`): reflect/edge/circular pads, rolls, concatenates
//! of slices, reverses, broadcasts and elementwise pieces, interior and
//! negative padding, tiles (merging reshapes), reversed rows of every
//! element size, other output layouts. Each module runs with the region
//! kernels on (one and two threads) and off, and must give the
//! evaluator's bytes exactly; the region kernel must actually be used.

use rxla_eval::{RunOptions, evaluate};
use rxla_ir::{Literal, Module, parse_module};
use rxla_jit::{CompileOptions, compile};

fn bytes(l: &Literal) -> Vec<Vec<u8>> {
    match l {
        Literal::Array(a) => vec![a.to_physical_bytes().expect("bytes")],
        Literal::Tuple(t) => t.iter().flat_map(bytes).collect(),
    }
}

/// Runs `text` every way; returns the region kernels compiled.
fn check(name: &str, text: &str) -> usize {
    check_with(name, text, true)
}

/// [`check`], with the interpreter fallback allowed unless `strict`.
fn check_with(name: &str, text: &str, strict: bool) -> usize {
    let m: Module = parse_module(text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut regions = 0;
    for seed in [1u64, 2] {
        let args = rxla_fuzzgen::values::random_args(&m, seed);
        let want = evaluate(&m, &args, &RunOptions::default()).expect("evaluates");
        for (threads, on) in [(1, true), (2, true), (1, false)] {
            let opts = CompileOptions {
                threads: Some(threads),
                allow_interpreter_fallback: !strict,
                region_copies: on,
                verify_clif: true,
                ..CompileOptions::default()
            };
            let exe = compile(&m, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
            if on {
                regions = exe.stats().region_kernels;
            } else {
                assert_eq!(exe.stats().region_kernels, 0, "{name}");
            }
            let got = exe.run(&args).expect("runs");
            assert!(
                bytes(&got) == bytes(&want),
                "{name}: {threads} threads, regions {on}, seed {seed}"
            );
        }
    }
    regions
}

#[test]
fn reflect_pad_nhwc_with_odd_sizes() {
    // jnp.pad(x, ((0,0),(3,3),(3,3),(0,0)), mode="reflect") as JAX lowers it.
    for (n, h, w, c) in [(8, 61, 67, 3), (1, 5, 4, 1), (2, 9, 7, 5)] {
        let (h2, w2) = (h + 6, w + 6);
        let text = format!(
            "HloModule reflect
ENTRY e {{
  x = f32[{n},{h},{w},{c}] parameter(0)
  s0 = f32[{n},3,{w},{c}] slice(x), slice={{[0:{n}], [1:4], [0:{w}], [0:{c}]}}
  r0 = f32[{n},3,{w},{c}] reverse(s0), dimensions={{1}}
  s1 = f32[{n},3,{w},{c}] slice(x), slice={{[0:{n}], [{a}:{b}], [0:{w}], [0:{c}]}}
  r1 = f32[{n},3,{w},{c}] reverse(s1), dimensions={{1}}
  cat = f32[{n},{h2},{w},{c}] concatenate(r0, x, r1), dimensions={{1}}
  s2 = f32[{n},{h2},3,{c}] slice(cat), slice={{[0:{n}], [0:{h2}], [1:4], [0:{c}]}}
  r2 = f32[{n},{h2},3,{c}] reverse(s2), dimensions={{2}}
  s3 = f32[{n},{h2},3,{c}] slice(cat), slice={{[0:{n}], [0:{h2}], [{p}:{q}], [0:{c}]}}
  r3 = f32[{n},{h2},3,{c}] reverse(s3), dimensions={{2}}
  ROOT out = f32[{n},{h2},{w2},{c}] concatenate(r2, cat, r3), dimensions={{2}}
}}
",
            a = h - 4,
            b = h - 1,
            p = w - 4,
            q = w - 1,
        );
        assert!(check("reflect", &text) >= 1);
    }
}

#[test]
fn rolls_and_concatenates_along_every_axis() {
    for (r, c, k) in [(300, 257, 17), (3, 13, 5), (2, 70, 69)] {
        let text = format!(
            "HloModule roll
ENTRY e {{
  x = s32[{r},{c}] parameter(0)
  a = s32[{r},{k}] slice(x), slice={{[0:{r}], [{s}:{c}]}}
  b = s32[{r},{s}] slice(x), slice={{[0:{r}], [0:{s}]}}
  ROOT out = s32[{r},{c}] concatenate(a, b), dimensions={{1}}
}}
",
            s = c - k
        );
        assert_eq!(check("roll", &text), 1);
    }
    // Along the major axis, with a column-major operand and result.
    let text = "HloModule cat0
ENTRY e {
  x = f32[37,19]{0,1} parameter(0)
  y = f32[5,19] parameter(1)
  ROOT out = f32[42,19]{0,1} concatenate(x, y), dimensions={0}
}
";
    assert_eq!(check("cat0", text), 1);
}

#[test]
fn minor_concatenate_of_mixed_pieces() {
    // A reversed slice, a broadcast scalar, an elementwise piece, a strided
    // slice and a transposed operand side by side along the minor axis.
    let text = "HloModule mixed
ENTRY e {
  x = f32[97,40] parameter(0)
  y = f32[97,5] parameter(1)
  p = f32[] parameter(2)
  t = f32[3,97] parameter(3)
  s = f32[97,13] slice(x), slice={[0:97], [2:15]}
  r = f32[97,13] reverse(s), dimensions={1}
  b = f32[97,2] broadcast(p), dimensions={}
  m = f32[97,5] multiply(y, y)
  st = f32[97,7] slice(x), slice={[0:97], [1:40:6]}
  tt = f32[97,3] transpose(t), dimensions={1,0}
  ROOT out = f32[97,30] concatenate(r, b, m, st, tt), dimensions={1}
}
";
    assert_eq!(check("mixed", text), 1);
}

#[test]
fn pads_with_interior_and_negative_edges() {
    for layout in ["1,0", "0,1"] {
        let text = format!(
            "HloModule pads
ENTRY e {{
  x = f32[33,21] parameter(0)
  v = f32[] parameter(1)
  r = f32[33,21] reverse(x), dimensions={{0,1}}
  ROOT out = f32[99,42]{{{layout}}} pad(r, v), padding=2_0_2x-1_2_1
}}
"
        );
        assert_eq!(check("pads", &text), 1);
    }
    // Plain edges, a long pad value run and a constant pad value.
    let text = "HloModule fill
ENTRY e {
  x = u8[6,3] parameter(0)
  z = u8[] constant(7)
  ROOT out = u8[9,170] pad(x, z), padding=1_2x17_150
}
";
    assert_eq!(check("fill", text), 1);
}

#[test]
fn edge_pad_and_tile_through_reshapes() {
    let text = "HloModule edge
ENTRY e {
  x = f32[2,11,9,3] parameter(0)
  s = f32[2,1,9,3] slice(x), slice={[0:2], [0:1], [0:9], [0:3]}
  b = f32[2,1,3,9,3] broadcast(s), dimensions={0,1,3,4}
  r = f32[2,3,9,3] reshape(b)
  ROOT out = f32[2,14,9,3] concatenate(r, x), dimensions={1}
}
";
    assert_eq!(check("edge", text), 1);
    let text = "HloModule tile
ENTRY e {
  x = s16[51,26] parameter(0)
  b = s16[2,51,3,26] broadcast(x), dimensions={1,3}
  ROOT out = s16[102,78] reshape(b)
}
";
    assert_eq!(check("tile", text), 1);
}

#[test]
fn reversed_rows_of_every_element_size() {
    for (ty, n) in [
        ("u8", 37),
        ("f16", 19),
        ("s64", 5),
        ("f32", 11),
        ("f32", 1024),
        ("pred", 40),
    ] {
        let text = format!(
            "HloModule rev
ENTRY e {{
  x = {ty}[3,{n}] parameter(0)
  ROOT out = {ty}[3,{n}] reverse(x), dimensions={{1}}
}}
"
        );
        let regions = check("rev", &text);
        assert!(regions <= 1, "{ty}");
    }
    // Reversed pieces inside a concatenate, runs under and over 16 bytes.
    for ty in ["u8", "f16", "s64", "pred"] {
        let text = format!(
            "HloModule revcat
ENTRY e {{
  x = {ty}[4,37] parameter(0)
  y = {ty}[4,3] parameter(1)
  a = {ty}[4,21] slice(x), slice={{[0:4], [3:24]}}
  r = {ty}[4,21] reverse(a), dimensions={{1}}
  ry = {ty}[4,3] reverse(y), dimensions={{0,1}}
  ROOT out = {ty}[4,61] concatenate(r, x, ry), dimensions={{1}}
}}
"
        );
        assert_eq!(check("revcat", &text), 1, "{ty}");
    }
}

#[test]
fn complex_and_narrow_elements_are_copied_bytewise() {
    for ty in ["c64", "c128", "s4", "u2", "f8e4m3fn", "bf16"] {
        let text = format!(
            "HloModule narrow
ENTRY e {{
  x = {ty}[3,21] parameter(0)
  y = {ty}[3,4] parameter(1)
  r = {ty}[3,21] reverse(x), dimensions={{1}}
  s = {ty}[3,2] slice(y), slice={{[0:3], [1:3]}}
  ROOT out = {ty}[3,27] concatenate(s, r, y), dimensions={{1}}
}}
"
        );
        // Complex slices run on the evaluator (no native complex code):
        // the region kernels copy their bytes.
        assert!(check_with("narrow", &text, false) >= 1, "{ty}");
    }
}
