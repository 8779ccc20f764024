//! Maximum and minimum: with the lowest/highest value of the type (±inf
//! for floats: exact under the evaluator's NaN-propagating max/min, see
//! crates/eval/src/elementwise.rs), and max(x, x) / min(x, x).

use super::identities::{Res, bin_splat};
use super::{K, RuleDef, keep};

pub fn rules() -> Vec<RuleDef> {
    let f = "minmax";
    vec![
        bin_splat("max-lowest-r", f, "maximum", false, K::Lowest, Res::X),
        bin_splat("max-lowest-l", f, "maximum", true, K::Lowest, Res::X),
        bin_splat("min-highest-r", f, "minimum", false, K::Highest, Res::X),
        bin_splat("min-highest-l", f, "minimum", true, K::Highest, Res::X),
        RuleDef::new("max-self", f, "(maximum ?x ?x)", keep("?x")),
        RuleDef::new("min-self", f, "(minimum ?x ?x)", keep("?x")),
    ]
}
