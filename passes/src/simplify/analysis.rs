//! The e-class analysis of `simplify`: for every e-class its array shape
//! (element type and dims; `None` for tuples, tokens and attribute
//! leaves), for tuple classes the element types ([`Ty`], nested), and,
//! when known, the bits of the single value every element
//! holds (a "splat": a constant, or a broadcast/reshape/transpose/slice of
//! one). Rules ask these questions through the helpers here. Merging two
//! classes with different shapes is a bug in a rule: it is recorded in
//! [`HloAnalysis::error`] (the pass then leaves the computation alone),
//! never a panic.

use crate::simplify::lang::{Attr, Hlo};
use egg::{Analysis, DidMerge, EGraph, Id, Symbol};
use rxla_ir::ElementType;
use std::collections::HashMap;

/// An array shape without layout.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Sh {
    pub ty: ElementType,
    pub dims: Vec<i64>,
}

impl Sh {
    pub fn new(ty: ElementType, dims: Vec<i64>) -> Sh {
        Sh { ty, dims }
    }

    pub fn elements(&self) -> f64 {
        self.dims.iter().map(|&d| d as f64).product()
    }

    pub fn bytes(&self) -> f64 {
        self.elements() * self.ty.byte_size() as f64
    }

    pub fn rank(&self) -> usize {
        self.dims.len()
    }
}

/// The logical type of a value (no layouts: e-classes are logical values).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Array(Sh),
    Tuple(Vec<Ty>),
    Token,
}

impl Ty {
    /// The logical type of an IR shape (layouts dropped).
    pub fn of(shape: &rxla_ir::Shape) -> Ty {
        match shape {
            rxla_ir::Shape::Array(a) if a.element_type.is_token() => Ty::Token,
            rxla_ir::Shape::Array(a) => Ty::Array(Sh::new(a.element_type, a.dims.clone())),
            rxla_ir::Shape::Tuple(t) => Ty::Tuple(t.iter().map(Ty::of).collect()),
        }
    }
}

/// What the analysis knows about one e-class.
#[derive(Clone, Debug, PartialEq)]
pub struct Data {
    pub shape: Option<Sh>,
    /// The element types of a tuple class.
    pub tuple: Option<Vec<Ty>>,
    /// Bits (zero-extended little-endian) of the value of every element.
    pub splat: Option<u64>,
}

/// The analysis state: types of opaque instructions (by name) and the
/// first inconsistency seen.
#[derive(Debug, Default)]
pub struct HloAnalysis {
    pub opaque_shapes: HashMap<Symbol, Ty>,
    pub error: Option<String>,
}

pub type HloGraph = EGraph<Hlo, HloAnalysis>;

/// The attribute held by an attribute class.
pub fn attr_of(eg: &HloGraph, id: Id) -> Option<&Attr> {
    eg[id].nodes.iter().find_map(|n| match n {
        Hlo::Attr(a) => Some(a),
        _ => None,
    })
}

/// The shape of a class.
pub fn shape_of(eg: &HloGraph, id: Id) -> Option<&Sh> {
    eg[id].data.shape.as_ref()
}

/// The logical type of a class, when it has one.
pub fn ty_of(eg: &HloGraph, id: Id) -> Option<Ty> {
    let d = &eg[id].data;
    match (&d.shape, &d.tuple) {
        (Some(s), _) => Some(Ty::Array(s.clone())),
        (None, Some(t)) => Some(Ty::Tuple(t.clone())),
        _ => None,
    }
}

/// Computes the type of a node (arrays, tuples and tokens); `None` when
/// the node is ill-formed or an attribute.
pub fn node_ty(eg: &HloGraph, node: &Hlo) -> Option<Ty> {
    match node {
        Hlo::Tuple(xs) => xs
            .iter()
            .map(|&x| match ty_of(eg, x) {
                Some(t) => Some(t),
                // A token element (opaque tokens have no data shape).
                None => opaque_token(eg, x).then_some(Ty::Token),
            })
            .collect::<Option<Vec<_>>>()
            .map(Ty::Tuple),
        Hlo::Gte([i, t]) => {
            let i = match attr_of(eg, *i)? {
                Attr::Ints(v) if v.len() == 1 => usize::try_from(v[0]).ok()?,
                _ => return None,
            };
            eg[*t].data.tuple.as_ref()?.get(i).cloned()
        }
        Hlo::Opaque(name, _) => eg.analysis.opaque_shapes.get(name).cloned(),
        _ => node_shape(eg, node).map(Ty::Array),
    }
}

/// Whether class `id` holds an opaque token.
fn opaque_token(eg: &HloGraph, id: Id) -> bool {
    eg[id].nodes.iter().any(|n| match n {
        Hlo::Opaque(name, _) => eg.analysis.opaque_shapes.get(name) == Some(&Ty::Token),
        _ => false,
    })
}

/// Computes the shape of a node from its children's data; `None` when the
/// node is ill-formed (rules never build those: the applier checks).
pub fn node_shape(eg: &HloGraph, node: &Hlo) -> Option<Sh> {
    let sh = |id: &Id| eg[*id].data.shape.clone();
    let at = |id: &Id| attr_of(eg, *id);
    if let Some((u, x)) = node.as_unary() {
        let s = sh(&x)?;
        return Some(if u == rxla_ir::UnaryOp::IsFinite {
            Sh::new(ElementType::Pred, s.dims)
        } else {
            s
        });
    }
    if let Some((_, x, y)) = node.as_binary() {
        let (a, b) = (sh(&x)?, sh(&y)?);
        return (a == b).then_some(a);
    }
    match node {
        Hlo::Compare([_, a, b]) => {
            let (a, b) = (sh(a)?, sh(b)?);
            (a == b).then(|| Sh::new(ElementType::Pred, a.dims))
        }
        Hlo::Select([p, t, f]) => {
            let (p, t, f) = (sh(p)?, sh(t)?, sh(f)?);
            (t == f && p.ty == ElementType::Pred && (p.dims == t.dims || p.dims.is_empty()))
                .then_some(t)
        }
        Hlo::Clamp([lo, x, hi]) => {
            let (lo, x, hi) = (sh(lo)?, sh(x)?, sh(hi)?);
            let ok = |s: &Sh| s.ty == x.ty && (s.dims == x.dims || s.dims.is_empty());
            (ok(&lo) && ok(&hi)).then_some(x)
        }
        Hlo::Convert([t, x]) => match at(t)? {
            Attr::Ty(ty) => Some(Sh::new(*ty, sh(x)?.dims)),
            _ => None,
        },
        Hlo::Copy([x]) => sh(x),
        Hlo::Reshape([d, x]) => {
            let s = sh(x)?;
            match at(d)? {
                Attr::Ints(dims) => {
                    let n: i64 = dims.iter().product();
                    let m: i64 = s.dims.iter().product();
                    (n == m && dims.iter().all(|&v| v >= 0)).then(|| Sh::new(s.ty, dims.clone()))
                }
                _ => None,
            }
        }
        Hlo::Transpose([p, x]) => {
            let s = sh(x)?;
            match at(p)? {
                Attr::Ints(perm) if is_permutation(perm, s.rank()) => Some(Sh::new(
                    s.ty,
                    perm.iter().map(|&i| s.dims[i as usize]).collect(),
                )),
                _ => None,
            }
        }
        Hlo::Broadcast([b, x]) => {
            let s = sh(x)?;
            match at(b)? {
                Attr::Bcast { out, map } if broadcast_ok(&s.dims, out, map) => {
                    Some(Sh::new(s.ty, out.clone()))
                }
                _ => None,
            }
        }
        Hlo::Reverse([d, x]) => {
            let s = sh(x)?;
            match at(d)? {
                Attr::Ints(dims) if dims.iter().all(|&d| d >= 0 && (d as usize) < s.rank()) => {
                    Some(s)
                }
                _ => None,
            }
        }
        Hlo::Slice([a, x]) => {
            let s = sh(x)?;
            match at(a)? {
                Attr::Slice {
                    starts,
                    limits,
                    strides,
                } => slice_dims(&s.dims, starts, limits, strides).map(|d| Sh::new(s.ty, d)),
                _ => None,
            }
        }
        Hlo::Concatenate(ids) => {
            let (d, xs) = ids.split_first()?;
            let dim = match at(d)? {
                Attr::Ints(v) if v.len() == 1 => v[0],
                _ => return None,
            };
            let first = sh(xs.first()?)?;
            let dim = usize::try_from(dim).ok().filter(|&d| d < first.rank())?;
            let mut out = first.clone();
            out.dims[dim] = 0;
            for x in xs {
                let s = sh(x)?;
                if s.ty != first.ty || s.rank() != first.rank() {
                    return None;
                }
                for (i, (&a, &b)) in s.dims.iter().zip(&first.dims).enumerate() {
                    if i != dim && a != b {
                        return None;
                    }
                }
                out.dims[dim] += s.dims[dim];
            }
            Some(out)
        }
        Hlo::Pad([c, x, v]) => {
            let (s, vs) = (sh(x)?, sh(v)?);
            if !vs.dims.is_empty() || vs.ty != s.ty {
                return None;
            }
            match at(c)? {
                Attr::Pad(cfg) if cfg.len() == s.rank() => {
                    let mut dims = Vec::with_capacity(s.rank());
                    for (&n, &(lo, hi, int)) in s.dims.iter().zip(cfg) {
                        if int < 0 {
                            return None;
                        }
                        let body = if n == 0 { 0 } else { n + (n - 1) * int };
                        let d = body + lo + hi;
                        if d < 0 {
                            return None;
                        }
                        dims.push(d);
                    }
                    Some(Sh::new(s.ty, dims))
                }
                _ => None,
            }
        }
        Hlo::Dot([d, a, b]) => {
            let (sa, sb) = (sh(a)?, sh(b)?);
            match at(d)? {
                Attr::Dot { lb, lc, rb, rc } => dot_shape(&sa, &sb, lb, lc, rb, rc),
                _ => None,
            }
        }
        Hlo::Reduce([r, x, init]) => {
            let (s, i) = (sh(x)?, sh(init)?);
            match at(r)? {
                Attr::Reduce { dims, .. } if i.dims.is_empty() && i.ty == s.ty => {
                    let mut keep = vec![true; s.rank()];
                    for &d in dims {
                        *keep.get_mut(usize::try_from(d).ok()?)? = false;
                    }
                    Some(Sh::new(
                        s.ty,
                        s.dims
                            .iter()
                            .zip(&keep)
                            .filter(|(_, k)| **k)
                            .map(|(d, _)| *d)
                            .collect(),
                    ))
                }
                _ => None,
            }
        }
        Hlo::Const(c) => Some(Sh::new(c.ty, c.dims.clone())),
        Hlo::Opaque(name, _) => match eg.analysis.opaque_shapes.get(name) {
            Some(Ty::Array(s)) => Some(s.clone()),
            _ => None,
        },
        Hlo::Gte(_) => match node_ty(eg, node)? {
            Ty::Array(s) => Some(s),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `perm` is a permutation of `0..rank`.
pub fn is_permutation(perm: &[i64], rank: usize) -> bool {
    let mut seen = vec![false; rank];
    perm.len() == rank
        && perm.iter().all(|&p| {
            usize::try_from(p)
                .ok()
                .and_then(|p| seen.get_mut(p))
                .is_some_and(|s| !std::mem::replace(s, true))
        })
}

/// Whether a broadcast of `dims` to `out` with `map` is well-formed.
pub fn broadcast_ok(dims: &[i64], out: &[i64], map: &[i64]) -> bool {
    map.len() == dims.len()
        && map.windows(2).all(|w| w[0] < w[1])
        && map.iter().zip(dims).all(|(&m, &d)| {
            usize::try_from(m)
                .ok()
                .and_then(|m| out.get(m))
                .is_some_and(|&o| o == d)
        })
}

/// The result dims of a slice, if the bounds are valid.
pub fn slice_dims(
    dims: &[i64],
    starts: &[i64],
    limits: &[i64],
    strides: &[i64],
) -> Option<Vec<i64>> {
    if starts.len() != dims.len() || limits.len() != dims.len() || strides.len() != dims.len() {
        return None;
    }
    let mut out = Vec::with_capacity(dims.len());
    for i in 0..dims.len() {
        let (s, l, st) = (starts[i], limits[i], strides[i]);
        if s < 0 || l < s || l > dims[i] || st <= 0 {
            return None;
        }
        out.push((l - s + st - 1) / st);
    }
    Some(out)
}

/// The dims of a dot's result: batch, lhs free, rhs free.
pub fn dot_shape(a: &Sh, b: &Sh, lb: &[i64], lc: &[i64], rb: &[i64], rc: &[i64]) -> Option<Sh> {
    if a.ty != b.ty || lb.len() != rb.len() || lc.len() != rc.len() {
        return None;
    }
    let get = |s: &Sh, d: i64| usize::try_from(d).ok().and_then(|d| s.dims.get(d).copied());
    for (&x, &y) in lb.iter().zip(rb).chain(lc.iter().zip(rc)) {
        if get(a, x)? != get(b, y)? {
            return None;
        }
    }
    let mut used_a = vec![false; a.rank()];
    let mut used_b = vec![false; b.rank()];
    for &d in lb.iter().chain(lc) {
        let u = used_a.get_mut(usize::try_from(d).ok()?)?;
        if *u {
            return None;
        }
        *u = true;
    }
    for &d in rb.iter().chain(rc) {
        let u = used_b.get_mut(usize::try_from(d).ok()?)?;
        if *u {
            return None;
        }
        *u = true;
    }
    let mut dims: Vec<i64> = lb.iter().map(|&d| a.dims[d as usize]).collect();
    dims.extend((0..a.rank()).filter(|&i| !used_a[i]).map(|i| a.dims[i]));
    dims.extend((0..b.rank()).filter(|&i| !used_b[i]).map(|i| b.dims[i]));
    Some(Sh::new(a.ty, dims))
}

impl Analysis<Hlo> for HloAnalysis {
    type Data = Data;

    fn make(eg: &mut HloGraph, node: &Hlo) -> Data {
        let ty = node_ty(eg, node);
        let (shape, tuple) = match ty {
            Some(Ty::Array(s)) => (Some(s), None),
            Some(Ty::Tuple(t)) => (None, Some(t)),
            _ => (None, None),
        };
        let splat = match node {
            Hlo::Const(c) => c.splat_bits(),
            Hlo::Broadcast([_, x])
            | Hlo::Reshape([_, x])
            | Hlo::Transpose([_, x])
            | Hlo::Reverse([_, x])
            | Hlo::Slice([_, x])
            | Hlo::Copy([x]) => eg[*x].data.splat,
            _ => None,
        };
        Data {
            splat: if shape.is_some() { splat } else { None },
            shape,
            tuple,
        }
    }

    fn merge(&mut self, a: &mut Data, b: Data) -> DidMerge {
        if (a.shape != b.shape || a.tuple != b.tuple) && self.error.is_none() {
            self.error = Some(format!(
                "merged classes of different shapes {:?}/{:?} and {:?}/{:?}",
                a.shape, a.tuple, b.shape, b.tuple
            ));
        }
        match (a.splat, b.splat) {
            (None, Some(v)) => {
                a.splat = Some(v);
                DidMerge(true, false)
            }
            (Some(x), Some(y)) if x != y => {
                if self.error.is_none() {
                    self.error = Some(format!("merged splats {x:#x} and {y:#x}"));
                }
                DidMerge(false, true)
            }
            (Some(_), None) => DidMerge(false, true),
            _ => DidMerge(false, false),
        }
    }
}

/// Float value of splat bits of a float type.
pub fn splat_f64(ty: ElementType, bits: u64) -> Option<f64> {
    Some(match ty {
        ElementType::F16 => f16_to_f64(bits as u16),
        ElementType::BF16 => f32::from_bits((bits as u32) << 16) as f64,
        ElementType::F32 => f32::from_bits(bits as u32) as f64,
        ElementType::F64 => f64::from_bits(bits),
        _ => return None,
    })
}

/// Integer value of splat bits (sign-extended for signed types).
pub fn splat_i128(ty: ElementType, bits: u64) -> Option<i128> {
    let w = ty.bit_width();
    if ty.is_signed_int() {
        let shift = 64 - w;
        Some((((bits << shift) as i64) >> shift) as i128)
    } else if ty.is_unsigned_int() || ty.is_pred() {
        Some(bits as i128)
    } else {
        None
    }
}

/// Decodes IEEE binary16 bits.
fn f16_to_f64(b: u16) -> f64 {
    let sign = if b & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((b >> 10) & 0x1f) as i32;
    let man = (b & 0x3ff) as f64;
    match exp {
        0 => sign * man * 2f64.powi(-24),
        31 if man == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        e => sign * (1.0 + man / 1024.0) * 2f64.powi(e - 15),
    }
}
