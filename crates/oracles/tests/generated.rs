//! Generated modules evaluate: the generator's output meets the
//! evaluator (these tests need both crates, so they live here rather than
//! in `rxla-fuzzgen`, which depends on the IR only).

use rxla_fuzzgen::{GenConfig, generate_from_seed};
use rxla_ir::Op;

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
