//! Random element values and literals: small numbers, exact multiples of
//! 1/8 and the special values that break code (±0, ±inf, NaN, denormals,
//! INT_MIN, -1, MAX). Also `random_args`, the arguments of an ENTRY
//! computation, and `tame_args`, the special-free arguments of `rxla run
//! --random-args`. Values only; no module construction here.

use crate::prng::SplitMix64;
use half::{bf16, f16};
use rxla_ir::{
    ArrayData, ArrayLiteral, ArrayShape, Complex32, Complex64, ElementType, Literal, Module, Shape,
};

/// A source of small random choices (implemented by the generator over
/// `Unstructured` and by a plain PRNG for arguments).
pub trait Choices {
    /// A value in `lo..=hi` (returns `lo` when the source is exhausted).
    fn range(&mut self, lo: i64, hi: i64) -> i64;
    fn coin(&mut self) -> bool {
        self.range(0, 1) == 1
    }
    /// True with probability about `num/den`.
    fn chance(&mut self, num: i64, den: i64) -> bool {
        self.range(0, den - 1) < num
    }
}

/// [`Choices`] read from fuzzer bytes (cargo-fuzz targets).
pub struct UChoices<'a, 'b>(pub &'a mut arbitrary::Unstructured<'b>);

impl Choices for UChoices<'_, '_> {
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        self.0.int_in_range(lo..=hi).unwrap_or(lo)
    }
}

impl Choices for SplitMix64 {
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = (hi - lo) as u64 + 1;
        lo + (self.next_u64() % span) as i64
    }
}

/// One float value as f64: mostly small exact values, sometimes special.
fn float_value(c: &mut impl Choices, ty: ElementType) -> f64 {
    let (denorm, max) = match ty {
        ElementType::F16 => (f16::from_bits(1).to_f64(), f16::MAX.to_f64()),
        ElementType::BF16 => (bf16::from_bits(1).to_f64(), bf16::MAX.to_f64()),
        ElementType::F32 => (f32::from_bits(1) as f64, f32::MAX as f64),
        t if t.is_f8() => {
            let f = rxla_ir::narrow::f8_format(t).expect("f8");
            (rxla_ir::narrow::f8_decode(f, 1) as f64, f.max())
        }
        _ => (f64::from_bits(1), f64::MAX),
    };
    if c.chance(1, 4) {
        match c.range(0, 9) {
            0 => 0.0,
            1 => -0.0,
            2 => f64::INFINITY,
            3 => f64::NEG_INFINITY,
            4 => f64::NAN,
            5 => denorm,
            6 => -denorm,
            7 => max,
            8 => -max,
            _ => 1e-3,
        }
    } else {
        c.range(-64, 64) as f64 / 8.0
    }
}

/// One integer value (as i128 so every type's range fits), mostly small.
fn int_value(c: &mut impl Choices, ty: ElementType) -> i128 {
    let bits = ty.bit_width();
    let (min, max): (i128, i128) = if ty.is_signed_int() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    let v: i128 = if c.chance(1, 4) {
        match c.range(0, 4) {
            0 => min,
            1 => max,
            2 => -1,
            3 => 0,
            _ => 1,
        }
    } else {
        c.range(-8, 8) as i128
    };
    // Wrap into range (e.g. -1 for unsigned types becomes MAX).
    let span = max - min + 1;
    (v - min).rem_euclid(span) + min
}

/// `n` random elements of type `ty`.
pub fn random_data(c: &mut impl Choices, ty: ElementType, n: usize) -> ArrayData {
    macro_rules! ints {
        ($t:ty) => {
            (0..n).map(|_| int_value(c, ty) as $t).collect()
        };
    }
    match ty {
        ElementType::Pred => ArrayData::Pred((0..n).map(|_| c.coin()).collect()),
        ElementType::S8 => ArrayData::S8(ints!(i8)),
        ElementType::S16 => ArrayData::S16(ints!(i16)),
        ElementType::S32 => ArrayData::S32(ints!(i32)),
        ElementType::S64 => ArrayData::S64(ints!(i64)),
        ElementType::U8 => ArrayData::U8(ints!(u8)),
        ElementType::U16 => ArrayData::U16(ints!(u16)),
        ElementType::U32 => ArrayData::U32(ints!(u32)),
        ElementType::U64 => ArrayData::U64(ints!(u64)),
        ElementType::F16 => {
            ArrayData::F16((0..n).map(|_| f16::from_f64(float_value(c, ty))).collect())
        }
        ElementType::BF16 => {
            ArrayData::BF16((0..n).map(|_| bf16::from_f64(float_value(c, ty))).collect())
        }
        ElementType::F32 => ArrayData::F32((0..n).map(|_| float_value(c, ty) as f32).collect()),
        ElementType::F64 => ArrayData::F64((0..n).map(|_| float_value(c, ty)).collect()),
        ElementType::C64 => ArrayData::C64(
            (0..n)
                .map(|_| {
                    let re = float_value(c, ElementType::F32) as f32;
                    Complex32::new(re, float_value(c, ElementType::F32) as f32)
                })
                .collect(),
        ),
        ElementType::C128 => ArrayData::C128(
            (0..n)
                .map(|_| {
                    let re = float_value(c, ElementType::F64);
                    Complex64::new(re, float_value(c, ElementType::F64))
                })
                .collect(),
        ),
        t @ (rxla_ir::narrow_types!()) => ArrayData::narrow(
            t,
            (0..n)
                .map(|_| {
                    if t.is_f8() {
                        rxla_ir::narrow::from_f64(t, float_value(c, t))
                    } else {
                        rxla_ir::narrow::int_n_wrap(t, int_value(c, t) as i64)
                    }
                })
                .collect(),
        ),
        ElementType::Token => ArrayData::Token(1),
    }
}

/// A random literal of `shape` (tuples recursively). Tokens get a token.
pub fn random_literal(c: &mut impl Choices, shape: &Shape) -> Literal {
    match shape {
        Shape::Array(a) => {
            if a.element_type == ElementType::Token {
                return Literal::token();
            }
            let n = a.element_count().unwrap_or(0);
            let data = random_data(c, a.element_type, n);
            match ArrayLiteral::new(a.clone(), data) {
                Ok(l) => Literal::Array(l),
                Err(_) => Literal::zeros(shape).unwrap_or_else(|_| Literal::token()),
            }
        }
        Shape::Tuple(t) => Literal::Tuple(t.iter().map(|s| random_literal(c, s)).collect()),
    }
}

/// A literal of `shape` with integer value `v` in every element (wrapped to
/// the type; used for loop counters and indices).
pub fn splat_int(shape: &ArrayShape, v: i64) -> Literal {
    let n = shape.element_count().unwrap_or(0);
    let data = ArrayData::scalar_from_f64(shape.element_type, v as f64);
    let data = data.take(&vec![0; n]);
    ArrayLiteral::new(shape.clone(), data)
        .map(Literal::Array)
        .unwrap_or_else(|_| Literal::token())
}

/// Random arguments for the ENTRY computation of `module`, one per
/// parameter, with the parameters' exact shapes (layouts included).
pub fn random_args(module: &Module, seed: u64) -> Vec<Literal> {
    let mut rng = SplitMix64::new(seed ^ 0xA5A5_5A5A_0F0F_F0F0);
    module
        .entry_program_shape()
        .parameters
        .iter()
        .map(|s| random_literal(&mut rng, s))
        .collect()
}

/// Tame values for `rxla run --random-args`: no special values, so that
/// sums of a few of them are exact and backends compare bit for bit.
/// Floats are multiples of 1/8 in [-1, 1), signed integers in [-8, 8),
/// unsigned ones in [0, 16), preds fair; each tuple element draws from its
/// own stream, seeded by the next value of `rng`. An array of more than
/// 2^28 elements is an error. The stream is stable: a seed gives the same
/// arguments in every version.
pub fn tame_literal(rng: &mut SplitMix64, shape: &Shape) -> Result<Literal, String> {
    let a = match shape {
        Shape::Tuple(t) => {
            return t
                .iter()
                .map(|s| tame_literal(&mut SplitMix64::new(rng.next_u64()), s))
                .collect::<Result<_, _>>()
                .map(Literal::Tuple);
        }
        Shape::Array(a) => a,
    };
    let n = a.element_count().map_err(|e| e.to_string())?;
    if n > (1 << 28) {
        return Err(format!(
            "parameter of shape {a} is too large for --random-args"
        ));
    }
    let small = |r: &mut SplitMix64| r.range(-8, 7);
    let unsigned = |r: &mut SplitMix64| r.range(-8, 7) + 8;
    let f = |r: &mut SplitMix64| r.range(-8, 7) as f64 / 8.0;
    let data = match a.element_type {
        ElementType::Pred => ArrayData::Pred((0..n).map(|_| rng.coin()).collect()),
        ElementType::S8 => ArrayData::S8((0..n).map(|_| small(rng) as i8).collect()),
        ElementType::S16 => ArrayData::S16((0..n).map(|_| small(rng) as i16).collect()),
        ElementType::S32 => ArrayData::S32((0..n).map(|_| small(rng) as i32).collect()),
        ElementType::S64 => ArrayData::S64((0..n).map(|_| small(rng)).collect()),
        ElementType::U8 => ArrayData::U8((0..n).map(|_| unsigned(rng) as u8).collect()),
        ElementType::U16 => ArrayData::U16((0..n).map(|_| unsigned(rng) as u16).collect()),
        ElementType::U32 => ArrayData::U32((0..n).map(|_| unsigned(rng) as u32).collect()),
        ElementType::U64 => ArrayData::U64((0..n).map(|_| unsigned(rng) as u64).collect()),
        ElementType::F16 => ArrayData::F16((0..n).map(|_| f16::from_f64(f(rng))).collect()),
        ElementType::BF16 => ArrayData::BF16((0..n).map(|_| bf16::from_f64(f(rng))).collect()),
        ElementType::F32 => ArrayData::F32((0..n).map(|_| f(rng) as f32).collect()),
        ElementType::F64 => ArrayData::F64((0..n).map(|_| f(rng)).collect()),
        ElementType::C64 => ArrayData::C64(
            (0..n)
                .map(|_| {
                    let re = f(rng) as f32;
                    Complex32::new(re, f(rng) as f32)
                })
                .collect(),
        ),
        ElementType::C128 => ArrayData::C128(
            (0..n)
                .map(|_| {
                    let re = f(rng);
                    Complex64::new(re, f(rng))
                })
                .collect(),
        ),
        t @ (rxla_ir::narrow_types!()) => ArrayData::narrow(
            t,
            (0..n)
                .map(|_| rxla_ir::narrow::from_f64(t, f(rng)))
                .collect(),
        ),
        ElementType::Token => return Ok(Literal::token()),
    };
    ArrayLiteral::new(a.clone(), data)
        .map(Literal::Array)
        .map_err(|e| e.to_string())
}

/// The tame arguments (see [`tame_literal`]) of the ENTRY computation of
/// `module` for `seed`: what `rxla run --random-args=SEED` passes.
pub fn tame_args(module: &Module, seed: u64) -> Result<Vec<Literal>, String> {
    let mut rng = SplitMix64::new(seed);
    module
        .entry_program_shape()
        .parameters
        .iter()
        .map(|s| tame_literal(&mut rng, s))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_wrap_into_range() {
        let mut r = SplitMix64::new(1);
        for _ in 0..200 {
            let v = int_value(&mut r, ElementType::U8);
            assert!((0..=255).contains(&v));
            let v = int_value(&mut r, ElementType::S8);
            assert!((-128..=127).contains(&v));
        }
    }

    #[test]
    fn literal_matches_shape() {
        let mut r = SplitMix64::new(7);
        let s = Shape::array(ElementType::F16, vec![2, 3]).unwrap();
        let l = random_literal(&mut r, &s);
        assert_eq!(l.shape(), s);
        let splat = splat_int(&ArrayShape::new(ElementType::S32, vec![2]).unwrap(), 3);
        assert_eq!(splat.as_slice::<i32>(), Some(&[3, 3][..]));
    }

    /// The tame stream is pinned: `rxla run --random-args=SEED` must give
    /// the same arguments in every version (these are the values of the
    /// CLI's former private generator).
    #[test]
    fn tame_values_are_stable() {
        let s = Shape::array(ElementType::F32, vec![4]).unwrap();
        let l = tame_literal(&mut SplitMix64::new(3), &s).unwrap();
        let mut r = SplitMix64::new(3);
        let want: Vec<f32> = (0..4)
            .map(|_| ((r.next_u64() % 16) as i64 - 8) as f32 / 8.0)
            .collect();
        assert_eq!(l.as_slice::<f32>(), Some(&want[..]));
        let u = Shape::array(ElementType::U8, vec![3]).unwrap();
        let l = tame_literal(&mut SplitMix64::new(5), &u).unwrap();
        let mut r = SplitMix64::new(5);
        let want: Vec<u8> = (0..3).map(|_| (r.next_u64() % 16) as u8).collect();
        assert_eq!(l.as_slice::<u8>(), Some(&want[..]));
        let big = Shape::array(ElementType::Pred, vec![1 << 20, 512]).unwrap();
        assert!(tame_literal(&mut SplitMix64::new(0), &big).is_err());
    }
}
