//! Ops with a scalar body: `reduce`, `reduce_window`,
//! `select_and_scatter`, `sort`, `scatter`, `map`, and `chlo.top_k`.
//! The body region becomes a called computation whose parameters are the
//! block arguments (in block order, which is HLO's order too); several
//! results become a tuple and are unpacked with get-tuple-element. A body
//! may not capture outside values (an error, as in XLA).

use super::contraction::pad_pairs;
use super::{B, Result};
use crate::ast::Operation;
use crate::attrs::{Attr, field};
use rxla_ir::{InstrId, Op, ScatterDims, Shape, Window, WindowDim};

fn results_shape(b: &B, op: &Operation) -> Result<Shape> {
    let shapes = (0..op.result_types.len())
        .map(|i| b.result_shape(op, i))
        .collect::<Result<Vec<_>>>()?;
    Ok(if shapes.len() == 1 {
        shapes.into_iter().next().unwrap_or_else(|| unreachable!())
    } else {
        Shape::tuple(shapes)
    })
}

fn one_region<'o>(b: &B, op: &'o Operation, n: usize) -> Result<&'o crate::ast::Region> {
    if op.regions.len() != n {
        return Err(b.err(format!(
            "expected {n} region(s), found {}",
            op.regions.len()
        )));
    }
    Ok(&op.regions[0])
}

pub(crate) fn convert(b: &mut B, op: &Operation) -> Result<Option<Vec<InstrId>>> {
    let n = op.results.len();
    let r = match op.name.as_str() {
        "stablehlo.reduce" => {
            let x = b.operands(op)?;
            let dims = b.ints(op, &["dimensions"])?;
            let f = b.scalar_region(one_region(b, op, 1)?, "region")?;
            let shape = results_shape(b, op)?;
            b.push(
                Op::Reduce {
                    dimensions: dims,
                    to_apply: f,
                },
                &x,
                Some(shape),
            )?
        }
        "stablehlo.reduce_window" => {
            let x = b.operands(op)?;
            let size = b.ints(op, &["window_dimensions"])?;
            let rank = size.len();
            let get = |k: &str| -> Result<Vec<i64>> {
                let v = b.ints_opt(op, &[k])?.unwrap_or_else(|| vec![1; rank]);
                if v.len() != rank {
                    return Err(b.err(format!("'{k}' has {} entries, expected {rank}", v.len())));
                }
                Ok(v)
            };
            let (stride, base, wdil) = (
                get("window_strides")?,
                get("base_dilations")?,
                get("window_dilations")?,
            );
            let pad = pad_pairs(b, op.attr(&["padding"]), rank)?;
            let window = Window {
                dims: (0..rank)
                    .map(|i| WindowDim {
                        size: size[i],
                        stride: stride[i],
                        pad_low: pad[i].0,
                        pad_high: pad[i].1,
                        window_dilation: wdil[i],
                        base_dilation: base[i],
                        window_reversal: false,
                    })
                    .collect(),
            };
            let f = b.scalar_region(one_region(b, op, 1)?, "region")?;
            let shape = results_shape(b, op)?;
            b.push(
                Op::ReduceWindow {
                    window,
                    to_apply: f,
                },
                &x,
                Some(shape),
            )?
        }
        "stablehlo.select_and_scatter" => {
            let x = b.expect_operands(op, 3)?;
            one_region(b, op, 2)?;
            let size = b.ints(op, &["window_dimensions"])?;
            let rank = size.len();
            let stride = b
                .ints_opt(op, &["window_strides"])?
                .unwrap_or_else(|| vec![1; rank]);
            if stride.len() != rank {
                return Err(b.err("window_strides must have one entry per dimension"));
            }
            let pad = pad_pairs(b, op.attr(&["padding"]), rank)?;
            let window = Window {
                dims: (0..rank)
                    .map(|i| WindowDim {
                        stride: stride[i],
                        pad_low: pad[i].0,
                        pad_high: pad[i].1,
                        ..WindowDim::new(size[i])
                    })
                    .collect(),
            };
            let select = b.scalar_region(&op.regions[0], "select")?;
            let scatter = b.scalar_region(&op.regions[1], "scatter")?;
            b.push(
                Op::SelectAndScatter {
                    window,
                    select,
                    scatter,
                },
                &x,
                Some(b.result_shape(op, 0)?),
            )?
        }
        "stablehlo.sort" => {
            let x = b.operands(op)?;
            let dimension = op.attr(&["dimension"]).and_then(Attr::as_i64).unwrap_or(-1);
            let rank = b
                .shape(*x.first().ok_or_else(|| b.err("sort needs an operand"))?)
                .dims()
                .len() as i64;
            let dimension = if dimension < 0 {
                dimension + rank
            } else {
                dimension
            };
            let is_stable = b.bool_attr(op, &["is_stable"], false)?;
            let cmp = b.scalar_region(one_region(b, op, 1)?, "compare")?;
            let shape = results_shape(b, op)?;
            b.push(
                Op::Sort {
                    dimension,
                    is_stable,
                    comparator: cmp,
                },
                &x,
                Some(shape),
            )?
        }
        "stablehlo.scatter" => {
            let x = b.operands(op)?;
            let dn = op
                .attr(&["scatter_dimension_numbers"])
                .and_then(Attr::fields)
                .ok_or_else(|| {
                    b.err("expected 'scatter_dimension_numbers = #stablehlo.scatter<...>'")
                })?;
            let list = |k: &str| b.dims_list(dn, k);
            let dims = ScatterDims {
                update_window_dims: list("update_window_dims")?,
                inserted_window_dims: list("inserted_window_dims")?,
                scatter_dims_to_operand_dims: list("scatter_dims_to_operand_dims")?,
                index_vector_dim: field(dn, "index_vector_dim")
                    .and_then(Attr::as_i64)
                    .unwrap_or(0),
                input_batching_dims: list("input_batching_dims")?,
                scatter_indices_batching_dims: list("scatter_indices_batching_dims")?,
            };
            let f = b.scalar_region(one_region(b, op, 1)?, "region")?;
            let shape = results_shape(b, op)?;
            b.push(
                Op::Scatter {
                    dims,
                    to_apply: f,
                    indices_are_sorted: b.bool_attr(op, &["indices_are_sorted"], false)?,
                    unique_indices: b.bool_attr(op, &["unique_indices"], false)?,
                },
                &x,
                Some(shape),
            )?
        }
        "stablehlo.map" => {
            let x = b.operands(op)?;
            let dims = b.ints(op, &["dimensions"])?;
            let f = b.scalar_region(one_region(b, op, 1)?, "region")?;
            b.push(
                Op::Map {
                    dimensions: dims,
                    to_apply: f,
                },
                &x,
                Some(b.result_shape(op, 0)?),
            )?
        }
        "chlo.top_k" => {
            let x = b.expect_operands(op, 1)?;
            let k = b.int(op, &["k"])?;
            let shape = results_shape(b, op)?;
            b.push(Op::TopK { k, largest: true }, &x, Some(shape))?
        }
        _ => return Ok(None),
    };
    Ok(Some(b.unpack(r, n)?))
}
