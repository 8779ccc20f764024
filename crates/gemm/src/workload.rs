//! Synthetic workloads shared by the benches (`benches/benches/gemm.rs`) and the perf examples: deterministic f32
//! data, square convolution plans (`b x hw x hw x c -> o`, a `k x k` window) and the MLP 784-512-512-10 (batch 256,
//! bias and relu fused). Measures nothing and is not used by the engine itself.

use crate::{Bias, ConvPlan, Epilogue, MatMut, MatRef, Options, Result, TensorLayout, sgemm};
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

/// The convolutions the criterion bench and `gemm_perf` time (the `shared/bench` cases, NCHW): ResNet's 3×3 64→64
/// layer on 56² (batch 8, stride 1, padding 1) and the 7×7/2 stem on 224² (3→64, padding 3).
pub fn bench_convs() -> Result<Vec<(&'static str, SquareConv)>> {
    Ok(vec![
        (
            "conv_b8_64_56_k3",
            square_conv(8, 64, 56, 64, 3, 1, 1, false)?,
        ),
        (
            "conv_stem_224_k7s2",
            square_conv(1, 3, 224, 64, 7, 2, 3, false)?,
        ),
    ])
}

/// The MLP 784-512-512-10 on a batch of 256: three dense layers with the bias (and, but for the last, relu) fused
/// into the GEMM epilogue. Owns its weights, biases and activations.
pub struct Mlp {
    x: Vec<f32>,
    w: [Vec<f32>; 3],
    b: [Vec<f32>; 3],
    h1: Vec<f32>,
    h2: Vec<f32>,
    y: Vec<f32>,
}

impl Mlp {
    const BATCH: usize = 256;
    const WIDTHS: [usize; 4] = [784, 512, 512, 10];
    /// Multiply-adds of one forward pass counted as two flops each.
    pub const FLOPS: u64 = 2 * 256 * (784 * 512 + 512 * 512 + 512 * 10);

    pub fn new() -> Mlp {
        let [i, h, _, o] = Mlp::WIDTHS;
        let bt = Mlp::BATCH;
        Mlp {
            x: data(bt * i),
            w: [data(i * h), data(h * h), data(h * o)],
            b: [data(h), data(h), data(o)],
            h1: vec![0.0; bt * h],
            h2: vec![0.0; bt * h],
            y: vec![0.0; bt * o],
        }
    }

    /// One forward pass; the output is [`Mlp::output`].
    pub fn run(&mut self, opts: &Options) -> Result<()> {
        let [i, h, _, o] = Mlp::WIDTHS;
        layer(
            &self.x,
            &self.w[0],
            &self.b[0],
            &mut self.h1,
            i,
            h,
            true,
            opts,
        )?;
        layer(
            &self.h1,
            &self.w[1],
            &self.b[1],
            &mut self.h2,
            h,
            h,
            true,
            opts,
        )?;
        layer(
            &self.h2,
            &self.w[2],
            &self.b[2],
            &mut self.y,
            h,
            o,
            false,
            opts,
        )
    }

    /// The last layer's output, `256 x 10` row-major.
    pub fn output(&self) -> &[f32] {
        &self.y
    }
}

impl Default for Mlp {
    fn default() -> Mlp {
        Mlp::new()
    }
}

/// `out = x . w + b` (then relu when asked) for a `256 x k` input and a `k x n` weight.
#[allow(clippy::too_many_arguments)]
fn layer(
    x: &[f32],
    w: &[f32],
    b: &[f32],
    out: &mut [f32],
    k: usize,
    n: usize,
    relu: bool,
    opts: &Options,
) -> Result<()> {
    let e = Epilogue {
        bias: Some(Bias::PerCol(b)),
        relu,
        map: None,
    };
    sgemm(
        1.0,
        MatRef::row_major(x, Mlp::BATCH, k)?,
        MatRef::row_major(w, k, n)?,
        0.0,
        MatMut::row_major(out, Mlp::BATCH, n)?,
        Some(&e),
        opts,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_conv_counts_elements_and_flops() {
        // 2 x 5 x 5 x 3 -> 4 with a 3 x 3 window, stride 2, padding 1: a 3 x 3 output.
        let c = square_conv(2, 3, 5, 4, 3, 2, 1, true).unwrap();
        assert_eq!(c.extents, [2 * 5 * 5 * 3, 3 * 3 * 3 * 4, 2 * 3 * 3 * 4]);
        assert_eq!(c.flops, 2 * (2 * 4 * 3 * 3 * 3 * 3 * 3) as u64);
        let n = square_conv(2, 3, 5, 4, 3, 2, 1, false).unwrap();
        assert_eq!(n.extents, c.extents);
    }

    #[test]
    fn mlp_matches_a_naive_forward_pass_on_one_row() {
        let mut m = Mlp::new();
        m.run(&Options::with_threads(1)).unwrap();
        // Row 0 by hand, in f64.
        let dense = |x: &[f64], w: &[f32], b: &[f32], k: usize, n: usize, relu: bool| -> Vec<f64> {
            (0..n)
                .map(|j| {
                    let v = b[j] as f64 + (0..k).map(|p| x[p] * w[p * n + j] as f64).sum::<f64>();
                    if relu { v.max(0.0) } else { v }
                })
                .collect()
        };
        let x0: Vec<f64> = m.x[..784].iter().map(|&v| v as f64).collect();
        let h1 = dense(&x0, &m.w[0], &m.b[0], 784, 512, true);
        let h2 = dense(&h1, &m.w[1], &m.b[1], 512, 512, true);
        let y = dense(&h2, &m.w[2], &m.b[2], 512, 10, false);
        for (j, (&got, want)) in m.output()[..10].iter().zip(y).enumerate() {
            assert!(
                (got as f64 - want).abs() <= 1e-3 * want.abs().max(1.0),
                "y[{j}] = {got}, want {want}"
            );
        }
    }
}
