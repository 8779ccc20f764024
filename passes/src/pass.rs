//! The [`Pass`] trait every pass implements and the [`PassContext`] a pass
//! runs with: the global fuel budget (for bisecting miscompiles) and the
//! pass's statistics counters. Passes never print; they report through
//! the context and their return value.

use crate::error::{PassError, Result};
use rxla_ir::Module;
use std::fmt::Display;

/// One option a pass accepts in pipeline text (`name{key=value}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassOption {
    pub key: &'static str,
    pub description: &'static str,
    pub default: &'static str,
}

/// A module-to-module transformation.
pub trait Pass {
    /// The name used in pipelines (`cse`, `tuple-simplify`, ...).
    fn name(&self) -> &'static str;
    /// One line for `--help`-style listings. Passes that honour fuel say
    /// so here.
    fn description(&self) -> &'static str;
    /// The options `set_option` accepts.
    fn options(&self) -> &'static [PassOption] {
        &[]
    }
    /// Sets an option from pipeline text.
    fn set_option(&mut self, key: &str, value: &str) -> Result<()> {
        let _ = value;
        Err(PassError::option(
            self.name(),
            key,
            "unknown option (this pass takes no options)",
        ))
    }
    /// The current options as `key=value` pairs (for printing the
    /// pipeline back, e.g. in a reproducer command).
    fn option_values(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// Whether the pass asks for fuel per rewrite. Passes that do not are
    /// charged one unit per run by the manager.
    fn honours_fuel(&self) -> bool {
        false
    }
    /// Runs the pass; returns whether the module changed.
    fn run(&mut self, module: &mut Module, ctx: &mut PassContext) -> Result<bool>;
}

/// Parses an option value as a positive integer, naming the pass/option.
pub fn parse_count(pass: &str, key: &str, value: &str) -> Result<usize> {
    value
        .parse::<usize>()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| {
            PassError::option(
                pass,
                key,
                format!("expected a positive integer, got `{value}`"),
            )
        })
}

/// State shared by the passes of one pipeline run.
#[derive(Debug, Default)]
pub struct PassContext {
    /// Remaining fuel; `None` = unlimited.
    fuel: Option<u64>,
    fuel_used: u64,
    last_applied: Option<String>,
    first_denied: Option<String>,
    stats: Vec<(String, u64)>,
}

impl PassContext {
    /// A context with unlimited fuel.
    pub fn new() -> PassContext {
        PassContext::default()
    }

    /// A context whose first `fuel` rewrite opportunities are applied.
    pub fn with_fuel(fuel: Option<u64>) -> PassContext {
        PassContext {
            fuel,
            ..PassContext::default()
        }
    }

    /// Asks for one unit of fuel before applying the rewrite `what`.
    /// Returns false (and the pass must skip the rewrite) when the budget
    /// is spent. With unlimited fuel this is always true.
    pub fn consume_fuel(&mut self, what: impl Display) -> bool {
        match &mut self.fuel {
            None => true,
            Some(0) => {
                if self.first_denied.is_none() {
                    self.first_denied = Some(what.to_string());
                }
                false
            }
            Some(n) => {
                *n -= 1;
                self.fuel_used += 1;
                self.last_applied = Some(what.to_string());
                true
            }
        }
    }

    /// Whether a fuel budget was given and is spent.
    pub fn out_of_fuel(&self) -> bool {
        self.fuel == Some(0)
    }

    /// Whether a fuel budget is active.
    pub fn has_fuel_limit(&self) -> bool {
        self.fuel.is_some()
    }

    /// Units consumed so far.
    pub fn fuel_used(&self) -> u64 {
        self.fuel_used
    }

    /// The last rewrite applied under a fuel budget.
    pub fn last_applied(&self) -> Option<&str> {
        self.last_applied.as_deref()
    }

    /// The first rewrite refused for lack of fuel.
    pub fn first_denied(&self) -> Option<&str> {
        self.first_denied.as_deref()
    }

    /// Adds `n` to the current pass's counter `name`.
    pub fn stat(&mut self, name: &str, n: u64) {
        match self.stats.iter_mut().find(|(k, _)| k == name) {
            Some((_, v)) => *v += n,
            None => self.stats.push((name.to_string(), n)),
        }
    }

    /// Takes the counters collected since the last call (the manager calls
    /// this after each pass).
    pub fn take_stats(&mut self) -> Vec<(String, u64)> {
        std::mem::take(&mut self.stats)
    }
}
