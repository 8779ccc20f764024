//! rxla-passes
