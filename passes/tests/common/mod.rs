//! Shared helpers for the pass tests: parse, run a pipeline, print.

#![allow(dead_code)]

use rxla_ir::Module;
use rxla_passes::{PassManager, Registry};

pub fn parse(text: &str) -> Module {
    let m = rxla_ir::parse_module(text, "test.hlo").unwrap_or_else(|e| panic!("{e}"));
    rxla_ir::verify_module(&m).unwrap_or_else(|e| panic!("input does not verify: {e}"));
    m
}

/// Runs `pipeline` over `text`; returns the printed result and whether
/// anything changed.
pub fn run(pipeline: &str, text: &str) -> (String, bool) {
    let mut m = parse(text);
    let mut pm = PassManager::from_text(pipeline, &Registry::standard()).unwrap();
    let s = pm.run(&mut m).unwrap_or_else(|e| panic!("{e}"));
    (rxla_ir::print_module(&m), s.changed)
}

/// "before / after" text for a snapshot.
pub fn before_after(pipeline: &str, text: &str) -> String {
    let before = rxla_ir::print_module(&parse(text));
    let (after, changed) = run(pipeline, text);
    format!(
        "// ----- before -----\n{before}// ----- after {pipeline} ({}) -----\n{after}",
        if changed { "changed" } else { "unchanged" }
    )
}
