//! Index utilities (XLA's IndexUtil): multi-index ↔ linear index for any
//! layout, padding included; row-major (logical) strides; iteration over
//! all indices in logical or physical order. Pure arithmetic: callers make
//! sure shapes were validated (element counts fit).

use crate::shape::ArrayShape;

/// Physical strides in elements for each logical dimension, honouring
/// `minor_to_major` and padded widths.
pub fn physical_strides(shape: &ArrayShape) -> Vec<usize> {
    let pdims = shape.layout.physical_dims(&shape.dims);
    let mut strides = vec![0usize; shape.dims.len()];
    let mut acc = 1usize;
    for &d in &shape.layout.minor_to_major {
        strides[d as usize] = acc;
        acc = acc.saturating_mul(pdims[d as usize] as usize);
    }
    strides
}

/// Row-major strides (the logical order literals use).
pub fn row_major_strides(dims: &[i64]) -> Vec<usize> {
    let mut strides = vec![0usize; dims.len()];
    let mut acc = 1usize;
    for i in (0..dims.len()).rev() {
        strides[i] = acc;
        acc = acc.saturating_mul(dims[i] as usize);
    }
    strides
}

/// Linear position in the physical buffer of the element at `index`.
pub fn multi_to_linear(shape: &ArrayShape, index: &[i64]) -> usize {
    physical_strides(shape)
        .iter()
        .zip(index)
        .map(|(s, &i)| s * i as usize)
        .sum()
}

/// The logical multi-index stored at physical position `linear`, or `None`
/// when that position is padding.
pub fn linear_to_multi(shape: &ArrayShape, linear: usize) -> Option<Vec<i64>> {
    let pdims = shape.layout.physical_dims(&shape.dims);
    let mut index = vec![0i64; shape.dims.len()];
    let mut rest = linear;
    for &d in &shape.layout.minor_to_major {
        let w = pdims[d as usize] as usize;
        if w == 0 {
            return None;
        }
        index[d as usize] = (rest % w) as i64;
        rest /= w;
    }
    if rest != 0 {
        return None;
    }
    if index.iter().zip(&shape.dims).any(|(&i, &d)| i >= d) {
        return None;
    }
    Some(index)
}

/// Row-major linear index of `index` within `dims`.
pub fn row_major_linear(dims: &[i64], index: &[i64]) -> usize {
    let mut lin = 0usize;
    for (i, &d) in dims.iter().enumerate() {
        lin = lin * d as usize + index[i] as usize;
    }
    lin
}

/// For each physical buffer position, the row-major logical index of the
/// element stored there, or `None` for padding. Length = physical element
/// count.
pub fn physical_to_logical_map(shape: &ArrayShape) -> Vec<Option<usize>> {
    let pdims = shape.layout.physical_dims(&shape.dims);
    let n: usize = pdims.iter().map(|&d| d as usize).product();
    let rm = row_major_strides(&shape.dims);
    let mut out = Vec::with_capacity(n);
    // Walk physical positions with an odometer over minor_to_major.
    let rank = shape.dims.len();
    let mut idx = vec![0i64; rank];
    for _ in 0..n {
        let inside = idx.iter().zip(&shape.dims).all(|(&i, &d)| i < d);
        out.push(if inside {
            Some(idx.iter().zip(&rm).map(|(&i, &s)| i as usize * s).sum())
        } else {
            None
        });
        for &d in &shape.layout.minor_to_major {
            let d = d as usize;
            idx[d] += 1;
            if idx[d] < pdims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// Iterator over all multi-indices of `dims` in row-major order.
pub struct IndexIter {
    dims: Vec<i64>,
    next: Option<Vec<i64>>,
}

impl IndexIter {
    pub fn new(dims: &[i64]) -> IndexIter {
        let empty = dims.contains(&0);
        IndexIter {
            dims: dims.to_vec(),
            next: if empty {
                None
            } else {
                Some(vec![0; dims.len()])
            },
        }
    }
}

impl Iterator for IndexIter {
    type Item = Vec<i64>;
    fn next(&mut self) -> Option<Vec<i64>> {
        let cur = self.next.take()?;
        let mut n = cur.clone();
        let mut done = true;
        for i in (0..n.len()).rev() {
            n[i] += 1;
            if n[i] < self.dims[i] {
                done = false;
                break;
            }
            n[i] = 0;
        }
        if !done {
            self.next = Some(n);
        }
        Some(cur)
    }
}

/// Advances `index` in row-major order within `dims`; returns false after
/// the last index (wrapping to all zeros).
pub fn increment(index: &mut [i64], dims: &[i64]) -> bool {
    for i in (0..index.len()).rev() {
        index[i] += 1;
        if index[i] < dims[i] {
            return true;
        }
        index[i] = 0;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ElementType, Layout};

    fn shape(dims: &[i64], layout: Layout) -> ArrayShape {
        ArrayShape::with_layout(ElementType::F32, dims.to_vec(), layout).unwrap()
    }

    #[test]
    fn spec_column_major() {
        // {{a,b,c},{d,e,f}} with {0,1} stores a d b e c f.
        let s = shape(&[2, 3], Layout::column_major(2));
        let names = ["a", "b", "c", "d", "e", "f"];
        let map = physical_to_logical_map(&s);
        let got: Vec<&str> = map.iter().map(|m| names[m.unwrap()]).collect();
        assert_eq!(got, ["a", "d", "b", "e", "c", "f"]);
        assert_eq!(multi_to_linear(&s, &[1, 0]), 1);
        assert_eq!(multi_to_linear(&s, &[0, 2]), 4);
        assert_eq!(linear_to_multi(&s, 3), Some(vec![1, 1]));
    }

    #[test]
    fn spec_row_major() {
        let s = shape(&[2, 3], Layout::default_for_rank(2));
        let names = ["a", "b", "c", "d", "e", "f"];
        let got: Vec<&str> = physical_to_logical_map(&s)
            .iter()
            .map(|m| names[m.unwrap()])
            .collect();
        assert_eq!(got, ["a", "b", "c", "d", "e", "f"]);
    }

    #[test]
    fn spec_padded() {
        // [2x3] padded to [3,5], column-major, value 0:
        // a d 0 b e 0 c f 0 0 0 0 0 0 0
        let s = shape(
            &[2, 3],
            Layout::column_major(2).with_padding(vec![3, 5], None),
        );
        let names = ["a", "b", "c", "d", "e", "f"];
        let got: Vec<&str> = physical_to_logical_map(&s)
            .iter()
            .map(|m| m.map_or("0", |i| names[i]))
            .collect();
        assert_eq!(
            got,
            [
                "a", "d", "0", "b", "e", "0", "c", "f", "0", "0", "0", "0", "0", "0", "0"
            ]
        );
        assert_eq!(multi_to_linear(&s, &[1, 2]), 7);
        assert_eq!(linear_to_multi(&s, 2), None);
        assert_eq!(linear_to_multi(&s, 7), Some(vec![1, 2]));
        assert_eq!(physical_strides(&s), vec![1, 3]);
    }

    #[test]
    fn iteration() {
        let all: Vec<Vec<i64>> = IndexIter::new(&[2, 2]).collect();
        assert_eq!(all, vec![vec![0, 0], vec![0, 1], vec![1, 0], vec![1, 1]]);
        assert_eq!(IndexIter::new(&[]).count(), 1);
        assert_eq!(IndexIter::new(&[3, 0]).count(), 0);
        assert_eq!(row_major_linear(&[2, 3], &[1, 2]), 5);
    }
}
