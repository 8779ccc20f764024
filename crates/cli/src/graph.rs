//! `rxla graph FILE|-`: Graphviz DOT of the ENTRY computation.

use crate::{Failure, input};
use clap::Args;

#[derive(Args)]
pub struct GraphArgs {
    /// HLO text file, or `-` for stdin.
    pub file: String,
    /// Graph this computation instead of the ENTRY.
    #[arg(long)]
    pub computation: Option<String>,
}

pub fn run(args: GraphArgs) -> Result<(), Failure> {
    let m = input::load_module(&args.file)?;
    let cid = match &args.computation {
        None => m.entry,
        Some(name) => m
            .find_computation(name)
            .ok_or_else(|| Failure::input(format!("no computation named '{name}'")))?,
    };
    crate::emit(&rxla_ir::graph::computation_to_dot(m.comp(cid)))
}
