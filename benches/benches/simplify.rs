//! `simplify` speed: a generated 2,000-instruction module (transpose and
//! reshape pairs, identities, involutions, ReshapeMover patterns) and the
//! corpus MLP after `inline`. Prints the e-graph size and stop reason once
//! per workload.

use criterion::{Criterion, criterion_group, criterion_main};
use rxla_ir::{Module, parse_module};
use rxla_passes::simplify::Simplify;
use rxla_passes::{Pass, PassContext, PassManager, Registry};

/// A chain of about `n` instructions with a little of every family.
fn generated(n: usize) -> String {
    let mut s = String::from(
        "HloModule big\nENTRY main {\n  p0 = f32[8,16] parameter(0)\n  p1 = f32[8,16] parameter(1)\n  nz = f32[] constant(-0)\n  bnz = f32[8,16] broadcast(nz), dimensions={}\n",
    );
    let mut prev = "p0".to_string();
    let mut i = 0;
    while i < n {
        let k = i % 6;
        let line = match k {
            0 => format!(
                "  v{i} = f32[16,8] transpose({prev}), dimensions={{1,0}}\n  w{i} = f32[8,16] transpose(v{i}), dimensions={{1,0}}\n"
            ),
            1 => format!("  v{i} = f32[128] reshape({prev})\n  w{i} = f32[8,16] reshape(v{i})\n"),
            2 => format!(
                "  v{i} = f32[8,16] add({prev}, bnz)\n  w{i} = f32[8,16] multiply(v{i}, p1)\n"
            ),
            3 => format!("  v{i} = f32[8,16] negate({prev})\n  w{i} = f32[8,16] negate(v{i})\n"),
            4 => format!(
                "  v{i} = f32[8,16] maximum({prev}, p1)\n  w{i} = f32[8,16] subtract(v{i}, p0)\n"
            ),
            _ => format!(
                "  v{i} = f32[16,8] transpose({prev}), dimensions={{1,0}}\n  u{i} = f32[16,8] transpose(p1), dimensions={{1,0}}\n  x{i} = f32[16,8] add(v{i}, u{i})\n  w{i} = f32[8,16] transpose(x{i}), dimensions={{1,0}}\n"
            ),
        };
        s.push_str(&line);
        prev = format!("w{i}");
        i += if k == 5 { 4 } else { 2 };
    }
    s.push_str(&format!("  ROOT r = f32[8,16] copy({prev})\n}}\n"));
    s
}

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
    let big = parse_module(&generated(2000), "big").expect("parses");
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
