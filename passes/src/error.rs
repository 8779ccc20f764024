//! Errors of the pass library: pipeline text errors (with the column),
//! bad pass options, pass failures, and verifier failures after a pass
//! (which carry the IR from before the pass, for a reproducer).

use rxla_ir::{IrError, Module};
use std::fmt;

/// An error in pipeline text, pointing at a 1-based column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineError {
    /// The whole pipeline text.
    pub text: String,
    /// 1-based column (in characters) of the problem.
    pub col: usize,
    pub message: String,
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "pipeline:{}: error: {}", self.col, self.message)?;
        writeln!(f, "  {}", self.text)?;
        write!(f, "  {}^", " ".repeat(self.col.saturating_sub(1)))
    }
}

/// Errors of pipeline construction and pass runs.
#[derive(Debug, thiserror::Error)]
pub enum PassError {
    /// The pipeline text is malformed or names an unknown pass.
    #[error("{0}")]
    Pipeline(Box<PipelineError>),
    /// A pass rejected an option.
    #[error("pass `{pass}`: option `{key}`: {message}")]
    Option {
        pass: String,
        key: String,
        message: String,
    },
    /// A pass reported an error while running.
    #[error("pass `{pass}` failed: {message}")]
    Failed { pass: String, message: String },
    /// The verifier rejected the module after a pass. `before` is the
    /// module as it was before the pass ran (a reproducer); `spec` is the
    /// pass with its options in pipeline syntax.
    #[error("pass `{pass}` broke an invariant: {message}")]
    Verify {
        pass: String,
        spec: String,
        message: String,
        before: Box<Module>,
    },
    /// An instrumentation could not write its output.
    #[error("{0}")]
    Io(String),
    /// An IR operation failed inside the manager or a helper.
    #[error(transparent)]
    Ir(#[from] IrError),
}

impl PassError {
    /// A failure of pass `pass`.
    pub fn failed(pass: &str, message: impl fmt::Display) -> PassError {
        PassError::Failed {
            pass: pass.to_string(),
            message: message.to_string(),
        }
    }

    /// A rejected option of pass `pass`.
    pub fn option(pass: &str, key: &str, message: impl Into<String>) -> PassError {
        PassError::Option {
            pass: pass.to_string(),
            key: key.to_string(),
            message: message.into(),
        }
    }
}

impl From<PipelineError> for PassError {
    fn from(e: PipelineError) -> Self {
        PassError::Pipeline(Box::new(e))
    }
}

pub type Result<T, E = PassError> = std::result::Result<T, E>;
