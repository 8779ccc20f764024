//! Contractions and transforms: `dot_general` (custom
//! `batching_dims = [..] x [..], contracting_dims = [..] x [..]` or the
//! generic `#stablehlo.dot<...>`), `dot`, `convolution` (dimension labels
//! and the `window = {...}` dictionary, or generic attributes), `fft`,
//! `cholesky`, `triangular_solve`. Precision and algorithm attributes
//! are ignored (rxla computes at the operand precision). It must not
//! reorder operands or pick algorithms.

use super::{B, Result};
use crate::ast::Operation;
use crate::attrs::{Attr, field};
use rxla_ir::{
    ConvDims, DotDims, FftType, InstrId, Op, TransposeA, TriangularSolveOptions, Window, WindowDim,
};

pub(crate) fn convert(b: &mut B, op: &Operation) -> Result<Option<Vec<InstrId>>> {
    let r = match op.name.as_str() {
        "stablehlo.dot_general" => {
            let x = b.expect_operands(op, 2)?;
            let dims = if let Some(dn) = op.attr(&["dot_dimension_numbers"]).and_then(Attr::fields)
            {
                let l = |k: &str| field(dn, k).and_then(Attr::as_i64s).unwrap_or_default();
                DotDims {
                    lhs_batch: l("lhs_batching_dimensions"),
                    lhs_contracting: l("lhs_contracting_dimensions"),
                    rhs_batch: l("rhs_batching_dimensions"),
                    rhs_contracting: l("rhs_contracting_dimensions"),
                }
            } else {
                let pair = |k: &str| -> Result<(Vec<i64>, Vec<i64>)> {
                    match op.attr(&[k]).and_then(Attr::fields) {
                        None => Ok((Vec::new(), Vec::new())),
                        Some(f) => {
                            let g = |s| field(f, s).and_then(Attr::as_i64s);
                            Ok((
                                g("lhs").ok_or_else(|| b.err(format!("bad '{k}'")))?,
                                g("rhs").ok_or_else(|| b.err(format!("bad '{k}'")))?,
                            ))
                        }
                    }
                };
                let (lb, rb) = pair("batching_dims")?;
                let (lc, rc) = pair("contracting_dims")?;
                DotDims {
                    lhs_batch: lb,
                    lhs_contracting: lc,
                    rhs_batch: rb,
                    rhs_contracting: rc,
                }
            };
            b.push(Op::Dot { dims }, &x, Some(b.result_shape(op, 0)?))?
        }
        "stablehlo.dot" => {
            let x = b.expect_operands(op, 2)?;
            let lr = b.shape(x[0]).dims().len() as i64;
            let dims = DotDims {
                lhs_contracting: vec![(lr - 1).max(0)],
                rhs_contracting: vec![0],
                ..Default::default()
            };
            b.push(Op::Dot { dims }, &x, Some(b.result_shape(op, 0)?))?
        }
        "stablehlo.convolution" => convolution(b, op)?,
        "stablehlo.fft" => {
            let x = b.expect_operands(op, 1)?;
            let t = op
                .attr(&["fft_type", "type"])
                .and_then(Attr::as_enum)
                .ok_or_else(|| b.err("expected 'type = FFT|IFFT|RFFT|IRFFT'"))?;
            let fft_type =
                FftType::from_name(t).ok_or_else(|| b.err(format!("unknown fft type '{t}'")))?;
            let fft_length = b.ints(op, &["fft_length", "length"])?;
            b.push(
                Op::Fft {
                    fft_type,
                    fft_length,
                },
                &x,
                Some(b.result_shape(op, 0)?),
            )?
        }
        "stablehlo.cholesky" => {
            let x = b.expect_operands(op, 1)?;
            let lower = b.bool_attr(op, &["lower"], false)?;
            b.push(Op::Cholesky { lower }, &x, Some(b.result_shape(op, 0)?))?
        }
        "stablehlo.triangular_solve" => {
            let x = b.expect_operands(op, 2)?;
            let t = op
                .attr(&["transpose_a"])
                .and_then(Attr::as_enum)
                .unwrap_or("NO_TRANSPOSE");
            let transpose_a = match t {
                "NO_TRANSPOSE" => TransposeA::NoTranspose,
                "TRANSPOSE" => TransposeA::Transpose,
                "ADJOINT" => TransposeA::Adjoint,
                t => return Err(b.err(format!("unknown transpose_a '{t}'"))),
            };
            let opts = TriangularSolveOptions {
                left_side: b.bool_attr(op, &["left_side"], false)?,
                lower: b.bool_attr(op, &["lower"], false)?,
                unit_diagonal: b.bool_attr(op, &["unit_diagonal"], false)?,
                transpose_a,
            };
            b.push(Op::TriangularSolve(opts), &x, Some(b.result_shape(op, 0)?))?
        }
        _ => return Ok(None),
    };
    Ok(Some(vec![r]))
}

/// Rows of an `Nx2` padding attribute (`[[l, h], ...]`).
pub(crate) fn pad_pairs(b: &B, a: Option<&Attr>, n: usize) -> Result<Vec<(i64, i64)>> {
    let Some(a) = a else {
        return Ok(vec![(0, 0); n]);
    };
    let v = a.as_i64s().or_else(|| match a {
        Attr::Array(rows) => rows
            .iter()
            .map(Attr::as_i64s)
            .collect::<Option<Vec<_>>>()
            .map(|r| r.concat()),
        _ => None,
    });
    let mut v = v.ok_or_else(|| b.err("padding must be [[low, high], ...]"))?;
    if v.len() == 1 {
        // A splat `dense<0> : tensor<Nx2xi64>`.
        v = vec![v[0]; 2 * n];
    }
    if v.len() != 2 * n {
        return Err(b.err(format!(
            "padding has {} values, expected {} ({n} pairs)",
            v.len(),
            2 * n
        )));
    }
    Ok(v.chunks(2).map(|c| (c[0], c[1])).collect())
}

fn convolution(b: &mut B, op: &Operation) -> Result<InstrId> {
    let x = b.expect_operands(op, 2)?;
    let dn = op
        .attr(&["dim_numbers", "dimension_numbers"])
        .and_then(Attr::fields)
        .ok_or_else(|| b.err("expected convolution dimension numbers ('dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f]')"))?;
    let int = |k: &str| {
        field(dn, k)
            .and_then(Attr::as_i64)
            .ok_or_else(|| b.err(format!("dimension numbers lack '{k}'")))
    };
    let list = |k: &str| {
        field(dn, k)
            .and_then(Attr::as_i64s)
            .ok_or_else(|| b.err(format!("dimension numbers lack '{k}'")))
    };
    let dims = ConvDims {
        input_batch: int("input_batch_dimension")?,
        input_feature: int("input_feature_dimension")?,
        input_spatial: list("input_spatial_dimensions")?,
        kernel_input_feature: int("kernel_input_feature_dimension")?,
        kernel_output_feature: int("kernel_output_feature_dimension")?,
        kernel_spatial: list("kernel_spatial_dimensions")?,
        output_batch: int("output_batch_dimension")?,
        output_feature: int("output_feature_dimension")?,
        output_spatial: list("output_spatial_dimensions")?,
    };
    let n = dims.kernel_spatial.len();
    let win = op.attr(&["window"]).and_then(Attr::fields).unwrap_or(&[]);
    let get = |custom: &str, generic: &str| -> Option<&Attr> {
        field(win, custom).or_else(|| op.attr(&[generic]))
    };
    let ints = |custom: &str, generic: &str, default: i64| -> Result<Vec<i64>> {
        match get(custom, generic) {
            None => Ok(vec![default; n]),
            Some(a) => {
                let v = a
                    .as_i64s()
                    .ok_or_else(|| b.err(format!("'{custom}' must be a list of integers")))?;
                if v.len() != n {
                    return Err(b.err(format!("'{custom}' has {} entries, expected {n}", v.len())));
                }
                Ok(v)
            }
        }
    };
    let stride = ints("stride", "window_strides", 1)?;
    let lhs_d = ints("lhs_dilate", "lhs_dilation", 1)?;
    let rhs_d = ints("rhs_dilate", "rhs_dilation", 1)?;
    let rev = ints("reverse", "window_reversal", 0)?;
    let pad = pad_pairs(b, get("pad", "padding"), n)?;
    let kdims = b.shape(x[1]).dims().to_vec();
    let mut window = Window::default();
    for i in 0..n {
        let size = usize::try_from(dims.kernel_spatial[i])
            .ok()
            .and_then(|d| kdims.get(d).copied())
            .ok_or_else(|| b.err("kernel spatial dimension out of range"))?;
        window.dims.push(WindowDim {
            size,
            stride: stride[i],
            pad_low: pad[i].0,
            pad_high: pad[i].1,
            window_dilation: rhs_d[i],
            base_dilation: lhs_d[i],
            window_reversal: rev[i] != 0,
        });
    }
    let fgc = op
        .attr(&["feature_group_count"])
        .and_then(Attr::as_i64)
        .unwrap_or(1);
    let bgc = op
        .attr(&["batch_group_count"])
        .and_then(Attr::as_i64)
        .unwrap_or(1);
    b.push(
        Op::Convolution {
            window,
            dims,
            feature_group_count: fgc,
            batch_group_count: bgc,
        },
        &x,
        Some(b.result_shape(op, 0)?),
    )
}
