//! Bad StableHLO is an error naming `FILE:LINE:COL` and what was expected,
//! never a panic: unknown ops, unsupported types, truncated and mutated
//! text, undefined values, wrong declared types, recursion, deep nesting.

use rxla_stablehlo::{looks_like_stablehlo, parse_stablehlo};

const GOOD: &str = "module @m {
  func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32> {jax.result_info = \"result\"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<2xf32>
    %1 = \"stablehlo.multiply\"(%0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    return %1 : tensor<2xf32>
  }
}
";

fn err(text: &str) -> String {
    match parse_stablehlo(text, "f.mlir") {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_good_module_converts() {
    let m = parse_stablehlo(GOOD, "f.mlir").unwrap();
    assert_eq!(m.name, "m");
    let text = rxla_ir::print_module(&m);
    assert!(
        text.contains("add(") && text.contains("multiply("),
        "{text}"
    );
}

#[test]
fn unknown_op_is_located() {
    let e = err(&GOOD.replace("stablehlo.add", "stablehlo.frobnicate"));
    assert!(
        e.starts_with("f.mlir:3:10: error: unsupported operation 'stablehlo.frobnicate'"),
        "{e}"
    );
    let e = err(&GOOD.replace("stablehlo.add", "mydialect.add"));
    assert!(
        e.contains("expected a stablehlo.*, chlo.* or func.* operation"),
        "{e}"
    );
    let e = err(&GOOD.replace("\"stablehlo.multiply\"", "\"stablehlo.all_to_all\""));
    assert!(
        e.starts_with("f.mlir:4:10: error: unsupported operation 'stablehlo.all_to_all'"),
        "{e}"
    );
}

#[test]
fn bad_types_are_located() {
    let e = err(&GOOD.replace("%arg1: tensor<2xf32>", "%arg1: tensor<2xf6E3M2FN>"));
    assert!(
        e.starts_with("f.mlir:2:64: error: unsupported element type 'f6E3M2FN'"),
        "{e}"
    );
    let e = err(&GOOD.replace("%arg0: tensor<2xf32>", "%arg0: tensor<?xf32>"));
    assert!(
        e.starts_with("f.mlir:2:40: error: dynamic dimension '?'"),
        "{e}"
    );
    let e = err(&GOOD.replace("%arg0: tensor<2xf32>", "%arg0: memref<2xf32>"));
    assert!(e.starts_with("f.mlir:2:33: error: expected a type (tensor<...>, tuple<...>, !stablehlo.token or an element type), found 'memref'"), "{e}");
    // A declared type that contradicts shape inference.
    let e = err(&GOOD.replace(
        "%0 = stablehlo.add %arg0, %arg1 : tensor<2xf32>",
        "%0 = stablehlo.add %arg0, %arg1 : tensor<3xf32>",
    ));
    assert!(e.starts_with("f.mlir:3:10: error: stablehlo.add:"), "{e}");
}

#[test]
fn semantic_errors_are_located() {
    let e = err(&GOOD.replace(
        "%arg0, %arg1 : tensor<2xf32>",
        "%arg0, %nope : tensor<2xf32>",
    ));
    assert!(
        e.starts_with("f.mlir:3:31: error: use of undefined value '%nope'"),
        "{e}"
    );
    let e = err(&GOOD.replace("@main", "@other").replace("public", "private"));
    assert!(e.contains("no entry function"), "{e}");
    let rec = "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = call @main(%a) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}\n";
    let e = err(rec);
    assert!(
        e.starts_with("f.mlir:2:8: error: recursive call to '@main'"),
        "{e}"
    );
    let e = err(
        "func.func @main() -> tensor<f32> {\n  %0 = call @gone() : () -> tensor<f32>\n  return %0 : tensor<f32>\n}\n",
    );
    assert!(e.contains("call to unknown function '@gone'"), "{e}");
    let e = err(
        "func.func @main() -> tensor<2xf32> {\n  %0 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n",
    );
    assert!(
        e.starts_with("f.mlir:2:8: error: stablehlo.constant: dense<...> has 3 elements"),
        "{e}"
    );
}

#[test]
fn huge_constants_are_refused() {
    let e = err(
        "func.func @main() -> tensor<1099511627776xf32> {\n  %0 = stablehlo.constant dense<1.0> : tensor<1099511627776xf32>\n  return %0 : tensor<1099511627776xf32>\n}\n",
    );
    assert!(
        e.starts_with(
            "f.mlir:2:8: error: stablehlo.constant: a tensor<1099511627776xf32> constant would take"
        ),
        "{e}"
    );
}

#[test]
fn nested_regions_convert_on_a_small_stack() {
    // 100 nested `case` ops (the limit is 128), on a 1 MiB stack.
    let mut body = String::from(
        "%r = stablehlo.add %x, %x : tensor<f32>\nstablehlo.return %r : tensor<f32>\n",
    );
    for _ in 0..100 {
        body = format!(
            "%r = \"stablehlo.case\"(%i) ({{\n{body}}}) : (tensor<i32>) -> tensor<f32>\nstablehlo.return %r : tensor<f32>\n"
        );
    }
    let text =
        format!("func.func @main(%i: tensor<i32>, %x: tensor<f32>) -> tensor<f32> {{\n{body}}}\n");
    let r = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            parse_stablehlo(&text, "f.mlir")
                .map(|m| m.computations.len())
                .map_err(|e| e.to_string())
        })
        .unwrap()
        .join()
        .expect("no stack overflow or panic");
    assert_eq!(r, Ok(101));
}

#[test]
fn truncated_input_is_an_error_at_every_cut() {
    for cut in 0..GOOD.len() {
        let text = &GOOD[..cut];
        match parse_stablehlo(text, "f.mlir") {
            Ok(_) => assert!(text.trim_end().ends_with('}'), "cut {cut} parsed: {text}"),
            Err(e) => {
                let e = e.to_string();
                assert!(e.starts_with("f.mlir:"), "cut {cut}: {e}");
                assert!(e.contains(": error: "), "cut {cut}: {e}");
            }
        }
    }
    let e = err(&GOOD[..GOOD.find("return").unwrap()]);
    assert!(
        e.contains("unexpected end of input: expected an operation or '}'"),
        "{e}"
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    for open in ["[", "(", "{", "tuple<", "dense<[", "#stablehlo.x<a = ["] {
        let text = format!(
            "func.func @main() -> tensor<f32> {{\n  %0 = stablehlo.constant {{a = {}}} dense<1.0> : tensor<f32>\n  return %0 : tensor<f32>\n}}\n",
            open.repeat(100_000)
        );
        let r = std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || {
                parse_stablehlo(&text, "f.mlir")
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            })
            .unwrap()
            .join()
            .expect("no stack overflow or panic");
        assert!(r.is_err(), "{open}");
    }
    let regions = format!(
        "func.func @main(%p: tensor<i32>) -> tensor<f32> {{\n{}",
        "%0 = \"stablehlo.case\"(%p) ({\n".repeat(50_000)
    );
    let r = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            parse_stablehlo(&regions, "f.mlir")
                .map(|_| ())
                .map_err(|e| e.to_string())
        })
        .unwrap()
        .join()
        .expect("no stack overflow or panic");
    assert!(r.unwrap_err().contains("nested deeper"));
}

#[test]
fn mutated_corpus_text_never_panics() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus_jax");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "mlir"))
        .collect();
    files.sort();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let alphabet = b"%#@^!(){}[]<>,:=x0123456789-. \n\"abcdefghijklmnopqrstuvwxyz_";
    for path in files.iter().step_by(7) {
        let text = std::fs::read(path).unwrap();
        for _ in 0..60 {
            let mut t = text.clone();
            for _ in 0..1 + next() % 4 {
                let i = (next() as usize) % t.len().max(1);
                match next() % 3 {
                    0 => t[i] = alphabet[(next() as usize) % alphabet.len()],
                    1 => {
                        t.remove(i);
                    }
                    _ => t.insert(i, alphabet[(next() as usize) % alphabet.len()]),
                }
            }
            if let Err(e) = rxla_stablehlo::parse_stablehlo_bytes(&t, "m.mlir") {
                assert!(e.to_string().starts_with("m.mlir:"), "{e}");
            }
        }
    }
}

#[test]
fn detector_tells_stablehlo_from_hlo() {
    assert!(looks_like_stablehlo(GOOD));
    assert!(looks_like_stablehlo("#loc = loc(unknown)\nmodule {}"));
    assert!(looks_like_stablehlo("// c\nfunc.func @main() {}"));
    assert!(!looks_like_stablehlo("HloModule m\n\nENTRY main {\n}"));
    assert!(!looks_like_stablehlo(""));
}
