//! rxla-passes: the pass manager, the IR debugging surface (printing IR
//! before/after passes, diffs, dumps, timing, statistics, fuel) and the
//! optimization passes themselves, one module per pass.
//!
//! Everything the `rxla opt` command offers is available here: parse a
//! pipeline ([`pipeline::parse_pipeline`] or [`pipeline::named_pipeline`]),
//! build a [`PassManager`] from it with a [`Registry`], add
//! [`Instrumentation`]s, and run it over a module. This crate never reads
//! or writes files on its own except through the dump instrumentation.

pub mod buffer_assignment;
pub mod constant_folding;
pub mod conv_polyphase;
pub mod cse;
pub mod dce;
pub mod diff;
pub mod error;
pub mod fusion;
pub mod inline;
pub mod instrument;
pub mod layout_assignment;
pub mod manager;
pub mod multi_output_fusion;
pub mod pass;
pub mod pipeline;
pub mod registry;
pub mod simplify;
pub mod testing;
pub mod transpose_folding;
pub mod tuple_simplify;
pub mod util;
pub mod work;

pub use error::{PassError, PipelineError, Result};
pub use instrument::{Instrumentation, PassEvent, SkipReason};
pub use manager::{PassManager, RunSummary};
pub use pass::{Pass, PassContext, PassOption};
pub use pipeline::{PipelineItem, named_pipeline, parse_pipeline};
pub use registry::Registry;
