//! XLA's general convolution: `dim_labels` (batch/feature/spatial positions of input, kernel and output), window
//! strides, low/high padding (possibly negative), lhs (base) dilation, rhs (window) dilation, window reversal,
//! feature_group_count and batch_group_count. Values only; the result shape is taken from the instruction and
//! checked for consistency so that indexing is always in bounds.
//!
//! Definition (StableHLO's): the input is split into `feature_group_count` groups along its feature dimension and
//! into `batch_group_count` groups along its batch dimension; the kernel's output features are split into the same
//! number of groups; output feature `o` belongs to group `o / (out_features / groups)` and reads input features
//! `g*C..(g+1)*C` (C = kernel input features) or input batch `g*N + b` (N = output batch). Along each spatial
//! dimension, window element `k` of output position `o` reads base position
//! `p = o*stride + k*rhs_dilation - pad_low`, skipped unless `p` is a multiple of the lhs dilation and `p/lhs_dilation`
//! lies inside the input; the kernel element is `k`, or `size-1-k` when the dimension is reversed.
//!
//! Accumulation order: per output element, from zero in the computation type (as for `dot`: f32 for f16/bf16/f32,
//! f64, wrapping integers), over window positions in row-major order of the window dimensions, and for each position
//! over the group's input features in increasing order: `acc = acc + input * kernel` (no fused multiply-add).

use super::numeric::{Ring, RingKernel, run_for_output};
use super::util::{check_literal, count, make_array, strides, window_base_index};
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, ArrayShape, ConvDims, Window};

/// `convolution(lhs, rhs)`; `out` is the instruction's shape.
pub fn convolution(
    lhs: &ArrayLiteral,
    rhs: &ArrayLiteral,
    window: &Window,
    dims: &ConvDims,
    feature_group_count: i64,
    batch_group_count: i64,
    out: &ArrayShape,
) -> Result<ArrayLiteral> {
    check_literal(lhs, "convolution lhs")?;
    check_literal(rhs, "convolution rhs")?;
    let plan = Plan::new(
        &lhs.shape.dims,
        &rhs.shape.dims,
        &out.dims,
        window,
        dims,
        feature_group_count,
        batch_group_count,
    )?;
    let data = run_for_output(&plan, out.element_type, &lhs.data, &rhs.data)?;
    make_array(out, data)
}

struct Plan {
    window: Window,
    out_dims: Vec<i64>,
    // Dimension numbers resolved to usize.
    in_b: usize,
    in_f: usize,
    in_sp: Vec<usize>,
    k_i: usize,
    k_o: usize,
    k_sp: Vec<usize>,
    out_b: usize,
    out_f: usize,
    out_sp: Vec<usize>,
    lhs_dims: Vec<i64>,
    lhs_strides: Vec<usize>,
    rhs_strides: Vec<usize>,
    /// Kernel input features (features per feature group).
    group_in: i64,
    /// Output features per feature group / per batch group.
    fg_out: i64,
    bg_out: i64,
    /// Output batch size (input batch per batch group).
    batch_out: i64,
}

impl Plan {
    #[allow(clippy::too_many_arguments)]
    fn new(
        ld: &[i64],
        rd: &[i64],
        od: &[i64],
        window: &Window,
        dims: &ConvDims,
        fgc: i64,
        bgc: i64,
    ) -> Result<Plan> {
        // Every check (labels, window, groups, sizes) is `rxla_ir::geometry`'s.
        let g = rxla_ir::geometry::conv_geometry(ld, rd, od, window, dims, fgc, bgc)
            .map_err(EvalError::new)?;
        let (c_k, c_out, batch_out) = (g.group_in, g.c_out, g.batch_out);
        let (in_b, in_f, in_sp) = (g.input.batch, g.input.feature, g.input.spatial);
        let (k_i, k_o, k_sp) = (g.kernel.batch, g.kernel.feature, g.kernel.spatial);
        let (out_b, out_f, out_sp) = (g.output.batch, g.output.feature, g.output.spatial);
        Ok(Plan {
            window: window.clone(),
            out_dims: od.to_vec(),
            in_b,
            in_f,
            in_sp,
            k_i,
            k_o,
            k_sp,
            out_b,
            out_f,
            out_sp,
            lhs_dims: ld.to_vec(),
            lhs_strides: strides(ld),
            rhs_strides: strides(rd),
            group_in: c_k,
            fg_out: c_out / fgc,
            bg_out: c_out / bgc,
            batch_out,
        })
    }
}

impl RingKernel for Plan {
    fn run<R: Ring>(&self, lhs: &[R], rhs: &[R]) -> Result<Vec<R>> {
        let n = count(&self.out_dims, "convolution result")?;
        let mut out = Vec::with_capacity(n);
        if n == 0 {
            return Ok(out);
        }
        let wsizes: Vec<i64> = self.window.dims.iter().map(|w| w.size).collect();
        let wcount = count(&wsizes, "convolution window")?;
        let nsp = wsizes.len();
        let (ls, rs) = (&self.lhs_strides, &self.rhs_strides);
        // For the current output spatial position: the lhs/rhs spatial offsets of every window position that reads a
        // real input element (padding and dilation holes are left out).
        let mut taps: Vec<(usize, usize)> = Vec::with_capacity(wcount);
        let mut oidx = vec![0i64; self.out_dims.len()];
        let mut widx = vec![0i64; nsp];
        let mut spatial = vec![0i64; nsp];
        let mut have_taps = false;
        for _ in 0..n {
            // Taps depend only on the output's spatial position; recompute them when it changes.
            let mut changed = !have_taps;
            for (s, &d) in self.out_sp.iter().enumerate() {
                if spatial[s] != oidx[d] {
                    spatial[s] = oidx[d];
                    changed = true;
                }
            }
            if changed {
                have_taps = true;
                taps.clear();
                widx.iter_mut().for_each(|x| *x = 0);
                for _ in 0..wcount {
                    let mut lo = 0usize;
                    let mut ro = 0usize;
                    let mut inside = true;
                    for s in 0..nsp {
                        let w = &self.window.dims[s];
                        match window_base_index(
                            spatial[s],
                            widx[s],
                            w,
                            self.lhs_dims[self.in_sp[s]],
                        ) {
                            Some(p) => lo += p as usize * ls[self.in_sp[s]],
                            None => {
                                inside = false;
                                break;
                            }
                        }
                        let k = if w.window_reversal {
                            w.size - 1 - widx[s]
                        } else {
                            widx[s]
                        };
                        ro += k as usize * rs[self.k_sp[s]];
                    }
                    if inside {
                        taps.push((lo, ro));
                    }
                    rxla_ir::index::increment(&mut widx, &wsizes);
                }
            }
            let o_f = oidx[self.out_f];
            let fg = o_f / self.fg_out;
            let bg = o_f / self.bg_out;
            let batch = bg * self.batch_out + oidx[self.out_b];
            let lbase =
                batch as usize * ls[self.in_b] + (fg * self.group_in) as usize * ls[self.in_f];
            let rbase = o_f as usize * rs[self.k_o];
            let (lf, rf) = (ls[self.in_f], rs[self.k_i]);
            let mut acc = R::ZERO;
            for &(lo, ro) in &taps {
                let (mut li, mut ri) = (lbase + lo, rbase + ro);
                for _ in 0..self.group_in {
                    acc = acc.add(lhs[li].mul(rhs[ri]));
                    li += lf;
                    ri += rf;
                }
            }
            out.push(acc);
            rxla_ir::index::increment(&mut oidx, &self.out_dims);
        }
        Ok(out)
    }
}
