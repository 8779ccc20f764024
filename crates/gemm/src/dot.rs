//! `dot_general` (XLA's dot: batch dimensions, any contracting dimensions; result = batch, lhs free, rhs free)
//! planned once (`DotPlan::new`: validation and offset tables) and run many times: f32 through the packed GEMM
//! (any operand strides, so layouts and transposes cost nothing extra), other element types through a simple
//! correct loop (`dot_generic`), f16/bf16 operands and results through the same GEMM with the conversion inside
//! the packing (`run_mixed_raw`) with the evaluator's semantics (zero-started accumulator, no FMA, wrapping integer
//! arithmetic). Must not allocate per element or re-validate on every run.

use crate::driver::{CTarget, Gemm};
use crate::epilogue::Epilogue;
use crate::error::{GemmError, Result};
use crate::mat::Offsets;
use crate::mixed::{
    Cvt, ElemKind, Half, HalfOperand, MixedOperand, from_f32, narrow_run, widen_run,
};
use crate::pack::Operand;
use crate::scratch::with_scratch;
use crate::{Options, driver, run_operands};
use rayon::prelude::*;
use rxla_ir::DotDims;

/// A tensor's logical dimensions and the element stride of each (row-major: `TensorLayout::row_major`).
/// Strides must be non-negative.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorLayout {
    pub dims: Vec<usize>,
    pub strides: Vec<isize>,
}

impl TensorLayout {
    /// Dense row-major (the layout of rxla literals).
    pub fn row_major(dims: &[usize]) -> TensorLayout {
        let mut strides = vec![0isize; dims.len()];
        let mut s = 1isize;
        for (d, st) in dims.iter().zip(strides.iter_mut()).rev() {
            *st = s;
            s = s.saturating_mul(*d as isize);
        }
        TensorLayout {
            dims: dims.to_vec(),
            strides,
        }
    }

    /// Dense strides for an XLA `minor_to_major` layout.
    pub fn with_minor_to_major(dims: &[usize], minor_to_major: &[usize]) -> Result<TensorLayout> {
        let mut seen = vec![false; dims.len()];
        if minor_to_major.len() != dims.len()
            || minor_to_major
                .iter()
                .any(|&d| d >= dims.len() || std::mem::replace(&mut seen[d], true))
        {
            return Err(GemmError::new(format!(
                "TensorLayout: minor_to_major {minor_to_major:?} is not a permutation of 0..{}",
                dims.len()
            )));
        }
        let mut strides = vec![0isize; dims.len()];
        let mut s = 1isize;
        for &d in minor_to_major {
            strides[d] = s;
            s = s.saturating_mul(dims[d] as isize);
        }
        Ok(TensorLayout {
            dims: dims.to_vec(),
            strides,
        })
    }

    /// Number of elements.
    pub fn count(&self) -> usize {
        self.dims.iter().product()
    }

    /// Elements a buffer needs (largest offset + 1; 0 when empty). Checks the strides.
    pub(crate) fn extent(&self, what: &str) -> Result<usize> {
        if self.dims.len() != self.strides.len() {
            return Err(GemmError::new(format!(
                "{what}: {} dimensions but {} strides",
                self.dims.len(),
                self.strides.len()
            )));
        }
        if self.dims.contains(&0) {
            return Ok(0);
        }
        let mut hi: isize = 0;
        for (&d, &s) in self.dims.iter().zip(&self.strides) {
            if s < 0 {
                return Err(GemmError::new(format!("{what}: negative stride {s}")));
            }
            hi = (d as isize - 1)
                .checked_mul(s)
                .and_then(|x| x.checked_add(hi))
                .ok_or_else(|| GemmError::new(format!("{what}: offsets overflow")))?;
        }
        Ok(hi as usize + 1)
    }
}

/// Offsets of the row-major enumeration of `dims` (a subset of a layout's dimensions): a single stride when they
/// merge, else a table.
pub(crate) fn offsets_of(layout: &TensorLayout, dims: &[usize]) -> Offsets {
    let live: Vec<usize> = dims
        .iter()
        .copied()
        .filter(|&d| layout.dims[d] != 1)
        .collect();
    if live.is_empty() {
        return Offsets::Strided(0);
    }
    let merges = live
        .windows(2)
        .all(|w| layout.strides[w[0]] == layout.strides[w[1]] * layout.dims[w[1]] as isize);
    if merges {
        return Offsets::Strided(layout.strides[*live.last().unwrap_or(&0)]);
    }
    let n: usize = live.iter().map(|&d| layout.dims[d]).product();
    let mut t = Vec::with_capacity(n);
    let mut idx = vec![0usize; live.len()];
    for _ in 0..n {
        t.push(
            idx.iter()
                .zip(&live)
                .map(|(&i, &d)| i as isize * layout.strides[d])
                .sum(),
        );
        for q in (0..idx.len()).rev() {
            idx[q] += 1;
            if idx[q] < layout.dims[live[q]] {
                break;
            }
            idx[q] = 0;
        }
    }
    Offsets::Table(t)
}

/// A validated dot_general with its offset tables.
#[derive(Clone, Debug)]
pub struct DotPlan {
    /// Batch count, rows (lhs free), columns (rhs free), contraction length.
    pub batch: usize,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub(crate) lhs_batch: Offsets,
    pub(crate) rhs_batch: Offsets,
    pub(crate) out_batch: Offsets,
    pub(crate) a_rows: Offsets,
    pub(crate) a_cols: Offsets,
    pub(crate) b_rows: Offsets,
    pub(crate) b_cols: Offsets,
    pub(crate) c_rows: Offsets,
    pub(crate) c_cols: Offsets,
    extents: [usize; 3],
}

impl DotPlan {
    /// Plans `dot(lhs, rhs)` with dimension numbers `dims` writing `out` (dims = batch, lhs free, rhs free).
    pub fn new(
        lhs: &TensorLayout,
        rhs: &TensorLayout,
        dims: &DotDims,
        out: &TensorLayout,
    ) -> Result<DotPlan> {
        let extents = [
            lhs.extent("dot lhs")?,
            rhs.extent("dot rhs")?,
            out.extent("dot out")?,
        ];
        // Every check is `rxla_ir::geometry`'s.
        let wide = |d: &[usize]| d.iter().map(|&x| x as i64).collect::<Vec<i64>>();
        let g = rxla_ir::geometry::dot_geometry(
            &wide(&lhs.dims),
            &wide(&rhs.dims),
            dims,
            &wide(&out.dims),
        )
        .map_err(GemmError::new)?;
        let (lb, lc, lf) = (g.lhs_batch, g.lhs_contracting, g.lhs_free);
        let (rb, rc, rf) = (g.rhs_batch, g.rhs_contracting, g.rhs_free);
        let prod =
            |ds: &[usize], l: &TensorLayout| ds.iter().map(|&d| l.dims[d]).product::<usize>();
        let nb = lb.len();
        let ob: Vec<usize> = (0..nb).collect();
        let om: Vec<usize> = (nb..nb + lf.len()).collect();
        let on: Vec<usize> = (nb + lf.len()..out.dims.len()).collect();
        Ok(DotPlan {
            batch: prod(&lb, lhs),
            m: prod(&lf, lhs),
            n: prod(&rf, rhs),
            k: prod(&lc, lhs),
            lhs_batch: offsets_of(lhs, &lb),
            rhs_batch: offsets_of(rhs, &rb),
            out_batch: offsets_of(out, &ob),
            a_rows: offsets_of(lhs, &lf),
            a_cols: offsets_of(lhs, &lc),
            b_rows: offsets_of(rhs, &rc),
            b_cols: offsets_of(rhs, &rf),
            c_rows: offsets_of(out, &om),
            c_cols: offsets_of(out, &on),
            extents,
        })
    }

    /// The GEMM's operands and result for this call. A column-major result
    /// (a transposed weight gradient, JAX's `{0,1}` outputs) without an
    /// epilogue is computed as its transpose, `Cᵀ = Bᵀ·Aᵀ`, written
    /// row-major: the micro-kernel's tiles then store along C's unit
    /// stride instead of one column at a time (512x512x128 took 1.17 ms
    /// against 0.45). Each element is the same chain of products over k in
    /// the same order, so the bits do not change. An epilogue keeps the
    /// plain roles (its rows and bias are C's).
    fn roles(&self, epi: Option<&Epilogue>) -> Roles<'_> {
        let swap = epi.is_none()
            && matches!(self.c_rows, Offsets::Strided(1))
            && !matches!(self.c_cols, Offsets::Strided(1))
            && self.m > 1
            && self.n > 1;
        if swap {
            Roles {
                swap,
                m: self.n,
                n: self.m,
                a: (&self.b_cols, &self.b_rows),
                b: (&self.a_cols, &self.a_rows),
                c: (&self.c_cols, &self.c_rows),
            }
        } else {
            Roles {
                swap,
                m: self.m,
                n: self.n,
                a: (&self.a_rows, &self.a_cols),
                b: (&self.b_rows, &self.b_cols),
                c: (&self.c_rows, &self.c_cols),
            }
        }
    }

    /// Buffer lengths (elements) lhs, rhs and out need.
    pub fn extents(&self) -> [usize; 3] {
        self.extents
    }

    fn check_lens(&self, l: usize, r: usize, o: usize) -> Result<()> {
        let [el, er, eo] = self.extents;
        if l < el || r < er || o < eo {
            return Err(GemmError::new(format!(
                "dot: buffers of {l}/{r}/{o} elements, the layouts need {el}/{er}/{eo} (lhs/rhs/out)"
            )));
        }
        Ok(())
    }

    /// Runs the f32 dot: `out = lhs . rhs`, then `epi` (rows `b*m + i`, bias row `i`, columns `j`).
    pub fn run_f32(
        &self,
        lhs: &[f32],
        rhs: &[f32],
        out: &mut [f32],
        epi: Option<&Epilogue>,
        opts: &Options,
    ) -> Result<()> {
        self.check_lens(lhs.len(), rhs.len(), out.len())?;
        // SAFETY: lengths checked against the layouts' extents.
        unsafe { self.run_f32_raw(lhs.as_ptr(), rhs.as_ptr(), out.as_mut_ptr(), epi, opts) }
    }

    /// As `run_f32` on raw pointers.
    ///
    /// # Safety
    /// The buffers must hold `extents()` elements and `out` must not overlap the inputs.
    pub unsafe fn run_f32_raw(
        &self,
        lhs: *const f32,
        rhs: *const f32,
        out: *mut f32,
        epi: Option<&Epilogue>,
        opts: &Options,
    ) -> Result<()> {
        if let Some(e) = epi {
            e.check(self.m, self.n, "dot")?;
        }
        let (_, _, threads) = opts.resolve("dot")?;
        let (lp, rp, op) = (
            SendPtr(lhs as *mut f32),
            SendPtr(rhs as *mut f32),
            SendPtr(out),
        );
        let r = self.roles(epi);
        let one = |b: usize, opts: &Options| -> Result<()> {
            // SAFETY: batch offsets are inside the buffers (extents checked by the caller).
            let (a, bb, c) = unsafe {
                (
                    lp.get().offset(self.lhs_batch.at(b)) as *const f32,
                    rp.get().offset(self.rhs_batch.at(b)) as *const f32,
                    op.get().offset(self.out_batch.at(b)),
                )
            };
            // The lhs feeds A unless the roles are swapped (`roles`).
            let (pa, pb) = if r.swap { (bb, a) } else { (a, bb) };
            let ao = Operand {
                ptr: pa,
                rows: r.a.0.clone(),
                cols: r.a.1.clone(),
            };
            let bo = Operand {
                ptr: pb,
                rows: r.b.0.clone(),
                cols: r.b.1.clone(),
            };
            let g = Gemm {
                m: r.m,
                n: r.n,
                k: self.k,
                a: &ao,
                b: &bo,
                c: CTarget {
                    ptr: c,
                    rows: r.c.0,
                    cols: r.c.1,
                },
                alpha: 1.0,
                beta: 0.0,
                epi,
                row_base: b * self.m,
                bias_row_base: 0,
                col_base: 0,
            };
            run_operands(&g, opts, "dot")
        };
        let small = self.m.saturating_mul(self.n).saturating_mul(self.k) <= 1 << 24;
        if threads > 1 && self.batch >= threads && small {
            let single = Options {
                threads: 1,
                ..*opts
            };
            (0..self.batch)
                .into_par_iter()
                .try_for_each(|b| one(b, &single))
        } else {
            (0..self.batch).try_for_each(|b| one(b, opts))
        }
    }

    /// Runs the dot on f32, f16 or bf16 operands and result (`ElemKind` each; little-endian element buffers in the
    /// layouts the plan was built with, offsets in elements). 16-bit operands are widened to f32 inside the A/B
    /// packing (as `half`'s `to_f32` does; no widened copy of an operand is made), the products accumulate in f32
    /// in exactly `run_f32`'s order (same packing, kernel, blocking and unpacked paths), and a 16-bit result is
    /// each f32 accumulator rounded once as `half::f16::from_f32` / `half::bf16::from_f32` do (round to nearest
    /// even, NaN stays NaN). So the output is bit-identical to widening the operands with `half`, `run_f32`, and
    /// rounding its result with `half`. `epi` (rows `b*m + i`, columns `j`) runs on the f32 accumulators, before
    /// the rounding. All three kinds F32 is `run_f32_raw`.
    ///
    /// # Safety
    /// `lhs`, `rhs` and `out` hold `extents()` elements of their kinds (`extents()[i] * kind.byte_size()` bytes;
    /// 16-bit buffers may be unaligned, f32 buffers are 4-byte aligned); `out` does not overlap the inputs.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn run_mixed_raw(
        &self,
        lhs: *const u8,
        lhs_ty: ElemKind,
        rhs: *const u8,
        rhs_ty: ElemKind,
        out: *mut u8,
        out_ty: ElemKind,
        epi: Option<&Epilogue>,
        opts: &Options,
    ) -> Result<()> {
        let Some(oh) = half_of(out_ty) else {
            // SAFETY: the caller's contract (an f32 output).
            return unsafe {
                self.run_mixed_f32(lhs, lhs_ty, rhs, rhs_ty, out as *mut f32, epi, opts)
            };
        };
        // A 16-bit result: the f32 accumulators in a scratch buffer with the output's own layout (so every tile
        // is stored exactly as `run_f32` stores it, NaN payloads included), each rounded once.
        let eo = self.extents[2];
        with_scratch(eo, |acc| {
            // SAFETY: the caller's contract for the inputs; `acc` has the output's extent.
            unsafe { self.run_mixed_f32(lhs, lhs_ty, rhs, rhs_ty, acc.as_mut_ptr(), epi, opts)? };
            let cvt = Cvt::detect();
            let o = out as *mut u16;
            if eo == self.batch * self.m * self.n {
                // Dense: every element of the extent is an output element.
                // SAFETY: `out` holds `eo` 16-bit elements.
                unsafe { narrow_run(oh, cvt, acc, o) };
            } else {
                for b in 0..self.batch {
                    for i in 0..self.m {
                        let base = self.out_batch.at(b) + self.c_rows.at(i);
                        for j in 0..self.n {
                            let at = base + self.c_cols.at(j);
                            // SAFETY: `at` is an output element, inside both buffers' extent.
                            unsafe { o.offset(at).write_unaligned(from_f32(oh, acc[at as usize])) };
                        }
                    }
                }
            }
            Ok(())
        })
    }

    /// `run_mixed_raw` into an f32 output with the plan's layout.
    ///
    /// # Safety
    /// As for `run_mixed_raw`, `out` holding `extents()[2]` f32.
    #[allow(clippy::too_many_arguments)]
    unsafe fn run_mixed_f32(
        &self,
        lhs: *const u8,
        lhs_ty: ElemKind,
        rhs: *const u8,
        rhs_ty: ElemKind,
        out: *mut f32,
        epi: Option<&Epilogue>,
        opts: &Options,
    ) -> Result<()> {
        if lhs_ty == ElemKind::F32 && rhs_ty == ElemKind::F32 {
            // SAFETY: the caller's contract.
            return unsafe {
                self.run_f32_raw(lhs as *const f32, rhs as *const f32, out, epi, opts)
            };
        }
        if let Some(e) = epi {
            e.check(self.m, self.n, "dot")?;
        }
        let (kernel, blk, threads) = opts.resolve("dot")?;
        let cvt = Cvt::detect();
        let (m, n, k) = (self.m, self.n, self.k);
        if opts.unpacked_paths
            && m > 0
            && n > 0
            && k > 0
            && (m == 1 || n == 1 || m * n * k <= crate::small::TINY_FLOPS)
        {
            // The unpacked (matrix-vector, tiny) paths of `run_f32`: memory-bound, so widened copies cost what the
            // product costs; this keeps `run_f32`'s accumulation order (and result bits).
            let widen_all = |p: *const u8, t: ElemKind, len: usize| -> Vec<f32> {
                let Some(h) = half_of(t) else {
                    return Vec::new();
                };
                let mut v = vec![0f32; len];
                // SAFETY: the buffer holds `len` 16-bit elements (the caller's contract).
                unsafe { widen_run(h, cvt, p as *const u16, len, v.as_mut_ptr()) };
                v
            };
            let lw = widen_all(lhs, lhs_ty, self.extents[0]);
            let rw = widen_all(rhs, rhs_ty, self.extents[1]);
            let lp = if lhs_ty == ElemKind::F32 {
                lhs as *const f32
            } else {
                lw.as_ptr()
            };
            let rp = if rhs_ty == ElemKind::F32 {
                rhs as *const f32
            } else {
                rw.as_ptr()
            };
            // SAFETY: f32 views of the caller's buffers or the widened copies, all `extents()` long.
            return unsafe { self.run_f32_raw(lp, rp, out, epi, opts) };
        }
        let (lp, rp, op) = (
            SendPtr(lhs as *mut f32),
            SendPtr(rhs as *mut f32),
            SendPtr(out),
        );
        let operand = |p: *const u8, t: ElemKind, off: isize, rows: &Offsets, cols: &Offsets| {
            match half_of(t) {
                None => MixedOperand::F32(Operand {
                    ptr: (p as *const f32).wrapping_offset(off),
                    rows: rows.clone(),
                    cols: cols.clone(),
                }),
                Some(kind) => MixedOperand::Half(HalfOperand {
                    ptr: (p as *const u16).wrapping_offset(off),
                    kind,
                    cvt,
                    rows: rows.clone(),
                    cols: cols.clone(),
                }),
            }
        };
        // The roles of `run_f32_raw`, so both give the same bits.
        let r = self.roles(epi);
        let one = |b: usize, threads: usize| {
            let lhs = (lp.get() as *const u8, lhs_ty, self.lhs_batch.at(b));
            let rhs = (rp.get() as *const u8, rhs_ty, self.rhs_batch.at(b));
            let ((pa, ta, oa), (pb, tb, ob)) = if r.swap { (rhs, lhs) } else { (lhs, rhs) };
            let a = operand(pa, ta, oa, r.a.0, r.a.1);
            let bb = operand(pb, tb, ob, r.b.0, r.b.1);
            let g = Gemm {
                m: r.m,
                n: r.n,
                k,
                a: &a,
                b: &bb,
                c: CTarget {
                    // SAFETY: batch b's output is inside the buffer (the caller's contract).
                    ptr: unsafe { op.get().offset(self.out_batch.at(b)) },
                    rows: r.c.0,
                    cols: r.c.1,
                },
                alpha: 1.0,
                beta: 0.0,
                epi,
                row_base: b * m,
                bias_row_base: 0,
                col_base: 0,
            };
            driver::run(&g, kernel, blk, threads, opts.parallel_threshold);
        };
        // The batch split of `run_f32_raw`.
        let small = m.saturating_mul(n).saturating_mul(k) <= 1 << 24;
        if threads > 1 && self.batch >= threads && small {
            (0..self.batch).into_par_iter().for_each(|b| one(b, 1));
        } else {
            (0..self.batch).for_each(|b| one(b, threads));
        }
        Ok(())
    }

    /// The simple correct path for any element type (see `dot_generic`).
    pub fn run_generic<T: Scalar>(&self, lhs: &[T], rhs: &[T], out: &mut [T]) -> Result<()> {
        self.check_lens(lhs.len(), rhs.len(), out.len())?;
        for b in 0..self.batch {
            let (lb, rb, ob) = (
                self.lhs_batch.at(b),
                self.rhs_batch.at(b),
                self.out_batch.at(b),
            );
            for i in 0..self.m {
                let la = lb + self.a_rows.at(i);
                let oa = ob + self.c_rows.at(i);
                for j in 0..self.n {
                    let ra = rb + self.b_cols.at(j);
                    let mut acc = T::ZERO;
                    for p in 0..self.k {
                        let x = lhs[(la + self.a_cols.at(p)) as usize];
                        let y = rhs[(ra + self.b_rows.at(p)) as usize];
                        acc = acc.add(x.mul(y));
                    }
                    out[(oa + self.c_cols.at(j)) as usize] = acc;
                }
            }
        }
        Ok(())
    }
}

/// Which operand feeds the GEMM's A and B, with their offset tables, and
/// the result's (`DotPlan::roles`).
struct Roles<'p> {
    /// B·A-transposed: the rhs feeds A and the lhs B.
    swap: bool,
    m: usize,
    n: usize,
    /// (rows, cols) of A, B and C.
    a: (&'p Offsets, &'p Offsets),
    b: (&'p Offsets, &'p Offsets),
    c: (&'p Offsets, &'p Offsets),
}

/// The 16-bit format of `t` (`None` for f32).
fn half_of(t: ElemKind) -> Option<Half> {
    match t {
        ElemKind::F32 => None,
        ElemKind::F16 => Some(Half::F16),
        ElemKind::BF16 => Some(Half::Bf16),
    }
}

/// A raw pointer that may cross to rayon workers (each batch writes a disjoint output slice).
#[derive(Clone, Copy)]
struct SendPtr(*mut f32);
// SAFETY: see the type's doc.
unsafe impl Send for SendPtr {}
unsafe impl Sync for SendPtr {}
impl SendPtr {
    fn get(self) -> *mut f32 {
        self.0
    }
}

/// Element types of the simple dot path: evaluator semantics (separate rounded multiply and add; integers wrap).
pub trait Scalar: Copy + Send + Sync + 'static {
    const ZERO: Self;
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
}

macro_rules! float_scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            const ZERO: Self = 0.0;
            fn add(self, o: Self) -> Self { self + o }
            fn mul(self, o: Self) -> Self { self * o }
        }
    )*};
}
macro_rules! int_scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            const ZERO: Self = 0;
            fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            fn mul(self, o: Self) -> Self { self.wrapping_mul(o) }
        }
    )*};
}
float_scalar!(f32, f64);
int_scalar!(i8, i16, i32, i64, u8, u16, u32, u64);

/// `dot_general` for any `Scalar` on row-major operands (evaluator semantics; f64 and integers).
pub fn dot_generic<T: Scalar>(
    lhs: (&[T], &[usize]),
    rhs: (&[T], &[usize]),
    dims: &DotDims,
    out: (&mut [T], &[usize]),
) -> Result<()> {
    let plan = DotPlan::new(
        &TensorLayout::row_major(lhs.1),
        &TensorLayout::row_major(rhs.1),
        dims,
        &TensorLayout::row_major(out.1),
    )?;
    plan.run_generic(lhs.0, rhs.0, out.0)
}
