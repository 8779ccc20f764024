//! Data-movement ops: `constant`, `iota`, `broadcast_in_dim` (size-1
//! operand dims that expand are reshaped away first, as XLA does),
//! `reshape`, `transpose`, `reverse`, `slice`, `dynamic_slice`,
//! `dynamic_update_slice`, `concatenate`, `pad`, `gather`, `tuple`,
//! `get_tuple_element`, `get_dimension_size`, `set_dimension_size`. No folding or layout choices here (rows are
//! row-major, as XLA's converter leaves them).

use super::{B, Result};
use crate::ast::Operation;
use crate::attrs::{Attr, dense_to_literal, field};
use rxla_ir::{GatherDims, InstrId, Op, PadDim, Shape};

pub(crate) fn convert(b: &mut B, op: &Operation) -> Result<Option<Vec<InstrId>>> {
    let r = match op.name.as_str() {
        "stablehlo.constant" => {
            let Some(Attr::Dense(v, ty)) = op.attr(&["value"]) else {
                return Err(b.err("expected a 'value = dense<...>' attribute"));
            };
            let ty = ty
                .as_ref()
                .or(op.result_types.first())
                .ok_or_else(|| b.err("constant without a type"))?;
            let lit = dense_to_literal(v, ty).map_err(|e| b.err(e))?;
            b.push(
                Op::Constant { literal: lit },
                &[],
                Some(b.result_shape(op, 0)?),
            )?
        }
        "stablehlo.iota" => {
            let d = b.int(op, &["iota_dimension", "dim"])?;
            b.push(Op::Iota { dimension: d }, &[], Some(b.result_shape(op, 0)?))?
        }
        "stablehlo.broadcast_in_dim" => {
            let x = b.expect_operands(op, 1)?;
            let dims = b.ints(op, &["broadcast_dimensions", "dims"])?;
            let out = b.result_shape(op, 0)?;
            broadcast_in_dim(b, x[0], &dims, out)?
        }
        "stablehlo.reshape" => {
            let x = b.expect_operands(op, 1)?;
            b.push(Op::Reshape, &x, Some(b.result_shape(op, 0)?))?
        }
        "stablehlo.transpose" => {
            let x = b.expect_operands(op, 1)?;
            let p = b.ints(op, &["permutation", "dims"])?;
            b.push(
                Op::Transpose { permutation: p },
                &x,
                Some(b.result_shape(op, 0)?),
            )?
        }
        "stablehlo.get_dimension_size" => {
            let x = b.expect_operands(op, 1)?;
            let d = b.int(op, &["dimension", "dim"])?;
            b.push(
                Op::GetDimensionSize { dimension: d },
                &x,
                Some(b.result_shape(op, 0)?),
            )?
        }
        "stablehlo.set_dimension_size" => {
            let x = b.expect_operands(op, 2)?;
            let d = b.int(op, &["dimension", "dim"])?;
            b.push(
                Op::SetDimensionSize { dimension: d },
                &x,
                Some(b.result_shape(op, 0)?),
            )?
        }
        "stablehlo.reverse" => {
            let x = b.expect_operands(op, 1)?;
            let d = b.ints(op, &["dimensions", "dims"])?;
            b.push(
                Op::Reverse { dimensions: d },
                &x,
                Some(b.result_shape(op, 0)?),
            )?
        }
        "stablehlo.slice" => {
            let x = b.expect_operands(op, 1)?;
            let (starts, limits, strides) = if let Some(Attr::Array(ranges)) = op.attr(&["_slice"])
            {
                let mut s = Vec::new();
                let mut l = Vec::new();
                let mut st = Vec::new();
                for r in ranges {
                    let v = r.as_i64s().unwrap_or_default();
                    if v.len() < 2 || v.len() > 3 {
                        return Err(b.err("expected slice ranges 'start:limit[:stride]'"));
                    }
                    s.push(v[0]);
                    l.push(v[1]);
                    st.push(v.get(2).copied().unwrap_or(1));
                }
                (s, l, st)
            } else {
                let s = b.ints(op, &["start_indices"])?;
                let l = b.ints(op, &["limit_indices"])?;
                let st = b
                    .ints_opt(op, &["strides"])?
                    .unwrap_or_else(|| vec![1; s.len()]);
                (s, l, st)
            };
            b.push(
                Op::Slice {
                    starts,
                    limits,
                    strides,
                },
                &x,
                Some(b.result_shape(op, 0)?),
            )?
        }
        "stablehlo.dynamic_slice" => {
            let x = b.operands(op)?;
            let sizes = b.ints(op, &["slice_sizes", "sizes"])?;
            b.push(Op::DynamicSlice { sizes }, &x, Some(b.result_shape(op, 0)?))?
        }
        "stablehlo.dynamic_update_slice" => {
            let x = b.operands(op)?;
            b.push(Op::DynamicUpdateSlice, &x, Some(b.result_shape(op, 0)?))?
        }
        "stablehlo.concatenate" => {
            let x = b.operands(op)?;
            let d = b.int(op, &["dimension", "dim"])?;
            b.push(
                Op::Concatenate { dimension: d },
                &x,
                Some(b.result_shape(op, 0)?),
            )?
        }
        "stablehlo.pad" => {
            let x = b.expect_operands(op, 2)?;
            let lo = b.ints(op, &["edge_padding_low", "low"])?;
            let hi = b.ints(op, &["edge_padding_high", "high"])?;
            let int = b.ints(op, &["interior_padding", "interior"])?;
            if lo.len() != hi.len() || lo.len() != int.len() {
                return Err(
                    b.err("low, high and interior padding must have one entry per dimension")
                );
            }
            let config = (0..lo.len())
                .map(|i| PadDim {
                    low: lo[i],
                    high: hi[i],
                    interior: int[i],
                })
                .collect();
            b.push(Op::Pad { config }, &x, Some(b.result_shape(op, 0)?))?
        }
        "stablehlo.gather" => {
            let x = b.expect_operands(op, 2)?;
            let dn = op
                .attr(&["dimension_numbers"])
                .and_then(Attr::fields)
                .ok_or_else(|| b.err("expected 'dimension_numbers = #stablehlo.gather<...>'"))?;
            let list = |k: &str| b.dims_list(dn, k);
            let dims = GatherDims {
                offset_dims: list("offset_dims")?,
                collapsed_slice_dims: list("collapsed_slice_dims")?,
                start_index_map: list("start_index_map")?,
                index_vector_dim: field(dn, "index_vector_dim")
                    .and_then(Attr::as_i64)
                    .unwrap_or(0),
                operand_batching_dims: list("operand_batching_dims")?,
                start_indices_batching_dims: list("start_indices_batching_dims")?,
            };
            let slice_sizes = b.ints(op, &["slice_sizes"])?;
            let sorted = b.bool_attr(op, &["indices_are_sorted"], false)?;
            b.push(
                Op::Gather {
                    dims,
                    slice_sizes,
                    indices_are_sorted: sorted,
                },
                &x,
                Some(b.result_shape(op, 0)?),
            )?
        }
        "stablehlo.tuple" => {
            let x = b.operands(op)?;
            b.push(Op::Tuple, &x, Some(b.result_shape(op, 0)?))?
        }
        "stablehlo.get_tuple_element" => {
            let x = b.expect_operands(op, 1)?;
            let index = match op.attr(&["_slice"]) {
                Some(Attr::Array(v)) if v.len() == 1 => {
                    v[0].as_i64s().and_then(|v| v.first().copied())
                }
                _ => op.attr(&["index"]).and_then(Attr::as_i64),
            }
            .ok_or_else(|| b.err("expected the element index ('%t[0]' or 'index = 0')"))?;
            b.push(
                Op::GetTupleElement { index },
                &x,
                Some(b.result_shape(op, 0)?),
            )?
        }
        _ => return Ok(None),
    };
    Ok(Some(vec![r]))
}

/// `broadcast_in_dim`: operand dim i maps to output dim `dims[i]`; a size-1
/// operand dim may expand (HLO's broadcast cannot: those dims are reshaped
/// away first).
pub(crate) fn broadcast_in_dim(b: &mut B, x: InstrId, dims: &[i64], out: Shape) -> Result<InstrId> {
    let in_dims = b.shape(x).dims().to_vec();
    let out_dims = out.dims().to_vec();
    if dims.len() != in_dims.len() {
        return Err(b.err(format!(
            "broadcast_dimensions has {} entries for an operand of rank {}",
            dims.len(),
            in_dims.len()
        )));
    }
    let expand: Vec<bool> = dims
        .iter()
        .zip(&in_dims)
        .map(|(&d, &n)| {
            n == 1
                && usize::try_from(d)
                    .ok()
                    .and_then(|d| out_dims.get(d))
                    .is_some_and(|&o| o != 1)
        })
        .collect();
    if !expand.iter().any(|&e| e) {
        return b.push(
            Op::Broadcast {
                dimensions: dims.to_vec(),
            },
            &[x],
            Some(out),
        );
    }
    let kept_dims: Vec<i64> = in_dims
        .iter()
        .zip(&expand)
        .filter(|(_, e)| !**e)
        .map(|(n, _)| *n)
        .collect();
    let kept_map: Vec<i64> = dims
        .iter()
        .zip(&expand)
        .filter(|(_, e)| !**e)
        .map(|(d, _)| *d)
        .collect();
    let et = b
        .shape(x)
        .element_type()
        .ok_or_else(|| b.err("broadcast of a non-array value"))?;
    let rs = Shape::array(et, kept_dims).map_err(|e| b.err(e))?;
    let r = b.push(Op::Reshape, &[x], Some(rs))?;
    b.push(
        Op::Broadcast {
            dimensions: kept_map,
        },
        &[r],
        Some(out),
    )
}
