//! Convolution as implicit GEMM. Per group of output features (feature/batch groups): `C[o, j] = sum_p
//! A[o, p] * B[p, j]` with `o` the output feature, `j` the output position (batch, then output spatial dims,
//! row-major), `p = c * taps + t` (group input feature, then window position). A is the kernel read through an offset
//! table; B is never materialised: `ConvB` gathers it straight into the packed B panels (padding, negative padding,
//! strides and dilations resolved per element, with a contiguous-copy fast path along the innermost output dim;
//! same-size unit-stride 2-D convolutions on row-major planes — 3x3 SAME — read each panel row as 16 consecutive
//! floats of the plane behind a lane mask (AVX2 tier, 16-wide panels; the AVX-512 tier's 32-wide panels as two
//! such 16-column halves with AVX-512 masked loads), see `Plane`; column-stride-2 ones — the ResNet stem — do the
//! same on the input split once into even and odd columns, see `Plane2`).
//! Windows of size 1 with unit stride/dilation and no padding (1x1 convolutions) take the plain GEMM path
//! per batch. Feature-minor layouts (NHWC: unit input- and output-feature strides) take the position-major GEMM of
//! `nhwc.rs` instead (rows = output positions, columns = output features). Semantics are the evaluator's (crates/eval/src/kernels/conv.rs), except accumulation order and FMA.
//! This module validates and plans; it must not contain micro-kernel code.

use crate::batch_minor::{BatchA, BatchPlan};
use crate::dot::{TensorLayout, offsets_of};
use crate::driver::{CTarget, Gemm, run};
use crate::epilogue::{Bias, Epilogue};
use crate::error::{GemmError, Result};
use crate::gather::{self, Simd, gather_row};
use crate::mat::Offsets;
use crate::nhwc::{ConvA, RowsPlan};
use crate::pack::{Operand, PackB};
use crate::{Options, run_operands};
use rxla_ir::{ConvDims, Window};

/// A validated convolution with its gather tables.
#[derive(Clone, Debug)]
pub struct ConvPlan {
    /// Output features, output positions (batch x spatial), contraction length (group features x taps).
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// Group input features and window positions (`p = c * taps + t`).
    cg: usize,
    taps: usize,
    fg_out: usize,
    bg_out: usize,
    batch_out: usize,
    s_in_b: isize,
    s_in_f: isize,
    s_k_o: isize,
    s_out_f: isize,
    /// A: kernel offset of contraction index p (relative to the output feature's row).
    a_cols: Offsets,
    /// B gather tables: per p the input-feature offset and (per spatial dim) the dilated window position.
    chan: Vec<isize>,
    tap: Vec<i64>,
    /// Per output position: batch offset in the input, and per spatial dim `o * stride - pad_low`.
    col_boff: Vec<isize>,
    col_origin: Vec<i64>,
    /// Per spatial dim: input size, input stride, base (lhs) dilation, window stride.
    in_size: Vec<i64>,
    in_stride: Vec<isize>,
    base_dil: Vec<i64>,
    wstride: Vec<i64>,
    out_last: usize,
    /// Window size of the innermost spatial dim (taps per outer window row).
    wlast: usize,
    /// C: output offset of each output position.
    c_cols: Offsets,
    /// The 1x1 path: input offsets of the output positions within one batch (None: implicit GEMM).
    pointwise: Option<Pointwise>,
    /// The same-size stride-1 2-D fast path of the B packing (`Plane`).
    plane: Option<Plane>,
    /// The column-stride-2 2-D fast path (`Plane2`).
    plane2: Option<Plane2>,
    /// The position-major path for feature-minor (NHWC) layouts.
    rows_plan: Option<RowsPlan>,
    /// The position-major path for batch-minor inputs (weight gradients, `batch_minor.rs`).
    batch_plan: Option<BatchPlan>,
    extents: [usize; 3],
}

/// Two spatial dims stored as row-major rows (unit column stride), window
/// column stride 2, no base dilation, one feature and batch group (the
/// ResNet stem: 7x7 stride 2). The input is first split once per call into
/// even and odd columns (`deinterleave`): tap t of output column `ow` reads
/// input column `2·ow + dw`, which is column `ow + (dw - p)/2` of the
/// parity-`p` half-row — so a panel within one output row reads 16
/// consecutive floats behind a lane mask, like `Plane`.
#[derive(Clone, Debug)]
struct Plane2 {
    h: i64,
    w: i64,
    /// Half-row width: columns of the even half (the odd one has w/2).
    we: i64,
    /// Window row stride.
    sh: i64,
    ho: i64,
    wo: i64,
    batch: usize,
    chans: usize,
    /// Strides of batch, feature and input row in the input.
    s_b: isize,
    s_c: isize,
    s_h: isize,
    /// Per tap: row and column offset (window position - padding).
    dh: Vec<i64>,
    dw: Vec<i64>,
}

impl Plane2 {
    /// Floats of the deinterleaved input: per (batch, feature, row) an even
    /// and an odd half-row of `we` floats.
    fn len(&self) -> usize {
        self.batch * self.chans * self.h as usize * 2 * self.we as usize
    }

    /// Splits every input row into its even and odd columns.
    ///
    /// # Safety
    /// `input` holds the plan's input; `d` holds `len()` floats.
    unsafe fn deinterleave(&self, input: *const f32, d: &mut [f32]) {
        let (w, we) = (self.w as usize, self.we as usize);
        let mut rows = d.chunks_exact_mut(2 * we);
        for b in 0..self.batch {
            for c in 0..self.chans {
                for h in 0..self.h as usize {
                    let Some(dst) = rows.next() else { return };
                    let off = b as isize * self.s_b + c as isize * self.s_c + h as isize * self.s_h;
                    // SAFETY: row (b, c, h) of the input, `w` floats.
                    let src = unsafe { std::slice::from_raw_parts(input.offset(off), w) };
                    let (even, odd) = dst.split_at_mut(we);
                    for (q, pair) in src.chunks(2).enumerate() {
                        even[q] = pair[0];
                        if let Some(&x) = pair.get(1) {
                            odd[q] = x;
                        }
                    }
                }
            }
        }
    }
}

/// Floats ahead of a plane panel row that are prefetched (three panels on;
/// interleaved runs of the 3x3 conv: 16 slower, 32 and 48 ~2% faster than
/// none, 48 best).
const PREFETCH_AHEAD: usize = 48;

/// Floats ahead of the second half of a 32-wide plane panel row that are prefetched (one panel on).
const PREFETCH_AHEAD_32: usize = 32;

/// Taps (window positions) the `Plane` packing keeps masks for on the stack.
const MAX_PLANE_TAPS: usize = 64;

/// Which lanes of a 16-lane mask pair are set: 0 none, 2 all, 1 some.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn mask_state(m0: std::arch::x86_64::__m256i, m1: std::arch::x86_64::__m256i) -> u8 {
    use std::arch::x86_64::*;
    let all = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_and_si256(m0, m1)));
    let any = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_or_si256(m0, m1)));
    if all == 0xff { 2 } else { u8::from(any != 0) }
}

/// One packed panel row: `dst[i] = src[i]` where lane i of `(m0, m1)` is
/// set, else 0 (`state` from `mask_state`). Nothing is read for state 0;
/// plain loads when all lanes are set or the 16 floats lie inside `buf`
/// (the rest cleared by AND), masked loads — slow on Zen 3 — otherwise.
///
/// # Safety
/// The set lanes of `src` are readable; `buf` is a readable range; `dst`
/// holds 16 floats.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn row16(
    dst: &mut [f32],
    src: *const f32,
    m0: std::arch::x86_64::__m256i,
    m1: std::arch::x86_64::__m256i,
    state: u8,
    buf: (*const f32, *const f32),
) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's contract.
    unsafe {
        let (v0, v1) = match state {
            0 => (_mm256_setzero_ps(), _mm256_setzero_ps()),
            2 => (_mm256_loadu_ps(src), _mm256_loadu_ps(src.add(8))),
            _ if src >= buf.0 && src.wrapping_add(16) <= buf.1 => (
                _mm256_and_ps(_mm256_loadu_ps(src), _mm256_castsi256_ps(m0)),
                _mm256_and_ps(_mm256_loadu_ps(src.add(8)), _mm256_castsi256_ps(m1)),
            ),
            _ => (
                _mm256_maskload_ps(src, m0),
                _mm256_maskload_ps(src.wrapping_add(8), m1),
            ),
        };
        _mm256_storeu_ps(dst.as_mut_ptr(), v0);
        _mm256_storeu_ps(dst.as_mut_ptr().add(8), v1);
    }
}

/// Two spatial dims stored as row-major planes, unit strides and base
/// dilation, output plane = input plane (3x3 SAME and the like): column j
/// is position `pos` of an image and tap t reads input position
/// `pos + dh[t]·W + dw[t]` of the same plane, so a panel row is 16
/// consecutive floats behind a lane mask (the window positions falling
/// outside the plane), whatever rows the 16 columns span.
#[derive(Clone, Debug)]
struct Plane {
    h: i64,
    w: i64,
    /// Per tap: row and column offset (window position - padding).
    dh: Vec<i64>,
    dw: Vec<i64>,
}

#[derive(Clone, Debug)]
struct Pointwise {
    /// Input/output offsets of the spatial positions within one batch.
    in_cols: Offsets,
    out_cols: Offsets,
    positions: usize,
    s_out_b: isize,
}

impl ConvPlan {
    /// Plans `convolution(input, kernel)` writing `output` (XLA semantics; group counts >= 1).
    pub fn new(
        input: &TensorLayout,
        kernel: &TensorLayout,
        output: &TensorLayout,
        window: &Window,
        dims: &ConvDims,
        feature_group_count: i64,
        batch_group_count: i64,
    ) -> Result<ConvPlan> {
        let extents = [
            input.extent("convolution input")?,
            kernel.extent("convolution kernel")?,
            output.extent("convolution output")?,
        ];
        let (ld, rd, od) = (&input.dims, &kernel.dims, &output.dims);
        // Every check (labels, window, groups, sizes) is `rxla_ir::geometry`'s.
        let wide = |d: &[usize]| d.iter().map(|&x| x as i64).collect::<Vec<i64>>();
        let g = rxla_ir::geometry::conv_geometry(
            &wide(ld),
            &wide(rd),
            &wide(od),
            window,
            dims,
            feature_group_count,
            batch_group_count,
        )
        .map_err(GemmError::new)?;
        let (in_b, in_f, in_sp) = (g.input.batch, g.input.feature, g.input.spatial);
        let (k_i, k_o, k_sp) = (g.kernel.batch, g.kernel.feature, g.kernel.spatial);
        let (out_b, out_f, out_sp) = (g.output.batch, g.output.feature, g.output.spatial);
        let ns = in_sp.len();
        let (fgc, bgc) = (g.feature_groups as usize, g.batch_groups as usize);
        let (cg, c_out) = (g.group_in as usize, g.c_out as usize);
        let batch_out = g.batch_out as usize;

        let wsizes: Vec<usize> = window.dims.iter().map(|w| w.size as usize).collect();
        let taps: usize = wsizes.iter().product();
        let k = cg * taps;
        // Contraction index p = c * taps + t; t enumerates window positions row-major.
        let mut a_cols = Vec::with_capacity(k);
        let mut chan = Vec::with_capacity(k);
        let mut tap = Vec::with_capacity(k * ns);
        for c in 0..cg {
            let mut widx = vec![0usize; ns];
            for _ in 0..taps {
                let mut off = c as isize * kernel.strides[k_i];
                for s in 0..ns {
                    let w = &window.dims[s];
                    let kk = if w.window_reversal {
                        wsizes[s] - 1 - widx[s]
                    } else {
                        widx[s]
                    };
                    off += kk as isize * kernel.strides[k_sp[s]];
                    tap.push(widx[s] as i64 * w.window_dilation);
                }
                a_cols.push(off);
                chan.push(c as isize * input.strides[in_f]);
                for s in (0..ns).rev() {
                    widx[s] += 1;
                    if widx[s] < wsizes[s] {
                        break;
                    }
                    widx[s] = 0;
                }
            }
        }
        // Output positions j = (b, o_0, ..., o_{ns-1}) row-major.
        let osz: Vec<usize> = out_sp.iter().map(|&d| od[d]).collect();
        let positions: usize = osz.iter().product();
        let n = batch_out * positions;
        let mut col_boff = Vec::with_capacity(n);
        let mut col_origin = Vec::with_capacity(n * ns);
        let mut c_cols = Vec::with_capacity(n);
        for b in 0..batch_out {
            let mut oi = vec![0usize; ns];
            for _ in 0..positions {
                col_boff.push(b as isize * input.strides[in_b]);
                let mut co = b as isize * output.strides[out_b];
                for s in 0..ns {
                    let w = &window.dims[s];
                    col_origin.push(oi[s] as i64 * w.stride - w.pad_low);
                    co += oi[s] as isize * output.strides[out_sp[s]];
                }
                c_cols.push(co);
                for s in (0..ns).rev() {
                    oi[s] += 1;
                    if oi[s] < osz[s] {
                        break;
                    }
                    oi[s] = 0;
                }
            }
        }
        let trivial = window.dims.iter().all(|w| {
            w.size == 1
                && w.stride == 1
                && w.pad_low == 0
                && w.pad_high == 0
                && w.base_dilation == 1
        });
        // Per tap, per spatial dim of a 2-D window: window position − low
        // padding (the input offset of output position 0), for the plane paths.
        let win_off = |s: usize| -> Vec<i64> {
            (0..taps)
                .map(|t| tap[t * 2 + s] - window.dims[s].pad_low)
                .collect()
        };
        let plane = (ns == 2
            && input.strides[in_sp[1]] == 1
            && input.strides[in_sp[0]] == ld[in_sp[1]] as isize
            && (1..=MAX_PLANE_TAPS).contains(&taps)
            && (0..2).all(|s| {
                let w = &window.dims[s];
                w.stride == 1 && w.base_dilation == 1 && osz[s] == ld[in_sp[s]]
            }))
        .then(|| Plane {
            h: ld[in_sp[0]] as i64,
            w: ld[in_sp[1]] as i64,
            dh: win_off(0),
            dw: win_off(1),
        });
        let plane2 = (ns == 2
            && fgc == 1
            && bgc == 1
            && input.strides[in_sp[1]] == 1
            && window.dims[1].stride == 2
            && window
                .dims
                .iter()
                .all(|w| w.base_dilation == 1 && (1..=16).contains(&w.size)))
        .then(|| Plane2 {
            h: ld[in_sp[0]] as i64,
            w: ld[in_sp[1]] as i64,
            we: (ld[in_sp[1]] as i64 + 1) / 2,
            sh: window.dims[0].stride,
            ho: osz[0] as i64,
            wo: osz[1] as i64,
            batch: batch_out,
            chans: cg,
            s_b: input.strides[in_b],
            s_c: input.strides[in_f],
            s_h: input.strides[in_sp[0]],
            dh: win_off(0),
            dw: win_off(1),
        });
        // Feature-minor layouts (NHWC): the position-major GEMM (`nhwc.rs`) when the output-feature groups are
        // wide enough to fill the micro-kernel's columns.
        let rows_plan = ((cg == 1 || input.strides[in_f] == 1)
            && output.strides[out_f] == 1
            && (c_out / fgc).min(c_out / bgc) >= MIN_ROWS_FEATURES
            && window.dims.iter().all(|w| w.base_dilation == 1))
        .then(|| {
            let b_rows = (0..taps)
                .flat_map(|t| (0..cg).map(move |c| c * taps + t))
                .map(|q| a_cols[q])
                .collect();
            let pointwise = trivial.then(|| {
                simplify(
                    (0..n)
                        .map(|j| {
                            col_boff[j]
                                + (0..ns)
                                    .map(|s| {
                                        col_origin[j * ns + s] as isize * input.strides[in_sp[s]]
                                    })
                                    .sum::<isize>()
                        })
                        .collect(),
                )
            });
            RowsPlan {
                b_rows: simplify(b_rows),
                pointwise,
            }
        });
        // Batch-minor inputs (unit batch stride: the weight gradient of an NHWC convolution) whose feature-major
        // B gather would read along a strided spatial dim: the batch-innermost position-major GEMM.
        let batch_plan = (rows_plan.is_none()
            && !trivial
            && fgc == 1
            && bgc == 1
            && ns >= 1
            && input.strides[in_b] == 1
            && batch_out >= MIN_BATCH_MINOR
            && output.strides[out_f] == 1
            && c_out >= MIN_ROWS_FEATURES
            && window.dims.iter().all(|w| w.base_dilation == 1))
        .then(|| {
            BatchPlan::new(
                batch_out,
                ns,
                &tap,
                &chan,
                &col_origin[..positions * ns],
                &c_cols[..positions],
                output.strides[out_b],
                &in_sp.iter().map(|&d| input.strides[d]).collect::<Vec<_>>(),
            )
        });
        let pointwise = trivial.then(|| Pointwise {
            in_cols: offsets_of(input, &in_sp),
            out_cols: offsets_of(output, &out_sp),
            positions,
            s_out_b: output.strides[out_b],
        });
        Ok(ConvPlan {
            m: c_out,
            n,
            k,
            cg,
            taps,
            fg_out: c_out / fgc,
            bg_out: c_out / bgc,
            batch_out,
            s_in_b: input.strides[in_b],
            s_in_f: input.strides[in_f],
            s_k_o: kernel.strides[k_o],
            s_out_f: output.strides[out_f],
            a_cols: Offsets::Table(a_cols),
            chan,
            tap,
            col_boff,
            col_origin,
            in_size: in_sp.iter().map(|&d| ld[d] as i64).collect(),
            in_stride: in_sp.iter().map(|&d| input.strides[d]).collect(),
            base_dil: window.dims.iter().map(|w| w.base_dilation).collect(),
            wstride: window.dims.iter().map(|w| w.stride).collect(),
            out_last: osz.last().copied().unwrap_or(1).max(1),
            wlast: wsizes.last().copied().unwrap_or(1).max(1),
            c_cols: simplify(c_cols),
            pointwise,
            plane,
            plane2,
            rows_plan,
            batch_plan,
            extents,
        })
    }

    /// Buffer lengths (elements) input, kernel and output need.
    pub fn extents(&self) -> [usize; 3] {
        self.extents
    }

    /// Runs the f32 convolution, then `epi` (rows = output features, bias per row = per output feature, columns =
    /// output positions `b * spatial_count + spatial_index`; also when the position-major NHWC GEMM runs, which
    /// swaps the bias kinds internally; an epilogue with a `map` callback keeps the feature-major GEMM).
    pub fn run_f32(
        &self,
        input: &[f32],
        kernel: &[f32],
        output: &mut [f32],
        epi: Option<&Epilogue>,
        opts: &Options,
    ) -> Result<()> {
        let [ei, ek, eo] = self.extents;
        if input.len() < ei || kernel.len() < ek || output.len() < eo {
            return Err(GemmError::new(format!(
                "convolution: buffers of {}/{}/{} elements, the layouts need {ei}/{ek}/{eo} (input/kernel/output)",
                input.len(),
                kernel.len(),
                output.len()
            )));
        }
        // SAFETY: lengths checked.
        unsafe {
            self.run_f32_raw(
                input.as_ptr(),
                kernel.as_ptr(),
                output.as_mut_ptr(),
                epi,
                opts,
            )
        }
    }

    /// As `run_f32` on raw pointers.
    ///
    /// # Safety
    /// The buffers must hold `extents()` elements; `output` must not overlap the inputs.
    pub unsafe fn run_f32_raw(
        &self,
        input: *const f32,
        kernel: *const f32,
        output: *mut f32,
        epi: Option<&Epilogue>,
        opts: &Options,
    ) -> Result<()> {
        // SAFETY: forwarded contract.
        unsafe { self.run_inner(input, kernel, output, epi, opts, false) }
    }

    /// As `run_f32_raw`, but a `map` callback does not keep the feature-major GEMM: on the position-major NHWC
    /// path it is called with that GEMM's numbering (row = output position, column = output feature within the
    /// segment, values along features). For callbacks that locate a segment by its address, not its numbering.
    ///
    /// # Safety
    /// As for `run_f32_raw`.
    pub unsafe fn run_f32_raw_any_order(
        &self,
        input: *const f32,
        kernel: *const f32,
        output: *mut f32,
        epi: Option<&Epilogue>,
        opts: &Options,
    ) -> Result<()> {
        // SAFETY: forwarded contract.
        unsafe { self.run_inner(input, kernel, output, epi, opts, true) }
    }

    /// `run_f32_raw`; `map_any`: see `run_f32_raw_any_order`.
    ///
    /// # Safety
    /// As for `run_f32_raw`.
    unsafe fn run_inner(
        &self,
        input: *const f32,
        kernel: *const f32,
        output: *mut f32,
        epi: Option<&Epilogue>,
        opts: &Options,
        map_any: bool,
    ) -> Result<()> {
        if let Some(e) = epi {
            e.check(self.m, self.n, "convolution")?;
        }
        let (kern, _, _) = opts.resolve("convolution")?;
        let p2 = self.plane2.as_ref().filter(|_| {
            self.pointwise.is_none()
                && ((kern.nr == 16 && gather::avx2()) || (kern.nr == 32 && gather::avx512()))
        });
        match p2 {
            Some(p2) => crate::scratch::with_scratch(p2.len(), |d| {
                // SAFETY: `input` holds the plan's input; `d` holds len() floats.
                unsafe { p2.deinterleave(input, d) };
                // SAFETY: forwarded contract.
                unsafe { self.run_groups(input, kernel, output, epi, opts, Some(d), map_any) }
            }),
            // SAFETY: forwarded contract.
            None => unsafe { self.run_groups(input, kernel, output, epi, opts, None, map_any) },
        }
    }

    /// The GEMMs of `run_f32_raw`, one per (feature group, batch group)
    /// segment of output features.
    ///
    /// # Safety
    /// As for `run_f32_raw`; `deint` (if any) is the `Plane2` input.
    #[allow(clippy::too_many_arguments)]
    unsafe fn run_groups(
        &self,
        input: *const f32,
        kernel: *const f32,
        output: *mut f32,
        epi: Option<&Epilogue>,
        opts: &Options,
        deint: Option<&[f32]>,
        map_any: bool,
    ) -> Result<()> {
        let (kern, blk, threads) = opts.resolve("convolution")?;
        if let Some(bp) = self.batch_plan.as_ref().filter(|_| {
            epi.is_none_or(|e| e.map.is_none() && !matches!(e.bias, Some(Bias::PerCol(_))))
        }) {
            // SAFETY: forwarded contract.
            return unsafe { self.run_batch(bp, input, kernel, output, epi, opts) };
        }
        if let Some(rp) = self
            .rows_plan
            .as_ref()
            .filter(|_| map_any || epi.is_none_or(|e| e.map.is_none()))
        {
            // SAFETY: forwarded contract.
            return unsafe { self.run_rows(rp, input, kernel, output, epi, opts) };
        }
        // Output-feature segments with one (feature group, batch group) each.
        let mut o = 0;
        while o < self.m {
            let end =
                ((o / self.fg_out + 1) * self.fg_out).min((o / self.bg_out + 1) * self.bg_out);
            let (fg, bg) = (o / self.fg_out, o / self.bg_out);
            // SAFETY: all offsets below are inside the buffers (validated extents and tables).
            unsafe {
                let in_base = input.offset(
                    (bg * self.batch_out) as isize * self.s_in_b
                        + (fg * self.cg) as isize * self.s_in_f,
                );
                let a = Operand {
                    ptr: kernel.offset(o as isize * self.s_k_o),
                    rows: Offsets::Strided(self.s_k_o),
                    cols: self.a_cols.clone(),
                };
                let rows = Offsets::Strided(self.s_out_f);
                let cbase = output.offset(o as isize * self.s_out_f);
                if let Some(pw) = &self.pointwise {
                    for b in 0..self.batch_out {
                        let bo = Operand {
                            ptr: in_base.offset(b as isize * self.s_in_b),
                            rows: Offsets::Strided(self.s_in_f),
                            cols: pw.in_cols.clone(),
                        };
                        let g = Gemm {
                            m: end - o,
                            n: pw.positions,
                            k: self.k,
                            a: &a,
                            b: &bo,
                            c: CTarget {
                                ptr: cbase.offset(b as isize * pw.s_out_b),
                                rows: &rows,
                                cols: &pw.out_cols,
                            },
                            alpha: 1.0,
                            beta: 0.0,
                            epi,
                            row_base: o,
                            bias_row_base: o,
                            col_base: b * pw.positions,
                        };
                        run_operands(&g, opts, "convolution")?;
                    }
                } else {
                    let bsrc = ConvB {
                        plan: self,
                        ptr: in_base,
                        buf: (input, input.add(self.extents[0])),
                        deint,
                        simd: Simd::detect(),
                    };
                    let g = Gemm {
                        m: end - o,
                        n: self.n,
                        k: self.k,
                        a: &a,
                        b: &bsrc,
                        c: CTarget {
                            ptr: cbase,
                            rows: &rows,
                            cols: &self.c_cols,
                        },
                        alpha: 1.0,
                        beta: 0.0,
                        epi,
                        row_base: o,
                        bias_row_base: o,
                        col_base: 0,
                    };
                    run(&g, kern, blk, threads, opts.parallel_threshold);
                }
            }
            o = end;
        }
        Ok(())
    }
}

/// Output features per (feature, batch) group from which feature-minor layouts take the position-major GEMM.
const MIN_ROWS_FEATURES: usize = 8;

/// Batches from which a batch-minor input takes the batch-innermost position-major GEMM (a micro-panel's rows then
/// read at most a few contiguous segments per contraction index).
const MIN_BATCH_MINOR: usize = 8;

impl ConvPlan {
    /// The batch-minor position-major GEMM (`batch_minor.rs`): rows = (output position, batch), columns = output
    /// features; the caller's per-feature bias becomes a per-column bias (a per-position bias or a `map` keeps the
    /// feature-major GEMM: the caller checks).
    ///
    /// # Safety
    /// As for `run_f32_raw`.
    unsafe fn run_batch(
        &self,
        bp: &BatchPlan,
        input: *const f32,
        kernel: *const f32,
        output: *mut f32,
        epi: Option<&Epilogue>,
        opts: &Options,
    ) -> Result<()> {
        let (kern, blk, threads) = opts.resolve("convolution")?;
        let epi_t = epi.map(Epilogue::transposed);
        let a = BatchA {
            ptr: input,
            plan: bp,
            ns: self.in_size.len(),
            tap: &self.tap,
            in_size: &self.in_size,
        };
        let b = Operand {
            ptr: kernel,
            rows: self.a_cols.clone(),
            cols: Offsets::Strided(self.s_k_o),
        };
        let cols = Offsets::Strided(self.s_out_f);
        let g = Gemm {
            m: self.n,
            n: self.m,
            k: self.k,
            a: &a,
            b: &b,
            c: CTarget {
                ptr: output,
                rows: &bp.c_rows,
                cols: &cols,
            },
            alpha: 1.0,
            beta: 0.0,
            epi: epi_t.as_ref(),
            row_base: 0,
            bias_row_base: 0,
            col_base: 0,
        };
        run(&g, kern, blk, threads, opts.parallel_threshold);
        Ok(())
    }
}

impl ConvPlan {
    /// The position-major GEMMs (`nhwc.rs`), one per (feature group, batch group) segment of output features:
    /// rows = output positions, columns = the segment's features. The caller's epilogue numbering (rows =
    /// features) is kept: its per-feature bias becomes a per-column bias of these GEMMs and vice versa; a `map`
    /// (only from `run_f32_raw_any_order`) gets these GEMMs' numbering (row = position, column = feature).
    ///
    /// # Safety
    /// As for `run_f32_raw`.
    unsafe fn run_rows(
        &self,
        rp: &RowsPlan,
        input: *const f32,
        kernel: *const f32,
        output: *mut f32,
        epi: Option<&Epilogue>,
        opts: &Options,
    ) -> Result<()> {
        let (kern, blk, threads) = opts.resolve("convolution")?;
        let epi_t = epi.map(Epilogue::transposed);
        let cols = Offsets::Strided(self.s_out_f);
        let mut o = 0;
        while o < self.m {
            let end =
                ((o / self.fg_out + 1) * self.fg_out).min((o / self.bg_out + 1) * self.bg_out);
            let (fg, bg) = (o / self.fg_out, o / self.bg_out);
            // SAFETY: all offsets below are inside the buffers (validated extents and tables).
            unsafe {
                let in_base = input.offset(
                    (bg * self.batch_out) as isize * self.s_in_b
                        + (fg * self.cg) as isize * self.s_in_f,
                );
                let b = Operand {
                    ptr: kernel.offset(o as isize * self.s_k_o),
                    rows: rp.b_rows.clone(),
                    cols: Offsets::Strided(self.s_k_o),
                };
                let c = CTarget {
                    ptr: output.offset(o as isize * self.s_out_f),
                    rows: &self.c_cols,
                    cols: &cols,
                };
                if let Some(pw) = &rp.pointwise {
                    let a = Operand {
                        ptr: in_base,
                        rows: pw.clone(),
                        cols: Offsets::Strided(self.s_in_f),
                    };
                    let g = Gemm {
                        m: self.n,
                        n: end - o,
                        k: self.k,
                        a: &a,
                        b: &b,
                        c,
                        alpha: 1.0,
                        beta: 0.0,
                        epi: epi_t.as_ref(),
                        row_base: 0,
                        bias_row_base: 0,
                        col_base: o,
                    };
                    run_operands(&g, opts, "convolution")?;
                } else {
                    let a = ConvA {
                        ptr: in_base,
                        cg: self.cg,
                        ns: self.in_size.len(),
                        col_boff: &self.col_boff,
                        col_origin: &self.col_origin,
                        tap: &self.tap,
                        in_size: &self.in_size,
                        in_stride: &self.in_stride,
                    };
                    let g = Gemm {
                        m: self.n,
                        n: end - o,
                        k: self.k,
                        a: &a,
                        b: &b,
                        c,
                        alpha: 1.0,
                        beta: 0.0,
                        epi: epi_t.as_ref(),
                        row_base: 0,
                        bias_row_base: 0,
                        col_base: o,
                    };
                    run(&g, kern, blk, threads, opts.parallel_threshold);
                }
            }
            o = end;
        }
        Ok(())
    }
}

/// A strided description when the table is equally spaced.
pub(crate) fn simplify(t: Vec<isize>) -> Offsets {
    if t.len() >= 2 {
        let s = t[1] - t[0];
        if t[0] == 0 && t.iter().enumerate().all(|(q, &x)| x == q as isize * s) {
            return Offsets::Strided(s);
        }
    }
    if t.len() == 1 && t[0] == 0 {
        return Offsets::Strided(0);
    }
    Offsets::Table(t)
}

/// The fused im2col gather: packs B panels straight from the input.
struct ConvB<'a> {
    plan: &'a ConvPlan,
    /// Input base of the current (batch group, feature group).
    ptr: *const f32,
    /// The whole input buffer (start, end): a full-width load inside it
    /// may read neighbouring rows, which a mask then zeroes.
    buf: (*const f32, *const f32),
    /// The deinterleaved input of the `Plane2` path, when it is taken.
    deint: Option<&'a [f32]>,
    /// The host's vector instructions (checked once per call).
    simd: Simd,
}

// SAFETY: read-only access to the borrowed input.
unsafe impl Sync for ConvB<'_> {}

/// Per (segment, window position): where the segment's first valid element is for input feature 0.
#[derive(Clone, Copy)]
struct TapEntry {
    /// Outer coordinates inside the input (else the whole segment is zero).
    valid: bool,
    /// Offset of the innermost-dim origin (position 0) for feature 0.
    off: isize,
    /// Innermost position of the segment's first column.
    pos0: i64,
    /// Valid columns `lo..hi` (unit base dilation only).
    lo: usize,
    hi: usize,
}

impl ConvB<'_> {
    /// The tap table of the segment starting at column `j` with `len` columns.
    fn tap_table(&self, j: usize, len: usize, tab: &mut Vec<TapEntry>) {
        let pl = self.plan;
        let ns = pl.in_size.len();
        let l = ns - 1;
        let (size, dil, ws) = (pl.in_size[l], pl.base_dil[l], pl.wstride[l]);
        tab.clear();
        // Taps enumerate window positions row-major, the innermost
        // dimension fastest: t = r * wl + w. The outer-dims part (validity,
        // offset) depends only on r, the innermost part (pos0, lo, hi) only
        // on w, so each is computed once and the table is their product.
        let wl = pl.wlast.clamp(1, pl.taps.max(1));
        let rows = pl.taps / wl;
        let mut inner: [(i64, usize, usize); 16] = [(0, 0, 0); 16];
        let mut inner_v = Vec::new();
        let inner: &mut [(i64, usize, usize)] = if wl <= 16 {
            &mut inner[..wl]
        } else {
            inner_v.resize(wl, (0, 0, 0));
            &mut inner_v
        };
        for (w, e) in inner.iter_mut().enumerate() {
            let pos0 = pl.col_origin[j * ns + l] + pl.tap[w * ns + l];
            let (mut lo, mut hi) = (0, len);
            if dil == 1 {
                // Valid columns: 0 <= pos0 + c*ws < size. Divisions only at the borders.
                if pos0 < 0 {
                    lo = (((-pos0) + ws - 1) / ws).min(len as i64) as usize;
                }
                let last = pos0 + (len as i64 - 1) * ws;
                if last >= size {
                    hi = if pos0 >= size {
                        0
                    } else {
                        ((size - pos0 + ws - 1) / ws).clamp(0, len as i64) as usize
                    };
                }
                hi = hi.max(lo);
            }
            *e = (pos0, lo, hi);
        }
        for r in 0..rows {
            let t0 = r * wl;
            let mut off = pl.col_boff[j];
            let mut valid = true;
            for s in 0..l {
                let pos = pl.col_origin[j * ns + s] + pl.tap[t0 * ns + s];
                let d = pl.base_dil[s];
                let q = if d == 1 {
                    pos
                } else if pos >= 0 && pos % d == 0 {
                    pos / d
                } else {
                    -1
                };
                if q < 0 || q >= pl.in_size[s] {
                    valid = false;
                    break;
                }
                off += q as isize * pl.in_stride[s];
            }
            for &(pos0, lo, hi) in inner.iter() {
                tab.push(TapEntry {
                    valid,
                    off,
                    pos0,
                    lo,
                    hi,
                });
            }
        }
    }

    /// Packs one segment for one contraction index with base dilation: per-element checks.
    fn dilated(&self, seg: &mut [f32], off: isize, pos0: i64) {
        let pl = self.plan;
        let l = pl.in_size.len() - 1;
        let (size, st, dil, ws) = (
            pl.in_size[l],
            pl.in_stride[l],
            pl.base_dil[l],
            pl.wstride[l],
        );
        for (t, x) in seg.iter_mut().enumerate() {
            let pos = pos0 + t as i64 * ws;
            *x = if pos >= 0 && pos % dil == 0 && pos / dil < size {
                // SAFETY: inside the input (checked just above).
                unsafe { *self.ptr.offset(off + (pos / dil) as isize * st) }
            } else {
                0.0
            };
        }
    }
}

impl PackB for ConvB<'_> {
    fn pack_b(&self, p0: usize, kc: usize, j0: usize, cols: usize, nr: usize, dst: &mut [f32]) {
        let pl = self.plan;
        let ns = pl.in_size.len();
        let dst = &mut dst[..kc * nr];
        if ns == 0 {
            for (p, d) in dst.chunks_exact_mut(nr).enumerate() {
                for (q, x) in d.iter_mut().enumerate() {
                    *x = if q < cols {
                        // SAFETY: in-range offsets (no spatial dims: batch + feature only).
                        unsafe { *self.ptr.offset(pl.col_boff[j0 + q] + pl.chan[p0 + p]) }
                    } else {
                        0.0
                    };
                }
            }
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if self.simd == Simd::Avx512 && nr == 32 && cols > 0 {
            if let Some(pv) = &pl.plane
                && halves_fit(j0, cols, (pv.h * pv.w) as usize)
            {
                // SAFETY: AVX-512 checked (`simd`); each 16-column half lies in one image.
                unsafe { self.pack_plane_avx512(pv, p0, kc, j0, cols, dst) };
                return;
            }
            if let (Some(pv), Some(d)) = (&pl.plane2, self.deint)
                && halves_fit(j0, cols, pv.wo as usize)
            {
                // SAFETY: AVX-512 checked (`simd`); each 16-column half lies in one output row.
                unsafe { self.pack_plane2_avx512(pv, d, p0, kc, j0, cols, dst) };
                return;
            }
        }
        #[cfg(target_arch = "x86_64")]
        if self.simd == Simd::Avx512 {
            // SAFETY: AVX-512 checked (`simd`).
            unsafe { self.pack_spatial_avx512(p0, kc, j0, cols, nr, dst) };
            return;
        }
        if self.simd == Simd::Avx2 {
            #[cfg(target_arch = "x86_64")]
            if let Some(pv) = &pl.plane
                && nr == 16
                && cols > 0
            {
                let hw = (pv.h * pv.w) as usize;
                if (j0 % hw) + cols <= hw {
                    // SAFETY: AVX2 checked just above; the panel lies in one image.
                    unsafe { self.pack_plane_avx2(pv, p0, kc, j0, cols, dst) };
                    return;
                }
            }
            #[cfg(target_arch = "x86_64")]
            if let (Some(pv), Some(d)) = (&pl.plane2, self.deint)
                && nr == 16
                && cols > 0
                && ((j0 % (pv.ho * pv.wo) as usize) % pv.wo as usize) + cols <= pv.wo as usize
            {
                // SAFETY: AVX2 checked just above; the panel lies in one output row.
                unsafe { self.pack_plane2_avx2(pv, d, p0, kc, j0, cols, dst) };
                return;
            }
            #[cfg(target_arch = "x86_64")]
            // SAFETY: AVX2 checked just above.
            unsafe {
                self.pack_spatial_avx2(p0, kc, j0, cols, nr, dst)
            };
            #[cfg(target_arch = "x86_64")]
            return;
        }
        self.pack_spatial(p0, kc, j0, cols, nr, dst, Simd::Scalar);
    }
}

/// Whether each 16-column half of the panel `j0..j0+cols` (`cols <= 32`) lies within one period of `period`
/// columns (one image of a `Plane`, one output row of a `Plane2`).
fn halves_fit(j0: usize, cols: usize, period: usize) -> bool {
    period > 0
        && (0..2).all(|h| {
            let n = cols.saturating_sub(16 * h).min(16);
            n == 0 || ((j0 + 16 * h) % period) + n <= period
        })
}

impl ConvB<'_> {
    /// `pack_spatial` compiled with AVX-512 enabled, so the row gathers inline into the loop.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn pack_spatial_avx512(
        &self,
        p0: usize,
        kc: usize,
        j0: usize,
        cols: usize,
        nr: usize,
        dst: &mut [f32],
    ) {
        self.pack_spatial(p0, kc, j0, cols, nr, dst, Simd::Avx512);
    }

    /// The `Plane` packing of one 32-column panel (AVX-512 tier), as two 16-column halves each inside one image:
    /// per half and tap a 16-lane mask (the window position inside the plane, the lane a real column), then per
    /// contraction index two masked loads of 16 consecutive floats (masked lanes are not accessed and load as
    /// zero).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn pack_plane_avx512(
        &self,
        pv: &Plane,
        p0: usize,
        kc: usize,
        j0: usize,
        cols: usize,
        dst: &mut [f32],
    ) {
        use std::arch::x86_64::*;
        let pl = self.plan;
        let taps = pl.taps.max(1);
        let hw = (pv.h * pv.w) as usize;
        let lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        // Per tap and half: lane mask and offset from the half's image base.
        let mut masks = [[(0 as __mmask16, 0isize); 2]; MAX_PLANE_TAPS];
        let mut bases = [self.ptr; 2];
        for h in 0..2 {
            let n = cols.saturating_sub(16 * h).min(16);
            if n == 0 {
                continue;
            }
            let jh = j0 + 16 * h;
            let pos0 = (jh % hw) as i64;
            bases[h] = self.ptr.wrapping_offset(pl.col_boff[jh]);
            let mut oh = [0i32; 16];
            let mut ow = [0i32; 16];
            for i in 0..16 {
                let pos = pos0 + i as i64;
                oh[i] = (pos / pv.w) as i32;
                ow[i] = (pos % pv.w) as i32;
            }
            // SAFETY: the arrays hold 16 lanes.
            let (voh, vow) = unsafe {
                (
                    _mm512_loadu_si512(oh.as_ptr() as *const __m512i),
                    _mm512_loadu_si512(ow.as_ptr() as *const __m512i),
                )
            };
            let live = _mm512_cmplt_epi32_mask(lane, _mm512_set1_epi32(n as i32));
            // 0 <= v + d < lim
            let inside = |v: __m512i, d: i64, lim: i64| {
                let x = _mm512_add_epi32(v, _mm512_set1_epi32(d as i32));
                _mm512_cmpge_epi32_mask(x, _mm512_setzero_si512())
                    & _mm512_cmplt_epi32_mask(x, _mm512_set1_epi32(lim as i32))
            };
            for (t, e) in masks.iter_mut().enumerate().take(taps) {
                let m = live & inside(voh, pv.dh[t], pv.h) & inside(vow, pv.dw[t], pv.w);
                e[h] = (m, (pos0 + pv.dh[t] * pv.w + pv.dw[t]) as isize);
            }
        }
        let mut t = p0 % taps;
        for (p, d) in dst[..kc * 32].chunks_exact_mut(32).enumerate() {
            let ch = pl.chan[p0 + p];
            let [(m0, o0), (m1, o1)] = masks[t];
            let s0 = bases[0].wrapping_offset(ch + o0);
            let s1 = bases[1].wrapping_offset(ch + o1);
            // The next panels read the next floats of these rows (scattered over the channels: the hardware
            // prefetchers do not follow them).
            _mm_prefetch::<_MM_HINT_T0>(s1.wrapping_add(PREFETCH_AHEAD_32) as *const i8);
            // SAFETY: unmasked lanes are positions inside this channel's plane of the input; dst holds 32 floats.
            unsafe {
                let v0 = _mm512_maskz_loadu_ps(m0, s0);
                let v1 = _mm512_maskz_loadu_ps(m1, s1);
                _mm512_storeu_ps(d.as_mut_ptr(), v0);
                _mm512_storeu_ps(d.as_mut_ptr().add(16), v1);
            }
            t += 1;
            if t == taps {
                t = 0;
            }
        }
    }

    /// The `Plane2` packing of one 32-column panel (AVX-512 tier), as two 16-column halves each inside one output
    /// row: per half a column part (lane mask, offset in the half-row) per window column and a row part (row
    /// offset, validity) per window row, then per contraction index two masked loads of 16 consecutive floats of
    /// the deinterleaved input.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn pack_plane2_avx512(
        &self,
        pv: &Plane2,
        d: &[f32],
        p0: usize,
        kc: usize,
        j0: usize,
        cols: usize,
        dst: &mut [f32],
    ) {
        use std::arch::x86_64::*;
        let taps = self.plan.taps.max(1);
        let per_image = (pv.ho * pv.wo) as usize;
        let lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let block = pv.h * 2 * pv.we;
        let wl = self.plan.wlast.clamp(1, 16);
        let rows = (taps / wl).min(16);
        // Per half: (lane mask, column offset) per window column, (row offset, valid) per window row, and the
        // image's first (batch, feature 0) block.
        let mut colp = [[(0 as __mmask16, 0i64); 16]; 2];
        let mut rowp = [[(0i64, false); 16]; 2];
        let mut img = [0i64; 2];
        for h in 0..2 {
            let n = cols.saturating_sub(16 * h).min(16);
            if n == 0 {
                continue;
            }
            let jh = j0 + 16 * h;
            let (b, rem) = (jh / per_image, (jh % per_image) as i64);
            let (oh, ow0) = (rem / pv.wo, rem % pv.wo);
            img[h] = (b * pv.chans) as i64 * block;
            let live = _mm512_cmplt_epi32_mask(lane, _mm512_set1_epi32(n as i32));
            for (w, e) in colp[h].iter_mut().enumerate().take(wl) {
                let dw = pv.dw[w];
                let par = dw.rem_euclid(2);
                let half = (dw - par) / 2;
                let len_p = (pv.w - par + 1) / 2;
                // Lane i valid: 0 <= ow0 + half + i < len_p.
                let x = _mm512_add_epi32(lane, _mm512_set1_epi32((ow0 + half) as i32));
                let m = live
                    & _mm512_cmpge_epi32_mask(x, _mm512_setzero_si512())
                    & _mm512_cmplt_epi32_mask(x, _mm512_set1_epi32(len_p as i32));
                *e = (m, par * pv.we + ow0 + half);
            }
            for (r, e) in rowp[h].iter_mut().enumerate().take(rows) {
                let hrow = oh * pv.sh + pv.dh[r * wl];
                *e = (hrow * 2 * pv.we, hrow >= 0 && hrow < pv.h);
            }
        }
        let base = d.as_ptr();
        let t0 = p0 % taps;
        let (mut r, mut w, mut c) = (t0 / wl, t0 % wl, (p0 / taps) as i64);
        for dr in dst[..kc * 32].chunks_exact_mut(32) {
            let src = |h: usize| {
                let (m, coff) = colp[h][w];
                let (roff, valid) = rowp[h][r];
                let m = if valid { m } else { 0 };
                (
                    m,
                    base.wrapping_offset((img[h] + c * block + roff + coff) as isize),
                )
            };
            let ((m0, s0), (m1, s1)) = (src(0), src(1));
            // SAFETY: unmasked lanes are inside the (batch, feature, row) half-row of `d`; dr holds 32 floats.
            unsafe {
                let v0 = _mm512_maskz_loadu_ps(m0, s0);
                let v1 = _mm512_maskz_loadu_ps(m1, s1);
                _mm512_storeu_ps(dr.as_mut_ptr(), v0);
                _mm512_storeu_ps(dr.as_mut_ptr().add(16), v1);
            }
            w += 1;
            if w == wl {
                w = 0;
                r += 1;
                if r * wl == taps {
                    r = 0;
                    c += 1;
                }
            }
        }
    }

    /// `pack_spatial` compiled with AVX2 enabled, so the row gathers inline into the loop.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn pack_spatial_avx2(
        &self,
        p0: usize,
        kc: usize,
        j0: usize,
        cols: usize,
        nr: usize,
        dst: &mut [f32],
    ) {
        self.pack_spatial(p0, kc, j0, cols, nr, dst, Simd::Avx2);
    }

    /// The `Plane` packing of one 16-column panel: per tap a lane mask (the
    /// window position inside the plane, the lane a real column), then per
    /// contraction index two masked loads of 8 consecutive floats. Masked
    /// lanes are neither read nor left unset (they load as zero).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn pack_plane_avx2(
        &self,
        pv: &Plane,
        p0: usize,
        kc: usize,
        j0: usize,
        cols: usize,
        dst: &mut [f32],
    ) {
        use std::arch::x86_64::*;
        let pl = self.plan;
        let taps = pl.taps.max(1);
        let hw = (pv.h * pv.w) as usize;
        let pos0 = (j0 % hw) as i64;
        // Lane i: column pos0 + i at (oh, ow) of the plane.
        let mut oh = [0i32; 16];
        let mut ow = [0i32; 16];
        for i in 0..16 {
            let pos = pos0 + i as i64;
            oh[i] = (pos / pv.w) as i32;
            ow[i] = (pos % pv.w) as i32;
        }
        let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let ncols = _mm256_set1_epi32(cols as i32);
        let (h, w) = (pv.h as i32, pv.w as i32);
        // SAFETY: the arrays hold 16 lanes.
        let (oh0, oh1, ow0, ow1) = unsafe {
            (
                _mm256_loadu_si256(oh.as_ptr() as *const __m256i),
                _mm256_loadu_si256(oh.as_ptr().add(8) as *const __m256i),
                _mm256_loadu_si256(ow.as_ptr() as *const __m256i),
                _mm256_loadu_si256(ow.as_ptr().add(8) as *const __m256i),
            )
        };
        let live0 = _mm256_cmpgt_epi32(ncols, lane);
        let live1 = _mm256_cmpgt_epi32(ncols, _mm256_add_epi32(lane, _mm256_set1_epi32(8)));
        // 0 <= v + d < n  ⇔  v + d > -1 && n > v + d
        let inside = |v: __m256i, d: i32, n: i32| {
            let x = _mm256_add_epi32(v, _mm256_set1_epi32(d));
            _mm256_and_si256(
                _mm256_cmpgt_epi32(x, _mm256_set1_epi32(-1)),
                _mm256_cmpgt_epi32(_mm256_set1_epi32(n), x),
            )
        };
        // Per tap: lane masks, offset from the panel's first column, state.
        let mut masks =
            [(_mm256_setzero_si256(), _mm256_setzero_si256(), 0isize, 0u8); MAX_PLANE_TAPS];
        for (t, e) in masks.iter_mut().enumerate().take(taps) {
            let (dh, dw) = (pv.dh[t] as i32, pv.dw[t] as i32);
            let m0 = _mm256_and_si256(
                live0,
                _mm256_and_si256(inside(oh0, dh, h), inside(ow0, dw, w)),
            );
            let m1 = _mm256_and_si256(
                live1,
                _mm256_and_si256(inside(oh1, dh, h), inside(ow1, dw, w)),
            );
            *e = (
                m0,
                m1,
                (pos0 + pv.dh[t] * pv.w + pv.dw[t]) as isize,
                mask_state(m0, m1),
            );
        }
        let base = self.ptr.wrapping_offset(pl.col_boff[j0]);
        let mut t = p0 % taps;
        for (p, d) in dst[..kc * 16].chunks_exact_mut(16).enumerate() {
            let (m0, m1, off, state) = masks[t];
            let src = base.wrapping_offset(pl.chan[p0 + p] + off);
            // The next panel reads the next 16 floats of this row: the rows
            // of a panel are scattered over the channels, which the hardware
            // prefetchers do not follow.
            _mm_prefetch::<_MM_HINT_T0>(src.wrapping_add(PREFETCH_AHEAD) as *const i8);
            // SAFETY: unmasked lanes are positions inside this channel's
            // plane of the input.
            unsafe { row16(d, src, m0, m1, state, self.buf) };
            t += 1;
            if t == taps {
                t = 0;
            }
        }
    }

    /// The `Plane2` packing of one 16-column panel inside one output row:
    /// per tap a lane mask (input row inside, half-row column inside, lane a
    /// real column) and the offset in the (batch, feature) block of the
    /// deinterleaved input, then per contraction index 16 consecutive floats.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn pack_plane2_avx2(
        &self,
        pv: &Plane2,
        d: &[f32],
        p0: usize,
        kc: usize,
        j0: usize,
        cols: usize,
        dst: &mut [f32],
    ) {
        use std::arch::x86_64::*;
        let taps = self.plan.taps.max(1);
        let per_image = (pv.ho * pv.wo) as usize;
        let (b, rem) = (j0 / per_image, (j0 % per_image) as i64);
        let (oh, ow0) = (rem / pv.wo, rem % pv.wo);
        let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let lane8 = _mm256_add_epi32(lane, _mm256_set1_epi32(8));
        let ncols = _mm256_set1_epi32(cols as i32);
        let block = pv.h * 2 * pv.we;
        // Taps are t = r·wl + w (window row r, column w): the column part
        // (lane masks, offset in the half-row) depends only on w, the row
        // part (validity, row offset) only on r — computed once each.
        let wl = self.plan.wlast.clamp(1, 16);
        let rows = (taps / wl).min(16);
        let mut colp = [(_mm256_setzero_si256(), _mm256_setzero_si256(), 0i64, 0u8); 16];
        for (w, e) in colp.iter_mut().enumerate().take(wl) {
            let dw = pv.dw[w];
            let par = dw.rem_euclid(2);
            let half = (dw - par) / 2;
            let len_p = (pv.w - par + 1) / 2;
            // Lane i valid: i < cols and 0 <= ow0 + half + i < len_p.
            let lo = _mm256_set1_epi32((-(ow0 + half) - 1).clamp(-1, 17) as i32);
            let hi = _mm256_set1_epi32((len_p - ow0 - half).clamp(0, 16) as i32);
            let valid = |l: __m256i| {
                _mm256_and_si256(
                    _mm256_and_si256(_mm256_cmpgt_epi32(l, lo), _mm256_cmpgt_epi32(hi, l)),
                    _mm256_cmpgt_epi32(ncols, l),
                )
            };
            let (m0, m1) = (valid(lane), valid(lane8));
            let state = mask_state(m0, m1);
            *e = (m0, m1, par * pv.we + ow0 + half, state);
        }
        let mut rowp = [(0i64, false); 16];
        for (r, e) in rowp.iter_mut().enumerate().take(rows) {
            let hrow = oh * pv.sh + pv.dh[r * wl];
            *e = (hrow * 2 * pv.we, hrow >= 0 && hrow < pv.h);
        }
        let (d0, d1) = (d.as_ptr(), d.as_ptr().wrapping_add(d.len()));
        let t0 = p0 % taps;
        let (mut r, mut w, mut c) = (t0 / wl, t0 % wl, p0 / taps);
        for dr in dst[..kc * 16].chunks_exact_mut(16) {
            let (m0, m1, coff, cstate) = colp[w];
            let (roff, rvalid) = rowp[r];
            let state = if rvalid { cstate } else { 0 };
            let base = ((b * pv.chans + c) as i64 * block + roff + coff) as isize;
            let src = d.as_ptr().wrapping_offset(base);
            // SAFETY: unmasked lanes are inside the (batch, feature, row)
            // half-row of `d`.
            unsafe { row16(dr, src, m0, m1, state, (d0, d1)) };
            w += 1;
            if w == wl {
                w = 0;
                r += 1;
                if r * wl == taps {
                    r = 0;
                    c += 1;
                }
            }
        }
    }

    /// Packing with at least one spatial dimension: per panel segment a tap table, then every p.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn pack_spatial(
        &self,
        p0: usize,
        kc: usize,
        j0: usize,
        cols: usize,
        nr: usize,
        dst: &mut [f32],
        simd: Simd,
    ) {
        let pl = self.plan;
        let ns = pl.in_size.len();
        let dst = &mut dst[..kc * nr];
        let l = ns - 1;
        let (st, dil, ws) = (pl.in_stride[l], pl.base_dil[l], pl.wstride[l]);
        let step = ws as isize * st;
        let (taps, sf) = (pl.taps.max(1), pl.s_in_f);
        let mut tab = Vec::with_capacity(taps);
        // Segments of the panel along the innermost output dim; each gets a tap table, then all p.
        let mut rem = j0 % pl.out_last;
        let mut q = 0;
        while q < cols {
            let len = (cols - q).min(pl.out_last - rem);
            self.tap_table(j0 + q, len, &mut tab);
            let (mut c, mut t) = (p0 / taps, p0 % taps);
            for d in dst.chunks_exact_mut(nr) {
                let seg = &mut d[q..q + len];
                let e = tab[t];
                let feat = c as isize * sf;
                if !e.valid {
                    seg.iter_mut().for_each(|x| *x = 0.0);
                } else if dil != 1 {
                    self.dilated(seg, e.off + feat, e.pos0);
                } else {
                    // Column 0 of the segment is at innermost position pos0; columns lo..hi are inside.
                    let src = self
                        .ptr
                        .wrapping_offset(e.off + feat + e.pos0 as isize * st);
                    // SAFETY: only columns lo..hi (inside the input row) are read.
                    unsafe { gather_row(seg, src, step, e.lo, e.hi, simd, self.buf) };
                }
                t += 1;
                if t == taps {
                    t = 0;
                    c += 1;
                }
            }
            q += len;
            rem = 0;
        }
        for d in dst.chunks_exact_mut(nr) {
            d[cols..].iter_mut().for_each(|x| *x = 0.0);
        }
    }
}
