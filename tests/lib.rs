//! Shared helpers for rxla's cross-crate tests: the FileCheck matcher and
//! the `.hlo` filetest runner.

pub mod filecheck;
