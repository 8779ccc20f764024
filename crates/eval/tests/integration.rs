//! The integration tests of rxla-eval as one test binary: each `tests/*.rs` file is a
//! module here (a binary per file linked the whole crate graph 12 times). A new test file must be
//! added below; `rxla-tests`' `integration_roots` test fails when one is missing.

mod eval_support;
mod kernels_support;

mod errors_and_effects;
mod kernels_conv;
mod kernels_custom_call;
mod kernels_dot;
mod kernels_gather_scatter;
mod kernels_rng;
mod kernels_sort;
mod kernels_windows;
mod narrow;
mod perf;
mod semantics;
mod spec_examples;
