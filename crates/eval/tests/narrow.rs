//! Narrow types end to end in the evaluator: modules built with the
//! builder and read from text, literals in and out, and bad input (out of
//! range, wrong type) as errors. Expected values are hand-computed.

use rxla_eval::{RunOptions, evaluate};
use rxla_ir::builder::ModuleBuilder;
use rxla_ir::{ArrayData, BinaryOp, ElementType, Literal, Shape, parse_module};

fn bits(l: &Literal) -> Vec<u8> {
    match &l.as_array().unwrap().data {
        ArrayData::Narrow(_, v) => v.clone(),
        other => panic!("not narrow: {other:?}"),
    }
}

#[test]
fn builder_s4_multiply_wraps_and_f8_convert_rounds() {
    let mut mb = ModuleBuilder::new("narrow");
    let mut b = mb.computation("main");
    let s4 = Shape::array(ElementType::S4, vec![4]).unwrap();
    let x = b.parameter(0, s4, "x").unwrap();
    let c = b
        .constant_literal(Literal::narrow(ElementType::S4, &[4], &[3.0, -8.0, 7.0, -1.0]).unwrap())
        .unwrap();
    let m = b.binary(BinaryOp::Multiply, x, c, &[]).unwrap();
    let f = b.convert_element_type(m, ElementType::F8E4M3FN).unwrap();
    let root = b.tuple(&[m, f]).unwrap();
    let comp = b.build(root).unwrap();
    let module = mb.build_entry(comp).unwrap();
    let arg = Literal::narrow(ElementType::S4, &[4], &[7.0, -1.0, -8.0, 5.0]).unwrap();
    let out = evaluate(&module, &[arg], &RunOptions::default()).unwrap();
    let Literal::Tuple(t) = out else { panic!() };
    // 21 → 5, 8 → -8, -56 → 8 → -8, -5.
    assert_eq!(t[0].to_text(), "{5, -8, -8, -5}");
    assert_eq!(bits(&t[0]), vec![5, 8, 8, 11]);
    assert_eq!(t[1].to_text(), "{5, -8, -8, -5}");
}

#[test]
fn text_literals_print_and_parse_back() {
    let text = "HloModule t\nENTRY e {\n  a = s4[3] constant({-8, 0, 7})\n  b = f8e5m2[2] constant({1.5, -inf})\n  c = u2[2] constant({0, 3})\n  d = f8e4m3fnuz[2] constant({-nan, 240})\n  ROOT t = (s4[3], f8e5m2[2], u2[2], f8e4m3fnuz[2]) tuple(a, b, c, d)\n}\n";
    let m = parse_module(text, "t").unwrap();
    let printed = rxla_ir::print_module(&m);
    assert!(
        printed.contains("s4[3]{0} constant({-8, 0, 7})"),
        "{printed}"
    );
    assert!(
        printed.contains("f8e5m2[2]{0} constant({1.5, -inf})"),
        "{printed}"
    );
    assert!(
        printed.contains("f8e4m3fnuz[2]{0} constant({-nan, 240})"),
        "{printed}"
    );
    let out = evaluate(&m, &[], &RunOptions::default()).unwrap();
    let Literal::Tuple(t) = out else { panic!() };
    assert_eq!(bits(&t[0]), vec![8, 0, 7]);
    assert_eq!(bits(&t[1]), vec![0x3e, 0xfc]);
    assert_eq!(bits(&t[2]), vec![0, 3]);
    assert_eq!(bits(&t[3]), vec![0x80, 0x7f]);
}

#[test]
fn bad_narrow_input_is_an_error() {
    for (text, want) in [
        ("ROOT c = s4[1] constant({9})", "out of range"),
        ("ROOT c = u2[1] constant({-1})", "out of range"),
        ("ROOT c = s2[1] constant({1.5})", "expected an integer"),
        ("ROOT c = f8e4m3fn[1] constant({x})", "expected a number"),
    ] {
        let src = format!("HloModule t\nENTRY e {{\n  {text}\n}}\n");
        let e = parse_module(&src, "t").unwrap_err().to_string();
        assert!(e.contains(want) && e.contains("t:3:"), "{text}: {e}");
    }
    assert!(Literal::narrow(ElementType::S4, &[1], &[8.0]).is_err());
    assert!(Literal::narrow(ElementType::F32, &[1], &[8.0]).is_err());
    // A narrow parameter given data of another type is an error, not a panic.
    let m = parse_module(
        "HloModule t\nENTRY e {\n  ROOT p = s4[2] parameter(0)\n}\n",
        "t",
    )
    .unwrap();
    let wrong = Literal::vec1(vec![1i8, 2]);
    assert!(evaluate(&m, &[wrong], &RunOptions::default()).is_err());
}

#[test]
fn bitcast_convert_splits_bytes_lowest_bits_first() {
    // s8 4 = 0b0000_0100 → s2 {0, 1, 0, 0}; -29 = 0b1110_0011 → {-1, 0, -2, -1}
    // (XLA CPU, corpus_jax/int8_bitcast_int4); and back.
    let m = parse_module(
        "HloModule t\nENTRY e {\n  p = s8[2] parameter(0)\n  b = s2[2,4] bitcast-convert(p)\n  c = s8[2] bitcast-convert(b)\n  ROOT t = (s2[2,4], s8[2]) tuple(b, c)\n}\n",
        "t",
    )
    .unwrap();
    let out = evaluate(&m, &[Literal::vec1(vec![4i8, -29])], &RunOptions::default()).unwrap();
    let Literal::Tuple(t) = out else { panic!() };
    assert_eq!(t[0].to_text(), "{ {0, 1, 0, 0}, {-1, 0, -2, -1} }");
    assert_eq!(t[1].as_slice::<i8>().unwrap(), &[4, -29]);
}
