//! Tuples: `get-tuple-element(tuple(x0, ..., xn), i)` → `xi`, so the
//! other rules see values through the tuples that carry them (a loop
//! body's root, a call's operands); `tuple(gte(t, 0), ..., gte(t, n-1))`
//! → `t` when `t` has exactly n elements (any arity: [`ANY_TUPLE`]).
//! Values are logical here: `raise` gives a tuple the element layouts its
//! user wants.

use super::{ANY_TUPLE, RuleDef, get, ints};
use crate::simplify::analysis::{HloGraph, attr_of};
use crate::simplify::lang::{Attr, Hlo};
use egg::Id;

/// The tuples `t` of which class `c` holds `get-tuple-element(t, k)`.
fn gte_sources(eg: &HloGraph, c: Id, k: usize) -> Vec<Id> {
    eg[c]
        .nodes
        .iter()
        .filter_map(|n| match n {
            Hlo::Gte([i, t]) => match attr_of(eg, *i) {
                Some(Attr::Ints(v)) if v.len() == 1 && usize::try_from(v[0]) == Ok(k) => {
                    Some(eg.find(*t))
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The `t` that a tuple node in class `c` rebuilds element by element.
fn rebuilt(eg: &HloGraph, c: Id) -> Option<Id> {
    eg[c].nodes.iter().find_map(|n| {
        let Hlo::Tuple(xs) = n else {
            return None;
        };
        let first = xs.first()?;
        gte_sources(eg, *first, 0).into_iter().find(|&t| {
            eg[t]
                .data
                .tuple
                .as_ref()
                .is_some_and(|e| e.len() == xs.len())
                && xs
                    .iter()
                    .enumerate()
                    .all(|(k, x)| gte_sources(eg, *x, k).contains(&t))
        })
    })
}

pub fn rules() -> Vec<RuleDef> {
    let f = "tuple";
    vec![
        RuleDef::new("tuple-of-gtes", f, ANY_TUPLE, |eg, c, _| rebuilt(eg, c)),
        RuleDef::new(
            "gte-of-tuple",
            f,
            "(get-tuple-element ?i ?t)",
            |eg, _, s| {
                let i = usize::try_from(*ints(eg, s, "?i")?.first()?).ok()?;
                let t = get(s, "?t")?;
                eg[t].nodes.iter().find_map(|n| match n {
                    Hlo::Tuple(xs) => xs.get(i).copied(),
                    _ => None,
                })
            },
        ),
    ]
}
