//! The generator's contract: every module it produces verifies, and across
//! 10,000 seeds every opcode of the IR appears.

use rxla_fuzzgen::{GenConfig, generate_from_seed, opcodes_used};
use rxla_ir::{Op, print_module, verify_module};
use std::collections::BTreeSet;

fn check_seeds(cfg: &GenConfig, seeds: std::ops::Range<u64>) -> BTreeSet<&'static str> {
    let mut seen = BTreeSet::new();
    let mut failures = Vec::new();
    for seed in seeds {
        let m = generate_from_seed(seed, cfg);
        if let Err(e) = verify_module(&m) {
            if failures.len() < 5 {
                failures.push(format!("seed {seed}: {e}\n{}", print_module(&m)));
            } else {
                failures.push(format!("seed {seed}: {e}"));
            }
        }
        seen.extend(opcodes_used(&m));
    }
    assert!(
        failures.is_empty(),
        "{} modules do not verify:\n{}",
        failures.len(),
        failures.join("\n")
    );
    seen
}

#[test]
fn ten_thousand_seeds_verify_and_cover_every_opcode() {
    let seen = check_seeds(&GenConfig::all_ops(), 0..10_000);
    let missing: Vec<&str> = Op::all_opcode_names()
        .into_iter()
        .filter(|o| !seen.contains(o))
        .collect();
    assert!(missing.is_empty(), "opcodes never generated: {missing:?}");
}

#[test]
fn evaluable_config_has_no_unevaluable_ops() {
    let cfg = GenConfig::evaluable();
    let seen = check_seeds(&cfg, 0..1000);
    for o in rxla_fuzzgen::UNEVALUABLE {
        assert!(!seen.contains(o), "{o} generated with the evaluable config");
    }
}

#[test]
fn same_seed_same_module() {
    let cfg = GenConfig::all_ops();
    assert_eq!(generate_from_seed(9, &cfg), generate_from_seed(9, &cfg));
    assert_ne!(generate_from_seed(9, &cfg), generate_from_seed(10, &cfg));
}

#[test]
fn arbitrary_bytes_always_give_a_valid_module() {
    let cfg = GenConfig::all_ops();
    for n in [0usize, 1, 7, 64, 300] {
        for fill in [0u8, 0x55, 0xff] {
            let bytes = vec![fill; n];
            let mut u = arbitrary::Unstructured::new(&bytes);
            let m = rxla_fuzzgen::generate(&mut u, &cfg).unwrap();
            verify_module(&m).unwrap_or_else(|e| panic!("{n} bytes of {fill:#x}: {e}"));
        }
    }
}

/// Every narrow element type (s2, s4, u2, u4, the five f8 types) appears
/// across 2,000 seeds, as the operand or result of arithmetic and of
/// converts (not only as a parameter).
#[test]
fn narrow_types_are_generated() {
    use rxla_ir::ElementType;
    let cfg = GenConfig::evaluable();
    let mut in_arith = BTreeSet::new();
    let mut in_convert = BTreeSet::new();
    for seed in 0..2_000 {
        let m = generate_from_seed(seed, &cfg);
        for c in &m.computations {
            for i in &c.instructions {
                let Some(t) = i.shape.as_array().ok().map(|a| a.element_type) else {
                    continue;
                };
                match &i.op {
                    Op::Binary(_) | Op::Unary(_) if t.is_narrow() => {
                        in_arith.insert(t);
                    }
                    Op::Convert if t.is_narrow() => {
                        in_convert.insert(t);
                    }
                    _ => {}
                }
            }
        }
    }
    for t in ElementType::NARROW {
        assert!(in_arith.contains(&t), "{t} never in arithmetic");
        assert!(in_convert.contains(&t), "{t} never converted to");
    }
}

/// cholesky and triangular-solve appear on real and complex operands
/// across 2,000 seeds (that the modules verify is checked above).
#[test]
fn complex_linalg_is_generated() {
    let cfg = GenConfig::evaluable();
    let mut seen = BTreeSet::new();
    for seed in 0..2_000 {
        let m = generate_from_seed(seed, &cfg);
        for c in &m.computations {
            for i in &c.instructions {
                if let (Op::Cholesky { .. } | Op::TriangularSolve(_), Ok(a)) =
                    (&i.op, i.shape.as_array())
                {
                    seen.insert((i.opcode(), a.element_type.is_complex()));
                }
            }
        }
    }
    for want in [
        ("cholesky", false),
        ("cholesky", true),
        ("triangular-solve", false),
        ("triangular-solve", true),
    ] {
        assert!(seen.contains(&want), "{want:?} not generated: {seen:?}");
    }
}
