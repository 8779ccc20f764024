//! Integer-only annihilators (never for floats, where x*0 and x-x are not
//! 0 for NaN/inf and the sign of zero matters): x*0 → 0, x-x → 0,
//! x^x → 0, x%1 → 0 and max/min with the type's extremes.

use super::identities::{Res, bin_splat};
use super::{K, RuleDef, get, is, sh, splat_of};

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
        RuleDef::new("int-rem-one", f, "(remainder ?x ?c)", |eg, _, s| {
            let x = sh(eg, s, "?x")?;
            (x.ty.is_integer() && is(eg, s, "?c", K::One)).then_some(())?;
            let _ = get(s, "?x")?;
            splat_of(eg, &x, 0)
        }),
    ]
}
