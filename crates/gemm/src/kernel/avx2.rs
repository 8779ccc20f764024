//! The 6x16 AVX2+FMA micro-kernel: 12 YMM accumulators (6 rows x 2 vectors of 8), two B vectors and one
//! broadcast A value per step, k unrolled by 4 (`k_loop!`, shared with the 4-row edge variant, as is
//! `store_rows`). Only compiled to real code on x86_64; it must only be called after `available()` returned
//! true (the dispatcher in `kernel/mod.rs` guarantees this).

pub(crate) const MR: usize = 6;
pub(crate) const NR: usize = 16;

#[cfg(target_arch = "x86_64")]
pub(crate) fn available() -> bool {
    std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
}

#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn available() -> bool {
    false
}

/// See `KernelFn`.
///
/// # Safety
/// As for the portable kernel, and the host must support avx2 and fma.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn kernel(
    k: usize,
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    rsc: isize,
    csc: isize,
    alpha: f32,
    beta: f32,
) {
    // SAFETY: forwarded contract; features checked by the dispatcher.
    unsafe { kernel_avx2(k, a, b, c, rsc, csc, alpha, beta) }
}

/// The edge variant for tiles of at most 4 rows (M = 64 = 10·6 + 4): the
/// same packed A panel (stride `MR`, its first 4 rows used), 8 accumulators,
/// 4 rows of C written. Saves computing the panel's 2 padding rows and the
/// tile-buffer copy of the last row tile.
///
/// # Safety
/// As for `kernel`, with C holding 4 rows.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn kernel4(
    k: usize,
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    rsc: isize,
    csc: isize,
    alpha: f32,
    beta: f32,
) {
    // SAFETY: forwarded contract; features checked by the dispatcher.
    unsafe { kernel4_avx2(k, a, b, c, rsc, csc, alpha, beta) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn kernel4_avx2(
    k: usize,
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    rsc: isize,
    csc: isize,
    alpha: f32,
    beta: f32,
) {
    use std::arch::x86_64::*;
    // SAFETY (whole body): panel and tile bounds are the caller's contract.
    unsafe {
        let z = _mm256_setzero_ps();
        let (mut c00, mut c01, mut c10, mut c11) = (z, z, z, z);
        let (mut c20, mut c21, mut c30, mut c31) = (z, z, z, z);
        k_loop!(
            k,
            a,
            b,
            (0, c00, c01),
            (1, c10, c11),
            (2, c20, c21),
            (3, c30, c31)
        );
        let rows = [(c00, c01), (c10, c11), (c20, c21), (c30, c31)];
        store_rows(&rows, c, rsc, csc, alpha, beta);
    }
}

/// Never selected off x86_64 (`available()` is false); a scalar body keeps it correct anyway.
#[cfg(not(target_arch = "x86_64"))]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn kernel(
    k: usize,
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    rsc: isize,
    csc: isize,
    alpha: f32,
    beta: f32,
) {
    for i in 0..MR {
        for j in 0..NR {
            let mut acc = 0f32;
            for p in 0..k {
                // SAFETY: caller's contract.
                acc += unsafe { *a.add(p * MR + i) * *b.add(p * NR + j) };
            }
            // SAFETY: caller's contract.
            unsafe {
                let q = c.offset(i as isize * rsc + j as isize * csc);
                *q = if beta == 0.0 {
                    alpha * acc
                } else {
                    alpha * acc + beta * *q
                };
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn kernel_avx2(
    k: usize,
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    rsc: isize,
    csc: isize,
    alpha: f32,
    beta: f32,
) {
    use std::arch::x86_64::*;
    // SAFETY (whole body): panel and tile bounds are the caller's contract.
    unsafe {
        let z = _mm256_setzero_ps();
        let (mut c00, mut c01, mut c10, mut c11, mut c20, mut c21) = (z, z, z, z, z, z);
        let (mut c30, mut c31, mut c40, mut c41, mut c50, mut c51) = (z, z, z, z, z, z);
        k_loop!(
            k,
            a,
            b,
            (0, c00, c01),
            (1, c10, c11),
            (2, c20, c21),
            (3, c30, c31),
            (4, c40, c41),
            (5, c50, c51)
        );
        let rows = [
            (c00, c01),
            (c10, c11),
            (c20, c21),
            (c30, c31),
            (c40, c41),
            (c50, c51),
        ];
        store_rows(&rows, c, rsc, csc, alpha, beta);
    }
}

/// The k loop of a micro-kernel over the listed `(row, lo, hi)`
/// accumulators: per k step two B vectors and one broadcast A value per
/// row (A panels have `MR` values per step, B panels `NR`), unrolled by 4.
#[cfg(target_arch = "x86_64")]
macro_rules! k_loop {
    ($k:expr, $a:expr, $b:expr, $(($row:expr, $lo:ident, $hi:ident)),+) => {{
        let (mut a, mut b, mut left) = ($a, $b, $k);
        macro_rules! step {
            ($off:expr) => {{
                let b0 = _mm256_loadu_ps(b.add($off * NR));
                let b1 = _mm256_loadu_ps(b.add($off * NR + 8));
                let ap = a.add($off * MR);
                $(
                    let x = _mm256_broadcast_ss(&*ap.add($row));
                    $lo = _mm256_fmadd_ps(x, b0, $lo);
                    $hi = _mm256_fmadd_ps(x, b1, $hi);
                )+
            }};
        }
        while left >= 4 {
            _mm_prefetch::<_MM_HINT_T0>(b.add(16 * NR) as *const i8);
            step!(0);
            step!(1);
            step!(2);
            step!(3);
            a = a.add(4 * MR);
            b = b.add(4 * NR);
            left -= 4;
        }
        while left > 0 {
            step!(0);
            a = a.add(MR);
            b = b.add(NR);
            left -= 1;
        }
    }};
}
#[cfg(target_arch = "x86_64")]
use k_loop;

/// Writes the accumulated rows: `C = alpha·acc + beta·C` (C not read when
/// beta is 0), vector stores for unit column stride, else per element.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn store_rows(
    rows: &[(std::arch::x86_64::__m256, std::arch::x86_64::__m256)],
    c: *mut f32,
    rsc: isize,
    csc: isize,
    alpha: f32,
    beta: f32,
) {
    use std::arch::x86_64::*;
    let va = _mm256_set1_ps(alpha);
    let vb = _mm256_set1_ps(beta);
    // SAFETY (whole body): the tile's rows are the caller's contract.
    unsafe {
        for (i, &(lo, hi)) in rows.iter().enumerate() {
            if csc == 1 {
                let p = c.offset(i as isize * rsc);
                if beta == 0.0 {
                    _mm256_storeu_ps(p, _mm256_mul_ps(va, lo));
                    _mm256_storeu_ps(p.add(8), _mm256_mul_ps(va, hi));
                } else {
                    let o0 = _mm256_mul_ps(vb, _mm256_loadu_ps(p));
                    let o1 = _mm256_mul_ps(vb, _mm256_loadu_ps(p.add(8)));
                    _mm256_storeu_ps(p, _mm256_fmadd_ps(va, lo, o0));
                    _mm256_storeu_ps(p.add(8), _mm256_fmadd_ps(va, hi, o1));
                }
            } else {
                let mut t = [0f32; NR];
                _mm256_storeu_ps(t.as_mut_ptr(), _mm256_mul_ps(va, lo));
                _mm256_storeu_ps(t.as_mut_ptr().add(8), _mm256_mul_ps(va, hi));
                for (j, &v) in t.iter().enumerate() {
                    let p = c.offset(i as isize * rsc + j as isize * csc);
                    *p = if beta == 0.0 { v } else { v + beta * *p };
                }
            }
        }
    }
}
