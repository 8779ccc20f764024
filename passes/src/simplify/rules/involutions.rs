//! Involutions and idempotent unary ops: neg∘neg, not∘not, abs∘neg (not
//! unsigned),
//! f∘f → f for abs, sign, floor, ceil and both roundings.

use super::{RuleDef, add, get, keep, sh};
use crate::simplify::lang::Hlo;
use rxla_ir::UnaryOp;

pub fn rules() -> Vec<RuleDef> {
    let f = "involutions";
    let mut v = vec![
        RuleDef::new("neg-neg", f, "(negate (negate ?x))", keep("?x")),
        RuleDef::new("not-not", f, "(not (not ?x))", keep("?x")),
        // Not for unsigned types, where abs is the identity.
        RuleDef::new("abs-neg", f, "(abs (negate ?x))", |eg, _, s| {
            sh(eg, s, "?x").filter(|x| !x.ty.is_unsigned_int())?;
            add(eg, Hlo::Abs([get(s, "?x")?]))
        }),
    ];
    for u in [
        UnaryOp::Abs,
        UnaryOp::Sign,
        UnaryOp::Floor,
        UnaryOp::Ceil,
        UnaryOp::RoundNearestAfz,
        UnaryOp::RoundNearestEven,
    ] {
        let op = u.name();
        v.push(RuleDef::new(
            format!("{op}-idempotent"),
            f,
            format!("({op} ({op} ?x))"),
            move |eg, _, s| add(eg, Hlo::unary(u, get(s, "?x")?)?),
        ));
    }
    v
}
