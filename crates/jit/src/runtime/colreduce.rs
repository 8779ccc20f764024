//! A reduction that keeps the operand's contiguous (minor) dimension — a
//! softmax or a mean over axis 0, a variance over a middle axis — as a
//! host step that streams the operand row by row: each output row is an
//! accumulator row, and every operand row along the reduced dimensions is
//! folded into it with one pass over contiguous memory. Per output element
//! the fold is the evaluator's exactly (the init first, then the reduced
//! elements in row-major order, `reducer(acc, x)` with its operands in the
//! reducer's order), so results are bit-identical but for the sign and
//! payload of a NaN result (which NaN operand an add or multiply keeps is
//! the compiler's choice, as everywhere in rxla); only the loop order
//! differs from a per-element walk down a column, which strides through
//! memory (a TLB miss per row) and was five times slower than XLA.
//! f32 add/multiply/maximum/minimum reducers only; the planner decides.
//!
//! Where the minor dimension is reduced too (group norm over NCHW or
//! NHWC, batch statistics over NCHW, a max over axes (0, 2)), each row is
//! the trailing block of reduced dimensions, folded into one value: long
//! rows by 16 lanes — exact for max/min without NaN, a reassociation
//! (rounding only) for add/multiply, the evaluator's element-by-element
//! fold wherever a result is not finite or a row holds a NaN.
//!
//! A fused reduction whose operand is computed in the fusion (a variance's
//! `(x - mean)²`, an L2 norm's `x·x`) has a producer kernel: it computes a
//! block of operand rows into scratch, which is folded while it is in
//! cache, so the operand is never written whole (`run_with_producer`).

use crate::error::{JitError, Result};

/// The reducer's operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColOp {
    Add,
    Mul,
    Max,
    Min,
}

/// A planned column reduction over a row-major f32 operand.
#[derive(Clone, Debug)]
pub struct ColReduceStep {
    /// Operand dimensions (row-major); the last one is kept.
    pub dims: Vec<i64>,
    /// Per operand dimension: reduced.
    pub reduced: Vec<bool>,
    pub op: ColOp,
    /// The reducer computes `op(acc, x)` (else `op(x, acc)`).
    pub acc_first: bool,
    pub init: f32,
    /// Which operand of the step is the reduced array (a fusion's
    /// parameter number; 0 for a plain reduce). Unused with a producer.
    pub input: usize,
    /// The kernel that computes the operand, when it is fused.
    pub producer: Option<ColProducer>,
    /// The kernel that computes the fusion's result from the reduced
    /// value, when the reduce is not the fusion's root.
    pub epilogue: Option<ColEpilogue>,
}

/// The compiled epilogue of a fused column reduction: the fusion's root
/// computed with the reduced value (its first input) and the fusion's
/// operands as inputs.
#[derive(Clone, Debug)]
pub struct ColEpilogue {
    pub meta: crate::codegen::KernelMeta,
    /// The fusion's operands (kernel inputs after the reduced value).
    pub inputs: Vec<rxla_ir::InstrId>,
    /// Bytes of the reduced value (the accumulator buffer).
    pub acc_bytes: usize,
}

/// Scratch per block of producer rows: folded while it is still in a
/// 32 KiB L1 (against 256 KiB: 3–5% faster on variance and L2 norm over
/// axis 0 of 4096×1024, measured interleaved).
pub const PRODUCER_BLOCK_BYTES: usize = 32 << 10;

/// The compiled producer of a fused column reduction's operand.
#[derive(Clone, Debug)]
pub struct ColProducer {
    /// Computes operand rows `lo..hi` (of dimension 0) from the fusion's
    /// operands.
    pub meta: crate::codegen::KernelMeta,
    /// The fusion's operands, in kernel input order.
    pub inputs: Vec<rxla_ir::InstrId>,
    /// Elements per operand row (all dimensions but the first).
    pub row_elems: usize,
    /// Operand rows per block.
    pub block_rows: usize,
}

impl ColReduceStep {
    /// Values per output row: the minor dimension when it is kept, 1 when
    /// it is reduced too (each minor row then folds into one value).
    pub fn out_width(&self) -> usize {
        match (self.dims.last(), self.reduced.last()) {
            (Some(&n), Some(false)) => n as usize,
            _ => 1,
        }
    }

    /// Bytes of producer scratch (one block of operand rows).
    pub fn scratch_bytes(&self) -> usize {
        self.producer
            .as_ref()
            .map_or(0, |p| 4 * p.row_elems * p.block_rows)
    }
}

/// Walks the operand's rows in row-major order and names the output row
/// each one folds into. A row is the minor dimension when it is kept, else
/// the trailing block of reduced dimensions (contiguous elements that all
/// fold into one output value).
pub struct RowCursor<'a> {
    step: &'a ColReduceStep,
    /// Index along every dimension before the row's.
    idx: Vec<usize>,
    /// Output row strides of the kept dimensions (0 where reduced).
    kstride: Vec<usize>,
    out_row: usize,
    /// Elements per row.
    unit: usize,
}

impl ColReduceStep {
    /// Dimensions before the row (`RowCursor`): all but the minor one when
    /// it is kept, else all but the trailing reduced ones.
    fn major_dims(&self) -> usize {
        let rank = self.dims.len();
        if self.reduced.last() != Some(&true) {
            return rank.saturating_sub(1);
        }
        let trailing = self.reduced.iter().rev().take_while(|&&r| r).count();
        rank - trailing
    }
}

impl<'a> RowCursor<'a> {
    pub fn new(step: &'a ColReduceStep) -> RowCursor<'a> {
        let major = step.major_dims();
        let unit = step.dims[major..].iter().map(|&d| d as usize).product();
        let mut kstride = vec![0usize; major];
        let mut s = 1usize;
        for d in (0..major).rev() {
            if !step.reduced[d] {
                kstride[d] = s;
                s *= step.dims[d] as usize;
            }
        }
        RowCursor {
            step,
            idx: vec![0; major],
            kstride,
            out_row: 0,
            unit,
        }
    }

    /// Folds consecutive minor rows (`n` values each, continuing where the
    /// last call stopped) into the accumulator rows `out`.
    pub fn fold(&mut self, out: &mut [f32], rows: &[f32]) -> Result<()> {
        let n = self.unit;
        if n == 0 {
            return Ok(());
        }
        let w = self.step.out_width();
        let total = rows.len() / n;
        let last = self.idx.len().checked_sub(1);
        if w == 1 {
            // The minor dimension reduced too: each row's values fold into
            // one output value. Rows of consecutive output values (the
            // innermost major dimension kept) are taken together.
            let mut q = 0;
            while q < total {
                let run = match last {
                    Some(d) if !self.step.reduced[d] => {
                        (self.step.dims[d] as usize - self.idx[d]).min(total - q)
                    }
                    _ => 1,
                };
                let accs = out
                    .get_mut(self.out_row..self.out_row + run)
                    .ok_or_else(|| JitError::input("column reduction: row outside the result"))?;
                let block = &rows[q * n..(q + run) * n];
                // Short rows of many consecutive outputs (group norm NHWC:
                // 4 channels per group, 32 groups side by side): 16
                // outputs at a time, lane l reading its row's k-th value
                // by a gather — each output still sees its values in order.
                let done = if n < FAST_ROW_MIN {
                    fold_short_rows(self.step.op, self.step.acc_first, accs, block)
                } else {
                    0
                };
                for (acc, row) in accs[done..]
                    .iter_mut()
                    .zip(block[done * n..].chunks_exact(n))
                {
                    fold_row_into_one(self.step.op, self.step.acc_first, acc, row);
                }
                q += run;
                self.advance_by(run);
            }
            return Ok(());
        }
        // The innermost major dimension reduced: its rows all fold into one
        // output row, taken together (the accumulator stays in registers).
        let inner_reduced = last.is_some_and(|d| self.step.reduced[d]);
        let mut q = 0;
        while q < total {
            let run = match last {
                Some(d) if inner_reduced => {
                    (self.step.dims[d] as usize - self.idx[d]).min(total - q)
                }
                _ => 1,
            };
            let acc = out
                .get_mut(self.out_row * n..(self.out_row + 1) * n)
                .ok_or_else(|| JitError::input("column reduction: row outside the result"))?;
            fold_rows(
                self.step.op,
                self.step.acc_first,
                acc,
                &rows[q * n..(q + run) * n],
            );
            q += run;
            self.advance_by(run);
        }
        Ok(())
    }

    /// For a max/min whose minor dimension is reduced too (`out_width`
    /// 1): folds each row into its output's 16 partial lanes
    /// (`partials[16·o..16·o + 16]`) with `maxps`/`minps`, in the rows'
    /// order; false when some value is NaN (the partials then mean
    /// nothing). Needs AVX-512 (the caller checks).
    fn fold_partials(&mut self, partials: &mut [f32], rows: &[f32]) -> Result<bool> {
        let n = self.unit;
        if n == 0 {
            return Ok(true);
        }
        let max = self.step.op == ColOp::Max;
        let total = rows.len() / n;
        let last = self.idx.len().checked_sub(1);
        let mut ordered = true;
        let mut q = 0;
        while q < total {
            let run = match last {
                Some(d) if !self.step.reduced[d] => {
                    (self.step.dims[d] as usize - self.idx[d]).min(total - q)
                }
                _ => 1,
            };
            let lanes = partials
                .get_mut(16 * self.out_row..16 * (self.out_row + run))
                .ok_or_else(|| JitError::input("column reduction: row outside the result"))?;
            for (p, row) in lanes
                .chunks_exact_mut(16)
                .zip(rows[q * n..(q + run) * n].chunks_exact(n))
            {
                #[cfg(target_arch = "x86_64")]
                {
                    // SAFETY: the caller checked AVX-512F; `p` holds 16
                    // values.
                    ordered &= unsafe { avx512::minmax_into(max, p, row) };
                }
                #[cfg(not(target_arch = "x86_64"))]
                {
                    let _ = (max, p, row);
                    ordered = false;
                }
            }
            q += run;
            self.advance_by(run);
        }
        Ok(ordered)
    }

    /// Moves `k` rows on, `k` no more than the rows left along the
    /// innermost major dimension.
    fn advance_by(&mut self, k: usize) {
        let Some(d) = self.idx.len().checked_sub(1) else {
            return;
        };
        if k == 0 {
            return;
        }
        self.idx[d] += k - 1;
        self.out_row += self.kstride[d] * (k - 1);
        self.advance();
    }

    /// Moves to the next row.
    fn advance(&mut self) {
        for d in (0..self.idx.len()).rev() {
            self.idx[d] += 1;
            self.out_row += self.kstride[d];
            if self.idx[d] < self.step.dims[d] as usize {
                break;
            }
            self.out_row -= self.kstride[d] * self.idx[d];
            self.idx[d] = 0;
        }
    }
}

/// Rows shorter than this fold element by element (the evaluator's
/// order exactly); longer ones take the fast paths of `fold_row_into_one`.
const FAST_ROW_MIN: usize = 64;

/// Folds a row's values into the single value `acc`: the evaluator's
/// fold, or for long rows an equivalent one. Max/min of a row without NaN
/// is order-free (the evaluator's `max_f32`/`min_f32` are associative and
/// commutative there, ±0 included), so 16 lanes reduce it exactly (a
/// zero result, whose sign `maxps` may get wrong, is folded again).
/// Add/multiply use 16 partial results (a reassociation: rounding only,
/// as the JIT's row reductions, docs/SEMANTICS.md), joined to `acc`
/// last; where the partial or joined result is not finite (overflow
/// order, NaN payloads), or `acc` already is not, the row is folded
/// element by element instead, so non-finite results are the
/// evaluator's.
fn fold_row_into_one(op: ColOp, acc_first: bool, acc: &mut f32, row: &[f32]) {
    if row.len() < FAST_ROW_MIN {
        fold_into_one(op, acc_first, acc, row);
        return;
    }
    let a = *acc;
    let fast = match op {
        ColOp::Add | ColOp::Mul if a.is_finite() => {
            let p = partial(op, row);
            let r = if op == ColOp::Add { a + p } else { a * p };
            (p.is_finite() && r.is_finite()).then_some(r)
        }
        ColOp::Max | ColOp::Min => lanes_minmax(op == ColOp::Max, row).map(|m| {
            let f = if op == ColOp::Max {
                rxla_eval::elementwise::max_f32
            } else {
                rxla_eval::elementwise::min_f32
            };
            if acc_first { f(a, m) } else { f(m, a) }
        }),
        _ => None,
    };
    match fast {
        Some(r) => *acc = r,
        None => fold_into_one(op, acc_first, acc, row),
    }
}

/// The sum or product of `row` through 16 partial results (lane `l`
/// takes elements `l, l + 16, ...`; then the lanes pairwise).
fn partial(op: ColOp, row: &[f32]) -> f32 {
    let id = if op == ColOp::Add { 0.0 } else { 1.0 };
    let mut p = [id; 16];
    let chunks = row.chunks_exact(16);
    let tail = chunks.remainder();
    if op == ColOp::Add {
        for c in chunks {
            for (l, &x) in p.iter_mut().zip(c) {
                *l += x;
            }
        }
        for (l, &x) in p.iter_mut().zip(tail) {
            *l += x;
        }
    } else {
        for c in chunks {
            for (l, &x) in p.iter_mut().zip(c) {
                *l *= x;
            }
        }
        for (l, &x) in p.iter_mut().zip(tail) {
            *l *= x;
        }
    }
    let mut w = 16;
    while w > 1 {
        w /= 2;
        for l in 0..w {
            p[l] = if op == ColOp::Add {
                p[l] + p[l + w]
            } else {
                p[l] * p[l + w]
            };
        }
    }
    p[0]
}

/// The maximum (minimum) of a row without NaN by 16 lanes, exactly the
/// evaluator's fold of it; `None` when the row holds a NaN (or, on the
/// AVX-512 path, when the result is ±0, whose sign the lanes may lose).
fn lanes_minmax(max: bool, row: &[f32]) -> Option<f32> {
    #[cfg(target_arch = "x86_64")]
    if wide() {
        // SAFETY: AVX-512F checked.
        return unsafe { avx512::minmax_row(max, row) };
    }
    let f = if max {
        rxla_eval::elementwise::max_f32
    } else {
        rxla_eval::elementwise::min_f32
    };
    let mut m = *row.first()?;
    for &x in row {
        if x.is_nan() {
            return None;
        }
        m = f(m, x);
    }
    Some(m)
}

/// Folds row `g` of `rows` (`rows.len() / accs.len()` values each) into
/// `accs[g]` for the first multiple of 16 of the outputs, in order (the
/// evaluator's fold, bit for bit); returns how many it folded (0 without
/// AVX-512).
fn fold_short_rows(op: ColOp, acc_first: bool, accs: &mut [f32], rows: &[f32]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if wide() && accs.len() >= 16 {
        // SAFETY: AVX-512F checked; the routine reads within `rows`.
        return unsafe { avx512::fold_short_rows(op, acc_first, accs, rows) };
    }
    let _ = (op, acc_first, accs, rows);
    0
}

/// Folds `row`'s values one after another into the single value `acc`.
fn fold_into_one(op: ColOp, acc_first: bool, acc: &mut f32, row: &[f32]) {
    let mut a = *acc;
    macro_rules! each {
        ($f:expr) => {
            if acc_first {
                for &x in row {
                    a = $f(a, x);
                }
            } else {
                for &x in row {
                    a = $f(x, a);
                }
            }
        };
    }
    match op {
        ColOp::Add => each!(|a: f32, b: f32| a + b),
        ColOp::Mul => each!(|a: f32, b: f32| a * b),
        ColOp::Max => each!(rxla_eval::elementwise::max_f32),
        ColOp::Min => each!(rxla_eval::elementwise::min_f32),
    }
    *acc = a;
}

/// Folds consecutive rows (`acc.len()` values each) into `acc`, in order.
fn fold_rows(op: ColOp, acc_first: bool, acc: &mut [f32], rows: &[f32]) {
    let n = acc.len();
    #[cfg(target_arch = "x86_64")]
    if wide() && n >= 16 {
        // SAFETY: AVX-512F checked; reads and writes in range.
        unsafe { avx512::fold_rows(op, acc_first, acc, rows) };
        return;
    }
    for row in rows.chunks_exact(n) {
        fold(op, acc_first, acc, row);
    }
}

/// Folds `row` into `acc` element by element (16 lanes at a time where
/// the host has AVX-512; the same values either way).
fn fold(op: ColOp, acc_first: bool, acc: &mut [f32], row: &[f32]) {
    #[cfg(target_arch = "x86_64")]
    if wide() {
        // SAFETY: AVX-512F checked; both slices are read/written in range.
        unsafe { avx512::fold(op, acc_first, acc, row) };
        return;
    }
    fold_scalar(op, acc_first, acc, row);
}

/// `wide::available()`, read once (it consults the environment, too slow
/// for a call per row).
fn wide() -> bool {
    static WIDE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WIDE.get_or_init(crate::wide::available)
}

fn fold_scalar(op: ColOp, acc_first: bool, acc: &mut [f32], row: &[f32]) {
    macro_rules! each {
        ($f:expr) => {
            if acc_first {
                for (a, &x) in acc.iter_mut().zip(row) {
                    *a = $f(*a, x);
                }
            } else {
                for (a, &x) in acc.iter_mut().zip(row) {
                    *a = $f(x, *a);
                }
            }
        };
    }
    match op {
        ColOp::Add => each!(|a: f32, b: f32| a + b),
        ColOp::Mul => each!(|a: f32, b: f32| a * b),
        ColOp::Max => each!(rxla_eval::elementwise::max_f32),
        ColOp::Min => each!(rxla_eval::elementwise::min_f32),
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{ColOp, fold_scalar};
    use std::arch::x86_64::*;

    /// `maximum`/`minimum` of 16 lanes with the evaluator's rules
    /// (`rxla_eval::elementwise::max_f32`): a NaN `a`, else a NaN `b`; of
    /// equal values (±0) the one without (max) or with (min) a sign bit —
    /// the bitwise and/or of the two; else the larger/smaller.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn minmax(max: bool, a: __m512, b: __m512) -> __m512 {
        let pick_a = if max {
            _mm512_cmp_ps_mask::<_CMP_GT_OQ>(a, b)
        } else {
            _mm512_cmp_ps_mask::<_CMP_LT_OQ>(a, b)
        };
        let eq = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(a, b);
        let (ai, bi) = (_mm512_castps_si512(a), _mm512_castps_si512(b));
        let tie = _mm512_castsi512_ps(if max {
            _mm512_and_si512(ai, bi)
        } else {
            _mm512_or_si512(ai, bi)
        });
        let mut r = _mm512_mask_blend_ps(pick_a, b, a);
        r = _mm512_mask_blend_ps(eq, r, tie);
        let b_nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(b, b);
        r = _mm512_mask_blend_ps(b_nan, r, b);
        let a_nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(a, a);
        _mm512_mask_blend_ps(a_nan, r, a)
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn apply(op: ColOp, acc_first: bool, a: __m512, x: __m512) -> __m512 {
        let (l, r) = if acc_first { (a, x) } else { (x, a) };
        match op {
            ColOp::Add => _mm512_add_ps(l, r),
            ColOp::Mul => _mm512_mul_ps(l, r),
            ColOp::Max => minmax(true, l, r),
            ColOp::Min => minmax(false, l, r),
        }
    }

    /// See `super::fold_short_rows`: outputs `16j..16j + 16` in one
    /// register, value `k` of each of their rows gathered (stride: the
    /// row length) and folded with the evaluator's operation.
    ///
    /// # Safety
    /// The host has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn fold_short_rows(
        op: ColOp,
        acc_first: bool,
        accs: &mut [f32],
        rows: &[f32],
    ) -> usize {
        let outs = accs.len();
        let n = rows.len() / outs.max(1);
        let whole = outs - outs % 16;
        if n == 0 || n * outs != rows.len() || rows.len() > i32::MAX as usize {
            return 0;
        }
        let lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let stride = _mm512_mullo_epi32(lane, _mm512_set1_epi32(n as i32));
        // Rows of 2, 4 or 8 (group norm over NHWC with that many channels
        // per group): the 16 outputs' values are 16·n contiguous floats,
        // dealt into value-k vectors by permutes instead of gathers (the
        // same values in the same order). Each pair of vectors holds `per`
        // = 32/n outputs: lane l of its permute takes element
        // n·(l mod per) + k, and the pairs' permutes fill consecutive
        // `per`-lane quarters.
        let dealt = matches!(n, 2 | 4 | 8);
        let per = 32 / n.max(1);
        let sel = _mm512_and_si512(lane, _mm512_set1_epi32(per as i32 - 1));
        let sel = _mm512_mullo_epi32(sel, _mm512_set1_epi32(n as i32));
        let mut g = 0;
        // SAFETY (whole body): outputs g..g+16 <= whole <= outs; the
        // gathered index (g + l)·n + k < outs·n = rows.len(), and a dealt
        // block reads floats g·n..(g + 16)·n.
        unsafe {
            while g < whole {
                let ap = accs.as_mut_ptr().add(g);
                let mut a = _mm512_loadu_ps(ap);
                let base = rows.as_ptr().add(g * n);
                for k in 0..n {
                    let kv = _mm512_set1_epi32(k as i32);
                    let x = if dealt {
                        let idx = _mm512_add_epi32(sel, kv);
                        let pair = |j: usize| {
                            _mm512_permutex2var_ps(
                                _mm512_loadu_ps(base.add(32 * j)),
                                idx,
                                _mm512_loadu_ps(base.add(32 * j + 16)),
                            )
                        };
                        let mut x = pair(0);
                        for j in 1..n / 2 {
                            let m = (((1u32 << per) - 1) << (j * per)) as __mmask16;
                            x = _mm512_mask_blend_ps(m, x, pair(j));
                        }
                        x
                    } else {
                        _mm512_i32gather_ps::<4>(_mm512_add_epi32(stride, kv), base.cast())
                    };
                    a = apply(op, acc_first, a, x);
                }
                _mm512_storeu_ps(ap, a);
                g += 16;
            }
        }
        whole
    }

    /// Columns `c..c + 16W` of every row folded into registers, then stored.
    ///
    /// # Safety
    /// The host has AVX-512F; `c + 16W <= acc.len()`, `rows` whole rows.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn fold_cols<const W: usize>(
        op: ColOp,
        acc_first: bool,
        acc: &mut [f32],
        rows: &[f32],
        c: usize,
    ) {
        let n = acc.len();
        let count = rows.len() / n;
        // SAFETY (whole body): columns c..c+16W of acc and of each row.
        unsafe {
            let ap = acc.as_mut_ptr().add(c);
            let mut a = [_mm512_setzero_ps(); W];
            for (q, v) in a.iter_mut().enumerate() {
                *v = _mm512_loadu_ps(ap.add(16 * q));
            }
            let mut rp = rows.as_ptr().add(c);
            let minmax = matches!(op, ColOp::Max | ColOp::Min);
            for _ in 0..count {
                let mut x = [_mm512_setzero_ps(); W];
                for (q, v) in x.iter_mut().enumerate() {
                    *v = _mm512_loadu_ps(rp.add(16 * q));
                }
                if minmax && ordered_nonzero(&x) {
                    // `maxps(x, acc)` is the evaluator's maximum for an
                    // ordered non-zero `x`: the larger one, equal values
                    // have equal bits, a NaN `acc` (the init) is kept.
                    for (v, &xv) in a.iter_mut().zip(&x) {
                        *v = if op == ColOp::Max {
                            _mm512_max_ps(xv, *v)
                        } else {
                            _mm512_min_ps(xv, *v)
                        };
                    }
                } else {
                    for (v, &xv) in a.iter_mut().zip(&x) {
                        *v = apply(op, acc_first, *v, xv);
                    }
                }
                rp = rp.wrapping_add(n);
            }
            for (q, v) in a.iter().enumerate() {
                _mm512_storeu_ps(ap.add(16 * q), *v);
            }
        }
    }

    /// Whether every lane of `x` is ordered and non-zero (`maxps`/`minps`
    /// then fold it exactly as the evaluator does).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn ordered_nonzero<const W: usize>(x: &[__m512; W]) -> bool {
        let zero = _mm512_setzero_ps();
        let mut ok: __mmask16 = !0;
        for &v in x {
            ok &= _mm512_cmp_ps_mask::<_CMP_NEQ_OQ>(v, zero);
        }
        ok == !0
    }

    /// Rows folded per sweep over the column blocks: the sweep reads each
    /// of them front to back (`ROW_CHUNK` sequential streams) instead of
    /// walking a column block down every row (a page per row, 4 KiB
    /// apart); the accumulators are loaded and stored once per chunk.
    const ROW_CHUNK: usize = 16;

    /// Folds whole rows into `acc` column block by column block (each
    /// element still sees the rows in order), `ROW_CHUNK` rows at a time.
    ///
    /// # Safety
    /// The host has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn fold_rows(op: ColOp, acc_first: bool, acc: &mut [f32], rows: &[f32]) {
        let n = acc.len();
        if n == 0 {
            return;
        }
        for chunk in rows.chunks(ROW_CHUNK * n) {
            let chunk = &chunk[..chunk.len() - chunk.len() % n];
            let mut c = 0;
            // SAFETY: each block lies inside the rows (c + 16W <= n).
            unsafe {
                while c + 64 <= n {
                    fold_cols::<4>(op, acc_first, acc, chunk, c);
                    c += 64;
                }
                while c + 16 <= n {
                    fold_cols::<1>(op, acc_first, acc, chunk, c);
                    c += 16;
                }
            }
            if c < n {
                for row in chunk.chunks_exact(n) {
                    fold_scalar(op, acc_first, &mut acc[c..n], &row[c..n]);
                }
            }
        }
    }

    /// The maximum (minimum) of a row without NaN, 16 lanes at a time
    /// with `maxps`/`minps` (exact for values without NaN but for the sign
    /// of a zero result); `None` when the row holds a NaN, is empty or
    /// its result is ±0 (the caller then folds it element by element).
    ///
    /// # Safety
    /// The host has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn minmax_row(max: bool, row: &[f32]) -> Option<f32> {
        let first = *row.first()?;
        let whole = row.len() - row.len() % 16;
        let quad = row.len() - row.len() % 64;
        let rp = row.as_ptr();
        let pick = |a: __m512, b: __m512| {
            if max {
                _mm512_max_ps(a, b)
            } else {
                _mm512_min_ps(a, b)
            }
        };
        // Four independent accumulators, all starting at an element of
        // the row (order-free without NaN).
        let mut m = [_mm512_set1_ps(first); 4];
        let mut nan: __mmask16 = 0;
        let mut i = 0;
        // SAFETY: every load is below `whole` <= row.len().
        unsafe {
            while i < quad {
                for (k, acc) in m.iter_mut().enumerate() {
                    let x = _mm512_loadu_ps(rp.add(i + 16 * k));
                    nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x);
                    *acc = pick(*acc, x);
                }
                i += 64;
            }
            while i < whole {
                let x = _mm512_loadu_ps(rp.add(i));
                nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x);
                m[0] = pick(m[0], x);
                i += 16;
            }
        }
        if nan != 0 {
            return None;
        }
        let v = pick(pick(m[0], m[1]), pick(m[2], m[3]));
        let mut r = if max {
            _mm512_reduce_max_ps(v)
        } else {
            _mm512_reduce_min_ps(v)
        };
        for &x in &row[whole..] {
            if x.is_nan() {
                return None;
            }
            r = if max { r.max(x) } else { r.min(x) };
        }
        (r != 0.0).then_some(r)
    }

    /// How far ahead (f32 values) [`minmax_into`] prefetches, as the wide
    /// row sums do (`crate::wide`): the hardware prefetcher alone keeps
    /// too few lines in flight from DRAM.
    const PREFETCH_AHEAD: usize = 4096;

    /// Folds `row` into the 16 partial lanes `p` with `maxps` (`minps`),
    /// 64 values at a time as a tree, the tail masked (filled with the
    /// identity); false when the row holds a NaN.
    ///
    /// # Safety
    /// The host has AVX-512F; `p` holds 16 values.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn minmax_into(max: bool, p: &mut [f32], row: &[f32]) -> bool {
        let pick = |a: __m512, b: __m512| {
            if max {
                _mm512_max_ps(a, b)
            } else {
                _mm512_min_ps(a, b)
            }
        };
        let id = _mm512_set1_ps(if max {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        });
        let n = row.len();
        let rp = row.as_ptr();
        let mut nan: __mmask16 = 0;
        let mut i = 0;
        // SAFETY: p[0..16] (the caller's contract); every full load below
        // `n`, the tail's masked to it.
        unsafe {
            let mut acc = _mm512_loadu_ps(p.as_ptr());
            while i + 64 <= n {
                for l in 0..4 {
                    let ahead = rp.wrapping_add(i + PREFETCH_AHEAD + 16 * l);
                    _mm_prefetch::<_MM_HINT_T0>(ahead as *const i8);
                }
                let x0 = _mm512_loadu_ps(rp.add(i));
                let x1 = _mm512_loadu_ps(rp.add(i + 16));
                let x2 = _mm512_loadu_ps(rp.add(i + 32));
                let x3 = _mm512_loadu_ps(rp.add(i + 48));
                nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x0, x1)
                    | _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x2, x3);
                acc = pick(acc, pick(pick(x0, x1), pick(x2, x3)));
                i += 64;
            }
            while i + 16 <= n {
                let x = _mm512_loadu_ps(rp.add(i));
                nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x);
                acc = pick(acc, x);
                i += 16;
            }
            if i < n {
                let k: __mmask16 = ((1u32 << (n - i)) - 1) as __mmask16;
                let x = _mm512_mask_loadu_ps(id, k, rp.add(i));
                nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x);
                acc = pick(acc, x);
            }
            _mm512_storeu_ps(p.as_mut_ptr(), acc);
        }
        nan == 0
    }

    /// # Safety
    /// The host has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn fold(op: ColOp, acc_first: bool, acc: &mut [f32], row: &[f32]) {
        let n = acc.len().min(row.len());
        let whole = n - n % 16;
        let (ap, rp) = (acc.as_mut_ptr(), row.as_ptr());
        let mut i = 0;
        // SAFETY: every access is below `whole` <= both lengths.
        unsafe {
            while i < whole {
                let a = _mm512_loadu_ps(ap.add(i));
                let x = _mm512_loadu_ps(rp.add(i));
                let (l, r) = if acc_first { (a, x) } else { (x, a) };
                let v = match op {
                    ColOp::Add => _mm512_add_ps(l, r),
                    ColOp::Mul => _mm512_mul_ps(l, r),
                    ColOp::Max => minmax(true, l, r),
                    ColOp::Min => minmax(false, l, r),
                };
                _mm512_storeu_ps(ap.add(i), v);
                i += 16;
            }
        }
        fold_scalar(op, acc_first, &mut acc[whole..n], &row[whole..n]);
    }
}

fn as_f32(b: &[u8]) -> Result<&[f32]> {
    // SAFETY: every bit pattern is a valid f32; alignment is checked.
    let (pre, mid, post) = unsafe { b.align_to::<f32>() };
    if !pre.is_empty() || !post.is_empty() {
        return Err(JitError::input("column reduction: unaligned f32 buffer"));
    }
    Ok(mid)
}

fn as_f32_mut(b: &mut [u8]) -> Result<&mut [f32]> {
    // SAFETY: as in `as_f32`.
    let (pre, mid, post) = unsafe { b.align_to_mut::<f32>() };
    if !pre.is_empty() || !post.is_empty() {
        return Err(JitError::input("column reduction: unaligned f32 buffer"));
    }
    Ok(mid)
}

/// Runs a fused reduction: `produce(lo, hi, scratch)` writes operand rows
/// `lo..hi` (dimension 0) into the scratch block, which is folded into
/// `out` block after block, in the operand's row-major order (the order
/// `run` folds each output row in).
pub fn run_with_producer(
    step: &ColReduceStep,
    out: &mut [u8],
    scratch: &mut [u8],
    mut produce: impl FnMut(i64, i64, &mut [u8]) -> Result<()>,
) -> Result<()> {
    let p = step
        .producer
        .as_ref()
        .ok_or_else(|| JitError::codegen("column reduction without its producer"))?;
    let out = as_f32_mut(out)?;
    out.fill(step.init);
    let rows = *step.dims.first().unwrap_or(&0);
    let block = p.block_rows.max(1) as i64;
    if scratch.len() < step.scratch_bytes() {
        return Err(JitError::codegen("column reduction: scratch too small"));
    }
    let mut cursor = RowCursor::new(step);
    let mut lo = 0i64;
    while lo < rows {
        let hi = (lo + block).min(rows);
        let bytes = 4 * p.row_elems * (hi - lo) as usize;
        produce(lo, hi, &mut scratch[..bytes])?;
        cursor.fold(out, as_f32(&scratch[..bytes])?)?;
        lo = hi;
    }
    Ok(())
}

/// Runs the reduction of `input` into `out`.
pub fn run(step: &ColReduceStep, input: &[u8], out: &mut [u8]) -> Result<()> {
    let dims = &step.dims;
    let rank = dims.len();
    if rank == 0 || step.reduced.len() != rank {
        return Err(JitError::codegen("column reduction without dimensions"));
    }
    let input = as_f32(input)?;
    let out = as_f32_mut(out)?;
    let w = step.out_width();
    let total: usize = dims.iter().map(|&d| d as usize).product();
    let kept_major: Vec<usize> = (0..rank - 1).filter(|&d| !step.reduced[d]).collect();
    let rows_out: usize = kept_major.iter().map(|&d| dims[d] as usize).product();
    if input.len() < total || out.len() < rows_out * w {
        return Err(JitError::input(
            "column reduction: buffers shorter than their shapes",
        ));
    }
    // One pass over the input in memory order: every output row gets its
    // rows in the row-major order of the reduced indices (the evaluator's).
    out[..rows_out * w].fill(step.init);
    if w == 1 && minmax_by_partials(step, &input[..total], &mut out[..rows_out])? {
        return Ok(());
    }
    RowCursor::new(step).fold(&mut out[..rows_out * w], &input[..total])?;
    Ok(())
}

/// Largest partial-lane buffer of [`minmax_by_partials`] (16 values per
/// output): beyond it the lanes no longer stay in cache.
const PARTIALS_MAX_BYTES: usize = 1 << 20;

/// A max/min over the minor dimension and others (rows of at least 16
/// values: a max over axes (0, 2)): every row folds into its output's 16
/// partial lanes (`maxps`/`minps`), each output is reduced across its
/// lanes once at the end and joined with its init (`out` holds the inits).
/// Without NaN a max/min is order-free but for the sign of a zero result
/// (the evaluator's ±0 tie rule), so the result is the evaluator's
/// whenever no value is NaN and no result is ±0; otherwise (returns false,
/// `out` untouched) the caller folds in the evaluator's order. Row by row
/// reduction across lanes (`fold_row_into_one`) costs more than the
/// maxima themselves for rows of a few cache lines.
fn minmax_by_partials(step: &ColReduceStep, input: &[f32], out: &mut [f32]) -> Result<bool> {
    let unit: usize = step.dims[step.major_dims()..]
        .iter()
        .map(|&d| d as usize)
        .product();
    let max = match step.op {
        ColOp::Max => true,
        ColOp::Min => false,
        _ => return Ok(false),
    };
    if !wide() || unit < 16 || 64 * out.len() > PARTIALS_MAX_BYTES {
        return Ok(false);
    }
    let id = if max {
        f32::NEG_INFINITY
    } else {
        f32::INFINITY
    };
    let mut partials = vec![id; 16 * out.len()];
    if !RowCursor::new(step).fold_partials(&mut partials, input)? {
        return Ok(false);
    }
    let lanes = |p: &[f32]| {
        p.iter()
            .fold(id, |m, &x| if max { m.max(x) } else { m.min(x) })
    };
    if partials.chunks_exact(16).any(|p| lanes(p) == 0.0) {
        return Ok(false);
    }
    let f = if max {
        rxla_eval::elementwise::max_f32
    } else {
        rxla_eval::elementwise::min_f32
    };
    for (o, p) in out.iter_mut().zip(partials.chunks_exact(16)) {
        let m = lanes(p);
        *o = if step.acc_first { f(*o, m) } else { f(m, *o) };
    }
    Ok(true)
}
