//! UNSAFE for IEEE floats, only with `fast-math=true`: x*0 → 0 (wrong for
//! NaN, inf and the sign of zero), x-x → 0 (wrong for NaN and inf), x+0 →
//! x (wrong for x = -0). Results agree with the exact ones on finite
//! inputs up to the sign of zero; the rule tests check exactly that.

use super::identities::{Res, bin_splat};
use super::{K, RuleDef, sh, splat_of};

pub fn rules() -> Vec<RuleDef> {
    let f = "fast_math";
    vec![
        bin_splat("fm-mul-zero", f, "multiply", false, K::AnyFloatZero, Res::C),
        bin_splat("fm-add-zero", f, "add", false, K::AnyFloatZero, Res::X),
        RuleDef::new("fm-sub-self", f, "(subtract ?x ?x)", |eg, _, s| {
            let x = sh(eg, s, "?x")?;
            x.ty.is_float().then_some(())?;
            splat_of(eg, &x, 0)
        }),
    ]
}
