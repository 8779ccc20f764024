//! Evaluator speed: a 1M-element elementwise chain and a 256³ dot, so the
//! oracle's cost is known (no quadratic surprises).

use criterion::{Criterion, criterion_group, criterion_main};
use rxla_ir::{Literal, parse_module};

fn bench_eval(c: &mut Criterion) {
    let n = 1 << 20;
    let m = parse_module(&rxla_benches::elementwise_chain(n, 8), "chain").expect("parses");
    let x = Literal::vec1((0..n).map(|i| (i % 97) as f32 * 0.125).collect::<Vec<_>>());
    let y = Literal::vec1((0..n).map(|i| (i % 13) as f32 * 0.5).collect::<Vec<_>>());
    let opts = rxla_eval::RunOptions::default();
    let mut g = c.benchmark_group("eval");
    g.sample_size(10);
    g.bench_function("elementwise_chain_8x1Mi_f32", |b| {
        b.iter(|| rxla_eval::evaluate(&m, &[x.clone(), y.clone()], &opts).expect("runs"))
    });
    let k = 256;
    let m = parse_module(&rxla_benches::matmul(k), "matmul").expect("parses");
    let a = Literal::from_vec(
        &[k as i64, k as i64],
        (0..k * k).map(|i| (i % 7) as f32).collect(),
    )
    .expect("literal");
    g.bench_function("dot_256_f32", |b| {
        b.iter(|| rxla_eval::evaluate(&m, &[a.clone(), a.clone()], &opts).expect("runs"))
    });
    g.finish();
}

criterion_group!(benches, bench_eval);
criterion_main!(benches);
