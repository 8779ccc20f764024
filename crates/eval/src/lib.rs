//! rxla-eval: the reference evaluator — the oracle every pass and the JIT
//! are checked against. Obviously correct first, fast enough second.
//! Numeric decisions are listed in `docs/SEMANTICS.md`.

pub mod collectives;
pub mod complex;
pub mod data;
pub mod dynamic;
pub mod elementwise;
pub mod entry;
pub mod error;
pub mod evaluator;
pub mod json;
pub mod kernels;
pub mod limits;
pub mod movement;
pub mod narrow;
pub mod options;
pub mod reduce;
pub mod scalar;

pub use entry::{device_grid, device_label, evaluate, evaluate_computation, evaluate_replicated};
pub use error::{EvalError, Result};
pub use json::compare_with_tolerance;
pub use options::RunOptions;
