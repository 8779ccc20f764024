//! Builder calls that move or re-index data: iota, broadcast (spec form:
//! new dims on the left) and broadcast-in-dim, reshape (with or without a
//! flattening order), collapse, transpose, rev, slices, dynamic slices,
//! concatenate, pad, copy, bitcast, gather and scatter. Negative dimension
//! numbers are resolved here (`-1` = last); the IR only sees non-negative
//! ones. Shape rules are not duplicated here: they live in
//! `shape_inference`.

use super::{ComputationBuilder, Value};
use crate::error::{IrError, Result};
use crate::ops::{CompId, GatherDims, Op, PadDim, ScatterDims};
use crate::shape::{Shape, resolve_dim};

/// Resolves each (possibly negative) dim against `rank`.
pub(crate) fn resolve_all(call: &str, dims: &[i64], rank: usize) -> Result<Vec<i64>> {
    dims.iter()
        .map(|&d| {
            resolve_dim(d, rank)
                .map(|x| x as i64)
                .map_err(|e| IrError::build(format!("{call}: {e}")))
        })
        .collect()
}

impl ComputationBuilder<'_> {
    /// `iota` of `shape` counting along `dimension`.
    pub fn iota(&mut self, shape: Shape, dimension: i64) -> Result<Value> {
        let rank = shape.dims().len();
        let d = resolve_all("iota", &[dimension], rank)?[0];
        self.push("iota", Op::Iota { dimension: d }, &[], Some(shape))
    }

    /// Spec `Broadcast`: adds dims of `sizes` on the LEFT:
    /// `out[i.., j..] = x[j..]`.
    pub fn broadcast(&mut self, x: Value, sizes: &[i64]) -> Result<Value> {
        let a = self.array_shape(x, "broadcast")?;
        let mut out = sizes.to_vec();
        out.extend(&a.dims);
        let n = sizes.len() as i64;
        let dims: Vec<i64> = (n..n + a.rank() as i64).collect();
        let shape = Shape::array(a.element_type, out)
            .map_err(|e| IrError::build(format!("broadcast: {e}")))?;
        self.push(
            "broadcast",
            Op::Broadcast { dimensions: dims },
            &[x],
            Some(shape),
        )
    }

    /// `broadcast(x), dimensions=...` to `out_dims`: operand dim i maps to
    /// output dim `dimensions[i]` (strictly increasing, like XLA's
    /// BroadcastInDim; use a transpose to reorder).
    pub fn broadcast_in_dim(
        &mut self,
        x: Value,
        out_dims: &[i64],
        dimensions: &[i64],
    ) -> Result<Value> {
        let a = self.array_shape(x, "broadcast_in_dim")?;
        let dims = resolve_all("broadcast_in_dim", dimensions, out_dims.len())?;
        if dims.windows(2).any(|w| w[0] >= w[1]) {
            return Err(IrError::build(format!(
                "broadcast_in_dim: dimensions {dimensions:?} must be strictly increasing"
            )));
        }
        let shape = Shape::array(a.element_type, out_dims.to_vec())
            .map_err(|e| IrError::build(format!("broadcast_in_dim: {e}")))?;
        self.push(
            "broadcast",
            Op::Broadcast { dimensions: dims },
            &[x],
            Some(shape),
        )
    }

    /// `reshape(x)` to `new_sizes` (row-major order).
    pub fn reshape(&mut self, x: Value, new_sizes: &[i64]) -> Result<Value> {
        let a = self.array_shape(x, "reshape")?;
        let shape = Shape::array(a.element_type, new_sizes.to_vec())
            .map_err(|e| IrError::build(format!("reshape: {e}")))?;
        self.push("reshape", Op::Reshape, &[x], Some(shape))
    }

    /// Spec `Reshape(operand, dimensions, new_sizes)`: flattens in
    /// `dimensions` order (a permutation), then reshapes: a transpose
    /// followed by a reshape.
    pub fn reshape_with_dimensions(
        &mut self,
        x: Value,
        dimensions: &[i64],
        new_sizes: &[i64],
    ) -> Result<Value> {
        let rank = self.array_shape(x, "reshape")?.rank();
        let perm = resolve_all("reshape", dimensions, rank)?;
        crate::shape_inference::check_permutation(&perm, rank, "dimensions")
            .map_err(|e| IrError::build(format!("reshape: {e}")))?;
        let identity: Vec<i64> = (0..rank as i64).collect();
        let t = if perm == identity {
            x
        } else {
            self.transpose(x, &perm)?
        };
        self.reshape(t, new_sizes)
    }

    /// Spec `Collapse`: replaces the in-order, consecutive `dimensions` by
    /// one dim of their product size.
    pub fn collapse(&mut self, x: Value, dimensions: &[i64]) -> Result<Value> {
        let a = self.array_shape(x, "collapse")?;
        let dims = resolve_all("collapse", dimensions, a.rank())?;
        if dims.is_empty() {
            return Err(IrError::build("collapse: dimensions must not be empty"));
        }
        if dims.windows(2).any(|w| w[1] != w[0] + 1) {
            return Err(IrError::build(format!(
                "collapse: dimensions {dimensions:?} must be in order and consecutive"
            )));
        }
        let (first, last) = (dims[0] as usize, dims[dims.len() - 1] as usize);
        let mut out: Vec<i64> = a.dims[..first].to_vec();
        let product = crate::shape::checked_product(&a.dims[first..=last])
            .map_err(|e| IrError::build(format!("collapse: {e}")))?;
        out.push(product as i64);
        out.extend(&a.dims[last + 1..]);
        self.reshape(x, &out).map_err(|e| e.context("collapse"))
    }

    /// `transpose(x), dimensions=permutation`.
    pub fn transpose(&mut self, x: Value, permutation: &[i64]) -> Result<Value> {
        let rank = self.array_shape(x, "transpose")?.rank();
        if permutation.len() != rank {
            return Err(IrError::build(format!(
                "transpose: permutation {permutation:?} must have {rank} entries"
            )));
        }
        let perm = resolve_all("transpose", permutation, rank)?;
        self.push("transpose", Op::Transpose { permutation: perm }, &[x], None)
    }

    /// Spec `Rev`: reverses the listed dims.
    pub fn rev(&mut self, x: Value, dimensions: &[i64]) -> Result<Value> {
        let rank = self.array_shape(x, "rev")?.rank();
        let dims = resolve_all("rev", dimensions, rank)?;
        self.push("reverse", Op::Reverse { dimensions: dims }, &[x], None)
    }

    /// `slice` with unit strides.
    pub fn slice(&mut self, x: Value, starts: &[i64], limits: &[i64]) -> Result<Value> {
        let strides = vec![1; starts.len()];
        self.slice_strided(x, starts, limits, &strides)
    }

    /// `slice` with strides.
    pub fn slice_strided(
        &mut self,
        x: Value,
        starts: &[i64],
        limits: &[i64],
        strides: &[i64],
    ) -> Result<Value> {
        self.push(
            "slice",
            Op::Slice {
                starts: starts.to_vec(),
                limits: limits.to_vec(),
                strides: strides.to_vec(),
            },
            &[x],
            None,
        )
    }

    /// Slices one dimension (`[start:limit:stride]`), keeping the others.
    pub fn slice_in_dim(
        &mut self,
        x: Value,
        start: i64,
        limit: i64,
        stride: i64,
        dimension: i64,
    ) -> Result<Value> {
        let a = self.array_shape(x, "slice_in_dim")?;
        let d = resolve_all("slice_in_dim", &[dimension], a.rank())?[0] as usize;
        let mut starts = vec![0; a.rank()];
        let mut limits = a.dims.clone();
        let mut strides = vec![1; a.rank()];
        starts[d] = start;
        limits[d] = limit;
        strides[d] = stride;
        self.slice_strided(x, &starts, &limits, &strides)
    }

    /// `dynamic-slice(x, starts...)`: one scalar integer start per dim (or
    /// one rank-1 vector of starts), static `sizes`.
    pub fn dynamic_slice(&mut self, x: Value, starts: &[Value], sizes: &[i64]) -> Result<Value> {
        let mut ops = vec![x];
        ops.extend(starts);
        self.push(
            "dynamic-slice",
            Op::DynamicSlice {
                sizes: sizes.to_vec(),
            },
            &ops,
            None,
        )
    }

    /// `dynamic-update-slice(x, update, starts...)`.
    pub fn dynamic_update_slice(
        &mut self,
        x: Value,
        update: Value,
        starts: &[Value],
    ) -> Result<Value> {
        let mut ops = vec![x, update];
        ops.extend(starts);
        self.push("dynamic-update-slice", Op::DynamicUpdateSlice, &ops, None)
    }

    /// Spec `ConcatInDim`: concatenates along `dimension`.
    pub fn concat_in_dim(&mut self, operands: &[Value], dimension: i64) -> Result<Value> {
        let first = match operands.first() {
            Some(&v) => self.array_shape(v, "concatenate")?,
            None => {
                return Err(IrError::build("concatenate: expects at least one operand"));
            }
        };
        if first.rank() == 0 {
            return Err(IrError::build(format!(
                "concatenate: cannot concatenate scalars ({})",
                Shape::Array(first).to_string_no_layout()
            )));
        }
        let d = resolve_all("concatenate", &[dimension], first.rank())?[0];
        self.push(
            "concatenate",
            Op::Concatenate { dimension: d },
            operands,
            None,
        )
    }

    /// `get-dimension-size(x), dimensions={dimension}`: the runtime size of
    /// a dimension as an `s32[]` (negative dimensions count from the end).
    pub fn get_dimension_size(&mut self, x: Value, dimension: i64) -> Result<Value> {
        let rank = self.array_shape(x, "get-dimension-size")?.rank();
        let d = resolve_all("get-dimension-size", &[dimension], rank)?[0];
        self.push(
            "get-dimension-size",
            Op::GetDimensionSize { dimension: d },
            &[x],
            None,
        )
    }

    /// `set-dimension-size(x, size), dimensions={dimension}`: x with that
    /// dimension dynamic (bounded by its size) and runtime size `size`
    /// (an `s32[]`).
    pub fn set_dimension_size(&mut self, x: Value, size: Value, dimension: i64) -> Result<Value> {
        let rank = self.array_shape(x, "set-dimension-size")?.rank();
        let d = resolve_all("set-dimension-size", &[dimension], rank)?[0];
        self.push(
            "set-dimension-size",
            Op::SetDimensionSize { dimension: d },
            &[x, size],
            None,
        )
    }

    /// `pad(x, value)` with low/high/interior padding per dim.
    pub fn pad(&mut self, x: Value, value: Value, config: &[PadDim]) -> Result<Value> {
        self.push(
            "pad",
            Op::Pad {
                config: config.to_vec(),
            },
            &[x, value],
            None,
        )
    }

    /// `copy(x)`.
    pub fn copy(&mut self, x: Value) -> Result<Value> {
        self.push("copy", Op::Copy, &[x], None)
    }

    /// `bitcast(x)` to `shape` (same physical byte size).
    pub fn bitcast(&mut self, x: Value, shape: Shape) -> Result<Value> {
        self.push("bitcast", Op::Bitcast, &[x], Some(shape))
    }

    /// `gather(operand, indices)` in XLA's general form (indices not
    /// assumed sorted).
    pub fn gather(
        &mut self,
        operand: Value,
        indices: Value,
        dims: GatherDims,
        slice_sizes: &[i64],
    ) -> Result<Value> {
        self.push(
            "gather",
            Op::Gather {
                dims,
                slice_sizes: slice_sizes.to_vec(),
                indices_are_sorted: false,
            },
            &[operand, indices],
            None,
        )
    }

    /// `scatter(operands..., indices, updates...)` combining with `f`
    /// (indices not assumed sorted or unique).
    pub fn scatter(
        &mut self,
        operands: &[Value],
        indices: Value,
        updates: &[Value],
        f: CompId,
        dims: ScatterDims,
    ) -> Result<Value> {
        let mut ops = operands.to_vec();
        ops.push(indices);
        ops.extend(updates);
        self.push(
            "scatter",
            Op::Scatter {
                dims,
                to_apply: f,
                indices_are_sorted: false,
                unique_indices: false,
            },
            &ops,
            None,
        )
    }
}
