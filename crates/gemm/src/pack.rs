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

    /// Rows `i0..i0+rows` readable in place: the address of row `i0`, column `p0` and the row stride, when
    /// those rows are equally spaced with contiguous contraction values (a direct micro-kernel then reads A
    /// without packing it). `None` (the default): always packed.
    fn direct(&self, _i0: usize, _rows: usize, _p0: usize) -> Option<(*const f32, usize)> {
        None
    }
}

/// Packs one B micro-panel: contraction indices `p0..p0+kc`, columns `j0..j0+cols` (`cols <= nr`), into
/// `dst[p * nr + j]` (zeros for `j >= cols`).
pub(crate) trait PackB: Sync {
    fn pack_b(&self, p0: usize, kc: usize, j0: usize, cols: usize, nr: usize, dst: &mut [f32]);

    /// Packs the whole micro-panels of columns `j0..j0 + panels·nr` (panel `q` into
    /// `dst[q·kc·nr..]`, as `pack_b` lays one out) in one pass when the operand can do better than panel after
    /// panel; returns false (and writes nothing) otherwise.
    fn pack_b_panels(
        &self,
        _p0: usize,
        _kc: usize,
        _j0: usize,
        _panels: usize,
        _nr: usize,
        _dst: &mut [f32],
    ) -> bool {
        false
    }

    /// Asks for contraction rows `p0..p0+kc`, columns `j0..j0+cols` to be fetched into L2 (a hint: packed soon).
    /// The default does nothing.
    fn prefetch_b(&self, _p0: usize, _kc: usize, _j0: usize, _cols: usize) {}

    /// Contraction rows `p0..p0+kc` of columns `j0..j0+cols` readable in place: the address of `(p0, j0)` and
    /// the row stride, when the columns are contiguous and the rows equally spaced (an in-place-B micro-kernel
    /// then reads B without packing it). `None` (the default): always packed.
    fn direct_b(
        &self,
        _p0: usize,
        _kc: usize,
        _j0: usize,
        _cols: usize,
    ) -> Option<(*const f32, usize)> {
        None
    }
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
    fn direct(&self, i0: usize, rows: usize, p0: usize) -> Option<(*const f32, usize)> {
        if !matches!(self.cols, Offsets::Strided(1)) {
            return None;
        }
        let rs = crate::driver::linear(&self.rows, i0, rows)?;
        let rs = usize::try_from(rs).ok().filter(|&s| s > 0 || rows == 1)?;
        Some((self.ptr.wrapping_offset(self.rows.at(i0) + p0 as isize), rs))
    }

    fn pack_a(&self, i0: usize, rows: usize, p0: usize, kc: usize, mr: usize, dst: &mut [f32]) {
        let dst = &mut dst[..kc * mr];
        match (&self.rows, &self.cols) {
            (Offsets::Strided(rs), Offsets::Strided(1)) if rows == mr && mr == 6 => {
                // SAFETY: rows i0..i0+6, columns p0..p0+kc are inside the operand.
                unsafe { pack_rows::<6>(self.ptr, *rs, i0, p0, kc, dst) }
            }
            (ro, Offsets::Strided(1)) if mr == 14 || mr == 16 || mr == 32 => {
                // Rows contiguous along k (row-major A, or rows through a table): `rows` streams interleaved with
                // in-register transposes, zeros for the missing rows.
                let s: [*const f32; 32] = std::array::from_fn(|i| {
                    if i < rows {
                        self.ptr.wrapping_offset(ro.at(i0 + i) + p0 as isize)
                    } else {
                        std::ptr::null()
                    }
                });
                // The next panel's rows (the driver packs panels in order) are fetched while this one is
                // interleaved: 14-32 short row segments 2 KiB+ apart defeat the hardware prefetcher, and the
                // packing loads stalled on DRAM (a 1x1 NHWC convolution, 6272x512x128: the packer took a third
                // of the multiply-add time before this).
                for i in 0..mr {
                    let r = i0 + PACK_A_AHEAD * mr + i;
                    let at = match ro {
                        Offsets::Strided(rs) => Some(r as isize * rs),
                        Offsets::Table(t) => t.get(r).copied(),
                    };
                    if let Some(at) = at {
                        prefetch_segment(self.ptr.wrapping_offset(at + p0 as isize), kc);
                    }
                }
                // SAFETY: streams 0..rows are rows i0..i0+rows, columns p0..p0+kc of the operand.
                unsafe { interleave(&s[..rows], mr, kc, dst) };
                return;
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
            (Offsets::Strided(1), co) => {
                // Column-major A: each k step is `rows` contiguous values, the packed layout itself.
                let src = |p: usize| self.ptr.wrapping_offset(co.at(p0 + p) + i0 as isize);
                match (rows == mr, mr) {
                    // SAFETY: column p0+p, rows i0..i0+mr are inside the operand.
                    (true, 14) => unsafe { copy_rows::<14>(src, dst) },
                    // SAFETY: as above.
                    (true, 6) => unsafe { copy_rows::<6>(src, dst) },
                    _ => {
                        for (p, d) in dst.chunks_exact_mut(mr).enumerate() {
                            // SAFETY: column p0+p, rows i0..i0+rows are inside the operand.
                            let s = unsafe { std::slice::from_raw_parts(src(p), rows) };
                            d[..rows].copy_from_slice(s);
                        }
                    }
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

/// `dst[q·kc·N + p·N + j] = row(p)[q·N + j]`: each row's `panels·N` values read front to back, dealt out in
/// fixed-size copies (inline vector moves, not a memcpy call each).
///
/// # Safety
/// `row(p)` points at `panels·N` readable values for every `p < kc`; `dst` holds `panels·kc·N`.
unsafe fn deal_rows<const N: usize>(
    row: impl Fn(usize) -> *const f32,
    kc: usize,
    panels: usize,
    dst: &mut [f32],
) {
    for p in 0..kc {
        let r = row(p);
        for q in 0..panels {
            let d: &mut [f32; N] = (&mut dst[q * kc * N + p * N..][..N])
                .try_into()
                .expect("N values");
            // SAFETY: the caller's contract.
            *d = unsafe { std::ptr::read_unaligned(r.add(q * N) as *const [f32; N]) };
        }
    }
}

/// `deal_rows::<16·V>` in 512-bit loads and stores (V per row segment of a panel).
///
/// # Safety
/// AVX-512F; as for `deal_rows`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn deal_rows_avx512<const V: usize>(
    row: impl Fn(usize) -> *const f32,
    kc: usize,
    panels: usize,
    dst: &mut [f32],
) {
    use std::arch::x86_64::{_mm512_loadu_ps, _mm512_storeu_ps};
    let n = 16 * V;
    assert!(dst.len() >= panels * kc * n);
    let out = dst.as_mut_ptr();
    for p in 0..kc {
        let r = row(p);
        for q in 0..panels {
            for v in 0..V {
                // SAFETY: row p holds panels·n readable values (the caller's contract); the store is inside dst
                // (q < panels, p < kc: asserted above).
                unsafe {
                    let x = _mm512_loadu_ps(r.add(q * n + 16 * v));
                    _mm512_storeu_ps(out.add(q * kc * n + p * n + 16 * v), x);
                }
            }
        }
    }
}

impl PackB for Operand {
    fn direct_b(
        &self,
        p0: usize,
        kc: usize,
        j0: usize,
        cols: usize,
    ) -> Option<(*const f32, usize)> {
        if crate::driver::linear(&self.cols, j0, cols) != Some(1) {
            return None;
        }
        let rs = crate::driver::linear(&self.rows, p0, kc)?;
        let rs = usize::try_from(rs).ok().filter(|&s| s > 0 || kc == 1)?;
        Some((
            self.ptr
                .wrapping_offset(self.rows.at(p0) + self.cols.at(j0)),
            rs,
        ))
    }

    /// Row-major B only (each row's segment is contiguous); prefetches never fault, so nothing is checked.
    fn prefetch_b(&self, p0: usize, kc: usize, j0: usize, cols: usize) {
        if let Offsets::Strided(1) = self.cols {
            for p in p0..p0 + kc {
                let at = match &self.rows {
                    Offsets::Strided(rs) => Some(p as isize * rs),
                    Offsets::Table(t) => t.get(p).copied(),
                };
                if let Some(at) = at {
                    prefetch_segment(self.ptr.wrapping_offset(at + j0 as isize), cols);
                }
            }
        }
    }

    /// Row-major B: each row segment `j0..j0 + panels·nr` is read once, front to back, and dealt out to the
    /// panels (panel after panel would read `kc` rows a page apart for every panel: TLB and 4 KiB-alias misses).
    fn pack_b_panels(
        &self,
        p0: usize,
        kc: usize,
        j0: usize,
        panels: usize,
        nr: usize,
        dst: &mut [f32],
    ) -> bool {
        let Offsets::Strided(1) = self.cols else {
            return false;
        };
        if nr != 16 && nr != 32 {
            return false;
        }
        let dst = &mut dst[..panels * kc * nr];
        let rows = |p: usize| self.ptr.wrapping_offset(self.rows.at(p0 + p) + j0 as isize);
        // SAFETY: rows p0..p0+kc, columns j0..j0+panels·nr are inside the operand (whole panels only).
        unsafe {
            #[cfg(target_arch = "x86_64")]
            if crate::gather::avx512() {
                if nr == 16 {
                    deal_rows_avx512::<1>(rows, kc, panels, dst);
                } else {
                    deal_rows_avx512::<2>(rows, kc, panels, dst);
                }
                return true;
            }
            if nr == 16 {
                deal_rows::<16>(rows, kc, panels, dst);
            } else {
                deal_rows::<32>(rows, kc, panels, dst);
            }
        }
        true
    }

    fn pack_b(&self, p0: usize, kc: usize, j0: usize, cols: usize, nr: usize, dst: &mut [f32]) {
        let dst = &mut dst[..kc * nr];
        match (&self.rows, &self.cols) {
            (ro, Offsets::Strided(1)) if cols == nr && (nr == 16 || nr == 32) => {
                // Full panel of row-major B (or rows through a table): fixed-size row copies (inline vector moves,
                // not a memcpy call per row).
                let src = |p: usize| self.ptr.wrapping_offset(ro.at(p0 + p) + j0 as isize);
                if nr == 16 {
                    // SAFETY: row p0+p, columns j0..j0+16 are inside the operand.
                    unsafe { copy_rows::<16>(src, dst) };
                } else {
                    // SAFETY: row p0+p, columns j0..j0+32 are inside the operand.
                    unsafe { copy_rows::<32>(src, dst) };
                }
            }
            (ro, Offsets::Strided(1)) => {
                for (p, d) in dst.chunks_exact_mut(nr).enumerate() {
                    // SAFETY: row p0+p, columns j0..j0+cols are inside the operand.
                    let src = unsafe {
                        std::slice::from_raw_parts(
                            self.ptr.offset(ro.at(p0 + p) + j0 as isize),
                            cols,
                        )
                    };
                    d[..cols].copy_from_slice(src);
                }
            }
            (Offsets::Strided(1), co) if nr <= 32 => {
                // Column-major B (or columns through a table): `cols` column streams, contiguous along k,
                // interleaved with in-register transposes into whole NR-wide panel rows (zeros for the missing
                // columns).
                let s: [*const f32; 32] = std::array::from_fn(|j| {
                    if j < cols {
                        self.ptr.wrapping_offset(co.at(j0 + j) + p0 as isize)
                    } else {
                        std::ptr::null()
                    }
                });
                // SAFETY: streams 0..cols are columns j0..j0+cols, rows p0..p0+kc of the operand.
                unsafe { interleave(&s[..cols], nr, kc, dst) };
                return;
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

/// How many panels ahead `pack_a` prefetches A's rows (see there).
const PACK_A_AHEAD: usize = 1;

/// Asks for the cache lines of `len` floats at `p` into L2 (a hint: never faults, whatever `p` is).
#[inline(always)]
fn prefetch_segment(p: *const f32, len: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T1, _mm_prefetch};
        let mut q = 0;
        while q < len {
            // SAFETY: a prefetch is a hint that does not fault on any address.
            unsafe { _mm_prefetch::<_MM_HINT_T1>(p.wrapping_add(q) as *const i8) };
            q += 16;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (p, len);
}

/// `dst[p * width + j] = streams[j][p]` for `p < len`, `j < streams.len()`, and 0 for `streams.len() <= j < width`:
/// a packed panel (A: `width` = MR, streams = rows; B: `width` = NR, streams = columns) from streams contiguous along
/// k. AVX-512 (checked here) for widths 14, 16 and 32: 16x16 in-register transposes (`interleave_avx512`); AVX2 for
/// width 16 (8x8 transposes, the 16-wide tier, `interleave_avx2`); else scalar.
///
/// # Safety
/// Every stream addresses `len` readable floats; `streams.len() <= width`.
#[inline]
pub(crate) unsafe fn interleave(streams: &[*const f32], width: usize, len: usize, dst: &mut [f32]) {
    let dst = &mut dst[..len * width];
    assert!(streams.len() <= width);
    #[cfg(target_arch = "x86_64")]
    {
        if width == 16 && crate::gather::avx2() {
            // SAFETY: AVX2 checked; the caller's contract.
            unsafe { interleave_avx2(streams, len, dst) };
            return;
        }
        if (width == 14 || width == 32) && crate::gather::avx512() {
            // SAFETY: AVX-512F checked; the caller's contract.
            unsafe { interleave_avx512(streams, width, len, dst) };
            return;
        }
    }
    // SAFETY: the caller's contract.
    unsafe { interleave_scalar(streams, width, len, dst) };
}

/// The scalar body of `interleave`.
///
/// # Safety
/// As for `interleave`.
unsafe fn interleave_scalar(streams: &[*const f32], width: usize, len: usize, dst: &mut [f32]) {
    for (p, d) in dst[..len * width].chunks_exact_mut(width).enumerate() {
        for (j, x) in d.iter_mut().enumerate() {
            // SAFETY: p < len on stream j (the caller's contract).
            *x = streams.get(j).map_or(0.0, |s| unsafe { *s.add(p) });
        }
    }
}

/// `dst[p * 14 + i] = rows[i][p]` for `p < len`, `i < 14`: the A micro-panel of the 14-row AVX-512 tier from 14
/// row streams (`interleave` with width 14).
///
/// # Safety
/// Every `rows[i]` addresses `len` readable floats.
#[inline]
pub(crate) unsafe fn interleave14(rows: &[*const f32; 14], len: usize, dst: &mut [f32]) {
    // SAFETY: the caller's contract.
    unsafe { interleave(rows, 14, len, dst) }
}

/// The 16x16 transpose of `r` (row i = `r[i]`): `unpack{lo,hi}_ps` + `unpack{lo,hi}_pd` (4x4 transposes inside
/// 128-bit lanes), two rounds of `shuffle_f32x4` (the 4x4 transpose of 128-bit blocks). Result q = column q.
///
/// Callable (safely) from AVX-512F code only.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn transpose16(r: &[std::arch::x86_64::__m512; 16]) -> [std::arch::x86_64::__m512; 16] {
    use std::arch::x86_64::*;
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
    let mut c = [_mm512_setzero_ps(); 16];
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
    c
}

/// The AVX-512 body of `interleave` (width 14, 16 or 32): per 16 values of the streams and per group of 16
/// streams, masked loads (the tail reads only `len` values; missing streams are zero vectors, never loaded), one
/// `transpose16`, then column q of the group is one vector stored at `dst[(p + q) * width + 16 * g..]`. Width 14:
/// 16-float stores whose last two lanes the next column's store overwrites, the last one masked to 14 lanes.
///
/// # Safety
/// AVX-512F; every stream addresses `len` readable floats; `streams.len() <= width`; `dst` holds `len * width`
/// floats.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn interleave_avx512(streams: &[*const f32], width: usize, len: usize, dst: &mut [f32]) {
    use std::arch::x86_64::*;
    assert!(dst.len() >= len * width && streams.len() <= width && matches!(width, 14 | 16 | 32));
    let out = dst.as_mut_ptr();
    let groups = width.div_ceil(16);
    let mut p = 0;
    while p < len {
        let n = (len - p).min(16);
        let m: __mmask16 = if n == 16 { 0xffff } else { (1u16 << n) - 1 };
        for g in 0..groups {
            let z = _mm512_setzero_ps();
            // SAFETY: lanes < n of stream 16g+i are its values p..p+n (the caller's contract).
            let r: [__m512; 16] = std::array::from_fn(|i| match streams.get(16 * g + i) {
                Some(s) => unsafe { _mm512_maskz_loadu_ps(m, s.add(p)) },
                None => z,
            });
            let c = transpose16(&r);
            for (q, &v) in c.iter().enumerate().take(n) {
                let at = (p + q) * width + 16 * g;
                // SAFETY: width 16/32: dst[at..at+16] is inside dst (p+q < len). Width 14: a 16-float store stays
                // inside dst unless it is the last column, which is masked to 14 lanes.
                unsafe {
                    if width != 14 || p + q + 1 < len {
                        _mm512_storeu_ps(out.add(at), v);
                    } else {
                        _mm512_mask_storeu_ps(out.add(at), 0x3fff, v);
                    }
                }
            }
        }
        p += n;
    }
}

/// The AVX2 body of `interleave` for width 16 (the AVX2 tier's B panels): per 8 values of the streams and per
/// group of 8 streams, 8 loads, an 8x8 transpose (`unpack{lo,hi}_ps`, `shuffle_ps`, `permute2f128_ps`) and 8-float
/// stores at `dst[(p + q) * 16 + 8 * g..]`; the last `len mod 8` values scalar (no masked loads: slow on Zen 3).
///
/// # Safety
/// AVX2; every stream addresses `len` readable floats; `streams.len() <= 16`; `dst` holds `len * 16` floats.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn interleave_avx2(streams: &[*const f32], len: usize, dst: &mut [f32]) {
    use std::arch::x86_64::*;
    assert!(dst.len() >= len * 16 && streams.len() <= 16);
    let out = dst.as_mut_ptr();
    let full = len - len % 8;
    let mut p = 0;
    while p < full {
        for g in 0..2 {
            let z = _mm256_setzero_ps();
            // SAFETY: values p..p+8 of stream 8g+i are readable (p + 8 <= len, the caller's contract).
            let r: [__m256; 8] = std::array::from_fn(|i| match streams.get(8 * g + i) {
                Some(s) => unsafe { _mm256_loadu_ps(s.add(p)) },
                None => z,
            });
            let t0 = _mm256_unpacklo_ps(r[0], r[1]);
            let t1 = _mm256_unpackhi_ps(r[0], r[1]);
            let t2 = _mm256_unpacklo_ps(r[2], r[3]);
            let t3 = _mm256_unpackhi_ps(r[2], r[3]);
            let t4 = _mm256_unpacklo_ps(r[4], r[5]);
            let t5 = _mm256_unpackhi_ps(r[4], r[5]);
            let t6 = _mm256_unpacklo_ps(r[6], r[7]);
            let t7 = _mm256_unpackhi_ps(r[6], r[7]);
            let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
            let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
            let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
            let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
            let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
            let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
            let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
            let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
            let c = [
                _mm256_permute2f128_ps::<0x20>(u0, u4),
                _mm256_permute2f128_ps::<0x20>(u1, u5),
                _mm256_permute2f128_ps::<0x20>(u2, u6),
                _mm256_permute2f128_ps::<0x20>(u3, u7),
                _mm256_permute2f128_ps::<0x31>(u0, u4),
                _mm256_permute2f128_ps::<0x31>(u1, u5),
                _mm256_permute2f128_ps::<0x31>(u2, u6),
                _mm256_permute2f128_ps::<0x31>(u3, u7),
            ];
            for (q, &v) in c.iter().enumerate() {
                // SAFETY: dst[(p+q)*16 + 8g..][..8] is inside dst (p + q < len).
                unsafe { _mm256_storeu_ps(out.add((p + q) * 16 + 8 * g), v) };
            }
        }
        p += 8;
    }
    let tail: [*const f32; 16] = std::array::from_fn(|j| {
        streams
            .get(j)
            .map_or(std::ptr::null(), |s| s.wrapping_add(full))
    });
    // SAFETY: the caller's contract, values full..len of each stream.
    unsafe {
        interleave_scalar(
            &tail[..streams.len()],
            16,
            len - full,
            &mut dst[full * 16..],
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `interleave` path (the SIMD ones this host has) equals the scalar one, for widths 6/8/14/16/32, every
    /// stream count and lengths around the vector widths.
    #[test]
    fn interleave_matches_scalar() {
        let src: Vec<f32> = (0..32 * 40).map(|x| x as f32 + 0.5).collect();
        for width in [6, 8, 14, 16, 32] {
            for live in 0..=width {
                for len in [0, 1, 7, 8, 9, 15, 16, 17, 33, 40] {
                    let s: Vec<*const f32> = (0..live).map(|j| src[j * 40..].as_ptr()).collect();
                    let mut want = vec![f32::NAN; len * width + 3];
                    let mut got = want.clone();
                    // SAFETY: stream j holds 40 >= len floats.
                    unsafe {
                        interleave_scalar(&s, width, len, &mut want);
                        interleave(&s, width, len, &mut got);
                    }
                    assert_eq!(
                        got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                        want.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                        "width {width}, {live} streams, len {len}"
                    );
                    #[cfg(target_arch = "x86_64")]
                    {
                        if width == 16 && crate::gather::avx512() {
                            let mut g2 = vec![f32::NAN; len * width + 3];
                            // SAFETY: AVX-512F checked; as above.
                            unsafe { interleave_avx512(&s, width, len, &mut g2) };
                            assert_eq!(g2[..len * width], want[..len * width]);
                        }
                    }
                }
            }
        }
    }

    /// `pack_b_panels` (the 512-bit path where the host has it, else fixed-size copies) lays out every whole panel
    /// exactly as `pack_b` does, for row strides wider than the panels (the view's other columns are NaN and must
    /// not be read), odd `kc`, 1..5 panels, both panel widths; `prefetch_b` changes nothing.
    #[test]
    fn pack_b_panels_matches_pack_b() {
        for nr in [16, 32] {
            for panels in 1..=5 {
                for kc in [1, 2, 7, 33] {
                    for extra in [0, 3] {
                        let (p0, j0) = (2, 5);
                        let ld = j0 + panels * nr + extra;
                        let src: Vec<f32> = (0..(p0 + kc) * ld)
                            .map(|x| {
                                let j = x % ld;
                                if j >= j0 && j < j0 + panels * nr {
                                    x as f32 * 0.25
                                } else {
                                    f32::NAN
                                }
                            })
                            .collect();
                        let b = Operand {
                            ptr: src.as_ptr(),
                            rows: Offsets::Strided(ld as isize),
                            cols: Offsets::Strided(1),
                        };
                        let mut want = vec![-1f32; panels * kc * nr + 7];
                        let mut got = want.clone();
                        for q in 0..panels {
                            b.pack_b(p0, kc, j0 + q * nr, nr, nr, &mut want[q * kc * nr..]);
                        }
                        b.prefetch_b(p0, kc, j0, panels * nr);
                        assert!(b.pack_b_panels(p0, kc, j0, panels, nr, &mut got));
                        assert_eq!(
                            got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                            want.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                            "nr {nr}, {panels} panels, kc {kc}, ld {ld}"
                        );
                    }
                }
            }
        }
    }
}
