//! The constraint interface a kernel emitter states: which layouts it
//! accepts for the operands of `dot` and `convolution`, which result
//! layout it writes, and which operand layout it prefers for `reduce`.
//! [`LayoutConstraints`] has a default for every method
//! ([`DefaultConstraints`] uses them all); an emitter overrides only what
//! it cares about. Structural rules that no emitter may relax (elementwise
//! congruence, call interfaces, pinned bitcasts) are in `rules`, not here.
//!
//! An operand rule returns a list of layouts: empty means "any layout",
//! otherwise the first is the preferred one and the others are accepted
//! at no cost. A producer whose cheapest layout is in the list keeps it
//! (a transpose becomes a bitcast); otherwise a layout from the list is
//! produced directly or a `copy` is inserted.

use rxla_ir::{ArrayShape, ConvDims, DotDims, Layout};

/// Layout preferences of the (future) tiled emitter.
pub trait LayoutConstraints {
    /// Accepted layouts for dot operand `operand` (0 = lhs, 1 = rhs) of
    /// shape `shape`. Default: batch dims most major, then the row-major packing
    /// (`[m,k]` with k minor, `[k,n]` with n minor) or the transposed one — a packing GEMM reads both
    /// at full speed, so a transposed operand costs nothing.
    fn dot_operand_layouts(
        &self,
        dims: &DotDims,
        operand: usize,
        shape: &ArrayShape,
    ) -> Vec<Layout> {
        dot_operand_candidates(dims, operand, shape)
    }

    /// The layout a dot writes its result in. Default: row-major (batch,
    /// lhs free, rhs free), i.e. the rhs free dims minor.
    fn dot_result_layout(&self, _dims: &DotDims, shape: &ArrayShape) -> Layout {
        Layout::default_for_rank(shape.rank())
    }

    /// Accepted layouts for convolution operand `operand` (0 = input,
    /// 1 = kernel). Default: the input feature-minor with batch most major
    /// (NHWC-like), the kernel output-feature minor, then input feature,
    /// then spatial dims (HWIO-like).
    fn conv_operand_layouts(
        &self,
        dims: &ConvDims,
        operand: usize,
        shape: &ArrayShape,
    ) -> Vec<Layout> {
        let major_to_minor: Vec<i64> = if operand == 0 {
            std::iter::once(dims.input_batch)
                .chain(dims.input_spatial.iter().copied())
                .chain(std::iter::once(dims.input_feature))
                .collect()
        } else {
            dims.kernel_spatial
                .iter()
                .copied()
                .chain([dims.kernel_input_feature, dims.kernel_output_feature])
                .collect()
        };
        from_major_to_minor(&major_to_minor, shape.rank())
            .into_iter()
            .collect()
    }

    /// The layout a convolution writes: feature minor, batch most major.
    fn conv_result_layout(&self, dims: &ConvDims, shape: &ArrayShape) -> Layout {
        let major_to_minor: Vec<i64> = std::iter::once(dims.output_batch)
            .chain(dims.output_spatial.iter().copied())
            .chain(std::iter::once(dims.output_feature))
            .collect();
        from_major_to_minor(&major_to_minor, shape.rank())
            .unwrap_or_else(|| Layout::default_for_rank(shape.rank()))
    }

    /// The operand layout a reduce prefers when its producer is free to
    /// choose (a hint, never forced by a copy). Default: the reduced dims
    /// minor, so each output element reduces one contiguous run; the kept
    /// dims keep the order of `result_layout` (the reduce's own layout).
    fn reduce_operand_preference(
        &self,
        operand: &ArrayShape,
        reduced: &[i64],
        result_layout: &Layout,
    ) -> Option<Layout> {
        let kept: Vec<i64> = (0..operand.rank() as i64)
            .filter(|d| !reduced.contains(d))
            .collect();
        let mut m2m: Vec<i64> = reduced.to_vec();
        m2m.sort_unstable_by(|a, b| b.cmp(a));
        for &r in &result_layout.minor_to_major {
            m2m.push(*kept.get(r as usize)?);
        }
        let l = Layout::from_minor_to_major(m2m);
        l.validate(&operand.dims).ok().map(|_| l)
    }
}

/// The default emitter constraints (every method's default).
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultConstraints;

impl LayoutConstraints for DefaultConstraints {}

/// A strict emitter that only packs row-major dot and convolution
/// operands (the first default candidate): a transposed operand needs a
/// physical transpose or copy. Used by tests and `dot-operands=row-major`.
#[derive(Clone, Copy, Debug, Default)]
pub struct RowMajorOperands;

impl LayoutConstraints for RowMajorOperands {
    fn dot_operand_layouts(
        &self,
        dims: &DotDims,
        operand: usize,
        shape: &ArrayShape,
    ) -> Vec<Layout> {
        dot_operand_candidates(dims, operand, shape)
            .into_iter()
            .take(1)
            .collect()
    }
}

/// A layout from a major-to-minor dim list, if it is a permutation.
pub fn from_major_to_minor(major_to_minor: &[i64], rank: usize) -> Option<Layout> {
    let l = Layout::from_minor_to_major(major_to_minor.iter().rev().copied().collect::<Vec<_>>());
    let mut seen = vec![false; rank];
    for &d in &l.minor_to_major {
        let slot = seen.get_mut(usize::try_from(d).ok()?)?;
        if *slot {
            return None;
        }
        *slot = true;
    }
    (l.minor_to_major.len() == rank).then_some(l)
}

/// The two packings of a dot operand, batch dims most major: the
/// row-major one first (lhs contracting dims minor, rhs free dims minor),
/// then the transposed one (deduplicated; empty when the dims do not fit).
pub fn dot_operand_candidates(dims: &DotDims, operand: usize, shape: &ArrayShape) -> Vec<Layout> {
    let (batch, contracting) = if operand == 0 {
        (&dims.lhs_batch, &dims.lhs_contracting)
    } else {
        (&dims.rhs_batch, &dims.rhs_contracting)
    };
    let rank = shape.rank() as i64;
    let free: Vec<i64> = (0..rank)
        .filter(|d| !batch.contains(d) && !contracting.contains(d))
        .collect();
    let chain =
        |a: &[i64], b: &[i64]| -> Vec<i64> { batch.iter().chain(a).chain(b).copied().collect() };
    // lhs `[m,k]` row-major has k minor; rhs `[k,n]` row-major has n minor.
    let (first, second) = if operand == 0 {
        (chain(&free, contracting), chain(contracting, &free))
    } else {
        (chain(contracting, &free), chain(&free, contracting))
    };
    let mut out = Vec::new();
    for order in [first, second] {
        if let Some(l) = from_major_to_minor(&order, shape.rank())
            && !out.contains(&l)
        {
            out.push(l);
        }
    }
    out
}
