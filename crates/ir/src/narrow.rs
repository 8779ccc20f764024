//! Encodings of the narrow element types: the 2- and 4-bit integers
//! (`s2`, `s4`, `u2`, `u4`) and the five 8-bit floats (`f8e4m3fn`,
//! `f8e5m2`, `f8e4m3b11fnuz`, `f8e4m3fnuz`, `f8e5m2fnuz`). Every narrow
//! element is one byte of storage holding its bit pattern (for the
//! integers, the low 2 or 4 bits of two's complement, high bits zero).
//!
//! The f8 conversions are those of `ml_dtypes` (and XLA CPU): decoding is
//! exact; encoding rounds to nearest, ties to even, directly from the
//! source value (never through another type). Overflow gives ±inf for
//! `f8e5m2`, NaN for the others (no infinities); a NaN becomes
//! `sign|0x7f` (`f8e4m3fn`), `sign|0x7e` (`f8e5m2`) or `0x80` (the fnuz
//! types, whose only NaN it is; they have no -0, so ±0 and negative values
//! rounding to zero become `0x00`). Decoding a NaN gives the quiet f32 NaN
//! with its sign (`0x80` of the fnuz types is -NaN).
//! `tests/data/f8_tables.txt` (written from `ml_dtypes` by
//! `gen_f8_tables.py`) checks all of this bit for bit.
//!
//! Packing ([`pack_bits`], [`unpack_bits`]) converts between that storage
//! and XLA's packed buffers (layout `E(2)`/`E(4)`): physical element `i`
//! sits in byte `i * bits / 8` at bit offset `(i * bits) % 8`, low bits
//! first, as XLA:CPU (jax 0.10.2) lays them out; unused high bits of the
//! last byte are written as zero and ignored when read.

use crate::element_type::ElementType;

/// How an f8 format spends its top codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum F8Kind {
    /// IEEE-like: the top exponent holds ±inf (mantissa 0) and NaNs.
    Ieee,
    /// "fn": finite only; the one all-ones pattern per sign is NaN.
    Fn,
    /// "fnuz": finite only, no -0; `0x80` is the one NaN.
    Fnuz,
}

/// The layout of an f8 type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct F8Format {
    pub exp_bits: u32,
    pub man_bits: u32,
    pub bias: i32,
    pub kind: F8Kind,
}

impl F8Format {
    /// The largest finite value.
    pub fn max(self) -> f64 {
        let top = (1i32 << self.exp_bits) - 1;
        let m = (1u32 << self.man_bits) as f64;
        match self.kind {
            F8Kind::Ieee => (2.0 - 1.0 / m) * 2f64.powi(top - 1 - self.bias),
            F8Kind::Fn => (2.0 - 2.0 / m) * 2f64.powi(top - self.bias),
            F8Kind::Fnuz => (2.0 - 1.0 / m) * 2f64.powi(top - self.bias),
        }
    }

    /// The smallest positive normal value.
    pub fn min_normal(self) -> f64 {
        2f64.powi(1 - self.bias)
    }
}

/// The format of an f8 type; `None` for other types.
pub fn f8_format(ty: ElementType) -> Option<F8Format> {
    let (exp_bits, man_bits, bias, kind) = match ty {
        ElementType::F8E4M3FN => (4, 3, 7, F8Kind::Fn),
        ElementType::F8E5M2 => (5, 2, 15, F8Kind::Ieee),
        ElementType::F8E4M3B11FNUZ => (4, 3, 11, F8Kind::Fnuz),
        ElementType::F8E4M3FNUZ => (4, 3, 8, F8Kind::Fnuz),
        ElementType::F8E5M2FNUZ => (5, 2, 16, F8Kind::Fnuz),
        _ => return None,
    };
    Some(F8Format {
        exp_bits,
        man_bits,
        bias,
        kind,
    })
}

/// Whether the f8 pattern `b` of format `f` is a NaN.
pub fn f8_is_nan(f: F8Format, b: u8) -> bool {
    let mag = b & 0x7f;
    match f.kind {
        F8Kind::Ieee => mag > (((1u8 << f.exp_bits) - 1) << f.man_bits),
        F8Kind::Fn => mag == 0x7f,
        F8Kind::Fnuz => b == 0x80,
    }
}

/// The exact f32 value of an f8 bit pattern.
pub fn f8_decode(f: F8Format, b: u8) -> f32 {
    let neg = b & 0x80 != 0;
    if f8_is_nan(f, b) {
        return if neg || f.kind == F8Kind::Fnuz {
            f32::from_bits(0xffc0_0000)
        } else {
            f32::from_bits(0x7fc0_0000)
        };
    }
    let e = ((b & 0x7f) >> f.man_bits) as i32;
    let m = (b & ((1u8 << f.man_bits) - 1)) as f32;
    let scale = (1u32 << f.man_bits) as f32;
    let mag = if f.kind == F8Kind::Ieee && e == (1 << f.exp_bits) - 1 {
        f32::INFINITY
    } else if e == 0 {
        m / scale * 2f32.powi(1 - f.bias)
    } else {
        (1.0 + m / scale) * 2f32.powi(e - f.bias)
    };
    if neg { -mag } else { mag }
}

/// The f8 pattern nearest to `x` (ties to even), `ml_dtypes`' rules.
pub fn f8_encode(f: F8Format, x: f64) -> u8 {
    let sign: u8 = if x.is_sign_negative() { 0x80 } else { 0 };
    if x.is_nan() {
        return match f.kind {
            F8Kind::Ieee => sign | 0x7e,
            F8Kind::Fn => sign | 0x7f,
            F8Kind::Fnuz => 0x80,
        };
    }
    let overflow = match f.kind {
        F8Kind::Ieee => sign | (((1u8 << f.exp_bits) - 1) << f.man_bits),
        F8Kind::Fn => sign | 0x7f,
        F8Kind::Fnuz => 0x80,
    };
    let a = x.abs();
    if a.is_infinite() {
        return overflow;
    }
    // Quantum of the binade of `a` (subnormals share the lowest one).
    let e = if a == 0.0 {
        1 - f.bias
    } else {
        (a.log2().floor() as i32).max(1 - f.bias)
    };
    // log2 may be off by one near powers of two: fix the binade exactly.
    let e = if a >= 2f64.powi(e + 1) {
        e + 1
    } else if e > 1 - f.bias && a < 2f64.powi(e) {
        e - 1
    } else {
        e
    };
    let q = 2f64.powi(e - f.man_bits as i32);
    // a / q is exact (a power-of-two scaling, no underflow in f64 for any
    // f32 or the f64 range this is used with).
    let n = (a / q).round_ties_even();
    let v = n * q;
    if v > f.max() {
        return overflow;
    }
    if v == 0.0 {
        return if f.kind == F8Kind::Fnuz { 0 } else { sign };
    }
    let n = n as u32;
    let top = 1u32 << f.man_bits;
    let (field, man) = if e == 1 - f.bias && n < top {
        (0, n)
    } else if n >= 2 * top {
        // Rounded up into the next binade.
        ((e + 1 + f.bias) as u32, n / 2 - top)
    } else {
        ((e + f.bias) as u32, n - top)
    };
    sign | ((field << f.man_bits) | man) as u8
}

/// The value of a narrow integer pattern (sign-extended for s2/s4).
pub fn int_n_value(ty: ElementType, b: u8) -> i64 {
    let w = ty.bit_width();
    if ty.is_signed_int() {
        (((b << (8 - w)) as i8) >> (8 - w)) as i64
    } else {
        (b & ((1u8 << w) - 1)) as i64
    }
}

/// The pattern of `v` wrapped to a narrow integer type (two's complement
/// truncation, like every int → int convert).
pub fn int_n_wrap(ty: ElementType, v: i64) -> u8 {
    (v as u8) & ((1u8 << ty.bit_width()) - 1)
}

/// The canonical storage byte of a narrow type's pattern `b` (integers:
/// the low bits only).
pub fn canonical(ty: ElementType, b: u8) -> u8 {
    if ty.is_int_n() {
        int_n_wrap(ty, b as i64)
    } else {
        b
    }
}

/// The value of a narrow element as f64 (exact), for printing and
/// generic conversions.
pub fn to_f64(ty: ElementType, b: u8) -> f64 {
    match f8_format(ty) {
        Some(f) => f8_decode(f, b) as f64,
        None => int_n_value(ty, b) as f64,
    }
}

/// A narrow element from an f64: f8 types round (see [`f8_encode`]),
/// integers saturate (NaN → 0), as a float → int convert does.
pub fn from_f64(ty: ElementType, v: f64) -> u8 {
    match f8_format(ty) {
        Some(f) => f8_encode(f, v),
        None => {
            let (lo, hi) = int_n_range(ty);
            let s = if v.is_nan() {
                0
            } else {
                v.clamp(lo as f64, hi as f64) as i64
            };
            int_n_wrap(ty, s)
        }
    }
}

/// The value range of a narrow integer type.
pub fn int_n_range(ty: ElementType) -> (i64, i64) {
    let w = ty.bit_width();
    if ty.is_signed_int() {
        (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1)
    } else {
        (0, (1i64 << w) - 1)
    }
}

/// Bytes of a packed buffer of `n` elements of `bits` bits (1..=8):
/// ceil(n * bits / 8), without overflow.
pub fn packed_len(n: usize, bits: u32) -> usize {
    let per_byte = (8 / bits.clamp(1, 8)) as usize;
    n.div_ceil(per_byte)
}

/// Packs one-byte-per-element storage `src` (each byte's low `bits` bits
/// are the element) into `dst`, which must be `packed_len(src.len(), bits)`
/// bytes; `bits` is 1, 2 or 4. Padding bits of the last byte become zero.
pub fn pack_bits(src: &[u8], bits: u32, dst: &mut [u8]) -> Result<(), String> {
    check_packed(src.len(), bits, dst.len())?;
    let per_byte = (8 / bits) as usize;
    let mask = ((1u16 << bits) - 1) as u8;
    for (out, chunk) in dst.iter_mut().zip(src.chunks(per_byte)) {
        *out = chunk
            .iter()
            .enumerate()
            .fold(0u8, |acc, (k, &e)| acc | ((e & mask) << (k as u32 * bits)));
    }
    Ok(())
}

/// Unpacks a packed buffer `src` into one byte per element in `dst`
/// (`src` must be `packed_len(dst.len(), bits)` bytes): each element is
/// its `bits`-bit pattern in the low bits, the high bits zero (the
/// canonical storage of s2/u2/s4/u4).
pub fn unpack_bits(src: &[u8], bits: u32, dst: &mut [u8]) -> Result<(), String> {
    check_packed(dst.len(), bits, src.len())?;
    let per_byte = (8 / bits) as usize;
    let mask = ((1u16 << bits) - 1) as u8;
    for (&b, chunk) in src.iter().zip(dst.chunks_mut(per_byte)) {
        for (k, e) in chunk.iter_mut().enumerate() {
            *e = (b >> (k as u32 * bits)) & mask;
        }
    }
    Ok(())
}

fn check_packed(n: usize, bits: u32, packed: usize) -> Result<(), String> {
    if !matches!(bits, 1 | 2 | 4) {
        return Err(format!("cannot pack {bits}-bit elements"));
    }
    let need = packed_len(n, bits);
    if packed != need {
        return Err(format!(
            "packed buffer of {packed} bytes for {n} elements of {bits} bits, which need {need}"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maxima() {
        let m = |t| f8_format(t).unwrap().max();
        assert_eq!(m(ElementType::F8E4M3FN), 448.0);
        assert_eq!(m(ElementType::F8E5M2), 57344.0);
        assert_eq!(m(ElementType::F8E4M3FNUZ), 240.0);
        assert_eq!(m(ElementType::F8E5M2FNUZ), 57344.0);
        assert_eq!(m(ElementType::F8E4M3B11FNUZ), 30.0);
    }

    #[test]
    fn round_trip_every_pattern() {
        for t in ElementType::NARROW.into_iter().filter(|t| t.is_f8()) {
            let f = f8_format(t).unwrap();
            for b in 0..=255u8 {
                let v = f8_decode(f, b);
                if v.is_nan() {
                    continue;
                }
                let back = f8_encode(f, v as f64);
                if f.kind == F8Kind::Fnuz || b != 0x80 {
                    assert_eq!(back, b, "{t} {b:#x} {v}");
                }
            }
        }
    }

    #[test]
    fn ints() {
        assert_eq!(int_n_value(ElementType::S4, 0xf), -1);
        assert_eq!(int_n_value(ElementType::S4, 0x8), -8);
        assert_eq!(int_n_value(ElementType::U4, 0xf), 15);
        assert_eq!(int_n_value(ElementType::S2, 0x2), -2);
        assert_eq!(int_n_wrap(ElementType::S4, 9), 9);
        assert_eq!(
            int_n_value(ElementType::S4, int_n_wrap(ElementType::S4, 9)),
            -7
        );
        assert_eq!(from_f64(ElementType::S4, 100.0), 7);
        assert_eq!(from_f64(ElementType::S4, -8.5), 8);
        assert_eq!(from_f64(ElementType::U2, f64::NAN), 0);
    }
}
