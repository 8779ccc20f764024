//! Hostile sizes (issue 20): O1, O2 and each pass alone on a straight-line
//! elementwise chain, a deep call chain (`inline`) and a wide module, at
//! 1e4 and 1e5 instructions, plus the verifier and the printer. O2 on a
//! 1e6 chain runs only with `BIG_MODULES_1E6=1` (about 15 s per sample).
//! The modules come from `rxla_passes::testing::big`. Measures; never
//! asserts on time.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use rxla_ir::Module;
use rxla_passes::testing::big;
use rxla_passes::{PassManager, Registry};

fn manager(pipeline: &str) -> PassManager {
    let registry = Registry::standard();
    if rxla_passes::pipeline::named_pipeline_text(pipeline).is_some() {
        PassManager::named(pipeline, &registry)
    } else {
        PassManager::from_text(pipeline, &registry)
    }
    .expect("pipeline")
}

fn bench_pipeline(c: &mut Criterion, group: &str, name: &str, module: &Module, pipeline: &str) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    g.bench_function(name, |b| {
        b.iter_batched(
            || module.clone(),
            |mut m| manager(pipeline).run(&mut m).expect("runs"),
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn bench_big(c: &mut Criterion) {
    for n in [10_000usize, 100_000] {
        let chain = big::chain(n);
        let calls = big::call_chain(n / 3);
        let wide = big::wide(n);
        let tag = if n == 10_000 { "1e4" } else { "1e5" };
        for p in ["O1", "O2"] {
            bench_pipeline(c, p, &format!("chain_{tag}"), &chain, p);
            bench_pipeline(c, p, &format!("wide_{tag}"), &wide, p);
            bench_pipeline(c, p, &format!("calls_{tag}"), &calls, p);
        }
        for pass in [
            "tuple-simplify",
            "dce",
            "cse",
            "constant-folding",
            "simplify",
            "fusion",
        ] {
            bench_pipeline(c, pass, &format!("chain_{tag}"), &chain, pass);
            bench_pipeline(c, pass, &format!("wide_{tag}"), &wide, pass);
        }
        bench_pipeline(c, "inline", &format!("calls_{tag}"), &calls, "inline");
        let mut g = c.benchmark_group("ir");
        g.sample_size(10);
        g.bench_function(format!("verify_chain_{tag}"), |b| {
            b.iter(|| rxla_ir::verify_module(&chain).expect("verifies"))
        });
        g.bench_function(format!("print_chain_{tag}"), |b| {
            b.iter(|| rxla_ir::print_module(&chain).len())
        });
        g.finish();
    }
    if std::env::var_os("BIG_MODULES_1E6").is_some() {
        let chain = big::chain(1_000_000);
        bench_pipeline(c, "O2", "chain_1e6", &chain, "O2");
    }
}

criterion_group!(benches, bench_big);
criterion_main!(benches);
