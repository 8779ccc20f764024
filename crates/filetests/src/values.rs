//! Values of run lines: parsing them in the ENTRY's shapes, and the two
//! comparisons (bit for bit with `==`, within the file's tolerance with
//! `~=`). No execution here.

use crate::directives::Tolerance;
use rxla_ir::{Literal, Shape};

/// Parses a value in the text form of `shape` (HLO literal text).
pub fn parse_value(text: &str, shape: &Shape) -> Result<Literal, String> {
    rxla_ir::text::parse_literal(text, shape).map_err(|e| format!("value `{text}`: {e}"))
}

/// Bitwise equality of literals (NaN equals NaN of any payload).
pub fn literals_identical(a: &Literal, b: &Literal) -> bool {
    match (a, b) {
        (Literal::Tuple(x), Literal::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| literals_identical(p, q))
        }
        (Literal::Array(x), Literal::Array(y)) => {
            x.shape.compatible(&y.shape)
                && rxla_eval::json::compare_with_tolerance(x, y, 0.0, 0.0).is_ok()
        }
        _ => false,
    }
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
