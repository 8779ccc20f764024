//! Position-major convolution for batch-minor inputs: the weight gradient of an NHWC convolution as JAX lowers it
//! (`f01b_i01o->01bf`: the input's *batch* dimension — the forward pass's channels — has unit stride, the window
//! is the whole forward output and the output is the small kernel). One GEMM `out[j, o] = sum_p In[j, p] * K[p, o]`
//! with rows `j = position * batch + b` (output spatial position, then batch: batch innermost), columns `o` = output
//! features (the output's unit-stride dim) and `p = c * taps + t` (input feature, then window position — the
//! feature-major plan's contraction order, so the kernel is read through the same offset table). For a fixed `p`,
//! rows with consecutive `b` at one spatial position read consecutive input floats, so an A micro-panel is a copy of
//! one or two contiguous segments per contraction index (zeros where the window position falls in the padding).
//! The feature-major implicit GEMM would instead gather every element of B along a strided spatial dimension.
//! This module plans the row order and packs A; it must not contain micro-kernel code nor validate the
//! convolution (`conv.rs` does, and decides when this path is taken).

use crate::mat::Offsets;
use crate::pack::PackA;

/// The batch-minor plan of a convolution (see the module doc).
#[derive(Clone, Debug)]
pub(crate) struct BatchPlan {
    /// Batch count (rows per spatial position).
    pub batch: usize,
    /// C: output offset of row `j = position * batch + b`.
    pub c_rows: Offsets,
    /// Per contraction index `p`: input offset of window position `t` for feature `c` (relative to the position's
    /// origin), and per (p, spatial dim) the window offset used for the padding test.
    pub tap_off: Vec<isize>,
    /// Per output spatial position: input offset of its window origin, and per spatial dim the origin itself.
    pub pos_off: Vec<isize>,
    pub pos_origin: Vec<i64>,
}

impl BatchPlan {
    /// Builds the tables: `tap` holds `ns` dilated window offsets per contraction index, `chan` the feature offset
    /// per contraction index, `origin` holds `ns` window origins per output spatial position, `c_pos` the output
    /// offset of each spatial position and `s_out_b` the output's batch stride.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        batch: usize,
        ns: usize,
        tap: &[i64],
        chan: &[isize],
        origin: &[i64],
        c_pos: &[isize],
        s_out_b: isize,
        in_stride: &[isize],
    ) -> BatchPlan {
        let offset =
            |v: &[i64]| -> isize { v.iter().zip(in_stride).map(|(&x, &s)| x as isize * s).sum() };
        let tap_off = chan
            .iter()
            .enumerate()
            .map(|(p, &c)| c + offset(&tap[p * ns..(p + 1) * ns]))
            .collect();
        let positions = c_pos.len();
        let pos_off = (0..positions)
            .map(|q| offset(&origin[q * ns..(q + 1) * ns]))
            .collect();
        let c_rows = (0..positions * batch)
            .map(|j| c_pos[j / batch] + (j % batch) as isize * s_out_b)
            .collect();
        BatchPlan {
            batch,
            c_rows: crate::conv::simplify(c_rows),
            tap_off,
            pos_off,
            pos_origin: origin.to_vec(),
        }
    }
}

/// The input read as A (rows `j = position * batch + b`, columns `p = c * taps + t`).
pub(crate) struct BatchA<'a> {
    /// Input base (batch 0, feature 0).
    pub ptr: *const f32,
    pub plan: &'a BatchPlan,
    /// Spatial dims.
    pub ns: usize,
    /// Per (p, spatial dim): dilated window offset; per spatial dim: input size.
    pub tap: &'a [i64],
    pub in_size: &'a [i64],
}

// SAFETY: read-only access to the borrowed input.
unsafe impl Sync for BatchA<'_> {}

/// A run of A-panel rows that share one output spatial position: panel rows `i..i + len` are batches `b0..b0 + len`.
#[derive(Clone, Copy, Default)]
struct Run {
    pos: usize,
    b0: usize,
    i: usize,
    len: usize,
}

/// The most rows one A micro-panel may have.
const MAX_MR: usize = 32;

impl PackA for BatchA<'_> {
    fn pack_a(&self, i0: usize, rows: usize, p0: usize, kc: usize, mr: usize, dst: &mut [f32]) {
        assert!(mr <= MAX_MR && rows <= mr, "BatchA: MR {mr} > {MAX_MR}");
        let dst = &mut dst[..kc * mr];
        let batch = self.plan.batch;
        let mut runs = [Run::default(); MAX_MR];
        let mut nruns = 0;
        let mut i = 0;
        while i < rows {
            let j = i0 + i;
            let (pos, b0) = (j / batch, j % batch);
            let len = (batch - b0).min(rows - i);
            runs[nruns] = Run { pos, b0, i, len };
            nruns += 1;
            i += len;
        }
        let runs = &runs[..nruns];
        let ns = self.ns;
        for (q, d) in dst.chunks_exact_mut(mr).enumerate() {
            let p = p0 + q;
            let tap = &self.tap[p * ns..(p + 1) * ns];
            for r in runs {
                let origin = &self.plan.pos_origin[r.pos * ns..(r.pos + 1) * ns];
                let inside = (0..ns).all(|s| {
                    let x = origin[s] + tap[s];
                    x >= 0 && x < self.in_size[s]
                });
                let seg = &mut d[r.i..r.i + r.len];
                if inside {
                    let off = self.plan.pos_off[r.pos] + self.plan.tap_off[p] + r.b0 as isize;
                    // SAFETY: the window position is inside the input, so batches b0..b0+len of feature c at
                    // that position are `len` consecutive floats of the input (unit batch stride, checked by the
                    // planner along with the extents).
                    unsafe {
                        std::ptr::copy_nonoverlapping(self.ptr.offset(off), seg.as_mut_ptr(), r.len)
                    };
                } else {
                    seg.fill(0.0);
                }
            }
            d[rows..].fill(0.0);
        }
    }
}
