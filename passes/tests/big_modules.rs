//! Hostile sizes (issue 20): long chains, deep call chains and wide
//! modules go through the pipelines and come out verified, and deep
//! chains do not overflow the stack of the verifier, the printer or the
//! passes (run on threads with the default 2 MiB stack). Sizes are kept
//! moderate so debug builds stay fast; nothing here asserts on time (the
//! `big_modules` bench measures).

use rxla_ir::{Literal, Module, Op};
use rxla_passes::testing::big;
use rxla_passes::{PassManager, Registry};

fn run(pipeline: &str, m: &mut Module) {
    let registry = Registry::standard();
    let mut pm = if rxla_passes::pipeline::named_pipeline_text(pipeline).is_some() {
        PassManager::named(pipeline, &registry)
    } else {
        PassManager::from_text(pipeline, &registry)
    }
    .unwrap_or_else(|e| panic!("{e}"));
    pm.run(m).unwrap_or_else(|e| panic!("{pipeline}: {e}"));
    rxla_ir::verify_module(m).unwrap_or_else(|e| panic!("{pipeline}: {e}"));
}

/// Runs `f` on a thread with the default 2 MiB stack (the main test
/// thread may have more).
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no panic, no stack overflow");
}

fn calls_left(m: &Module) -> usize {
    m.computations
        .iter()
        .flat_map(|c| &c.instructions)
        .filter(|i| matches!(i.op, Op::Call { .. }))
        .count()
}

fn eval(m: &Module, args: &[Literal]) -> Literal {
    rxla_eval::evaluate(m, args, &rxla_eval::RunOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn generators_verify() {
    for m in [big::chain(100), big::call_chain(50), big::wide(100)] {
        rxla_ir::verify_module(&m).unwrap_or_else(|e| panic!("{}: {e}", m.name));
    }
    assert_eq!(big::chain(100).instruction_count(), 102);
    assert_eq!(big::call_chain(50).computations.len(), 51);
}

#[test]
fn chain_of_20k_through_o2() {
    on_small_stack(|| {
        let mut m = big::chain(20_000);
        run("O2", &mut m);
        // Nothing in the chain can be simplified away.
        assert_eq!(m.instruction_count(), 20_002);
    });
}

#[test]
fn wide_module_through_o2() {
    on_small_stack(|| {
        let mut m = big::wide(20_000);
        run("O2", &mut m);
        // 16 parameters: CSE leaves at most 256 distinct products.
        assert!(m.instruction_count() < 20_000, "{}", m.instruction_count());
    });
}

#[test]
fn call_chain_of_5000_through_inline() {
    on_small_stack(|| {
        let mut m = big::call_chain(5000);
        run("inline,dce", &mut m);
        assert_eq!(calls_left(&m), 0);
        assert_eq!(m.computations.len(), 1);
        // One parameter, 4999 adds and one negate.
        assert_eq!(m.instruction_count(), 5001);
    });
}

/// Deep enough that inline expands nested calls on the fly instead of
/// rewriting every callee: the values must not change.
#[test]
fn nested_inlining_keeps_values() {
    let m = big::call_chain(400);
    let mut inlined = m.clone();
    run("inline", &mut inlined);
    let main = inlined.entry_computation();
    assert!(
        !main
            .instructions
            .iter()
            .any(|i| matches!(i.op, Op::Call { .. })),
        "ENTRY still calls"
    );
    // The callees were left alone (dce removes them).
    assert!(calls_left(&inlined) > 0);
    let x = Literal::from_vec(&[4], vec![0.5f32, -1.0, 1e-30, 3.0]).expect("literal");
    let want = eval(&m, std::slice::from_ref(&x));
    assert_eq!(eval(&inlined, &[x]), want);
    // Inlining again changes nothing reachable.
    let before = rxla_ir::print_module(&inlined);
    let mut again = inlined.clone();
    run("inline,dce", &mut again);
    run("dce", &mut inlined);
    assert_eq!(
        rxla_ir::print_module(&again),
        rxla_ir::print_module(&inlined)
    );
    assert_ne!(before, "");
}

/// With fuel, nested expansion stops at some call; what is left verifies.
#[test]
fn nested_inlining_with_fuel_verifies() {
    let mut m = big::call_chain(400);
    let registry = Registry::standard();
    let mut pm = PassManager::from_text("inline,dce", &registry).expect("pipeline");
    pm.set_fuel(Some(10));
    pm.run(&mut m).unwrap_or_else(|e| panic!("{e}"));
    rxla_ir::verify_module(&m).unwrap_or_else(|e| panic!("{e}"));
    // Ten call sites inlined (the ENTRY's and nine nested ones), the
    // tenth nested call is left in the ENTRY.
    let main = m.entry_computation();
    let calls: Vec<&str> = main
        .instructions
        .iter()
        .filter(|i| matches!(i.op, Op::Call { .. }))
        .map(|i| i.name.as_str())
        .collect();
    assert_eq!(calls.len(), 1, "{calls:?}");
}

#[test]
fn simplify_with_a_tiny_time_limit_returns_a_verified_module() {
    on_small_stack(|| {
        let mut m = big::chain(20_000);
        run("simplify{time-limit-ms=1}", &mut m);
        assert_eq!(m.instruction_count(), 20_002);
        let mut w = big::wide(20_000);
        run("simplify{time-limit-ms=1},dce", &mut w);
    });
}

#[test]
fn deep_chain_verifies_and_prints_on_a_small_stack() {
    on_small_stack(|| {
        let m = big::chain(100_000);
        rxla_ir::verify_module(&m).unwrap_or_else(|e| panic!("{e}"));
        let text = rxla_ir::print_module(&m);
        assert!(text.contains("ROOT v99999"), "root printed");
        let c = big::call_chain(100_000);
        rxla_ir::verify_module(&c).unwrap_or_else(|e| panic!("{e}"));
        assert!(rxla_ir::print_module(&c).contains("f99999 {"));
        let order = rxla_ir::graph::topological_order(m.entry_computation()).expect("acyclic");
        assert_eq!(order.len(), 100_002);
    });
}

#[test]
fn deep_chain_through_o1_and_fusion_on_a_small_stack() {
    on_small_stack(|| {
        let mut m = big::chain(100_000);
        run("O1", &mut m);
        assert_eq!(m.instruction_count(), 100_002);
        run("fusion", &mut m);
    });
}
