//! Hostile and malformed HLO text: every case must return a located
//! `IrError::Parse` with a useful message, never panic, hang, or allocate
//! in proportion to a size the text merely declares. The cases that are
//! one module and one message are filetests in `tests/filetests/errors/`
//! (and `tests/filetests/text/` for the accepted oddities); what stays here
//! edits one module many ways, checks the error type and `Display`, or
//! generates its input.

use rxla_ir::text::parse_module_bytes;
use rxla_ir::{IrError, ParseError, parse_module};

const MLP: &str = include_str!("../../../tests/corpus/mlp.hlo");
const MLP_OPT: &str = include_str!("../../../tests/corpus/mlp.opt.hlo");

fn perr(text: &str) -> ParseError {
    match parse_module(text, "bad.hlo") {
        Err(IrError::Parse(p)) => *p,
        Err(e) => panic!("not a parse error: {e}"),
        Ok(_) => panic!("parsed but should not:\n{text}"),
    }
}

fn msg(text: &str) -> String {
    perr(text).message
}

const SIMPLE: &str = "HloModule m\n\nENTRY main {\n  p = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(p)\n}\n";

#[test]
fn simple_module_parses() {
    let m = parse_module(SIMPLE, "ok.hlo").unwrap();
    assert_eq!(m.entry_computation().len(), 2);
    assert!(m.entry_layout.is_none());
}

#[test]
fn empty_input() {
    assert!(msg("").contains("empty input"));
    assert!(msg("   \n /* c */ \n").contains("empty input"));
}

#[test]
fn error_display_has_location_and_caret() {
    let text = SIMPLE.replace("negate(p)", "frobnicate(p)");
    let e = perr(&text);
    assert_eq!((e.line, e.col), (5, 22));
    assert_eq!(e.message, "unknown opcode 'frobnicate'");
    let shown = IrError::Parse(Box::new(e)).to_string();
    assert_eq!(
        shown,
        "bad.hlo:5:22: error: unknown opcode 'frobnicate'\n  ROOT n = f32[2]{0} frobnicate(p)\n                     ^"
    );
}

#[test]
fn unknown_attribute_is_rejected() {
    // XLA's parser rejects attribute names it does not know (issue 20):
    // tests/filetests/errors/unknown_attribute*.hlo.
    // Real XLA attributes rxla does not model stay accepted, verbatim.
    let text = SIMPLE.replace(
        "negate(p)",
        "negate(p), metadata={op_name=\"n\"}, sharding={replicated}, result_accuracy={tolerance={atol=0}}, statistics_viz={}, origin={{\"n\"}}",
    );
    let m = parse_module(&text, "ok.hlo").unwrap();
    assert_eq!(m.entry_computation().root_instruction().attrs.len(), 5);
    // A typo of a real one is reported too.
    let text = SIMPLE.replace("negate(p)", "negate(p), metdata={}");
    assert!(msg(&text).contains("unknown attribute 'metdata'"));
}

#[test]
fn parameter_numbering_is_located() {
    // A gap (issue 20) is located at the parameter, not a bare verifier
    // error: tests/filetests/errors/parameter_gap*.hlo.
    let text = SIMPLE.replace("parameter(0)", "parameter(0)\n  q = f32[2]{0} parameter(0)");
    let e = perr(&text);
    assert_eq!((e.line, e.col), (5, 17));
    assert!(
        e.message.contains("parameter number 0 is used twice"),
        "{}",
        e.message
    );
}

#[test]
fn unknown_element_type() {
    let text = SIMPLE.replace("ROOT n = f32[2]{0}", "ROOT n = f31[2]{0}");
    assert_eq!(msg(&text), "unknown element type 'f31'");
}

#[test]
fn duplicate_names() {
    let text = SIMPLE.replace("ROOT n = ", "ROOT p = ");
    let m = msg(&text);
    assert!(
        m.contains("duplicate instruction name 'p'") && m.contains("line 4"),
        "{m}"
    );
}

#[test]
fn undefined_and_later_operands() {
    let text = SIMPLE.replace("negate(p)", "negate(q)");
    assert!(msg(&text).contains("undefined operand 'q'"));
}

#[test]
fn root_rules() {
    // Missing ROOT: the last instruction is the root.
    let m = parse_module(&SIMPLE.replace("ROOT ", ""), "t").unwrap();
    assert_eq!(m.entry_computation().root_instruction().name, "n");
    // ROOT may be on any line: tests/filetests/text/root_on_first_line.hlo.
    let two = SIMPLE.replace("  p = ", "  ROOT p = ");
    assert!(msg(&two).contains("two ROOT"));
}

#[test]
fn entry_layout_must_match() {
    let text = SIMPLE.replace(
        "HloModule m",
        "HloModule m, entry_computation_layout={(f32[3]{0})->f32[2]{0}}",
    );
    let m = msg(&text);
    assert!(m.contains("does not match"), "{m}");
}

#[test]
fn bad_dimensions() {
    let with = |shape: &str| {
        SIMPLE.replace(
            "p = f32[2]{0} parameter(0)",
            &format!("p = {shape} parameter(0)"),
        )
    };
    assert!(msg(&with("f32[1e30]")).contains("'1e30'"));
    assert!(msg(&with("f32[-2]")).contains("negative dimension size -2"));
    assert!(msg(&with("f32[4294967296,4294967296,4]")).contains("overflows"));
    assert!(msg(&with("f32[99999999999999999999999]")).contains("64-bit"));
    assert!(msg(&with("f32[2]{1}")).contains("permutation"));
}

#[test]
fn crlf_line_endings() {
    let text = SIMPLE.replace('\n', "\r\n");
    let m = parse_module(&text, "crlf").unwrap();
    assert_eq!(m.entry_computation().len(), 2);
    let bad = text.replace("negate(p)", "negate(q)");
    let e = perr(&bad);
    assert_eq!(e.line, 5);
    assert!(!e.source_line.ends_with('\r'));
}

#[test]
fn huge_name_and_deep_nesting() {
    let name = "n".repeat(100_000);
    let text = SIMPLE.replace("negate(p)", &format!("negate({name})"));
    let m = msg(&text);
    assert!(m.len() < 300, "message too long: {} chars", m.len());
    assert!(m.contains("100000 characters"));
    // A long valid name works.
    let ok = SIMPLE
        .replace("p = ", &format!("{name} = "))
        .replace("negate(p)", &format!("negate({name})"));
    assert_eq!(
        parse_module(&ok, "t")
            .unwrap()
            .entry_computation()
            .get(rxla_ir::InstrId(0))
            .name
            .len(),
        100_000
    );
    let deep_shape = format!("{}f32[]{}", "(".repeat(10_000), ")".repeat(10_000));
    let text = SIMPLE.replace(
        "p = f32[2]{0} parameter(0)",
        &format!("p = {deep_shape} parameter(0)"),
    );
    assert!(msg(&text).contains("nested deeper than 256"));
    let deep_braces = format!("{}{}", "{".repeat(10_000), "}".repeat(10_000));
    let text = SIMPLE.replace(
        "negate(p)",
        &format!("negate(p), backend_config={deep_braces}"),
    );
    assert!(parse_module(&text, "t").is_ok());
    let text = SIMPLE.replace(
        "negate(p)",
        &format!("negate(p), backend_config={}", "{".repeat(10_000)),
    );
    assert!(msg(&text).contains("unterminated"));
    let text = SIMPLE.replace("negate(p)", "negate(p), dimensions=".to_string().as_str())
        + &"{".repeat(10_000);
    assert!(parse_module(&text, "t").is_err());
    let text = format!(
        "HloModule m\n\nENTRY main {{\n  ROOT c = f32[1]{{0}} constant({})\n}}\n",
        "{".repeat(10_000)
    );
    assert!(msg(&text).contains("nested deeper than its rank"));
}

#[test]
fn non_utf8_is_located() {
    let mut bytes = SIMPLE.as_bytes().to_vec();
    let at = SIMPLE.find("negate").unwrap();
    bytes[at + 1] = 0xff;
    let e = match parse_module_bytes(&bytes, "bin.hlo") {
        Err(IrError::Parse(p)) => p,
        other => panic!("{other:?}"),
    };
    assert_eq!((e.line, e.col), (5, 23));
    assert!(e.message.contains(&format!("byte offset {}", at + 1)));
    assert!(parse_module_bytes(SIMPLE.as_bytes(), "ok").is_ok());
}

#[test]
fn truncated_mlp_never_panics() {
    for text in [MLP, MLP_OPT] {
        let mut n = 0;
        for cut in 0..text.len() {
            if !text.is_char_boundary(cut) {
                continue;
            }
            let r = parse_module(&text[..cut], "cut.hlo");
            // Cutting inside the last `}` region may still be a valid
            // prefix only at the very end.
            if cut + 2 < text.trim_end().len() {
                assert!(r.is_err(), "prefix of {cut} bytes parsed");
            }
            n += 1;
        }
        assert!(n > 100);
    }
}

struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

#[test]
fn random_bytes_and_mutations_never_panic() {
    let mut rng = XorShift(0x9e3779b97f4a7c15);
    for _ in 0..1500 {
        let len = (rng.next() % 200) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let _ = parse_module_bytes(&bytes, "rand");
        let mut s = b"HloModule m\n\nENTRY main {\n".to_vec();
        s.extend(
            bytes
                .iter()
                .map(|b| b"{}()[],=%: abf0123456789-x_\"\n."[(*b as usize) % 30]),
        );
        let _ = parse_module_bytes(&s, "rand");
    }
    let alphabet = b"{}()[],=%: /*-_.0123456789xfsupredtokenROOTENTRY\"\n";
    for base in [MLP, MLP_OPT] {
        for _ in 0..700 {
            let mut b = base.as_bytes().to_vec();
            for _ in 0..(1 + rng.next() % 4) {
                let i = (rng.next() as usize) % b.len();
                match rng.next() % 3 {
                    0 => b[i] = alphabet[(rng.next() as usize) % alphabet.len()],
                    1 => {
                        b.remove(i);
                    }
                    _ => b.insert(i, alphabet[(rng.next() as usize) % alphabet.len()]),
                }
            }
            let _ = parse_module_bytes(&b, "mut");
        }
    }
}

#[test]
fn large_inputs_parse_in_linear_time() {
    // Many computations referencing each other and a long instruction chain.
    let mut t = String::from("HloModule big\n\n");
    t.push_str("c0 {\n  ROOT x = f32[] parameter(0)\n}\n\n");
    for i in 1..3000 {
        t.push_str(&format!(
            "c{i} {{\n  x = f32[] parameter(0)\n  ROOT y = f32[] call(x), to_apply=c{}\n}}\n\n",
            i - 1
        ));
    }
    t.push_str("ENTRY main {\n  v0 = f32[] parameter(0)\n");
    for i in 1..20000 {
        t.push_str(&format!("  v{i} = f32[] negate(v{})\n", i - 1));
    }
    t.push_str("  ROOT r = f32[] call(v19999), to_apply=c2999\n}\n");
    let start = std::time::Instant::now();
    let m = parse_module(&t, "big").unwrap();
    assert_eq!(m.computations.len(), 3001);
    assert_eq!(m.entry_computation().len(), 20001);
    // Generous bound: catches quadratic behaviour, not slow machines.
    eprintln!("took {:?}", start.elapsed()); // printed, not asserted: hosts vary
    // A layout with 50k empty-tuple parameters fails fast and cleanly.
    let params = vec!["()"; 50_000].join(", ");
    let text = SIMPLE.replace(
        "HloModule m",
        &format!("HloModule m, entry_computation_layout={{({params})->f32[2]{{0}}}}"),
    );
    let m = msg(&text);
    assert!(
        m.contains("does not match") && m.len() < 600,
        "{} chars",
        m.len()
    );
}

#[test]
fn byte_order_mark_and_printing_odd_modules() {
    let with_bom = format!("\u{feff}{SIMPLE}");
    assert!(parse_module(&with_bom, "bom").is_ok());
    // Printing never panics, even for modules no parser produced.
    let empty = rxla_ir::Module::new("e");
    assert_eq!(rxla_ir::print_module(&empty), "HloModule e\n\n");
    let m = parse_module(SIMPLE, "t").unwrap();
    let c = m.entry_computation();
    assert!(
        rxla_ir::text::print_instruction(&m, c, rxla_ir::InstrId(9)).contains("no instruction 9")
    );
    assert!(rxla_ir::text::print_computation(&m, rxla_ir::CompId(5)).contains("no computation 5"));
}

#[test]
fn error_messages_snapshot() {
    let cases = [
        SIMPLE.replace("negate(p)", "foo(p)"),
        SIMPLE.replace("ROOT n = f32[2]{0}", "ROOT n = f31[2]{0}"),
        SIMPLE.replace("negate(p)", "negate(q)"),
        SIMPLE.replace("ROOT n = ", "ROOT p = "),
        SIMPLE.replace("f32[2]{0} parameter", "f32[-1]{0} parameter"),
        SIMPLE.replace(
            "f32[2]{0} parameter",
            "f32[4294967296,4294967296,4] parameter",
        ),
        SIMPLE.replace("negate(p)", "broadcast(p)"),
        SIMPLE.replace(
            "  p = f32[2]{0} parameter(0)",
            "  p = f32[2]{0} constant({1, 2, 3})",
        ),
        SIMPLE.replace(
            "  p = f32[2]{0} parameter(0)",
            "  p = f32[2]{0} constant({...})",
        ),
        SIMPLE.replace(
            "ENTRY main {",
            "ENTRY main {\n  q = f32[2]{0} parameter(0)\n  q = f32[2]{0} parameter(1)",
        ),
        SIMPLE.replace(
            "HloModule m",
            "HloModule m, entry_computation_layout={(f32[3]{0})->f32[2]{0}}",
        ),
        SIMPLE.replace("{0} negate(p)", "{0} negate(p), metadata={op_name=\"x\""),
    ];
    let out: Vec<String> = cases
        .iter()
        .map(|t| match parse_module(t, "bad.hlo") {
            Err(e) => e.to_string(),
            Ok(_) => "(parsed)".to_string(),
        })
        .collect();
    insta::assert_snapshot!(out.join("\n\n"));
}
