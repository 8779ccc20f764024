//! Example (e): fuzz a custom pass with the passes oracle of
//! `rxla-oracles` on random well-typed programs from `rxla-fuzzgen`, each
//! evaluated before and after the pass (and after a print/parse round
//! trip); any difference is a bug with the seed that shows it. A
//! deliberately wrong variant is caught. Run:
//! `cargo run -p rxla --example fuzz_pass`.

use rxla::prelude::*;
use rxla_fuzzgen::{GenConfig, generate_from_seed};
use rxla_oracles::{guard, passes::check_configs};

/// Puts the operand with the smaller id first in every add and multiply
/// (they are commutative, so this is correct). `WRONG` also swaps the
/// operands of subtract, which is not.
pub struct Canonicalize<const WRONG: bool>;

impl<const WRONG: bool> Pass for Canonicalize<WRONG> {
    fn name(&self) -> &'static str {
        if WRONG {
            "canonicalize-wrong"
        } else {
            "canonicalize"
        }
    }
    fn description(&self) -> &'static str {
        "smaller operand id first in add/multiply"
    }
    fn run(&mut self, module: &mut Module, _: &mut PassContext) -> rxla::passes::Result<bool> {
        let mut changed = false;
        for comp in &mut module.computations {
            for i in &mut comp.instructions {
                let swap = match i.op {
                    Op::Binary(BinaryOp::Add | BinaryOp::Multiply) => i.operands[1] < i.operands[0],
                    Op::Binary(BinaryOp::Subtract) => WRONG && i.operands[0] != i.operands[1],
                    _ => false,
                };
                if swap {
                    i.operands.swap(0, 1);
                    changed = true;
                }
            }
        }
        Ok(changed)
    }
}

/// Runs the passes oracle on `seeds` programs: the first failure (seed
/// and message), or how many programs the pass changed.
fn fuzz(options: &Options, pass: &str, seeds: u64) -> Result<usize, (u64, String)> {
    let cfg = GenConfig::evaluable();
    let configs = vec![pass.to_string()];
    let mut changed = 0;
    for seed in 0..seeds {
        let module = generate_from_seed(seed, &cfg);
        guard(|| check_configs(&module, seed, &options.registry, &configs))
            .map_err(|e| (seed, e))?;
        if rxla::optimize(&mut module.clone(), pass, options).map_err(|e| (seed, e.to_string()))? {
            changed += 1;
        }
    }
    Ok(changed)
}

pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut options = Options::default();
    options
        .registry
        .register(|| Box::new(Canonicalize::<false>));
    options.registry.register(|| Box::new(Canonicalize::<true>));

    let changed = fuzz(&options, "canonicalize", 300)
        .map_err(|(seed, e)| format!("canonicalize is wrong on seed {seed}: {e}"))?;
    println!("canonicalize: 300 programs ({changed} changed), no difference");
    assert!(changed >= 10, "the pass changed only {changed} programs");

    let (seed, e) = fuzz(&options, "canonicalize-wrong", 400)
        .err()
        .ok_or("the wrong pass was not caught in 400 programs")?;
    assert!(e.contains("the result differs"), "{e}");
    println!("canonicalize-wrong caught on seed {seed}: {e}");
    Ok(())
}
