//! The crate's error type: every rejected input names the entry point and what was expected.
//! Must not panic or abort; callers turn these into their own diagnostics.

/// An invalid argument to one of the engine's entry points.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct GemmError(pub String);

impl GemmError {
    pub(crate) fn new(msg: impl Into<String>) -> GemmError {
        GemmError(msg.into())
    }
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, GemmError>;
