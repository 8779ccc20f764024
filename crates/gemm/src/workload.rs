//! Synthetic workloads shared by the benches (`benches/benches/gemm.rs`) and the perf examples: deterministic f32
//! data and square convolution plans (`b x hw x hw x c -> o`, a `k x k` window). Measures nothing and is not used by
//! the engine itself.

use crate::{ConvPlan, Result, TensorLayout};
use rxla_ir::{ConvDims, Window, WindowDim};

/// `n` deterministic values in [-0.5, 0.5) (no two neighbours equal), the same for every run.
pub fn data(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7919) % 1000) as f32 * 1e-3 - 0.5)
        .collect()
}

/// A planned square convolution and what a benchmark needs to run it.
pub struct SquareConv {
    pub plan: ConvPlan,
    /// Element counts of the input, kernel and output buffers.
    pub extents: [usize; 3],
    /// Multiply-adds counted as two flops each.
    pub flops: u64,
}

/// Plans a `b x hw x hw x c -> o` convolution with a `k x k` window, stride `s` and padding `pad` on every side,
/// one feature and batch group: NHWC/HWIO (`b01f_01io->b01f`) when `nhwc`, NCHW/OIHW otherwise.
#[allow(clippy::too_many_arguments)]
pub fn square_conv(
    b: usize,
    c: usize,
    hw: usize,
    o: usize,
    k: usize,
    s: i64,
    pad: i64,
    nhwc: bool,
) -> Result<SquareConv> {
    let wd = WindowDim {
        stride: s,
        pad_low: pad,
        pad_high: pad,
        ..WindowDim::new(k as i64)
    };
    let out = ((hw as i64 + 2 * pad - k as i64) / s + 1) as usize;
    let (li, lk, lo, dims) = if nhwc {
        (
            TensorLayout::row_major(&[b, hw, hw, c]),
            TensorLayout::row_major(&[k, k, c, o]),
            TensorLayout::row_major(&[b, out, out, o]),
            ConvDims::nhwc(2),
        )
    } else {
        (
            TensorLayout::row_major(&[b, c, hw, hw]),
            TensorLayout::row_major(&[o, c, k, k]),
            TensorLayout::row_major(&[b, o, out, out]),
            ConvDims::nchw(2),
        )
    };
    let window = Window {
        dims: vec![wd.clone(), wd],
    };
    let plan = ConvPlan::new(&li, &lk, &lo, &window, &dims, 1, 1)?;
    Ok(SquareConv {
        plan,
        extents: [li.count(), lk.count(), lo.count()],
        flops: 2 * (b * o * out * out * c * k * k) as u64,
    })
}
