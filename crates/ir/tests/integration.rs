//! The integration tests of rxla-ir as one test binary: each `tests/*.rs` file is a
//! module here (a binary per file linked the whole crate graph 9 times). A new test file must be
//! added below; `rxla-tests`' `integration_roots` test fails when one is missing.

mod builder;
mod complex;
mod elided_constants;
mod shape_inference;
mod text_attrs;
mod text_corpus;
mod text_errors;
mod text_fixtures;
mod verifier;
