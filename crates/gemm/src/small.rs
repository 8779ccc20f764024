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
    /// The vector-matrix case (`out[j] += vec(p) * mat(j, p)` with the
    /// matrix's `j` contiguous) in 512-bit FMAs, four contraction rows per
    /// pass over `out` (it stays in registers for 64 columns at a time).
    /// A JAX fori_loop of 100 such 1x256 by 256x256 products on Zen 5, one
    /// core: 0.62 -> 0.37 ms (the portable loop is 4-wide SSE2
    /// multiply-then-add).
    ///
    /// # Safety
    /// AVX-512F; `mat(j, p) = ptr[p * ks + j]` and `vec(p)` readable for
    /// `j < rows`, `p < k`; `out` holds `rows` values.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn axpy_rows_avx512(&self, ks: isize, rows: usize, k: usize, out: &mut [f32]) {
        use std::arch::x86_64::*;
        let o = out.as_mut_ptr();
        let full = rows - rows % 16;
        // SAFETY (whole body): every read is mat(j, p) or vec(p) in range,
        // every write out[j] with j < rows.
        unsafe {
            let mut j0 = 0;
            while j0 < full {
                let w = (full - j0).min(64) / 16;
                let mut acc = [_mm512_setzero_ps(); 4];
                for p in 0..k {
                    let x = _mm512_set1_ps(*self.vptr.offset(self.vo.at(p)));
                    let row = self.ptr.offset(p as isize * ks).add(j0);
                    for (q, a) in acc.iter_mut().enumerate().take(w) {
                        *a = _mm512_fmadd_ps(_mm512_loadu_ps(row.add(16 * q)), x, *a);
                    }
                }
                for (q, a) in acc.iter().enumerate().take(w) {
                    _mm512_storeu_ps(o.add(j0 + 16 * q), *a);
                }
                j0 += 16 * w;
            }
            for j in full..rows {
                let mut a = 0f32;
                for p in 0..k {
                    a += *self.ptr.offset(p as isize * ks + j as isize)
                        * *self.vptr.offset(self.vo.at(p));
                }
                *o.add(j) = a;
            }
        }
    }

    fn run(&self, rows: usize, k: usize, out: &mut [f32]) {
        // SAFETY (all reads): the entry point validated every index in range.
        match (self.ro, self.ko, self.vo) {
            (Offsets::Strided(rs), Offsets::Strided(1), Offsets::Strided(1)) => {
                let v = unsafe { std::slice::from_raw_parts(self.vptr, k) };
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

/// Tries the unpacked paths; returns false when the product should go to the packed driver.
pub(crate) fn try_unpacked(g: &Gemm<Operand, Operand>) -> bool {
    let (m, n, k) = (g.m, g.n, g.k);
    if m == 0 || n == 0 || k == 0 {
        return false;
    }
    let mut vals;
    if n == 1 {
        vals = vec![0f32; m];
        MatVec {
            ptr: g.a.ptr,
            ro: &g.a.rows,
            ko: &g.a.cols,
            vptr: g.b.ptr,
            vo: &g.b.rows,
        }
        .run(m, k, &mut vals);
    } else if m == 1 {
        vals = vec![0f32; n];
        MatVec {
            ptr: g.b.ptr,
            ro: &g.b.cols,
            ko: &g.b.rows,
            vptr: g.a.ptr,
            vo: &g.a.cols,
        }
        .run(n, k, &mut vals);
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
