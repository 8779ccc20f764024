//! The integration tests of rxla as one test binary: each `tests/*.rs` file is a
//! module here (a binary per file linked the whole crate graph 3 times). A new test file must be
//! added below; `rxla-tests`' `integration_roots` test fails when one is missing.

mod examples;
mod readme;
mod stablehlo;
