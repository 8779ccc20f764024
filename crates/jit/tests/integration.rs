//! The integration tests of rxla-jit as one test binary: each `tests/*.rs` file is a
//! module here (a binary per file linked the whole crate graph 22 times). A new test file must be
//! added below; `rxla-tests`' `integration_roots` test fails when one is missing.

mod big;
mod complex;
mod corpus;
mod differential;
mod exact;
mod gemm_epilogue;
mod half_dot;
mod int8_dot;
mod narrow_tables;
mod native_ops;
mod optimistic;
mod packed;
mod perf;
mod pooling;
mod regions;
mod row_groups;
mod runtime_ops;
mod scan;
mod threads;
mod tiles;
mod ulp;
mod wide;
