//! The integration tests of rxla-cli as one test binary: each `tests/*.rs` file is a
//! module here (a binary per file linked the whole crate graph 11 times). A new test file must be
//! added below; `rxla-tests`' `integration_roots` test fails when one is missing.

mod support;

mod cli_basic;
mod fuzz_cli;
mod isa_cli;
mod limits_cli;
mod linalg_cli;
mod npz_cli;
mod opt_cli;
mod picture_cli;
mod replicas_cli;
mod stablehlo_cli;
mod test_cli;
