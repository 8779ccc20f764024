//! Quick timing of the shared benchmark modules through `run_into` on one
//! thread (ignored by default; `cargo test -p rxla-jit --test integration perf:: --
//! --ignored --nocapture`). The criterion benches are the reference.

use rxla_ir::parse_module;
use rxla_jit::{CompileOptions, compile};
use std::time::Instant;

fn time(name: &str) {
    let path = if name.ends_with(".hlo") {
        name.to_string()
    } else {
        format!(
            "{}/../../../shared/bench/{name}.hlo",
            env!("CARGO_MANIFEST_DIR")
        )
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        println!("{name}: missing {path}");
        return;
    };
    let m = parse_module(&text, &path).expect("parses");
    let t = Instant::now();
    let exe = compile(
        &m,
        &CompileOptions {
            threads: Some(1),
            ..CompileOptions::default()
        },
    )
    .expect("compiles");
    let compile_ms = t.elapsed().as_secs_f64() * 1e3;
    let ins: Vec<Vec<u8>> = exe
        .parameter_shapes()
        .iter()
        .map(|s| {
            (0..s.byte_size().unwrap() / 4)
                .flat_map(|i| (((i % 17) as f32 - 8.0) * 0.125).to_le_bytes())
                .collect()
        })
        .collect();
    let mut outs: Vec<Vec<u8>> = exe
        .result_shape()
        .leaves()
        .iter()
        .map(|l| vec![0u8; l.byte_size().unwrap()])
        .collect();
    let ins: Vec<&[u8]> = ins.iter().map(|v| v.as_slice()).collect();
    let mut ms = Vec::new();
    for _ in 0..8 {
        let mut o: Vec<&mut [u8]> = outs.iter_mut().map(|v| v.as_mut_slice()).collect();
        let t = Instant::now();
        exe.run_into(&ins, &mut o).expect("runs");
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    ms.sort_by(f64::total_cmp);
    println!(
        "{name}: compile {compile_ms:.2} ms, run median {:.3} ms (min {:.3}); kernels {}, fallbacks {:?}",
        ms[4],
        ms[0],
        exe.stats().kernels,
        exe.stats().fallbacks
    );
}

#[test]
#[ignore]
fn bench_modules() {
    if let Ok(f) = std::env::var("RXLA_PERF_FILE") {
        time(&f);
        return;
    }
    for name in [
        "elementwise_4Mi",
        "reduce_sum_axis1_4096",
        "softmax_4096",
        "mlp_784_512_512_10_b256",
        "chain_200_f32_1024",
        "matmul_512",
        "conv_b8_64_56_k3",
    ] {
        time(name);
    }
}

#[test]
#[ignore]
fn dump_asm() {
    let name = std::env::var("MODULE").unwrap_or_else(|_| "softmax_4096".into());
    let path = format!(
        "{}/../../../shared/bench/{name}.hlo",
        env!("CARGO_MANIFEST_DIR")
    );
    let m = parse_module(&std::fs::read_to_string(&path).expect("reads"), &path).expect("parses");
    let exe = compile(
        &m,
        &CompileOptions {
            threads: Some(1),
            keep_asm: true,
            keep_clif: true,
            ..CompileOptions::default()
        },
    )
    .expect("compiles");
    for (k, text) in exe.stats().clif.iter().chain(&exe.stats().asm) {
        println!("; kernel {k}\n{text}");
    }
}
