//! Values of run lines: parsing them in the ENTRY's shapes, and the two
//! comparisons (bit for bit with `==`, within the file's tolerance with
//! `~=`). No execution here.

use crate::directives::Tolerance;
use rxla_ir::{Literal, Shape};

/// Parses a value in the text form of `shape` (HLO literal text).
pub fn parse_value(text: &str, shape: &Shape) -> Result<Literal, String> {
    rxla_ir::text::parse_literal(text, shape).map_err(|e| format!("value `{text}`: {e}"))
}

/// Exact equality of literals: same values element by element, the sign
/// of a zero included (`-0 == 0` is false); NaN equals NaN of any payload
/// and sign.
pub fn literals_identical(a: &Literal, b: &Literal) -> bool {
    match (a, b) {
        (Literal::Tuple(x), Literal::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| literals_identical(p, q))
        }
        (Literal::Array(x), Literal::Array(y)) => {
            x.shape.compatible(&y.shape)
                && rxla_eval::json::compare_with_tolerance(x, y, 0.0, 0.0).is_ok()
                && (0..x.data.len()).all(|i| same_text(&x.data, &y.data, i))
        }
        _ => false,
    }
}

/// The element's text is the same (so `-0` differs from `0`), or both are
/// NaN-carrying (a NaN's payload and sign are not compared).
fn same_text(x: &rxla_ir::ArrayData, y: &rxla_ir::ArrayData, i: usize) -> bool {
    let (mut a, mut b) = (String::new(), String::new());
    x.format_element(i, &mut a);
    y.format_element(i, &mut b);
    a == b || (a.contains("nan") && b.contains("nan"))
}

/// Equality within `tol` leaf by leaf (same tuple structure and shapes).
pub fn literals_close(a: &Literal, b: &Literal, tol: Tolerance) -> Result<(), String> {
    let (la, lb) = (a.leaves(), b.leaves());
    if la.len() != lb.len() {
        return Err("different tuple structure".into());
    }
    for (x, y) in la.iter().zip(&lb) {
        if !x.shape.compatible(&y.shape) {
            return Err(format!("shape {} vs {}", x.shape, y.shape));
        }
        rxla_eval::json::compare_with_tolerance(x, y, tol.rtol, tol.atol)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32]) -> Literal {
        Literal::vec1(v.to_vec())
    }

    #[test]
    fn identical_tells_signed_zeros_apart_but_not_nans() {
        assert!(literals_identical(&f32s(&[0.0, 1.5]), &f32s(&[0.0, 1.5])));
        assert!(!literals_identical(&f32s(&[-0.0]), &f32s(&[0.0])));
        assert!(literals_identical(&f32s(&[-0.0]), &f32s(&[-0.0])));
        let other_nan = f32::from_bits(0x7fc0_0001);
        assert!(literals_identical(&f32s(&[f32::NAN]), &f32s(&[other_nan])));
        assert!(literals_identical(&f32s(&[-f32::NAN]), &f32s(&[f32::NAN])));
        assert!(!literals_identical(&f32s(&[f32::NAN]), &f32s(&[1.0])));
        let big = |v: i64| Literal::vec1(vec![v]);
        assert!(!literals_identical(&big(i64::MAX), &big(i64::MAX - 1)));
    }
}
