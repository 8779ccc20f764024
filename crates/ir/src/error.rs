//! The IR crate's error type. Every fallible IR operation returns
//! [`IrError`]; messages name the place (instruction, computation, or
//! file:line:col for text) and what was expected.

use std::fmt;

/// A located parse error: `FILE:LINE:COL: error: message`, then the source
/// line and a caret under the column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub col: usize,
    pub message: String,
    /// The offending source line (may be empty at end of input).
    pub source_line: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.col, self.message
        )?;
        // Long lines are cut around the column so a caret still lines up.
        let chars: Vec<char> = self.source_line.chars().collect();
        let (start, prefix) = if self.col > 120 {
            (self.col - 60, "...")
        } else {
            (0, "")
        };
        let end = (start + 160).min(chars.len());
        let shown: String = chars[start.min(chars.len())..end].iter().collect();
        writeln!(f, "{prefix}{shown}")?;
        let caret_col = self.col.saturating_sub(1).saturating_sub(start) + prefix.len();
        write!(f, "{}^", " ".repeat(caret_col))
    }
}

/// Errors of the IR crate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IrError {
    /// A shape, layout or index is malformed, or shape inference failed.
    #[error("{0}")]
    Shape(String),
    /// A literal is malformed (wrong element count, bad value, ...).
    #[error("{0}")]
    Literal(String),
    /// The verifier found a broken invariant.
    #[error("verifier: {0}")]
    Verify(String),
    /// HLO text could not be parsed.
    #[error("{0}")]
    Parse(Box<ParseError>),
    /// A builder call got bad arguments.
    #[error("{0}")]
    Build(String),
}

impl IrError {
    pub fn shape(msg: impl Into<String>) -> Self {
        IrError::Shape(msg.into())
    }
    pub fn literal(msg: impl Into<String>) -> Self {
        IrError::Literal(msg.into())
    }
    pub fn verify(msg: impl Into<String>) -> Self {
        IrError::Verify(msg.into())
    }
    pub fn build(msg: impl Into<String>) -> Self {
        IrError::Build(msg.into())
    }

    /// Prefixes the message with context (e.g. an instruction name),
    /// keeping the variant.
    pub fn context(self, ctx: impl fmt::Display) -> Self {
        match self {
            IrError::Shape(m) => IrError::Shape(format!("{ctx}: {m}")),
            IrError::Literal(m) => IrError::Literal(format!("{ctx}: {m}")),
            IrError::Verify(m) => IrError::Verify(format!("{ctx}: {m}")),
            IrError::Build(m) => IrError::Build(format!("{ctx}: {m}")),
            IrError::Parse(p) => IrError::Parse(p),
        }
    }
}

pub type Result<T, E = IrError> = std::result::Result<T, E>;

/// Shorthand: `bail!(Shape, "...")` returns an `IrError::Shape`.
#[macro_export]
macro_rules! ir_bail {
    ($kind:ident, $($arg:tt)*) => {
        return Err($crate::IrError::$kind(format!($($arg)*)))
    };
}
