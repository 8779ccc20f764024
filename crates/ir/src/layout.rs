//! Layouts: how an array's logical elements are placed in linear memory
//! (`minor_to_major`, optional `padded_dimensions` and `padding_value`), plus
//! newer XLA suffixes (`T(8,128)`, `S(1)`, ...) kept verbatim. Validation
//! only; index arithmetic lives in [`crate::index`].

use crate::error::{IrError, Result};
use std::fmt;

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
    /// Other layout suffix items kept verbatim for printing back (tiling
    /// `T(8,128)`, memory space `S(1)`, element size `E(4)`, ...).
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
            extras: Vec::new(),
        }
    }

    /// A layout from an explicit minor-to-major order (not validated).
    pub fn from_minor_to_major(m2m: impl Into<Vec<i64>>) -> Layout {
        Layout {
            minor_to_major: m2m.into(),
            padded_dimensions: None,
            padding_value: None,
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
    /// `{1,0}`, `{0,1:P(3,5)}`, `{0,1:P(3,5):V(-1)}`, `{1,0:T(8,128)}`.
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
        for e in &self.extras {
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
}
