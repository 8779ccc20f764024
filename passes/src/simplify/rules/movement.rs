//! ReshapeMover-style movement: an elementwise binary op (or compare)
//! whose operands are reshapes (or transposes) of same-shaped values is
//! done before the reshape/transpose, and a unary op moves below a
//! broadcast (so it runs on the small operand).

use super::{RuleDef, add, get, sh};
use crate::simplify::lang::Hlo;
use rxla_ir::{BinaryOp, UnaryOp};

pub fn rules() -> Vec<RuleDef> {
    let f = "movement";
    let mut v = Vec::new();
    for b in BinaryOp::ALL {
        let op = b.name();
        v.push(RuleDef::new(
            format!("{op}-across-reshape"),
            f,
            format!("({op} (reshape ?d ?x) (reshape ?d ?y))"),
            move |eg, _, s| {
                if sh(eg, s, "?x")? != sh(eg, s, "?y")? {
                    return None;
                }
                let inner = add(eg, Hlo::binary(b, get(s, "?x")?, get(s, "?y")?))?;
                add(eg, Hlo::Reshape([get(s, "?d")?, inner]))
            },
        ));
        v.push(RuleDef::new(
            format!("{op}-across-transpose"),
            f,
            format!("({op} (transpose ?p ?x) (transpose ?p ?y))"),
            move |eg, _, s| {
                let inner = add(eg, Hlo::binary(b, get(s, "?x")?, get(s, "?y")?))?;
                add(eg, Hlo::Transpose([get(s, "?p")?, inner]))
            },
        ));
    }
    v.push(RuleDef::new(
        "compare-across-reshape",
        f,
        "(compare ?c (reshape ?d ?x) (reshape ?d ?y))",
        |eg, _, s| {
            if sh(eg, s, "?x")? != sh(eg, s, "?y")? {
                return None;
            }
            let inner = add(
                eg,
                Hlo::Compare([get(s, "?c")?, get(s, "?x")?, get(s, "?y")?]),
            )?;
            add(eg, Hlo::Reshape([get(s, "?d")?, inner]))
        },
    ));
    for u in [UnaryOp::Negate, UnaryOp::Abs, UnaryOp::Exp, UnaryOp::Not] {
        let op = u.name();
        v.push(RuleDef::new(
            format!("{op}-below-broadcast"),
            f,
            format!("({op} (broadcast ?b ?x))"),
            move |eg, _, s| {
                let inner = add(eg, Hlo::unary(u, get(s, "?x")?)?)?;
                add(eg, Hlo::Broadcast([get(s, "?b")?, inner]))
            },
        ));
    }
    v
}
