//! The JIT's error type: every failure names the instruction or kernel it
//! concerns. Only the type lives here; no recovery logic.

use thiserror::Error;

/// A compile or run failure of the JIT.
#[derive(Debug, Error)]
pub enum JitError {
    /// The module uses something the JIT cannot compile and the
    /// interpreter fallback is disabled (or impossible).
    #[error("jit: unsupported: {0}")]
    Unsupported(String),
    /// Cranelift rejected generated code (a bug in the code generator).
    #[error("jit: codegen: {0}")]
    Codegen(String),
    /// Bad arguments or buffers given to `run`/`run_into`.
    #[error("jit: {0}")]
    Input(String),
    /// A resource limit of the run (memory budget, loop iterations, time,
    /// nesting depth): the module is valid but too big for the limits;
    /// running it on the interpreter instead would hit the same limit.
    #[error("jit: {0}")]
    Limit(String),
    /// An instruction run by the reference evaluator (fallback) failed.
    #[error("jit: {0}")]
    Eval(#[from] rxla_eval::EvalError),
    /// A shape or literal error from the IR.
    #[error("jit: {0}")]
    Ir(#[from] rxla_ir::IrError),
}

impl JitError {
    pub fn unsupported(msg: impl Into<String>) -> JitError {
        JitError::Unsupported(msg.into())
    }
    pub fn codegen(msg: impl Into<String>) -> JitError {
        JitError::Codegen(msg.into())
    }
    pub fn input(msg: impl Into<String>) -> JitError {
        JitError::Input(msg.into())
    }
    pub fn limit(msg: impl Into<String>) -> JitError {
        JitError::Limit(msg.into())
    }
}

/// Result alias of the JIT.
pub type Result<T> = std::result::Result<T, JitError>;
