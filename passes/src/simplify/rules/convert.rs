//! Conversions: convert to the same type removed, convert∘convert → one
//! convert when the middle type holds every value of the source exactly
//! (and the pair is not int → float → int, where saturation differs from
//! wrapping), convert moved below a broadcast.

use super::{RuleDef, add, add_attr, at, get, sh};
use crate::simplify::lang::{Attr, Hlo};
use rxla_ir::ElementType;

/// Whether every value of `from` is exactly representable in `to`.
pub fn lossless(from: ElementType, to: ElementType) -> bool {
    use ElementType::*;
    if from == to {
        return true;
    }
    let bits = |t: ElementType| t.bit_width();
    // Significand precision of float types (bits incl. the implicit one).
    let prec = |t: ElementType| match t {
        F16 => 11,
        BF16 => 8,
        F32 => 24,
        F64 => 53,
        _ => 0,
    };
    match (from, to) {
        (Pred, t) => t != Token,
        (f, t) if f.is_signed_int() && t.is_signed_int() => bits(t) > bits(f),
        (f, t) if f.is_unsigned_int() && t.is_unsigned_int() => bits(t) > bits(f),
        (f, t) if f.is_unsigned_int() && t.is_signed_int() => bits(t) > bits(f),
        (f, t) if f.is_signed_int() && t.is_float() => prec(t) >= bits(f) - 1,
        (f, t) if f.is_unsigned_int() && t.is_float() => prec(t) >= bits(f),
        (F16, F32) | (F16, F64) | (BF16, F32) | (BF16, F64) | (F32, F64) => true,
        _ => false,
    }
}

fn ty(a: Option<Attr>) -> Option<ElementType> {
    match a? {
        Attr::Ty(t) => Some(t),
        _ => None,
    }
}

pub fn rules() -> Vec<RuleDef> {
    let f = "convert";
    vec![
        RuleDef::new("convert-noop", f, "(convert ?t ?x)", |eg, _, s| {
            (ty(at(eg, s, "?t"))? == sh(eg, s, "?x")?.ty).then(|| get(s, "?x"))?
        }),
        RuleDef::new(
            "convert-convert",
            f,
            "(convert ?t (convert ?u ?x))",
            |eg, _, s| {
                let t = ty(at(eg, s, "?t"))?;
                let u = ty(at(eg, s, "?u"))?;
                let x = sh(eg, s, "?x")?.ty;
                let int_like = |e: ElementType| e.is_integer();
                if !lossless(x, u) || (int_like(x) && u.is_float() && (int_like(t) || t.is_pred()))
                {
                    return None;
                }
                let a = add_attr(eg, Attr::Ty(t));
                add(eg, Hlo::Convert([a, get(s, "?x")?]))
            },
        ),
        RuleDef::new(
            "convert-below-broadcast",
            f,
            "(convert ?t (broadcast ?b ?x))",
            |eg, _, s| {
                let inner = add(eg, Hlo::Convert([get(s, "?t")?, get(s, "?x")?]))?;
                add(eg, Hlo::Broadcast([get(s, "?b")?, inner]))
            },
        ),
    ]
}
