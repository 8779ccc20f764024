//! `dot_general` (XLA's dot: batch dimensions, any contracting dimensions; result = batch, lhs free, rhs free)
//! planned once (`DotPlan::new`: validation and offset tables) and run many times: f32 through the packed GEMM
//! (any operand strides, so layouts and transposes cost nothing extra), other element types through a simple
//! correct loop (`dot_generic`) with the evaluator's semantics (zero-started accumulator, no FMA, wrapping integer
//! arithmetic). Must not allocate per element or re-validate on every run.

use crate::driver::{CTarget, Gemm};
use crate::epilogue::Epilogue;
use crate::error::{GemmError, Result};
use crate::mat::Offsets;
use crate::pack::Operand;
use crate::{Options, run_operands};
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
    lhs_batch: Offsets,
    rhs_batch: Offsets,
    out_batch: Offsets,
    a_rows: Offsets,
    a_cols: Offsets,
    b_rows: Offsets,
    b_cols: Offsets,
    c_rows: Offsets,
    c_cols: Offsets,
    extents: [usize; 3],
}

fn resolve(list: &[i64], rank: usize, what: &str) -> Result<Vec<usize>> {
    list.iter()
        .map(|&d| {
            usize::try_from(d)
                .ok()
                .filter(|&d| d < rank)
                .ok_or_else(|| {
                    GemmError::new(format!(
                        "dot: {what} dimension {d} is out of range for rank {rank}"
                    ))
                })
        })
        .collect()
}

fn free_dims(
    rank: usize,
    batch: &[usize],
    contracting: &[usize],
    side: &str,
) -> Result<Vec<usize>> {
    let mut seen = vec![false; rank];
    for &d in batch.iter().chain(contracting) {
        if std::mem::replace(&mut seen[d], true) {
            return Err(GemmError::new(format!(
                "dot: {side} dimension {d} is listed twice among batch/contracting dimensions"
            )));
        }
    }
    Ok((0..rank).filter(|&d| !seen[d]).collect())
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
        let (lr, rr) = (lhs.dims.len(), rhs.dims.len());
        let lb = resolve(&dims.lhs_batch, lr, "lhs batch")?;
        let rb = resolve(&dims.rhs_batch, rr, "rhs batch")?;
        let lc = resolve(&dims.lhs_contracting, lr, "lhs contracting")?;
        let rc = resolve(&dims.rhs_contracting, rr, "rhs contracting")?;
        if lb.len() != rb.len() || lc.len() != rc.len() {
            return Err(GemmError::new(format!(
                "dot: {} lhs vs {} rhs batch dims, {} lhs vs {} rhs contracting dims",
                lb.len(),
                rb.len(),
                lc.len(),
                rc.len()
            )));
        }
        for (&l, &r) in lb.iter().zip(&rb).chain(lc.iter().zip(&rc)) {
            if lhs.dims[l] != rhs.dims[r] {
                return Err(GemmError::new(format!(
                    "dot: lhs dimension {l} (size {}) is paired with rhs dimension {r} (size {})",
                    lhs.dims[l], rhs.dims[r]
                )));
            }
        }
        let lf = free_dims(lr, &lb, &lc, "lhs")?;
        let rf = free_dims(rr, &rb, &rc, "rhs")?;
        let expect: Vec<usize> = lb
            .iter()
            .map(|&d| lhs.dims[d])
            .chain(lf.iter().map(|&d| lhs.dims[d]))
            .chain(rf.iter().map(|&d| rhs.dims[d]))
            .collect();
        if expect != out.dims {
            return Err(GemmError::new(format!(
                "dot: result dimensions {:?} do not match the operands (expected {expect:?})",
                out.dims
            )));
        }
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
        let one = |b: usize, opts: &Options| -> Result<()> {
            // SAFETY: batch offsets are inside the buffers (extents checked by the caller).
            let (a, bb, c) = unsafe {
                (
                    lp.get().offset(self.lhs_batch.at(b)) as *const f32,
                    rp.get().offset(self.rhs_batch.at(b)) as *const f32,
                    op.get().offset(self.out_batch.at(b)),
                )
            };
            let ao = Operand {
                ptr: a,
                rows: self.a_rows.clone(),
                cols: self.a_cols.clone(),
            };
            let bo = Operand {
                ptr: bb,
                rows: self.b_rows.clone(),
                cols: self.b_cols.clone(),
            };
            let g = Gemm {
                m: self.m,
                n: self.n,
                k: self.k,
                a: &ao,
                b: &bo,
                c: CTarget {
                    ptr: c,
                    rows: &self.c_rows,
                    cols: &self.c_cols,
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
