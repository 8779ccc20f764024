//! Builder calls that apply a called computation over many elements:
//! reduce (variadic), reduce-window (SAME/VALID and general windows),
//! select-and-scatter, sort (with a comparator, or ascending), all-reduce
//! and the spec's CrossReplicaSum. The only computations built here are
//! the scalar add/compare helpers these calls promise.

use super::shape_ops::resolve_all;
use super::{ComputationBuilder, Padding, Value, make_padding};
use crate::error::{IrError, Result};
use crate::ops::{BinaryOp, CompId, ComparisonDirection, Op, Window, WindowDim};

impl ComputationBuilder<'_> {
    /// Builds a window of `dims` sizes and `strides` with `padding` over
    /// the dims of `x`.
    pub fn make_window(
        &self,
        call: &str,
        x: Value,
        dims: &[i64],
        strides: &[i64],
        padding: Padding,
    ) -> Result<Window> {
        let a = self.array_shape(x, call)?;
        if dims.len() != a.rank() || strides.len() != a.rank() {
            return Err(IrError::build(format!(
                "{call}: window dimensions {dims:?} and strides {strides:?} need one entry per dimension of the operand (rank {})",
                a.rank()
            )));
        }
        let pads = make_padding(&a.dims, dims, strides, padding);
        Ok(Window {
            dims: dims
                .iter()
                .zip(strides)
                .zip(pads)
                .map(|((&size, &stride), (lo, hi))| WindowDim {
                    stride,
                    pad_low: lo,
                    pad_high: hi,
                    ..WindowDim::new(size)
                })
                .collect(),
        })
    }

    /// Variadic `reduce(inputs..., inits...)` over `dimensions` with `f`.
    pub fn reduce(
        &mut self,
        inputs: &[Value],
        inits: &[Value],
        f: CompId,
        dimensions: &[i64],
    ) -> Result<Value> {
        let rank = match inputs.first() {
            Some(&v) => self.array_shape(v, "reduce")?.rank(),
            None => return Err(IrError::build("reduce: expects at least one input")),
        };
        let dims = resolve_all("reduce", dimensions, rank)?;
        let mut ops = inputs.to_vec();
        ops.extend(inits);
        self.push(
            "reduce",
            Op::Reduce {
                dimensions: dims,
                to_apply: f,
            },
            &ops,
            None,
        )
    }

    /// Spec `ReduceWindow` with SAME/VALID padding.
    pub fn reduce_window(
        &mut self,
        inputs: &[Value],
        inits: &[Value],
        f: CompId,
        window_dimensions: &[i64],
        window_strides: &[i64],
        padding: Padding,
    ) -> Result<Value> {
        let first = *inputs
            .first()
            .ok_or_else(|| IrError::build("reduce-window: expects at least one input"))?;
        let window = self.make_window(
            "reduce-window",
            first,
            window_dimensions,
            window_strides,
            padding,
        )?;
        self.reduce_window_general(inputs, inits, f, window)
    }

    /// `reduce-window` with a general window (padding, dilations).
    pub fn reduce_window_general(
        &mut self,
        inputs: &[Value],
        inits: &[Value],
        f: CompId,
        window: Window,
    ) -> Result<Value> {
        let mut ops = inputs.to_vec();
        ops.extend(inits);
        self.push(
            "reduce-window",
            Op::ReduceWindow {
                window,
                to_apply: f,
            },
            &ops,
            None,
        )
    }

    /// Spec `SelectAndScatter` with SAME/VALID padding.
    #[allow(clippy::too_many_arguments)]
    pub fn select_and_scatter(
        &mut self,
        operand: Value,
        select: CompId,
        window_dimensions: &[i64],
        window_strides: &[i64],
        padding: Padding,
        source: Value,
        init: Value,
        scatter: CompId,
    ) -> Result<Value> {
        let window = self.make_window(
            "select-and-scatter",
            operand,
            window_dimensions,
            window_strides,
            padding,
        )?;
        self.select_and_scatter_general(operand, select, window, source, init, scatter)
    }

    /// `select-and-scatter` with a general window.
    pub fn select_and_scatter_general(
        &mut self,
        operand: Value,
        select: CompId,
        window: Window,
        source: Value,
        init: Value,
        scatter: CompId,
    ) -> Result<Value> {
        self.push(
            "select-and-scatter",
            Op::SelectAndScatter {
                window,
                select,
                scatter,
            },
            &[operand, source, init],
            None,
        )
    }

    /// `sort(operands...)` along `dimension` with `comparator` (which takes
    /// 2N scalars and returns pred); a tuple when N > 1.
    pub fn sort(
        &mut self,
        operands: &[Value],
        comparator: CompId,
        dimension: i64,
        is_stable: bool,
    ) -> Result<Value> {
        let rank = match operands.first() {
            Some(&v) => self.array_shape(v, "sort")?.rank(),
            None => return Err(IrError::build("sort: expects at least one operand")),
        };
        let d = resolve_all("sort", &[dimension], rank)?[0];
        self.push(
            "sort",
            Op::Sort {
                dimension: d,
                is_stable,
                comparator,
            },
            operands,
            None,
        )
    }

    /// Spec `Sort`: sorts `x` ascending along its last dimension, building
    /// the `lt` comparator.
    pub fn sort_ascending(&mut self, x: Value) -> Result<Value> {
        let ty = self.array_shape(x, "sort")?.element_type;
        let cmp = self.scalar_compare_computation(ComparisonDirection::Lt, ty)?;
        self.sort(&[x], cmp, -1, true)
    }

    /// `all-reduce(operands...)` with `f` over `replica_groups` (empty =
    /// all replicas).
    pub fn all_reduce(
        &mut self,
        operands: &[Value],
        f: CompId,
        replica_groups: Vec<Vec<i64>>,
    ) -> Result<Value> {
        self.push(
            "all-reduce",
            Op::AllReduce {
                to_apply: f,
                attrs: crate::collective::CollectiveAttrs::groups(replica_groups),
            },
            operands,
            None,
        )
    }

    /// Spec `CrossReplicaSum`: an all-reduce with an add computation.
    pub fn cross_replica_sum(&mut self, x: Value) -> Result<Value> {
        let ty = self.array_shape(x, "cross_replica_sum")?.element_type;
        let add = self.scalar_binary_computation(BinaryOp::Add, ty)?;
        self.all_reduce(&[x], add, Vec::new())
    }
}
