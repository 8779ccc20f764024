//! Involutions and idempotent unary ops: neg∘neg, not∘not, abs∘neg,
//! f∘f → f for abs, sign, floor, ceil and both roundings.

use super::{RuleDef, add, get, keep};
use crate::simplify::lang::Hlo;
use rxla_ir::UnaryOp;

pub fn rules() -> Vec<RuleDef> {
    let f = "involutions";
    let mut v = vec![
        RuleDef::new("neg-neg", f, "(negate (negate ?x))", keep("?x")),
        RuleDef::new("not-not", f, "(not (not ?x))", keep("?x")),
        RuleDef::new("abs-neg", f, "(abs (negate ?x))", |eg, _, s| {
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
            move |eg, _, s| add(eg, Hlo::unary(u, get(s, "?x")?)),
        ));
    }
    v
}
