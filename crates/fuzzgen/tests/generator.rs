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

/// Dynamic dimensions are generated (set-dimension-size, with elementwise,
/// reduce, reverse, pad, sort, reduce-window, dynamic-slice and
/// get-dimension-size
/// consumers) and the modules holding them
/// evaluate without error: the sizes stay within their bounds and no op
/// meets a dynamic operand it does not define.
#[test]
fn dynamic_dimensions_are_generated_and_evaluate() {
    let cfg = GenConfig::evaluable();
    let (mut modules, mut reduces, mut elementwise, mut sizes) = (0, 0, 0, 0);
    let mut boxed: std::collections::BTreeMap<&'static str, usize> = Default::default();
    for seed in 0..3_000 {
        let m = generate_from_seed(seed, &cfg);
        let dynamic = m
            .computations
            .iter()
            .flat_map(|c| &c.instructions)
            .any(|i| i.shape.is_dynamic());
        if !dynamic {
            continue;
        }
        modules += 1;
        for c in &m.computations {
            for i in &c.instructions {
                let dyn_operand = i.operands.iter().any(|o| c.get(*o).shape.is_dynamic());
                match &i.op {
                    Op::Reduce { .. } if dyn_operand => reduces += 1,
                    Op::Binary(_) | Op::Unary(_) if dyn_operand => elementwise += 1,
                    Op::GetDimensionSize { .. } if dyn_operand => sizes += 1,
                    Op::Reverse { .. }
                    | Op::Pad { .. }
                    | Op::Sort { .. }
                    | Op::ReduceWindow { .. }
                    | Op::DynamicSlice { .. }
                        if dyn_operand =>
                    {
                        *boxed.entry(i.op.opcode()).or_default() += 1
                    }
                    _ => {}
                }
            }
        }
        let args = rxla_fuzzgen::random_args(&m, seed);
        rxla_eval::evaluate(&m, &args, &rxla_eval::RunOptions::default())
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", rxla_ir::print_module(&m)));
    }
    println!(
        "{modules} modules with dynamic dims: {reduces} reduces, {elementwise} elementwise ops, {sizes} get-dimension-size of dynamic values, {boxed:?}"
    );
    for op in ["reverse", "pad", "sort", "reduce-window", "dynamic-slice"] {
        let k = boxed.get(op).copied().unwrap_or(0);
        assert!(k >= 3, "only {k} {op} of a dynamic value");
    }
    assert!(modules >= 20, "only {modules} modules with dynamic dims");
    assert!(
        reduces >= 5 && elementwise >= 20 && sizes >= 5,
        "{reduces} reduces, {elementwise} elementwise, {sizes} sizes"
    );
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
