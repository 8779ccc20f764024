//! The integration tests of rxla-passes as one test binary: each `tests/*.rs` file is a
//! module here (a binary per file linked the whole crate graph 10 times). A new test file must be
//! added below; `rxla-tests`' `integration_roots` test fails when one is missing.

mod common;

mod big_modules;
mod buffer_assignment;
mod conv_polyphase;
mod corpus;
mod layout_assignment;
mod manager;
mod passes;
mod simplify;
mod simplify_layouts;
mod simplify_rules;
