//! Tuples: `get-tuple-element(tuple(x0, ..., xn), i)` → `xi`, so the
//! other rules see values through the tuples that carry them (a loop
//! body's root, a call's operands). Tuples built from the elements of
//! another tuple are left to the `tuple-simplify` pass.

use super::{RuleDef, get, ints};
use crate::simplify::lang::Hlo;

pub fn rules() -> Vec<RuleDef> {
    let f = "tuple";
    vec![RuleDef::new(
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
    )]
}
