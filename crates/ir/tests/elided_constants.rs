//! Elided constants (`constant({...})`, XLA's dump of a large constant):
//! refused by default with a message naming the option, filled with
//! seeded values under `ParseOptions::fill_elided_constants`.

use rxla_ir::{ArrayData, Literal, Op, ParseOptions, parse_module, parse_module_with};

const ELIDED: &str = r#"HloModule elided

ENTRY main {
  p = f32[4] parameter(0)
  w = f32[4] constant({...})
  i = s32[3] constant({...})
  u = u8[2,2] constant({...})
  b = pred[5] constant({...})
  k = f32[2] constant({1, 2})
  s = f32[] constant(3)
  ROOT a = f32[4] add(p, w)
}
"#;

fn constants(m: &rxla_ir::Module) -> Vec<Literal> {
    m.entry_computation()
        .instructions
        .iter()
        .filter_map(|i| match &i.op {
            Op::Constant { literal } => Some(literal.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn refused_without_the_option() {
    let e = parse_module(ELIDED, "elided.hlo").unwrap_err().to_string();
    assert!(e.starts_with("elided.hlo:5:"), "{e}");
    assert!(e.contains("elided constant"), "{e}");
    assert!(e.contains("--fill-elided-constants"), "{e}");
    assert!(e.contains("ParseOptions::fill_elided_constants"), "{e}");
}

#[test]
fn filled_with_seeded_values() {
    let opts = ParseOptions {
        fill_elided_constants: Some(7),
    };
    let a = parse_module_with(ELIDED, "elided.hlo", &opts).unwrap();
    assert_eq!(a.elided_constants, 4);
    rxla_ir::verify_module(&a.module).unwrap();
    let c = constants(&a.module);
    assert_eq!(c.len(), 6);
    // Written constants are read as written.
    assert_eq!(c[4], Literal::vec1(vec![1.0f32, 2.0]));
    assert_eq!(c[5], Literal::scalar(3.0f32));
    // Filled values lie in the documented ranges.
    let w = c[0].as_slice::<f32>().unwrap();
    assert_eq!(w.len(), 4);
    assert!(
        w.iter()
            .all(|&x| (-1.0..1.0).contains(&x) && (x * 128.0).fract() == 0.0)
    );
    let i = c[1].as_slice::<i32>().unwrap();
    assert!(i.iter().all(|&x| (-8..8).contains(&x)), "{i:?}");
    let u = c[2].as_slice::<u8>().unwrap();
    assert_eq!(u.len(), 4);
    assert!(u.iter().all(|&x| x < 8), "{u:?}");
    assert!(matches!(&c[3].as_array().unwrap().data, ArrayData::Pred(v) if v.len() == 5));
    // Same seed, same values; another seed, other values.
    let again = parse_module_with(ELIDED, "elided.hlo", &opts).unwrap();
    assert_eq!(constants(&again.module), c);
    let other = parse_module_with(
        ELIDED,
        "elided.hlo",
        &ParseOptions {
            fill_elided_constants: Some(8),
        },
    )
    .unwrap();
    assert_ne!(constants(&other.module)[0], c[0]);
    // Two constants of one module get different values.
    let two = "HloModule t\nENTRY e {\n  a = f32[16] constant({...})\n  b = f32[16] constant({...})\n  ROOT t = (f32[16], f32[16]) tuple(a, b)\n}\n";
    let m = parse_module_with(two, "t", &opts).unwrap().module;
    let c = constants(&m);
    assert_ne!(c[0], c[1]);
}

#[test]
fn huge_elided_constant_is_an_error() {
    let text = "HloModule h\nENTRY e {\n  ROOT a = f32[1000000,1000000] constant({...})\n}\n";
    let e = parse_module_with(
        text,
        "h.hlo",
        &ParseOptions {
            fill_elided_constants: Some(0),
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("h.hlo:3:"), "{e}");
    assert!(e.contains("at most"), "{e}");
}
