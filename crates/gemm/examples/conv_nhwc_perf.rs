//! NHWC (`b01f_01io->b01f`) convolution figures, one thread: the ResNet bottleneck's 1x1 and 3x3 convolutions and
//! the 1x1 8x28x28x512->128 benchmark, plus the NCHW 3x3 for comparison. Best wall time and GFLOP/s per case:
//! `cargo run --release -p rxla-gemm --example conv_nhwc_perf` (env CONV_MS: milliseconds per case, default 1500; CONV_ONLY: run the cases whose name contains it;
//! GEMM_MC/GEMM_KC/GEMM_NC: the blocking).

use rxla_gemm::{ConvPlan, Options, TensorLayout};
use rxla_ir::{ConvDims, Window, WindowDim};
use std::time::{Duration, Instant};

fn data(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7919) % 1000) as f32 * 1e-3 - 0.5)
        .collect()
}

#[allow(clippy::too_many_arguments)]
/// A square convolution `b x hw x hw x c -> o` with a `k x k` window (NHWC/HWIO, or NCHW/OIHW).
fn plan(
    b: usize,
    hw: usize,
    c: usize,
    o: usize,
    k: usize,
    s: i64,
    pad: i64,
    nhwc: bool,
) -> (ConvPlan, [usize; 3], f64) {
    let wd = WindowDim {
        stride: s,
        pad_low: pad,
        pad_high: pad,
        ..WindowDim::new(k as i64)
    };
    let out = ((hw as i64 + 2 * pad - k as i64) / s + 1) as usize;
    let (li, lk, lo, dims) = if nhwc {
        (
            TensorLayout::row_major(&[b, hw, hw, c]),
            TensorLayout::row_major(&[k, k, c, o]),
            TensorLayout::row_major(&[b, out, out, o]),
            ConvDims {
                input_batch: 0,
                input_feature: 3,
                input_spatial: vec![1, 2],
                kernel_input_feature: 2,
                kernel_output_feature: 3,
                kernel_spatial: vec![0, 1],
                output_batch: 0,
                output_feature: 3,
                output_spatial: vec![1, 2],
            },
        )
    } else {
        (
            TensorLayout::row_major(&[b, c, hw, hw]),
            TensorLayout::row_major(&[o, c, k, k]),
            TensorLayout::row_major(&[b, o, out, out]),
            ConvDims::nchw(2),
        )
    };
    let p = ConvPlan::new(
        &li,
        &lk,
        &lo,
        &Window {
            dims: vec![wd.clone(), wd],
        },
        &dims,
        1,
        1,
    )
    .unwrap();
    let flops = 2.0 * (b * o * out * out * c * k * k) as f64;
    (p, [li.count(), lk.count(), lo.count()], flops)
}

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
            plan(8, 28, 512, 128, 1, 1, 0, true),
        ),
        (
            "nhwc 3x3 4x56x56 64->64",
            plan(4, 56, 64, 64, 3, 1, 1, true),
        ),
        (
            "nhwc 1x1 4x56x56 256->64",
            plan(4, 56, 256, 64, 1, 1, 0, true),
        ),
        (
            "nhwc 1x1 4x56x56 64->256",
            plan(4, 56, 64, 256, 1, 1, 0, true),
        ),
        (
            "nhwc 3x3 s2 4x56x56 64->64",
            plan(4, 56, 64, 64, 3, 2, 1, true),
        ),
        (
            "nchw 3x3 4x56x56 64->64",
            plan(4, 56, 64, 64, 3, 1, 1, false),
        ),
        (
            "nchw 1x1 8x28x28 512->128",
            plan(8, 28, 512, 128, 1, 1, 0, false),
        ),
    ];
    let only = std::env::var("CONV_ONLY").unwrap_or_default();
    for (name, (p, ext, flops)) in cases {
        if !name.contains(&only) {
            continue;
        }
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
