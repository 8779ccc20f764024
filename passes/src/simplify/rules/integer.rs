//! Integer-only annihilators (never for floats, where x*0 and x-x are not
//! 0 for NaN/inf and the sign of zero matters): x*0 → 0, x-x → 0,
//! x^x → 0, x%1 → 0, max/min with the type's extremes, compare(x, x) →
//! constant, x & !x → 0, x | !x → all ones, !(a < b) → a >= b (floats:
//! NaN compares false both ways).

use super::identities::{Res, bin_splat};
use super::{K, RuleDef, add, add_attr, at, get, is, sh, splat_of};
use crate::simplify::lang::{Attr, Hlo};

pub fn rules() -> Vec<RuleDef> {
    let f = "integer";
    vec![
        bin_splat("int-mul-zero-r", f, "multiply", false, K::IntZero, Res::C),
        bin_splat("int-mul-zero-l", f, "multiply", true, K::IntZero, Res::C),
        bin_splat(
            "int-max-highest-r",
            f,
            "maximum",
            false,
            K::IntHighest,
            Res::C,
        ),
        bin_splat(
            "int-min-lowest-r",
            f,
            "minimum",
            false,
            K::IntLowest,
            Res::C,
        ),
        RuleDef::new("int-sub-self", f, "(subtract ?x ?x)", |eg, _, s| {
            let x = sh(eg, s, "?x")?;
            x.ty.is_integer().then_some(())?;
            splat_of(eg, &x, 0)
        }),
        RuleDef::new("int-xor-self", f, "(xor ?x ?x)", |eg, _, s| {
            let x = sh(eg, s, "?x")?;
            splat_of(eg, &x, 0)
        }),
        RuleDef::new("int-compare-self", f, "(compare ?c ?x ?x)", |eg, m, s| {
            let x = sh(eg, s, "?x")?;
            (x.ty.is_integer() || x.ty.is_pred()).then_some(())?;
            let dir = match at(eg, s, "?c")? {
                Attr::Cmp { dir, .. } => dir,
                _ => return None,
            };
            use rxla_ir::ComparisonDirection::*;
            let v = matches!(dir, Eq | Ge | Le);
            let out = eg[m].data.shape.clone()?;
            splat_of(eg, &out, v as u64)
        }),
        RuleDef::new("and-not-self", f, "(and ?x (not ?x))", |eg, _, s| {
            let x = sh(eg, s, "?x")?;
            splat_of(eg, &x, 0)
        }),
        RuleDef::new("or-not-self", f, "(or ?x (not ?x))", |eg, _, s| {
            let x = sh(eg, s, "?x")?;
            let w = x.ty.bit_width();
            let ones = if x.ty.is_pred() {
                1
            } else if w >= 64 {
                u64::MAX
            } else {
                (1u64 << w) - 1
            };
            splat_of(eg, &x, ones)
        }),
        RuleDef::new(
            "int-not-compare",
            f,
            "(not (compare ?c ?a ?b))",
            |eg, _, s| {
                let a = sh(eg, s, "?a")?;
                (a.ty.is_integer() || a.ty.is_pred()).then_some(())?;
                let (dir, kind) = match at(eg, s, "?c")? {
                    Attr::Cmp { dir, kind } => (dir, kind),
                    _ => return None,
                };
                use rxla_ir::ComparisonDirection::*;
                let neg = match dir {
                    Eq => Ne,
                    Ne => Eq,
                    Lt => Ge,
                    Ge => Lt,
                    Gt => Le,
                    Le => Gt,
                };
                let c = add_attr(eg, Attr::Cmp { dir: neg, kind });
                add(eg, Hlo::Compare([c, get(s, "?a")?, get(s, "?b")?]))
            },
        ),
        RuleDef::new("int-rem-one", f, "(remainder ?x ?c)", |eg, _, s| {
            let x = sh(eg, s, "?x")?;
            (x.ty.is_integer() && is(eg, s, "?c", K::One)).then_some(())?;
            let _ = get(s, "?x")?;
            splat_of(eg, &x, 0)
        }),
    ]
}
