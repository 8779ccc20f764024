//! The BLIS loop nest: `jc` (nc columns) → `pc` (kc, B block packed once, in parallel) → per chunk `ic` (mc rows,
//! A block packed by the thread running the chunk) → `jr` (NR panel, stays in L1) → `ir` (MR panel) → micro-kernel
//! (one thread with every row in one `mc` block: B packed a few panels at a time inside the `jr` loop instead, the
//! next group prefetched while the tiles run; few row tiles: B read in place); the epilogue
//! runs on each finished tile while it is in L1 (last `pc` block only). Threads take chunks (8 per thread, work stealing) of
//! either the rows (sharing the packed B block) or the column panels (each packing A), whichever has more tiles. This module must not know
//! operand layouts (packers do) nor validate arguments (entry points do).

use crate::blocking::Blocking;
use crate::epilogue::Epilogue;
use crate::kernel::{Kernel, MAX_TILE};
use crate::mat::Offsets;
use crate::pack::{PackA, PackB};
use crate::scratch::with_scratch;
use rayon::prelude::*;

/// Where C lives: element `(i, j)` at `ptr + rows.at(i) + cols.at(j)`.
pub(crate) struct CTarget<'a> {
    pub ptr: *mut f32,
    pub rows: &'a Offsets,
    pub cols: &'a Offsets,
}

/// The stride of indices `start..start+len` of `off` when they are equally spaced.
#[inline]
pub(crate) fn linear(off: &Offsets, start: usize, len: usize) -> Option<isize> {
    match off {
        Offsets::Strided(s) => Some(*s),
        Offsets::Table(t) => {
            if len < 2 {
                return Some(1);
            }
            let s = t[start + 1] - t[start];
            (0..len)
                .all(|q| t[start + q] == t[start] + q as isize * s)
                .then_some(s)
        }
    }
}

/// One GEMM `C[m x n] = alpha * A[m x k] * B[k x n] + beta * C`, then the epilogue. Epilogue row numbers are
/// `row_base + i` (bias index `bias_row_base + i`), columns `col_base + j` (bias index the same).
pub(crate) struct Gemm<'a, A: PackA, B: PackB> {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: &'a A,
    pub b: &'a B,
    pub c: CTarget<'a>,
    pub alpha: f32,
    pub beta: f32,
    pub epi: Option<&'a Epilogue<'a>>,
    pub row_base: usize,
    pub bias_row_base: usize,
    pub col_base: usize,
}

// SAFETY: C is written through disjoint tiles by the threads; A and B are read-only.
unsafe impl<A: PackA, B: PackB> Sync for Gemm<'_, A, B> {}

impl<A: PackA, B: PackB> Gemm<'_, A, B> {
    #[inline(always)]
    pub(crate) fn c_ptr(&self, i: usize, j: usize) -> *mut f32 {
        // SAFETY: (i, j) is inside the output the entry point validated.
        unsafe { self.c.ptr.offset(self.c.rows.at(i) + self.c.cols.at(j)) }
    }

    /// Applies the epilogue to rows `i..i+rows`, columns `j..j+cols` of C.
    fn epilogue_tile(&self, epi: &Epilogue, i: usize, rows: usize, j: usize, cols: usize) {
        let contiguous = linear(self.c.cols, j, cols) == Some(1);
        let jg = self.col_base + j;
        let mut buf = [0f32; 64];
        for r in 0..rows {
            let (row, brow) = (self.row_base + i + r, self.bias_row_base + i + r);
            if contiguous {
                // SAFETY: the row segment is inside C and owned by this thread's tile.
                let s = unsafe { std::slice::from_raw_parts_mut(self.c_ptr(i + r, j), cols) };
                epi.apply(row, jg, brow, jg, s);
            } else {
                for c0 in (0..cols).step_by(buf.len()) {
                    let len = (cols - c0).min(buf.len());
                    for (q, x) in buf[..len].iter_mut().enumerate() {
                        // SAFETY: as above.
                        *x = unsafe { *self.c_ptr(i + r, j + c0 + q) };
                    }
                    epi.apply(row, jg + c0, brow, jg + c0, &mut buf[..len]);
                    for (q, x) in buf[..len].iter().enumerate() {
                        // SAFETY: as above.
                        unsafe { *self.c_ptr(i + r, j + c0 + q) = *x };
                    }
                }
            }
        }
    }

    /// `k == 0`: `C = beta * C`, then the epilogue.
    fn scale_only(&self) {
        for i in 0..self.m {
            for j in 0..self.n {
                let p = self.c_ptr(i, j);
                // SAFETY: inside C.
                unsafe {
                    *p = if self.beta == 0.0 {
                        0.0
                    } else {
                        self.beta * *p
                    }
                };
            }
            if let Some(e) = self.epi {
                self.epilogue_tile(e, i, 1, 0, self.n);
            }
        }
    }
}

/// Runs the GEMM with `kernel`, blocking `blk`, on `threads` threads (1 = the calling thread only); products
/// with fewer than `par_min` multiply-adds run on one thread.
pub(crate) fn run<A: PackA, B: PackB>(
    g: &Gemm<A, B>,
    kernel: Kernel,
    blk: Blocking,
    threads: usize,
    par_min: usize,
) {
    if g.m == 0 || g.n == 0 {
        return;
    }
    if g.k == 0 {
        g.scale_only();
        return;
    }
    let (mr, nr) = (kernel.mr, kernel.nr);
    let work = g.m.saturating_mul(g.n).saturating_mul(g.k);
    let nt = if work < par_min { 1 } else { threads.max(1) };
    for jc in (0..g.n).step_by(blk.nc) {
        let ncb = blk.nc.min(g.n - jc);
        let panels = ncb.div_ceil(nr);
        // Balanced kc blocks (576 = 3 x 192 rather than 256 + 256 + 64).
        let kblocks = g.k.div_ceil(blk.kc);
        let kc = g.k.div_ceil(kblocks);
        for pc in (0..g.k).step_by(kc) {
            let kcb = kc.min(g.k - pc);
            let first = pc == 0;
            let last = pc + kcb == g.k;
            let tiles_m = g.m.div_ceil(mr);
            // Few row tiles reuse each B value: read B where it lies instead of packing it.
            let in_place = kernel
                .direct_b
                .filter(|_| tiles_m <= DIRECT_B_MAX_ROW_TILES && !direct_b_off())
                .filter(|_| {
                    linear(g.c.cols, jc, ncb) == Some(1) && linear(g.c.rows, 0, g.m).is_some()
                })
                .and_then(|f| {
                    let (p, ldb) = g.b.direct_b(pc, kcb, jc, ncb)?;
                    Some(BInPlace {
                        f,
                        addr: p as usize,
                        ldb,
                    })
                });
            let split_rows = tiles_m >= panels || tiles_m >= 8 * nt;
            // One thread, every row in one `mc` block, more panels than the direct-A path takes: each B panel is
            // used by one row block only, so it is packed right before its tiles into a small reused buffer (hot
            // in L1/L2) instead of into a `kc x nc` block that is written out to L3 and read back.
            let fused = in_place.is_none()
                && nt == 1
                && g.m <= blk.mc
                && panels > DIRECT_MAX_PANELS
                && fuse_b_group() > 0;
            let run_block = |bbuf: &[f32]| {
                // More chunks than threads, taken dynamically (rayon work stealing): a thread that is pre-empted by
                // another process on this shared machine, or runs slower, leaves its remaining chunks to the others
                // instead of stalling them at the join.
                let units = if split_rows { tiles_m } else { panels };
                let chunks = if nt == 1 {
                    1
                } else {
                    units.min(nt * CHUNKS_PER_THREAD)
                };
                let work = |t: usize| {
                    let _flush = FlushDenormals::on();
                    let (m_lo, m_hi, p_lo, p_hi) = if split_rows {
                        let (a, b) = share(tiles_m, chunks, t);
                        (a * mr, (b * mr).min(g.m), 0, panels)
                    } else {
                        let (a, b) = share(panels, chunks, t);
                        (0, g.m, a, b)
                    };
                    if m_lo >= m_hi || p_lo >= p_hi {
                        return;
                    }
                    let ctx = Block {
                        g,
                        kernel,
                        bbuf,
                        in_place,
                        fused,
                        pc,
                        kcb,
                        jc,
                        ncb,
                        first,
                        last,
                    };
                    ctx.rows(m_lo, m_hi, p_lo, p_hi, blk.mc);
                };
                if chunks == 1 {
                    work(0);
                } else {
                    (0..chunks).into_par_iter().with_max_len(1).for_each(work);
                }
            };
            if in_place.is_some() || fused {
                run_block(&[]);
            } else {
                with_scratch(panels * kcb * nr, |bbuf| {
                    pack_b_block(g.b, bbuf, pc, kcb, jc, ncb, nr, nt);
                    run_block(bbuf);
                });
            }
        }
    }
}

/// While alive, the calling thread treats denormal f32 operands as zero and flushes denormal results to zero
/// (x86 MXCSR DAZ and FTZ; the previous MXCSR comes back on drop). The multiply-adds of the micro-kernels on
/// denormals take microcode assists (~100 cycles each on Zen 5): a softmax whose tail underflows, fed to the
/// GEMM of its gradient, ran 3-6x slower than XLA:CPU, which flushes denormals for the whole run. A flushed
/// value is below 2^-126 in magnitude, so each product moves by less than 2^-126 * |other operand|
/// (docs/SEMANTICS.md, dot). Other architectures: no change.
pub(crate) struct FlushDenormals {
    #[cfg(target_arch = "x86_64")]
    saved: u32,
}

impl FlushDenormals {
    /// MXCSR bits: flush-to-zero (15) and denormals-are-zero (6).
    #[cfg(target_arch = "x86_64")]
    const BITS: u32 = (1 << 15) | (1 << 6);

    #[inline]
    pub(crate) fn on() -> FlushDenormals {
        #[cfg(target_arch = "x86_64")]
        {
            let mut saved = 0u32;
            // SAFETY: stmxcsr/ldmxcsr read and write the thread's SSE control register only; setting DAZ and FTZ
            // changes how denormals round, never memory or control flow (every x86_64 CPU has both bits).
            unsafe {
                std::arch::asm!("stmxcsr [{}]", in(reg) &mut saved, options(nostack, preserves_flags));
                let on = saved | Self::BITS;
                std::arch::asm!("ldmxcsr [{}]", in(reg) &on, options(nostack, readonly, preserves_flags));
            }
            FlushDenormals { saved }
        }
        #[cfg(not(target_arch = "x86_64"))]
        FlushDenormals {}
    }
}

impl Drop for FlushDenormals {
    #[inline]
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as in `on`: restores the register saved there.
        unsafe {
            std::arch::asm!("ldmxcsr [{}]", in(reg) &self.saved, options(nostack, readonly, preserves_flags));
        }
    }
}

/// Products with at most this many row tiles (`MR` rows each) read B in place where the tier can (each B value
/// is used by at most this many tiles, so packing it costs as much as a large share of the multiply-adds). A JAX
/// LSTM step (32 x 256 by 256 x 1024) on one Zen 5 core: see docs/PERFORMANCE.md.
const DIRECT_B_MAX_ROW_TILES: usize = 3;

/// Column panels packed at a time on the fused-B path (see `run`): `RXLA_GEMM_FUSE_B=G` overrides it for
/// measuring, 0 turns the path off.
fn fuse_b_group() -> usize {
    static G: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *G.get_or_init(|| {
        std::env::var("RXLA_GEMM_FUSE_B")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(FUSE_B_GROUP)
            .min(64)
    })
}

/// See `fuse_b_group`.
const FUSE_B_GROUP: usize = 4;

/// `RXLA_GEMM_DIRECT_B=0` turns the in-place-B path off, for measuring it.
fn direct_b_off() -> bool {
    static OFF: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OFF.get_or_init(|| std::env::var("RXLA_GEMM_DIRECT_B").as_deref() == Ok("0"))
}

/// B read in place for one block: the in-place-B kernel, the address of the block's `(pc, jc)` element (as an
/// integer, so blocks can be shared by the threads) and B's row stride.
#[derive(Clone, Copy)]
struct BInPlace {
    f: crate::kernel::DirectBFn,
    addr: usize,
    ldb: usize,
}

/// Most column panels a row block may be multiplied with while A is read in place rather than packed (each
/// packed A value would be reused at most this many times). One pinned core, AVX-512: N = 10: 0.070 -> 0.041 ms
/// (M = K = 512); N = 64: 0.48 -> 0.42 ms (M = 3136, K = 256); N = 128 even; N = 256 packing wins (0.41 vs 0.42).
const DIRECT_MAX_PANELS: usize = 2;

/// `RXLA_GEMM_DIRECT=0` turns the direct (unpacked A) path off, for measuring it.
fn direct_off() -> bool {
    static OFF: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OFF.get_or_init(|| std::env::var("RXLA_GEMM_DIRECT").as_deref() == Ok("0"))
}

/// Work chunks per thread in a threaded block (see `run`). Measured at 1024^3 on 2 threads of the loaded machine
/// (best wall): 1 (a static split) 91-116 GFLOP/s, 4: 92-141, 8: 139-162.
const CHUNKS_PER_THREAD: usize = 8;

/// The `t`-th of `parts` near-equal contiguous shares of `0..n`.
fn share(n: usize, parts: usize, t: usize) -> (usize, usize) {
    (n * t / parts, n * (t + 1) / parts)
}

#[allow(clippy::too_many_arguments)]
fn pack_b_block<B: PackB>(
    b: &B,
    bbuf: &mut [f32],
    pc: usize,
    kcb: usize,
    jc: usize,
    ncb: usize,
    nr: usize,
    nt: usize,
) {
    let panel = kcb * nr;
    // Whole panels in one pass over B's rows where the operand can (row-major B), one share of them per
    // thread; the partial last panel as usual.
    let whole = ncb / nr;
    if whole > 1 {
        let per = if nt == 1 { whole } else { whole.div_ceil(nt) };
        let done = std::sync::atomic::AtomicBool::new(true);
        let run = |(t, dst): (usize, &mut [f32])| {
            let panels = dst.len() / panel;
            if !b.pack_b_panels(pc, kcb, jc + t * per * nr, panels, nr, dst) {
                done.store(false, std::sync::atomic::Ordering::Relaxed);
            }
        };
        let area = &mut bbuf[..whole * panel];
        if nt == 1 {
            area.chunks_mut(per * panel).enumerate().for_each(run);
        } else {
            area.par_chunks_mut(per * panel).enumerate().for_each(run);
        }
        if done.into_inner() {
            if whole * nr < ncb {
                b.pack_b(
                    pc,
                    kcb,
                    jc + whole * nr,
                    ncb - whole * nr,
                    nr,
                    &mut bbuf[whole * panel..][..panel],
                );
            }
            return;
        }
    }
    let pack = |(q, dst): (usize, &mut [f32])| {
        let j = q * nr;
        b.pack_b(pc, kcb, jc + j, nr.min(ncb - j), nr, dst);
    };
    if nt == 1 || ncb <= nr {
        bbuf.chunks_exact_mut(panel).enumerate().for_each(pack);
    } else {
        bbuf.par_chunks_exact_mut(panel).enumerate().for_each(pack);
    }
}

/// Packs column panels `q0..q1` of the block (columns `jc..jc+ncb`, contraction `pc..pc+kcb`) into `dst` (panel
/// `q0 + t` at `dst[t·kcb·nr..]`) on the calling thread: whole panels in one pass over B's rows where the operand
/// can, the partial last panel (and any panel the operand cannot do that way) one by one.
#[allow(clippy::too_many_arguments)]
fn pack_b_panels_seq<B: PackB>(
    b: &B,
    dst: &mut [f32],
    pc: usize,
    kcb: usize,
    jc: usize,
    ncb: usize,
    q0: usize,
    q1: usize,
    nr: usize,
) {
    let panel = kcb * nr;
    let whole = (ncb / nr).clamp(q0, q1) - q0;
    let mut q = q0;
    if whole > 0 && b.pack_b_panels(pc, kcb, jc + q0 * nr, whole, nr, &mut dst[..whole * panel]) {
        q += whole;
    }
    for q in q..q1 {
        let j = q * nr;
        b.pack_b(
            pc,
            kcb,
            jc + j,
            nr.min(ncb - j),
            nr,
            &mut dst[(q - q0) * panel..][..panel],
        );
    }
}

/// One packed B block and the loops below it.
struct Block<'a, 'g, A: PackA, B: PackB> {
    g: &'a Gemm<'g, A, B>,
    kernel: Kernel,
    bbuf: &'a [f32],
    /// B read in place instead of from `bbuf` (which is then empty).
    in_place: Option<BInPlace>,
    /// B panels packed by `rows` right before their tiles, `fuse_b_group()` at a time (`bbuf` is then empty).
    fused: bool,
    pc: usize,
    kcb: usize,
    jc: usize,
    ncb: usize,
    first: bool,
    last: bool,
}

impl<A: PackA, B: PackB> Block<'_, '_, A, B> {
    /// Rows `m_lo..m_hi` against column panels `p_lo..p_hi` of the block.
    fn rows(&self, m_lo: usize, m_hi: usize, p_lo: usize, p_hi: usize, mc: usize) {
        let (mr, kcb) = (self.kernel.mr, self.kcb);
        let mut ic = m_lo;
        while ic < m_hi {
            let mcb = mc.min(m_hi - ic);
            if self.in_place.is_none() && !self.fused && self.direct_rows(ic, mcb, p_lo, p_hi) {
                ic += mcb;
                continue;
            }
            let apanels = mcb.div_ceil(mr);
            with_scratch(apanels * kcb * mr, |abuf| {
                for (q, dst) in abuf.chunks_exact_mut(kcb * mr).enumerate() {
                    let i = q * mr;
                    self.g
                        .a
                        .pack_a(ic + i, mr.min(mcb - i), self.pc, kcb, mr, dst);
                }
                let nr = self.kernel.nr;
                let panel = kcb * nr;
                let column = |jr: usize, bp: *const f32| {
                    // The panel's column stride, checked once for all its tiles.
                    let j = self.jc + jr * nr;
                    let cs = linear(self.g.c.cols, j, nr.min(self.ncb - jr * nr));
                    for ir in 0..apanels {
                        self.tile(abuf, bp, ic, mcb, ir, jr, cs);
                    }
                };
                if self.fused {
                    let group = fuse_b_group().min(p_hi - p_lo);
                    with_scratch(group * panel, |bb| {
                        for q0 in (p_lo..p_hi).step_by(group) {
                            let q1 = (q0 + group).min(p_hi);
                            pack_b_panels_seq(
                                self.g.b, bb, self.pc, kcb, self.jc, self.ncb, q0, q1, nr,
                            );
                            // The next group's B rows (this block's, or the next block's first group) are
                            // fetched into L2 a slice per tile while this group's tiles run, so its packing reads
                            // cache instead of waiting on memory (rows of a strided B defeat the hardware
                            // prefetcher).
                            let next = self.next_group(q1, p_hi, group);
                            let tiles = (q1 - q0) * apanels;
                            for jr in q0..q1 {
                                let bp = bb[(jr - q0) * panel..].as_ptr();
                                let j = self.jc + jr * nr;
                                let cs = linear(self.g.c.cols, j, nr.min(self.ncb - jr * nr));
                                for ir in 0..apanels {
                                    self.tile(abuf, bp, ic, mcb, ir, jr, cs);
                                    if let Some((p0, rows, j0, cols)) = next {
                                        let (r0, r1) = share(rows, tiles, (jr - q0) * apanels + ir);
                                        self.g.b.prefetch_b(p0 + r0, r1 - r0, j0, cols);
                                    }
                                }
                            }
                        }
                    });
                } else {
                    for jr in p_lo..p_hi {
                        // B in place: `bbuf` is empty and `tile` reads B where it lies.
                        let bp = match self.in_place {
                            Some(_) => std::ptr::null(),
                            None => self.bbuf[jr * panel..].as_ptr(),
                        };
                        column(jr, bp);
                    }
                }
            });
            ic += mcb;
        }
    }

    /// The B area the fused path packs after the group ending at panel `q1` (`p_hi`: this chunk's end):
    /// `(p0, rows, j0, cols)`, the next group of this block or else the first group of the next `kc` block.
    fn next_group(
        &self,
        q1: usize,
        p_hi: usize,
        group: usize,
    ) -> Option<(usize, usize, usize, usize)> {
        let nr = self.kernel.nr;
        if q1 < p_hi {
            let j = q1 * nr;
            let cols = (group * nr).min(self.ncb - j);
            return Some((self.pc, self.kcb, self.jc + j, cols));
        }
        let p0 = self.pc + self.kcb;
        (p0 < self.g.k).then(|| {
            (
                p0,
                self.kcb.min(self.g.k - p0),
                self.jc,
                (group * nr).min(self.ncb),
            )
        })
    }

    /// Rows `ic..ic+mcb` against panels `p_lo..p_hi` with A read in place (no packing), when the kernel has
    /// direct variants, A's rows allow it, C's rows and columns are linear (unit column stride) and A would be
    /// reused by few column panels (packing it would cost a large share of the multiply-adds). Returns whether
    /// it ran.
    fn direct_rows(&self, ic: usize, mcb: usize, p_lo: usize, p_hi: usize) -> bool {
        let g = self.g;
        let Some((full, edge)) = self.kernel.direct else {
            return false;
        };
        let panels = p_hi - p_lo;
        if panels > DIRECT_MAX_PANELS || direct_off() {
            return false;
        }
        let Some((a0, lda)) = g.a.direct(ic, mcb, self.pc) else {
            return false;
        };
        // Rows 4 KiB apart share L1 sets: 14 of them thrash a 12-way L1 unless A is reused by one panel only.
        if panels > 1 && lda % 1024 == 0 {
            return false;
        }
        let nr = self.kernel.nr;
        let j_lo = self.jc + p_lo * nr;
        let j_hi = (self.jc + p_hi * nr).min(self.jc + self.ncb);
        let (Some(rs), Some(1)) = (
            linear(g.c.rows, ic, mcb),
            linear(g.c.cols, j_lo, j_hi - j_lo),
        ) else {
            return false;
        };
        let (mr, kcb) = (self.kernel.mr, self.kcb);
        let beta = if self.first { g.beta } else { 1.0 };
        for jr in p_lo..p_hi {
            let j = self.jc + jr * nr;
            let cols = nr.min(self.ncb - jr * nr);
            let bp = self.bbuf[jr * kcb * nr..].as_ptr();
            for ir in 0..mcb.div_ceil(mr) {
                let rows = mr.min(mcb - ir * mr);
                let i = ic + ir * mr;
                let ap = a0.wrapping_add(ir * mr * lda);
                // SAFETY: A rows i..i+rows, contraction pc..pc+kcb are readable at ap + r*lda + p (`direct`'s
                // contract); the packed B panel holds kcb*nr floats; the tile is inside C with row stride rs and
                // unit column stride (checked above).
                unsafe {
                    if rows == mr && cols == nr {
                        full(kcb, ap, lda, bp, g.c_ptr(i, j), rs, 1, g.alpha, beta);
                    } else {
                        edge(
                            kcb,
                            ap,
                            lda,
                            bp,
                            g.c_ptr(i, j),
                            rs,
                            g.alpha,
                            beta,
                            rows,
                            cols,
                        );
                    }
                }
                if self.last
                    && let Some(e) = g.epi
                {
                    g.epilogue_tile(e, i, rows, j, cols);
                }
            }
        }
        true
    }

    /// One micro-tile; `cs` is the column stride of panel `jr` in C when
    /// its columns are equally spaced.
    #[inline]
    /// `bp`: the packed B panel `jr` (`kcb * NR` floats; unused when B is read in place).
    #[allow(clippy::too_many_arguments)]
    fn tile(
        &self,
        abuf: &[f32],
        bp: *const f32,
        ic: usize,
        mcb: usize,
        ir: usize,
        jr: usize,
        cs: Option<isize>,
    ) {
        let g = self.g;
        let (mr, nr, kcb) = (self.kernel.mr, self.kernel.nr, self.kcb);
        let rows = mr.min(mcb - ir * mr);
        let cols = nr.min(self.ncb - jr * nr);
        let (i, j) = (ic + ir * mr, self.jc + jr * nr);
        let ap = abuf[ir * kcb * mr..].as_ptr();
        let beta = if self.first { g.beta } else { 1.0 };
        let lin = (linear(g.c.rows, i, rows), cs);
        if let (Some(b), Some(rs)) = (self.in_place, lin.0) {
            let bp = (b.addr as *const f32).wrapping_add(jr * nr);
            // SAFETY: `run` chose B in place only with C's rows linear and its columns unit-strided, and B's
            // rows pc..pc+kcb readable for columns jc..jc+ncb at addr + p*ldb (`PackB::direct_b`); the tile's
            // rows x cols lie inside both.
            unsafe {
                (b.f)(
                    kcb,
                    ap,
                    bp,
                    b.ldb,
                    g.c_ptr(i, j),
                    rs,
                    g.alpha,
                    beta,
                    rows,
                    cols,
                )
            };
        } else {
            let edge4 = self.kernel.edge4.filter(|_| rows <= 4);
            match (lin, edge4, self.kernel.edge) {
                ((Some(rs), Some(cs)), _, _) if rows == mr && cols == nr => {
                    // SAFETY: full tile inside C; panels hold kcb*mr / kcb*nr floats.
                    unsafe { (self.kernel.f)(kcb, ap, bp, g.c_ptr(i, j), rs, cs, g.alpha, beta) };
                }
                ((Some(rs), Some(1)), _, Some(fe)) => {
                    // SAFETY: the rows x cols tile is inside C with unit column stride; the edge kernel touches no
                    // element outside it (masked loads/stores).
                    unsafe { fe(kcb, ap, bp, g.c_ptr(i, j), rs, g.alpha, beta, rows, cols) };
                }
                ((Some(rs), Some(cs)), Some(f4), _) if rows == 4 && cols == nr => {
                    // SAFETY: a 4-row tile inside C; the A panel has MR rows.
                    unsafe { f4(kcb, ap, bp, g.c_ptr(i, j), rs, cs, g.alpha, beta) };
                }
                _ => {
                    let mut tile = [0f32; MAX_TILE];
                    let f = edge4.unwrap_or(self.kernel.f);
                    // SAFETY: the tile buffer is MR x NR row-major (the edge
                    // kernel writes its first 4 rows).
                    unsafe { f(kcb, ap, bp, tile.as_mut_ptr(), nr as isize, 1, g.alpha, 0.0) };
                    for r in 0..rows {
                        let src = &tile[r * nr..r * nr + cols];
                        if lin.1 == Some(1) {
                            // A contiguous row segment of C: slice operations
                            // (vectorised) instead of per-element offsets.
                            // SAFETY: the segment is inside C and this thread's tile.
                            let d =
                                unsafe { std::slice::from_raw_parts_mut(g.c_ptr(i + r, j), cols) };
                            if beta == 0.0 {
                                d.copy_from_slice(src);
                            } else {
                                d.iter_mut().zip(src).for_each(|(p, &v)| *p = v + beta * *p);
                            }
                            continue;
                        }
                        for (q, &v) in src.iter().enumerate() {
                            let p = g.c_ptr(i + r, j + q);
                            // SAFETY: (i+r, j+q) is inside C and this thread's tile.
                            unsafe { *p = if beta == 0.0 { v } else { v + beta * *p } };
                        }
                    }
                }
            }
        }
        if self.last
            && let Some(e) = g.epi
        {
            g.epilogue_tile(e, i, rows, j, cols);
        }
    }
}
