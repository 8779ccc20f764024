//! Broadcasts: broadcast∘broadcast merged, no-op broadcast removed, and
//! broadcasts sunk below transpose, slice and reverse (so a scalar
//! broadcast is moved through them and the data movement happens on the
//! small operand).

use super::{RuleDef, add, add_attr, at, get, is_identity, sh};
use crate::simplify::lang::{Attr, Hlo};

fn bcast(
    eg: &crate::simplify::analysis::HloGraph,
    s: &egg::Subst,
    v: &str,
) -> Option<(Vec<i64>, Vec<i64>)> {
    match at(eg, s, v)? {
        Attr::Bcast { out, map } => Some((out, map)),
        _ => None,
    }
}

pub fn rules() -> Vec<RuleDef> {
    let f = "broadcast";
    vec![
        RuleDef::new(
            "broadcast-broadcast",
            f,
            "(broadcast ?b (broadcast ?c ?x))",
            |eg, _, s| {
                let (out, outer) = bcast(eg, s, "?b")?;
                let (_, inner) = bcast(eg, s, "?c")?;
                let map: Vec<i64> = inner
                    .iter()
                    .map(|&d| outer.get(d as usize).copied())
                    .collect::<Option<_>>()?;
                let a = add_attr(eg, Attr::Bcast { out, map });
                add(eg, Hlo::Broadcast([a, get(s, "?x")?]))
            },
        ),
        RuleDef::new("broadcast-noop", f, "(broadcast ?b ?x)", |eg, _, s| {
            let (out, map) = bcast(eg, s, "?b")?;
            (out == sh(eg, s, "?x")?.dims && is_identity(&map)).then(|| get(s, "?x"))?
        }),
        RuleDef::new(
            "transpose-of-broadcast",
            f,
            "(transpose ?p (broadcast ?b ?x))",
            |eg, _, s| {
                let p = match at(eg, s, "?p")? {
                    Attr::Ints(p) => p,
                    _ => return None,
                };
                let (out, map) = bcast(eg, s, "?b")?;
                let mut inv = vec![0i64; p.len()];
                for (i, &d) in p.iter().enumerate() {
                    *inv.get_mut(d as usize)? = i as i64;
                }
                let new_map: Vec<i64> = map
                    .iter()
                    .map(|&m| inv.get(m as usize).copied())
                    .collect::<Option<_>>()?;
                if !new_map.windows(2).all(|w| w[0] < w[1]) {
                    return None;
                }
                let new_out: Vec<i64> = p
                    .iter()
                    .map(|&d| out.get(d as usize).copied())
                    .collect::<Option<_>>()?;
                let a = add_attr(
                    eg,
                    Attr::Bcast {
                        out: new_out,
                        map: new_map,
                    },
                );
                add(eg, Hlo::Broadcast([a, get(s, "?x")?]))
            },
        ),
        RuleDef::new(
            "slice-of-broadcast",
            f,
            "(slice ?s (broadcast ?b ?x))",
            |eg, m, s| {
                let (_, map) = bcast(eg, s, "?b")?;
                let (starts, limits, strides) = match at(eg, s, "?s")? {
                    Attr::Slice {
                        starts,
                        limits,
                        strides,
                    } => (starts, limits, strides),
                    _ => return None,
                };
                let out = eg[m].data.shape.clone()?.dims;
                let mut x = get(s, "?x")?;
                if !map.is_empty() {
                    let pick = |v: &[i64]| -> Option<Vec<i64>> {
                        map.iter().map(|&d| v.get(d as usize).copied()).collect()
                    };
                    let a = add_attr(
                        eg,
                        Attr::Slice {
                            starts: pick(&starts)?,
                            limits: pick(&limits)?,
                            strides: pick(&strides)?,
                        },
                    );
                    x = add(eg, Hlo::Slice([a, x]))?;
                }
                let a = add_attr(eg, Attr::Bcast { out, map });
                add(eg, Hlo::Broadcast([a, x]))
            },
        ),
        RuleDef::new(
            "reverse-of-broadcast",
            f,
            "(reverse ?d (broadcast ?b ?x))",
            |eg, _, s| {
                let d = match at(eg, s, "?d")? {
                    Attr::Ints(d) => d,
                    _ => return None,
                };
                let (out, map) = bcast(eg, s, "?b")?;
                let inner: Vec<i64> = map
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| d.contains(m))
                    .map(|(i, _)| i as i64)
                    .collect();
                let mut x = get(s, "?x")?;
                if !inner.is_empty() {
                    let a = add_attr(eg, Attr::Ints(inner));
                    x = add(eg, Hlo::Reverse([a, x]))?;
                }
                let a = add_attr(eg, Attr::Bcast { out, map });
                add(eg, Hlo::Broadcast([a, x]))
            },
        ),
    ]
}
