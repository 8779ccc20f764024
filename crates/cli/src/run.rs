//! `rxla run`: evaluate a module on arguments and print the results.

use crate::Failure;
use clap::Args;

#[derive(Args)]
pub struct RunArgs {}

pub fn run(_args: RunArgs) -> Result<(), Failure> {
    Err(Failure::input("rxla run: not implemented yet"))
}
