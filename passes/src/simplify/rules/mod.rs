//! The rewrite rules of `simplify`, as data: each [`RuleDef`] has a name,
//! a family, a left-hand pattern (or [`ANY_TUPLE`], any tuple node) and an
//! applier that builds the right-hand side from the match (or declines
//! when a side condition fails). One
//! module per family. Every rule here is IEEE-exact (bit-identical results
//! up to NaN payloads) except the `fast_math` family, which is only
//! included on request. The shared helpers below read shapes, attributes
//! and splat constants from the analysis and add nodes.
//!
//! Every rule must have a generator in `passes/tests/simplify_rules.rs`
//! (the test fails for a rule without one).

use crate::simplify::analysis::{
    HloAnalysis, HloGraph, Sh, attr_of, node_ty, shape_of, splat_f64, splat_i128,
};
use crate::simplify::lang::{Attr, ConstVal, Hlo};
use egg::{
    Applier, Id, Language, Pattern, PatternAst, Rewrite, SearchMatches, Searcher, Subst, Symbol,
    Var,
};
use rxla_ir::ElementType;
use std::sync::Arc;

mod broadcast;
mod convert;
mod dot;
mod fast_math;
mod identities;
mod integer;
mod involutions;
mod minmax;
mod movement;
mod reduce;
mod reshape;
mod select;
mod slice;
mod transpose;
mod tuple;

/// Builds the right-hand side for a match (the matched class and the
/// substitution); `None` declines.
pub type ApplyFn = Arc<dyn Fn(&mut HloGraph, Id, &Subst) -> Option<Id> + Send + Sync>;

/// One rule.
#[derive(Clone)]
pub struct RuleDef {
    pub name: String,
    pub family: &'static str,
    pub lhs: String,
    pub apply: ApplyFn,
}

impl RuleDef {
    pub fn new(
        name: impl Into<String>,
        family: &'static str,
        lhs: impl Into<String>,
        apply: impl Fn(&mut HloGraph, Id, &Subst) -> Option<Id> + Send + Sync + 'static,
    ) -> RuleDef {
        RuleDef {
            name: name.into(),
            family,
            lhs: lhs.into(),
            apply: Arc::new(apply),
        }
    }
}

/// Every rule; the `fast_math` family only when asked.
pub fn all_rules(fast_math: bool) -> Vec<RuleDef> {
    let mut v = Vec::new();
    v.extend(identities::rules());
    v.extend(involutions::rules());
    v.extend(transpose::rules());
    v.extend(reshape::rules());
    v.extend(broadcast::rules());
    v.extend(movement::rules());
    v.extend(slice::rules());
    v.extend(dot::rules());
    v.extend(reduce::rules());
    v.extend(convert::rules());
    v.extend(select::rules());
    v.extend(minmax::rules());
    v.extend(integer::rules());
    v.extend(tuple::rules());
    if fast_math {
        v.extend(fast_math::rules());
    }
    v
}

/// The left-hand side that matches every class holding a `tuple` node,
/// whatever its arity (egg patterns have a fixed arity).
pub const ANY_TUPLE: &str = "(tuple ...)";

/// The searcher of [`ANY_TUPLE`]: one empty substitution per class with a
/// tuple node.
struct AnyTuple;

impl Searcher<Hlo, HloAnalysis> for AnyTuple {
    fn search_eclass_with_limit(
        &self,
        eg: &HloGraph,
        eclass: Id,
        limit: usize,
    ) -> Option<SearchMatches<'_, Hlo>> {
        (limit > 0 && eg[eclass].nodes.iter().any(|n| matches!(n, Hlo::Tuple(_)))).then(|| {
            SearchMatches {
                eclass,
                substs: vec![Subst::default()],
                ast: None,
            }
        })
    }

    /// Only the classes holding a tuple node (egg's op index), not all.
    fn search_with_limit(&self, eg: &HloGraph, limit: usize) -> Vec<SearchMatches<'_, Hlo>> {
        let key = Hlo::Tuple(Box::new([])).discriminant();
        let mut out = Vec::new();
        let mut left = limit;
        for id in eg.classes_for_op(&key).into_iter().flatten() {
            if left == 0 {
                break;
            }
            if let Some(m) = self.search_eclass_with_limit(eg, id, left) {
                left = left.saturating_sub(m.substs.len());
                out.push(m);
            }
        }
        out
    }

    fn vars(&self) -> Vec<Var> {
        Vec::new()
    }
}

/// The egg rewrites of `defs`.
pub fn build(defs: &[RuleDef]) -> Result<Vec<Rewrite<Hlo, HloAnalysis>>, String> {
    defs.iter()
        .map(|d| {
            let applier = FnApplier {
                apply: d.apply.clone(),
            };
            if d.lhs == ANY_TUPLE {
                return Rewrite::new(d.name.as_str(), AnyTuple, applier)
                    .map_err(|e| format!("rule {}: {e}", d.name));
            }
            let lhs: Pattern<Hlo> = d
                .lhs
                .parse()
                .map_err(|e| format!("rule {}: bad pattern `{}`: {e:?}", d.name, d.lhs))?;
            Rewrite::new(d.name.as_str(), lhs, applier).map_err(|e| format!("rule {}: {e}", d.name))
        })
        .collect()
}

struct FnApplier {
    apply: ApplyFn,
}

impl Applier<Hlo, HloAnalysis> for FnApplier {
    fn apply_one(
        &self,
        eg: &mut HloGraph,
        eclass: Id,
        subst: &Subst,
        _ast: Option<&PatternAst<Hlo>>,
        rule: Symbol,
    ) -> Vec<Id> {
        let Some(new) = (self.apply)(eg, eclass, subst) else {
            return vec![];
        };
        // A rule never merges values of different shapes; refuse (and
        // record) rather than corrupt the graph.
        let (a, b) = (&eg[new].data, &eg[eclass].data);
        if a.shape != b.shape || a.tuple != b.tuple || (a.shape.is_none() && a.tuple.is_none()) {
            if eg.analysis.error.is_none() {
                eg.analysis.error = Some(format!(
                    "rule {rule} built {:?}/{:?} for a class of shape {:?}/{:?}",
                    a.shape, a.tuple, b.shape, b.tuple
                ));
            }
            return vec![];
        }
        if eg.union_trusted(eclass, new, rule) {
            vec![new]
        } else {
            vec![]
        }
    }
}

// ------------------------------------------------------------ helpers

/// A pattern variable.
pub fn var(name: &str) -> Var {
    name.parse().unwrap_or(Var::from(u32::MAX))
}

/// The class bound to `name`.
pub fn get(s: &Subst, name: &str) -> Option<Id> {
    s.get(var(name)).copied()
}

/// The shape of the class bound to `name`.
pub fn sh(eg: &HloGraph, s: &Subst, name: &str) -> Option<Sh> {
    shape_of(eg, get(s, name)?).cloned()
}

/// The attribute bound to `name`.
pub fn at(eg: &HloGraph, s: &Subst, name: &str) -> Option<Attr> {
    attr_of(eg, get(s, name)?).cloned()
}

/// The integer list attribute bound to `name`.
pub fn ints(eg: &HloGraph, s: &Subst, name: &str) -> Option<Vec<i64>> {
    match at(eg, s, name)? {
        Attr::Ints(v) => Some(v),
        _ => None,
    }
}

/// Adds an attribute leaf.
pub fn add_attr(eg: &mut HloGraph, a: Attr) -> Id {
    eg.add(Hlo::Attr(a))
}

/// Adds a node after checking it is well-formed (its type computes).
pub fn add(eg: &mut HloGraph, node: Hlo) -> Option<Id> {
    node_ty(eg, &node)?;
    Some(eg.add(node))
}

/// The element type and splat bits of the class bound to `name`.
pub fn splat(eg: &HloGraph, s: &Subst, name: &str) -> Option<(ElementType, u64)> {
    let id = get(s, name)?;
    let d = &eg[id].data;
    Some((d.shape.as_ref()?.ty, d.splat?))
}

/// What a splat constant is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum K {
    /// Float -0, or integer 0, or pred false (the exact additive identity).
    AddIdentity,
    /// Float +0, or integer 0 (the exact subtractive identity).
    SubIdentity,
    /// Integer or pred zero / false (not float).
    IntZero,
    /// 1 (float or integer).
    One,
    /// -1 (float or signed integer; not unsigned, where x / MAX ≠ -x).
    MinusOne,
    /// All bits set (pred true, integer -1/MAX): identity of `and`.
    AllOnes,
    /// Zero bits (pred false, integer 0): identity of `or`/`xor`.
    NoBits,
    /// The lowest value of the type (-inf, INT_MIN, 0 unsigned, false).
    Lowest,
    /// The highest value of the type (+inf, INT_MAX, MAX unsigned, true).
    Highest,
    /// Float +0 or -0 (fast-math only).
    AnyFloatZero,
    /// [`K::Highest`] of an integer or pred type.
    IntHighest,
    /// [`K::Lowest`] of an integer or pred type.
    IntLowest,
}

/// Whether the class bound to `name` is a splat of kind `k`.
pub fn is(eg: &HloGraph, s: &Subst, name: &str, k: K) -> bool {
    match splat(eg, s, name) {
        Some((ty, bits)) => is_kind(ty, bits, k),
        None => false,
    }
}

/// Whether splat bits `bits` of type `ty` are of kind `k`.
pub fn is_kind(ty: ElementType, bits: u64, k: K) -> bool {
    let w = ty.bit_width();
    let mask: u64 = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    let f = splat_f64(ty, bits);
    let i = splat_i128(ty, bits);
    match k {
        K::AddIdentity => match f {
            Some(v) => v == 0.0 && v.is_sign_negative(),
            None => ty.is_integer() && bits == 0,
        },
        K::SubIdentity => match f {
            Some(v) => v == 0.0 && v.is_sign_positive(),
            None => ty.is_integer() && bits == 0,
        },
        K::IntZero => (ty.is_integer() || ty.is_pred()) && bits == 0,
        K::One => match f {
            Some(v) => v == 1.0,
            None => ty.is_integer() && bits == 1,
        },
        K::MinusOne => match f {
            Some(v) => v == -1.0,
            None => ty.is_signed_int() && bits == mask,
        },
        K::AllOnes => (ty.is_integer() && bits == mask) || (ty.is_pred() && bits == 1),
        K::NoBits => (ty.is_integer() || ty.is_pred()) && bits == 0,
        K::Lowest => match f {
            Some(v) => v == f64::NEG_INFINITY,
            None if ty.is_pred() || ty.is_unsigned_int() => bits == 0,
            None => i == Some(-(1i128 << (w - 1))),
        },
        K::Highest => match f {
            Some(v) => v == f64::INFINITY,
            None if ty.is_pred() => bits == 1,
            None if ty.is_unsigned_int() => bits == mask,
            None => i == Some((1i128 << (w - 1)) - 1),
        },
        K::AnyFloatZero => f == Some(0.0),
        K::IntHighest => f.is_none() && is_kind(ty, bits, K::Highest),
        K::IntLowest => f.is_none() && is_kind(ty, bits, K::Lowest),
    }
}

/// A splat of `bits` with shape `shape`: a scalar constant broadcast.
pub fn splat_of(eg: &mut HloGraph, shape: &Sh, bits: u64) -> Option<Id> {
    let c = eg.add(Hlo::Const(ConstVal::scalar(shape.ty, bits)));
    if shape.dims.is_empty() {
        return Some(c);
    }
    let b = add_attr(
        eg,
        Attr::Bcast {
            out: shape.dims.clone(),
            map: vec![],
        },
    );
    add(eg, Hlo::Broadcast([b, c]))
}

/// The scalar class a splat-broadcast class came from, if the class holds
/// `broadcast(scalar)` or is itself a scalar.
pub fn scalar_source(eg: &HloGraph, id: Id) -> Option<Id> {
    let shape = shape_of(eg, id)?;
    if shape.dims.is_empty() {
        return Some(id);
    }
    eg[id].nodes.iter().find_map(|n| match n {
        Hlo::Broadcast([_, x]) if shape_of(eg, *x).is_some_and(|s| s.dims.is_empty()) => Some(*x),
        _ => None,
    })
}

/// Broadcasts scalar class `x` to `dims`.
pub fn broadcast_scalar(eg: &mut HloGraph, x: Id, dims: Vec<i64>) -> Option<Id> {
    let b = add_attr(
        eg,
        Attr::Bcast {
            out: dims,
            map: vec![],
        },
    );
    add(eg, Hlo::Broadcast([b, x]))
}

/// Returns `?x` (the common "→ x" right-hand side).
pub fn keep(name: &'static str) -> impl Fn(&mut HloGraph, Id, &Subst) -> Option<Id> {
    move |_, _, s| get(s, name)
}

/// The identity permutation test.
pub fn is_identity(p: &[i64]) -> bool {
    p.iter().enumerate().all(|(i, &d)| d == i as i64)
}
