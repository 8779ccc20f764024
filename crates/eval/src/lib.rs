//! rxla-eval: the reference evaluator.

pub mod error;
pub mod kernels;

pub use error::{EvalError, Result};
