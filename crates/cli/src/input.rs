//! Reading modules for the CLI: a path or `-` for stdin, parsed and
//! verified, with errors formatted as `FILE:LINE:COL: error: ...`.

use crate::Failure;
use rxla_ir::Module;
use std::io::Read;

/// Reads the raw bytes of `path` (`-` = stdin).
pub fn read_bytes(path: &str) -> Result<Vec<u8>, Failure> {
    if path == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| Failure::input(format!("<stdin>: error: cannot read: {e}")))?;
        Ok(buf)
    } else {
        std::fs::read(path).map_err(|e| Failure::input(format!("{path}: error: cannot read: {e}")))
    }
}

/// The name used for `path` in messages.
pub fn display_name(path: &str) -> &str {
    if path == "-" { "<stdin>" } else { path }
}

/// Reads, parses and verifies a module.
pub fn load_module(path: &str) -> Result<Module, Failure> {
    let bytes = read_bytes(path)?;
    let name = display_name(path);
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        let upto = &bytes[..e.valid_up_to()];
        let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = upto.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        Failure::input(format!(
            "{name}:{line}:{col}: error: the file is not valid UTF-8 (byte offset {})",
            e.valid_up_to()
        ))
    })?;
    let module = rxla_ir::parse_module(text, name).map_err(|e| Failure::input(e.to_string()))?;
    rxla_ir::verify_module(&module).map_err(|e| Failure::input(format!("{name}: error: {e}")))?;
    Ok(module)
}
