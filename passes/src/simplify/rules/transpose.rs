//! Transposes: identity transpose removed, transpose∘transpose → one
//! transpose with the composed permutation, a transpose that moves only
//! size-1 dimensions → reshape (it is a bitcast).

use super::{RuleDef, add, add_attr, get, ints, is_identity, sh};
use crate::simplify::lang::{Attr, Hlo};

pub fn rules() -> Vec<RuleDef> {
    let f = "transpose";
    vec![
        RuleDef::new("transpose-identity", f, "(transpose ?p ?x)", |eg, _, s| {
            is_identity(&ints(eg, s, "?p")?).then(|| get(s, "?x"))?
        }),
        RuleDef::new(
            "transpose-transpose",
            f,
            "(transpose ?p (transpose ?q ?x))",
            |eg, _, s| {
                let (p, q) = (ints(eg, s, "?p")?, ints(eg, s, "?q")?);
                let r: Vec<i64> = p
                    .iter()
                    .map(|&i| q.get(i as usize).copied())
                    .collect::<Option<_>>()?;
                let x = get(s, "?x")?;
                if is_identity(&r) {
                    return Some(x);
                }
                let a = add_attr(eg, Attr::Ints(r));
                add(eg, Hlo::Transpose([a, x]))
            },
        ),
        RuleDef::new(
            "transpose-is-reshape",
            f,
            "(transpose ?p ?x)",
            |eg, _, s| {
                let p = ints(eg, s, "?p")?;
                let x = sh(eg, s, "?x")?;
                if is_identity(&p) {
                    return None;
                }
                // The non-degenerate dims must keep their relative order.
                let moved: Vec<i64> = p
                    .iter()
                    .copied()
                    .filter(|&d| x.dims.get(d as usize).is_some_and(|&n| n != 1))
                    .collect();
                if !moved.windows(2).all(|w| w[0] < w[1]) {
                    return None;
                }
                let out: Vec<i64> = p.iter().map(|&d| x.dims[d as usize]).collect();
                let a = add_attr(eg, Attr::Ints(out));
                add(eg, Hlo::Reshape([a, get(s, "?x")?]))
            },
        ),
    ]
}
