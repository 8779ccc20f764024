//! Position-major convolution for feature-minor layouts (NHWC / `b01f_01io->b01f`, the TensorFlow/JAX layout):
//! per (feature group, batch group) one GEMM `out[j, o] = sum_p In[j, p] * W[p, o]` with rows `j` = output positions
//! (batch, then output spatial dims, row-major), columns `o` = output features (the output's unit-stride dim) and
//! `p = t * cg + c` (window position, then group input feature). A is the input gathered per window position
//! (`ConvA`: each row's `cg` features are contiguous, so an A micro-panel is `MR` contiguous row segments, with
//! rows outside the input — padding — read from a zero buffer); B is the kernel as a `[taps * cg, features]`
//! operand. A 1x1 window with unit stride and no padding is a plain `[positions, cg] x [cg, features]` GEMM.
//! This module plans and packs A; it must not contain micro-kernel code nor validate the convolution (`conv.rs`
//! does, and decides when this path is taken).

use crate::mat::Offsets;
use crate::pack::{PackA, interleave14};

/// Floats of zeros that padding rows of an A panel read (a tap segment longer than this takes the checked
/// per-element loop).
const ZEROS_LEN: usize = 1024;
static ZEROS: [f32; ZEROS_LEN] = [0.0; ZEROS_LEN];

/// The largest micro-kernel row count (`MR`) the packer supports.
const MAX_MR: usize = 16;

/// The position-major plan of a convolution (see the module doc).
#[derive(Clone, Debug)]
pub(crate) struct RowsPlan {
    /// B: kernel offset of contraction index `p = t * cg + c` (relative to the output feature).
    pub b_rows: Offsets,
    /// The 1x1 path: input offset of each output position (`None`: gather per window position).
    pub pointwise: Option<Offsets>,
}

/// The input gathered as A (rows = output positions, `p = t * cg + c`), read through the plan's tables.
pub(crate) struct ConvA<'a> {
    /// Input base of the current (batch group, feature group).
    pub ptr: *const f32,
    /// Group input features.
    pub cg: usize,
    /// Spatial dims.
    pub ns: usize,
    /// Per output position: batch offset in the input; per (position, spatial dim): window origin.
    pub col_boff: &'a [isize],
    pub col_origin: &'a [i64],
    /// Per (window position, spatial dim): dilated window offset.
    pub tap: &'a [i64],
    /// Per spatial dim: input size and stride.
    pub in_size: &'a [i64],
    pub in_stride: &'a [isize],
}

// SAFETY: read-only access to the borrowed input.
unsafe impl Sync for ConvA<'_> {}

impl ConvA<'_> {
    /// Input offset (from `ptr`) of feature 0 of output position `j` at window position `t`; `None` when the
    /// window position falls outside the input (padding).
    #[inline]
    fn row_off(&self, j: usize, t: usize) -> Option<isize> {
        let mut off = self.col_boff[j];
        for s in 0..self.ns {
            let pos = self.col_origin[j * self.ns + s] + self.tap[t * self.ns + s];
            if pos < 0 || pos >= self.in_size[s] {
                return None;
            }
            off += pos as isize * self.in_stride[s];
        }
        Some(off)
    }
}

/// `dst[p * MR + i] = rows[i][p]` for `p < len`: `MR` row streams, `MR`-wide writes.
///
/// # Safety
/// Every `rows[i]` addresses `len` readable floats; `dst` holds `len * MR` floats.
#[inline(always)]
unsafe fn interleave<const MR: usize>(rows: &[*const f32; MAX_MR], len: usize, dst: &mut [f32]) {
    // SAFETY: the caller's contract.
    let r: [&[f32]; MR] =
        std::array::from_fn(|i| unsafe { std::slice::from_raw_parts(rows[i], len) });
    for (p, d) in dst[..len * MR].chunks_exact_mut(MR).enumerate() {
        let d: &mut [f32; MR] = d.try_into().expect("chunks of MR");
        *d = std::array::from_fn(|i| r[i][p]);
    }
}

impl PackA for ConvA<'_> {
    fn pack_a(&self, i0: usize, rows: usize, p0: usize, kc: usize, mr: usize, dst: &mut [f32]) {
        assert!(mr <= MAX_MR && rows <= mr, "ConvA: MR {mr} > {MAX_MR}");
        let dst = &mut dst[..kc * mr];
        let cg = self.cg.max(1);
        let mut p = p0;
        while p < p0 + kc {
            // One window position: contraction indices p..p+len are its features c0..c0+len.
            let (t, c0) = (p / cg, p % cg);
            let len = (cg - c0).min(p0 + kc - p);
            let seg = &mut dst[(p - p0) * mr..(p - p0 + len) * mr];
            let mut src = [ZEROS.as_ptr(); MAX_MR];
            let mut all = true;
            for (i, s) in src.iter_mut().enumerate().take(rows) {
                match self.row_off(i0 + i, t) {
                    Some(off) => *s = self.ptr.wrapping_offset(off + c0 as isize),
                    None => all = false,
                }
            }
            if len <= ZEROS_LEN || (all && rows == mr) {
                // SAFETY: each pointer is either features c0..c0+len of an input position inside the input
                // (unit feature stride, checked by the planner) or the zero buffer (len <= ZEROS_LEN).
                unsafe {
                    match mr {
                        14 => interleave14(src[..14].try_into().expect("14 rows"), len, seg),
                        6 => interleave::<6>(&src, len, seg),
                        _ => {
                            for (q, d) in seg.chunks_exact_mut(mr).enumerate() {
                                for (x, s) in d.iter_mut().zip(&src) {
                                    *x = *s.add(q);
                                }
                            }
                        }
                    }
                }
            } else {
                for i in 0..mr {
                    let valid = i < rows && self.row_off(i0 + i, t).is_some();
                    for (q, d) in seg.chunks_exact_mut(mr).enumerate() {
                        // SAFETY: as above, for a valid row.
                        d[i] = if valid {
                            unsafe { *src[i].add(q) }
                        } else {
                            0.0
                        };
                    }
                }
            }
            p += len;
        }
    }
}
