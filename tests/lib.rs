//! Shared helpers for rxla cross-crate tests.
