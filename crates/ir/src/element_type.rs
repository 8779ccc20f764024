//! Element (primitive) types of array shapes: `pred`, signed and unsigned
//! integers, floats, complex (`c64`, `c128`) and `token`. Only names, sizes and classification live
//! here; no arithmetic.

use std::fmt;

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
}

impl ElementType {
    /// Every element type, in declaration order.
    pub const ALL: [ElementType; 16] = [
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
        }
    }

    /// Parses an HLO text name; `None` for unknown names.
    pub fn from_name(name: &str) -> Option<ElementType> {
        ElementType::ALL.iter().copied().find(|t| t.name() == name)
    }

    /// Size of one element in bytes (pred is one byte, token zero).
    pub fn byte_size(self) -> usize {
        match self {
            ElementType::Pred | ElementType::S8 | ElementType::U8 => 1,
            ElementType::S16 | ElementType::U16 | ElementType::F16 | ElementType::BF16 => 2,
            ElementType::S32 | ElementType::U32 | ElementType::F32 => 4,
            ElementType::S64 | ElementType::U64 | ElementType::F64 | ElementType::C64 => 8,
            ElementType::C128 => 16,
            ElementType::Token => 0,
        }
    }

    /// Width in bits (pred counts as 1 bit of information but 8 of storage;
    /// this returns the storage width).
    pub fn bit_width(self) -> u32 {
        self.byte_size() as u32 * 8
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElementType::F16 | ElementType::BF16 | ElementType::F32 | ElementType::F64
        )
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
            ElementType::S8 | ElementType::S16 | ElementType::S32 | ElementType::S64
        )
    }

    pub fn is_unsigned_int(self) -> bool {
        matches!(
            self,
            ElementType::U8 | ElementType::U16 | ElementType::U32 | ElementType::U64
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
    }
}
