//! Recognises sort comparators that order by one operand's key, so the
//! runtime can sort by key (`runtime/key_sort.rs`) instead of calling the
//! comparator kernel once per comparison. Recognised: the root is
//! `compare(f(a), f(b)), direction=LT|GT` where `a`, `b` are the
//! parameters `2i`, `2i+1` of one operand (either order), the comparison
//! is a total order for the type (`TOTALORDER` for floats; the default,
//! `SIGNED` or `UNSIGNED` matching the type for integers) and `f` is the
//! identity or JAX's float canonicalisation
//! `select(ne(x, x), NAN, select(eq(x, 0), ZERO, x))` (any constants).
//! Such a comparator is a strict weak order on the key, so a stable sort by
//! key gives exactly the evaluator's merge-sort result.
//! This module only reads the IR; it must not plan buffers or run code.

use rxla_ir::{
    CompId, ComparisonDirection, ComparisonType, Computation, ElementType, InstrId, Module, Op,
};

/// The key of a 32- or 64-bit element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    /// Floats in total order (`f32::total_cmp`); the mapping comes first.
    F32 {
        canon: Option<Canon<u32>>,
    },
    F64 {
        canon: Option<Canon<u64>>,
    },
    S32,
    U32,
    S64,
    U64,
}

/// JAX's canonicalisation: NaNs become `nan`, both zeros become `zero`
/// (bit patterns of the comparator's constants).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Canon<T> {
    pub nan: T,
    pub zero: T,
}

/// A sort ordered by one operand's key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SortKey {
    /// The operand whose elements are the keys.
    pub operand: usize,
    pub kind: KeyKind,
    /// Largest first (`GT`, or `LT` with the parameters swapped).
    pub descending: bool,
}

/// The key order of comparator `cmp` for operands of `types` (one type per
/// operand), or `None` when it is not one of the recognised forms.
pub fn sort_key(module: &Module, cmp: CompId, types: &[ElementType]) -> Option<SortKey> {
    let c = module.comp(cmp);
    let root = c.root_instruction();
    let Op::Compare { direction, kind } = root.op else {
        return None;
    };
    let [x, y] = root.operands[..] else {
        return None;
    };
    let (pa, fa) = unary(c, x)?;
    let (pb, fb) = unary(c, y)?;
    if fa != fb || pa / 2 != pb / 2 || pa == pb {
        return None;
    }
    let operand = (pa / 2) as usize;
    let et = *types.get(operand)?;
    let total = match kind {
        None => !et.is_float(),
        Some(ComparisonType::TotalOrder) => et.is_float(),
        Some(ComparisonType::Signed) => et.is_signed_int(),
        Some(ComparisonType::Unsigned) => et.is_unsigned_int(),
        Some(ComparisonType::Float) => false,
    };
    // The parameters' own types must be the operand's (the planner checks
    // them against the comparator kernel as well).
    let param_type = |p: i64| {
        c.ids().find_map(|id| match c.get(id).op {
            Op::Parameter { number } if number == p => c.get(id).shape.as_array().ok(),
            _ => None,
        })
    };
    if !total
        || [pa, pb]
            .iter()
            .any(|&p| param_type(p).is_none_or(|s| s.rank() != 0 || s.element_type != et))
    {
        return None;
    }
    let swapped = pa % 2 == 1;
    let descending = match direction {
        ComparisonDirection::Lt => swapped,
        ComparisonDirection::Gt => !swapped,
        _ => return None,
    };
    let kind = match (et, fa) {
        (ElementType::F32, f) if f.is_none_or(|(n, z)| (n | z) >> 32 == 0) => KeyKind::F32 {
            canon: f.map(|(n, z)| Canon {
                nan: n as u32,
                zero: z as u32,
            }),
        },
        (ElementType::F64, f) => KeyKind::F64 {
            canon: f.map(|(nan, zero)| Canon { nan, zero }),
        },
        (ElementType::S32, None) => KeyKind::S32,
        (ElementType::U32, None) => KeyKind::U32,
        (ElementType::S64, None) => KeyKind::S64,
        (ElementType::U64, None) => KeyKind::U64,
        _ => return None,
    };
    Some(SortKey {
        operand,
        kind,
        descending,
    })
}

/// A scalar expression of one parameter: its number and the canonicalising
/// constants' bits (`None` for the parameter itself).
type Unary = (i64, Option<(u64, u64)>);

fn unary(c: &Computation, id: InstrId) -> Option<Unary> {
    if let Some(p) = param(c, id) {
        return Some((p, None));
    }
    // select(ne(x, x), NAN, select(eq(x, ZERO), Z2, x))
    let [isnan, nan, inner] = select(c, id)?;
    let [iszero, zero, x] = select(c, inner)?;
    let p = param(c, x)?;
    let is_float_cmp = |id: InstrId, dir: ComparisonDirection| -> Option<[InstrId; 2]> {
        let i = c.get(id);
        match i.op {
            Op::Compare {
                direction,
                kind: None | Some(ComparisonType::Float),
            } if direction == dir => i.operands[..].try_into().ok(),
            _ => None,
        }
    };
    let [n0, n1] = is_float_cmp(isnan, ComparisonDirection::Ne)?;
    let [z0, z1] = is_float_cmp(iszero, ComparisonDirection::Eq)?;
    let zero_const = float_bits(c, z1)?;
    let is_zero = zero_const & !sign_bit(c, z1)? == 0;
    if n0 != x || n1 != x || z0 != x || !is_zero {
        return None;
    }
    Some((p, Some((float_bits(c, nan)?, float_bits(c, zero)?))))
}

fn param(c: &Computation, id: InstrId) -> Option<i64> {
    match c.get(id).op {
        Op::Parameter { number } => Some(number),
        _ => None,
    }
}

fn select(c: &Computation, id: InstrId) -> Option<[InstrId; 3]> {
    let i = c.get(id);
    match i.op {
        Op::Select => i.operands[..].try_into().ok(),
        _ => None,
    }
}

/// The bits of a scalar f32 or f64 constant.
fn float_bits(c: &Computation, id: InstrId) -> Option<u64> {
    let Op::Constant { literal } = &c.get(id).op else {
        return None;
    };
    let a = literal.as_array().ok()?;
    if a.shape.rank() != 0 || a.data.len() != 1 {
        return None;
    }
    let b = a.data.to_le_bytes();
    match a.shape.element_type {
        ElementType::F32 => Some(u32::from_le_bytes(b.try_into().ok()?) as u64),
        ElementType::F64 => Some(u64::from_le_bytes(b.try_into().ok()?)),
        _ => None,
    }
}

/// The sign bit of a scalar f32 or f64 instruction's type.
fn sign_bit(c: &Computation, id: InstrId) -> Option<u64> {
    match c.get(id).shape.as_array().ok()?.element_type {
        ElementType::F32 => Some(1 << 31),
        ElementType::F64 => Some(1 << 63),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key of comparator `cmp` in a module holding it (the entry is a
    /// stub).
    fn key_of(cmp: &str, types: &[ElementType]) -> Option<SortKey> {
        let text =
            format!("HloModule m\n\n{cmp}\n\nENTRY e {{\n  ROOT z = f32[] constant(0)\n}}\n");
        let m = rxla_ir::parse_module(&text, "cmp.hlo").unwrap();
        sort_key(&m, m.find_computation("c").unwrap(), types)
    }

    const JAX_LT: &str = "c {
  a = f32[] parameter(0)
  ne.a = pred[] compare(a, a), direction=NE
  nan = f32[] constant(nan)
  zero = f32[] constant(0)
  eq.a = pred[] compare(a, zero), direction=EQ
  s.a = f32[] select(eq.a, zero, a)
  k.a = f32[] select(ne.a, nan, s.a)
  b = f32[] parameter(1)
  ne.b = pred[] compare(b, b), direction=NE
  eq.b = pred[] compare(b, zero), direction=EQ
  s.b = f32[] select(eq.b, zero, b)
  k.b = f32[] select(ne.b, nan, s.b)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT lt = pred[] compare(k.a, k.b), direction=LT, type=TOTALORDER
}";

    #[test]
    fn jax_total_order_comparator_is_a_canonical_f32_key() {
        let k = key_of(JAX_LT, &[ElementType::F32, ElementType::S32]).unwrap();
        assert_eq!(
            k,
            SortKey {
                operand: 0,
                kind: KeyKind::F32 {
                    canon: Some(Canon {
                        nan: f32::NAN.to_bits(),
                        zero: 0
                    })
                },
                descending: false,
            }
        );
        let gt = JAX_LT.replace("direction=LT", "direction=GT");
        assert!(
            key_of(&gt, &[ElementType::F32, ElementType::S32])
                .unwrap()
                .descending
        );
        let swapped = JAX_LT.replace(
            "compare(k.a, k.b), direction=LT",
            "compare(k.b, k.a), direction=LT",
        );
        assert!(
            key_of(&swapped, &[ElementType::F32, ElementType::S32])
                .unwrap()
                .descending
        );
    }

    #[test]
    fn partial_orders_and_mixed_keys_are_not_recognised() {
        let types = [ElementType::F32, ElementType::S32];
        // Float LT (NaN compares false both ways): not a strict weak order.
        let float_lt = JAX_LT.replace(", type=TOTALORDER", "");
        assert_eq!(key_of(&float_lt, &types), None);
        // f(a) against b itself.
        let mixed = JAX_LT.replace("compare(k.a, k.b)", "compare(k.a, b)");
        assert_eq!(key_of(&mixed, &types), None);
        // The same parameter twice.
        let same = JAX_LT.replace("compare(k.a, k.b)", "compare(k.a, k.a)");
        assert_eq!(key_of(&same, &types), None);
        // A canonicalisation testing against 1 instead of 0.
        let one = JAX_LT.replace("zero = f32[] constant(0)", "zero = f32[] constant(1)");
        assert_eq!(key_of(&one, &types), None);
        // LE is not strict.
        let le = JAX_LT.replace("direction=LT", "direction=LE");
        assert_eq!(key_of(&le, &types), None);
    }

    #[test]
    fn integer_keys_of_the_second_operand() {
        let cmp = "c {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT gt = pred[] compare(i, j), direction=GT
}";
        let types = [ElementType::F32, ElementType::S32];
        assert_eq!(
            key_of(cmp, &types),
            Some(SortKey {
                operand: 1,
                kind: KeyKind::S32,
                descending: true
            })
        );
    }
}
