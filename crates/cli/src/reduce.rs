//! `rxla reduce`: delta-debugging reducer for failing modules.

use crate::Failure;
use clap::Args;

#[derive(Args)]
pub struct ReduceArgs {}

pub fn run(_args: ReduceArgs) -> Result<(), Failure> {
    Err(Failure::input("rxla reduce: not implemented yet"))
}
