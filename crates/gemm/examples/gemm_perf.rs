//! Quick release-mode figures (GFLOP/s and fraction of the measured FMA peak) for sgemm, the two benchmark
//! convolutions and the MLP dots: `cargo run --release -p rxla-gemm --example gemm_perf [threads...]`.
//! Best of several runs (env GEMM_MC/GEMM_KC/GEMM_NC override the blocking, GEMM_KERNEL=avx512|avx2|portable|cranelift the
//! micro-kernel (default: `RXLA_ISA` or the host's best), GEMM_SIZES=512,1024 the sgemm sizes, GEMM_SGEMM_ONLY=1 skips conv and MLP,
//! GEMM_KERNELS_ONLY=1 stops after the micro-kernel figures, GEMM_TRANSPOSED=1 runs only the transposed-operand cases:
//! sgemm with B or A column-major and the attention dots 12 x (256x64)·(256x64)ᵀ and 12 x (256x256)·(256x64)); the
//! GEMM_MIXED=1 only the f16/bf16 dots: `run_mixed_raw` against widening with `half` + `run_f32` + rounding, as the JIT
//! did), GEMM_SHAPES=256x768x3072,... only row-major products of those M x K x N shapes; the machine is shared,
//! so numbers are noisy.

use rxla_gemm::workload::{Mlp, SquareConv, bench_convs, data};
use rxla_gemm::{DotPlan, ElemKind};
use rxla_gemm::{KernelKind, MatMut, MatRef, Options, TensorLayout, sgemm};
use rxla_ir::DotDims;
use std::time::{Duration, Instant};

/// Seconds per run as `(on-CPU, best wall)`: the calling thread's on-CPU time per run averaged over at least
/// `min_total` (leaves out the time other processes on this shared machine held the core; 0 when under 0.5 s was
/// measured or `cpu` is false), and the best wall-clock run.
fn best_secs(mut f: impl FnMut(), min_total: Duration, cpu: bool) -> (f64, f64) {
    f();
    let mut best_wall = f64::MAX;
    let (start, c0) = (Instant::now(), rxla_gemm::peak::thread_cpu_secs());
    let mut runs = 0;
    while runs < 5 || (start.elapsed() < min_total && runs < 1000) {
        let t = Instant::now();
        f();
        best_wall = best_wall.min(t.elapsed().as_secs_f64());
        runs += 1;
    }
    let cpu_total = rxla_gemm::peak::thread_cpu_secs() - c0;
    let cpu_per_run = if cpu && cpu_total >= 0.5 {
        cpu_total / runs as f64
    } else {
        0.0
    };
    (cpu_per_run, best_wall)
}

/// Prints one line: on-CPU and best-wall time, GFLOP/s and % of the probe peak.
fn report(name: &str, flops: f64, (cpu, wall): (f64, f64), peak: f64) {
    let gf = |s: f64| flops / s / 1e9;
    let cpu_part = if cpu > 0.0 {
        format!(
            "on-CPU {:>9.1} us {:6.1} GFLOP/s {:5.1}%",
            cpu * 1e6,
            gf(cpu),
            100.0 * gf(cpu) / peak
        )
    } else {
        format!("{:>40}", "")
    };
    println!(
        "{name:<24} {cpu_part} | best wall {:>9.1} us {:6.1} GFLOP/s {:5.1}%",
        wall * 1e6,
        gf(wall),
        100.0 * gf(wall) / peak
    );
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let thread_list = if args.is_empty() { vec![1, 2] } else { args };
    let peak1 = rxla_gemm::peak::fma_peak_gflops(Duration::from_millis(2000));
    println!(
        "default kernel {:?}; FMA peak probe: {peak1:.1} GFLOP/s on one thread",
        rxla_gemm::isa_name()
    );
    #[cfg(target_arch = "x86_64")]
    if std::env::var_os("GEMM_EXPLORE").is_some() {
        for (r, c, g) in rxla_gemm::explore_shapes(Duration::from_millis(1000)) {
            println!("avx512 tile {r}x{c}: {g:.1} GFLOP/s");
        }
    }
    for kind in KernelKind::ALL {
        let g = rxla_gemm::peak::microkernel_gflops(kind, Duration::from_millis(1000));
        println!("micro-kernel {kind:?} alone (L1-resident panels, k=256): {g:.1} GFLOP/s");
    }
    if std::env::var_os("GEMM_KERNELS_ONLY").is_some() {
        return;
    }
    for &t in &thread_list {
        let peak = if t == 1 {
            peak1
        } else {
            rxla_gemm::peak::fma_peak_gflops_threads(t, Duration::from_millis(2000))
        };
        println!("\n== {t} thread(s), probe peak {peak:.1} GFLOP/s ==");
        let mut o = Options::with_threads(t);
        let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<usize>().ok());
        if let Ok(name) = std::env::var("GEMM_KERNEL") {
            o.kernel = KernelKind::from_name(&name)
                .expect("GEMM_KERNEL: avx512, avx2, portable or cranelift");
        }
        println!("kernel {}", o.kernel.name());
        if let (Some(mc), Some(kc), Some(nc)) = (env("GEMM_MC"), env("GEMM_KC"), env("GEMM_NC")) {
            o.blocking = Some(rxla_gemm::Blocking::new(o.kernel, mc, kc, nc));
        }
        if std::env::var_os("GEMM_MIXED").is_some() {
            mixed(&o, peak, t == 1);
            continue;
        }
        if let Ok(shapes) = std::env::var("GEMM_SHAPES") {
            shapes_run(&shapes, &o, peak, t == 1);
            continue;
        }
        if std::env::var_os("GEMM_TRANSPOSED").is_some() {
            transposed(&o, peak, t == 1);
            continue;
        }
        let sizes: Vec<usize> = std::env::var("GEMM_SIZES")
            .ok()
            .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
            .unwrap_or_else(|| vec![128, 256, 512, 1024, 2048]);
        for &n in &sizes {
            let a = data(n * n);
            let b = data(n * n);
            let mut c = vec![0f32; n * n];
            let secs = best_secs(
                || {
                    sgemm(
                        1.0,
                        MatRef::row_major(&a, n, n).unwrap(),
                        MatRef::row_major(&b, n, n).unwrap(),
                        0.0,
                        MatMut::row_major(&mut c, n, n).unwrap(),
                        None,
                        &o,
                    )
                    .unwrap()
                },
                Duration::from_millis(if n >= 1024 { 4000 } else { 1500 }),
                t == 1,
            );
            report(&format!("sgemm {n}"), 2.0 * (n * n * n) as f64, secs, peak);
        }
        if std::env::var_os("GEMM_SGEMM_ONLY").is_some() {
            continue;
        }
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
            let secs = best_secs(
                || plan.run_f32(&x, &w, &mut y, None, &o).unwrap(),
                Duration::from_millis(3000),
                t == 1,
            );
            report(name, flops as f64, secs, peak);
        }
        // MLP 784-512-512-10, batch 256, bias + relu fused.
        let mut mlp = Mlp::new();
        let secs = best_secs(|| mlp.run(&o).unwrap(), Duration::from_millis(1000), t == 1);
        report("mlp_784_512_512_10_b256", Mlp::FLOPS as f64, secs, peak);
    }
}

/// GEMM_SHAPES=MxKxN,...: row-major `M x K` by `K x N` products (the shapes of real models' dense layers).
fn shapes_run(shapes: &str, o: &Options, peak: f64, cpu: bool) {
    for sh in shapes.split(',') {
        let d: Vec<usize> = sh
            .split('x')
            .filter_map(|x| x.trim().parse().ok())
            .collect();
        let [m, k, n] = d[..] else {
            panic!("GEMM_SHAPES: {sh} is not MxKxN");
        };
        let (a, b) = (data(m * k), data(k * n));
        let mut c = vec![0f32; m * n];
        let secs = best_secs(
            || {
                sgemm(
                    1.0,
                    MatRef::row_major(&a, m, k).unwrap(),
                    MatRef::row_major(&b, k, n).unwrap(),
                    0.0,
                    MatMut::row_major(&mut c, m, n).unwrap(),
                    None,
                    o,
                )
                .unwrap()
            },
            Duration::from_millis(1500),
            cpu,
        );
        report(
            &format!("sgemm {m}x{k}x{n}"),
            2.0 * (m * k * n) as f64,
            secs,
            peak,
        );
    }
}

/// An `n x n` row-major view of `x`, transposed when `t` (column-major).
fn view(x: &[f32], n: usize, t: bool) -> MatRef<'_> {
    let m = MatRef::row_major(x, n, n).unwrap();
    if t { m.t() } else { m }
}

/// The transposed-operand cases (GEMM_TRANSPOSED=1): sgemm with B (or A) column-major, and the batched attention
/// dots q·kᵀ (`rhs_contracting_dims={2}`: B read column-major) and probs·v.
fn transposed(o: &Options, peak: f64, cpu: bool) {
    for n in [256usize, 512, 1024] {
        let a = data(n * n);
        let b = data(n * n);
        let mut c = vec![0f32; n * n];
        for (name, at, bt) in [
            ("", false, false),
            (" Bt", false, true),
            (" At", true, false),
        ] {
            let secs = best_secs(
                || {
                    sgemm(
                        1.0,
                        view(&a, n, at),
                        view(&b, n, bt),
                        0.0,
                        MatMut::row_major(&mut c, n, n).unwrap(),
                        None,
                        o,
                    )
                    .unwrap()
                },
                Duration::from_millis(1500),
                cpu,
            );
            report(
                &format!("sgemm {n}{name}"),
                2.0 * (n * n * n) as f64,
                secs,
                peak,
            );
        }
    }
    let dot = |ld: &[usize], rd: &[usize], lc: i64, rc: i64| {
        let od = [ld[0], ld[1], if rc == 2 { rd[1] } else { rd[2] }];
        let dims = DotDims {
            lhs_batch: vec![0],
            rhs_batch: vec![0],
            lhs_contracting: vec![lc],
            rhs_contracting: vec![rc],
        };
        let plan = DotPlan::new(
            &TensorLayout::row_major(ld),
            &TensorLayout::row_major(rd),
            &dims,
            &TensorLayout::row_major(&od),
        )
        .unwrap();
        let flops = 2.0 * (plan.batch * plan.m * plan.n * plan.k) as f64;
        (plan, flops)
    };
    for (name, ld, rd, rc) in [
        (
            "attn q.kT 12x256x64",
            [12usize, 256, 64],
            [12usize, 256, 64],
            2i64,
        ),
        ("attn p.v 12x256x256", [12, 256, 256], [12, 256, 64], 1),
    ] {
        let (plan, flops) = dot(&ld, &rd, 2, rc);
        let [el, er, eo] = plan.extents();
        let (x, w) = (data(el), data(er));
        let mut y = vec![0f32; eo];
        let secs = best_secs(
            || plan.run_f32(&x, &w, &mut y, None, o).unwrap(),
            Duration::from_millis(1500),
            cpu,
        );
        report(name, flops, secs, peak);
    }
}

/// f16/bf16 dots (GEMM_MIXED=1): `run_mixed_raw` (conversion inside the packing) against the JIT's former way
/// (widen both operands with `half` into new vectors, `run_f32_raw`, round the result with `half`).
fn mixed(o: &Options, peak: f64, cpu: bool) {
    let cases: [(&str, [usize; 3], [usize; 3], i64); 3] = [
        ("512^3", [1, 512, 512], [1, 512, 512], 1),
        ("attn q.kT 12x256x64", [12, 256, 64], [12, 256, 64], 2),
        ("attn p.v 12x256x256", [12, 256, 256], [12, 256, 64], 1),
    ];
    for (name, ld, rd, rc) in cases {
        let od = [ld[0], ld[1], if rc == 2 { rd[1] } else { rd[2] }];
        let dims = DotDims {
            lhs_batch: vec![0],
            rhs_batch: vec![0],
            lhs_contracting: vec![2],
            rhs_contracting: vec![rc],
        };
        let plan = DotPlan::new(
            &TensorLayout::row_major(&ld),
            &TensorLayout::row_major(&rd),
            &dims,
            &TensorLayout::row_major(&od),
        )
        .unwrap();
        let flops = 2.0 * (plan.batch * plan.m * plan.n * plan.k) as f64;
        let [el, er, eo] = plan.extents();
        for (tname, t) in [("bf16", ElemKind::BF16), ("f16", ElemKind::F16)] {
            let enc = |v: f32| match t {
                ElemKind::F16 => half::f16::from_f32(v).to_bits(),
                _ => half::bf16::from_f32(v).to_bits(),
            };
            let dec = |b: u16| match t {
                ElemKind::F16 => half::f16::from_bits(b).to_f32(),
                _ => half::bf16::from_bits(b).to_f32(),
            };
            let x: Vec<u16> = data(el).into_iter().map(enc).collect();
            let w: Vec<u16> = data(er).into_iter().map(enc).collect();
            let mut y = vec![0u16; eo];
            let secs = best_secs(
                || {
                    let xw: Vec<f32> = x.iter().map(|&b| dec(b)).collect();
                    let ww: Vec<f32> = w.iter().map(|&b| dec(b)).collect();
                    let mut acc = vec![0f32; eo];
                    plan.run_f32(&xw, &ww, &mut acc, None, o).unwrap();
                    for (d, &v) in y.iter_mut().zip(&acc) {
                        *d = enc(v);
                    }
                },
                Duration::from_millis(1500),
                cpu,
            );
            report(&format!("{tname} {name} widen"), flops, secs, peak);
            let secs = best_secs(
                || {
                    // SAFETY: buffers of the plan's extents in their kinds.
                    unsafe {
                        plan.run_mixed_raw(
                            x.as_ptr() as *const u8,
                            t,
                            w.as_ptr() as *const u8,
                            t,
                            y.as_mut_ptr() as *mut u8,
                            t,
                            None,
                            o,
                        )
                    }
                    .unwrap()
                },
                Duration::from_millis(1500),
                cpu,
            );
            report(&format!("{tname} {name} mixed"), flops, secs, peak);
        }
    }
}
