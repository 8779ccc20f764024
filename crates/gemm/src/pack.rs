//! Packing of A and B micro-panels into the contiguous layouts the micro-kernels read: A as `kc` groups of `MR`
//! row values, B as `kc` groups of `NR` column values, edge panels padded with zeros so edge tiles run the same
//! kernel (no scalar cliff). `PackA`/`PackB` are the seams where operand layouts are absorbed: a strided or
//! table-addressed `Operand` here, the fused im2col gather in `conv.rs`. Packers must only read inside the
//! operand (bounds are checked by the entry points that build them).

use crate::mat::Offsets;

/// Packs one A micro-panel: rows `i0..i0+rows` (`rows <= mr`), contraction indices `p0..p0+kc`, into
/// `dst[p * mr + i]` (zeros for `i >= rows`).
pub(crate) trait PackA: Sync {
    fn pack_a(&self, i0: usize, rows: usize, p0: usize, kc: usize, mr: usize, dst: &mut [f32]);
}

/// Packs one B micro-panel: contraction indices `p0..p0+kc`, columns `j0..j0+cols` (`cols <= nr`), into
/// `dst[p * nr + j]` (zeros for `j >= cols`).
pub(crate) trait PackB: Sync {
    fn pack_b(&self, p0: usize, kc: usize, j0: usize, cols: usize, nr: usize, dst: &mut [f32]);
}

/// A read-only operand addressed as `ptr[rows.at(i) + cols.at(j)]`: used as A (rows = M, cols = K) or as B
/// (rows = K, cols = N).
pub(crate) struct Operand {
    pub ptr: *const f32,
    pub rows: Offsets,
    pub cols: Offsets,
}

// SAFETY: read-only access to data the entry point borrowed for the whole call.
unsafe impl Sync for Operand {}
unsafe impl Send for Operand {}

impl Operand {
    #[inline(always)]
    pub(crate) fn get(&self, i: usize, j: usize) -> f32 {
        // SAFETY: the entry point checked every (i, j) in range addresses the borrowed buffer.
        unsafe { *self.ptr.offset(self.rows.at(i) + self.cols.at(j)) }
    }
}

impl PackA for Operand {
    fn pack_a(&self, i0: usize, rows: usize, p0: usize, kc: usize, mr: usize, dst: &mut [f32]) {
        let dst = &mut dst[..kc * mr];
        match (&self.rows, &self.cols) {
            (Offsets::Strided(rs), Offsets::Strided(1)) if rows == mr && mr == 6 => {
                // SAFETY: rows i0..i0+6, columns p0..p0+kc are inside the operand.
                unsafe { pack_rows::<6>(self.ptr, *rs, i0, p0, kc, dst) }
            }
            (Offsets::Strided(rs), Offsets::Strided(1)) if rows == mr && mr == 14 => {
                let r = std::array::from_fn(|i| {
                    self.ptr
                        .wrapping_offset((i0 + i) as isize * rs + p0 as isize)
                });
                // SAFETY: rows i0..i0+14, columns p0..p0+kc are inside the operand.
                unsafe { interleave14(&r, kc, dst) }
            }
            (Offsets::Strided(rs), Offsets::Strided(1)) => {
                for (p, d) in dst.chunks_exact_mut(mr).enumerate() {
                    for (i, x) in d[..rows].iter_mut().enumerate() {
                        // SAFETY: row i0+i, column p0+p is inside the operand.
                        *x =
                            unsafe { *self.ptr.offset((i0 + i) as isize * rs + (p0 + p) as isize) };
                    }
                }
            }
            (Offsets::Strided(1), Offsets::Strided(cs)) => {
                for (p, d) in dst.chunks_exact_mut(mr).enumerate() {
                    // SAFETY: as above (column p0+p, rows i0..i0+rows).
                    let src = unsafe {
                        std::slice::from_raw_parts(
                            self.ptr.offset(i0 as isize + (p0 + p) as isize * cs),
                            rows,
                        )
                    };
                    d[..rows].copy_from_slice(src);
                }
            }
            _ => {
                for (p, d) in dst.chunks_exact_mut(mr).enumerate() {
                    for (i, x) in d[..rows].iter_mut().enumerate() {
                        *x = self.get(i0 + i, p0 + p);
                    }
                }
            }
        }
        if rows < mr {
            for d in dst.chunks_exact_mut(mr) {
                d[rows..].iter_mut().for_each(|x| *x = 0.0);
            }
        }
    }
}

/// Row-major A, full panel of `MR` rows: `MR` row streams, contiguous `MR`-wide writes.
///
/// # Safety
/// Rows `i0..i0+MR`, columns `p0..p0+kc` at `ptr + i*rs + p` are readable; `dst` holds `kc * MR` floats.
#[inline]
unsafe fn pack_rows<const MR: usize>(
    ptr: *const f32,
    rs: isize,
    i0: usize,
    p0: usize,
    kc: usize,
    dst: &mut [f32],
) {
    // SAFETY: the caller's contract.
    let r: [&[f32]; MR] = std::array::from_fn(|i| unsafe {
        std::slice::from_raw_parts(ptr.offset((i0 + i) as isize * rs + p0 as isize), kc)
    });
    for (p, d) in dst[..kc * MR].chunks_exact_mut(MR).enumerate() {
        let d: &mut [f32; MR] = d.try_into().expect("chunks of MR");
        *d = std::array::from_fn(|i| r[i][p]);
    }
}

/// `dst` row p (`N` floats) = the `N` floats at `src(p)`.
///
/// # Safety
/// `src(p)` addresses `N` readable floats for every row p of `dst`.
#[inline]
unsafe fn copy_rows<const N: usize>(src: impl Fn(usize) -> *const f32, dst: &mut [f32]) {
    for (p, d) in dst.chunks_exact_mut(N).enumerate() {
        let d: &mut [f32; N] = d.try_into().expect("chunks of N");
        // SAFETY: the caller's contract.
        *d = unsafe { std::ptr::read_unaligned(src(p) as *const [f32; N]) };
    }
}

impl PackB for Operand {
    fn pack_b(&self, p0: usize, kc: usize, j0: usize, cols: usize, nr: usize, dst: &mut [f32]) {
        let dst = &mut dst[..kc * nr];
        match (&self.rows, &self.cols) {
            (Offsets::Strided(rs), Offsets::Strided(1)) if cols == nr && (nr == 16 || nr == 32) => {
                // Full panel of row-major B: fixed-size row copies (inline vector moves, not a memcpy call
                // per row).
                let src = |p: usize| {
                    self.ptr
                        .wrapping_offset((p0 + p) as isize * rs + j0 as isize)
                };
                if nr == 16 {
                    // SAFETY: row p0+p, columns j0..j0+16 are inside the operand.
                    unsafe { copy_rows::<16>(src, dst) };
                } else {
                    // SAFETY: row p0+p, columns j0..j0+32 are inside the operand.
                    unsafe { copy_rows::<32>(src, dst) };
                }
            }
            (Offsets::Strided(rs), Offsets::Strided(1)) => {
                for (p, d) in dst.chunks_exact_mut(nr).enumerate() {
                    // SAFETY: row p0+p, columns j0..j0+cols are inside the operand.
                    let src = unsafe {
                        std::slice::from_raw_parts(
                            self.ptr.offset((p0 + p) as isize * rs + j0 as isize),
                            cols,
                        )
                    };
                    d[..cols].copy_from_slice(src);
                }
            }
            (Offsets::Strided(1), Offsets::Strided(cs)) => {
                for j in 0..cols {
                    // SAFETY: column j0+j, rows p0..p0+kc are inside the operand.
                    let src = unsafe {
                        std::slice::from_raw_parts(
                            self.ptr.offset((j0 + j) as isize * cs + p0 as isize),
                            kc,
                        )
                    };
                    for (d, &s) in dst[j..].iter_mut().step_by(nr).zip(src) {
                        *d = s;
                    }
                }
            }
            _ => {
                for (p, d) in dst.chunks_exact_mut(nr).enumerate() {
                    for (j, x) in d[..cols].iter_mut().enumerate() {
                        *x = self.get(p0 + p, j0 + j);
                    }
                }
            }
        }
        if cols < nr {
            for d in dst.chunks_exact_mut(nr) {
                d[cols..].iter_mut().for_each(|x| *x = 0.0);
            }
        }
    }
}

/// `dst[p * 14 + i] = rows[i][p]` for `p < len`, `i < 14`: the A micro-panel of the 14-row AVX-512 tier from 14
/// row streams. With AVX-512 (checked here) 16 values of each row at a time, one 16x16 in-register transpose
/// (rows 14 and 15 zero) and 14-float stores; else the scalar interleave.
///
/// # Safety
/// Every `rows[i]` addresses `len` readable floats.
#[inline]
pub(crate) unsafe fn interleave14(rows: &[*const f32; 14], len: usize, dst: &mut [f32]) {
    let dst = &mut dst[..len * 14];
    #[cfg(target_arch = "x86_64")]
    if crate::gather::avx512() {
        // SAFETY: AVX-512F checked; the caller's contract.
        unsafe { interleave14_avx512(rows, len, dst) };
        return;
    }
    // SAFETY: the caller's contract.
    let r: [&[f32]; 14] =
        std::array::from_fn(|i| unsafe { std::slice::from_raw_parts(rows[i], len) });
    for (p, d) in dst.chunks_exact_mut(14).enumerate() {
        let d: &mut [f32; 14] = d.try_into().expect("chunks of 14");
        *d = std::array::from_fn(|i| r[i][p]);
    }
}

/// The AVX-512 body of `interleave14`: per 16 values of the rows, masked loads (the tail reads only `len`
/// values), `unpack{lo,hi}_ps` + `unpack{lo,hi}_pd` (4x4 transposes inside 128-bit lanes), two rounds of
/// `shuffle_f32x4` (the 4x4 transpose of 128-bit blocks); column q is then one vector whose first 14 lanes are
/// stored at `dst[(p + q) * 14..]` (16-float stores that the next column's store overwrites, the last one masked).
///
/// # Safety
/// AVX-512F; every `rows[i]` addresses `len` readable floats; `dst` holds `len * 14` floats.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn interleave14_avx512(rows: &[*const f32; 14], len: usize, dst: &mut [f32]) {
    use std::arch::x86_64::*;
    assert!(dst.len() >= len * 14);
    let out = dst.as_mut_ptr();
    let mut p = 0;
    while p < len {
        let n = (len - p).min(16);
        let m: __mmask16 = if n == 16 { 0xffff } else { (1u16 << n) - 1 };
        let z = _mm512_setzero_ps();
        // SAFETY: lanes < n of row i are values p..p+n of the row (the caller's contract).
        let r: [__m512; 16] = std::array::from_fn(|i| {
            if i < 14 {
                unsafe { _mm512_maskz_loadu_ps(m, rows[i].add(p)) }
            } else {
                z
            }
        });
        let t: [__m512; 16] = std::array::from_fn(|i| {
            let (a, b) = (r[i & !1], r[i | 1]);
            if i & 1 == 0 {
                _mm512_unpacklo_ps(a, b)
            } else {
                _mm512_unpackhi_ps(a, b)
            }
        });
        // u[4k + j], 128-bit block l: column 4l + j of rows 4k..4k+4.
        let u: [__m512; 16] = std::array::from_fn(|i| {
            let (k, j) = (i / 4, i % 4);
            let a = _mm512_castps_pd(t[4 * k + (j >> 1)]);
            let b = _mm512_castps_pd(t[4 * k + 2 + (j >> 1)]);
            _mm512_castpd_ps(if j & 1 == 0 {
                _mm512_unpacklo_pd(a, b)
            } else {
                _mm512_unpackhi_pd(a, b)
            })
        });
        // c[q]: column q (lanes 0..14 = rows 0..14, lanes 14 and 15 zero).
        let mut c = [z; 16];
        for j in 0..4 {
            let x0 = _mm512_shuffle_f32x4::<0x44>(u[j], u[4 + j]);
            let x1 = _mm512_shuffle_f32x4::<0xEE>(u[j], u[4 + j]);
            let x2 = _mm512_shuffle_f32x4::<0x44>(u[8 + j], u[12 + j]);
            let x3 = _mm512_shuffle_f32x4::<0xEE>(u[8 + j], u[12 + j]);
            c[j] = _mm512_shuffle_f32x4::<0x88>(x0, x2);
            c[4 + j] = _mm512_shuffle_f32x4::<0xDD>(x0, x2);
            c[8 + j] = _mm512_shuffle_f32x4::<0x88>(x1, x3);
            c[12 + j] = _mm512_shuffle_f32x4::<0xDD>(x1, x3);
        }
        // In column order: each 16-float store's last two lanes are overwritten by the next column's.
        for (q, &v) in c.iter().enumerate().take(n) {
            // SAFETY: column p+q goes to dst[(p+q)*14..][..14]; a 16-float store there stays inside dst unless it
            // is the last column (then masked to 14 lanes).
            unsafe {
                if p + q + 1 < len {
                    _mm512_storeu_ps(out.add((p + q) * 14), v);
                } else {
                    _mm512_mask_storeu_ps(out.add((p + q) * 14), 0x3fff, v);
                }
            }
        }
        p += n;
    }
}
