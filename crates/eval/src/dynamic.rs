//! Bounded dynamic dimensions in the evaluator (semantics in
//! docs/SEMANTICS.md): a value of `f32[<=4]` is stored at its bound with
//! its runtime sizes in `ArrayLiteral::runtime_sizes`. This module holds
//! the data helpers — re-indexing a value into another box, masking the
//! padding with a value (what XLA's dynamic padder does before a reduce
//! or dot), entry arguments padded to their bounds, results sliced to
//! their runtime sizes, and the reconciliation of a value with a declared
//! shape. The per-op rules (which result dims are dynamic, their sizes)
//! are `rxla_ir::dynamic::propagate`, shared with shape inference.
//! It never reads padding into a result.

use crate::error::{EvalError, Result};
use rxla_ir::dynamic::DimSizes;
use rxla_ir::{ArrayData, ArrayLiteral, ArrayShape, Literal, Shape};

/// Does any leaf of `lit` carry runtime sizes (is it a dynamic value)?
pub fn is_dynamic_value(lit: &Literal) -> bool {
    match lit {
        Literal::Array(a) => !a.runtime_sizes.is_empty(),
        Literal::Tuple(t) => t.iter().any(is_dynamic_value),
    }
}

/// The per-dim sizes of a value: `Some(runtime size)` for its dynamic
/// dims, `None` for static ones.
pub fn sizes_of(a: &ArrayLiteral) -> DimSizes {
    (0..a.shape.rank())
        .map(|d| a.shape.is_dynamic_dim(d).then(|| a.runtime_size(d)))
        .collect()
}

/// Calls `f(index, linear)` for every multi-index of `dims` in row-major
/// order.
fn for_each_index(dims: &[i64], mut f: impl FnMut(&[i64], usize)) {
    if dims.contains(&0) {
        return;
    }
    let mut idx = vec![0i64; dims.len()];
    let mut lin = 0usize;
    loop {
        f(&idx, lin);
        lin += 1;
        let mut d = dims.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// Row-major strides of `dims`.
fn strides(dims: &[i64]) -> Vec<usize> {
    let mut s = vec![1usize; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * dims[d + 1] as usize;
    }
    s
}

/// `x` re-indexed into a box of `dims` (row-major, origin kept): elements
/// inside both boxes are copied, new positions are zero. A static value
/// of `dims` with no runtime sizes.
pub fn resize(x: &ArrayLiteral, dims: &[i64]) -> Result<ArrayLiteral> {
    let mut shape = ArrayShape::new(x.shape.element_type, dims.to_vec())?;
    if x.shape.layout.validate(dims).is_ok() {
        shape.layout = x.shape.layout.clone();
    }
    let n = shape.element_count()?;
    let from = strides(&x.shape.dims);
    let mut idx: Vec<Option<usize>> = Vec::with_capacity(n);
    for_each_index(dims, |i, _| {
        let inside = i.iter().zip(&x.shape.dims).all(|(a, b)| a < b);
        idx.push(inside.then(|| i.iter().zip(&from).map(|(&a, &s)| a as usize * s).sum()));
    });
    let fill = ArrayData::zeros(x.shape.element_type, 1);
    Ok(ArrayLiteral::new(shape, x.data.take_or(&idx, &fill))?)
}

/// `x` with every padding element (past a dynamic dim's runtime size)
/// replaced by the scalar `fill`; a value without padding is returned as
/// is.
pub fn mask_padding(x: &ArrayLiteral, fill: &ArrayData) -> Result<ArrayLiteral> {
    if !x.is_padded() {
        return Ok(x.clone());
    }
    if fill.len() != 1 || fill.element_type() != x.shape.element_type {
        return Err(EvalError::new(format!(
            "padding value must be one {} element",
            x.shape.element_type
        )));
    }
    let sizes = x.runtime_sizes.clone();
    let mut idx: Vec<Option<usize>> = Vec::with_capacity(x.data.len());
    for_each_index(&x.shape.dims, |i, lin| {
        let valid = i.iter().zip(&sizes).all(|(a, s)| a < s);
        idx.push(valid.then_some(lin));
    });
    let mut out = x.clone();
    out.data = x.data.take_or(&idx, fill);
    Ok(out)
}

/// Gives the value `sizes` as its runtime sizes (dynamic where `Some`),
/// or makes it static when no dim is dynamic.
pub fn attach_sizes(a: &mut ArrayLiteral, sizes: &[Option<i64>]) {
    let mask = rxla_ir::dynamic::mask_of(sizes);
    a.shape.dynamic = mask;
    if mask.is_static() {
        a.runtime_sizes.clear();
    } else {
        a.runtime_sizes = sizes
            .iter()
            .zip(&a.shape.dims)
            .map(|(s, &b)| s.unwrap_or(b))
            .collect();
    }
}

/// An entry argument for a parameter of shape `want`: a static value
/// whose dynamic dims are at most their bounds (and static dims equal) is
/// stored at the bounds with its dims as runtime sizes. `None` when `arg`
/// does not fit `want` that way (the caller reports the mismatch).
pub fn argument(arg: &Literal, want: &Shape) -> Result<Option<Literal>> {
    match (arg, want) {
        (Literal::Array(a), Shape::Array(w)) => {
            let fits = a.shape.element_type == w.element_type
                && a.shape.rank() == w.rank()
                && a.runtime_sizes.is_empty()
                && (0..w.rank()).all(|d| {
                    if w.is_dynamic_dim(d) {
                        a.shape.dims[d] <= w.dims[d]
                    } else {
                        a.shape.dims[d] == w.dims[d]
                    }
                });
            if !fits {
                return Ok(None);
            }
            if !w.is_dynamic() {
                return Ok(Some(arg.relayout_to(want)?));
            }
            let mut out = resize(a, &w.dims)?;
            out.shape = w.clone();
            out.runtime_sizes = a.shape.dims.clone();
            Ok(Some(Literal::Array(out)))
        }
        (Literal::Tuple(t), Shape::Tuple(s)) if t.len() == s.len() => {
            let mut out = Vec::with_capacity(t.len());
            for (l, s) in t.iter().zip(s) {
                match argument(l, s)? {
                    Some(x) => out.push(x),
                    None => return Ok(None),
                }
            }
            Ok(Some(Literal::Tuple(out)))
        }
        _ => Ok(None),
    }
}

/// An entry result: every dynamic leaf sliced to its runtime sizes (a
/// static value of those dims).
pub fn result(lit: Literal) -> Result<Literal> {
    match lit {
        Literal::Array(a) if !a.runtime_sizes.is_empty() => {
            Ok(Literal::Array(a.sliced_to_runtime_sizes()?))
        }
        Literal::Tuple(t) => Ok(Literal::Tuple(
            t.into_iter().map(result).collect::<Result<_>>()?,
        )),
        other => Ok(other),
    }
}

/// Reconciles a produced array with its declared shape `s` (compatible):
/// a dim declared dynamic keeps the value's runtime size (its bound when
/// the value is static there); a dim declared static must hold its full
/// size.
pub fn conform_array(a: &mut ArrayLiteral, s: &ArrayShape) -> Result<()> {
    if s.dynamic == a.shape.dynamic && s.is_dynamic() != a.runtime_sizes.is_empty() {
        return Ok(());
    }
    let mut sizes: DimSizes = Vec::with_capacity(s.rank());
    for d in 0..s.rank() {
        let n = a.runtime_size(d);
        if s.is_dynamic_dim(d) {
            sizes.push(Some(n));
        } else if n != s.dims[d] {
            return Err(EvalError::new(format!(
                "a value with runtime size {n} in dimension {d} reaches the static shape {}",
                s
            )));
        } else {
            sizes.push(None);
        }
    }
    attach_sizes(a, &sizes);
    a.shape.dynamic = s.dynamic;
    Ok(())
}

/// `set-dimension-size`: `x` with dimension `d`'s runtime size `n`
/// (0 ≤ n ≤ bound, else an error).
pub fn set_dimension_size(x: &ArrayLiteral, n: &ArrayLiteral, d: usize) -> Result<ArrayLiteral> {
    let n = match &n.data {
        ArrayData::S32(v) if v.len() == 1 => v[0] as i64,
        _ => return Err(EvalError::new("the size operand must be an s32 scalar")),
    };
    let bound = *x
        .shape
        .dims
        .get(d)
        .ok_or_else(|| EvalError::new(format!("dimension {d} is out of range")))?;
    if n < 0 || n > bound {
        return Err(EvalError::new(format!(
            "size {n} for dimension {d} is outside 0..={bound} (its bound)"
        )));
    }
    let mut sizes = sizes_of(x);
    sizes[d] = Some(n);
    let mut out = x.clone();
    attach_sizes(&mut out, &sizes);
    out.shape.dynamic = x.shape.dynamic.with(d);
    Ok(out)
}

/// The operands of a concatenate along `cd` made contiguous: each operand
/// cut to its runtime size along `cd` and the pieces concatenated, then
/// re-padded to the result's bound. Other dims stay at their bounds.
pub fn concatenate(xs: &[&ArrayLiteral], cd: usize, out: &ArrayShape) -> Result<ArrayLiteral> {
    let mut pieces = Vec::with_capacity(xs.len());
    let mut total = 0i64;
    for x in xs {
        let mut dims = x.shape.dims.clone();
        let n = x.runtime_size(cd);
        dims[cd] = n;
        total += n;
        pieces.push(resize(x, &dims)?);
    }
    let mut dims = out.dims.clone();
    dims[cd] = total;
    let cat_shape = ArrayShape::new(out.element_type, dims)?;
    let refs: Vec<&ArrayLiteral> = pieces.iter().collect();
    let cat = crate::movement::concatenate(&refs, cd as i64, &cat_shape)?;
    resize(&cat, &out.dims)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rxla_ir::DynamicDims;

    fn dyn_vec(values: Vec<f32>, bound_mask: u64, sizes: Vec<i64>) -> ArrayLiteral {
        let n = values.len() as i64;
        let mut a = Literal::from_vec(&[n], values)
            .unwrap()
            .into_array()
            .unwrap();
        a.shape.dynamic = DynamicDims(bound_mask);
        a.runtime_sizes = sizes;
        a
    }

    #[test]
    fn masks_and_slices_the_padding() {
        let a = dyn_vec(vec![1.0, 2.0, 3.0, 4.0], 1, vec![2]);
        let m = mask_padding(&a, &ArrayData::F32(vec![-1.0])).unwrap();
        assert_eq!(m.as_slice::<f32>().unwrap(), &[1.0, 2.0, -1.0, -1.0]);
        let r = result(Literal::Array(a)).unwrap();
        assert_eq!(r.as_slice::<f32>().unwrap(), &[1.0, 2.0]);
        assert!(!r.shape().is_dynamic());
    }

    #[test]
    fn arguments_are_padded_to_their_bounds() {
        let want = rxla_ir::text::parse_shape("f32[<=4,2]").unwrap();
        let arg = Literal::from_vec(&[1, 2], vec![5.0f32, 6.0]).unwrap();
        let a = argument(&arg, &want).unwrap().unwrap();
        let a = a.as_array().unwrap();
        assert_eq!(a.runtime_sizes, vec![1, 2]);
        assert_eq!(
            a.as_slice::<f32>().unwrap(),
            &[5.0, 6.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
        );
        let too_big = Literal::from_vec(&[5, 2], vec![0.0f32; 10]).unwrap();
        assert!(argument(&too_big, &want).unwrap().is_none());
        let wrong_static = Literal::from_vec(&[1, 3], vec![0.0f32; 3]).unwrap();
        assert!(argument(&wrong_static, &want).unwrap().is_none());
    }

    #[test]
    fn set_dimension_size_checks_the_bound() {
        let a = Literal::vec1(vec![1.0f32, 2.0, 3.0]).into_array().unwrap();
        let n = |v: i32| Literal::scalar(v).into_array().unwrap();
        let s = set_dimension_size(&a, &n(2), 0).unwrap();
        assert_eq!(s.runtime_sizes, vec![2]);
        assert!(s.shape.is_dynamic_dim(0));
        assert!(set_dimension_size(&a, &n(4), 0).is_err());
        assert!(set_dimension_size(&a, &n(-1), 0).is_err());
        assert!(set_dimension_size(&a, &n(3), 0).is_ok());
    }

    #[test]
    fn concatenate_packs_the_valid_parts() {
        let a = dyn_vec(vec![1.0, 2.0, 9.0], 1, vec![2]);
        let b = dyn_vec(vec![3.0, 9.0], 1, vec![1]);
        let out = ArrayShape::new(rxla_ir::ElementType::F32, vec![5]).unwrap();
        let c = concatenate(&[&a, &b], 0, &out).unwrap();
        assert_eq!(c.as_slice::<f32>().unwrap(), &[1.0, 2.0, 3.0, 0.0, 0.0]);
    }
}
