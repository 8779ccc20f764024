//! Slices, concatenates, reverses and pads: full slice removed,
//! slice∘slice → one slice, concatenate of two adjacent slices of the same
//! value → one slice, reverse∘reverse → reverse of the symmetric
//! difference, reverse of size-1 dims removed, a slice lying inside one operand of a concatenate → a slice of
//! that operand, concatenate of one operand removed, all-zero pad removed,
//! pad∘pad with the same padding value merged when the outer pad has no
//! interior padding and neither has negative edges, a slice that reads only
//! a pad's operand → a slice of the operand (the exact operand: removed),
//! concatenate of a concatenate along the same dimension flattened.

use super::{RuleDef, add, add_attr, at, get, sh};
use crate::simplify::analysis::HloGraph;
use crate::simplify::lang::{Attr, Hlo};
use egg::Subst;

type SliceAttr = (Vec<i64>, Vec<i64>, Vec<i64>);

fn slice_attr(eg: &HloGraph, s: &Subst, v: &str) -> Option<SliceAttr> {
    match at(eg, s, v)? {
        Attr::Slice {
            starts,
            limits,
            strides,
        } => Some((starts, limits, strides)),
        _ => None,
    }
}

fn pad_attr(eg: &HloGraph, s: &Subst, v: &str) -> Option<Vec<(i64, i64, i64)>> {
    match at(eg, s, v)? {
        Attr::Pad(p) => Some(p),
        _ => None,
    }
}

pub fn rules() -> Vec<RuleDef> {
    let f = "slice";
    vec![
        RuleDef::new("slice-noop", f, "(slice ?s ?x)", |eg, _, s| {
            let (st, li, sr) = slice_attr(eg, s, "?s")?;
            let x = sh(eg, s, "?x")?;
            let full = (0..x.rank()).all(|i| st[i] == 0 && li[i] == x.dims[i] && sr[i] == 1);
            full.then(|| get(s, "?x"))?
        }),
        RuleDef::new("slice-slice", f, "(slice ?s (slice ?t ?x))", |eg, m, s| {
            let (s1, _, r1) = slice_attr(eg, s, "?s")?;
            let (s2, _, r2) = slice_attr(eg, s, "?t")?;
            let out = eg[m].data.shape.clone()?.dims;
            let n = out.len();
            let mut starts = Vec::with_capacity(n);
            let mut limits = Vec::with_capacity(n);
            let mut strides = Vec::with_capacity(n);
            for i in 0..n {
                // Checked: strides of one-element slices can be huge.
                let start = s2[i].checked_add(s1[i].checked_mul(r2[i])?)?;
                let stride = if out[i] <= 1 {
                    1
                } else {
                    r1[i].checked_mul(r2[i])?
                };
                starts.push(start);
                limits.push(if out[i] == 0 {
                    start
                } else {
                    start.checked_add((out[i] - 1).checked_mul(stride)?)? + 1
                });
                strides.push(stride);
            }
            let a = add_attr(
                eg,
                Attr::Slice {
                    starts,
                    limits,
                    strides,
                },
            );
            add(eg, Hlo::Slice([a, get(s, "?x")?]))
        }),
        RuleDef::new("slice-of-concatenate", f, "(slice ?s ?c)", |eg, m, s| {
            let (st, li, sr) = slice_attr(eg, s, "?s")?;
            let out = eg[m].data.shape.clone()?.dims;
            let c = get(s, "?c")?;
            let (dim, ops) = eg[c].nodes.iter().find_map(|n| match n {
                Hlo::Concatenate(ids) if ids.len() > 2 => match super::attr_of(eg, ids[0]) {
                    Some(Attr::Ints(d)) if d.len() == 1 => Some((d[0] as usize, ids[1..].to_vec())),
                    _ => None,
                },
                _ => None,
            })?;
            if *out.get(dim)? == 0 {
                return None;
            }
            let first = st[dim];
            let last = st[dim] + (out[dim] - 1) * sr[dim];
            let mut off = 0;
            for x in ops {
                let len = *eg[x].data.shape.as_ref()?.dims.get(dim)?;
                if first >= off && last < off + len {
                    let mut starts = st.clone();
                    let mut limits = li.clone();
                    starts[dim] -= off;
                    limits[dim] = last - off + 1;
                    let a = add_attr(
                        eg,
                        Attr::Slice {
                            starts,
                            limits,
                            strides: sr.clone(),
                        },
                    );
                    return add(eg, Hlo::Slice([a, x]));
                }
                off += len;
            }
            None
        }),
        RuleDef::new("concatenate-single", f, "(concatenate ?d ?x)", keep_x),
        RuleDef::new(
            "concatenate-adjacent-slices",
            f,
            "(concatenate ?d (slice ?s ?x) (slice ?t ?x))",
            |eg, _, s| {
                let dim = match at(eg, s, "?d")? {
                    Attr::Ints(d) if d.len() == 1 => usize::try_from(d[0]).ok()?,
                    _ => return None,
                };
                let (s1, l1, r1) = slice_attr(eg, s, "?s")?;
                let (s2, l2, r2) = slice_attr(eg, s, "?t")?;
                // Same window on every other dim, stride 1 and touching
                // on the concatenated one.
                let n = s1.len();
                for i in 0..n {
                    if i != dim && (s1[i] != s2[i] || l1[i] != l2[i] || r1[i] != r2[i]) {
                        return None;
                    }
                }
                if *r1.get(dim)? != 1 || r2[dim] != 1 || l1[dim] != s2[dim] {
                    return None;
                }
                let mut limits = l1.clone();
                limits[dim] = l2[dim];
                let a = add_attr(
                    eg,
                    Attr::Slice {
                        starts: s1,
                        limits,
                        strides: r1,
                    },
                );
                add(eg, Hlo::Slice([a, get(s, "?x")?]))
            },
        ),
        RuleDef::new(
            "reverse-reverse",
            f,
            "(reverse ?d (reverse ?e ?x))",
            |eg, _, s| {
                let (d, e) = match (at(eg, s, "?d")?, at(eg, s, "?e")?) {
                    (Attr::Ints(d), Attr::Ints(e)) => (d, e),
                    _ => return None,
                };
                let mut sym: Vec<i64> = d
                    .iter()
                    .filter(|x| !e.contains(x))
                    .chain(e.iter().filter(|x| !d.contains(x)))
                    .copied()
                    .collect();
                sym.sort();
                sym.dedup();
                let x = get(s, "?x")?;
                if sym.is_empty() {
                    return Some(x);
                }
                let a = add_attr(eg, Attr::Ints(sym));
                add(eg, Hlo::Reverse([a, x]))
            },
        ),
        RuleDef::new("reverse-noop", f, "(reverse ?d ?x)", |eg, _, s| {
            let d = match at(eg, s, "?d")? {
                Attr::Ints(d) => d,
                _ => return None,
            };
            let x = sh(eg, s, "?x")?;
            d.iter()
                .all(|&i| {
                    usize::try_from(i)
                        .ok()
                        .and_then(|i| x.dims.get(i))
                        .is_some_and(|&n| n <= 1)
                })
                .then(|| get(s, "?x"))?
        }),
        RuleDef::new("pad-noop", f, "(pad ?c ?x ?v)", |eg, _, s| {
            pad_attr(eg, s, "?c")?
                .iter()
                .all(|&p| p == (0, 0, 0))
                .then(|| get(s, "?x"))?
        }),
        RuleDef::new(
            "slice-of-pad",
            f,
            "(slice ?s (pad ?c ?x ?v))",
            |eg, m, s| {
                let (st, _, sr) = slice_attr(eg, s, "?s")?;
                let cfg = pad_attr(eg, s, "?c")?;
                let x = sh(eg, s, "?x")?;
                let out = eg[m].data.shape.clone()?.dims;
                let n = out.len();
                if cfg.len() != n || x.rank() != n || st.len() != n || sr.len() != n {
                    return None;
                }
                let (mut starts, mut limits, mut strides) = (vec![], vec![], vec![]);
                for i in 0..n {
                    let (lo, _, interior) = cfg[i];
                    if out[i] == 0 {
                        return None;
                    }
                    // Operand element k sits at lo + k·(interior + 1): every
                    // selected position st + t·sr must be one of those.
                    let step = interior.checked_add(1)?;
                    let first = st[i].checked_sub(lo)?;
                    let stride = if out[i] == 1 { step } else { sr[i] };
                    if first < 0 || first % step != 0 || stride % step != 0 {
                        return None;
                    }
                    let (k0, kr) = (first / step, stride / step);
                    let last = k0.checked_add((out[i] - 1).checked_mul(kr)?)?;
                    if last >= x.dims[i] {
                        return None;
                    }
                    starts.push(k0);
                    limits.push(last + 1);
                    strides.push(if out[i] == 1 { 1 } else { kr });
                }
                let xid = get(s, "?x")?;
                let whole =
                    (0..n).all(|i| starts[i] == 0 && limits[i] == x.dims[i] && strides[i] == 1);
                if whole {
                    return Some(xid);
                }
                let a = add_attr(
                    eg,
                    Attr::Slice {
                        starts,
                        limits,
                        strides,
                    },
                );
                add(eg, Hlo::Slice([a, xid]))
            },
        ),
        RuleDef::new(
            "concatenate-flatten",
            f,
            "(concatenate ?d ?a ?b)",
            flatten_concatenate,
        ),
        RuleDef::new(
            "concatenate-flatten-3",
            f,
            "(concatenate ?d ?a ?b ?c)",
            flatten_concatenate,
        ),
        RuleDef::new("pad-pad", f, "(pad ?c (pad ?e ?x ?v) ?v)", |eg, _, s| {
            let outer = pad_attr(eg, s, "?c")?;
            let inner = pad_attr(eg, s, "?e")?;
            if outer.len() != inner.len() {
                return None;
            }
            let mut cfg = Vec::with_capacity(outer.len());
            for (&(l1, h1, i1), &(l2, h2, i2)) in outer.iter().zip(&inner) {
                if i1 != 0 || l1 < 0 || h1 < 0 || l2 < 0 || h2 < 0 {
                    return None;
                }
                cfg.push((l1 + l2, h1 + h2, i2));
            }
            let a = add_attr(eg, Attr::Pad(cfg));
            add(eg, Hlo::Pad([a, get(s, "?x")?, get(s, "?v")?]))
        }),
    ]
}

fn keep_x(_: &mut HloGraph, _: egg::Id, s: &Subst) -> Option<egg::Id> {
    get(s, "?x")
}

/// `concatenate(…, concatenate(…), …)` along one dimension → one
/// concatenate of all the leaves (operands `?a`, `?b` and maybe `?c`).
fn flatten_concatenate(eg: &mut HloGraph, _: egg::Id, s: &Subst) -> Option<egg::Id> {
    let dim = match at(eg, s, "?d")? {
        Attr::Ints(d) if d.len() == 1 => d[0],
        _ => return None,
    };
    let ops: Vec<egg::Id> = ["?a", "?b", "?c"]
        .iter()
        .filter_map(|v| get(s, v))
        .collect();
    let mut leaves = Vec::new();
    let mut flattened = false;
    for x in ops {
        let inner = eg[x].nodes.iter().find_map(|n| match n {
            Hlo::Concatenate(ids) if ids.len() >= 2 => match super::attr_of(eg, ids[0]) {
                Some(Attr::Ints(d)) if d.len() == 1 && d[0] == dim => Some(ids[1..].to_vec()),
                _ => None,
            },
            _ => None,
        });
        match inner {
            Some(ids) => {
                flattened = true;
                leaves.extend(ids);
            }
            None => leaves.push(x),
        }
    }
    if !flattened {
        return None;
    }
    let a = add_attr(eg, Attr::Ints(vec![dim]));
    let mut ids = vec![a];
    ids.extend(leaves);
    add(eg, Hlo::Concatenate(ids.into_boxed_slice()))
}
