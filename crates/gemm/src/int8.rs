//! 8-bit integer dots (s8 or u8 operands, s32/u32 result) on AVX-512 VNNI:
//! `vpdpbusd` multiplies 64 unsigned-by-signed byte pairs and adds each
//! group of four into a 32-bit lane, four times the multiply-adds of an
//! f32 FMA per instruction. An s8 lhs is packed as `a + 128` (u8) and a
//! u8 rhs as `b - 128` (s8); the shifts come back out exactly through the
//! row and column sums of the packed values:
//!
//! `Σ a·b = Σ a'·b' + offB·Σ a' − offA·Σ b' − k·offA·offB`
//!
//! with `a = a' − offA`, `b = b' + offB`. Every sum is a wrapping i32 sum,
//! so the result is the exact dot wrapped to 32 bits in any order: the
//! evaluator's wrapping integer accumulation, bit for bit.
//!
//! Blocking: `KC` quads of the contraction at a time, `NC` columns of B
//! packed per block (panels of `NR` = 32 columns, 128 bytes per quad),
//! strips of `MR` = 8 rows of A packed per panel pass; an 8×32 register
//! tile (16 zmm accumulators). Edges are zero-padded in the packed copies
//! (a zero byte adds nothing to either sum) and never stored.
//!
//! Must not run without the `avx512f`, `avx512bw` and `avx512vnni` CPU
//! features ([`available`]); callers take the f32 or the generic path then.

use crate::dot::DotPlan;
use crate::error::{GemmError, Result};
use crate::mat::Offsets;
use crate::{KernelKind, Options};
use rayon::prelude::*;
use std::cell::RefCell;

/// Register tile rows.
const MR: usize = 8;
/// Register tile columns (two zmm of 16 i32).
const NR: usize = 32;
/// Contraction quads (4 bytes each) per block: 1 KiB of each A row.
const KC: usize = 256;
/// B columns packed per block (KC·4·NC bytes = 512 KiB: half of L2).
const NC: usize = 512;

/// Whether the int8 engine runs for `opts` on this host: the AVX-512 tier
/// is selected (so `RXLA_ISA=avx2|portable` keeps the other paths) and the
/// CPU has VNNI.
pub fn available(opts: &Options) -> bool {
    opts.kernel == KernelKind::Avx512 && vnni()
}

#[cfg(target_arch = "x86_64")]
fn vnni() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vnni")
}

#[cfg(not(target_arch = "x86_64"))]
fn vnni() -> bool {
    false
}

thread_local! {
    /// Packed B blocks, reused between calls (fresh megabytes per call cost
    /// page faults).
    static PACKED_B: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// A raw pointer shared by the row-strip tasks of one block (each task
/// touches disjoint rows).
#[derive(Clone, Copy)]
struct Shared<T>(*mut T);
// SAFETY: see the type's doc: every task writes rows no other task writes.
unsafe impl<T> Send for Shared<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for Shared<T> {}
impl<T> Shared<T> {
    /// The pointer (a method, so closures capture the whole `Shared`).
    fn get(self) -> *mut T {
        self.0
    }
}

/// One batch's operands and result with the plan's offsets.
struct Problem<'a> {
    m: usize,
    n: usize,
    k: usize,
    a: *const u8,
    a_rows: &'a Offsets,
    a_cols: &'a Offsets,
    /// XOR applied to every A byte (0x80 for s8: a + 128 as u8).
    a_flip: u8,
    b: *const u8,
    b_rows: &'a Offsets,
    b_cols: &'a Offsets,
    /// XOR applied to every B byte (0x80 for u8: b − 128 as s8).
    b_flip: u8,
    c: *mut i32,
    c_rows: &'a Offsets,
    c_cols: &'a Offsets,
}

// SAFETY: the row-strip tasks of one product only read A and B and write
// disjoint rows of C.
unsafe impl Sync for Problem<'_> {}

impl DotPlan {
    /// Runs the dot on 8-bit integer operands (`lhs_signed`: s8, else u8;
    /// likewise `rhs_signed`) into a 32-bit integer result (the exact sum
    /// wrapped to 32 bits; s32 and u32 share the bits), in the layouts the
    /// plan was built with. An error when [`available`] is false.
    ///
    /// # Safety
    /// `lhs` and `rhs` hold `extents()[0]` and `extents()[1]` bytes, `out`
    /// holds `extents()[2]` 4-byte-aligned i32 and overlaps neither input.
    pub unsafe fn run_i8_raw(
        &self,
        lhs: *const u8,
        lhs_signed: bool,
        rhs: *const u8,
        rhs_signed: bool,
        out: *mut i32,
        opts: &Options,
    ) -> Result<()> {
        if !available(opts) {
            return Err(GemmError::new(
                "int8 dot: needs the AVX-512 tier with VNNI on this CPU",
            ));
        }
        let (_, _, threads) = opts.resolve("int8 dot")?;
        let (lp, rp, op) = (Shared(lhs as *mut u8), Shared(rhs as *mut u8), Shared(out));
        let one = |b: usize, threads: usize| {
            let p = Problem {
                m: self.m,
                n: self.n,
                k: self.k,
                a: lp.get().wrapping_offset(self.lhs_batch.at(b)),
                a_rows: &self.a_rows,
                a_cols: &self.a_cols,
                a_flip: if lhs_signed { 0x80 } else { 0 },
                b: rp.get().wrapping_offset(self.rhs_batch.at(b)),
                b_rows: &self.b_rows,
                b_cols: &self.b_cols,
                b_flip: if rhs_signed { 0 } else { 0x80 },
                c: op.get().wrapping_offset(self.out_batch.at(b)),
                c_rows: &self.c_rows,
                c_cols: &self.c_cols,
            };
            let big = p.m.saturating_mul(p.n).saturating_mul(p.k) >= opts.parallel_threshold;
            // SAFETY: the caller's contract, per batch.
            unsafe { run(&p, if big { threads } else { 1 }) }
        };
        if threads > 1 && self.batch >= threads {
            (0..self.batch).into_par_iter().for_each(|b| one(b, 1));
        } else {
            (0..self.batch).for_each(|b| one(b, threads));
        }
        Ok(())
    }
}

/// One product `C = A·B` (m×k by k×n), blocked and packed.
///
/// # Safety
/// Every offset the problem's tables give for its extents lies inside
/// its buffer; `c` overlaps neither input.
unsafe fn run(p: &Problem, threads: usize) {
    let (m, n, k) = (p.m, p.n, p.k);
    if m == 0 || n == 0 {
        return;
    }
    let quads = k.div_ceil(4);
    let off_a = i32::from(p.a_flip);
    let off_b = i32::from(p.b_flip);
    // Row sums of A' and column sums of B' over the whole contraction,
    // complete before the last block stores (see `store`).
    let mut row_sums = vec![0i32; m];
    let mut col_sums = vec![0i32; n];
    let fixed = (k as i32).wrapping_mul(off_a).wrapping_mul(off_b);
    if quads == 0 {
        for i in 0..m {
            for j in 0..n {
                // SAFETY: (i, j) is an output element.
                unsafe { *p.c.offset(p.c_rows.at(i) + p.c_cols.at(j)) = 0 };
            }
        }
        return;
    }
    PACKED_B.with(|cell| {
        let mut packed_b = cell.borrow_mut();
        for q0 in (0..quads).step_by(KC) {
            let kcq = KC.min(quads - q0);
            let last_k = q0 + kcq == quads;
            for j0 in (0..n).step_by(NC) {
                let nc = NC.min(n - j0);
                let panels = nc.div_ceil(NR);
                packed_b.clear();
                packed_b.resize(panels * kcq * 4 * NR, 0);
                // SAFETY: the block's columns and quads are inside B.
                unsafe {
                    pack_b(
                        p,
                        q0,
                        kcq,
                        j0,
                        nc,
                        &mut packed_b,
                        &mut col_sums[j0..j0 + nc],
                    )
                };
                let strips = m.div_ceil(MR);
                let rs = Shared(row_sums.as_mut_ptr());
                let bref: &[u8] = &packed_b;
                let col_sums = &col_sums;
                let strip = |s: usize| {
                    let i0 = s * MR;
                    let mr = MR.min(m - i0);
                    let mut packed_a = [0u32; KC * MR];
                    let mut sums = [0i32; MR];
                    // SAFETY: the strip's rows and quads are inside A.
                    unsafe { pack_a(p, q0, kcq, i0, mr, &mut packed_a, &mut sums) };
                    if j0 == 0 {
                        for (r, &s) in sums.iter().enumerate().take(mr) {
                            // SAFETY: rows i0..i0+mr are this task's alone.
                            unsafe {
                                let x = rs.get().add(i0 + r);
                                *x = (*x).wrapping_add(s);
                            }
                        }
                    }
                    for pj in 0..panels {
                        let jj = j0 + pj * NR;
                        let nr = NR.min(n - jj);
                        let mut acc = [[0i32; NR]; MR];
                        // SAFETY: VNNI is available (`run_i8_raw` checked);
                        // both packed buffers hold `kcq` quads.
                        unsafe {
                            tile(kcq, &packed_a, &bref[pj * kcq * 4 * NR..], &mut acc);
                        }
                        let fix = last_k.then(|| {
                            // SAFETY: the strip's row sums are final (this
                            // task added the last block's part above).
                            let rows: [i32; MR] = std::array::from_fn(|r| {
                                if r < mr {
                                    unsafe { *rs.get().add(i0 + r) }
                                } else {
                                    0
                                }
                            });
                            (rows, &col_sums[jj..jj + nr])
                        });
                        // SAFETY: the tile's rows and columns are output
                        // elements; rows i0..i0+mr are this task's alone.
                        unsafe {
                            store(p, i0, mr, jj, nr, &acc, q0 == 0, fix, off_a, off_b, fixed)
                        };
                    }
                };
                if threads > 1 && strips > 1 {
                    (0..strips).into_par_iter().for_each(strip);
                } else {
                    (0..strips).for_each(strip);
                }
            }
        }
    });
}

/// Packs quads `q0..q0+kcq` of A's rows `i0..i0+mr` (flipped) as
/// `packed[q·MR + r]` (four bytes, lowest k first; zeros past `k` and past
/// `mr`) and adds each row's bytes to `sums[r]`.
///
/// # Safety
/// The rows and contraction indices are inside A.
unsafe fn pack_a(
    p: &Problem,
    q0: usize,
    kcq: usize,
    i0: usize,
    mr: usize,
    packed: &mut [u32; KC * MR],
    sums: &mut [i32; MR],
) {
    let k0 = 4 * q0;
    let k1 = p.k.min(4 * (q0 + kcq));
    let flip = u32::from_ne_bytes([p.a_flip; 4]);
    for r in 0..MR {
        if r >= mr {
            for q in 0..kcq {
                packed[q * MR + r] = 0;
            }
            continue;
        }
        // SAFETY: row i0 + r is inside A.
        let row = unsafe { p.a.offset(p.a_rows.at(i0 + r)) };
        let mut sum = 0i32;
        let full = (k1 - k0) / 4;
        match p.a_cols {
            Offsets::Strided(1) => {
                for q in 0..full {
                    // SAFETY: bytes k0+4q..k0+4q+4 are inside the row.
                    let w = unsafe { (row.add(k0 + 4 * q) as *const u32).read_unaligned() } ^ flip;
                    sum = sum.wrapping_add(byte_sum(w));
                    packed[q * MR + r] = w;
                }
            }
            cols => {
                for q in 0..full {
                    let mut b = [0u8; 4];
                    for (t, x) in b.iter_mut().enumerate() {
                        // SAFETY: contraction index k0+4q+t < k.
                        *x = unsafe { *row.offset(cols.at(k0 + 4 * q + t)) } ^ p.a_flip;
                    }
                    let w = u32::from_le_bytes(b);
                    sum = sum.wrapping_add(byte_sum(w));
                    packed[q * MR + r] = w;
                }
            }
        }
        for q in full..kcq {
            let mut b = [0u8; 4];
            for (t, x) in b.iter_mut().enumerate() {
                let kk = k0 + 4 * q + t;
                if kk < k1 {
                    // SAFETY: kk < k.
                    *x = unsafe { *row.offset(p.a_cols.at(kk)) } ^ p.a_flip;
                }
            }
            let w = u32::from_le_bytes(b);
            sum = sum.wrapping_add(byte_sum(w));
            packed[q * MR + r] = w;
        }
        sums[r] = sum;
    }
}

/// The four unsigned bytes of `w` summed.
fn byte_sum(w: u32) -> i32 {
    w.to_le_bytes().iter().map(|&b| i32::from(b)).sum()
}

/// Packs quads `q0..q0+kcq` of B's columns `j0..j0+nc` (flipped) as panels
/// of `NR` columns: panel `pj`, quad `q`, column `c`, byte `t` at
/// `((pj·kcq + q)·NR + c)·4 + t`; zeros past `k` and past `nc`. Adds each
/// column's signed bytes to `sums[c]`.
///
/// # Safety
/// The columns and contraction indices are inside B.
unsafe fn pack_b(
    p: &Problem,
    q0: usize,
    kcq: usize,
    j0: usize,
    nc: usize,
    packed: &mut [u8],
    sums: &mut [i32],
) {
    let k0 = 4 * q0;
    let k1 = p.k.min(4 * (q0 + kcq));
    let panels = nc.div_ceil(NR);
    let flip = p.b_flip;
    if let Offsets::Strided(1) = p.b_cols {
        // Rows of B contiguous (row-major k×n): each quad's four rows
        // interleaved into one word per column.
        for q in 0..kcq {
            let rows: [Option<*const u8>; 4] = std::array::from_fn(|t| {
                let kk = k0 + 4 * q + t;
                // SAFETY: row kk < k is inside B, columns j0..j0+nc with it.
                (kk < k1).then(|| unsafe { p.b.offset(p.b_rows.at(kk)).add(j0) })
            });
            let flips: [u32; 4] = std::array::from_fn(|t| {
                if rows[t].is_some() {
                    u32::from(flip) << (8 * t)
                } else {
                    0
                }
            });
            let flip_word = flips.iter().fold(0, |a, &f| a | f);
            for pj in 0..panels {
                let w = NR.min(nc - pj * NR);
                let at = (pj * kcq + q) * NR * 4;
                let dst = &mut packed[at..at + 4 * w];
                let cs = &mut sums[pj * NR..pj * NR + w];
                for c in 0..w {
                    let mut word = 0u32;
                    for (t, r) in rows.iter().enumerate() {
                        if let Some(r) = r {
                            // SAFETY: column j0 + pj·NR + c < n.
                            word |= u32::from(unsafe { *r.add(pj * NR + c) }) << (8 * t);
                        }
                    }
                    let word = word ^ flip_word;
                    dst[4 * c..4 * c + 4].copy_from_slice(&word.to_le_bytes());
                    let sb = word.to_le_bytes().map(|b| i32::from(b as i8));
                    cs[c] = cs[c].wrapping_add(sb[0] + sb[1] + sb[2] + sb[3]);
                }
            }
        }
        return;
    }
    for (c, col_sum) in sums.iter_mut().enumerate().take(nc) {
        let (pj, cc) = (c / NR, c % NR);
        // SAFETY: column j0 + c is inside B.
        let col = unsafe { p.b.offset(p.b_cols.at(j0 + c)) };
        let mut sum = 0i32;
        for kk in k0..k1 {
            let (q, t) = ((kk - k0) / 4, (kk - k0) % 4);
            // SAFETY: kk < k.
            let v = unsafe { *col.offset(p.b_rows.at(kk)) } ^ flip;
            packed[((pj * kcq + q) * NR + cc) * 4 + t] = v;
            sum = sum.wrapping_add(i32::from(v as i8));
        }
        *col_sum = col_sum.wrapping_add(sum);
    }
}

/// Writes (`first`) or adds one tile into C; on the contraction's last
/// block also the shift corrections (`fix`: the rows' A' sums and the
/// columns' B' sums): `+ offB·rowsum − offA·colsum − k·offA·offB`.
///
/// # Safety
/// Rows `i0..i0+mr` and columns `jj..jj+nr` are output elements.
#[allow(clippy::too_many_arguments)]
unsafe fn store(
    p: &Problem,
    i0: usize,
    mr: usize,
    jj: usize,
    nr: usize,
    acc: &[[i32; NR]; MR],
    first: bool,
    fix: Option<([i32; MR], &[i32])>,
    off_a: i32,
    off_b: i32,
    fixed: i32,
) {
    for (r, row_acc) in acc.iter().enumerate().take(mr) {
        // SAFETY: row i0 + r is an output row.
        let row = unsafe { p.c.offset(p.c_rows.at(i0 + r)) };
        let row_fix = fix.map_or(0, |(rows, _)| {
            off_b.wrapping_mul(rows[r]).wrapping_sub(fixed)
        });
        let value = |c: usize, v: i32| match fix {
            Some((_, cols)) => v
                .wrapping_add(row_fix)
                .wrapping_sub(off_a.wrapping_mul(cols[c])),
            None => v,
        };
        if let Offsets::Strided(1) = p.c_cols {
            // A contiguous row: plain slice loops (vectorised).
            // SAFETY: columns jj..jj+nr of the row are output elements.
            let dst = unsafe { std::slice::from_raw_parts_mut(row.add(jj), nr) };
            if first {
                for (c, (d, &v)) in dst.iter_mut().zip(row_acc).enumerate() {
                    *d = value(c, v);
                }
            } else {
                for (c, (d, &v)) in dst.iter_mut().zip(row_acc).enumerate() {
                    *d = d.wrapping_add(value(c, v));
                }
            }
            continue;
        }
        for (c, &v) in row_acc.iter().enumerate().take(nr) {
            let v = value(c, v);
            // SAFETY: column jj + c is an output column.
            let dst = unsafe { row.offset(p.c_cols.at(jj + c)) };
            // SAFETY: as above.
            unsafe { *dst = if first { v } else { (*dst).wrapping_add(v) } };
        }
    }
}

/// The 8×32 register tile over `kcq` quads: `acc[r][c] = Σ_q Σ_t
/// a[q·8 + r].byte(t) · b[(q·32 + c)·4 + t]` (u8 × s8, wrapping i32).
///
/// # Safety
/// The host has avx512f, avx512bw and avx512vnni; `b` holds `kcq·128`
/// bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn tile(kcq: usize, a: &[u32; KC * MR], b: &[u8], acc: &mut [[i32; NR]; MR]) {
    use std::arch::x86_64::*;
    debug_assert!(b.len() >= kcq * 4 * NR);
    let mut c = [[_mm512_setzero_si512(); 2]; MR];
    let bp = b.as_ptr();
    for q in 0..kcq {
        // SAFETY: quad q's 128 bytes are inside `b`.
        let (b0, b1) = unsafe {
            (
                _mm512_loadu_si512(bp.add(q * 128) as *const __m512i),
                _mm512_loadu_si512(bp.add(q * 128 + 64) as *const __m512i),
            )
        };
        for (r, cr) in c.iter_mut().enumerate() {
            let av = _mm512_set1_epi32(a[q * MR + r] as i32);
            cr[0] = _mm512_dpbusd_epi32(cr[0], av, b0);
            cr[1] = _mm512_dpbusd_epi32(cr[1], av, b1);
        }
    }
    for (r, cr) in c.iter().enumerate() {
        // SAFETY: each row of `acc` holds 32 i32.
        unsafe {
            _mm512_storeu_si512(acc[r].as_mut_ptr() as *mut __m512i, cr[0]);
            _mm512_storeu_si512(acc[r].as_mut_ptr().add(16) as *mut __m512i, cr[1]);
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn tile(_: usize, _: &[u32; KC * MR], _: &[u8], _: &mut [[i32; NR]; MR]) {
    unreachable!("int8::available is false off x86_64")
}
