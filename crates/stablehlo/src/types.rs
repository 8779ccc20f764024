//! MLIR types as StableHLO uses them — `tensor<2x3xf32>`, scalar element
//! types (`i1`, `ui8`, `bf16`, `complex<f32>`), `tuple<...>` and
//! `!stablehlo.token` — and their mapping to rxla shapes (i1→pred,
//! iN→sN, uiN→uN, complex<f32>→c64, row-major layouts), bounded dynamic
//! dims `tensor<?x4xf32, #stablehlo.bounds<4, ?>>` → `f32[<=4,4]`.
//! Parsing and mapping only: types the IR lacks (unbounded dynamic dims,
//! other encodings, quantized) are errors naming what was found; nothing
//! here builds instructions.

use crate::lexer::{Lexer, MAX_DEPTH, Tok};
use rxla_ir::{DynamicDims, ElementType, IrError, Shape};

/// A parsed type.
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    /// A scalar element type outside a tensor (`i64` in `1 : i64`).
    Scalar(ElementType),
    /// `tensor<dims x elem>`; a dynamic dim holds its bound and its bit
    /// in the mask.
    Tensor(Vec<i64>, ElementType, DynamicDims),
    Tuple(Vec<Type>),
    Token,
}

impl Type {
    /// The rxla shape (a scalar type is a rank-0 array).
    pub fn to_shape(&self) -> Result<Shape, IrError> {
        Ok(match self {
            Type::Scalar(e) => Shape::scalar(*e),
            Type::Tensor(d, e, m) => {
                let mut s = rxla_ir::ArrayShape::new(*e, d.clone())?;
                s.dynamic = *m;
                let s = Shape::Array(s);
                s.validate()?;
                s
            }
            Type::Tuple(ts) => {
                Shape::tuple(ts.iter().map(Type::to_shape).collect::<Result<_, _>>()?)
            }
            Type::Token => Shape::token(),
        })
    }

    pub fn element_type(&self) -> Option<ElementType> {
        match self {
            Type::Scalar(e) | Type::Tensor(_, e, _) => Some(*e),
            _ => None,
        }
    }

    pub fn dims(&self) -> &[i64] {
        match self {
            Type::Tensor(d, _, _) => d,
            _ => &[],
        }
    }
}

impl std::fmt::Display for Type {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Type::Scalar(e) => write!(f, "{}", mlir_name(*e)),
            Type::Tensor(d, e, m) => {
                write!(f, "tensor<")?;
                for (i, x) in d.iter().enumerate() {
                    if m.get(i) {
                        write!(f, "?x")?;
                    } else {
                        write!(f, "{x}x")?;
                    }
                }
                write!(f, "{}", mlir_name(*e))?;
                if !m.is_static() {
                    write!(f, ", #stablehlo.bounds<")?;
                    for (i, x) in d.iter().enumerate() {
                        if i > 0 {
                            write!(f, ", ")?;
                        }
                        if m.get(i) {
                            write!(f, "{x}")?;
                        } else {
                            write!(f, "?")?;
                        }
                    }
                    write!(f, ">")?;
                }
                write!(f, ">")
            }
            Type::Tuple(ts) => {
                write!(f, "tuple<")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{t}")?;
                }
                write!(f, ">")
            }
            Type::Token => write!(f, "!stablehlo.token"),
        }
    }
}

/// The MLIR spelling of an element type.
pub fn mlir_name(e: ElementType) -> &'static str {
    use ElementType::*;
    match e {
        Pred => "i1",
        S8 => "i8",
        S16 => "i16",
        S32 => "i32",
        S64 => "i64",
        U8 => "ui8",
        U16 => "ui16",
        U32 => "ui32",
        U64 => "ui64",
        F16 => "f16",
        BF16 => "bf16",
        F32 => "f32",
        F64 => "f64",
        C64 => "complex<f32>",
        C128 => "complex<f64>",
        Token => "!stablehlo.token",
        S2 => "i2",
        S4 => "i4",
        U2 => "ui2",
        U4 => "ui4",
        F8E4M3FN => "f8E4M3FN",
        F8E5M2 => "f8E5M2",
        F8E4M3B11FNUZ => "f8E4M3B11FNUZ",
        F8E4M3FNUZ => "f8E4M3FNUZ",
        F8E5M2FNUZ => "f8E5M2FNUZ",
    }
}

/// Maps a bare element type name; `None` if it is not one rxla has.
pub fn element_type(name: &str) -> Option<ElementType> {
    use ElementType::*;
    Some(match name {
        "i1" => Pred,
        "i8" | "si8" => S8,
        "i16" | "si16" => S16,
        "i32" | "si32" => S32,
        "i64" | "si64" => S64,
        "ui8" => U8,
        "ui16" => U16,
        "ui32" => U32,
        "ui64" => U64,
        "f16" => F16,
        "bf16" => BF16,
        "f32" => F32,
        "f64" => F64,
        "index" => S64,
        "i2" | "si2" => S2,
        "i4" | "si4" => S4,
        "ui2" => U2,
        "ui4" => U4,
        "f8E4M3FN" => F8E4M3FN,
        "f8E5M2" => F8E5M2,
        "f8E4M3B11FNUZ" => F8E4M3B11FNUZ,
        "f8E4M3FNUZ" => F8E4M3FNUZ,
        "f8E5M2FNUZ" => F8E5M2FNUZ,
        _ => return None,
    })
}

fn unsupported_element(name: &str) -> String {
    let why = if name.starts_with("f8") || name.starts_with("f4") || name.starts_with("f6") {
        " (rxla has the f8 types f8E4M3FN, f8E5M2, f8E4M3B11FNUZ, f8E4M3FNUZ, f8E5M2FNUZ)"
    } else if name.starts_with('i') || name.starts_with("ui") || name.starts_with("si") {
        " (rxla has 2, 4, 8, 16, 32 and 64-bit integers and i1)"
    } else {
        ""
    };
    format!(
        "unsupported element type '{name}'{why}; expected i1, i2, i4, i8..i64, ui2, ui4, ui8..ui64, f8E4M3FN, f8E5M2, f8E4M3B11FNUZ, f8E4M3FNUZ, f8E5M2FNUZ, f16, bf16, f32, f64 or complex<f32|f64>"
    )
}

/// Parses a type at the lexer's position.
pub fn parse_type(lx: &mut Lexer, depth: usize) -> Result<Type, IrError> {
    let (tok, pos) = lx.next()?;
    if depth > MAX_DEPTH {
        return Err(lx.err_at(pos, "types nested too deeply"));
    }
    match tok {
        Tok::Ident(name) => match name.as_str() {
            "tensor" => {
                expect_punct(lx, '<')?;
                let dims_at = lx.pos;
                let dims = lx.dims()?;
                let (et, epos) = lx.next()?;
                let elem = match et {
                    Tok::Ident(n) if n == "complex" => complex(lx)?,
                    Tok::Ident(n) => {
                        element_type(&n).ok_or_else(|| lx.err_at(epos, unsupported_element(&n)))?
                    }
                    Tok::Bang(n) if n == "stablehlo.token" => {
                        return Err(lx.err_at(epos, "a tensor of tokens is not supported"));
                    }
                    t => {
                        return Err(lx.err_at(
                            epos,
                            format!(
                                "expected an element type in tensor<...>, found {}",
                                t.describe()
                            ),
                        ));
                    }
                };
                let (t, p) = lx.next()?;
                match t {
                    Tok::Punct('>') => {
                        if dims.iter().any(Option::is_none) {
                            return Err(lx.err_at(
                                dims_at,
                                "dynamic dimension '?' without a bound: rxla supports bounded dynamic dimensions only (tensor<?x...xf32, #stablehlo.bounds<N, ...>>)",
                            ));
                        }
                        Ok(Type::Tensor(dims.into_iter().flatten().collect(), elem, DynamicDims::STATIC))
                    }
                    Tok::Punct(',') => {
                        let (dims, mask) = bounds(lx, &dims)?;
                        expect_punct(lx, '>')?;
                        Ok(Type::Tensor(dims, elem, mask))
                    }
                    t => Err(lx.err_at(
                        p,
                        format!("expected '>' after the tensor type, found {}", t.describe()),
                    )),
                }
            }
            "tuple" => {
                expect_punct(lx, '<')?;
                let mut elems = Vec::new();
                if lx.peek_byte() == Some(b'>') {
                    lx.next()?;
                    return Ok(Type::Tuple(elems));
                }
                loop {
                    elems.push(parse_type(lx, depth + 1)?);
                    let (t, p) = lx.next()?;
                    match t {
                        Tok::Punct(',') => continue,
                        Tok::Punct('>') => return Ok(Type::Tuple(elems)),
                        t => {
                            return Err(lx.err_at(
                                p,
                                format!(
                                    "expected ',' or '>' in tuple<...>, found {}",
                                    t.describe()
                                ),
                            ));
                        }
                    }
                }
            }
            "complex" => Ok(Type::Scalar(complex(lx)?)),
            n => element_type(n).map(Type::Scalar).ok_or_else(|| {
                // `f8E4M3FN`, `i4`, `ui2`: an element type rxla lacks.
                let looks_elem = n.len() <= 16
                    && n
                        .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                        .starts_with(|c: char| c.is_ascii_digit());
                if looks_elem {
                    lx.err_at(pos, unsupported_element(n))
                } else {
                    lx.err_at(
                        pos,
                        format!("expected a type (tensor<...>, tuple<...>, !stablehlo.token or an element type), found '{n}'"),
                    )
                }
            }),
        },
        Tok::Bang(n) if n == "stablehlo.token" => Ok(Type::Token),
        Tok::Bang(n) => Err(lx.err_at(
            pos,
            format!(
                "unsupported type '!{n}'; expected tensor<...>, tuple<...> or !stablehlo.token"
            ),
        )),
        t => Err(lx.err_at(pos, format!("expected a type, found {}", t.describe()))),
    }
}

/// Reads `#stablehlo.bounds<b0, ?, ...>` (after the `,` of a tensor type):
/// one entry per dim, a positive bound for each `?` dim and `?` for each
/// static one. Returns the dims (bounds in place of `?`) and the mask.
fn bounds(lx: &mut Lexer, dims: &[Option<i64>]) -> Result<(Vec<i64>, DynamicDims), IrError> {
    let (t, p) = lx.next()?;
    match t {
        Tok::Hash(n) if n == "stablehlo.bounds" => {}
        t => {
            return Err(lx.err_at(
                p,
                format!(
                    "unsupported tensor encoding {}; rxla reads #stablehlo.bounds<...> only",
                    t.describe()
                ),
            ));
        }
    }
    expect_punct(lx, '<')?;
    let mut out = Vec::with_capacity(dims.len());
    let mut mask = DynamicDims::STATIC;
    for (i, d) in dims.iter().enumerate() {
        if i > 0 {
            expect_punct(lx, ',')?;
        }
        let (t, p) = lx.next()?;
        match (d, t) {
            (None, Tok::Int(s)) => {
                let b: i64 = s
                    .parse()
                    .map_err(|_| lx.err_at(p, format!("bad bound '{s}'")))?;
                if !(1..=rxla_ir::shape::MAX_DIM).contains(&b) {
                    return Err(lx.err_at(
                        p,
                        format!(
                            "the bound of a dynamic dimension must be in 1..={}, got {b}",
                            rxla_ir::shape::MAX_DIM
                        ),
                    ));
                }
                mask.set(i, true).map_err(|e| lx.err_at(p, e.to_string()))?;
                out.push(b);
            }
            (Some(s), Tok::Punct('?')) => out.push(*s),
            (None, Tok::Punct('?')) => {
                return Err(lx.err_at(
                    p,
                    format!("dimension {i} is dynamic without a bound: rxla supports bounded dynamic dimensions only"),
                ));
            }
            (Some(_), t) => {
                return Err(lx.err_at(
                    p,
                    format!(
                        "expected '?' for static dimension {i} in the bounds, found {}",
                        t.describe()
                    ),
                ));
            }
            (None, t) => {
                return Err(lx.err_at(
                    p,
                    format!(
                        "expected the bound of dynamic dimension {i}, found {}",
                        t.describe()
                    ),
                ));
            }
        }
    }
    let (t, p) = lx.next()?;
    if t != Tok::Punct('>') {
        return Err(lx.err_at(
            p,
            format!(
                "expected '>' after {} bounds (one per dimension), found {}",
                dims.len(),
                t.describe()
            ),
        ));
    }
    Ok((out, mask))
}

fn complex(lx: &mut Lexer) -> Result<ElementType, IrError> {
    expect_punct(lx, '<')?;
    let (t, p) = lx.next()?;
    let e = match t {
        Tok::Ident(n) if n == "f32" => ElementType::C64,
        Tok::Ident(n) if n == "f64" => ElementType::C128,
        t => {
            return Err(lx.err_at(
                p,
                format!(
                    "expected f32 or f64 in complex<...>, found {}",
                    t.describe()
                ),
            ));
        }
    };
    expect_punct(lx, '>')?;
    Ok(e)
}

/// Consumes punctuation `c` or fails naming what was found.
pub fn expect_punct(lx: &mut Lexer, c: char) -> Result<usize, IrError> {
    let (t, p) = lx.next()?;
    if t == Tok::Punct(c) {
        Ok(p)
    } else {
        Err(lx.err_at(p, format!("expected '{c}', found {}", t.describe())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(s: &str) -> Result<Type, IrError> {
        parse_type(&mut Lexer::new(s, "t.mlir"), 0)
    }

    #[test]
    fn maps_types() {
        assert_eq!(
            ty("tensor<2x3xf32>").unwrap(),
            Type::Tensor(vec![2, 3], ElementType::F32, DynamicDims::STATIC)
        );
        assert_eq!(
            ty("tensor<i1>").unwrap(),
            Type::Tensor(vec![], ElementType::Pred, DynamicDims::STATIC)
        );
        assert_eq!(
            ty("tensor<4xui8>").unwrap(),
            Type::Tensor(vec![4], ElementType::U8, DynamicDims::STATIC)
        );
        assert_eq!(
            ty("tensor<0x2xcomplex<f64>>").unwrap(),
            Type::Tensor(vec![0, 2], ElementType::C128, DynamicDims::STATIC)
        );
        assert_eq!(
            ty("tuple<tensor<bf16>, !stablehlo.token>").unwrap(),
            Type::Tuple(vec![
                Type::Tensor(vec![], ElementType::BF16, DynamicDims::STATIC),
                Type::Token
            ])
        );
        assert_eq!(ty("tensor<3xi64>").unwrap().to_string(), "tensor<3xi64>");
        // The narrow types.
        assert_eq!(
            ty("tensor<2xf8E4M3FN>").unwrap(),
            Type::Tensor(vec![2], ElementType::F8E4M3FN, DynamicDims::STATIC)
        );
        assert_eq!(
            ty("tensor<ui4>").unwrap(),
            Type::Tensor(vec![], ElementType::U4, DynamicDims::STATIC)
        );
        assert_eq!(ty("tensor<3xi2>").unwrap().to_string(), "tensor<3xi2>");
        // Bounded dynamic dims.
        let t = ty("tensor<?x4xf32, #stablehlo.bounds<8, ?>>").unwrap();
        assert_eq!(t.to_string(), "tensor<?x4xf32, #stablehlo.bounds<8, ?>>");
        assert_eq!(t.to_shape().unwrap().to_string(), "f32[<=8,4]{1,0}");
    }

    #[test]
    fn bad_types_are_located_errors() {
        let e = ty("tensor<2xf4E2M1FN>").unwrap_err().to_string();
        assert!(
            e.starts_with("t.mlir:1:10: error: unsupported element type 'f4E2M1FN'"),
            "{e}"
        );
        let e = ty("tensor<?x2xf32>").unwrap_err().to_string();
        assert!(e.starts_with("t.mlir:1:8: error: dynamic dimension"), "{e}");
        let e = ty("tensor<?x2xf32, #stablehlo.bounds<?, ?>>")
            .unwrap_err()
            .to_string();
        assert!(e.contains("without a bound"), "{e}");
        let e = ty("tensor<?x2xf32, #stablehlo.bounds<0, ?>>")
            .unwrap_err()
            .to_string();
        assert!(e.contains("must be in 1..="), "{e}");
        let e = ty("tensor<?x2xf32, #stablehlo.bounds<4>>")
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected ','"), "{e}");
        let e = ty("tensor<?x2xf32, #foo<4, ?>>").unwrap_err().to_string();
        assert!(e.contains("unsupported tensor encoding"), "{e}");
        let e = ty("tensor<2xf32").unwrap_err().to_string();
        assert!(e.contains("expected '>'"), "{e}");
        let deep = "tuple<".repeat(10_000);
        assert!(
            ty(&deep)
                .unwrap_err()
                .to_string()
                .contains("nested too deeply")
        );
    }
}
