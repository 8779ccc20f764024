//! Host-side physical relayout of one array buffer: the bytes of a value
//! stored in one layout rewritten in another layout of the same logical
//! shape (a get-tuple-element, tuple or optimization barrier whose
//! declared layout differs from its operand's), with the padding of a
//! padded destination filled with its padding value, as the evaluator's
//! `to_physical_bytes` does. Safe Rust only: every access is
//! bounds-checked, and sizes are checked against the shapes first. It must
//! not interpret element values (bytes are moved, never converted).

use crate::error::{JitError, Result};
use rxla_ir::{ArrayData, ArrayShape, index};

/// The little-endian bytes of `shape`'s padding value (0 when unset).
pub fn padding_bytes(shape: &ArrayShape) -> Vec<u8> {
    ArrayData::scalar_from_f64(shape.element_type, shape.layout.padding_value_or_zero())
        .to_le_bytes()
}

/// Writes the logical value held in `src` (layout of `from`) into `dst`
/// in the layout of `to`; padding positions of `dst` get `to`'s padding
/// value. `from` and `to` must have the same element type and dims.
pub fn relayout(src: &[u8], from: &ArrayShape, dst: &mut [u8], to: &ArrayShape) -> Result<()> {
    if !from.compatible(to) {
        return Err(JitError::input(format!(
            "relayout from {from} to {to}: different types or dims"
        )));
    }
    if to.element_type.is_token() {
        return Ok(());
    }
    if src.len() != from.byte_size()? || dst.len() != to.byte_size()? {
        return Err(JitError::input(format!(
            "relayout from {from} ({} bytes) to {to} ({} bytes): wrong buffer sizes",
            src.len(),
            dst.len()
        )));
    }
    let e = to.element_type.byte_size();
    if to.layout.is_padded() {
        let pad = padding_bytes(to);
        for ch in dst.chunks_exact_mut(e) {
            ch.copy_from_slice(&pad);
        }
    }
    let n = to.element_count()?;
    if n == 0 {
        return Ok(());
    }
    let (ss, ds) = (index::physical_strides(from), index::physical_strides(to));
    let order: Vec<usize> = to
        .layout
        .minor_to_major
        .iter()
        .map(|&d| d as usize)
        .collect();
    let dims: Vec<usize> = to.dims.iter().map(|&d| d as usize).collect();
    let Some(&inner) = order.first() else {
        // Rank 0: one element.
        dst[..e].copy_from_slice(&src[..e]);
        return Ok(());
    };
    let run = dims[inner];
    let (si, di) = (ss[inner] * e, ds[inner] * e);
    let mut idx = vec![0usize; dims.len()];
    loop {
        let so: usize = idx.iter().zip(&ss).map(|(i, s)| i * s).sum::<usize>() * e;
        let d0: usize = idx.iter().zip(&ds).map(|(i, s)| i * s).sum::<usize>() * e;
        if si == e && di == e {
            dst[d0..d0 + run * e].copy_from_slice(&src[so..so + run * e]);
        } else {
            for k in 0..run {
                let (a, b) = (so + k * si, d0 + k * di);
                dst[b..b + e].copy_from_slice(&src[a..a + e]);
            }
        }
        // Odometer over the outer dimensions, minor to major.
        let mut done = true;
        for &d in &order[1..] {
            idx[d] += 1;
            if idx[d] < dims[d] {
                done = false;
                break;
            }
            idx[d] = 0;
        }
        if done {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rxla_ir::{ArrayLiteral, ElementType, Layout, Literal};

    fn shape(dims: &[i64], layout: Layout) -> ArrayShape {
        let mut s = ArrayShape::new(ElementType::S16, dims.to_vec()).unwrap();
        s.layout = layout;
        s
    }

    /// Every pair of layouts (padded or not) gives the evaluator's bytes.
    #[test]
    fn matches_to_physical_bytes() {
        let layouts = [
            Layout::from_minor_to_major(vec![1, 0]),
            Layout::from_minor_to_major(vec![0, 1]),
            Layout::from_minor_to_major(vec![0, 1]).with_padding(vec![4, 5], Some(7.0)),
            Layout::from_minor_to_major(vec![1, 0]).with_padding(vec![3, 4], None),
        ];
        for dims in [[3i64, 4], [0, 4], [3, 1]] {
            let vals: Vec<i16> = (0..dims[0] * dims[1]).map(|v| v as i16 * 3 - 5).collect();
            let Literal::Array(base) = Literal::from_vec(&dims, vals).unwrap() else {
                unreachable!()
            };
            for f in &layouts {
                for t in &layouts {
                    let from = shape(&dims, f.clone());
                    let to = shape(&dims, t.clone());
                    let src = base
                        .relayout(f.clone())
                        .unwrap()
                        .to_physical_bytes()
                        .unwrap();
                    let want = base
                        .relayout(t.clone())
                        .unwrap()
                        .to_physical_bytes()
                        .unwrap();
                    let mut dst = vec![0xAAu8; want.len()];
                    relayout(&src, &from, &mut dst, &to).unwrap();
                    assert_eq!(dst, want, "{from} -> {to}");
                    let back = ArrayLiteral::from_physical_bytes(to.clone(), &dst).unwrap();
                    assert_eq!(back.data, base.data);
                }
            }
        }
    }

    #[test]
    fn wrong_sizes_are_errors() {
        let a = shape(&[2, 2], Layout::from_minor_to_major(vec![1, 0]));
        let b = shape(&[2, 2], Layout::from_minor_to_major(vec![0, 1]));
        let mut dst = vec![0u8; 8];
        assert!(relayout(&[0u8; 6], &a, &mut dst, &b).is_err());
        assert!(relayout(&[0u8; 8], &a, &mut dst[..4], &b).is_err());
        let c = shape(&[4], Layout::from_minor_to_major(vec![0]));
        assert!(relayout(&[0u8; 8], &a, &mut dst, &c).is_err());
    }
}
