//! Bit-exact comparison of evaluation results: used by the roundtrip and
//! passes oracles (whose results must not differ at all), by the JIT oracle
//! for the leaves no inexact op feeds (its tolerances for reassociated and
//! approximated ops live in `jit/tolerance.rs`) and by the JIT's tests.
//! Same element types and dims, identical bits per element (-0 ≠ +0),
//! except that any two NaNs are equal (NaN payloads aside). Layouts are
//! not compared (values are stored row-major). No panics.

use rxla_ir::{ArrayData, ArrayLiteral, Literal};

/// `Ok` when `got` equals `want` bit for bit (NaN payloads aside), else a
/// description of the first difference.
pub fn same_values(want: &Literal, got: &Literal) -> Result<(), String> {
    match (want, got) {
        (Literal::Tuple(a), Literal::Tuple(b)) => {
            if a.len() != b.len() {
                return Err(format!("tuple of {} elements vs {}", a.len(), b.len()));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                same_values(x, y).map_err(|e| format!("tuple element {i}: {e}"))?;
            }
            Ok(())
        }
        (Literal::Array(a), Literal::Array(b)) => same_array(a, b),
        _ => Err(format!(
            "shape {} vs {}",
            want.shape().to_string_no_layout(),
            got.shape().to_string_no_layout()
        )),
    }
}

fn same_array(a: &ArrayLiteral, b: &ArrayLiteral) -> Result<(), String> {
    if !a.shape.compatible(&b.shape) {
        return Err(format!(
            "shape {} vs {}",
            a.shape.with_default_layout(),
            b.shape.with_default_layout()
        ));
    }
    let diff = first_difference(&a.data, &b.data);
    match diff {
        None => Ok(()),
        Some(i) => {
            let (mut x, mut y) = (String::new(), String::new());
            a.data.format_element(i, &mut x);
            b.data.format_element(i, &mut y);
            Err(format!(
                "element {i} (row-major) of {}: expected {x}, got {y}",
                a.shape.with_default_layout()
            ))
        }
    }
}

/// Index of the first element that differs (bitwise; NaN == NaN).
fn first_difference(a: &ArrayData, b: &ArrayData) -> Option<usize> {
    fn pos<T>(x: &[T], y: &[T], eq: impl Fn(&T, &T) -> bool) -> Option<usize> {
        if x.len() != y.len() {
            return Some(x.len().min(y.len()));
        }
        x.iter().zip(y).position(|(p, q)| !eq(p, q))
    }
    match (a, b) {
        (ArrayData::Pred(x), ArrayData::Pred(y)) => pos(x, y, |p, q| p == q),
        (ArrayData::S8(x), ArrayData::S8(y)) => pos(x, y, |p, q| p == q),
        (ArrayData::S16(x), ArrayData::S16(y)) => pos(x, y, |p, q| p == q),
        (ArrayData::S32(x), ArrayData::S32(y)) => pos(x, y, |p, q| p == q),
        (ArrayData::S64(x), ArrayData::S64(y)) => pos(x, y, |p, q| p == q),
        (ArrayData::U8(x), ArrayData::U8(y)) => pos(x, y, |p, q| p == q),
        (ArrayData::U16(x), ArrayData::U16(y)) => pos(x, y, |p, q| p == q),
        (ArrayData::U32(x), ArrayData::U32(y)) => pos(x, y, |p, q| p == q),
        (ArrayData::U64(x), ArrayData::U64(y)) => pos(x, y, |p, q| p == q),
        (ArrayData::F16(x), ArrayData::F16(y)) => pos(x, y, |p, q| {
            (p.is_nan() && q.is_nan()) || p.to_bits() == q.to_bits()
        }),
        (ArrayData::BF16(x), ArrayData::BF16(y)) => pos(x, y, |p, q| {
            (p.is_nan() && q.is_nan()) || p.to_bits() == q.to_bits()
        }),
        (ArrayData::F32(x), ArrayData::F32(y)) => pos(x, y, |p, q| {
            (p.is_nan() && q.is_nan()) || p.to_bits() == q.to_bits()
        }),
        (ArrayData::F64(x), ArrayData::F64(y)) => pos(x, y, |p, q| {
            (p.is_nan() && q.is_nan()) || p.to_bits() == q.to_bits()
        }),
        (ArrayData::C64(x), ArrayData::C64(y)) => pos(x, y, |p, q| {
            [(p.re, q.re), (p.im, q.im)]
                .iter()
                .all(|(a, b)| (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits())
        }),
        (ArrayData::C128(x), ArrayData::C128(y)) => pos(x, y, |p, q| {
            [(p.re, q.re), (p.im, q.im)]
                .iter()
                .all(|(a, b)| (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits())
        }),
        (ArrayData::Narrow(t, x), ArrayData::Narrow(u, y)) if t == u => {
            let f8 = rxla_ir::narrow::f8_format(*t);
            pos(x, y, |p, q| {
                p == q
                    || f8.is_some_and(|f| {
                        rxla_ir::narrow::f8_is_nan(f, *p) && rxla_ir::narrow::f8_is_nan(f, *q)
                    })
            })
        }
        (ArrayData::Token(_), ArrayData::Token(_)) => None,
        _ => Some(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_payloads_and_signed_zero() {
        let a = Literal::vec1(vec![f32::NAN, 0.0]);
        let b = Literal::vec1(vec![f32::from_bits(0x7fc0_0001), 0.0]);
        assert!(same_values(&a, &b).is_ok());
        let c = Literal::vec1(vec![f32::NAN, -0.0]);
        let e = same_values(&a, &c).unwrap_err();
        assert!(e.contains("element 1"), "{e}");
        let d = Literal::vec1(vec![1i32, 2]);
        assert!(same_values(&a, &d).is_err());
    }
}
