//! Arithmetic on the narrow types (s2, s4, u2, u4 and the f8 types), as
//! XLA CPU does it: every op widens its operands exactly — f8 to f16,
//! s2/s4 to s8, u2/u4 to u8 —, computes in the wide type with that type's
//! rules (f16 computes in f32 and rounds to f16 once) and converts the
//! result back (f16 → f8 rounds to nearest even; s8/u8 → s4 wraps). So an
//! f8 result is rounded twice, f32 → f16 → f8, exactly like XLA's
//! `FloatNormalization` to f16 followed by the convert; integer results
//! wrap, and shifts, popcnt and clz see the 8-bit value (`s4` -8 shifted
//! right logically by 1 is -4). Conversions to and from the narrow types
//! are direct (one rounding) and live in `convert_to_narrow`.

use crate::error::{EvalError, Result};
use half::f16;
use rxla_ir::narrow as enc;
use rxla_ir::{ArrayData, ElementType};

/// The wide type XLA computes a narrow type in.
pub fn wide_type(ty: ElementType) -> ElementType {
    if ty.is_f8() {
        ElementType::F16
    } else if ty.is_signed_int() {
        ElementType::S8
    } else {
        ElementType::U8
    }
}

/// The exact widening of narrow data (other data is returned as is).
pub fn widen(d: &ArrayData) -> ArrayData {
    let ArrayData::Narrow(t, v) = d else {
        return d.clone();
    };
    let t = *t;
    if let Some(f) = enc::f8_format(t) {
        ArrayData::F16(
            v.iter()
                .map(|&b| f16::from_f32(enc::f8_decode(f, b)))
                .collect(),
        )
    } else if t.is_signed_int() {
        ArrayData::S8(v.iter().map(|&b| enc::int_n_value(t, b) as i8).collect())
    } else {
        ArrayData::U8(v.iter().map(|&b| enc::int_n_value(t, b) as u8).collect())
    }
}

/// Rounds (f8) or wraps (integers) wide data of `wide_type(to)` back to
/// the narrow type `to`.
pub fn narrow_back(d: &ArrayData, to: ElementType) -> Result<ArrayData> {
    convert_to_narrow(d, to)
}

/// `convert` of any real data to a narrow type: floats round to nearest
/// even directly from their value (f8 targets) or saturate with NaN → 0
/// (integer targets); integers round (f8) or wrap (integer targets);
/// pred is 0 or 1.
pub fn convert_to_narrow(src: &ArrayData, to: ElementType) -> Result<ArrayData> {
    let src = widen(src);
    let f8 = enc::f8_format(to);
    let from_float = |x: f64| -> u8 {
        match f8 {
            Some(f) => enc::f8_encode(f, x),
            None => enc::from_f64(to, x),
        }
    };
    let from_int = |x: i128| -> u8 {
        match f8 {
            Some(f) => enc::f8_encode(f, x as f64),
            None => enc::int_n_wrap(to, x as i64),
        }
    };
    fn each<T: Copy>(v: &[T], f: impl Fn(T) -> u8) -> Vec<u8> {
        v.iter().map(|&x| f(x)).collect()
    }
    let bits = match &src {
        ArrayData::Pred(v) => each(v, |x| from_int(x as i128)),
        ArrayData::S8(v) => each(v, |x| from_int(x as i128)),
        ArrayData::S16(v) => each(v, |x| from_int(x as i128)),
        ArrayData::S32(v) => each(v, |x| from_int(x as i128)),
        ArrayData::S64(v) => each(v, |x| from_int(x as i128)),
        ArrayData::U8(v) => each(v, |x| from_int(x as i128)),
        ArrayData::U16(v) => each(v, |x| from_int(x as i128)),
        ArrayData::U32(v) => each(v, |x| from_int(x as i128)),
        ArrayData::U64(v) => each(v, |x| from_int(x as i128)),
        ArrayData::F16(v) => each(v, |x| from_float(x.to_f64())),
        ArrayData::BF16(v) => each(v, |x| from_float(x.to_f64())),
        ArrayData::F32(v) => each(v, |x| from_float(x as f64)),
        ArrayData::F64(v) => each(v, from_float),
        other => {
            return Err(EvalError::new(format!(
                "cannot convert {} to {to}",
                other.element_type()
            )));
        }
    };
    Ok(ArrayData::narrow(to, bits))
}

/// Reinterprets the bits of `src` as `to` when either side is a 2- or
/// 4-bit integer: the elements' bits are laid end to end, each element's
/// lowest bit first (the little-endian order of XLA's packing), and cut
/// into `to`-wide pieces.
pub fn bitcast_bits(src: &ArrayData, to: ElementType, count: usize) -> Result<ArrayData> {
    let from = src.element_type();
    let (wi, wo) = (from.bit_width() as usize, to.bit_width() as usize);
    let bytes = match src {
        ArrayData::Narrow(_, v) => v.clone(),
        other => other.to_le_bytes(),
    };
    let n = src.len();
    if n * wi != count * wo {
        return Err(EvalError::new(format!(
            "bitcast-convert of {n} {from} elements into {count} elements of {to}"
        )));
    }
    // Element i of `from`: bits [i*wi, (i+1)*wi) of the stream.
    let bit = |k: usize| -> u8 {
        if wi < 8 {
            (bytes[k / wi] >> (k % wi)) & 1
        } else {
            (bytes[k / 8] >> (k % 8)) & 1
        }
    };
    if wo < 8 {
        let out = (0..count)
            .map(|j| (0..wo).fold(0u8, |acc, b| acc | (bit(j * wo + b) << b)))
            .collect();
        Ok(ArrayData::narrow(to, out))
    } else {
        let mut out = vec![0u8; count * wo / 8];
        for (k, byte) in out.iter_mut().enumerate() {
            *byte = (0..8).fold(0u8, |acc, b| acc | (bit(k * 8 + b) << b));
        }
        Ok(ArrayData::from_le_bytes(to, &out)?)
    }
}
