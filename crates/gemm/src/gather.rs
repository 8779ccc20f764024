//! Vectorised row gathers for the convolution's B packing: `dst[i] = src[i * step]` for `lo <= i < hi`, zero for
//! the other `i < len` (`step` 1 or 2; rows longer than 16 in pieces of 16), with AVX2 or AVX-512 masked loads so
//! padding borders cost no scalar loop and no element outside `lo..hi` is ever read. `gather_row` picks the
//! version the caller's `Simd` names (checked once per packing call with `Simd::detect`).
//! Must not read outside the valid columns (masked lanes are never touched).

/// Scalar version; always correct.
///
/// # Safety
/// `src + i*step` is readable for `lo <= i < hi`; `dst` holds `len` floats.
#[inline]
pub(crate) unsafe fn gather_row_scalar(
    dst: &mut [f32],
    src: *const f32,
    step: isize,
    lo: usize,
    hi: usize,
) {
    for (i, x) in dst.iter_mut().enumerate() {
        *x = if i >= lo && i < hi {
            // SAFETY: caller's contract.
            unsafe { *src.wrapping_offset(i as isize * step) }
        } else {
            0.0
        };
    }
}

/// The vector instructions a packing call may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Simd {
    Scalar,
    Avx2,
    Avx512,
}

impl Simd {
    /// The best this host has.
    pub(crate) fn detect() -> Simd {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f") {
                return Simd::Avx512;
            }
            if std::is_x86_feature_detected!("avx2") {
                return Simd::Avx2;
            }
        }
        Simd::Scalar
    }
}

/// Whether the host has AVX2 (the 16-wide plane packings of the AVX2 tier).
pub(crate) fn avx2() -> bool {
    Simd::detect() >= Simd::Avx2
}

/// Whether the host has AVX-512F (the 32-wide plane packings of the AVX-512 tier).
pub(crate) fn avx512() -> bool {
    Simd::detect() >= Simd::Avx512
}

/// `dst[i] = src[i*step]` for `lo <= i < hi`, else 0, for `i < dst.len()`; `simd` from `Simd::detect()`. Rows
/// longer than 16 are done 16 columns at a time. `buf` is the whole source buffer (start, end): where the 16
/// (32) floats from `src` lie inside it, the AVX2 path uses plain loads and clears the invalid lanes (its masked
/// loads are slow on AMD Zen 3); the AVX-512 path uses masked loads (fast on Zen 4/5).
///
/// # Safety
/// As for `gather_row_scalar`; `buf` must be readable.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gather_row(
    dst: &mut [f32],
    src: *const f32,
    step: isize,
    lo: usize,
    hi: usize,
    simd: Simd,
    buf: (*const f32, *const f32),
) {
    #[cfg(target_arch = "x86_64")]
    if simd != Simd::Scalar && (step == 1 || step == 2) {
        for (q, d) in dst.chunks_mut(16).enumerate() {
            let first = 16 * q;
            let (l, h) = (
                lo.saturating_sub(first).min(16),
                hi.saturating_sub(first).min(16),
            );
            let s = src.wrapping_offset(first as isize * step);
            // SAFETY: caller's contract (columns l..h of this piece are columns first+l..first+h of the row);
            // features checked by `Simd::detect()`.
            unsafe {
                if simd == Simd::Avx512 {
                    gather_avx512(d, s, step, l, h.max(l))
                } else {
                    gather_avx2(d, s, step, l, h.max(l), buf)
                }
            };
        }
        return;
    }
    let _ = (simd, buf);
    // SAFETY: caller's contract.
    unsafe { gather_row_scalar(dst, src, step, lo, hi) }
}

/// Bits `lo..hi` set (`hi <= 16`).
#[inline(always)]
fn bits(lo: usize, hi: usize) -> u32 {
    ((1u32 << hi) - 1) & !((1u32 << lo) - 1)
}

/// Bit i of `x` (`x < 256`) moved to bit 2i.
#[inline(always)]
fn spread(x: u32) -> u32 {
    let x = (x | (x << 4)) & 0x0f0f;
    let x = (x | (x << 2)) & 0x3333;
    (x | (x << 1)) & 0x5555
}

/// The AVX-512 gather of at most 16 columns: masked loads (lanes outside `lo..hi` are not accessed), for step 2 the
/// even lanes of 32 floats picked by one permute, a masked store of `len` lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn gather_avx512(dst: &mut [f32], src: *const f32, step: isize, lo: usize, hi: usize) {
    use std::arch::x86_64::*;
    let len = dst.len();
    let valid = bits(lo, hi);
    // SAFETY: only lanes whose columns are in lo..hi are loaded (caller's contract); the store writes `len`
    // lanes of dst.
    unsafe {
        let v = if step == 1 {
            if valid == 0xffff {
                _mm512_loadu_ps(src)
            } else {
                _mm512_maskz_loadu_ps(valid as __mmask16, src)
            }
        } else {
            let a = _mm512_maskz_loadu_ps(spread(valid & 0xff) as __mmask16, src);
            let b = _mm512_maskz_loadu_ps(spread(valid >> 8) as __mmask16, src.wrapping_add(16));
            let even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
            _mm512_permutex2var_ps(a, even, b)
        };
        if step == 1 {
            _mm_prefetch::<_MM_HINT_T0>(src.wrapping_add(32) as *const i8);
        }
        if len == 16 {
            _mm512_storeu_ps(dst.as_mut_ptr(), v);
        } else {
            _mm512_mask_storeu_ps(dst.as_mut_ptr(), bits(0, len) as __mmask16, v);
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn gather_avx2(
    dst: &mut [f32],
    src: *const f32,
    step: isize,
    lo: usize,
    hi: usize,
    buf: (*const f32, *const f32),
) {
    use std::arch::x86_64::*;
    let len = dst.len();
    let (vlo, vhi) = (
        _mm256_set1_epi32(lo as i32 - 1),
        _mm256_set1_epi32(hi as i32),
    );
    // Lanes i in lo..hi: i > lo-1 && hi > i.
    let valid =
        |idx: __m256i| _mm256_and_si256(_mm256_cmpgt_epi32(idx, vlo), _mm256_cmpgt_epi32(vhi, idx));
    let i0 = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let i1 = _mm256_add_epi32(i0, _mm256_set1_epi32(8));
    // Every float a plain load would touch is inside the buffer.
    let inside = src >= buf.0 && src.wrapping_offset(16 * step) <= buf.1;
    let clear = |v: __m256, idx: __m256i| _mm256_and_ps(v, _mm256_castsi256_ps(valid(idx)));
    let (v0, v1) = if step == 1 && lo == 0 && hi == 16 {
        // SAFETY: all 16 columns are valid.
        unsafe { (_mm256_loadu_ps(src), _mm256_loadu_ps(src.add(8))) }
    } else if step == 1 && inside {
        // SAFETY: inside the buffer (checked above); other rows' values are cleared.
        unsafe {
            (
                clear(_mm256_loadu_ps(src), i0),
                clear(_mm256_loadu_ps(src.add(8)), i1),
            )
        }
    } else if step == 1 {
        // SAFETY: masked lanes are not accessed.
        unsafe {
            (
                _mm256_maskload_ps(src, valid(i0)),
                _mm256_maskload_ps(src.wrapping_add(8), valid(i1)),
            )
        }
    } else if inside {
        // Plain loads of 32 floats, the even ones kept, invalid columns cleared.
        // SAFETY: inside the buffer (checked above).
        let (a, b, c, d) = unsafe {
            (
                _mm256_loadu_ps(src),
                _mm256_loadu_ps(src.add(8)),
                _mm256_loadu_ps(src.add(16)),
                _mm256_loadu_ps(src.add(24)),
            )
        };
        let ab = _mm256_castpd_ps(_mm256_permute4x64_pd::<0b11_01_10_00>(_mm256_castps_pd(
            _mm256_shuffle_ps::<0b10_00_10_00>(a, b),
        )));
        let cd = _mm256_castpd_ps(_mm256_permute4x64_pd::<0b11_01_10_00>(_mm256_castps_pd(
            _mm256_shuffle_ps::<0b10_00_10_00>(c, d),
        )));
        (clear(ab, i0), clear(cd, i1))
    } else {
        // Input lane k holds column k/2 for even k; odd lanes are masked off.
        let even = _mm256_setr_epi32(-1, 0, -1, 0, -1, 0, -1, 0);
        let half = |base: i32| {
            let cols = _mm256_srli_epi32::<1>(_mm256_add_epi32(i0, _mm256_set1_epi32(base)));
            _mm256_and_si256(valid(cols), even)
        };
        // SAFETY: masked lanes are not accessed.
        let (a, b, c, d) = unsafe {
            (
                _mm256_maskload_ps(src, half(0)),
                _mm256_maskload_ps(src.wrapping_add(8), half(8)),
                _mm256_maskload_ps(src.wrapping_add(16), half(16)),
                _mm256_maskload_ps(src.wrapping_add(24), half(24)),
            )
        };
        // shuffle -> [a0 a2 b0 b2 | a4 a6 b4 b6]; permute 64-bit lanes 0,2,1,3 -> [a0 a2 a4 a6 b0 b2 b4 b6].
        let ab = _mm256_castpd_ps(_mm256_permute4x64_pd::<0b11_01_10_00>(_mm256_castps_pd(
            _mm256_shuffle_ps::<0b10_00_10_00>(a, b),
        )));
        let cd = _mm256_castpd_ps(_mm256_permute4x64_pd::<0b11_01_10_00>(_mm256_castps_pd(
            _mm256_shuffle_ps::<0b10_00_10_00>(c, d),
        )));
        (ab, cd)
    };
    // The next panel reads the next 16 columns of the same input row:
    // fetch them now (the rows of one panel are scattered over the input
    // channels, so the hardware prefetchers do not follow them). Measured
    // on unit strides (3x3 conv 22.8 -> 22.2 ms); the strided (stem) case
    // got slower with it.
    if step == 1 {
        _mm_prefetch::<_MM_HINT_T0>(src.wrapping_add(16) as *const i8);
    }
    let p = dst.as_mut_ptr();
    // SAFETY: stores stay within dst (`len` lanes).
    unsafe {
        if len == 16 {
            _mm256_storeu_ps(p, v0);
            _mm256_storeu_ps(p.add(8), v1);
        } else {
            // The first `len` lanes in 8/4/2/1-lane pieces (no bounce
            // buffer or variable-length copy, and no masked store, which
            // is slow on AMD): a panel row split across two output rows
            // is two such segments.
            let (mut q, mut n, mut v) = (p, len, v0);
            if n >= 8 {
                _mm256_storeu_ps(q, v0);
                (q, n, v) = (q.add(8), n - 8, v1);
            }
            let mut x = _mm256_castps256_ps128(v);
            if n >= 4 {
                _mm_storeu_ps(q, x);
                (q, n, x) = (q.add(4), n - 4, _mm256_extractf128_ps::<1>(v));
            }
            if n >= 2 {
                _mm_storel_pd(q as *mut f64, _mm_castps_pd(x));
                (q, n, x) = (q.add(2), n - 2, _mm_movehl_ps(x, x));
            }
            if n == 1 {
                _mm_store_ss(q, x);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_gathers_equal_scalar_for_every_window() {
        for simd in [Simd::Avx2, Simd::Avx512] {
            if Simd::detect() < simd {
                eprintln!("note: {simd:?} not available; its gather is not tested on this host");
            } else {
                every_window(simd);
            }
        }
    }

    fn every_window(simd: Simd) {
        let src: Vec<f32> = (0..128).map(|i| i as f32 + 1.0).collect();
        for step in [1isize, 2] {
            for len in 1..=40usize {
                for lo in 0..=len {
                    for hi in lo..=len {
                        // The whole vector as the buffer (plain loads), and
                        // a buffer ending right after the valid columns
                        // (masked loads).
                        let p = src.as_ptr();
                        let tight = p.wrapping_offset(hi.max(1) as isize * step);
                        for buf in [(p, p.wrapping_add(128)), (p, tight)] {
                            let (mut a, mut b) = (vec![f32::NAN; len], vec![f32::NAN; len]);
                            // SAFETY: src holds 128 >= 48 * 2 floats.
                            unsafe {
                                gather_row(&mut a, p, step, lo, hi, simd, buf);
                                gather_row_scalar(&mut b, p, step, lo, hi);
                            }
                            assert_eq!(a, b, "{simd:?} step {step} len {len} lo {lo} hi {hi}");
                        }
                    }
                }
            }
        }
    }
}
