//! NHWC (`b01f_01io->b01f`) convolution figures, one thread: the ResNet bottleneck's 1x1 and 3x3 convolutions and
//! the 1x1 8x28x28x512->128 benchmark, plus the NCHW 3x3 for comparison. Best wall time and GFLOP/s per case:
//! `cargo run --release -p rxla-gemm --example conv_nhwc_perf` (env CONV_MS: milliseconds per case, default 1500; CONV_ONLY: run the cases whose name contains it;
//! GEMM_MC/GEMM_KC/GEMM_NC: the blocking).

use rxla_gemm::Options;
use rxla_gemm::workload::{SquareConv, data, square_conv};
use std::time::{Duration, Instant};

fn main() {
    let ms: u64 = std::env::var("CONV_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500);
    let mut o = Options::with_threads(1);
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<usize>().ok());
    if let (Some(mc), Some(kc), Some(nc)) = (env("GEMM_MC"), env("GEMM_KC"), env("GEMM_NC")) {
        o.blocking = Some(rxla_gemm::Blocking::new(o.kernel, mc, kc, nc));
    }
    println!("kernel {}", o.kernel.name());
    let cases = [
        (
            "nhwc 1x1 8x28x28 512->128",
            square_conv(8, 28, 512, 128, 1, 1, 0, true),
        ),
        (
            "nhwc 3x3 4x56x56 64->64",
            square_conv(4, 56, 64, 64, 3, 1, 1, true),
        ),
        (
            "nhwc 1x1 4x56x56 256->64",
            square_conv(4, 56, 256, 64, 1, 1, 0, true),
        ),
        (
            "nhwc 1x1 4x56x56 64->256",
            square_conv(4, 56, 64, 256, 1, 1, 0, true),
        ),
        (
            "nhwc 3x3 s2 4x56x56 64->64",
            square_conv(4, 56, 64, 64, 3, 2, 1, true),
        ),
        (
            "nchw 3x3 4x56x56 64->64",
            square_conv(4, 56, 64, 64, 3, 1, 1, false),
        ),
        (
            "nchw 1x1 8x28x28 512->128",
            square_conv(8, 28, 512, 128, 1, 1, 0, false),
        ),
    ];
    let only = std::env::var("CONV_ONLY").unwrap_or_default();
    for (name, conv) in cases {
        if !name.contains(&only) {
            continue;
        }
        let SquareConv {
            plan: p,
            extents: ext,
            flops,
        } = conv.unwrap();
        let flops = flops as f64;
        let (x, w) = (data(ext[0]), data(ext[1]));
        let mut y = vec![0f32; ext[2]];
        let mut run = || p.run_f32(&x, &w, &mut y, None, &o).unwrap();
        run();
        let (start, mut times) = (Instant::now(), Vec::new());
        while times.len() < 5 || start.elapsed() < Duration::from_millis(ms) {
            let t = Instant::now();
            run();
            times.push(t.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        let (best, med) = (times[0], times[times.len() / 2]);
        println!(
            "{name:<28} best {:>8.3} ms {:>6.1} GFLOP/s | median {:>8.3} ms {:>6.1} GFLOP/s",
            best * 1e3,
            flops / best / 1e9,
            med * 1e3,
            flops / med / 1e9
        );
    }
}
