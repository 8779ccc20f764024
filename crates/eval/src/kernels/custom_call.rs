//! custom-call: calls registered extern "C" functions.

use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, Literal, Shape};
use std::collections::HashMap;

/// A custom-call target: `out` is the result buffer, `ins` an array of argument buffer pointers.
pub type CustomCallFn = extern "C" fn(out: *mut u8, ins: *const *const u8);

/// Registered custom-call targets by name.
#[derive(Clone, Default, Debug)]
pub struct CustomCallRegistry {
    targets: HashMap<String, CustomCallFn>,
}

impl CustomCallRegistry {
    pub fn register(&mut self, name: impl Into<String>, f: CustomCallFn) {
        self.targets.insert(name.into(), f);
    }
    pub fn get(&self, name: &str) -> Option<CustomCallFn> {
        self.targets.get(name).copied()
    }
    pub fn contains(&self, name: &str) -> bool {
        self.targets.contains_key(name)
    }
}

pub fn call(
    registry: &CustomCallRegistry,
    target: &str,
    args: &[&ArrayLiteral],
    out: &Shape,
) -> Result<Literal> {
    let _ = (registry.get(target), args, out);
    Err(EvalError::new("custom-call: not implemented"))
}
