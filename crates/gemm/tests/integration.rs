//! The integration tests of rxla-gemm as one test binary: each `tests/*.rs` file is a
//! module here (a binary per file linked the whole crate graph 5 times). A new test file must be
//! added below; `rxla-tests`' `integration_roots` test fails when one is missing.

mod common;

mod conv;
mod dot;
mod ffi;
mod int8;
mod mixed;
mod sgemm;
