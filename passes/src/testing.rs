//! Passes that exist only to test the pass manager: `test-break-names`
//! deliberately breaks an invariant (it gives the ENTRY root the name of
//! another instruction, so names are no longer unique) and
//! `test-fail` returns an error. They are never in
//! [`crate::Registry::standard`]; tests (and `rxla opt
//! --enable-test-passes`) register them with [`register_test_passes`].

use crate::error::{PassError, Result};
use crate::pass::{Pass, PassContext};
use crate::registry::Registry;
use rxla_ir::Module;

/// Breaks name uniqueness in the ENTRY computation.
pub struct BreakNames;

impl Pass for BreakNames {
    fn name(&self) -> &'static str {
        "test-break-names"
    }

    fn description(&self) -> &'static str {
        "TEST ONLY: renames the ENTRY root to the name of the first instruction (breaks the verifier's unique-names invariant)"
    }

    fn run(&mut self, module: &mut Module, _ctx: &mut PassContext) -> Result<bool> {
        let entry = module.entry_computation_mut();
        let first = entry.instructions.first().map(|i| i.name.clone());
        let root = entry.root;
        match first {
            Some(name) if entry.len() > 1 && root.index() != 0 => {
                entry.get_mut(root).name = name;
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

/// Always fails.
pub struct Fail;

impl Pass for Fail {
    fn name(&self) -> &'static str {
        "test-fail"
    }

    fn description(&self) -> &'static str {
        "TEST ONLY: always returns an error"
    }

    fn run(&mut self, _module: &mut Module, _ctx: &mut PassContext) -> Result<bool> {
        Err(PassError::failed(self.name(), "deliberate failure"))
    }
}

/// Adds the test-only passes to `registry`.
pub fn register_test_passes(registry: &mut Registry) {
    registry.register(|| Box::new(BreakNames));
    registry.register(|| Box::new(Fail));
}
