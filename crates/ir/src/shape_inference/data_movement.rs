//! Shape rules of ops that move or re-index data without arithmetic:
//! iota, broadcast, reshape, transpose, bitcast, copy, slice, dynamic-slice,
//! dynamic-update-slice, concatenate, pad and reverse. Negative dimension
//! numbers are errors here (only the builder resolves them).

use super::{array, ash, check_dim_list, err, expect_count, make, need_declared, to_dim};
use crate::error::Result;
use crate::ops::PadDim;
use crate::shape::{ArrayShape, Shape};

/// Iota: the declared array shape; the iota dimension is in range.
pub(super) fn iota(ops: &[&Shape], dimension: i64, declared: Option<&Shape>) -> Result<Shape> {
    expect_count(ops, 0)?;
    let d = array(need_declared(declared)?, "the result")?;
    if d.element_type.is_pred() {
        return err(format!("the result must be numeric, got {}", ash(d)));
    }
    if dimension < 0 || dimension as usize >= d.rank() {
        return err(format!(
            "iota_dimension {dimension} is out of range for {}",
            ash(d)
        ));
    }
    make(d.element_type, d.dims.clone())
}

/// Broadcast (broadcast-in-dim): operand dim i maps to output dim
/// `dimensions[i]` (distinct); sizes equal; the output dims are declared.
pub(super) fn broadcast(
    ops: &[&Shape],
    dimensions: &[i64],
    declared: Option<&Shape>,
) -> Result<Shape> {
    expect_count(ops, 1)?;
    let a = array(ops[0], "the operand")?;
    let d = array(need_declared(declared)?, "the result")?;
    if d.element_type != a.element_type {
        return err(format!(
            "the result {} must have the operand's element type {}",
            ash(d),
            a.element_type
        ));
    }
    if dimensions.len() != a.rank() {
        return err(format!(
            "dimensions {dimensions:?} must have one entry per operand dimension ({} for {})",
            a.rank(),
            ash(a)
        ));
    }
    // Distinct but not necessarily increasing: XLA's optimised HLO folds
    // transposes into broadcasts (the builder requires increasing dims).
    check_dim_list(dimensions, d.rank(), "dimensions", false)?;
    for (i, &o) in dimensions.iter().enumerate() {
        if a.dims[i] != d.dims[o as usize] {
            return err(format!(
                "operand dimension {i} of {} (size {}) maps to result dimension {o} of {} (size {})",
                ash(a),
                a.dims[i],
                ash(d),
                d.dims[o as usize]
            ));
        }
    }
    make(d.element_type, d.dims.clone())
}

/// Reshape: declared dims with the same element count and type.
pub(super) fn reshape(ops: &[&Shape], declared: Option<&Shape>) -> Result<Shape> {
    expect_count(ops, 1)?;
    let a = array(ops[0], "the operand")?;
    let d = array(need_declared(declared)?, "the result")?;
    if d.element_type != a.element_type {
        return err(format!(
            "cannot change the element type from {} to {}",
            ash(a),
            ash(d)
        ));
    }
    if a.element_count()? != d.element_count()? {
        return err(format!(
            "element counts differ: {} has {} elements, {} has {}",
            ash(a),
            a.element_count()?,
            ash(d),
            d.element_count()?
        ));
    }
    make(d.element_type, d.dims.clone())
}

/// Checks `perm` is a permutation of `0..rank`.
pub(crate) fn check_permutation(perm: &[i64], rank: usize, what: &str) -> Result<()> {
    if perm.len() != rank {
        return err(format!(
            "{what} {perm:?} is not a permutation of 0..{rank} (wrong length)"
        ));
    }
    check_dim_list(perm, rank, what, false).map_err(|_| {
        crate::IrError::shape(format!("{what} {perm:?} is not a permutation of 0..{rank}"))
    })
}

/// Transpose: out dim i = operand dim perm[i].
pub(super) fn transpose(ops: &[&Shape], perm: &[i64]) -> Result<Shape> {
    expect_count(ops, 1)?;
    let a = array(ops[0], "the operand")?;
    check_permutation(perm, a.rank(), "dimensions")?;
    make(
        a.element_type,
        perm.iter().map(|&p| a.dims[p as usize]).collect(),
    )
}

/// Bitcast: the declared shape; physical byte sizes equal.
pub(super) fn bitcast(ops: &[&Shape], declared: Option<&Shape>) -> Result<Shape> {
    expect_count(ops, 1)?;
    let a = array(ops[0], "the operand")?;
    let d = array(need_declared(declared)?, "the result")?;
    let (ba, bd) = (a.byte_size()?, d.byte_size()?);
    if ba != bd {
        return err(format!(
            "byte sizes differ: {a} has {ba} bytes, {d} has {bd}"
        ));
    }
    Ok(Shape::Array(d.clone()))
}

/// Copy: the operand's shape (layout may change).
pub(super) fn copy(ops: &[&Shape]) -> Result<Shape> {
    expect_count(ops, 1)?;
    Ok(ops[0].with_default_layouts())
}

/// Slice with starts/limits/strides.
pub(super) fn slice(
    ops: &[&Shape],
    starts: &[i64],
    limits: &[i64],
    strides: &[i64],
) -> Result<Shape> {
    expect_count(ops, 1)?;
    let a = array(ops[0], "the operand")?;
    let r = a.rank();
    if starts.len() != r || limits.len() != r || strides.len() != r {
        return err(format!(
            "needs one start, limit and stride per dimension of {} (rank {r}), got {}, {} and {}",
            ash(a),
            starts.len(),
            limits.len(),
            strides.len()
        ));
    }
    let mut dims = Vec::with_capacity(r);
    for i in 0..r {
        let (s, l, st, d) = (starts[i], limits[i], strides[i], a.dims[i]);
        if s < 0 || s > l || l > d {
            return err(format!(
                "dimension {i}: [{s}:{l}] is out of range for {} (need 0 <= start <= limit <= {d})",
                ash(a)
            ));
        }
        if st < 1 {
            return err(format!("dimension {i}: stride {st} must be >= 1"));
        }
        // ceil((l - s) / st) without overflow for huge strides.
        dims.push(if l == s { 0 } else { (l - s - 1) / st + 1 });
    }
    make(a.element_type, dims)
}

/// Checks dynamic start indices: one scalar integer per dimension (or the
/// older form: one rank-1 integer vector with one entry per dimension).
fn check_start_indices(starts: &[&Shape], rank: usize) -> Result<()> {
    let arrays: Vec<&ArrayShape> = starts
        .iter()
        .enumerate()
        .map(|(i, s)| array(s, &format!("start index {i}")))
        .collect::<Result<_>>()?;
    let vector_form =
        arrays.len() == 1 && arrays[0].rank() == 1 && arrays[0].dims[0] == rank as i64;
    let scalar_form = arrays.len() == rank && arrays.iter().all(|a| a.is_scalar());
    if !vector_form && !scalar_form {
        let given: Vec<String> = arrays.iter().map(|a| ash(a)).collect();
        return err(format!(
            "expects {rank} scalar integer start indices, got ({})",
            given.join(", ")
        ));
    }
    for a in &arrays {
        if !a.element_type.is_integer() {
            return err(format!("start indices must be integers, got {}", ash(a)));
        }
        if a.element_type != arrays[0].element_type {
            return err(format!(
                "start indices have different types {} and {}",
                ash(arrays[0]),
                ash(a)
            ));
        }
    }
    Ok(())
}

/// Dynamic-slice(operand, starts...) with static sizes.
pub(super) fn dynamic_slice(ops: &[&Shape], sizes: &[i64]) -> Result<Shape> {
    if ops.is_empty() {
        return err("expects an operand and start indices");
    }
    let a = array(ops[0], "the operand")?;
    check_start_indices(&ops[1..], a.rank())?;
    if sizes.len() != a.rank() {
        return err(format!(
            "dynamic_slice_sizes {sizes:?} must have one entry per dimension of {}",
            ash(a)
        ));
    }
    for (i, (&s, &d)) in sizes.iter().zip(&a.dims).enumerate() {
        if s < 0 || s > d {
            return err(format!(
                "slice size {s} of dimension {i} is out of range for {} (need 0 <= size <= {d})",
                ash(a)
            ));
        }
    }
    make(a.element_type, sizes.to_vec())
}

/// Dynamic-update-slice(operand, update, starts...).
pub(super) fn dynamic_update_slice(ops: &[&Shape]) -> Result<Shape> {
    if ops.len() < 2 {
        return err(format!(
            "expects an operand, an update and start indices, got {} operands",
            ops.len()
        ));
    }
    let a = array(ops[0], "the operand")?;
    let u = array(ops[1], "the update")?;
    if u.element_type != a.element_type {
        return err(format!(
            "the update {} must have the operand's element type ({})",
            ash(u),
            ash(a)
        ));
    }
    if u.rank() != a.rank() || u.dims.iter().zip(&a.dims).any(|(x, y)| x > y) {
        return err(format!(
            "the update {} must have the operand's rank and fit in it ({})",
            ash(u),
            ash(a)
        ));
    }
    check_start_indices(&ops[2..], a.rank())?;
    make(a.element_type, a.dims.clone())
}

/// Concatenate along `dimension`.
pub(super) fn concatenate(ops: &[&Shape], dimension: i64) -> Result<Shape> {
    if ops.is_empty() {
        return err("expects at least one operand");
    }
    let arrays: Vec<&ArrayShape> = ops
        .iter()
        .enumerate()
        .map(|(i, s)| array(s, &format!("operand {i}")))
        .collect::<Result<_>>()?;
    let first = arrays[0];
    if first.rank() == 0 {
        return err(format!("cannot concatenate scalars ({})", ash(first)));
    }
    if dimension < 0 || dimension as usize >= first.rank() {
        return err(format!(
            "dimension {dimension} is out of range for {}",
            ash(first)
        ));
    }
    let cd = dimension as usize;
    let mut total: i128 = 0;
    for a in &arrays {
        if a.element_type != first.element_type {
            return err(format!(
                "operands have different element types {} and {}",
                ash(first),
                ash(a)
            ));
        }
        if a.rank() != first.rank() {
            return err(format!(
                "operands have different ranks {} and {}",
                ash(first),
                ash(a)
            ));
        }
        for i in 0..a.rank() {
            if i != cd && a.dims[i] != first.dims[i] {
                return err(format!(
                    "operands {} and {} differ in dimension {i} (only dimension {cd} may differ)",
                    ash(first),
                    ash(a)
                ));
            }
        }
        total += a.dims[cd] as i128;
    }
    let mut dims = first.dims.clone();
    dims[cd] = to_dim(total, "the concatenated size")?;
    make(first.element_type, dims)
}

/// Pad(operand, value) with low/high (may be negative) and interior (>= 0)
/// padding per dimension.
pub(super) fn pad(ops: &[&Shape], config: &[PadDim]) -> Result<Shape> {
    expect_count(ops, 2)?;
    let a = array(ops[0], "the operand")?;
    let v = array(ops[1], "the padding value")?;
    if !v.is_scalar() || v.element_type != a.element_type {
        return err(format!(
            "the padding value must be a {} scalar, got {}",
            a.element_type,
            ash(v)
        ));
    }
    if config.len() != a.rank() {
        return err(format!(
            "padding has {} dimensions but the operand {} has rank {}",
            config.len(),
            ash(a),
            a.rank()
        ));
    }
    let mut dims = Vec::with_capacity(a.rank());
    for (i, (p, &d)) in config.iter().zip(&a.dims).enumerate() {
        if p.interior < 0 {
            return err(format!(
                "dimension {i}: interior padding {} must be >= 0",
                p.interior
            ));
        }
        let n = d as i128
            + p.low as i128
            + p.high as i128
            + (d as i128 - 1).max(0) * p.interior as i128;
        if n < 0 {
            return err(format!(
                "dimension {i}: padding {}_{}_{} of size {d} gives negative size {n}",
                p.low, p.high, p.interior
            ));
        }
        dims.push(to_dim(n, "the padded size")?);
    }
    make(a.element_type, dims)
}

/// Reverse the listed dims.
pub(super) fn reverse(ops: &[&Shape], dimensions: &[i64]) -> Result<Shape> {
    expect_count(ops, 1)?;
    let a = array(ops[0], "the operand")?;
    check_dim_list(dimensions, a.rank(), "dimensions", false)?;
    make(a.element_type, a.dims.clone())
}
