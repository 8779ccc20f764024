//! `rxla check FILE|-`: parse and verify; print a one-line summary.

use crate::{Failure, input};
use clap::Args;

#[derive(Args)]
pub struct CheckArgs {
    /// HLO text file, or `-` for stdin.
    pub file: String,
}

pub fn run(args: CheckArgs) -> Result<(), Failure> {
    let m = input::load_module(&args.file)?;
    let entry = m.entry_computation();
    crate::emit(&format!(
        "{}: ok: module {}, {} computation{}, {} instructions, entry {} {}\n",
        input::display_name(&args.file),
        m.name,
        m.computations.len(),
        if m.computations.len() == 1 { "" } else { "s" },
        m.instruction_count(),
        entry.name,
        m.entry_program_shape()
    ))
}
