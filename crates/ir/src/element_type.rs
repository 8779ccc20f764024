//! Element (primitive) types of array shapes: `pred`, signed and unsigned
//! integers (the narrow `s2`/`s4`/`u2`/`u4` included), floats (the 8-bit
//! `f8*` types included), complex (`c64`, `c128`) and `token`. Only names,
//! sizes and classification live here; no arithmetic (the narrow types'
//! encodings are in `narrow.rs`).

use std::fmt;

/// A pattern matching every narrow element type (s2, s4, u2, u4 and the
/// five f8 types): `match t { rxla_ir::narrow_types!() => ..., }`.
#[macro_export]
macro_rules! narrow_types {
    () => {
        $crate::ElementType::S2
            | $crate::ElementType::S4
            | $crate::ElementType::U2
            | $crate::ElementType::U4
            | $crate::ElementType::F8E4M3FN
            | $crate::ElementType::F8E5M2
            | $crate::ElementType::F8E4M3B11FNUZ
            | $crate::ElementType::F8E4M3FNUZ
            | $crate::ElementType::F8E5M2FNUZ
    };
}

/// The element type of an array shape (XLA's `PrimitiveType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElementType {
    Pred,
    S8,
    S16,
    S32,
    S64,
    U8,
    U16,
    U32,
    U64,
    F16,
    BF16,
    F32,
    F64,
    /// Complex of two f32 (real, imaginary), 8 bytes.
    C64,
    /// Complex of two f64 (real, imaginary), 16 bytes.
    C128,
    /// Ordering token (`token[]`): carries no data.
    Token,
    /// 2-bit signed integer, one element per byte (the low 2 bits).
    S2,
    /// 4-bit signed integer, one element per byte (the low 4 bits).
    S4,
    /// 2-bit unsigned integer, one element per byte.
    U2,
    /// 4-bit unsigned integer, one element per byte.
    U4,
    /// 8-bit float, 4 exponent bits (bias 7), 3 mantissa bits, no
    /// infinities, NaN = S.1111.111.
    F8E4M3FN,
    /// 8-bit float, 5 exponent bits (bias 15), 2 mantissa bits, IEEE-like.
    F8E5M2,
    /// 8-bit float, 4 exponent bits (bias 11), 3 mantissa bits, no
    /// infinities, no -0, one NaN = 0x80.
    F8E4M3B11FNUZ,
    /// 8-bit float, 4 exponent bits (bias 8), 3 mantissa bits, no
    /// infinities, no -0, one NaN = 0x80.
    F8E4M3FNUZ,
    /// 8-bit float, 5 exponent bits (bias 16), 2 mantissa bits, no
    /// infinities, no -0, one NaN = 0x80.
    F8E5M2FNUZ,
}

impl ElementType {
    /// Every element type, in declaration order.
    pub const ALL: [ElementType; 25] = [
        ElementType::Pred,
        ElementType::S8,
        ElementType::S16,
        ElementType::S32,
        ElementType::S64,
        ElementType::U8,
        ElementType::U16,
        ElementType::U32,
        ElementType::U64,
        ElementType::F16,
        ElementType::BF16,
        ElementType::F32,
        ElementType::F64,
        ElementType::C64,
        ElementType::C128,
        ElementType::Token,
        ElementType::S2,
        ElementType::S4,
        ElementType::U2,
        ElementType::U4,
        ElementType::F8E4M3FN,
        ElementType::F8E5M2,
        ElementType::F8E4M3B11FNUZ,
        ElementType::F8E4M3FNUZ,
        ElementType::F8E5M2FNUZ,
    ];

    /// The narrow types: s2, s4, u2, u4 and the five f8 types.
    pub const NARROW: [ElementType; 9] = [
        ElementType::S2,
        ElementType::S4,
        ElementType::U2,
        ElementType::U4,
        ElementType::F8E4M3FN,
        ElementType::F8E5M2,
        ElementType::F8E4M3B11FNUZ,
        ElementType::F8E4M3FNUZ,
        ElementType::F8E5M2FNUZ,
    ];

    /// The HLO text name (`f32`, `pred`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ElementType::Pred => "pred",
            ElementType::S8 => "s8",
            ElementType::S16 => "s16",
            ElementType::S32 => "s32",
            ElementType::S64 => "s64",
            ElementType::U8 => "u8",
            ElementType::U16 => "u16",
            ElementType::U32 => "u32",
            ElementType::U64 => "u64",
            ElementType::F16 => "f16",
            ElementType::BF16 => "bf16",
            ElementType::F32 => "f32",
            ElementType::F64 => "f64",
            ElementType::C64 => "c64",
            ElementType::C128 => "c128",
            ElementType::Token => "token",
            ElementType::S2 => "s2",
            ElementType::S4 => "s4",
            ElementType::U2 => "u2",
            ElementType::U4 => "u4",
            ElementType::F8E4M3FN => "f8e4m3fn",
            ElementType::F8E5M2 => "f8e5m2",
            ElementType::F8E4M3B11FNUZ => "f8e4m3b11fnuz",
            ElementType::F8E4M3FNUZ => "f8e4m3fnuz",
            ElementType::F8E5M2FNUZ => "f8e5m2fnuz",
        }
    }

    /// Parses an HLO text name; `None` for unknown names.
    pub fn from_name(name: &str) -> Option<ElementType> {
        ElementType::ALL.iter().copied().find(|t| t.name() == name)
    }

    /// Size of one element in bytes (pred is one byte, token zero; the
    /// narrow types take one byte each: rxla never packs them).
    pub fn byte_size(self) -> usize {
        match self {
            ElementType::Pred | ElementType::S8 | ElementType::U8 => 1,
            crate::narrow_types!() => 1,
            ElementType::S16 | ElementType::U16 | ElementType::F16 | ElementType::BF16 => 2,
            ElementType::S32 | ElementType::U32 | ElementType::F32 => 4,
            ElementType::S64 | ElementType::U64 | ElementType::F64 | ElementType::C64 => 8,
            ElementType::C128 => 16,
            ElementType::Token => 0,
        }
    }

    /// Width in bits, XLA's `BitWidth` (pred counts as 1 bit of
    /// information but 8 of storage; this returns 8 for it). The narrow
    /// integers are 2 or 4 bits wide although stored in a byte.
    pub fn bit_width(self) -> u32 {
        match self {
            ElementType::S2 | ElementType::U2 => 2,
            ElementType::S4 | ElementType::U4 => 4,
            _ => self.byte_size() as u32 * 8,
        }
    }

    /// Floats, the f8 types included.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElementType::F16 | ElementType::BF16 | ElementType::F32 | ElementType::F64
        ) || self.is_f8()
    }

    /// One of the five 8-bit float types.
    pub fn is_f8(self) -> bool {
        matches!(
            self,
            ElementType::F8E4M3FN
                | ElementType::F8E5M2
                | ElementType::F8E4M3B11FNUZ
                | ElementType::F8E4M3FNUZ
                | ElementType::F8E5M2FNUZ
        )
    }

    /// s2, s4, u2 or u4.
    pub fn is_int_n(self) -> bool {
        matches!(
            self,
            ElementType::S2 | ElementType::S4 | ElementType::U2 | ElementType::U4
        )
    }

    /// The narrow types (held as `ArrayData::Narrow`): f8 and 2/4-bit ints.
    pub fn is_narrow(self) -> bool {
        self.is_f8() || self.is_int_n()
    }

    /// c64 or c128 (not counted by [`ElementType::is_float`]).
    pub fn is_complex(self) -> bool {
        matches!(self, ElementType::C64 | ElementType::C128)
    }

    /// The type of one component of a complex type (f32 for c64, f64 for
    /// c128); `None` for other types.
    pub fn complex_component(self) -> Option<ElementType> {
        match self {
            ElementType::C64 => Some(ElementType::F32),
            ElementType::C128 => Some(ElementType::F64),
            _ => None,
        }
    }

    /// The complex type whose components are `self` (c64 for f32, c128
    /// for f64); `None` for other types.
    pub fn complex_of(self) -> Option<ElementType> {
        match self {
            ElementType::F32 => Some(ElementType::C64),
            ElementType::F64 => Some(ElementType::C128),
            _ => None,
        }
    }

    pub fn is_signed_int(self) -> bool {
        matches!(
            self,
            ElementType::S2
                | ElementType::S4
                | ElementType::S8
                | ElementType::S16
                | ElementType::S32
                | ElementType::S64
        )
    }

    pub fn is_unsigned_int(self) -> bool {
        matches!(
            self,
            ElementType::U2
                | ElementType::U4
                | ElementType::U8
                | ElementType::U16
                | ElementType::U32
                | ElementType::U64
        )
    }

    /// Signed or unsigned integer (not pred).
    pub fn is_integer(self) -> bool {
        self.is_signed_int() || self.is_unsigned_int()
    }

    pub fn is_pred(self) -> bool {
        self == ElementType::Pred
    }

    pub fn is_token(self) -> bool {
        self == ElementType::Token
    }

    /// Types that hold array data (everything but token).
    pub fn is_array_type(self) -> bool {
        !self.is_token()
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in ElementType::ALL {
            assert_eq!(ElementType::from_name(t.name()), Some(t));
        }
        assert_eq!(ElementType::from_name("f128"), None);
        assert_eq!(ElementType::F32.byte_size(), 4);
        assert_eq!(ElementType::BF16.byte_size(), 2);
        assert!(ElementType::BF16.is_float());
        assert!(!ElementType::Pred.is_integer());
        assert_eq!(ElementType::C64.byte_size(), 8);
        assert_eq!(ElementType::C128.byte_size(), 16);
        assert_eq!(ElementType::from_name("c64"), Some(ElementType::C64));
        assert_eq!(
            ElementType::C128.complex_component(),
            Some(ElementType::F64)
        );
        assert_eq!(ElementType::F32.complex_of(), Some(ElementType::C64));
        assert!(!ElementType::C64.is_float());
        assert_eq!(ElementType::from_name("s4"), Some(ElementType::S4));
        assert_eq!(
            ElementType::from_name("f8e4m3b11fnuz"),
            Some(ElementType::F8E4M3B11FNUZ)
        );
        assert_eq!(ElementType::S4.bit_width(), 4);
        assert_eq!(ElementType::U2.byte_size(), 1);
        assert!(ElementType::F8E5M2.is_float() && ElementType::S2.is_signed_int());
    }
}
