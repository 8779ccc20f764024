//! Selects: constant predicate picks a side, select(p, x, x) → x,
//! select(not p, a, b) → select(p, b, a).

use super::{K, RuleDef, add, get, is, keep};
use crate::simplify::lang::Hlo;

pub fn rules() -> Vec<RuleDef> {
    let f = "select";
    vec![
        RuleDef::new("select-true", f, "(select ?p ?t ?f)", |eg, _, s| {
            is(eg, s, "?p", K::AllOnes).then(|| get(s, "?t"))?
        }),
        RuleDef::new("select-false", f, "(select ?p ?t ?f)", |eg, _, s| {
            is(eg, s, "?p", K::NoBits).then(|| get(s, "?f"))?
        }),
        RuleDef::new("select-same", f, "(select ?p ?x ?x)", keep("?x")),
        RuleDef::new("select-not", f, "(select (not ?p) ?t ?f)", |eg, _, s| {
            add(
                eg,
                Hlo::Select([get(s, "?p")?, get(s, "?f")?, get(s, "?t")?]),
            )
        }),
    ]
}
