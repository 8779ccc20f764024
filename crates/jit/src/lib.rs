//! rxla-jit: the Cranelift JIT backend. `compile` turns a module into an
//! [`Executable`]: the ENTRY computation is orchestrated on the host
//! (parameters, constants, tuples, control flow), and every other
//! instruction — or fusion — is a JIT-compiled loop nest, or a runtime
//! step on the buffers (sort, topk, rng, custom calls, infeed/outfeed).
//! Instructions without a native path may run on the reference evaluator,
//! one at a time (`CompileOptions::allow_interpreter_fallback`, listed in
//! the stats). This crate never changes a module; fusion is a pass, run
//! through the pass manager as the backend pipeline (`backend_passes`).

pub mod budget;
pub mod codegen;
pub mod error;
pub mod executable;
pub mod fallback;
pub mod gemm_epilogue;
pub mod options;
pub mod packing;
pub mod plan;
pub mod rows;
pub mod runtime;
pub mod scatter_inputs;
pub mod sort_key;
pub mod wide;

pub use error::{JitError, Result};
pub use executable::{Executable, backend_passes, compile};
pub use options::{CompileOptions, CompileStats};
