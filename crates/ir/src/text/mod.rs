//! HLO text: the reader (text → [`Module`]) and the printer
//! ([`Module`] → canonical text). print → parse → print is a fixed point.

use crate::error::Result;
use crate::module::Module;

/// Parses HLO module text. `file` names the source in error messages.
pub fn parse_module(text: &str, file: &str) -> Result<Module> {
    let _ = (text, file);
    Err(crate::IrError::build("parser not implemented yet"))
}

/// Prints canonical HLO text.
pub fn print_module(module: &Module) -> String {
    let _ = module;
    String::new()
}
