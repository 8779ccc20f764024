//! The passes' before/after cases are filetests in
//! `tests/filetests/opt/passes/` (dce, cse, inline, tuple-simplify,
//! constant-folding: the optimized text is checked there). What stays here
//! needs the API: idempotence and option errors.

use crate::common;
use common::run;

const CSE: &str = include_str!("../../tests/filetests/opt/passes/cse.hlo");

#[test]
fn cse_is_idempotent() {
    let (out, changed) = run("cse", CSE);
    assert!(changed);
    let (twice, again) = run("cse", &out);
    assert!(!again, "a second cse changed:\n{out}\n{twice}");
    assert_eq!(twice, out, "cse is idempotent");
}

#[test]
fn unknown_option_is_an_error() {
    let e = rxla_passes::PassManager::from_text(
        "constant-folding{max-element=3}",
        &rxla_passes::Registry::standard(),
    )
    .err()
    .unwrap();
    assert!(e.to_string().contains("max-element"), "{e}");
}
