//! The AVX-512 micro-kernels: an `MR x 32` register tile (`MR` rows x two ZMM vectors of 16 columns: 2·MR
//! accumulators in the 32 ZMM registers, two B vectors and one broadcast A value per row per k step, k unrolled by
//! 4), and an edge kernel for tiles with fewer rows and/or columns that writes C directly with masked loads and
//! stores (`_mm512_mask_storeu_ps`: lanes past the tile's last column are neither read nor written), so no tile
//! buffer and no padding rows are computed. Written once as `tile::<R, V>` (R rows, V vectors; LLVM keeps the
//! `[[__m512; V]; R]` accumulators in registers after unrolling the constant loops). Only compiled to real code on
//! x86_64; it must only be called after `available()` returned true (the dispatcher in `kernel/mod.rs` guarantees
//! this). Must not read or write outside the packed panels and the tile.

/// Rows of the register tile: 14 x 2 accumulators + 2 B vectors + 1 broadcast = 31 of the 32 ZMM registers
/// (measured against 12x32 and 8x32, see docs/PERFORMANCE.md).
pub(crate) const MR: usize = 14;
/// Columns of the register tile: two ZMM vectors.
pub(crate) const NR: usize = 32;

#[cfg(target_arch = "x86_64")]
pub(crate) fn available() -> bool {
    std::is_x86_feature_detected!("avx512f")
}

#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn available() -> bool {
    false
}

/// The `tile` instantiation for `rows` (1..=MR) rows of `V` vectors, A panel stride `AS`, B panel stride `BS`
/// (0: B read in place), packed or direct A:
/// row counts dispatched to their own instantiation (no padding rows computed).
#[cfg(target_arch = "x86_64")]
macro_rules! by_rows {
    ($rows:expr, $v:literal, $as:expr, $bs:expr, $direct:literal) => {
        match $rows {
            1 => tile::<1, $v, $as, $bs, $direct>,
            2 => tile::<2, $v, $as, $bs, $direct>,
            3 => tile::<3, $v, $as, $bs, $direct>,
            4 => tile::<4, $v, $as, $bs, $direct>,
            5 => tile::<5, $v, $as, $bs, $direct>,
            6 => tile::<6, $v, $as, $bs, $direct>,
            7 => tile::<7, $v, $as, $bs, $direct>,
            8 => tile::<8, $v, $as, $bs, $direct>,
            9 => tile::<9, $v, $as, $bs, $direct>,
            10 => tile::<10, $v, $as, $bs, $direct>,
            11 => tile::<11, $v, $as, $bs, $direct>,
            12 => tile::<12, $v, $as, $bs, $direct>,
            13 => tile::<13, $v, $as, $bs, $direct>,
            _ => tile::<14, $v, $as, $bs, $direct>,
        }
    };
}

/// The instantiation for a `rows x cols` partial tile: one B vector for at most 16 columns, else two.
#[cfg(target_arch = "x86_64")]
macro_rules! by_shape {
    ($rows:expr, $cols:expr, $as:expr, $bs:expr, $direct:literal) => {
        if $cols <= 16 {
            by_rows!($rows, 1, $as, $bs, $direct)
        } else {
            by_rows!($rows, 2, $as, $bs, $direct)
        }
    };
}

/// See `KernelFn`.
///
/// # Safety
/// As for the portable kernel (`a` holds `k * MR` floats, `b` holds `k * NR`, the `MR x NR` tile at `c` with
/// strides `(rsc, csc)` is writable, readable when `beta != 0`), and the host must support avx512f.
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
    unsafe { tile::<MR, 2, MR, NR, false>(k, a, b, c, rsc, csc, alpha, beta, NR, 0, 0) }
}

/// The edge kernel: rows `0..rows` (`1..=MR`) and columns `0..cols` (`1..=NR`) of a tile, C with unit column
/// stride, from the same `MR`/`NR`-strided packed panels. Row counts are dispatched to their own instantiation
/// (no padding rows computed), tiles of at most 16 columns use one B vector.
///
/// # Safety
/// As for `kernel`, with C holding `rows x cols` elements at row stride `rsc` and column stride 1.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn edge(
    k: usize,
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    rsc: isize,
    alpha: f32,
    beta: f32,
    rows: usize,
    cols: usize,
) {
    debug_assert!((1..=MR).contains(&rows) && (1..=NR).contains(&cols));
    let f = by_shape!(rows, cols, MR, NR, false);
    // SAFETY: forwarded contract (rows x cols inside C, unit column stride); features checked by the dispatcher.
    unsafe { f(k, a, b, c, rsc, 1, alpha, beta, cols, 0, 0) }
}

/// The direct kernel: a full `MR x NR` tile with A read in place (row `i` of the tile at `a + i * lda`, its `k`
/// contraction values contiguous) instead of from a packed panel; B packed as usual. For GEMMs whose A would be
/// packed for only a few column panels (few output features: 1x1 convolutions, narrow dense layers), where
/// packing A costs as much as a large share of the multiply-adds.
///
/// # Safety
/// As for `kernel`, with `a + i * lda + p` readable for `i < MR`, `p < k`.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn direct(
    k: usize,
    a: *const f32,
    lda: usize,
    b: *const f32,
    c: *mut f32,
    rsc: isize,
    csc: isize,
    alpha: f32,
    beta: f32,
) {
    // SAFETY: forwarded contract; features checked by the dispatcher.
    unsafe { tile::<MR, 2, 1, NR, true>(k, a, b, c, rsc, csc, alpha, beta, NR, lda, 0) }
}

/// The direct edge kernel: rows `0..rows`, columns `0..cols` of a tile with A read in place (see `direct`), C
/// with unit column stride.
///
/// # Safety
/// As for `edge`, with `a + i * lda + p` readable for `i < rows`, `p < k`.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn direct_edge(
    k: usize,
    a: *const f32,
    lda: usize,
    b: *const f32,
    c: *mut f32,
    rsc: isize,
    alpha: f32,
    beta: f32,
    rows: usize,
    cols: usize,
) {
    debug_assert!((1..=MR).contains(&rows) && (1..=NR).contains(&cols));
    let f = by_shape!(rows, cols, 1, NR, true);
    // SAFETY: forwarded contract (rows x cols inside C, unit column stride); features checked by the dispatcher.
    unsafe { f(k, a, b, c, rsc, 1, alpha, beta, cols, lda, 0) }
}

/// The in-place-B kernel: rows `0..rows`, columns `0..cols` of a tile from a packed A panel and B read where it
/// lies (row `p` of the tile's columns at `b + p * ldb`, columns contiguous; masked loads, so no column past
/// `cols` is read), C with unit column stride. For products with few rows (recurrent steps, small batches),
/// where packing B costs as much as the multiply-adds that reuse it.
///
/// # Safety
/// As for `edge`, with `b + p * ldb + j` readable for `p < k`, `j < cols` instead of a packed B panel.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn direct_b(
    k: usize,
    a: *const f32,
    b: *const f32,
    ldb: usize,
    c: *mut f32,
    rsc: isize,
    alpha: f32,
    beta: f32,
    rows: usize,
    cols: usize,
) {
    debug_assert!((1..=MR).contains(&rows) && (1..=NR).contains(&cols));
    let f = by_shape!(rows, cols, MR, 0, false);
    // SAFETY: forwarded contract (rows x cols inside C, unit column stride; B rows readable for `cols` columns);
    // features checked by the dispatcher.
    unsafe { f(k, a, b, c, rsc, 1, alpha, beta, cols, 0, ldb) }
}

/// `R x 16V` tile from panels of stride `AS` (A) and `BS` (B); columns `cols..16V` are masked off (unit column
/// stride) or, for other column strides, `cols` must be `16V`. `BS == 0`: B is read in place with row stride
/// `ldb` and masked loads (columns `cols..` are not read); C must then have unit column stride.
///
/// # Safety
/// Panels hold `k * AS` / `k * BS` floats (`R <= AS`, `16V <= BS`), or with `BS == 0` B's first `cols` columns
/// are readable at `b + p * ldb` for `p < k`; the tile's `R x cols` elements are inside C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[allow(clippy::too_many_arguments)]
unsafe fn tile<
    const R: usize,
    const V: usize,
    const AS: usize,
    const BS: usize,
    const DIRECT: bool,
>(
    k: usize,
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    rsc: isize,
    csc: isize,
    alpha: f32,
    beta: f32,
    cols: usize,
    lda: usize,
    ldb: usize,
) {
    use std::arch::x86_64::*;
    // SAFETY (whole body): panel and tile bounds are the caller's contract.
    unsafe {
        let mut acc = [[_mm512_setzero_ps(); V]; R];
        // Lane masks of the vectors: columns below `cols` (C's edge; B's too when read in place).
        let mut masks = [0 as __mmask16; V];
        for (v, m) in masks.iter_mut().enumerate() {
            let n = cols.saturating_sub(16 * v).min(16);
            *m = ((1u32 << n) - 1) as __mmask16;
        }
        // B's row stride: the panel's, or B's own when read in place.
        let bs = if BS == 0 { ldb } else { BS };
        // The rows unrolled by hand with constant indices: LLVM does not unroll a 14-iteration loop over the
        // accumulator array and then keeps all of it in memory.
        macro_rules! each_row {
            ($i:ident, $body:block) => {
                each_row!(@ $i, $body, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23)
            };
            (@ $i:ident, $body:block, $($n:literal)*) => {
                $(
                    if $n < R {
                        let $i = $n;
                        $body
                    }
                )*
            };
        }
        if csc == 1 {
            // The C tile is read (beta != 0: every k block after the first) or written at the end: fetch its
            // lines now so the misses overlap the k loop (C is not in L1 after the other tiles ran).
            each_row!(i, {
                let p = c.offset(i as isize * rsc) as *const i8;
                for v in 0..V {
                    _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64 * v));
                }
                _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64 * V - 1));
            });
        }
        let (mut a, mut b, mut left) = (a, b, k);
        macro_rules! step {
            ($off:expr) => {{
                let mut bv = [_mm512_setzero_ps(); V];
                for (v, x) in bv.iter_mut().enumerate() {
                    *x = if BS == 0 {
                        _mm512_maskz_loadu_ps(masks[v], b.add($off * bs + 16 * v))
                    } else {
                        _mm512_loadu_ps(b.add($off * BS + 16 * v))
                    };
                }
                let ap = a.add($off * AS);
                each_row!(i, {
                    // Packed: row i of step k at a[k * AS + i]; direct: A
                    // read in place, row i at a[i * lda + k] (AS = 1).
                    let x = if DIRECT {
                        _mm512_set1_ps(*ap.add(i * lda))
                    } else {
                        _mm512_set1_ps(*ap.add(i))
                    };
                    for (r, &y) in acc[i].iter_mut().zip(&bv) {
                        *r = _mm512_fmadd_ps(x, y, *r);
                    }
                });
            }};
        }
        while left >= 4 {
            _mm_prefetch::<_MM_HINT_T0>(b.wrapping_add(8 * bs) as *const i8);
            if V > 1 {
                _mm_prefetch::<_MM_HINT_T0>(b.wrapping_add(8 * bs + 16) as *const i8);
            }
            step!(0);
            step!(1);
            step!(2);
            step!(3);
            a = a.add(4 * AS);
            b = b.wrapping_add(4 * bs);
            left -= 4;
        }
        while left > 0 {
            step!(0);
            a = a.add(AS);
            b = b.wrapping_add(bs);
            left -= 1;
        }
        let va = _mm512_set1_ps(alpha);
        let vb = _mm512_set1_ps(beta);
        if csc == 1 {
            let full = cols == 16 * V;
            each_row!(i, {
                let p = c.offset(i as isize * rsc);
                for (v, &x) in acc[i].iter().enumerate() {
                    let q = p.add(16 * v);
                    if full {
                        let y = if beta == 0.0 {
                            _mm512_mul_ps(va, x)
                        } else {
                            _mm512_fmadd_ps(va, x, _mm512_mul_ps(vb, _mm512_loadu_ps(q)))
                        };
                        _mm512_storeu_ps(q, y);
                    } else {
                        let m = masks[v];
                        // Masked-off lanes are not accessed (no fault, no write).
                        let y = if beta == 0.0 {
                            _mm512_mul_ps(va, x)
                        } else {
                            _mm512_fmadd_ps(va, x, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(m, q)))
                        };
                        _mm512_mask_storeu_ps(q, m, y);
                    }
                }
            });
        } else {
            each_row!(i, {
                let mut t = [0f32; 64];
                for (v, &x) in acc[i].iter().enumerate() {
                    _mm512_storeu_ps(t.as_mut_ptr().add(16 * v), _mm512_mul_ps(va, x));
                }
                for (j, &x) in t[..16 * V].iter().enumerate() {
                    let q = c.offset(i as isize * rsc + j as isize * csc);
                    *q = if beta == 0.0 { x } else { x + beta * *q };
                }
            });
        }
    }
}

/// Never selected off x86_64 (`available()` is false); delegates to the portable scalar definition of the tile.
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

/// Micro-kernel GFLOP/s of candidate tile shapes (R rows x 16V columns), L1-resident panels, k = 256; used once to
/// pick `MR` (see docs/PERFORMANCE.md). Not on any hot path.
#[cfg(target_arch = "x86_64")]
#[doc(hidden)]
pub fn explore_shapes(dur: std::time::Duration) -> Vec<(usize, usize, f64)> {
    fn one<const R: usize, const V: usize, const BS: usize>(
        dur: std::time::Duration,
    ) -> (usize, usize, f64) {
        let k = 256;
        let a = vec![0.01f32; k * R + 64];
        let b = vec![0.02f32; k * 16 * V + 64];
        let mut c = vec![0f32; R * 16 * V];
        let start = std::time::Instant::now();
        let mut best = f64::MAX;
        while start.elapsed() < dur {
            let t = std::time::Instant::now();
            for _ in 0..100 {
                // SAFETY: panels and tile sized above; avx512f checked by the caller.
                unsafe {
                    tile::<R, V, R, BS, false>(
                        k,
                        a.as_ptr(),
                        b.as_ptr(),
                        c.as_mut_ptr(),
                        (16 * V) as isize,
                        1,
                        1.0,
                        0.0,
                        16 * V,
                        0,
                        0,
                    )
                };
                std::hint::black_box(&mut c);
            }
            best = best.min(t.elapsed().as_secs_f64());
        }
        (R, 16 * V, (2 * k * R * 16 * V * 100) as f64 / best / 1e9)
    }
    if !available() {
        return Vec::new();
    }
    vec![
        one::<14, 2, 32>(dur),
        one::<12, 2, 32>(dur),
        one::<10, 2, 32>(dur),
        one::<8, 2, 32>(dur),
        one::<8, 3, 48>(dur),
        one::<6, 4, 64>(dur),
        one::<4, 4, 64>(dur),
        one::<24, 1, 16>(dur),
    ]
}
