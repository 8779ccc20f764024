//! `rxla fuzz`: random well-typed programs checked by differential oracles.

use crate::Failure;
use clap::Args;

#[derive(Args)]
pub struct FuzzArgs {}

pub fn run(_args: FuzzArgs) -> Result<(), Failure> {
    Err(Failure::input("rxla fuzz: not implemented yet"))
}
