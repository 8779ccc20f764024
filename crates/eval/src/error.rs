//! The evaluator's error type: every failure names the instruction (and
//! computation) where it happened and what was expected.

use rxla_ir::IrError;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EvalError {
    /// A runtime failure (bad argument, infeed exhausted, runaway loop, ...).
    #[error("{0}")]
    Runtime(String),
    /// An IR-level error (bad literal, shape, ...).
    #[error(transparent)]
    Ir(#[from] IrError),
}

impl EvalError {
    pub fn new(msg: impl Into<String>) -> EvalError {
        EvalError::Runtime(msg.into())
    }

    /// Prefixes the message with context such as `instruction add.3`.
    pub fn context(self, ctx: impl std::fmt::Display) -> EvalError {
        match self {
            EvalError::Runtime(m) => EvalError::Runtime(format!("{ctx}: {m}")),
            EvalError::Ir(e) => EvalError::Runtime(format!("{ctx}: {e}")),
        }
    }
}

pub type Result<T, E = EvalError> = std::result::Result<T, E>;
