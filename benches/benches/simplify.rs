//! `simplify` speed: a generated 2,000-instruction module (transpose and
//! reshape pairs, identities, involutions, ReshapeMover patterns) and the
//! corpus MLP after `inline`. Prints the e-graph size and stop reason once
//! per workload.

use criterion::{Criterion, criterion_group, criterion_main};
use rxla_ir::{Module, parse_module};
use rxla_passes::simplify::Simplify;
use rxla_passes::{Pass, PassContext, PassManager, Registry};

fn mlp() -> Module {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/mlp.hlo");
    let text = std::fs::read_to_string(path).expect("tests/corpus/mlp.hlo");
    let mut m = parse_module(&text, "mlp.hlo").expect("parses");
    PassManager::from_text("inline", &Registry::standard())
        .expect("pipeline")
        .run(&mut m)
        .expect("inline");
    m
}

fn report(name: &str, m: &Module) {
    let mut copy = m.clone();
    let mut ctx = PassContext::new();
    let start = std::time::Instant::now();
    Simplify::default().run(&mut copy, &mut ctx).expect("runs");
    let stats: Vec<_> = ctx
        .take_stats()
        .into_iter()
        .filter(|(k, _)| !k.starts_with("rule "))
        .collect();
    eprintln!(
        "{name}: {} → {} instructions in {:?}; {stats:?}",
        m.instruction_count(),
        copy.instruction_count(),
        start.elapsed()
    );
}

fn bench_simplify(c: &mut Criterion) {
    let big = parse_module(&rxla_testkit::simplify_chain(2000), "big").expect("parses");
    let mlp = mlp();
    report("generated", &big);
    report("mlp", &mlp);
    let mut g = c.benchmark_group("simplify");
    g.sample_size(10);
    g.bench_function("generated_2000", |b| {
        b.iter(|| {
            let mut m = big.clone();
            Simplify::default()
                .run(&mut m, &mut PassContext::new())
                .expect("runs")
        })
    });
    g.bench_function("corpus_mlp", |b| {
        b.iter(|| {
            let mut m = mlp.clone();
            Simplify::default()
                .run(&mut m, &mut PassContext::new())
                .expect("runs")
        })
    });
    g.finish();
}

criterion_group!(benches, bench_simplify);
criterion_main!(benches);
