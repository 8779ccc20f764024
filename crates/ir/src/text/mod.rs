//! HLO text: the reader (text → [`Module`]) and the printer
//! ([`Module`] → canonical text). print → parse → print is a fixed point.
//!
//! Submodules: `lexer` (cursor, tokens, located errors), `shapes`
//! (shapes/layouts/program shapes), `literal` (literal text), `attrs`
//! (attribute syntaxes), `parser` (module/computation/instruction
//! structure and op building), `printer` (canonical text).

pub(crate) mod attrs;
mod lexer;
mod literal;
mod parser;
mod printer;
mod shapes;

use crate::error::Result;
use crate::literal::Literal;
use crate::module::{Computation, Module};
use crate::ops::{CompId, InstrId};
use crate::shape::{ProgramShape, Shape};

pub use lexer::{MAX_DEPTH, error_at};

/// Parses HLO module text. `file` names the source in error messages.
/// An elided constant (`constant({...})`, as XLA dumps large constants) is
/// an error; [`parse_module_with`] can fill them.
pub fn parse_module(text: &str, file: &str) -> Result<Module> {
    parser::module(text, file, None).map(|(m, _)| m)
}

/// How [`parse_module_with`] reads a module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Fill elided constants (`constant({...})`, XLA's dump of a large
    /// constant) with deterministic pseudo-random values from this seed
    /// (as XLA's `run_hlo_module` does): floats are multiples of 1/128 in
    /// [-1, 1), signed integers in [-8, 8), unsigned ones in [0, 8), preds
    /// fair; the same seed gives the same values. `None`: such a constant
    /// is an error.
    pub fill_elided_constants: Option<u64>,
}

/// A module read by [`parse_module_with`], with what the reader did to it.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub module: Module,
    /// How many elided constants were filled with random values.
    pub elided_constants: usize,
}

/// Parses HLO module text with options (see [`ParseOptions`]).
pub fn parse_module_with(text: &str, file: &str, options: &ParseOptions) -> Result<Parsed> {
    let (module, elided_constants) = parser::module(text, file, options.fill_elided_constants)?;
    Ok(Parsed {
        module,
        elided_constants,
    })
}

/// Parses HLO module bytes; invalid UTF-8 is an error located at the first
/// bad byte.
pub fn parse_module_bytes(bytes: &[u8], file: &str) -> Result<Module> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse_module(text, file),
        Err(e) => {
            let good = e.valid_up_to();
            // The prefix is valid UTF-8; locate the error with it plus the
            // rest of the line (lossily) for display.
            let prefix = std::str::from_utf8(&bytes[..good]).unwrap_or("");
            let line_end = bytes[good..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |i| good + i);
            let shown = format!(
                "{prefix}{}",
                String::from_utf8_lossy(&bytes[good..line_end])
            );
            Err(lexer::error_at(
                &shown,
                file,
                good,
                format!("invalid UTF-8 at byte offset {good}"),
            ))
        }
    }
}

/// Parses a shape such as `f32[2,3]{1,0}` or `(f32[2], s32[])`.
pub fn parse_shape(text: &str) -> Result<Shape> {
    shapes::parse_shape_str(text)
}

/// Parses a program shape such as `(f32[2], s32[])->f32[2]`.
pub fn parse_program_shape(text: &str) -> Result<ProgramShape> {
    let mut c = lexer::Cursor::new(text, "<program shape>");
    let p = shapes::program_shape(&mut c)?;
    c.skip_ws()?;
    if !c.at_end() {
        return Err(c.err(format!(
            "unexpected {} after the program shape",
            c.describe_next()
        )));
    }
    Ok(p)
}

/// Parses literal text (`{1, 2}`, `( 1, {2} )`, `nan`) of a known shape.
pub fn parse_literal(text: &str, shape: &Shape) -> Result<Literal> {
    literal::parse_literal_str(text, shape)
}

/// Prints canonical HLO text.
pub fn print_module(module: &Module) -> String {
    printer::module(module)
}

/// Prints one computation (`[ENTRY ]name { ... }` and a newline).
pub fn print_computation(module: &Module, id: CompId) -> String {
    printer::computation(module, id)
}

/// Prints one instruction line (no indent, no newline).
pub fn print_instruction(module: &Module, comp: &Computation, id: InstrId) -> String {
    printer::instruction(module, comp, id)
}
