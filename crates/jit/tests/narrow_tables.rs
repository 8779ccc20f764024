//! The f8 conversion tables of `tests/data/f8_tables.txt` (written from
//! `ml_dtypes` by `tests/data/gen_f8_tables.py`), checked bit for bit in
//! the evaluator and the JIT: all 256 patterns of each f8 type → f32, and
//! f32 → f8 on a sweep (every f8 value, midpoints and their f32
//! neighbours, overflow, ±inf, NaNs, ±0, subnormals, random bits).

use rxla_eval::{RunOptions, evaluate};
use rxla_ir::{ArrayData, Literal, parse_module};
use rxla_jit::{CompileOptions, compile};

struct Table {
    ty: String,
    decode: Vec<(u8, u32)>,
    encode: Vec<(u32, u8)>,
}

fn tables() -> Vec<Table> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/f8_tables.txt"
    );
    let text = std::fs::read_to_string(path).expect("tests/data/f8_tables.txt");
    let mut out: Vec<Table> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f.as_slice() {
            ["type", t] => out.push(Table {
                ty: t.to_string(),
                decode: Vec::new(),
                encode: Vec::new(),
            }),
            ["d", b, x] => out.last_mut().unwrap().decode.push((
                u8::from_str_radix(b, 16).unwrap(),
                u32::from_str_radix(x, 16).unwrap(),
            )),
            ["e", x, b] => out.last_mut().unwrap().encode.push((
                u32::from_str_radix(x, 16).unwrap(),
                u8::from_str_radix(b, 16).unwrap(),
            )),
            _ => panic!("bad line {line}"),
        }
    }
    assert_eq!(out.len(), 5);
    out
}

/// Runs `text` on one argument in the evaluator and the JIT (native code
/// only when `native`), returning both results.
fn run_both(text: &str, arg: Literal, native: bool) -> (Literal, Literal) {
    let m = parse_module(text, "t").expect("parses");
    let e = evaluate(&m, std::slice::from_ref(&arg), &RunOptions::default()).expect("evaluates");
    let opts = CompileOptions {
        allow_interpreter_fallback: !native,
        ..CompileOptions::default()
    };
    let exe = compile(&m, &opts).expect("compiles");
    let j = exe.run(&[arg]).expect("runs");
    (e, j)
}

fn u32s(l: &Literal) -> Vec<u32> {
    match &l.as_array().unwrap().data {
        ArrayData::F32(v) => v.iter().map(|x| x.to_bits()).collect(),
        other => panic!("unexpected {other:?}"),
    }
}

fn u8s(l: &Literal) -> Vec<u8> {
    l.as_slice::<u8>().expect("u8 data").to_vec()
}

#[test]
fn f8_to_f32_matches_ml_dtypes_for_all_256_patterns() {
    for t in tables() {
        let n = t.decode.len();
        assert_eq!(n, 256);
        let text = format!(
            "HloModule d\nENTRY e {{\n  p = u8[{n}] parameter(0)\n  b = {ty}[{n}] bitcast-convert(p)\n  ROOT c = f32[{n}] convert(b)\n}}\n",
            ty = t.ty
        );
        let arg = Literal::vec1(t.decode.iter().map(|d| d.0).collect::<Vec<u8>>());
        let (e, j) = run_both(&text, arg, true);
        let want: Vec<u32> = t.decode.iter().map(|d| d.1).collect();
        for (name, got) in [("evaluator", u32s(&e)), ("jit", u32s(&j))] {
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(
                    g, w,
                    "{name} {} pattern {k:#04x}: {g:#010x} != {w:#010x}",
                    t.ty
                );
            }
        }
    }
}

#[test]
fn f32_to_f8_matches_ml_dtypes_on_the_sweep() {
    for t in tables() {
        let n = t.encode.len();
        let text = format!(
            "HloModule d\nENTRY e {{\n  p = f32[{n}] parameter(0)\n  c = {ty}[{n}] convert(p)\n  ROOT b = u8[{n}] bitcast-convert(c)\n}}\n",
            ty = t.ty
        );
        let arg = Literal::vec1(
            t.encode
                .iter()
                .map(|d| f32::from_bits(d.0))
                .collect::<Vec<f32>>(),
        );
        let (e, j) = run_both(&text, arg, true);
        for (name, got) in [("evaluator", u8s(&e)), ("jit", u8s(&j))] {
            let mut bad = 0;
            for (g, (x, w)) in got.iter().zip(&t.encode) {
                if g != w {
                    if bad < 10 {
                        eprintln!(
                            "{name} {}: {:e} ({x:#010x}) -> {g:#04x}, ml_dtypes {w:#04x}",
                            t.ty,
                            f32::from_bits(*x)
                        );
                    }
                    bad += 1;
                }
            }
            assert_eq!(bad, 0, "{name} {}: {bad} of {n} differ", t.ty);
        }
    }
}

/// Every JAX corpus module with a narrow type (`corpus_jax/gen3.py`:
/// converts, arithmetic, transcendentals, dots, reduce, select, concat,
/// reverse, shifts, bitcast-convert) compiles to native code: no
/// interpreter fallback.
#[test]
fn narrow_corpus_modules_compile_without_fallback() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/corpus_jax");
    let mut n = 0;
    for e in std::fs::read_dir(dir).expect("corpus_jax").flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "hlo") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let narrow = ["s2[", "s4[", "u2[", "u4[", "f8e"]
            .iter()
            .any(|t| text.contains(t));
        if !narrow {
            continue;
        }
        let m = parse_module(&text, &p.display().to_string()).expect("parses");
        let opts = CompileOptions {
            allow_interpreter_fallback: false,
            ..CompileOptions::default()
        };
        compile(&m, &opts).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        n += 1;
    }
    assert!(n >= 64, "only {n} narrow corpus modules");
}
