//! Reductions: reduce of a transpose reduces the untransposed operand over
//! the permuted dimensions, and reduce of a reshape that only adds or
//! removes size-1 dims reduces the original (then reshapes the result).
//! Both keep the relative order of the reduced dims (the evaluator folds
//! in row-major order of the reduced dims, so floats stay bit-identical)
//! and of the kept dims.

use super::{RuleDef, add, add_attr, at, get, sh};
use crate::simplify::analysis::HloGraph;
use crate::simplify::lang::{Attr, Hlo};
use egg::Subst;

fn reduce_attr(eg: &HloGraph, s: &Subst) -> Option<(Vec<i64>, u32)> {
    match at(eg, s, "?r")? {
        Attr::Reduce { dims, comp } => Some((dims, comp)),
        _ => None,
    }
}

fn increasing(v: &[i64]) -> bool {
    v.windows(2).all(|w| w[0] < w[1])
}

pub fn rules() -> Vec<RuleDef> {
    let f = "reduce";
    vec![
        RuleDef::new(
            "reduce-of-transpose",
            f,
            "(reduce ?r (transpose ?p ?x) ?i)",
            |eg, _, s| {
                let (dims, comp) = reduce_attr(eg, s)?;
                let p = match at(eg, s, "?p")? {
                    Attr::Ints(p) => p,
                    _ => return None,
                };
                let mut sorted = dims.clone();
                sorted.sort();
                let reduced: Vec<i64> = sorted
                    .iter()
                    .map(|&d| p.get(d as usize).copied())
                    .collect::<Option<_>>()?;
                let kept: Vec<i64> = (0..p.len() as i64)
                    .filter(|d| !dims.contains(d))
                    .map(|d| p[d as usize])
                    .collect();
                if !increasing(&reduced) || !increasing(&kept) {
                    return None;
                }
                let a = add_attr(
                    eg,
                    Attr::Reduce {
                        dims: reduced,
                        comp,
                    },
                );
                add(eg, Hlo::Reduce([a, get(s, "?x")?, get(s, "?i")?]))
            },
        ),
        RuleDef::new(
            "reduce-of-degenerate-reshape",
            f,
            "(reduce ?r (reshape ?d ?x) ?i)",
            |eg, m, s| {
                let (dims, comp) = reduce_attr(eg, s)?;
                let x = sh(eg, s, "?x")?;
                let y = match at(eg, s, "?d")? {
                    Attr::Ints(d) => d,
                    _ => return None,
                };
                // Pair the non-1 dims of x and y in order; they must agree.
                let xs: Vec<usize> = (0..x.rank()).filter(|&i| x.dims[i] != 1).collect();
                let ys: Vec<usize> = (0..y.len()).filter(|&i| y[i] != 1).collect();
                if xs.len() != ys.len() || xs.iter().zip(&ys).any(|(&a, &b)| x.dims[a] != y[b]) {
                    return None;
                }
                let mut new_dims: Vec<i64> = (0..x.rank())
                    .filter(|&i| x.dims[i] == 1)
                    .map(|i| i as i64)
                    .collect();
                for (&a, &b) in xs.iter().zip(&ys) {
                    if dims.contains(&(b as i64)) {
                        new_dims.push(a as i64);
                    }
                }
                new_dims.sort();
                let out = eg[m].data.shape.clone()?.dims;
                let a = add_attr(
                    eg,
                    Attr::Reduce {
                        dims: new_dims,
                        comp,
                    },
                );
                let r = add(eg, Hlo::Reduce([a, get(s, "?x")?, get(s, "?i")?]))?;
                let d = add_attr(eg, Attr::Ints(out));
                add(eg, Hlo::Reshape([d, r]))
            },
        ),
    ]
}
