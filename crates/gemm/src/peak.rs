//! The FMA-peak probe: a loop of independent fused multiply-adds (12 vector accumulators of the widest vectors the
//! host has, no memory traffic) timed
//! on 1..n threads, so the fraction of peak in docs/PERFORMANCE.md is measured on the machine, not assumed.
//! Used by benches and the perf example only; must not be called on hot paths (it burns CPU for the given time).

use rayon::prelude::*;
use std::time::{Duration, Instant};

/// On-CPU seconds of the calling thread (utime + stime from /proc/thread-self/stat, 10 ms ticks; 0 where
/// unavailable). Lets measurements on a shared machine leave out the time other processes held the core.
pub fn thread_cpu_secs() -> f64 {
    std::fs::read_to_string("/proc/thread-self/stat")
        .ok()
        .and_then(|s| {
            let rest: Vec<&str> = s.rsplit_once(')')?.1.split_whitespace().collect();
            let u = rest.get(11)?.parse::<f64>().ok()?;
            let k = rest.get(12)?.parse::<f64>().ok()?;
            Some((u + k) / 100.0)
        })
        .unwrap_or(0.0)
}

/// Single-precision GFLOP/s of one thread running FMAs for about `dur` (AVX-512 when available, else AVX2+FMA,
/// else the portable multiply-add loop). Divides by the thread's on-CPU time when at least 0.3 s of it was measured, else by the
/// wall-clock time.
pub fn fma_peak_gflops(dur: Duration) -> f64 {
    let (start, c0) = (Instant::now(), thread_cpu_secs());
    let mut flops = 0f64;
    let mut sink = 0f32;
    while start.elapsed() < dur {
        let (f, s) = burst(1 << 20);
        flops += f;
        sink += s;
    }
    std::hint::black_box(sink);
    let cpu = thread_cpu_secs() - c0;
    let secs = if cpu >= 0.3 {
        cpu
    } else {
        start.elapsed().as_secs_f64()
    };
    flops / secs / 1e9
}

/// Total GFLOP/s of `threads` threads each running the probe for `dur`.
pub fn fma_peak_gflops_threads(threads: usize, dur: Duration) -> f64 {
    (0..threads.max(1))
        .into_par_iter()
        .map(|_| fma_peak_gflops(dur))
        .sum()
}

/// Runs the probe loop for `iters` rounds on each of `threads` threads (rayon; 1 = the calling thread) and returns
/// the floating-point operations done, for benches that time it themselves (criterion). The count depends only on
/// the host (16 lanes with AVX-512F, 8 with AVX2+FMA, else 4), not on timing.
pub fn fma_burst(threads: usize, iters: usize) -> f64 {
    if threads <= 1 {
        let (f, s) = burst(iters);
        std::hint::black_box(s);
        return f;
    }
    (0..threads)
        .into_par_iter()
        .map(|_| {
            let (f, s) = burst(iters);
            std::hint::black_box(s);
            f
        })
        .sum()
}

/// `iters` rounds of 12 independent FMAs on the widest vectors the host has; returns (flops, a value to keep the
/// result alive).
fn burst(iters: usize) -> (f64, f32) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f") {
        // SAFETY: feature checked.
        let s = unsafe { burst_avx512(iters) };
        return ((iters * 12 * 16 * 2) as f64, s);
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
        // SAFETY: features checked.
        let s = unsafe { burst_avx2(iters) };
        return ((iters * 12 * 8 * 2) as f64, s);
    }
    let mut acc = [[1f32; 4]; 12];
    let (x, y) = (
        std::hint::black_box(0.999_999f32),
        std::hint::black_box(1e-7f32),
    );
    for _ in 0..iters {
        for a in acc.iter_mut() {
            for v in a.iter_mut() {
                *v = *v * x + y;
            }
        }
    }
    ((iters * 12 * 4 * 2) as f64, acc.iter().flatten().sum())
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn burst_avx2(iters: usize) -> f32 {
    use std::arch::x86_64::*;
    let x = _mm256_set1_ps(std::hint::black_box(0.999_999));
    let y = _mm256_set1_ps(std::hint::black_box(1e-7));
    let one = _mm256_set1_ps(1.0);
    // Twelve named accumulators so they stay in registers (an array round-trips through memory).
    let (mut a0, mut a1, mut a2, mut a3, mut a4, mut a5) = (one, one, one, one, one, one);
    let (mut a6, mut a7, mut a8, mut a9, mut a10, mut a11) = (one, one, one, one, one, one);
    for _ in 0..iters {
        a0 = _mm256_fmadd_ps(a0, x, y);
        a1 = _mm256_fmadd_ps(a1, x, y);
        a2 = _mm256_fmadd_ps(a2, x, y);
        a3 = _mm256_fmadd_ps(a3, x, y);
        a4 = _mm256_fmadd_ps(a4, x, y);
        a5 = _mm256_fmadd_ps(a5, x, y);
        a6 = _mm256_fmadd_ps(a6, x, y);
        a7 = _mm256_fmadd_ps(a7, x, y);
        a8 = _mm256_fmadd_ps(a8, x, y);
        a9 = _mm256_fmadd_ps(a9, x, y);
        a10 = _mm256_fmadd_ps(a10, x, y);
        a11 = _mm256_fmadd_ps(a11, x, y);
    }
    let mut s = _mm256_setzero_ps();
    for a in [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11] {
        s = _mm256_add_ps(s, a);
    }
    let mut out = [0f32; 8];
    // SAFETY: out holds 8 floats.
    unsafe { _mm256_storeu_ps(out.as_mut_ptr(), s) };
    out.iter().sum()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn burst_avx512(iters: usize) -> f32 {
    use std::arch::x86_64::*;
    let x = _mm512_set1_ps(std::hint::black_box(0.999_999));
    let y = _mm512_set1_ps(std::hint::black_box(1e-7));
    let one = _mm512_set1_ps(1.0);
    // Named accumulators, as in `burst_avx2`.
    let (mut a0, mut a1, mut a2, mut a3, mut a4, mut a5) = (one, one, one, one, one, one);
    let (mut a6, mut a7, mut a8, mut a9, mut a10, mut a11) = (one, one, one, one, one, one);
    for _ in 0..iters {
        a0 = _mm512_fmadd_ps(a0, x, y);
        a1 = _mm512_fmadd_ps(a1, x, y);
        a2 = _mm512_fmadd_ps(a2, x, y);
        a3 = _mm512_fmadd_ps(a3, x, y);
        a4 = _mm512_fmadd_ps(a4, x, y);
        a5 = _mm512_fmadd_ps(a5, x, y);
        a6 = _mm512_fmadd_ps(a6, x, y);
        a7 = _mm512_fmadd_ps(a7, x, y);
        a8 = _mm512_fmadd_ps(a8, x, y);
        a9 = _mm512_fmadd_ps(a9, x, y);
        a10 = _mm512_fmadd_ps(a10, x, y);
        a11 = _mm512_fmadd_ps(a11, x, y);
    }
    let mut s = _mm512_setzero_ps();
    for a in [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11] {
        s = _mm512_add_ps(s, a);
    }
    _mm512_reduce_add_ps(s)
}

/// GFLOP/s of one thread running `kind`'s micro-kernel alone for about `dur`: one `MR x NR` tile over L1-resident
/// packed panels (k = 256), stored with beta = 0. The figure is the best of many short windows (100 calls, tens of
/// microseconds each) so that, on a shared machine, windows in which another process held the core or the clock
/// dipped do not count. The ceiling the packed driver approaches; 0 when the kernel is not available on this host.
pub fn microkernel_gflops(kind: crate::KernelKind, dur: Duration) -> f64 {
    if !kind.available() {
        return 0.0;
    }
    let kernel = kind.kernel();
    let k = 256;
    let (na, nb) = (k * kernel.mr, k * kernel.nr);
    // One buffer, panels aligned to 64 bytes like the driver's packing buffers.
    let mut buf = vec![0f32; na + nb + kernel.mr * kernel.nr + 64];
    let skip = buf.as_ptr().align_offset(64).min(16);
    let (a, rest) = buf[skip..].split_at_mut(na.next_multiple_of(16));
    let (b, c) = rest.split_at_mut(nb.next_multiple_of(16));
    a.iter_mut()
        .enumerate()
        .for_each(|(i, x)| *x = (i % 7) as f32 * 0.01);
    b.iter_mut()
        .enumerate()
        .for_each(|(i, x)| *x = (i % 5) as f32 * 0.01);
    const CALLS: usize = 100;
    let start = Instant::now();
    let mut best = f64::MAX;
    while start.elapsed() < dur {
        let t = Instant::now();
        for _ in 0..CALLS {
            // SAFETY: the panels hold k*MR and k*NR floats; c is an MR x NR row-major tile.
            unsafe {
                (kernel.f)(
                    k,
                    a.as_ptr(),
                    b.as_ptr(),
                    c.as_mut_ptr(),
                    kernel.nr as isize,
                    1,
                    1.0,
                    0.0,
                )
            };
            std::hint::black_box(&mut *c);
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    (2 * k * kernel.mr * kernel.nr * CALLS) as f64 / best / 1e9
}
