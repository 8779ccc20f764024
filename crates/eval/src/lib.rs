//! rxla-eval: the reference evaluator.

pub mod kernels;
