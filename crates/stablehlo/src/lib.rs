//! rxla-stablehlo: reads the StableHLO text that JAX prints
//! (`jax.jit(f).lower(...).as_text()`) into an rxla [`Module`], as XLA's
//! StableHLO→HLO converter would.
//!
//! Modules, one job each: `lexer` (tokens, located errors), `types`
//! (MLIR types → shapes), `attrs` (attribute values, `dense<...>` →
//! literals), `parser` (text → `ast`), `convert/` (AST → IR, one file per
//! op family). Nothing here evaluates or optimises; bad input of any kind
//! is an error naming `FILE:LINE:COL` and what was expected, never a panic.

pub mod ast;
pub mod attrs;
mod convert;
pub mod lexer;
pub mod parser;
pub mod types;

use rxla_ir::{IrError, Module};

/// Parses StableHLO text into a verified rxla module. `file` names the
/// source in error messages.
pub fn parse_stablehlo(text: &str, file: &str) -> Result<Module, IrError> {
    let ast = parser::parse(text, file)?;
    convert::convert(&ast, text, file)
}

/// Parses StableHLO bytes; invalid UTF-8 is a located error.
pub fn parse_stablehlo_bytes(bytes: &[u8], file: &str) -> Result<Module, IrError> {
    match std::str::from_utf8(bytes) {
        Ok(t) => parse_stablehlo(t, file),
        Err(e) => {
            let good = e.valid_up_to();
            let shown = String::from_utf8_lossy(bytes).into_owned();
            Err(lexer::error_at(
                &shown,
                file,
                good,
                format!("invalid UTF-8 at byte offset {good}"),
            ))
        }
    }
}

/// Whether `text` looks like StableHLO/MLIR rather than HLO text: its first
/// meaningful line starts with `module`, `func.func`, `#` (an attribute
/// alias) or a `//` comment followed by those. HLO text starts with
/// `HloModule`.
pub fn looks_like_stablehlo(text: &str) -> bool {
    for line in text.lines() {
        let l = line.trim_start();
        if l.is_empty() || l.starts_with("//") {
            continue;
        }
        if l.starts_with("HloModule") {
            return false;
        }
        return l.starts_with("module") || l.starts_with("func.func") || l.starts_with('#');
    }
    false
}
