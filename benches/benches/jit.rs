//! JIT figures of issue 8, on the shared benchmark modules
//! (/work/shared/bench): fused elementwise on 4Mi f32, row sums of
//! 4096², softmax over rows of 4096² (buffers reused: `run_into`), the
//! compile time (fusion + codegen) of the 3-layer MLP and of a 200-op
//! elementwise chain, and the cost of one scalar-add call. One thread.
//! Run benches report throughput in bytes (parameters + result), so
//! criterion's rate is the memory bandwidth the issue compares.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rxla_ir::{Module, parse_module};
use rxla_jit::{CompileOptions, Executable, compile};
use std::time::Duration;

fn load(name: &str) -> Module {
    let path = format!(
        "{}/../../shared/bench/{name}.hlo",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    parse_module(&text, &path).expect("parses")
}

fn one_thread() -> CompileOptions {
    CompileOptions {
        threads: Some(1),
        ..CompileOptions::default()
    }
}

/// Input buffers (small deterministic values) and output buffers.
fn buffers(exe: &Executable) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let ins = exe
        .parameter_shapes()
        .iter()
        .flat_map(|s| {
            s.leaves()
                .into_iter()
                .map(|l| l.byte_size().unwrap_or(0))
                .collect::<Vec<_>>()
        })
        .map(|n| {
            (0..n / 4)
                .flat_map(|i| (((i % 17) as f32 - 8.0) * 0.125).to_le_bytes())
                .collect()
        })
        .collect();
    let outs = exe
        .result_shape()
        .leaves()
        .iter()
        .map(|l| vec![0u8; l.byte_size().unwrap_or(0)])
        .collect();
    (ins, outs)
}

fn bench_run(c: &mut Criterion, name: &str) {
    let exe = compile(&load(name), &one_thread()).expect("compiles");
    let (ins, mut outs) = buffers(&exe);
    let ins: Vec<&[u8]> = ins.iter().map(|v| v.as_slice()).collect();
    let bytes: usize =
        ins.iter().map(|v| v.len()).sum::<usize>() + outs.iter().map(Vec::len).sum::<usize>();
    let mut g = c.benchmark_group("jit");
    g.sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Bytes(bytes as u64));
    g.bench_function(name, |b| {
        b.iter(|| {
            let mut o: Vec<&mut [u8]> = outs.iter_mut().map(|v| v.as_mut_slice()).collect();
            exe.run_into(&ins, &mut o).expect("runs")
        })
    });
    g.finish();
}

fn bench_kernels(c: &mut Criterion) {
    for name in ["elementwise_4Mi", "reduce_sum_axis1_4096", "softmax_4096"] {
        bench_run(c, name);
    }
}

fn bench_compile(c: &mut Criterion) {
    let mut g = c.benchmark_group("jit_compile");
    g.sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for name in ["mlp_784_512_512_10_b256", "chain_200_f32_1024"] {
        let m = load(name);
        g.bench_function(name, |b| {
            b.iter(|| compile(&m, &one_thread()).expect("compiles"))
        });
    }
    g.finish();
}

fn bench_call(c: &mut Criterion) {
    let m = parse_module(
        "HloModule add\nENTRY e {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] add(a, b)\n}\n",
        "add",
    )
    .expect("parses");
    let exe = compile(&m, &one_thread()).expect("compiles");
    let (a, b) = (1.5f32.to_le_bytes(), 2.0f32.to_le_bytes());
    let mut out = [0u8; 4];
    let mut g = c.benchmark_group("jit");
    g.warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2));
    g.bench_function("scalar_add_call", |bch| {
        bch.iter(|| exe.run_into(&[&a, &b], &mut [&mut out[..]]).expect("runs"))
    });
    g.finish();
}

criterion_group!(benches, bench_kernels, bench_compile, bench_call);
criterion_main!(benches);
