//! Reshapes: reshape∘reshape → one reshape (collapse chains), no-op
//! reshape removed, reshape of a scalar broadcast → broadcast.

use super::{RuleDef, add, add_attr, broadcast_scalar, get, ints, scalar_source, sh};
use crate::simplify::lang::{Attr, Hlo};

pub fn rules() -> Vec<RuleDef> {
    let f = "reshape";
    vec![
        RuleDef::new(
            "reshape-reshape",
            f,
            "(reshape ?d (reshape ?e ?x))",
            |eg, _, s| {
                let d = ints(eg, s, "?d")?;
                let x = get(s, "?x")?;
                let a = add_attr(eg, Attr::Ints(d));
                add(eg, Hlo::Reshape([a, x]))
            },
        ),
        RuleDef::new("reshape-noop", f, "(reshape ?d ?x)", |eg, _, s| {
            (ints(eg, s, "?d")? == sh(eg, s, "?x")?.dims).then(|| get(s, "?x"))?
        }),
        RuleDef::new(
            "reshape-of-scalar-broadcast",
            f,
            "(reshape ?d ?b)",
            |eg, _, s| {
                let d = ints(eg, s, "?d")?;
                let b = get(s, "?b")?;
                if sh(eg, s, "?b")?.dims.is_empty() {
                    return None;
                }
                let x = scalar_source(eg, b)?;
                broadcast_scalar(eg, x, d)
            },
        ),
    ]
}
