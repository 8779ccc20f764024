//! Paths that skip packing: matrix-vector and vector-matrix products (memory-bound: one streaming pass over the
//! matrix with 8-lane accumulators) and tiny products (below `TINY_FLOPS`, a direct loop beats packing). Results
//! go through the same alpha/beta/epilogue rules as the packed driver. Must not be used for large 2-D products.

use crate::driver::Gemm;
use crate::mat::Offsets;
use crate::pack::Operand;

/// Products with `m * n * k` at or below this skip packing. The direct loop costs ~1 ns per multiply-add, the
/// packed driver ~0.1 us for 5^3 and 0.2-0.3 us for 16^3 on every tier (measured 2026-11-25, Zen 5: 16^3 took
/// 2.9 us here with the former limit of 4096), so only the tiniest products stay here.
pub(crate) const TINY_FLOPS: usize = 64;

/// `out[r] = sum_p mat(r, p) * vec(p)` for `r < rows`, `p < k`; `mat(r, p) = ptr[ro.at(r) + ko.at(p)]`.
struct MatVec<'a> {
    ptr: *const f32,
    ro: &'a Offsets,
    ko: &'a Offsets,
    vptr: *const f32,
    vo: &'a Offsets,
}

impl MatVec<'_> {
    /// The vector-matrix case (`out[j] = sum_p vec(p) * mat(j, p)` with the
    /// matrix's `j` contiguous) in 512-bit FMAs: columns go in blocks of
    /// 256, 64 and 16 whose accumulators stay in registers for the whole
    /// contraction (const-generic blocks, so no accumulator is spilled), so
    /// the matrix streams once, row after row. The last `rows % 16` columns
    /// are summed as the portable loop does.
    ///
    /// # Safety
    /// AVX-512F; `mat(j, p) = ptr[p * ks + j]` and `vec(p)` readable for
    /// `j < rows`, `p < k`; `out` holds `rows` values.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn axpy_rows_avx512(&self, ks: isize, rows: usize, k: usize, out: &mut [f32]) {
        let gathered: Vec<f32>;
        let xs: &[f32] = match self.vo {
            // SAFETY: vec(p) is readable for p < k (contiguous here).
            Offsets::Strided(1) => unsafe { std::slice::from_raw_parts(self.vptr, k) },
            _ => {
                gathered = (0..k)
                    // SAFETY: vec(p) is readable for p < k.
                    .map(|p| unsafe { *self.vptr.offset(self.vo.at(p)) })
                    .collect();
                &gathered
            }
        };
        let mut j0 = 0;
        // Wide rows: column chunks whose sums stay in L1 while the matrix
        // streams through them row after row (contiguous reads; the
        // register blocks below would walk down 16 KiB-strided columns, a
        // new page per row). Each sum is the same chain of fused
        // multiply-adds in row order as in the register blocks.
        while rows - j0 >= AXPY_CHUNK {
            // SAFETY: columns j0..j0 + AXPY_CHUNK are < rows.
            unsafe { axpy_chunk_avx512(self.ptr, ks, j0, xs, &mut out[j0..j0 + AXPY_CHUNK]) };
            j0 += AXPY_CHUNK;
        }
        // SAFETY (every call): columns j0.. of the block are < rows.
        unsafe {
            while rows - j0 >= 256 {
                axpy_block_avx512::<16>(self.ptr, ks, j0, xs, out);
                j0 += 256;
            }
            while rows - j0 >= 64 {
                axpy_block_avx512::<4>(self.ptr, ks, j0, xs, out);
                j0 += 64;
            }
            while rows - j0 >= 16 {
                axpy_block_avx512::<1>(self.ptr, ks, j0, xs, out);
                j0 += 16;
            }
        }
        // The last `rows % 16` columns: a multiply then an add, as the
        // portable loop (a fused multiply-add keeps an overflowing product
        // finite where the evaluator's inf - inf gives NaN; a fuzz seed
        // found that on 1x3 by 3x3 with ±3.4e38).
        for (j, o) in out.iter_mut().enumerate().take(rows).skip(j0) {
            let mut a = 0f32;
            for (p, &x) in xs.iter().enumerate() {
                // SAFETY: mat(j, p) is readable for j < rows, p < k.
                a += unsafe { *self.ptr.offset(p as isize * ks + j as isize) } * x;
            }
            *o = a;
        }
    }

    fn run(&self, rows: usize, k: usize, out: &mut [f32]) {
        // SAFETY (all reads): the entry point validated every index in range.
        match (self.ro, self.ko, self.vo) {
            (Offsets::Strided(rs), Offsets::Strided(1), Offsets::Strided(1)) => {
                let v = unsafe { std::slice::from_raw_parts(self.vptr, k) };
                #[cfg(target_arch = "x86_64")]
                if crate::gather::avx512() {
                    // Eight rows at a time (eight streams in flight, each
                    // vector chunk loaded once), then four, the rest one by
                    // one. Every row of a group of 8 or 4 is the same
                    // computation, so the same bits either way.
                    let row = |r: usize| self.ptr.wrapping_offset(r as isize * rs);
                    let mut octs = out.chunks_exact_mut(8);
                    for (q, o) in (&mut octs).enumerate() {
                        let r = 8 * q;
                        // SAFETY: AVX-512F checked; rows r..r+8 hold k values.
                        let s = unsafe { dotn_avx512::<8>(std::array::from_fn(|i| row(r + i)), v) };
                        o.copy_from_slice(&s);
                    }
                    let base = rows - rows % 8;
                    let mut quads = octs.into_remainder().chunks_exact_mut(4);
                    for (q, o) in (&mut quads).enumerate() {
                        let r = base + 4 * q;
                        // SAFETY: AVX-512F checked; rows r..r+4 hold k values.
                        let s = unsafe { dotn_avx512::<4>(std::array::from_fn(|i| row(r + i)), v) };
                        o.copy_from_slice(&s);
                    }
                    let done = rows - rows % 4;
                    for (i, o) in quads.into_remainder().iter_mut().enumerate() {
                        // SAFETY: AVX-512F checked; the row holds k values.
                        *o = unsafe { dot_avx512(row(done + i), v) };
                    }
                    return;
                }
                for (r, o) in out.iter_mut().enumerate() {
                    let row =
                        unsafe { std::slice::from_raw_parts(self.ptr.offset(r as isize * rs), k) };
                    *o = dot8(row, v);
                }
            }
            (Offsets::Strided(1), Offsets::Strided(ks), _) => {
                out.iter_mut().for_each(|o| *o = 0.0);
                #[cfg(target_arch = "x86_64")]
                if crate::gather::avx512() {
                    // SAFETY: AVX-512F checked; the reads as below.
                    unsafe { self.axpy_rows_avx512(*ks, rows, k, out) };
                    return;
                }
                for p in 0..k {
                    let x = unsafe { *self.vptr.offset(self.vo.at(p)) };
                    let col = unsafe {
                        std::slice::from_raw_parts(self.ptr.offset(p as isize * ks), rows)
                    };
                    for (o, &a) in out.iter_mut().zip(col) {
                        *o += a * x;
                    }
                }
            }
            _ => {
                for (r, o) in out.iter_mut().enumerate() {
                    let base = self.ro.at(r);
                    let mut acc = 0f32;
                    for p in 0..k {
                        acc += unsafe {
                            *self.ptr.offset(base + self.ko.at(p))
                                * *self.vptr.offset(self.vo.at(p))
                        };
                    }
                    *o = acc;
                }
            }
        }
    }
}

/// `out[j0 + c] = sum_p xs[p] * ptr[p * ks + j0 + c]` for the `16 * W`
/// columns `c` of one block.
///
/// # Safety
/// AVX-512F; the selected columns of every row `p < xs.len()` are
/// readable and `out` holds them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn axpy_block_avx512<const W: usize>(
    ptr: *const f32,
    ks: isize,
    j0: usize,
    xs: &[f32],
    out: &mut [f32],
) {
    use std::arch::x86_64::*;
    let mut acc = [_mm512_setzero_ps(); W];
    // SAFETY (whole body): reads at rows p < xs.len(), columns j0.. of the
    // block; writes the same columns of `out`.
    unsafe {
        let mut row = ptr.add(j0);
        for &x in xs {
            let xv = _mm512_set1_ps(x);
            for (q, a) in acc.iter_mut().enumerate() {
                *a = _mm512_fmadd_ps(_mm512_loadu_ps(row.add(16 * q)), xv, *a);
            }
            row = row.wrapping_offset(ks);
        }
        let o = out.as_mut_ptr().add(j0);
        for (q, a) in acc.iter().enumerate() {
            _mm512_storeu_ps(o.add(16 * q), *a);
        }
    }
}

/// Columns per chunk of the streaming vector-matrix loop (16 KiB of sums).
const AXPY_CHUNK: usize = 4096;

/// `out[c] = sum_p xs[p] * ptr[p * ks + j0 + c]` for the `AXPY_CHUNK`
/// columns `c` of one chunk, the sums in `out` (zeroed by the caller),
/// each a chain of fused multiply-adds in row order.
///
/// # Safety
/// AVX-512F; the chunk's columns of every row `p < xs.len()` are readable;
/// `out` holds `AXPY_CHUNK` values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn axpy_chunk_avx512(ptr: *const f32, ks: isize, j0: usize, xs: &[f32], out: &mut [f32]) {
    use std::arch::x86_64::*;
    debug_assert_eq!(out.len(), AXPY_CHUNK);
    // SAFETY (whole body): reads of rows p < xs.len() at the chunk's
    // columns; `out` holds the chunk.
    unsafe {
        let o = out.as_mut_ptr();
        let mut row = ptr.add(j0);
        for &x in xs {
            let xv = _mm512_set1_ps(x);
            let mut c = 0;
            while c < AXPY_CHUNK {
                for q in 0..4 {
                    let at = c + 16 * q;
                    let a = _mm512_loadu_ps(o.add(at));
                    let m = _mm512_loadu_ps(row.add(at));
                    _mm512_storeu_ps(o.add(at), _mm512_fmadd_ps(m, xv, a));
                }
                c += 64;
            }
            row = row.wrapping_offset(ks);
        }
    }
}

/// `sum_p row[p] * v[p]` in 512-bit fused multiply-adds: four
/// accumulators of 16 lanes (independent chains, so the loads stream),
/// joined at the end, then the last `len % 16` products in order. A
/// reassociation of the sum (rounding only, as every dot of the JIT).
///
/// # Safety
/// AVX-512F; `row` addresses `v.len()` readable values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn dot_avx512(row: *const f32, v: &[f32]) -> f32 {
    use std::arch::x86_64::*;
    let k = v.len();
    // SAFETY (whole body): reads of row[..k] and v[..k].
    unsafe {
        let vp = v.as_ptr();
        let mut acc = [_mm512_setzero_ps(); 4];
        let mut p = 0;
        while p + 64 <= k {
            for (q, a) in acc.iter_mut().enumerate() {
                let at = p + 16 * q;
                *a = _mm512_fmadd_ps(
                    _mm512_loadu_ps(row.add(at)),
                    _mm512_loadu_ps(vp.add(at)),
                    *a,
                );
            }
            p += 64;
        }
        while p + 16 <= k {
            acc[0] = _mm512_fmadd_ps(
                _mm512_loadu_ps(row.add(p)),
                _mm512_loadu_ps(vp.add(p)),
                acc[0],
            );
            p += 16;
        }
        let s01 = _mm512_add_ps(acc[0], acc[1]);
        let s23 = _mm512_add_ps(acc[2], acc[3]);
        let mut s = _mm512_reduce_add_ps(_mm512_add_ps(s01, s23));
        while p < k {
            s += *row.add(p) * *vp.add(p);
            p += 1;
        }
        s
    }
}

/// `dot_avx512` of `R` rows (4 or 8) against one vector at once: each
/// 16-value chunk of `v` loaded once for the rows, two accumulators per
/// row (2·R independent chains), joined at the end, then the last
/// `len % 16` products in order. A reassociation of each sum (rounding
/// only, as every dot of the JIT).
///
/// # Safety
/// AVX-512F; each row addresses `v.len()` readable values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn dotn_avx512<const R: usize>(rows: [*const f32; R], v: &[f32]) -> [f32; R] {
    use std::arch::x86_64::*;
    let k = v.len();
    // SAFETY (whole body): reads of each row[..k] and v[..k].
    unsafe {
        let vp = v.as_ptr();
        let mut acc = [[_mm512_setzero_ps(); 2]; R];
        let mut p = 0;
        while p + 32 <= k {
            let v0 = _mm512_loadu_ps(vp.add(p));
            let v1 = _mm512_loadu_ps(vp.add(p + 16));
            for (a, &row) in acc.iter_mut().zip(&rows) {
                a[0] = _mm512_fmadd_ps(_mm512_loadu_ps(row.add(p)), v0, a[0]);
                a[1] = _mm512_fmadd_ps(_mm512_loadu_ps(row.add(p + 16)), v1, a[1]);
            }
            p += 32;
        }
        if p + 16 <= k {
            let v0 = _mm512_loadu_ps(vp.add(p));
            for (a, &row) in acc.iter_mut().zip(&rows) {
                a[0] = _mm512_fmadd_ps(_mm512_loadu_ps(row.add(p)), v0, a[0]);
            }
            p += 16;
        }
        let mut out = [0f32; R];
        for ((o, a), &row) in out.iter_mut().zip(&acc).zip(&rows) {
            let mut s = _mm512_reduce_add_ps(_mm512_add_ps(a[0], a[1]));
            for q in p..k {
                s += *row.add(q) * *vp.add(q);
            }
            *o = s;
        }
        out
    }
}

/// A dot product with 8 independent lanes (vectorisable without reassociation).
fn dot8(x: &[f32], y: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (xc, yc) = (x.chunks_exact(8), y.chunks_exact(8));
    let (xr, yr) = (xc.remainder(), yc.remainder());
    for (a, b) in xc.zip(yc) {
        for l in 0..8 {
            acc[l] += a[l] * b[l];
        }
    }
    let mut s = acc.iter().sum::<f32>();
    for (a, b) in xr.iter().zip(yr) {
        s += a * b;
    }
    s
}

/// The matrix-vector form of a product with one row (`m == 1`: B's columns
/// against A's row) or one column (A's rows against B's column).
fn matvec<'a>(g: &'a Gemm<Operand, Operand>) -> MatVec<'a> {
    if g.n == 1 {
        MatVec {
            ptr: g.a.ptr,
            ro: &g.a.rows,
            ko: &g.a.cols,
            vptr: g.b.ptr,
            vo: &g.b.rows,
        }
    } else {
        MatVec {
            ptr: g.b.ptr,
            ro: &g.b.cols,
            ko: &g.b.rows,
            vptr: g.a.ptr,
            vo: &g.a.cols,
        }
    }
}

/// Tries the unpacked paths; returns false when the product should go to the packed driver.
pub(crate) fn try_unpacked(g: &Gemm<Operand, Operand>) -> bool {
    let (m, n, k) = (g.m, g.n, g.k);
    if m == 0 || n == 0 || k == 0 {
        return false;
    }
    // A plain product into a contiguous output row or column: computed in
    // place (no result buffer, no per-element copy).
    let plain = g.alpha == 1.0 && g.beta == 0.0 && g.epi.is_none();
    if plain && (m == 1 || n == 1) {
        let (len, lin) = if m == 1 {
            (n, crate::driver::linear(g.c.cols, 0, n))
        } else {
            (m, crate::driver::linear(g.c.rows, 0, m))
        };
        if lin == Some(1) {
            // SAFETY: C's `len` elements from (0, 0) are contiguous and inside
            // C (validated by the entry point); nothing else reads them.
            let out = unsafe { std::slice::from_raw_parts_mut(g.c_ptr(0, 0), len) };
            matvec(g).run(len, k, out);
            return true;
        }
    }
    let mut vals;
    if n == 1 || m == 1 {
        let len = if n == 1 { m } else { n };
        vals = vec![0f32; len];
        matvec(g).run(len, k, &mut vals);
    } else if m * n * k <= TINY_FLOPS {
        vals = vec![0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                let mut acc = 0f32;
                for p in 0..k {
                    acc += g.a.get(i, p) * g.b.get(p, j);
                }
                vals[i * n + j] = acc;
            }
        }
    } else {
        return false;
    }
    // `vals` is m x n row-major (one of m, n may be 1).
    let mut row = vec![0f32; n];
    for i in 0..m {
        for (j, r) in row.iter_mut().enumerate() {
            let p = g.c_ptr(i, j);
            let v = g.alpha * vals[i * n + j];
            // SAFETY: inside C (validated by the entry point).
            *r = if g.beta == 0.0 {
                v
            } else {
                v + g.beta * unsafe { *p }
            };
        }
        if let Some(e) = g.epi {
            e.apply(
                g.row_base + i,
                g.col_base,
                g.bias_row_base + i,
                g.col_base,
                &mut row,
            );
        }
        for (j, r) in row.iter().enumerate() {
            // SAFETY: as above.
            unsafe { *g.c_ptr(i, j) = *r };
        }
    }
    true
}
