//! `verify_layouts`: each layout-sensitive rule broken by hand is
//! reported with the instruction and what was expected; the same
//! modules pass after `layout-assignment` repairs them.

mod common;

use rxla_ir::layout_verifier::verify_layouts;
use rxla_passes::{PassManager, Registry};

fn err(text: &str) -> String {
    err_with(text, true)
}

/// Like [`err`]; `fixable`: whether layout-assignment must repair it (an
/// input bitcast is kept as written, so a broken one stays broken).
fn err_with(text: &str, fixable: bool) -> String {
    let m = rxla_ir::parse_module(text, "t.hlo").unwrap_or_else(|e| panic!("{e}"));
    let e = verify_layouts(&m)
        .expect_err("must be rejected")
        .to_string();
    // layout-assignment makes the module layout-correct.
    let mut fixed = m.clone();
    if fixable {
        PassManager::from_text("layout-assignment", &Registry::standard())
            .unwrap()
            .run(&mut fixed)
            .unwrap();
        verify_layouts(&fixed).unwrap_or_else(|e| panic!("{e}\n{}", rxla_ir::print_module(&fixed)));
    }
    e
}

#[test]
fn elementwise_operands_must_match_the_result() {
    let e = err(
        "HloModule m\nENTRY e {\n  a = f32[2,3]{1,0} parameter(0)\n  b = f32[2,3]{0,1} parameter(1)\n  ROOT s = f32[2,3]{1,0} add(a, b)\n}\n",
    );
    assert!(e.contains("instruction s"), "{e}");
    assert!(
        e.contains("operand 1 is f32[2,3]{0,1} but must be f32[2,3]{1,0}"),
        "{e}"
    );
}

#[test]
fn bitcasts_must_keep_bytes_and_padding() {
    let e = err_with(
        "HloModule m\nENTRY e {\n  a = f32[2,3]{1,0:P(2,4)} parameter(0)\n  ROOT b = f32[8]{0} bitcast(a)\n}\n",
        false,
    );
    assert!(e.contains("maps padding onto data"), "{e}");
    let m = rxla_ir::parse_module(
        "HloModule m\nENTRY e {\n  a = f32[2,3]{1,0} parameter(0)\n  ROOT b = f32[3,2]{0,1} bitcast(a)\n}\n",
        "t.hlo",
    )
    .unwrap();
    verify_layouts(&m).unwrap();
}

#[test]
fn tuple_elements_and_entry_layout_must_agree() {
    let e = err(
        "HloModule m\nENTRY e {\n  a = f32[2,3]{1,0} parameter(0)\n  t = (f32[2,3]{1,0}) tuple(a)\n  ROOT g = f32[2,3]{0,1} get-tuple-element(t), index=0\n}\n",
    );
    assert!(e.contains("instruction g"), "{e}");
    let e = err(
        "HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{1,0}}\nENTRY e {\n  a = f32[2,3]{1,0} parameter(0)\n  ROOT n = f32[2,3]{1,0} negate(a)\n}\n",
    );
    assert!(
        e.contains("ENTRY parameter 0 is f32[2,3]{1,0} but must be f32[2,3]{0,1}"),
        "{e}"
    );
}

#[test]
fn while_state_layouts_must_agree() {
    let e = err(
        "HloModule m\ncond {\n  s = f32[2,3]{1,0} parameter(0)\n  ROOT p = pred[] constant(false)\n}\nbody {\n  s = f32[2,3]{1,0} parameter(0)\n  ROOT n = f32[2,3]{0,1} copy(s)\n}\nENTRY e {\n  a = f32[2,3]{1,0} parameter(0)\n  ROOT w = f32[2,3]{1,0} while(a), condition=cond, body=body\n}\n",
    );
    assert!(e.contains("the body root is f32[2,3]{0,1}"), "{e}");
}
