//! Times pipelines on the hostile-size modules of issue 20 (per-pass wall
//! time through the `Timing` instrumentation, printed to stderr), or
//! writes one as HLO text for the CLI. Measures only; asserts nothing.
//!
//! ```sh
//! cargo run --release -p rxla-passes --example big_modules -- chain 100000 O2
//! cargo run --release -p rxla-passes --example big_modules -- calls 10000 inline
//! cargo run --release -p rxla-passes --example big_modules -- wide 100000 print > wide.hlo
//! ```

use rxla_passes::instrument::{Sink, Timing};
use rxla_passes::testing::big;
use rxla_passes::{PassManager, Registry};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(kind), Some(n), Some(what)) = (args.first(), args.get(1), args.get(2)) else {
        eprintln!("usage: big_modules chain|calls|wide N PIPELINE|print|verify");
        std::process::exit(2);
    };
    let n: usize = n.parse().unwrap_or_else(|_| {
        eprintln!("N must be a number");
        std::process::exit(2)
    });
    let t = Instant::now();
    let mut m = match kind.as_str() {
        "chain" => big::chain(n),
        "calls" => big::call_chain(n),
        "wide" => big::wide(n),
        _ => {
            eprintln!("unknown module kind {kind}");
            std::process::exit(2)
        }
    };
    eprintln!(
        "generated {} instructions in {:?}",
        m.instruction_count(),
        t.elapsed()
    );
    match what.as_str() {
        "print" => print!("{}", rxla_ir::print_module(&m)),
        "verify" => {
            let t = Instant::now();
            let r = rxla_ir::verify_module(&m);
            eprintln!("verify: {:?} in {:?}", r.err(), t.elapsed());
            let t = Instant::now();
            let text = rxla_ir::print_module(&m);
            eprintln!("print: {} bytes in {:?}", text.len(), t.elapsed());
        }
        pipeline => {
            let registry = Registry::standard();
            let pm = if rxla_passes::pipeline::named_pipeline_text(pipeline).is_some() {
                PassManager::named(pipeline, &registry)
            } else {
                PassManager::from_text(pipeline, &registry)
            };
            let mut pm = pm.unwrap_or_else(|e| {
                eprintln!("{e}");
                std::process::exit(2)
            });
            pm.add_instrumentation(Box::new(Timing::new(Sink::Stderr)));
            let t = Instant::now();
            match pm.run(&mut m) {
                Ok(_) => eprintln!(
                    "{pipeline}: {:?}, {} instructions after",
                    t.elapsed(),
                    m.instruction_count()
                ),
                Err(e) => eprintln!("{pipeline}: error after {:?}: {e}", t.elapsed()),
            }
        }
    }
}
