//! Identities: x+(-0), 0+x, x-(+0), x*1, x/1, x**1, and/or/xor with
//! all-ones/zero, x&x, x|x, copy, shifts by 0, x-(-y), x+(-y), x*(-1),
//! x/(-1). Float identities are only the IEEE-exact ones: x+(+0) is not
//! (−0 + +0 = +0), so only -0 is the additive identity of floats.

use super::{K, RuleDef, add, get, is, keep};
use crate::simplify::lang::Hlo;

/// What a "binary op with a splat operand" rule returns.
#[derive(Clone, Copy)]
pub(super) enum Res {
    /// The other operand.
    X,
    /// The splat operand itself.
    C,
    /// The negation of the other operand.
    NegX,
}

/// `op(x, c)` (or `op(c, x)` when `left`) with `c` a splat of kind `k`.
pub(super) fn bin_splat(
    name: &str,
    family: &'static str,
    op: &str,
    left: bool,
    k: K,
    res: Res,
) -> RuleDef {
    let lhs = if left {
        format!("({op} ?c ?x)")
    } else {
        format!("({op} ?x ?c)")
    };
    RuleDef::new(name, family, lhs, move |eg, _, s| {
        if !is(eg, s, "?c", k) {
            return None;
        }
        match res {
            Res::X => get(s, "?x"),
            Res::C => get(s, "?c"),
            Res::NegX => add(eg, Hlo::Negate([get(s, "?x")?])),
        }
    })
}

pub fn rules() -> Vec<RuleDef> {
    let f = "identities";
    let mut v = vec![
        bin_splat("add-neg-zero-r", f, "add", false, K::AddIdentity, Res::X),
        bin_splat("add-neg-zero-l", f, "add", true, K::AddIdentity, Res::X),
        bin_splat("sub-pos-zero", f, "subtract", false, K::SubIdentity, Res::X),
        bin_splat("mul-one-r", f, "multiply", false, K::One, Res::X),
        bin_splat("mul-one-l", f, "multiply", true, K::One, Res::X),
        bin_splat("div-one", f, "divide", false, K::One, Res::X),
        bin_splat("pow-one", f, "power", false, K::One, Res::X),
        bin_splat(
            "mul-minus-one-r",
            f,
            "multiply",
            false,
            K::MinusOne,
            Res::NegX,
        ),
        bin_splat("div-minus-one", f, "divide", false, K::MinusOne, Res::NegX),
        bin_splat("and-ones-r", f, "and", false, K::AllOnes, Res::X),
        bin_splat("and-ones-l", f, "and", true, K::AllOnes, Res::X),
        bin_splat("and-zero-r", f, "and", false, K::NoBits, Res::C),
        bin_splat("or-zero-r", f, "or", false, K::NoBits, Res::X),
        bin_splat("or-zero-l", f, "or", true, K::NoBits, Res::X),
        bin_splat("or-ones-r", f, "or", false, K::AllOnes, Res::C),
        bin_splat("xor-zero-r", f, "xor", false, K::NoBits, Res::X),
        bin_splat("shl-zero", f, "shift-left", false, K::IntZero, Res::X),
        bin_splat(
            "sra-zero",
            f,
            "shift-right-arithmetic",
            false,
            K::IntZero,
            Res::X,
        ),
        bin_splat(
            "srl-zero",
            f,
            "shift-right-logical",
            false,
            K::IntZero,
            Res::X,
        ),
        RuleDef::new("and-self", f, "(and ?x ?x)", keep("?x")),
        RuleDef::new("or-self", f, "(or ?x ?x)", keep("?x")),
        RuleDef::new("copy-elim", f, "(copy ?x)", keep("?x")),
        RuleDef::new("sub-neg", f, "(subtract ?x (negate ?y))", |eg, _, s| {
            add(eg, Hlo::Add([get(s, "?x")?, get(s, "?y")?]))
        }),
        RuleDef::new("add-neg-r", f, "(add ?x (negate ?y))", |eg, _, s| {
            add(eg, Hlo::Sub([get(s, "?x")?, get(s, "?y")?]))
        }),
        RuleDef::new("add-neg-l", f, "(add (negate ?y) ?x)", |eg, _, s| {
            add(eg, Hlo::Sub([get(s, "?x")?, get(s, "?y")?]))
        }),
    ];
    v.shrink_to_fit();
    v
}
