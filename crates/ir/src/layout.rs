//! Layouts: how an array's logical elements are placed in linear memory
//! (`minor_to_major`, optional `padded_dimensions` and `padding_value`,
//! `element_size_in_bits` (text `E(4)`: s2/u2/s4/u4 elements packed several
//! per byte in XLA buffers, see docs/SEMANTICS.md "Packed narrow
//! integers")), plus newer XLA suffixes (`T(8,128)`, `S(1)`, ...) kept
//! verbatim. Validation only; index arithmetic lives in [`crate::index`],
//! bit packing in [`crate::narrow`].

use crate::element_type::ElementType;
use crate::error::{IrError, Result};
use std::fmt;

/// Extras XLA prints before `E(n)` (dim level types, tiles, tail padding,
/// index and pointer types); the others (`S(n)`, ...) come after it.
fn printed_before_element_size(item: &str) -> bool {
    matches!(
        item.as_bytes().first(),
        Some(b'D' | b'T' | b'L' | b'#' | b'*')
    )
}

/// A layout of an array shape of rank N.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// A permutation of `0..N`; the first entry is the most minor
    /// (fastest-varying) dimension.
    pub minor_to_major: Vec<i64>,
    /// Optional per-dimension padded widths, each ≥ the dimension size.
    pub padded_dimensions: Option<Vec<i64>>,
    /// Value of the padding elements (text `V(x)`); `None` means 0.
    pub padding_value: Option<f64>,
    /// XLA's `element_size_in_bits` (text `E(n)`); `None` when absent (XLA's
    /// 0). `E(2)`/`E(4)` on s2/u2/s4/u4 packs 4 or 2 elements per byte in
    /// the physical buffer ([`Layout::packed_bits`]).
    pub element_size_in_bits: Option<u32>,
    /// Other layout suffix items kept verbatim for printing back (tiling
    /// `T(8,128)`, memory space `S(1)`, ...).
    pub extras: Vec<String>,
}

impl Layout {
    /// The default (major-to-minor, row-major) layout of rank `rank`:
    /// `{rank-1, ..., 0}`.
    pub fn default_for_rank(rank: usize) -> Layout {
        Layout {
            minor_to_major: (0..rank as i64).rev().collect(),
            padded_dimensions: None,
            padding_value: None,
            element_size_in_bits: None,
            extras: Vec::new(),
        }
    }

    /// A layout from an explicit minor-to-major order (not validated).
    pub fn from_minor_to_major(m2m: impl Into<Vec<i64>>) -> Layout {
        Layout {
            minor_to_major: m2m.into(),
            padded_dimensions: None,
            padding_value: None,
            element_size_in_bits: None,
            extras: Vec::new(),
        }
    }

    /// Column-major (`{0, 1, ..., rank-1}`).
    pub fn column_major(rank: usize) -> Layout {
        Layout::from_minor_to_major((0..rank as i64).collect::<Vec<_>>())
    }

    pub fn with_padding(mut self, padded: Vec<i64>, value: Option<f64>) -> Layout {
        self.padded_dimensions = Some(padded);
        self.padding_value = value;
        self
    }

    pub fn rank(&self) -> usize {
        self.minor_to_major.len()
    }

    /// Is this the default major-to-minor layout without padding?
    pub fn is_default(&self) -> bool {
        self.padded_dimensions.is_none()
            && self.extras.is_empty()
            && self.element_size_in_bits.is_none()
            && self
                .minor_to_major
                .iter()
                .rev()
                .enumerate()
                .all(|(i, &d)| d == i as i64)
    }

    pub fn is_padded(&self) -> bool {
        self.padded_dimensions.is_some()
    }

    /// The padding value (0 when unset).
    pub fn padding_value_or_zero(&self) -> f64 {
        self.padding_value.unwrap_or(0.0)
    }

    /// Checks the layout against array dims: `minor_to_major` is a
    /// permutation of `0..rank`, padded dims (if any) are one per dim and
    /// each ≥ the dim.
    pub fn validate(&self, dims: &[i64]) -> Result<()> {
        let rank = dims.len();
        if self.minor_to_major.len() != rank {
            return Err(IrError::shape(format!(
                "layout {self} has {} entries but the shape has rank {rank}",
                self.minor_to_major.len()
            )));
        }
        let mut seen = vec![false; rank];
        for &d in &self.minor_to_major {
            if d < 0 || d as usize >= rank || seen[d as usize] {
                return Err(IrError::shape(format!(
                    "layout {self} is not a permutation of 0..{rank}"
                )));
            }
            seen[d as usize] = true;
        }
        if let Some(p) = &self.padded_dimensions {
            if p.len() != rank {
                return Err(IrError::shape(format!(
                    "layout {self}: {} padded dimensions for rank {rank}",
                    p.len()
                )));
            }
            for (i, (&pd, &d)) in p.iter().zip(dims).enumerate() {
                if pd < d {
                    return Err(IrError::shape(format!(
                        "layout {self}: padded dimension {i} is {pd}, less than the dimension size {d}"
                    )));
                }
            }
        }
        if let (Some(v), None) = (self.padding_value, &self.padded_dimensions) {
            return Err(IrError::shape(format!(
                "layout {self}: padding value {v} without padded dimensions"
            )));
        }
        Ok(())
    }

    /// Checks `element_size_in_bits` against the element type: absent, the
    /// type's bit width (`E(4)` on s4/u4, `E(2)` on s2/u2: packed), or its
    /// byte size in bits (`E(8)` on s4: one element per byte, unpacked).
    pub fn validate_element_size(&self, ty: ElementType) -> Result<()> {
        match self.element_size_in_bits {
            None => Ok(()),
            Some(n) if n == ty.bit_width() || n as usize == ty.byte_size() * 8 => Ok(()),
            Some(n) => Err(IrError::shape(format!(
                "layout {self}: element size E({n}) does not fit {ty} (allowed: E({}){})",
                ty.bit_width(),
                if ty.bit_width() as usize != ty.byte_size() * 8 {
                    format!(" or E({})", ty.byte_size() * 8)
                } else {
                    String::new()
                }
            ))),
        }
    }

    /// Bits per element when the physical buffer packs several `ty`
    /// elements per byte (`E(2)`/`E(4)` on s2/u2/s4/u4), else `None`.
    pub fn packed_bits(&self, ty: ElementType) -> Option<u32> {
        self.element_size_in_bits
            .filter(|&n| n < 8 && n == ty.bit_width())
    }

    /// The layout without `element_size_in_bits` (one byte per narrow
    /// element: rxla's internal storage).
    pub fn unpacked(&self) -> Layout {
        Layout {
            element_size_in_bits: None,
            ..self.clone()
        }
    }

    /// Physical dims: padded widths when padded, else the logical dims.
    pub fn physical_dims(&self, dims: &[i64]) -> Vec<i64> {
        match &self.padded_dimensions {
            Some(p) => p.clone(),
            None => dims.to_vec(),
        }
    }
}

fn fmt_float_short(v: f64) -> String {
    if v.is_finite() && v == v.trunc() && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

impl fmt::Display for Layout {
    /// `{1,0}`, `{0,1:P(3,5)}`, `{0,1:P(3,5):V(-1)}`, `{1,0:T(8,128)}`,
    /// `{0:E(4)}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, d) in self.minor_to_major.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{d}")?;
        }
        if let Some(p) = &self.padded_dimensions {
            f.write_str(":P(")?;
            for (i, d) in p.iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                write!(f, "{d}")?;
            }
            f.write_str(")")?;
        }
        if let Some(v) = self.padding_value {
            write!(f, ":V({})", fmt_float_short(v))?;
        }
        for e in self
            .extras
            .iter()
            .filter(|e| printed_before_element_size(e))
        {
            write!(f, ":{e}")?;
        }
        if let Some(n) = self.element_size_in_bits {
            write!(f, ":E({n})")?;
        }
        for e in self
            .extras
            .iter()
            .filter(|e| !printed_before_element_size(e))
        {
            write!(f, ":{e}")?;
        }
        f.write_str("}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_and_display() {
        assert_eq!(Layout::default_for_rank(3).to_string(), "{2,1,0}");
        assert!(Layout::default_for_rank(2).is_default());
        assert!(!Layout::column_major(2).is_default());
        let p = Layout::column_major(2).with_padding(vec![3, 5], Some(-1.0));
        assert_eq!(p.to_string(), "{0,1:P(3,5):V(-1)}");
        assert!(p.validate(&[2, 3]).is_ok());
        assert!(p.validate(&[4, 3]).is_err());
        assert!(
            Layout::from_minor_to_major(vec![0, 0])
                .validate(&[2, 2])
                .is_err()
        );
        assert!(
            Layout::from_minor_to_major(vec![0])
                .validate(&[2, 2])
                .is_err()
        );
    }

    #[test]
    fn element_size() {
        let mut l = Layout::default_for_rank(1);
        l.element_size_in_bits = Some(4);
        assert_eq!(l.to_string(), "{0:E(4)}");
        assert!(!l.is_default());
        assert_eq!(l.packed_bits(ElementType::S4), Some(4));
        assert_eq!(l.packed_bits(ElementType::U4), Some(4));
        assert!(l.validate_element_size(ElementType::U4).is_ok());
        assert!(l.validate_element_size(ElementType::F32).is_err());
        assert!(l.validate_element_size(ElementType::S2).is_err());
        l.element_size_in_bits = Some(8);
        assert!(l.validate_element_size(ElementType::S4).is_ok());
        assert_eq!(l.packed_bits(ElementType::S4), None);
        l.element_size_in_bits = Some(3);
        assert!(l.validate_element_size(ElementType::S4).is_err());
        l.element_size_in_bits = Some(2);
        l.extras = vec!["S(1)".into(), "T(2)".into()];
        assert_eq!(l.to_string(), "{0:T(2):E(2):S(1)}");
        assert_eq!(l.unpacked().packed_bits(ElementType::U2), None);
    }
}
