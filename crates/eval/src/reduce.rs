//! `reduce` and `map`, with a fast path for bodies that are one
//! elementwise op of their parameters. Reduction order is fixed: for each
//! output element the accumulator starts at the init value and takes the
//! operand elements one at a time in row-major order of the reduced
//! dimensions, `acc = f(acc, x)`. The fast path uses exactly the same
//! order, so both paths agree bit for bit. Sub-computations arrive as an
//! [`Apply`] callback; this module never evaluates instructions itself.

use crate::data::{self, row_major_strides, strided_walk};
use crate::elementwise;
use crate::error::{EvalError, Result};
use crate::kernels::Apply;
use rxla_ir::{ArrayData, ArrayLiteral, ArrayShape, BinaryOp, Literal, Shape, UnaryOp};

/// A called computation recognised as a single elementwise op of its
/// parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastBody {
    /// `op(p0, p1)`, or `op(p1, p0)` when `swapped`.
    Binary(BinaryOp, bool),
    /// `op(p0)`.
    Unary(UnaryOp),
}

fn out_shapes(out: &Shape, n: usize) -> Result<Vec<ArrayShape>> {
    let leaves: Vec<ArrayShape> = match out {
        Shape::Array(a) if n == 1 => vec![a.clone()],
        Shape::Tuple(t) if t.len() == n => t
            .iter()
            .map(|s| Ok(s.as_array()?.clone()))
            .collect::<Result<_>>()?,
        _ => {
            return Err(EvalError::new(format!(
                "result shape {out} does not fit {n} operand(s)"
            )));
        }
    };
    Ok(leaves)
}

fn wrap(mut arrays: Vec<ArrayLiteral>, tuple: bool) -> Literal {
    if tuple {
        Literal::Tuple(arrays.into_iter().map(Literal::Array).collect())
    } else {
        Literal::Array(arrays.remove(0))
    }
}

/// Variadic `reduce` over `dims`.
pub fn reduce(
    operands: &[&ArrayLiteral],
    inits: &[&ArrayLiteral],
    dims: &[i64],
    fast: Option<FastBody>,
    apply: &mut Apply,
    out: &Shape,
) -> Result<Literal> {
    let n = operands.len();
    if n == 0 || inits.len() != n {
        return Err(EvalError::new(format!(
            "reduce needs as many inits as operands (≥1), got {n} operands and {} inits",
            inits.len()
        )));
    }
    let in_dims = operands[0].shape.dims.clone();
    if let Some(bad) = operands.iter().find(|o| o.shape.dims != in_dims) {
        return Err(EvalError::new(format!(
            "reduce operands differ in dimensions: {} vs {}",
            operands[0].shape, bad.shape
        )));
    }
    let outs = out_shapes(out, n)?;
    let mut reduced = vec![false; in_dims.len()];
    for &d in dims {
        reduced[operands[0].shape.resolve_dim(d)?] = true;
    }
    let kept: Vec<i64> = (0..in_dims.len())
        .filter(|&d| !reduced[d])
        .map(|d| in_dims[d])
        .collect();
    if kept != outs[0].dims {
        return Err(EvalError::new(format!(
            "reduce result {} does not match the kept dimensions {kept:?}",
            outs[0]
        )));
    }
    let out_rm = row_major_strides(&kept);
    let mut ostride = vec![0isize; in_dims.len()];
    let mut j = 0;
    for d in 0..in_dims.len() {
        if !reduced[d] {
            ostride[d] = out_rm[j];
            j += 1;
        }
    }
    let out_count = data::count(&outs[0])?;
    let mut accs: Vec<ArrayData> = inits
        .iter()
        .map(|i| {
            if i.data.len() != 1 {
                return Err(EvalError::new(format!(
                    "reduce init must be a scalar, got {}",
                    i.shape
                )));
            }
            Ok(data::splat(&i.data, out_count))
        })
        .collect::<Result<_>>()?;

    if let (1, Some(FastBody::Binary(op, swapped))) = (n, fast) {
        let ty = operands[0].shape.element_type;
        if (!swapped || op.is_commutative()) && elementwise::binary_supported(op, ty) {
            let walk = |f: &mut dyn FnMut(usize, usize)| {
                let mut k = 0usize;
                strided_walk(&in_dims, &ostride, 0, |o| {
                    f(k, o as usize);
                    k += 1;
                });
            };
            elementwise::reduce_into(op, &mut accs[0], &operands[0].data, &walk)?;
            let arrays = vec![data::array(&outs[0], accs.remove(0))?];
            return Ok(wrap(arrays, false));
        }
    }

    // General path: call the body once per element, in the same order.
    let mut map = Vec::with_capacity(operands[0].data.len());
    strided_walk(&in_dims, &ostride, 0, |o| map.push(o as usize));
    let mut args: Vec<Literal> = Vec::with_capacity(2 * n);
    for (k, &o) in map.iter().enumerate() {
        args.clear();
        args.extend(accs.iter().map(|a| data::scalar_at(a, o)));
        args.extend(operands.iter().map(|x| data::scalar_at(&x.data, k)));
        let r = apply(&args)?;
        let leaves = r.leaves();
        if leaves.len() != n {
            return Err(EvalError::new(format!(
                "reduce body returned {} values for {n} operands",
                leaves.len()
            )));
        }
        for (acc, leaf) in accs.iter_mut().zip(leaves) {
            data::assign(acc, &[o], &leaf.data)?;
        }
    }
    let arrays = accs
        .into_iter()
        .zip(&outs)
        .map(|(a, s)| data::array(s, a))
        .collect::<Result<Vec<_>>>()?;
    Ok(wrap(arrays, matches!(out, Shape::Tuple(_))))
}

/// `map`: `out[i] = f(x0[i], x1[i], ...)`.
pub fn map(
    operands: &[&ArrayLiteral],
    fast: Option<FastBody>,
    apply: &mut Apply,
    out: &ArrayShape,
) -> Result<ArrayLiteral> {
    let count = data::count(out)?;
    if let Some(bad) = operands.iter().find(|o| o.data.len() != count) {
        return Err(EvalError::new(format!(
            "map operand {} does not match the result {out}",
            bad.shape
        )));
    }
    match (fast, operands) {
        (Some(FastBody::Binary(op, swapped)), [a, b]) => {
            let (x, y) = if swapped { (b, a) } else { (a, b) };
            return data::array(out, elementwise::binary(op, &x.data, &y.data)?);
        }
        (Some(FastBody::Unary(op)), [a]) => {
            return data::array(out, elementwise::unary(op, &a.data)?);
        }
        _ => {}
    }
    let mut result = ArrayData::zeros(out.element_type, count);
    let mut args: Vec<Literal> = Vec::with_capacity(operands.len());
    for i in 0..count {
        args.clear();
        args.extend(operands.iter().map(|x| data::scalar_at(&x.data, i)));
        let r = apply(&args)?;
        data::assign(&mut result, &[i], &r.as_array()?.data)?;
    }
    data::array(out, result)
}
