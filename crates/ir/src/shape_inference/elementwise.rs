//! Shape rules of elementwise ops: unary and binary arithmetic/bitwise ops
//! with their element-type constraints, compare, select, clamp, convert,
//! bitcast-convert and map. HLO has no implicit broadcasting: operands of
//! binary ops have equal dims (the builder inserts broadcasts); this file
//! must never broadcast implicitly.

use super::{array, ash, callee, comp_name, err, expect_count, make, need_declared, psh, sh};
use crate::element_type::ElementType;
use crate::error::Result;
use crate::module::Module;
use crate::ops::{BinaryOp, CompId, ComparisonDirection, ComparisonType, UnaryOp};
use crate::shape::{ArrayShape, Shape};

/// Unary elementwise op: same shape, or pred for is-finite.
pub(super) fn unary(ops: &[&Shape], u: UnaryOp) -> Result<Shape> {
    expect_count(ops, 1)?;
    let a = array(ops[0], "the operand")?;
    let t = a.element_type;
    if t.is_complex() {
        if !u.complex_ok() {
            return err(format!(
                "{} is not defined on complex operands, got {}",
                u.name(),
                ash(a)
            ));
        }
        // real, imag and abs give the component type; the rest keep it.
        let ty = match u {
            UnaryOp::Real | UnaryOp::Imag | UnaryOp::Abs => t.complex_component().unwrap_or(t),
            _ => t,
        };
        return make(ty, a.dims.clone());
    }
    if matches!(u, UnaryOp::Real | UnaryOp::Imag) && !t.is_float() {
        return err(format!(
            "expects a complex or floating-point operand, got {}",
            ash(a)
        ));
    }
    if u.float_only() && !t.is_float() {
        return err(format!("expects a floating-point operand, got {}", ash(a)));
    }
    if u.int_only() && !t.is_integer() {
        return err(format!("expects an integer operand, got {}", ash(a)));
    }
    match u {
        UnaryOp::Not if !(t.is_integer() || t.is_pred()) => {
            return err(format!("expects a pred or integer operand, got {}", ash(a)));
        }
        UnaryOp::Negate | UnaryOp::Abs | UnaryOp::Sign if t.is_pred() => {
            return err(format!("expects a numeric operand, got {}", ash(a)));
        }
        _ => {}
    }
    let ty = if u == UnaryOp::IsFinite {
        ElementType::Pred
    } else {
        t
    };
    make(ty, a.dims.clone())
}

/// reduce-precision: a float operand, same shape; at least one exponent
/// bit, mantissa bits ≥ 0.
pub(super) fn reduce_precision(
    ops: &[&Shape],
    exponent_bits: i64,
    mantissa_bits: i64,
) -> Result<Shape> {
    expect_count(ops, 1)?;
    let a = array(ops[0], "the operand")?;
    if !a.element_type.is_float() || a.element_type.is_f8() {
        return err(format!(
            "expects an f16, bf16, f32 or f64 operand, got {}",
            ash(a)
        ));
    }
    if exponent_bits < 1 || mantissa_bits < 0 {
        return err(format!(
            "needs exponent_bits >= 1 and mantissa_bits >= 0, got {exponent_bits} and {mantissa_bits}"
        ));
    }
    make(a.element_type, a.dims.clone())
}

/// Checks two array operands have equal dims and element types.
fn same_shape<'a>(ops: &[&'a Shape]) -> Result<(&'a ArrayShape, &'a ArrayShape)> {
    expect_count(ops, 2)?;
    let a = array(ops[0], "lhs")?;
    let b = array(ops[1], "rhs")?;
    if a.dims != b.dims {
        return err(format!(
            "operands have different shapes {} and {}",
            ash(a),
            ash(b)
        ));
    }
    if a.element_type != b.element_type {
        return err(format!(
            "operands have different element types {} and {}",
            ash(a),
            ash(b)
        ));
    }
    Ok((a, b))
}

/// Binary elementwise op.
pub(super) fn binary(ops: &[&Shape], b: BinaryOp) -> Result<Shape> {
    let (x, _) = same_shape(ops)?;
    let t = x.element_type;
    if b.is_bitwise() && !(t.is_pred() || t.is_integer()) {
        return err(format!("expects pred or integer operands, got {}", ash(x)));
    }
    if b.is_shift() && !t.is_integer() {
        return err(format!("expects integer operands, got {}", ash(x)));
    }
    let pred_ok = matches!(b, BinaryOp::Maximum | BinaryOp::Minimum);
    if b.is_arithmetic() && t.is_pred() && !pred_ok {
        return err(format!("expects numeric operands, got {}", ash(x)));
    }
    if b == BinaryOp::Atan2 && !t.is_float() {
        return err(format!("expects floating-point operands, got {}", ash(x)));
    }
    if t.is_complex() && !b.complex_ok() {
        return err(format!(
            "{} is not defined on complex operands, got {}",
            b.name(),
            ash(x)
        ));
    }
    make(t, x.dims.clone())
}

/// complex(re, im): two f32 (f64) arrays of equal dims give c64 (c128).
pub(super) fn complex(ops: &[&Shape]) -> Result<Shape> {
    let (x, _) = same_shape(ops)?;
    match x.element_type.complex_of() {
        Some(t) => make(t, x.dims.clone()),
        None => err(format!(
            "expects f32 or f64 operands (real and imaginary parts), got {}",
            ash(x)
        )),
    }
}

/// Compare: equal shapes and types, result pred.
pub(super) fn compare(
    ops: &[&Shape],
    direction: ComparisonDirection,
    kind: Option<ComparisonType>,
) -> Result<Shape> {
    let (x, _) = same_shape(ops)?;
    let t = x.element_type;
    if t.is_complex() {
        // Complex numbers are not ordered: only EQ and NE, compared by
        // value (FLOAT, the default).
        if !matches!(direction, ComparisonDirection::Eq | ComparisonDirection::Ne) {
            return err(format!(
                "direction={} is not defined on complex operands (only EQ and NE), got {}",
                direction.name(),
                ash(x)
            ));
        }
        if let Some(
            k @ (ComparisonType::TotalOrder | ComparisonType::Signed | ComparisonType::Unsigned),
        ) = kind
        {
            return err(format!(
                "comparison type {} is not defined on complex operands, got {}",
                k.name(),
                ash(x)
            ));
        }
        return make(ElementType::Pred, x.dims.clone());
    }
    match kind {
        Some(k @ (ComparisonType::Float | ComparisonType::TotalOrder)) if !t.is_float() => {
            return err(format!(
                "comparison type {} needs floating-point operands, got {}",
                k.name(),
                ash(x)
            ));
        }
        Some(k @ (ComparisonType::Signed | ComparisonType::Unsigned)) if t.is_float() => {
            return err(format!(
                "comparison type {} needs integer or pred operands, got {}",
                k.name(),
                ash(x)
            ));
        }
        _ => {}
    }
    make(ElementType::Pred, x.dims.clone())
}

/// Select(pred, on_true, on_false).
pub(super) fn select(ops: &[&Shape]) -> Result<Shape> {
    expect_count(ops, 3)?;
    let (p, t, f) = (ops[0], ops[1], ops[2]);
    if !t.compatible(f) {
        return err(format!(
            "on_true and on_false have different shapes {} and {}",
            sh(t),
            sh(f)
        ));
    }
    let pa = match p {
        Shape::Array(a) if a.element_type == ElementType::Pred => a,
        _ => return err(format!("the selector must be a pred array, got {}", sh(p))),
    };
    match t {
        Shape::Tuple(_) if !pa.is_scalar() => {
            return err(format!(
                "selecting tuples needs a scalar pred, got {}",
                ash(pa)
            ));
        }
        Shape::Array(a) if !pa.is_scalar() && pa.dims != a.dims => {
            return err(format!(
                "the selector {} must be a scalar or have the dims of the operands {}",
                ash(pa),
                ash(a)
            ));
        }
        Shape::Array(a) if a.element_type == ElementType::Token => {
            return err("cannot select tokens");
        }
        _ => {}
    }
    Ok(t.with_default_layouts())
}

/// Clamp(min, x, max): min and max scalar or same shape as x.
pub(super) fn clamp(ops: &[&Shape]) -> Result<Shape> {
    expect_count(ops, 3)?;
    let x = array(ops[1], "the operand")?;
    if x.element_type.is_complex() {
        return err(format!(
            "clamp is not defined on complex operands, got {}",
            ash(x)
        ));
    }
    for (s, what) in [(ops[0], "min"), (ops[2], "max")] {
        let b = array(s, what)?;
        if b.element_type != x.element_type {
            return err(format!(
                "{what} {} has a different element type from the operand {}",
                ash(b),
                ash(x)
            ));
        }
        if !b.is_scalar() && b.dims != x.dims {
            return err(format!(
                "{what} {} must be a scalar or have the operand's shape {}",
                ash(b),
                ash(x)
            ));
        }
    }
    make(x.element_type, x.dims.clone())
}

/// Convert: operand dims, declared element type.
pub(super) fn convert(ops: &[&Shape], declared: Option<&Shape>) -> Result<Shape> {
    expect_count(ops, 1)?;
    let a = array(ops[0], "the operand")?;
    let d = need_declared(declared)?;
    let t = array(d, "the result")?.element_type;
    if a.element_type.is_complex() && !t.is_complex() {
        return err(format!(
            "cannot convert complex {} to the real type {t} (use real, imag or abs)",
            ash(a)
        ));
    }
    if t.is_complex() && (a.element_type.is_token() || t.is_token()) {
        return err(format!("cannot convert {} to {t}", ash(a)));
    }
    make(t, a.dims.clone())
}

/// Bitcast-convert: the declared type; between widths a minor dim is added
/// (narrower result) or removed (wider result), like XLA.
pub(super) fn bitcast_convert(ops: &[&Shape], declared: Option<&Shape>) -> Result<Shape> {
    expect_count(ops, 1)?;
    let a = array(ops[0], "the operand")?;
    let d = need_declared(declared)?;
    let t = array(d, "the result")?.element_type;
    // Widths in bits (XLA's BitWidth): s4 is 4 bits wide although stored
    // in a byte, so s8[3] bitcast-converts to s4[3,2].
    let (wi, wo) = (a.element_type.bit_width(), t.bit_width());
    if wi == 0 || wo == 0 {
        return err(format!("cannot bitcast-convert {} to {t}", ash(a)));
    }
    if a.element_type.is_pred() != t.is_pred() {
        return err(format!(
            "cannot bitcast-convert between pred and another type ({} to {t})",
            ash(a)
        ));
    }
    if (a.element_type.is_complex() || t.is_complex()) && a.element_type != t {
        return err(format!(
            "cannot bitcast-convert between a complex and another type ({} to {t})",
            ash(a)
        ));
    }
    let mut dims = a.dims.clone();
    if wo < wi {
        dims.push((wi / wo) as i64);
    } else if wo > wi {
        let ratio = (wo / wi) as i64;
        if dims.last() != Some(&ratio) {
            return err(format!(
                "converting {} to the wider {t} needs a minor dimension of size {ratio}",
                ash(a)
            ));
        }
        dims.pop();
    }
    make(t, dims)
}

/// Map: operands with equal dims; the computation takes one scalar per
/// operand and returns a scalar; the result has the operands' dims.
pub(super) fn map(module: &Module, ops: &[&Shape], dimensions: &[i64], f: CompId) -> Result<Shape> {
    if ops.is_empty() {
        return err("expects at least one operand");
    }
    let arrays: Vec<&ArrayShape> = ops
        .iter()
        .enumerate()
        .map(|(i, s)| array(s, &format!("operand {i}")))
        .collect::<Result<_>>()?;
    let dims = &arrays[0].dims;
    for a in &arrays[1..] {
        if &a.dims != dims {
            return err(format!(
                "operands have different dims {} and {}",
                ash(arrays[0]),
                ash(a)
            ));
        }
    }
    let identity: Vec<i64> = (0..dims.len() as i64).collect();
    if !dimensions.is_empty() && dimensions != identity.as_slice() {
        return err(format!(
            "dimensions {dimensions:?} must be {identity:?} (maps apply to every dimension)"
        ));
    }
    let p = callee(module, f)?;
    let want: Vec<Shape> = arrays
        .iter()
        .map(|a| Shape::scalar(a.element_type))
        .collect();
    let params_ok = p.parameters.len() == want.len()
        && p.parameters.iter().zip(&want).all(|(x, y)| x.compatible(y));
    let result_ty = match &p.result {
        Shape::Array(r) if r.is_scalar() && r.element_type != ElementType::Token => {
            Some(r.element_type)
        }
        _ => None,
    };
    match result_ty {
        Some(t) if params_ok => make(t, dims.clone()),
        _ => {
            let ws: Vec<String> = want.iter().map(sh).collect();
            err(format!(
                "computation {} must take scalars ({}) and return a scalar, got {}",
                comp_name(module, f),
                ws.join(", "),
                psh(&p)
            ))
        }
    }
}
