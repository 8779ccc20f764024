//! Instrumentation: hooks the pass manager calls around every pass. The
//! debugging surface (printing IR, diffs, dumps, timing, statistics) is
//! built from these; each lives in its own submodule. Instrumentations
//! observe and report; they never change the module.

pub mod dump;
pub mod explain;
pub mod print_ir;
pub mod sink;
pub mod stats;
pub mod timing;

use crate::error::Result;
use rxla_ir::Module;
use std::time::Duration;

pub use dump::DumpDir;
pub use explain::Explain;
pub use print_ir::{PrintIr, PrintIrOptions, Scope, Selection};
pub use sink::Sink;
pub use stats::Stats;
pub use timing::Timing;

/// What happened in one pass run.
#[derive(Debug, Clone)]
pub struct PassEvent<'a> {
    /// The pass name.
    pub pass: &'a str,
    /// Whether the pass reported a change.
    pub changed: bool,
    pub duration: Duration,
    /// Instruction count (all computations) before the pass.
    pub instructions_before: usize,
    /// The pass's counters for this run.
    pub stats: &'a [(String, u64)],
    /// Whether the pass asks for fuel per rewrite.
    pub honours_fuel: bool,
    /// Fuel units the run consumed (0 without a fuel budget).
    pub fuel_used: u64,
}

/// Why a pass did not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// Named in `--disable-passes`.
    Disabled,
    /// The fuel budget was spent.
    OutOfFuel,
}

impl SkipReason {
    pub fn describe(self) -> &'static str {
        match self {
            SkipReason::Disabled => "disabled",
            SkipReason::OutOfFuel => "skipped (out of fuel)",
        }
    }
}

/// Hooks around each pass. All default to doing nothing.
pub trait Instrumentation {
    /// Before the first pass.
    fn run_start(&mut self, module: &Module) -> Result<()> {
        let _ = module;
        Ok(())
    }
    /// Before pass `pass` runs.
    fn before_pass(&mut self, pass: &str, module: &Module) -> Result<()> {
        let _ = (pass, module);
        Ok(())
    }
    /// After a pass ran (and verified, when verification is on).
    fn after_pass(&mut self, event: &PassEvent<'_>, module: &Module) -> Result<()> {
        let _ = (event, module);
        Ok(())
    }
    /// A pass was not run.
    fn pass_skipped(&mut self, pass: &str, reason: SkipReason) -> Result<()> {
        let _ = (pass, reason);
        Ok(())
    }
    /// After the pipeline (also after a failure).
    fn run_end(&mut self, module: &Module) -> Result<()> {
        let _ = module;
        Ok(())
    }
}
