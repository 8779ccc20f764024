//! Builder calls for contractions: the spec's `Dot` (vector/matrix forms),
//! `DotGeneral`, and the convolutions `Conv` (SAME/VALID),
//! `ConvWithGeneralPadding` and `ConvGeneral` (dimension numbers, groups).
//! Only translates arguments into `dot`/`convolution` instructions; the
//! shape rules live in `shape_inference`.

use super::{ComputationBuilder, Padding, Value, make_padding};
use crate::error::{IrError, Result};
use crate::ops::{ConvDims, DotDims, Op, Window, WindowDim};

/// Arguments of a general convolution beyond lhs and rhs.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvGeneral {
    /// Strides per spatial dim.
    pub strides: Vec<i64>,
    /// `(low, high)` padding per spatial dim (may be negative).
    pub padding: Vec<(i64, i64)>,
    /// Input (base) dilation per spatial dim.
    pub lhs_dilation: Vec<i64>,
    /// Kernel (window) dilation per spatial dim.
    pub rhs_dilation: Vec<i64>,
    pub dims: ConvDims,
    pub feature_group_count: i64,
    pub batch_group_count: i64,
}

impl ComputationBuilder<'_> {
    /// Spec `Dot`: vector·vector → scalar, matrix·vector → vector,
    /// matrix·matrix → matrix (last dim of lhs with first dim of rhs).
    pub fn dot(&mut self, lhs: Value, rhs: Value) -> Result<Value> {
        let l = self.array_shape(lhs, "dot")?;
        let r = self.array_shape(rhs, "dot")?;
        if !(1..=2).contains(&l.rank()) || !(1..=2).contains(&r.rank()) {
            return Err(IrError::build(format!(
                "dot: operands must be vectors or matrices, got ranks {} and {} (use dot_general)",
                l.rank(),
                r.rank()
            )));
        }
        let dims = DotDims {
            lhs_contracting: vec![l.rank() as i64 - 1],
            rhs_contracting: vec![0],
            ..DotDims::default()
        };
        self.dot_general(lhs, rhs, dims)
    }

    /// `dot` with general dimension numbers (negative dims resolved).
    pub fn dot_general(&mut self, lhs: Value, rhs: Value, dims: DotDims) -> Result<Value> {
        let lr = self.array_shape(lhs, "dot")?.rank();
        let rr = self.array_shape(rhs, "dot")?.rank();
        let res = |d: &[i64], rank| super::shape_ops::resolve_all("dot", d, rank);
        let dims = DotDims {
            lhs_batch: res(&dims.lhs_batch, lr)?,
            lhs_contracting: res(&dims.lhs_contracting, lr)?,
            rhs_batch: res(&dims.rhs_batch, rr)?,
            rhs_contracting: res(&dims.rhs_contracting, rr)?,
        };
        self.push("dot", Op::Dot { dims }, &[lhs, rhs], None)
    }

    /// Spec `Conv`: lhs `[batch, z, spatial...]`, rhs `[out-z, in-z,
    /// spatial...]`, SAME or VALID padding.
    pub fn conv(
        &mut self,
        lhs: Value,
        rhs: Value,
        strides: &[i64],
        padding: Padding,
    ) -> Result<Value> {
        let l = self.array_shape(lhs, "conv")?;
        let r = self.array_shape(rhs, "conv")?;
        if l.rank() < 2 || r.rank() != l.rank() {
            return Err(IrError::build(format!(
                "conv: lhs and rhs must have the same rank >= 2, got ranks {} and {}",
                l.rank(),
                r.rank()
            )));
        }
        if strides.len() != l.rank() - 2 {
            return Err(IrError::build(format!(
                "conv: {} strides for {} spatial dimensions",
                strides.len(),
                l.rank() - 2
            )));
        }
        let pads = make_padding(&l.dims[2..], &r.dims[2..], strides, padding);
        self.conv_with_general_padding(lhs, rhs, strides, &pads, &[], &[])
    }

    /// Spec `ConvWithGeneralPadding` (empty dilations mean 1).
    pub fn conv_with_general_padding(
        &mut self,
        lhs: Value,
        rhs: Value,
        strides: &[i64],
        padding: &[(i64, i64)],
        lhs_dilation: &[i64],
        rhs_dilation: &[i64],
    ) -> Result<Value> {
        let rank = self.array_shape(lhs, "conv")?.rank();
        let ns = rank.saturating_sub(2);
        let ones = vec![1; ns];
        let args = ConvGeneral {
            strides: strides.to_vec(),
            padding: padding.to_vec(),
            lhs_dilation: if lhs_dilation.is_empty() {
                ones.clone()
            } else {
                lhs_dilation.to_vec()
            },
            rhs_dilation: if rhs_dilation.is_empty() {
                ones
            } else {
                rhs_dilation.to_vec()
            },
            dims: ConvDims::nchw(ns),
            feature_group_count: 1,
            batch_group_count: 1,
        };
        self.conv_general(lhs, rhs, &args)
    }

    /// Spec `ConvGeneral`: dimension numbers and groups.
    pub fn conv_general(&mut self, lhs: Value, rhs: Value, args: &ConvGeneral) -> Result<Value> {
        let r = self.array_shape(rhs, "conv")?;
        let ns = args.dims.kernel_spatial.len();
        let lens = [
            args.strides.len(),
            args.padding.len(),
            args.lhs_dilation.len(),
            args.rhs_dilation.len(),
        ];
        if lens.iter().any(|&n| n != ns) {
            return Err(IrError::build(format!(
                "conv: strides, padding and dilations need {ns} entries each, got {lens:?}"
            )));
        }
        let mut window = Window::default();
        for i in 0..ns {
            let kd = args.dims.kernel_spatial[i];
            let size = usize::try_from(kd)
                .ok()
                .and_then(|k| r.dims.get(k))
                .copied()
                .ok_or_else(|| {
                    IrError::build(format!(
                        "conv: kernel spatial dimension {kd} is out of range for the kernel"
                    ))
                })?;
            window.dims.push(WindowDim {
                size,
                stride: args.strides[i],
                pad_low: args.padding[i].0,
                pad_high: args.padding[i].1,
                window_dilation: args.rhs_dilation[i],
                base_dilation: args.lhs_dilation[i],
                window_reversal: false,
            });
        }
        self.push(
            "convolution",
            Op::Convolution {
                window,
                dims: args.dims.clone(),
                feature_group_count: args.feature_group_count,
                batch_group_count: args.batch_group_count,
            },
            &[lhs, rhs],
            None,
        )
    }
}
