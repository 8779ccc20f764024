//! The Dot/Conv engine (rxla-gemm): the FMA-peak probe on 1 and 2 threads, sgemm 128..2048 on 1 and 2 threads,
//! sgemm 1024 with the Cranelift and portable micro-kernels, the two benchmark convolutions
//! (/work/shared/bench conv_b8_64_56_k3, conv_stem_224_k7s2), and the MLP 784-512-512-10 batch 256 dots with fused
//! bias+relu. Throughput is reported in elements = flops, so criterion's "elem/s" reads as FLOP/s.
//! `cargo bench -p rxla-benches --bench gemm`; `cargo xtask bench` runs it and writes docs/PERFORMANCE.md.
//! Sample counts and times are small so the whole suite stays within a few minutes.

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use rxla_gemm::workload::{Mlp, SquareConv, bench_convs, data};
use rxla_gemm::{KernelKind, MatMut, MatRef, Options, sgemm};
use std::time::Duration;

/// Short warm-up and measurement: the big cases take tens of milliseconds per iteration.
fn quick(g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, secs: u64) {
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(secs));
}

fn bench_peak(c: &mut Criterion) {
    let mut g = c.benchmark_group("fma_peak");
    quick(&mut g, 2);
    let iters = 1usize << 20;
    for t in [1, 2] {
        let flops = rxla_gemm::peak::fma_burst(1, 1) * (t * iters) as f64;
        g.throughput(Throughput::Elements(flops as u64));
        g.bench_function(format!("{t}thr"), |b| {
            b.iter(|| rxla_gemm::peak::fma_burst(t, iters))
        });
    }
    g.finish();
}

fn sgemm_with(n: usize, a: &[f32], b: &[f32], out: &mut [f32], o: &Options) {
    sgemm(
        1.0,
        MatRef::row_major(a, n, n).unwrap(),
        MatRef::row_major(b, n, n).unwrap(),
        0.0,
        MatMut::row_major(out, n, n).unwrap(),
        None,
        o,
    )
    .unwrap()
}

/// sgemm 1024 with the other micro-kernels (one thread), where this host supports them.
fn bench_kernels(c: &mut Criterion) {
    let mut g = c.benchmark_group("sgemm_kernel");
    quick(&mut g, 3);
    let n = 1024;
    let (a, b) = (data(n * n), data(n * n));
    let mut out = vec![0f32; n * n];
    g.throughput(Throughput::Elements(2 * (n * n * n) as u64));
    for (name, kind) in [
        ("cranelift", KernelKind::Cranelift),
        ("portable", KernelKind::Portable),
    ] {
        if !kind.available() {
            eprintln!("note: the {name} micro-kernel is not available on this host");
            continue;
        }
        let o = Options {
            kernel: kind,
            ..Options::with_threads(1)
        };
        g.bench_with_input(BenchmarkId::new(name, n), &n, |bch, &n| {
            bch.iter(|| sgemm_with(n, &a, &b, &mut out, &o))
        });
    }
    g.finish();
}

fn bench_sgemm(c: &mut Criterion) {
    let mut g = c.benchmark_group("sgemm");
    for n in [128usize, 256, 512, 1024, 2048] {
        quick(&mut g, if n >= 1024 { 4 } else { 2 });
        let (a, b) = (data(n * n), data(n * n));
        let mut out = vec![0f32; n * n];
        g.throughput(Throughput::Elements(2 * (n * n * n) as u64));
        for t in [1, 2] {
            let o = Options::with_threads(t);
            g.bench_with_input(BenchmarkId::new(format!("{t}thr"), n), &n, |bch, &n| {
                bch.iter(|| sgemm_with(n, &a, &b, &mut out, &o))
            });
        }
    }
    g.finish();
}

fn bench_conv(c: &mut Criterion) {
    let mut g = c.benchmark_group("conv");
    quick(&mut g, 3);
    for (
        name,
        SquareConv {
            plan,
            extents: ext,
            flops,
        },
    ) in bench_convs().expect("valid convolutions")
    {
        let (x, w) = (data(ext[0]), data(ext[1]));
        let mut y = vec![0f32; ext[2]];
        g.throughput(Throughput::Elements(flops));
        for t in [1, 2] {
            let o = Options::with_threads(t);
            g.bench_function(BenchmarkId::new(format!("{t}thr"), name), |b| {
                b.iter(|| plan.run_f32(&x, &w, &mut y, None, &o).unwrap())
            });
        }
    }
    g.finish();
}

fn bench_mlp(c: &mut Criterion) {
    let mut g = c.benchmark_group("mlp");
    quick(&mut g, 2);
    let mut mlp = Mlp::new();
    g.throughput(Throughput::Elements(Mlp::FLOPS));
    for t in [1, 2] {
        let o = Options::with_threads(t);
        g.bench_function(
            BenchmarkId::new(format!("{t}thr"), "784_512_512_10_b256"),
            |b| b.iter(|| mlp.run(&o).unwrap()),
        );
    }
    g.finish();
}

criterion_group!(
    benches,
    bench_peak,
    bench_sgemm,
    bench_kernels,
    bench_conv,
    bench_mlp
);
criterion_main!(benches);
