//! TransposeFolding: a dot whose operand is a transpose reads the
//! untransposed operand with remapped dimension numbers (when the free
//! dimensions keep their order, so the result layout is unchanged), and
//! transpose(dot(a, b)) that only swaps the two free blocks → dot(b, a).

use super::{RuleDef, add, add_attr, at, get, sh};
use crate::simplify::analysis::HloGraph;
use crate::simplify::lang::{Attr, Hlo};
use egg::Subst;

type DotAttr = (Vec<i64>, Vec<i64>, Vec<i64>, Vec<i64>);

fn dot_attr(eg: &HloGraph, s: &Subst) -> Option<DotAttr> {
    match at(eg, s, "?d")? {
        Attr::Dot { lb, lc, rb, rc } => Some((lb, lc, rb, rc)),
        _ => None,
    }
}

/// Maps an operand's batch/contracting dims through permutation `p`;
/// `None` if its free dims would change order.
fn fold(p: &[i64], batch: &[i64], contract: &[i64]) -> Option<(Vec<i64>, Vec<i64>)> {
    let map =
        |v: &[i64]| -> Option<Vec<i64>> { v.iter().map(|&d| p.get(d as usize).copied()).collect() };
    let free: Vec<i64> = (0..p.len() as i64)
        .filter(|d| !batch.contains(d) && !contract.contains(d))
        .map(|d| p[d as usize])
        .collect();
    free.windows(2).all(|w| w[0] < w[1]).then_some(())?;
    Some((map(batch)?, map(contract)?))
}

fn perm(eg: &HloGraph, s: &Subst) -> Option<Vec<i64>> {
    match at(eg, s, "?p")? {
        Attr::Ints(p) => Some(p),
        _ => None,
    }
}

pub fn rules() -> Vec<RuleDef> {
    let f = "dot";
    vec![
        RuleDef::new(
            "dot-fold-lhs-transpose",
            f,
            "(dot ?d (transpose ?p ?a) ?b)",
            |eg, _, s| {
                let (lb, lc, rb, rc) = dot_attr(eg, s)?;
                let (lb, lc) = fold(&perm(eg, s)?, &lb, &lc)?;
                let a = add_attr(eg, Attr::Dot { lb, lc, rb, rc });
                add(eg, Hlo::Dot([a, get(s, "?a")?, get(s, "?b")?]))
            },
        ),
        RuleDef::new(
            "dot-fold-rhs-transpose",
            f,
            "(dot ?d ?a (transpose ?p ?b))",
            |eg, _, s| {
                let (lb, lc, rb, rc) = dot_attr(eg, s)?;
                let (rb, rc) = fold(&perm(eg, s)?, &rb, &rc)?;
                let a = add_attr(eg, Attr::Dot { lb, lc, rb, rc });
                add(eg, Hlo::Dot([a, get(s, "?a")?, get(s, "?b")?]))
            },
        ),
        RuleDef::new(
            "transpose-of-dot",
            f,
            "(transpose ?p (dot ?d ?a ?b))",
            |eg, _, s| {
                let (lb, lc, rb, rc) = dot_attr(eg, s)?;
                let p = perm(eg, s)?;
                let nb = lb.len() as i64;
                let na = sh(eg, s, "?a")?.rank() as i64 - nb - lc.len() as i64;
                let nr = sh(eg, s, "?b")?.rank() as i64 - nb - rc.len() as i64;
                // dot(b, a) = batch, b-free, a-free.
                let want: Vec<i64> = (0..nb)
                    .chain(nb + na..nb + na + nr)
                    .chain(nb..nb + na)
                    .collect();
                if p != want {
                    return None;
                }
                let a = add_attr(
                    eg,
                    Attr::Dot {
                        lb: rb,
                        lc: rc,
                        rb: lb,
                        rc: lc,
                    },
                );
                add(eg, Hlo::Dot([a, get(s, "?b")?, get(s, "?a")?]))
            },
        ),
    ]
}
