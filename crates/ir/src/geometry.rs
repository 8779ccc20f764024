//! Window, convolution and dot geometry, written once (XLA's window_util):
//! how many positions a window takes along a dimension, the checked layout
//! of a convolution (which dimension is batch, feature and spatial in each
//! operand, the group counts, the feature and batch sizes per group) and of
//! a dot_general (batch, free and contracting dimensions of each side), and
//! a scatter's dimension numbers resolved against its shapes. Shape
//! inference, the evaluator, the JIT and the GEMM engine all use these, so
//! they agree on every size and say the same thing about a malformed
//! convolution. Pure arithmetic on dimension sizes: this module must not
//! look at element types, layouts or data.

use crate::ops::{ConvDims, DotDims, ScatterDims, Window, WindowDim};

/// The padded, base-dilated extent of a dimension of size `base` and the
/// dilated extent of the window along it, in i128 (no overflow for any
/// i64 inputs). The padded extent may be negative (negative padding).
pub fn window_extents(base: i64, w: &WindowDim) -> (i128, i128) {
    let (b, size) = (base as i128, w.size as i128);
    let dilated_base = if b <= 0 {
        0
    } else {
        (b - 1) * w.base_dilation as i128 + 1
    };
    let padded = dilated_base + w.pad_low as i128 + w.pad_high as i128;
    let dilated_window = if size <= 0 {
        0
    } else {
        (size - 1) * w.window_dilation as i128 + 1
    };
    (padded, dilated_window)
}

/// The number of window positions along one dimension of size `base`:
/// `(padded_dilated_base - dilated_window) / stride + 1`, or 0 when the
/// window does not fit; a stride below 1 counts as 1. Exact in i128.
pub fn window_output_size_wide(base: i64, w: &WindowDim) -> i128 {
    let (padded, dilated_window) = window_extents(base, w);
    if padded < dilated_window {
        0
    } else {
        (padded - dilated_window) / (w.stride.max(1) as i128) + 1
    }
}

/// [`window_output_size_wide`] saturated to i64.
pub fn window_output_size(base: i64, w: &WindowDim) -> i64 {
    i64::try_from(window_output_size_wide(base, w)).unwrap_or(i64::MAX)
}

/// The window positions along each dimension of `base` (the reduce-window,
/// select-and-scatter and convolution result sizes); dimensions without a
/// window dimension are dropped.
pub fn window_output_dims(base: &[i64], window: &Window) -> Vec<i64> {
    base.iter()
        .zip(&window.dims)
        .map(|(&b, w)| window_output_size(b, w))
        .collect()
}

/// Checks that `window` has `rank` dimensions, each with a size >= 0 and
/// stride and dilations >= 1. `what` names the operation in the message.
pub fn check_window(window: &Window, rank: usize, what: &str) -> Result<(), String> {
    if window.dims.len() != rank {
        return Err(format!(
            "{what}: window has {} dimensions, expected {rank}",
            window.dims.len()
        ));
    }
    for (i, w) in window.dims.iter().enumerate() {
        if w.size < 0 || w.stride < 1 || w.window_dilation < 1 || w.base_dilation < 1 {
            return Err(format!(
                "{what}: window dimension {i} is malformed (size {}, stride {}, window dilation {}, base dilation {})",
                w.size, w.stride, w.window_dilation, w.base_dilation
            ));
        }
    }
    Ok(())
}

/// The roles of one convolution operand's dimensions: batch (for the
/// kernel: input feature), feature (kernel: output feature) and the
/// spatial dimensions in window order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvLabels {
    pub batch: usize,
    pub feature: usize,
    pub spatial: Vec<usize>,
}

/// Resolves the labels `b`, `f`, `sp` of a rank-`rank` operand (`what`:
/// "input", "kernel" or "output"): each dimension named exactly once.
pub fn conv_labels(
    rank: usize,
    b: i64,
    f: i64,
    sp: &[i64],
    what: &str,
) -> Result<ConvLabels, String> {
    let all: Vec<i64> = [b, f].iter().chain(sp).copied().collect();
    if all.len() != rank {
        return Err(format!(
            "convolution: {what} has rank {rank} but the dimension labels name {} dimensions",
            all.len()
        ));
    }
    let mut seen = vec![false; rank];
    for &d in &all {
        let u = usize::try_from(d)
            .ok()
            .filter(|&u| u < rank)
            .ok_or_else(|| {
                format!("convolution: {what} dimension {d} is out of range for rank {rank}")
            })?;
        if std::mem::replace(&mut seen[u], true) {
            return Err(format!(
                "convolution: {what} dimension {d} is labelled twice"
            ));
        }
    }
    Ok(ConvLabels {
        batch: b as usize,
        feature: f as usize,
        spatial: sp.iter().map(|&d| d as usize).collect(),
    })
}

/// A checked convolution: every operand's dimension roles and the group
/// arithmetic, as StableHLO defines feature and batch groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvGeometry {
    pub input: ConvLabels,
    /// `batch` is the kernel's input-feature dimension, `feature` its
    /// output-feature dimension.
    pub kernel: ConvLabels,
    pub output: ConvLabels,
    /// Input features (all groups).
    pub c_in: i64,
    /// Kernel input features: the input features of one feature group.
    pub group_in: i64,
    /// Output features (all groups).
    pub c_out: i64,
    pub feature_groups: i64,
    pub batch_groups: i64,
    /// Output batch: the input batch of one batch group.
    pub batch_out: i64,
}

/// Checks `convolution(lhs, rhs) -> out` (dimension sizes `ld`, `rd`,
/// `od`): labels, spatial ranks, the window, the group counts, feature and
/// batch sizes, the window against the kernel's spatial sizes and the
/// result's spatial sizes against the window positions.
pub fn conv_geometry(
    ld: &[i64],
    rd: &[i64],
    od: &[i64],
    window: &Window,
    dims: &ConvDims,
    feature_group_count: i64,
    batch_group_count: i64,
) -> Result<ConvGeometry, String> {
    let input = conv_labels(
        ld.len(),
        dims.input_batch,
        dims.input_feature,
        &dims.input_spatial,
        "input",
    )?;
    let kernel = conv_labels(
        rd.len(),
        dims.kernel_input_feature,
        dims.kernel_output_feature,
        &dims.kernel_spatial,
        "kernel",
    )?;
    let output = conv_labels(
        od.len(),
        dims.output_batch,
        dims.output_feature,
        &dims.output_spatial,
        "output",
    )?;
    let ns = input.spatial.len();
    if kernel.spatial.len() != ns || output.spatial.len() != ns || window.dims.len() != ns {
        return Err(format!(
            "convolution: spatial ranks differ (input {ns}, kernel {}, output {}, window {})",
            kernel.spatial.len(),
            output.spatial.len(),
            window.dims.len()
        ));
    }
    check_window(window, ns, "convolution")?;
    let (fgc, bgc) = (feature_group_count, batch_group_count);
    if fgc < 1 || bgc < 1 {
        return Err(format!(
            "convolution: group counts must be positive (feature {fgc}, batch {bgc})"
        ));
    }
    let (c_in, group_in, c_out) = (ld[input.feature], rd[kernel.batch], rd[kernel.feature]);
    if group_in.checked_mul(fgc) != Some(c_in) {
        return Err(format!(
            "convolution: input features {c_in} != kernel input features {group_in} * feature_group_count {fgc}"
        ));
    }
    if c_out % fgc != 0 || c_out % bgc != 0 {
        return Err(format!(
            "convolution: kernel output features {c_out} not divisible by the group counts ({fgc}, {bgc})"
        ));
    }
    if ld[input.batch] % bgc != 0 {
        return Err(format!(
            "convolution: input batch {} not divisible by batch_group_count {bgc}",
            ld[input.batch]
        ));
    }
    let batch_out = ld[input.batch] / bgc;
    if od[output.batch] != batch_out || od[output.feature] != c_out {
        return Err(format!(
            "convolution: result {od:?} has batch {} and features {}, expected {batch_out} and {c_out}",
            od[output.batch], od[output.feature]
        ));
    }
    for (i, w) in window.dims.iter().enumerate() {
        if w.size != rd[kernel.spatial[i]] {
            return Err(format!(
                "convolution: window size {} differs from kernel spatial size {} in spatial dimension {i}",
                w.size, rd[kernel.spatial[i]]
            ));
        }
    }
    let in_spatial: Vec<i64> = input.spatial.iter().map(|&d| ld[d]).collect();
    let out_spatial: Vec<i64> = output.spatial.iter().map(|&d| od[d]).collect();
    let expect = window_output_dims(&in_spatial, window);
    if out_spatial != expect {
        return Err(format!(
            "convolution: result spatial sizes {out_spatial:?} differ from the window positions {expect:?}"
        ));
    }
    Ok(ConvGeometry {
        input,
        kernel,
        output,
        c_in,
        group_in,
        c_out,
        feature_groups: fgc,
        batch_groups: bgc,
        batch_out,
    })
}

/// A checked dot_general: each side's batch, contracting and free
/// dimensions (free ones in increasing order). The result is batch, lhs
/// free, rhs free.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DotGeometry {
    pub lhs_batch: Vec<usize>,
    pub lhs_contracting: Vec<usize>,
    pub lhs_free: Vec<usize>,
    pub rhs_batch: Vec<usize>,
    pub rhs_contracting: Vec<usize>,
    pub rhs_free: Vec<usize>,
}

impl DotGeometry {
    /// The result dimensions: batch, lhs free, rhs free.
    pub fn result_dims(&self, ld: &[i64], rd: &[i64]) -> Vec<i64> {
        self.lhs_batch
            .iter()
            .map(|&d| ld[d])
            .chain(self.lhs_free.iter().map(|&d| ld[d]))
            .chain(self.rhs_free.iter().map(|&d| rd[d]))
            .collect()
    }
}

fn dot_list(list: &[i64], rank: usize, what: &str) -> Result<Vec<usize>, String> {
    list.iter()
        .map(|&d| {
            usize::try_from(d)
                .ok()
                .filter(|&d| d < rank)
                .ok_or_else(|| format!("dot: {what} dimension {d} is out of range for rank {rank}"))
        })
        .collect()
}

fn dot_free(
    rank: usize,
    batch: &[usize],
    contracting: &[usize],
    side: &str,
) -> Result<Vec<usize>, String> {
    let mut seen = vec![false; rank];
    for &d in batch.iter().chain(contracting) {
        if std::mem::replace(&mut seen[d], true) {
            return Err(format!(
                "dot: {side} dimension {d} is listed twice among batch/contracting dimensions"
            ));
        }
    }
    Ok((0..rank).filter(|&d| !seen[d]).collect())
}

/// Checks `dot(lhs, rhs) -> out` (dimension sizes `ld`, `rd`, `od`):
/// dimension numbers in range and listed once per side, paired sizes equal,
/// the result batch + lhs free + rhs free.
pub fn dot_geometry(
    ld: &[i64],
    rd: &[i64],
    dims: &DotDims,
    od: &[i64],
) -> Result<DotGeometry, String> {
    let lb = dot_list(&dims.lhs_batch, ld.len(), "lhs batch")?;
    let rb = dot_list(&dims.rhs_batch, rd.len(), "rhs batch")?;
    let lc = dot_list(&dims.lhs_contracting, ld.len(), "lhs contracting")?;
    let rc = dot_list(&dims.rhs_contracting, rd.len(), "rhs contracting")?;
    if lb.len() != rb.len() || lc.len() != rc.len() {
        return Err(format!(
            "dot: {} lhs vs {} rhs batch dims, {} lhs vs {} rhs contracting dims",
            lb.len(),
            rb.len(),
            lc.len(),
            rc.len()
        ));
    }
    for (&l, &r) in lb.iter().zip(&rb).chain(lc.iter().zip(&rc)) {
        if ld[l] != rd[r] {
            return Err(format!(
                "dot: lhs dimension {l} (size {}) is paired with rhs dimension {r} (size {})",
                ld[l], rd[r]
            ));
        }
    }
    let g = DotGeometry {
        lhs_free: dot_free(ld.len(), &lb, &lc, "lhs")?,
        rhs_free: dot_free(rd.len(), &rb, &rc, "rhs")?,
        lhs_batch: lb,
        lhs_contracting: lc,
        rhs_batch: rb,
        rhs_contracting: rc,
    };
    let expect = g.result_dims(ld, rd);
    if expect != od {
        return Err(format!(
            "dot: result dimensions {od:?} do not match the operands (expected {expect:?})"
        ));
    }
    Ok(g)
}

/// Resolves a list of dimension numbers of a rank-`rank` array: each in
/// range and listed once (`what` names the list in the message).
pub fn dim_list(list: &[i64], rank: usize, what: &str) -> Result<Vec<usize>, String> {
    let mut seen = vec![false; rank];
    list.iter()
        .map(|&d| {
            let u = usize::try_from(d)
                .ok()
                .filter(|&u| u < rank)
                .ok_or_else(|| format!("{what}: dimension {d} is out of range for rank {rank}"))?;
            if std::mem::replace(&mut seen[u], true) {
                return Err(format!("{what}: dimension {d} is listed twice"));
            }
            Ok(u)
        })
        .collect()
}

/// A scatter's dimension numbers resolved against the operand (`od`),
/// indices (`id`) and update (`ud`) dimension sizes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScatterGeometry {
    /// index_vector_dim (may equal the indices' rank: implicit length 1).
    pub ivd: usize,
    /// Indices dims other than index_vector_dim; update scatter dim `j`
    /// corresponds to `idx_dims[j]`.
    pub idx_dims: Vec<usize>,
    pub update_scatter_dims: Vec<usize>,
    pub update_window_dims: Vec<usize>,
    /// Operand dims receiving window offsets (increasing); paired with
    /// `update_window_dims`.
    pub operand_window_dims: Vec<usize>,
    /// Operand dim of each index vector element.
    pub to_operand: Vec<usize>,
    /// (operand batching dim, update scatter dim position giving its index).
    pub batching: Vec<(usize, usize)>,
    /// Per operand dim, the window extent (update window size, 1 for
    /// inserted and batching dims).
    pub window_extent: Vec<i64>,
}

/// Checks and resolves `scatter` dimension numbers.
pub fn scatter_geometry(
    od: &[i64],
    id: &[i64],
    ud: &[i64],
    dims: &ScatterDims,
) -> Result<ScatterGeometry, String> {
    let rank = od.len();
    let ivd = usize::try_from(dims.index_vector_dim)
        .ok()
        .filter(|&v| v <= id.len())
        .ok_or_else(|| {
            format!(
                "scatter: index_vector_dim {} is out of range",
                dims.index_vector_dim
            )
        })?;
    let vec_len = if ivd == id.len() { 1 } else { id[ivd] };
    let update_window_dims = dim_list(
        &dims.update_window_dims,
        ud.len(),
        "scatter update_window_dims",
    )?;
    let inserted = dim_list(
        &dims.inserted_window_dims,
        rank,
        "scatter inserted_window_dims",
    )?;
    let to_operand = dim_list(
        &dims.scatter_dims_to_operand_dims,
        rank,
        "scatter scatter_dims_to_operand_dims",
    )?;
    let in_batch = dim_list(
        &dims.input_batching_dims,
        rank,
        "scatter input_batching_dims",
    )?;
    let idx_batch = dim_list(
        &dims.scatter_indices_batching_dims,
        id.len(),
        "scatter scatter_indices_batching_dims",
    )?;
    if to_operand.len() as i64 != vec_len {
        return Err(format!(
            "scatter: scatter_dims_to_operand_dims has {} entries but index vectors have {vec_len}",
            to_operand.len()
        ));
    }
    if in_batch.len() != idx_batch.len() || idx_batch.contains(&ivd) {
        return Err("scatter: batching dimension lists do not pair up".to_string());
    }
    let operand_window_dims: Vec<usize> = (0..rank)
        .filter(|d| !inserted.contains(d) && !in_batch.contains(d))
        .collect();
    if operand_window_dims.len() != update_window_dims.len() {
        return Err(format!(
            "scatter: {} update window dims for {} operand window dims",
            update_window_dims.len(),
            operand_window_dims.len()
        ));
    }
    let idx_dims: Vec<usize> = (0..id.len()).filter(|&d| d != ivd).collect();
    let update_scatter_dims: Vec<usize> = (0..ud.len())
        .filter(|d| !update_window_dims.contains(d))
        .collect();
    if update_scatter_dims.len() != idx_dims.len() {
        return Err(format!(
            "scatter: updates have {} scatter dimensions, indices provide {}",
            update_scatter_dims.len(),
            idx_dims.len()
        ));
    }
    for (j, &u) in update_scatter_dims.iter().enumerate() {
        if ud[u] != id[idx_dims[j]] {
            return Err(format!(
                "scatter: update dimension {u} has size {}, indices dimension {} has {}",
                ud[u], idx_dims[j], id[idx_dims[j]]
            ));
        }
    }
    let mut window_extent = vec![1i64; rank];
    for (w, &u) in update_window_dims.iter().enumerate() {
        let d = operand_window_dims[w];
        if ud[u] > od[d] {
            return Err(format!(
                "scatter: update window dimension {u} (size {}) exceeds operand dimension {d} (size {})",
                ud[u], od[d]
            ));
        }
        window_extent[d] = ud[u];
    }
    let mut batching = Vec::new();
    for (&ob, &ib) in in_batch.iter().zip(&idx_batch) {
        // `ib` is not index_vector_dim (checked above), so it is one of
        // `idx_dims`.
        let j = idx_dims.iter().position(|&d| d == ib).unwrap_or(0);
        if od[ob] != id[ib] {
            return Err(format!(
                "scatter: input batching dimension {ob} (size {}) differs from indices dimension {ib} (size {})",
                od[ob], id[ib]
            ));
        }
        batching.push((ob, j));
    }
    Ok(ScatterGeometry {
        ivd,
        idx_dims,
        update_scatter_dims,
        update_window_dims,
        operand_window_dims,
        to_operand,
        batching,
        window_extent,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wd(size: i64, stride: i64, pad: (i64, i64), base_dil: i64, win_dil: i64) -> WindowDim {
        WindowDim {
            size,
            stride,
            pad_low: pad.0,
            pad_high: pad.1,
            window_dilation: win_dil,
            base_dilation: base_dil,
            window_reversal: false,
        }
    }

    #[test]
    fn dot_geometry_splits_and_checks() {
        let dims = DotDims {
            lhs_batch: vec![0],
            rhs_batch: vec![0],
            lhs_contracting: vec![2],
            rhs_contracting: vec![1],
        };
        let g = dot_geometry(&[2, 3, 4], &[2, 4, 5], &dims, &[2, 3, 5]).unwrap();
        assert_eq!((g.lhs_free.clone(), g.rhs_free.clone()), (vec![1], vec![2]));
        let e = dot_geometry(&[2, 3, 4], &[2, 6, 5], &dims, &[2, 3, 5]).unwrap_err();
        assert_eq!(
            e,
            "dot: lhs dimension 2 (size 4) is paired with rhs dimension 1 (size 6)"
        );
        let e = dot_geometry(&[2, 3, 4], &[2, 4, 5], &dims, &[2, 5, 3]).unwrap_err();
        assert!(e.contains("expected [2, 3, 5]"), "{e}");
    }

    #[test]
    fn output_sizes_follow_xla() {
        // 3x3 SAME, stride 1 and 2; valid; dilations; does not fit.
        assert_eq!(window_output_size(56, &wd(3, 1, (1, 1), 1, 1)), 56);
        assert_eq!(window_output_size(224, &wd(7, 2, (3, 3), 1, 1)), 112);
        assert_eq!(window_output_size(5, &wd(3, 1, (0, 0), 1, 1)), 3);
        assert_eq!(window_output_size(5, &wd(3, 1, (0, 0), 1, 2)), 1);
        assert_eq!(window_output_size(5, &wd(3, 1, (0, 0), 2, 1)), 7);
        assert_eq!(window_output_size(2, &wd(3, 1, (0, 0), 1, 1)), 0);
        assert_eq!(window_output_size(0, &wd(1, 1, (0, 0), 1, 1)), 0);
        // Negative padding below zero, and huge sizes saturate instead of
        // overflowing.
        assert_eq!(window_output_size(4, &wd(1, 1, (-5, 0), 1, 1)), 0);
        assert_eq!(
            window_output_size(i64::MAX, &wd(1, 1, (i64::MAX, i64::MAX), i64::MAX, 1)),
            i64::MAX
        );
    }

    #[test]
    fn conv_geometry_checks_and_derives_groups() {
        let window = Window {
            dims: vec![wd(3, 1, (1, 1), 1, 1), wd(3, 1, (1, 1), 1, 1)],
        };
        let dims = ConvDims::nhwc(2);
        let g = conv_geometry(
            &[4, 8, 8, 6],
            &[3, 3, 3, 4],
            &[4, 8, 8, 4],
            &window,
            &dims,
            2,
            1,
        )
        .unwrap();
        assert_eq!(g.input.spatial, vec![1, 2]);
        assert_eq!((g.c_in, g.group_in, g.c_out, g.batch_out), (6, 3, 4, 4));
        let e = conv_geometry(
            &[4, 8, 8, 6],
            &[3, 3, 3, 4],
            &[4, 7, 8, 4],
            &window,
            &dims,
            2,
            1,
        )
        .unwrap_err();
        assert_eq!(
            e,
            "convolution: result spatial sizes [7, 8] differ from the window positions [8, 8]"
        );
        let e = conv_geometry(
            &[4, 8, 8, 6],
            &[3, 3, 3, 4],
            &[4, 8, 8, 4],
            &window,
            &dims,
            0,
            1,
        )
        .unwrap_err();
        assert!(e.contains("group counts must be positive"), "{e}");
        let mut twice = dims.clone();
        twice.input_feature = 0;
        let e = conv_geometry(
            &[4, 8, 8, 6],
            &[3, 3, 3, 4],
            &[4, 8, 8, 4],
            &window,
            &twice,
            2,
            1,
        )
        .unwrap_err();
        assert_eq!(e, "convolution: input dimension 0 is labelled twice");
    }
}
