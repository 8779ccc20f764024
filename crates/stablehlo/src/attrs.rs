//! MLIR attribute values: integers and floats (with `: type`), bools,
//! strings, `[...]` arrays, `array<i64: ...>`, `dense<...>` elements
//! (nested lists, complex pairs, `0x` bit patterns, `"0x..."` hex
//! blobs), `{...}` dictionaries, `@symbols`, `#stablehlo<kind VALUE>`
//! enums and `#stablehlo.name<key = value, ...>` structs; `#alias`
//! references resolve through the module's alias table. Also turns a
//! `dense<...>` into an rxla [`Literal`]. It reads values only; which
//! attribute an op needs is the converter's business.

use crate::lexer::{Lexer, MAX_DEPTH, Tok};
use crate::types::{Type, expect_punct, parse_type};
use rxla_ir::{ArrayData, ArrayLiteral, ArrayShape, ElementType, IrError, Literal};
use std::collections::HashMap;

/// One element (or a nesting level) of a `dense<...>` literal.
#[derive(Clone, Debug, PartialEq)]
pub enum DenseVal {
    /// An integer as written (`-3`, `0x7FC00000`).
    Int(String),
    Float(String),
    Bool(bool),
    Complex(Box<DenseVal>, Box<DenseVal>),
    List(Vec<DenseVal>),
    /// `"0x..."`: raw little-endian element bytes.
    Hex(Vec<u8>),
}

/// An attribute value.
#[derive(Clone, Debug, PartialEq)]
pub enum Attr {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    Array(Vec<Attr>),
    Dense(DenseVal, Option<Type>),
    Dict(Vec<(String, Attr)>),
    Symbol(String),
    /// `#dialect<kind VALUE>` (kind, value) or a bare identifier
    /// (`DEFAULT`, `GT`): kind empty.
    Enum(String, String),
    /// `#dialect.name<key = value, ...>`.
    Struct(String, Vec<(String, Attr)>),
    Type(Type),
    Unit,
    /// Something kept as text (unknown `#dialect<...>` forms).
    Other(String),
}

impl Attr {
    pub fn describe(&self) -> &'static str {
        match self {
            Attr::Int(_) => "an integer",
            Attr::Float(_) => "a float",
            Attr::Bool(_) => "a bool",
            Attr::Str(_) => "a string",
            Attr::Array(_) => "an array",
            Attr::Dense(..) => "dense elements",
            Attr::Dict(_) => "a dictionary",
            Attr::Symbol(_) => "a symbol",
            Attr::Enum(..) => "an enum",
            Attr::Struct(..) => "a #stablehlo struct",
            Attr::Type(_) => "a type",
            Attr::Unit => "a unit attribute",
            Attr::Other(_) => "an unrecognised attribute",
        }
    }

    /// Integers of an array, `array<i64: ...>` or dense elements.
    pub fn as_i64s(&self) -> Option<Vec<i64>> {
        match self {
            Attr::Array(v) => v
                .iter()
                .map(|a| match a {
                    Attr::Int(i) => Some(*i),
                    Attr::Bool(b) => Some(*b as i64),
                    _ => None,
                })
                .collect(),
            Attr::Dense(d, _) => {
                let mut out = Vec::new();
                flatten_ints(d, &mut out)?;
                Some(out)
            }
            Attr::Int(i) => Some(vec![*i]),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Attr::Int(i) => Some(*i),
            Attr::Dense(DenseVal::Int(s), _) => parse_int(s).and_then(|v| i64::try_from(v).ok()),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Attr::Bool(b) => Some(*b),
            Attr::Unit => Some(true),
            _ => None,
        }
    }

    /// The value of an enum-like attribute (`#stablehlo<x V>`, `V`, `"V"`).
    pub fn as_enum(&self) -> Option<&str> {
        match self {
            Attr::Enum(_, v) | Attr::Str(v) => Some(v),
            _ => None,
        }
    }

    /// Fields of a struct or dictionary.
    pub fn fields(&self) -> Option<&[(String, Attr)]> {
        match self {
            Attr::Struct(_, f) | Attr::Dict(f) => Some(f),
            _ => None,
        }
    }
}

impl Attr {
    /// MLIR-like text of the value (used to keep attributes such as a
    /// custom call's `backend_config` verbatim on the instruction).
    pub fn to_text(&self) -> String {
        fn fields(f: &[(String, Attr)]) -> String {
            f.iter()
                .map(|(k, v)| {
                    if *v == Attr::Unit {
                        k.clone()
                    } else {
                        format!("{k} = {}", v.to_text())
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        }
        match self {
            Attr::Int(i) => i.to_string(),
            Attr::Float(f) => format!("{f:?}"),
            Attr::Bool(b) => b.to_string(),
            Attr::Str(s) => format!("{s:?}"),
            Attr::Array(v) => format!(
                "[{}]",
                v.iter().map(Attr::to_text).collect::<Vec<_>>().join(", ")
            ),
            Attr::Dense(..) => "dense<...>".into(),
            Attr::Dict(f) => format!("{{{}}}", fields(f)),
            Attr::Symbol(s) => format!("@{s}"),
            Attr::Enum(k, v) if k.is_empty() => v.clone(),
            Attr::Enum(k, v) => format!("#stablehlo<{k} {v}>"),
            Attr::Struct(n, f) => format!("#{n}<{}>", fields(f)),
            Attr::Type(t) => t.to_string(),
            Attr::Unit => "unit".into(),
            Attr::Other(s) => s.clone(),
        }
    }
}

/// Looks up `key` in a field list.
pub fn field<'a>(fields: &'a [(String, Attr)], key: &str) -> Option<&'a Attr> {
    fields.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn flatten_ints(d: &DenseVal, out: &mut Vec<i64>) -> Option<()> {
    match d {
        DenseVal::Int(s) => out.push(i64::try_from(parse_int(s)?).ok()?),
        DenseVal::Bool(b) => out.push(*b as i64),
        DenseVal::List(v) => {
            for x in v {
                flatten_ints(x, out)?;
            }
        }
        _ => return None,
    }
    Some(())
}

/// Parses a decimal or `0x` integer (with sign) into an i128.
pub fn parse_int(s: &str) -> Option<i128> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u128::from_str_radix(h, 16)
            .ok()
            .and_then(|v| i128::try_from(v).ok())?
    } else {
        body.parse::<i128>().ok()?
    };
    Some(if neg { -v } else { v })
}

/// Attribute aliases (`#name = ...` at module level).
pub type Aliases = HashMap<String, Attr>;

/// Parses an attribute value where a following `:` belongs to the
/// enclosing syntax (custom op forms: `dim = 0 : tensor<...>`), so a
/// number takes no `: type` suffix.
pub fn parse_attr_bare(lx: &mut Lexer, aliases: &Aliases) -> Result<Attr, IrError> {
    let save = lx.pos;
    let (t, p) = lx.next()?;
    match t {
        Tok::Int(s) => parse_int(&s)
            .and_then(|v| i64::try_from(v).ok())
            .map(Attr::Int)
            .ok_or_else(|| lx.err_at(p, format!("integer '{s}' does not fit in 64 bits"))),
        Tok::Float(s) => s
            .parse()
            .map(Attr::Float)
            .map_err(|_| lx.err_at(p, format!("bad float '{s}'"))),
        _ => {
            lx.pos = save;
            parse_attr(lx, aliases, 0)
        }
    }
}

/// Parses an attribute value.
pub fn parse_attr(lx: &mut Lexer, aliases: &Aliases, depth: usize) -> Result<Attr, IrError> {
    let (tok, pos) = lx.next()?;
    if depth > MAX_DEPTH {
        return Err(lx.err_at(pos, "attributes nested too deeply"));
    }
    let a = match tok {
        Tok::Int(s) => {
            let v = parse_int(&s)
                .and_then(|v| {
                    i64::try_from(v)
                        .ok()
                        .or_else(|| u64::try_from(v).ok().map(|u| u as i64))
                })
                .ok_or_else(|| lx.err_at(pos, format!("integer '{s}' does not fit in 64 bits")))?;
            skip_type_suffix(lx)?;
            Attr::Int(v)
        }
        Tok::Float(s) => {
            let v: f64 = s
                .parse()
                .map_err(|_| lx.err_at(pos, format!("bad float '{s}'")))?;
            skip_type_suffix(lx)?;
            Attr::Float(v)
        }
        Tok::Str(s) => {
            skip_type_suffix(lx)?;
            Attr::Str(s)
        }
        Tok::Symbol(s) => Attr::Symbol(s),
        Tok::Punct('[') => {
            let mut v = Vec::new();
            if lx.peek_byte() == Some(b']') {
                lx.next()?;
            } else {
                loop {
                    v.push(parse_attr(lx, aliases, depth + 1)?);
                    let (t, p) = lx.next()?;
                    match t {
                        Tok::Punct(',') => continue,
                        Tok::Punct(']') => break,
                        t => {
                            return Err(lx.err_at(
                                p,
                                format!("expected ',' or ']' in an array, found {}", t.describe()),
                            ));
                        }
                    }
                }
            }
            Attr::Array(v)
        }
        Tok::Punct('{') => {
            lx.pos = pos;
            Attr::Dict(parse_dict(lx, aliases, depth + 1)?)
        }
        Tok::Ident(id) => match id.as_str() {
            "true" => Attr::Bool(true),
            "false" => Attr::Bool(false),
            "unit" => Attr::Unit,
            "dense" => {
                expect_punct(lx, '<')?;
                let v = if lx.peek_byte() == Some(b'>') {
                    DenseVal::List(Vec::new())
                } else {
                    parse_dense(lx, depth + 1)?
                };
                expect_punct(lx, '>')?;
                let ty = if lx.peek_byte() == Some(b':') {
                    lx.next()?;
                    Some(parse_type(lx, depth + 1)?)
                } else {
                    None
                };
                Attr::Dense(v, ty)
            }
            "array" => {
                expect_punct(lx, '<')?;
                let (t, p) = lx.next()?;
                let Tok::Ident(elem) = t else {
                    return Err(lx.err_at(
                        p,
                        format!(
                            "expected an element type in array<...>, found {}",
                            t.describe()
                        ),
                    ));
                };
                let mut v = Vec::new();
                if lx.peek_byte() == Some(b':') {
                    lx.next()?;
                    loop {
                        let (t, p) = lx.next()?;
                        v.push(match t {
                            Tok::Int(s) => Attr::Int(
                                parse_int(&s)
                                    .and_then(|v| i64::try_from(v).ok())
                                    .ok_or_else(|| {
                                        lx.err_at(
                                            p,
                                            format!("integer '{s}' does not fit in 64 bits"),
                                        )
                                    })?,
                            ),
                            Tok::Ident(b) if b == "true" => Attr::Bool(true),
                            Tok::Ident(b) if b == "false" => Attr::Bool(false),
                            Tok::Float(s) => {
                                Attr::Float(s.parse().map_err(|_| lx.err_at(p, "bad float"))?)
                            }
                            t => {
                                return Err(lx.err_at(
                                    p,
                                    format!(
                                        "expected an {elem} value in array<...>, found {}",
                                        t.describe()
                                    ),
                                ));
                            }
                        });
                        let (t, p) = lx.next()?;
                        match t {
                            Tok::Punct(',') => continue,
                            Tok::Punct('>') => break,
                            t => {
                                return Err(lx.err_at(
                                    p,
                                    format!(
                                        "expected ',' or '>' in array<...>, found {}",
                                        t.describe()
                                    ),
                                ));
                            }
                        }
                    }
                } else {
                    expect_punct(lx, '>')?;
                }
                Attr::Array(v)
            }
            "dense_resource" => {
                return Err(lx.err_at(
                    pos,
                    "dense_resource<...> constants (external blobs) are not supported",
                ));
            }
            "tensor" | "tuple" | "complex" => {
                lx.pos = pos;
                Attr::Type(parse_type(lx, depth + 1)?)
            }
            _ => Attr::Enum(String::new(), id),
        },
        Tok::Bang(_) => {
            lx.pos = pos;
            Attr::Type(parse_type(lx, depth + 1)?)
        }
        Tok::Hash(name) => {
            if lx.src.as_bytes().get(lx.pos) == Some(&b'<') {
                parse_hash_body(lx, aliases, name, depth + 1)?
            } else if let Some(a) = aliases.get(&name) {
                a.clone()
            } else {
                return Err(lx.err_at(pos, format!("unknown attribute alias '#{name}'")));
            }
        }
        t => {
            return Err(lx.err_at(
                pos,
                format!("expected an attribute value, found {}", t.describe()),
            ));
        }
    };
    Ok(a)
}

/// After `#name` with `<` next: `#stablehlo<kind V>`, `#x.y<k = v, ...>`,
/// the convolution's `#stablehlo.conv<[b, 0, f]x[...]->[...]>` or, failing
/// those, the raw text.
fn parse_hash_body(
    lx: &mut Lexer,
    aliases: &Aliases,
    name: String,
    depth: usize,
) -> Result<Attr, IrError> {
    let open = lx.pos;
    lx.pos += 1;
    let save = lx.pos;
    if !name.contains('.') {
        // `#stablehlo<comparison_direction GT>`, `#stablehlo<precision DEFAULT>`.
        if let (Tok::Ident(kind), _) = lx.next()?
            && let (Tok::Ident(v), _) = lx.next()?
            && lx.peek_byte() == Some(b'>')
        {
            lx.next()?;
            return Ok(Attr::Enum(kind, v));
        }
    } else if name == "stablehlo.conv" && lx.peek_byte() == Some(b'[') {
        if let Ok(d) = parse_conv_dims(lx)
            && lx.peek_byte() == Some(b'>')
        {
            lx.next()?;
            return Ok(d);
        }
    } else {
        lx.pos = save;
        // `#stablehlo.conv<raw input_batch_dimension = 0, ...>`: the
        // `raw` marker, then the fields.
        if name == "stablehlo.conv" && !matches!(lx.next()?, (Tok::Ident(ref r), _) if r == "raw") {
            lx.pos = save;
        }
        let mut fields = Vec::new();
        let ok = (|| -> Result<(), IrError> {
            if lx.peek_byte() == Some(b'>') {
                lx.next()?;
                return Ok(());
            }
            loop {
                let (t, p) = lx.next()?;
                let Tok::Ident(k) = t else {
                    return Err(lx.err_at(p, "expected a key"));
                };
                if lx.peek_byte() == Some(b'=') {
                    lx.next()?;
                    fields.push((k, parse_attr(lx, aliases, depth + 1)?));
                } else {
                    fields.push((k, Attr::Unit));
                }
                let (t, p) = lx.next()?;
                match t {
                    Tok::Punct(',') => continue,
                    Tok::Punct('>') => return Ok(()),
                    _ => return Err(lx.err_at(p, "expected ',' or '>'")),
                }
            }
        })();
        if ok.is_ok() {
            return Ok(Attr::Struct(name, fields));
        }
    }
    // Unknown syntax: keep the balanced text.
    lx.pos = open;
    let raw = skip_balanced(lx)?;
    Ok(Attr::Other(format!("#{name}{raw}")))
}

/// Skips a balanced `<...>`, `(...)`, `[...]` or `{...}` group starting at
/// `lx.pos` (strings respected) and returns its text.
pub fn skip_balanced(lx: &mut Lexer) -> Result<String, IrError> {
    let start = lx.pos;
    let b = lx.src.as_bytes();
    let mut stack: Vec<u8> = Vec::new();
    let mut i = start;
    while i < b.len() {
        match b[i] {
            b'<' | b'(' | b'[' | b'{' => {
                if stack.len() > MAX_DEPTH * 8 {
                    return Err(lx.err_at(i, "brackets nested too deeply"));
                }
                stack.push(b[i]);
            }
            c @ (b'>' | b')' | b']' | b'}') => {
                // `->` inside a group is not a closing bracket.
                if c == b'>' && i > 0 && b[i - 1] == b'-' {
                    i += 1;
                    continue;
                }
                let want = match c {
                    b'>' => b'<',
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                if stack.pop() != Some(want) {
                    return Err(lx.err_at(i, format!("unbalanced '{}'", c as char)));
                }
                if stack.is_empty() {
                    lx.pos = i + 1;
                    return Ok(lx.src[start..lx.pos].to_string());
                }
            }
            b'"' => {
                lx.pos = i;
                lx.next()?; // the string token
                i = lx.pos;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Err(lx.err_at(start, "unterminated bracket group"))
}

fn skip_type_suffix(lx: &mut Lexer) -> Result<(), IrError> {
    // `1 : i64`, `1.0 : f32`: the type of a plain number is not needed. A
    // `:` followed by something that is not a type is left alone.
    let save = lx.pos;
    if lx.peek_byte() == Some(b':') {
        lx.next()?;
        if parse_type(lx, 0).is_err() {
            lx.pos = save;
        }
    }
    Ok(())
}

fn parse_dense(lx: &mut Lexer, depth: usize) -> Result<DenseVal, IrError> {
    let (t, p) = lx.next()?;
    if depth > MAX_DEPTH {
        return Err(lx.err_at(p, "dense literal nested too deeply"));
    }
    Ok(match t {
        Tok::Int(s) => DenseVal::Int(s),
        Tok::Float(s) => DenseVal::Float(s),
        Tok::Ident(s) if s == "true" => DenseVal::Bool(true),
        Tok::Ident(s) if s == "false" => DenseVal::Bool(false),
        Tok::Ident(s) if s == "inf" || s == "nan" => DenseVal::Float(s),
        Tok::Str(s) => {
            let Some(h) = s.strip_prefix("0x") else {
                return Err(lx.err_at(p, "expected a \"0x...\" hex string in dense<...>"));
            };
            if h.len() % 2 != 0 || !h.bytes().all(|c| c.is_ascii_hexdigit()) {
                return Err(lx.err_at(p, "bad hex data in dense<\"0x...\">"));
            }
            let bytes = (0..h.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap_or(0))
                .collect();
            DenseVal::Hex(bytes)
        }
        Tok::Punct('(') => {
            let re = parse_dense(lx, depth + 1)?;
            expect_punct(lx, ',')?;
            let im = parse_dense(lx, depth + 1)?;
            expect_punct(lx, ')')?;
            DenseVal::Complex(Box::new(re), Box::new(im))
        }
        Tok::Punct('[') => {
            let mut v = Vec::new();
            if lx.peek_byte() == Some(b']') {
                lx.next()?;
                return Ok(DenseVal::List(v));
            }
            loop {
                v.push(parse_dense(lx, depth + 1)?);
                let (t, p) = lx.next()?;
                match t {
                    Tok::Punct(',') => continue,
                    Tok::Punct(']') => break,
                    t => {
                        return Err(lx.err_at(
                            p,
                            format!("expected ',' or ']' in dense<...>, found {}", t.describe()),
                        ));
                    }
                }
            }
            DenseVal::List(v)
        }
        t => {
            return Err(lx.err_at(
                p,
                format!("expected an element of dense<...>, found {}", t.describe()),
            ));
        }
    })
}

/// Parses `{key = value, key, "quoted" = value}` (at `{`).
pub fn parse_dict(
    lx: &mut Lexer,
    aliases: &Aliases,
    depth: usize,
) -> Result<Vec<(String, Attr)>, IrError> {
    let open = expect_punct(lx, '{')?;
    if depth > MAX_DEPTH {
        return Err(lx.err_at(open, "attributes nested too deeply"));
    }
    let mut out = Vec::new();
    if lx.peek_byte() == Some(b'}') {
        lx.next()?;
        return Ok(out);
    }
    loop {
        let (t, p) = lx.next()?;
        let key = match t {
            Tok::Ident(k) | Tok::Str(k) => k,
            t => {
                return Err(lx.err_at(
                    p,
                    format!("expected an attribute name, found {}", t.describe()),
                ));
            }
        };
        let v = if lx.peek_byte() == Some(b'=') {
            lx.next()?;
            parse_attr(lx, aliases, depth + 1)?
        } else {
            Attr::Unit
        };
        out.push((key, v));
        let (t, p) = lx.next()?;
        match t {
            Tok::Punct(',') => continue,
            Tok::Punct('}') => return Ok(out),
            t => {
                return Err(lx.err_at(
                    p,
                    format!(
                        "expected ',' or '}}' in an attribute dictionary, found {}",
                        t.describe()
                    ),
                ));
            }
        }
    }
}

/// Parses convolution dimension labels `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`
/// into a struct with the generic form's field names.
pub fn parse_conv_dims(lx: &mut Lexer) -> Result<Attr, IrError> {
    let lhs = label_list(lx)?;
    let (t, p) = lx.next()?;
    if t != Tok::Ident("x".into()) {
        return Err(lx.err_at(
            p,
            format!(
                "expected 'x' between convolution dimension lists, found {}",
                t.describe()
            ),
        ));
    }
    let rhs = label_list(lx)?;
    let (t, p) = lx.next()?;
    if t != Tok::Arrow {
        return Err(lx.err_at(
            p,
            format!(
                "expected '->' before the output dimensions, found {}",
                t.describe()
            ),
        ));
    }
    let out = label_list(lx)?;
    let find = |l: &[(String, usize)], c: &str| -> Option<i64> {
        l.iter().find(|(s, _)| s == c).map(|(_, i)| *i as i64)
    };
    let spatial = |l: &[(String, usize)]| -> Vec<i64> {
        let mut v: Vec<(usize, i64)> = l
            .iter()
            .filter_map(|(s, i)| s.parse::<usize>().ok().map(|n| (n, *i as i64)))
            .collect();
        v.sort();
        v.into_iter().map(|(_, i)| i).collect()
    };
    let bad = |what: &str| lx.err_at(p, format!("convolution dimension labels lack '{what}'"));
    let int = |v: i64| Attr::Int(v);
    let arr = |v: Vec<i64>| Attr::Array(v.into_iter().map(Attr::Int).collect());
    Ok(Attr::Struct(
        "stablehlo.conv".into(),
        vec![
            (
                "input_batch_dimension".into(),
                int(find(&lhs, "b").ok_or_else(|| bad("b"))?),
            ),
            (
                "input_feature_dimension".into(),
                int(find(&lhs, "f").ok_or_else(|| bad("f"))?),
            ),
            ("input_spatial_dimensions".into(), arr(spatial(&lhs))),
            (
                "kernel_input_feature_dimension".into(),
                int(find(&rhs, "i").ok_or_else(|| bad("i"))?),
            ),
            (
                "kernel_output_feature_dimension".into(),
                int(find(&rhs, "o").ok_or_else(|| bad("o"))?),
            ),
            ("kernel_spatial_dimensions".into(), arr(spatial(&rhs))),
            (
                "output_batch_dimension".into(),
                int(find(&out, "b").ok_or_else(|| bad("b"))?),
            ),
            (
                "output_feature_dimension".into(),
                int(find(&out, "f").ok_or_else(|| bad("f"))?),
            ),
            ("output_spatial_dimensions".into(), arr(spatial(&out))),
        ],
    ))
}

fn label_list(lx: &mut Lexer) -> Result<Vec<(String, usize)>, IrError> {
    expect_punct(lx, '[')?;
    let mut v = Vec::new();
    loop {
        let (t, p) = lx.next()?;
        match t {
            Tok::Ident(s) | Tok::Int(s) => v.push((s, v.len())),
            Tok::Punct(']') if v.is_empty() => return Ok(v),
            t => {
                return Err(lx.err_at(
                    p,
                    format!("expected a dimension label, found {}", t.describe()),
                ));
            }
        }
        let (t, p) = lx.next()?;
        match t {
            Tok::Punct(',') => continue,
            Tok::Punct(']') => return Ok(v),
            t => {
                return Err(lx.err_at(
                    p,
                    format!(
                        "expected ',' or ']' in dimension labels, found {}",
                        t.describe()
                    ),
                ));
            }
        }
    }
}

/// Largest constant (in bytes) [`dense_to_literal`] builds: a splat of a
/// huge shape is refused instead of exhausting memory.
pub const MAX_CONSTANT_BYTES: usize = 1 << 30;

/// Converts `dense<...>` of type `ty` into a literal: a single value
/// splats; otherwise the element count must match.
pub fn dense_to_literal(v: &DenseVal, ty: &Type) -> Result<Literal, String> {
    let Type::Tensor(dims, et, _) = ty else {
        return Err(format!("dense<...> needs a tensor type, got {ty}"));
    };
    let et = *et;
    let shape = ArrayShape::new(et, dims.clone()).map_err(|e| e.to_string())?;
    let n = shape.element_count().map_err(|e| e.to_string())?;
    let size = et.byte_size();
    if n.saturating_mul(size) > MAX_CONSTANT_BYTES {
        return Err(format!(
            "a {ty} constant would take {} bytes; rxla reads constants of at most {MAX_CONSTANT_BYTES} bytes",
            n.saturating_mul(size)
        ));
    }
    let bytes: Vec<u8> = if let DenseVal::Hex(h) = v {
        if h.len() == n * size {
            h.clone()
        } else if h.len() == size {
            h.repeat(n)
        } else if et == ElementType::Pred && h.len() == n.div_ceil(8) {
            (0..n).map(|i| (h[i / 8] >> (i % 8)) & 1).collect()
        } else {
            return Err(format!(
                "hex data of {} bytes does not fit {ty} ({} bytes)",
                h.len(),
                n * size
            ));
        }
    } else {
        let mut leaves = Vec::new();
        flatten(v, &mut leaves);
        let mut one = Vec::new();
        let mut all = Vec::with_capacity(leaves.len().min(n) * size);
        let target = if leaves.len() == 1 {
            &mut one
        } else {
            &mut all
        };
        if leaves.len() != 1 && leaves.len() != n {
            return Err(format!(
                "dense<...> has {} elements, {ty} needs {n}",
                leaves.len()
            ));
        }
        for l in &leaves {
            element_bytes(l, et, target)?;
        }
        if leaves.len() == 1 {
            one.repeat(n)
        } else {
            all
        }
    };
    let data = ArrayData::from_le_bytes(et, &bytes).map_err(|e| e.to_string())?;
    ArrayLiteral::new(shape, data)
        .map(Literal::Array)
        .map_err(|e| e.to_string())
}

fn flatten<'a>(v: &'a DenseVal, out: &mut Vec<&'a DenseVal>) {
    match v {
        DenseVal::List(l) => l.iter().for_each(|x| flatten(x, out)),
        x => out.push(x),
    }
}

fn element_bytes(v: &DenseVal, et: ElementType, out: &mut Vec<u8>) -> Result<(), String> {
    use ElementType::*;
    let size = et.byte_size();
    match (v, et) {
        (DenseVal::Bool(b), Pred) => out.push(*b as u8),
        (DenseVal::Int(s), Pred) => out.push((parse_int(s).ok_or("bad integer")? != 0) as u8),
        (DenseVal::Int(s), S8 | S16 | S32 | S64 | U8 | U16 | U32 | U64) => {
            let i = parse_int(s).ok_or_else(|| format!("integer '{s}' is out of range"))?;
            out.extend_from_slice(&i.to_le_bytes()[..size]);
        }
        (DenseVal::Bool(b), S8 | S16 | S32 | S64 | U8 | U16 | U32 | U64) => {
            out.extend_from_slice(&(*b as i128).to_le_bytes()[..size]);
        }
        (DenseVal::Int(s), F16 | BF16 | F32 | F64)
            if s.starts_with("0x") || s.starts_with("0X") =>
        {
            // A bit pattern (MLIR prints NaN, inf and inexact values so).
            let i = parse_int(s).ok_or_else(|| format!("bad hex float '{s}'"))?;
            out.extend_from_slice(&i.to_le_bytes()[..size]);
        }
        (DenseVal::Int(s) | DenseVal::Float(s), F16 | BF16 | F32 | F64) => {
            if et == F32 {
                let f: f32 = parse_float(s)? as f32;
                let f = s.parse::<f32>().unwrap_or(f);
                out.extend_from_slice(&f.to_le_bytes());
            } else {
                out.extend(ArrayData::scalar_from_f64(et, parse_float(s)?).to_le_bytes());
            }
        }
        (DenseVal::Int(s), S2 | S4 | U2 | U4) => {
            let i = parse_int(s).ok_or_else(|| format!("integer '{s}' is out of range"))?;
            let (lo, hi) = rxla_ir::narrow::int_n_range(et);
            let i = i64::try_from(i)
                .ok()
                .filter(|i| (lo..=hi).contains(i))
                .ok_or_else(|| format!("integer '{s}' is out of range [{lo}, {hi}] of {et}"))?;
            out.push(rxla_ir::narrow::int_n_wrap(et, i));
        }
        (DenseVal::Bool(b), S2 | S4 | U2 | U4) => out.push(*b as u8),
        (DenseVal::Int(s), F8E4M3FN | F8E5M2 | F8E4M3B11FNUZ | F8E4M3FNUZ | F8E5M2FNUZ)
            if s.starts_with("0x") || s.starts_with("0X") =>
        {
            let i = parse_int(s).ok_or_else(|| format!("bad hex float '{s}'"))?;
            out.push(u8::try_from(i).map_err(|_| format!("hex float '{s}' is not 8 bits"))?);
        }
        (
            DenseVal::Int(s) | DenseVal::Float(s),
            F8E4M3FN | F8E5M2 | F8E4M3B11FNUZ | F8E4M3FNUZ | F8E5M2FNUZ,
        ) => out.push(rxla_ir::narrow::from_f64(et, parse_float(s)?)),
        (DenseVal::Complex(re, im), C64 | C128) => {
            let part = if et == C64 { F32 } else { F64 };
            element_bytes(re, part, out)?;
            element_bytes(im, part, out)?;
        }
        (DenseVal::Int(_) | DenseVal::Float(_), C64 | C128) => {
            let part = if et == C64 { F32 } else { F64 };
            element_bytes(v, part, out)?;
            out.extend(std::iter::repeat_n(0u8, size / 2));
        }
        (v, et) => return Err(format!("element {v:?} does not fit element type {et}")),
    }
    Ok(())
}

fn parse_float(s: &str) -> Result<f64, String> {
    match s {
        "inf" => Ok(f64::INFINITY),
        "nan" => Ok(f64::NAN),
        _ => s.parse::<f64>().map_err(|_| format!("bad number '{s}'")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(s: &str) -> Attr {
        parse_attr(&mut Lexer::new(s, "t"), &Aliases::new(), 0).unwrap()
    }

    fn lit(s: &str) -> Literal {
        match attr(s) {
            Attr::Dense(v, Some(t)) => dense_to_literal(&v, &t).unwrap(),
            a => panic!("{a:?}"),
        }
    }

    #[test]
    fn attribute_values() {
        assert_eq!(attr("1 : i64"), Attr::Int(1));
        assert_eq!(attr("array<i64: 2, -3>").as_i64s().unwrap(), vec![2, -3]);
        assert_eq!(
            attr("dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>")
                .as_i64s()
                .unwrap(),
            vec![0, 1, 2, 3]
        );
        assert_eq!(
            attr("#stablehlo<comparison_direction GT>"),
            Attr::Enum("comparison_direction".into(), "GT".into())
        );
        let g = attr(
            "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], index_vector_dim = 1>",
        );
        assert_eq!(
            field(g.fields().unwrap(), "index_vector_dim"),
            Some(&Attr::Int(1))
        );
        let d = attr("{a = 1 : i32, \"b.c\" = \"x\", flag}");
        assert_eq!(field(d.fields().unwrap(), "flag"), Some(&Attr::Unit));
        let c = attr("#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>");
        assert_eq!(
            field(c.fields().unwrap(), "input_spatial_dimensions")
                .unwrap()
                .as_i64s()
                .unwrap(),
            vec![1, 2]
        );
        assert!(
            matches!(attr("#stablehlo.weird<%$>"), Attr::Other(_))
                || matches!(attr("#stablehlo.weird<1>"), Attr::Other(_))
        );
    }

    #[test]
    fn dense_literals() {
        assert_eq!(
            lit("dense<[1.5, -2.0]> : tensor<2xf32>"),
            Literal::vec1(vec![1.5f32, -2.0])
        );
        assert_eq!(
            lit("dense<0xFF800000> : tensor<f32>"),
            Literal::scalar(f32::NEG_INFINITY)
        );
        assert_eq!(lit("dense<3> : tensor<2xui8>"), Literal::vec1(vec![3u8, 3]));
        assert_eq!(
            lit("dense<4294967295> : tensor<ui32>"),
            Literal::scalar(u32::MAX)
        );
        assert_eq!(
            lit("dense<[true, false]> : tensor<2xi1>"),
            Literal::vec1(vec![true, false])
        );
        assert_eq!(
            lit("dense<\"0x0000803F00000040\"> : tensor<2xf32>"),
            Literal::vec1(vec![1.0f32, 2.0])
        );
        assert_eq!(
            lit("dense<\"0x0000C03F\"> : tensor<3xf32>"),
            Literal::vec1(vec![1.5f32; 3])
        );
        assert_eq!(
            lit("dense<(1.0, -2.0)> : tensor<complex<f64>>"),
            Literal::scalar(rxla_ir::Complex64::new(1.0, -2.0))
        );
        let bad = match attr("dense<[1, 2, 3]> : tensor<2xi32>") {
            Attr::Dense(v, Some(t)) => dense_to_literal(&v, &t).unwrap_err(),
            _ => unreachable!(),
        };
        assert!(bad.contains("3 elements"), "{bad}");
    }
}
