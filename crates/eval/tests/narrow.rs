//! Narrow types end to end in the evaluator: modules built with the
//! builder and read from text, literals in and out, and bad input (out of
//! range, wrong type) as errors. Expected values are hand-computed. Text
//! literals, bitcast-convert and bad narrow constants are filetests
//! (`tests/filetests/narrow/`, `tests/filetests/errors/narrow_*.hlo`).

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
fn bad_narrow_input_is_an_error() {
    // Bad narrow constants in the text: tests/filetests/errors/narrow_*.hlo.
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
