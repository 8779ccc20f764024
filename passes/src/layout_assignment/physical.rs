//! Physical-order arithmetic for layout assignment: when is a `transpose`
//! or `reshape` a pure reinterpretation of its operand's bytes (a
//! `bitcast`), and which result layout makes it one. Layouts are compared
//! through a canonical form: the dims of size > 1 in physical
//! major-to-minor order, each with its stride in the *source's* row-major
//! linear index, with runs that are contiguous in that index merged. Two
//! views with equal canonical forms put every element at the same physical
//! position. Pure functions; nothing here edits a module.

use rxla_ir::index::row_major_strides;
use rxla_ir::{ArrayShape, Layout};

/// Canonical physical form of an unpadded array: `(size, source stride)`
/// from major to minor, size-1 dims dropped, contiguous runs merged.
/// `src_strides[d]` is dim `d`'s stride in the source's row-major index.
/// `None` for padded layouts (never reinterpretable here).
fn canonical(dims: &[i64], layout: &Layout, src_strides: &[i64]) -> Option<Vec<(i64, i64)>> {
    if layout.is_padded() || layout.minor_to_major.len() != dims.len() {
        return None;
    }
    let mut out: Vec<(i64, i64)> = Vec::new();
    for &d in layout.minor_to_major.iter().rev() {
        let (n, s) = (*dims.get(d as usize)?, *src_strides.get(d as usize)?);
        if n == 1 {
            continue;
        }
        match out.last_mut() {
            Some((pn, ps)) if *ps == s.checked_mul(n)? => {
                *pn = pn.checked_mul(n)?;
                *ps = s;
            }
            _ => out.push((n, s)),
        }
    }
    Some(out)
}

fn rm_strides(dims: &[i64]) -> Vec<i64> {
    row_major_strides(dims)
        .into_iter()
        .map(|s| s as i64)
        .collect()
}

/// The result layout that makes `transpose(operand), dimensions=perm` a
/// bitcast: the operand's physical order with dims renamed (padding is
/// carried along). `None` when `perm` does not fit the operand.
pub fn transpose_bitcast_layout(operand: &ArrayShape, perm: &[i64]) -> Option<Layout> {
    let rank = operand.rank();
    if perm.len() != rank {
        return None;
    }
    let mut inv = vec![0i64; rank];
    for (i, &p) in perm.iter().enumerate() {
        *inv.get_mut(usize::try_from(p).ok()?)? = i as i64;
    }
    let l = &operand.layout;
    let m2m: Vec<i64> = l
        .minor_to_major
        .iter()
        .map(|&d| inv.get(d as usize).copied())
        .collect::<Option<_>>()?;
    let mut out = Layout::from_minor_to_major(m2m);
    if let Some(p) = &l.padded_dimensions {
        let padded = perm
            .iter()
            .map(|&d| p.get(d as usize).copied())
            .collect::<Option<Vec<_>>>()?;
        out = out.with_padding(padded, l.padding_value);
    }
    out.extras = l.extras.clone();
    out.element_size_in_bits = l.element_size_in_bits;
    Some(out)
}

/// Whether `transpose(operand), dimensions=perm` with result `result`
/// moves no data.
pub fn transpose_is_bitcast(operand: &ArrayShape, result: &ArrayShape, perm: &[i64]) -> bool {
    if operand.layout.is_padded() || result.layout.is_padded() {
        return transpose_bitcast_layout(operand, perm).as_ref() == Some(&result.layout);
    }
    let src = rm_strides(&operand.dims);
    let out_src: Option<Vec<i64>> = perm.iter().map(|&p| src.get(p as usize).copied()).collect();
    let Some(out_src) = out_src else {
        return false;
    };
    match (
        canonical(&operand.dims, &operand.layout, &src),
        canonical(&result.dims, &result.layout, &out_src),
    ) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// Whether `reshape(operand)` with result `result` moves no data (the
/// row-major element order survives in physical order).
pub fn reshape_is_bitcast(operand: &ArrayShape, result: &ArrayShape) -> bool {
    match (
        canonical(&operand.dims, &operand.layout, &rm_strides(&operand.dims)),
        canonical(&result.dims, &result.layout, &rm_strides(&result.dims)),
    ) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// A layout for a reshape of `operand` to `dims` that makes it a bitcast,
/// if one exists: each merged physical run of the operand is matched by a
/// run of consecutive result dims of the same size and stride; size-1
/// result dims go most major.
pub fn reshape_bitcast_layout(operand: &ArrayShape, dims: &[i64]) -> Option<Layout> {
    let segs = canonical(&operand.dims, &operand.layout, &rm_strides(&operand.dims))?;
    let st = rm_strides(dims);
    let mut major_to_minor: Vec<i64> = (0..dims.len() as i64)
        .filter(|&d| dims[d as usize] == 1)
        .collect();
    for (n, s) in segs {
        let k = (0..dims.len()).find(|&k| dims[k] > 1 && st[k] == s)?;
        let mut prod = 1i64;
        let mut run = Vec::new();
        let mut j = k as i64;
        while prod < n && j >= 0 {
            let size = dims[j as usize];
            if size > 1 {
                prod = prod.checked_mul(size)?;
                run.push(j);
            }
            j -= 1;
        }
        if prod != n {
            return None;
        }
        run.reverse();
        major_to_minor.extend(run);
    }
    if major_to_minor.len() != dims.len() {
        return None;
    }
    let layout = Layout::from_minor_to_major(major_to_minor.into_iter().rev().collect::<Vec<_>>());
    layout.validate(dims).ok()?;
    let result = ArrayShape {
        element_type: operand.element_type,
        dims: dims.to_vec(),
        layout: layout.clone(),
        dynamic: rxla_ir::DynamicDims::STATIC,
    };
    reshape_is_bitcast(operand, &result).then_some(layout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rxla_ir::ElementType;

    fn arr(dims: &[i64], m2m: &[i64]) -> ArrayShape {
        ArrayShape::with_layout(
            ElementType::F32,
            dims.to_vec(),
            Layout::from_minor_to_major(m2m),
        )
        .unwrap()
    }

    #[test]
    fn transposes() {
        let x = arr(&[2, 3], &[1, 0]);
        let l = transpose_bitcast_layout(&x, &[1, 0]).unwrap();
        assert_eq!(l.minor_to_major, vec![0, 1]);
        assert!(transpose_is_bitcast(&x, &arr(&[3, 2], &[0, 1]), &[1, 0]));
        assert!(!transpose_is_bitcast(&x, &arr(&[3, 2], &[1, 0]), &[1, 0]));
        // A transpose that only moves a size-1 dim is free in any layout.
        let y = arr(&[1, 4], &[1, 0]);
        assert!(transpose_is_bitcast(&y, &arr(&[4, 1], &[1, 0]), &[1, 0]));
        let z = arr(&[2, 3, 4], &[2, 1, 0]);
        let l = transpose_bitcast_layout(&z, &[2, 0, 1]).unwrap();
        assert!(transpose_is_bitcast(
            &z,
            &arr(&[4, 2, 3], &l.minor_to_major),
            &[2, 0, 1]
        ));
    }

    #[test]
    fn reshapes() {
        let x = arr(&[2, 3, 4], &[2, 1, 0]);
        assert!(reshape_is_bitcast(&x, &arr(&[6, 4], &[1, 0])));
        assert!(!reshape_is_bitcast(&x, &arr(&[6, 4], &[0, 1])));
        // Column-major [2,3,4] flattened row-major is not physical order...
        let c = arr(&[2, 3, 4], &[0, 1, 2]);
        assert!(reshape_bitcast_layout(&c, &[24]).is_none());
        // ...but merging the two major-most logical dims is: [2,3] stay adjacent.
        let c2 = arr(&[2, 3, 4], &[1, 0, 2]);
        let l = reshape_bitcast_layout(&c2, &[6, 4]).unwrap();
        assert_eq!(l.minor_to_major, vec![0, 1]);
        let c3 = arr(&[4, 2, 3], &[1, 2, 0]);
        // physical major->minor: dim0(4), dim2(3), dim1(2): no run of [2,3] in row-major order.
        assert!(reshape_bitcast_layout(&c3, &[4, 6]).is_none());
        let l = reshape_bitcast_layout(&arr(&[4, 6], &[0, 1]), &[4, 2, 3]).unwrap();
        assert!(reshape_is_bitcast(
            &arr(&[4, 6], &[0, 1]),
            &arr(&[4, 2, 3], &l.minor_to_major)
        ));
        let l = reshape_bitcast_layout(&arr(&[6], &[0]), &[1, 6, 1]).unwrap();
        assert_eq!(l.minor_to_major.len(), 3);
    }
}
