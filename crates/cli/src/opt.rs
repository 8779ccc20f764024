//! `rxla opt FILE|- [-o OUT]`: parse → verify → (passes) → print.

use crate::{Failure, input};
use clap::Args;

#[derive(Args)]
pub struct OptArgs {
    /// HLO text file, or `-` for stdin.
    pub file: String,
    /// Write the result here instead of stdout.
    #[arg(short = 'o', long = "output")]
    pub output: Option<String>,
}

pub fn run(args: OptArgs) -> Result<(), Failure> {
    let m = input::load_module(&args.file)?;
    let text = rxla_ir::print_module(&m);
    match &args.output {
        None => print!("{text}"),
        Some(p) => std::fs::write(p, text)
            .map_err(|e| Failure::input(format!("{p}: error: cannot write: {e}")))?,
    }
    Ok(())
}
