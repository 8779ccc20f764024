//! Reading literal text against a known shape: `0`, `{1, 2}`,
//! `{ {1, 2}, {3, 4} }`, `inf`/`-inf`/`nan`/`-nan`, `true`/`false`, and
//! tuples `( 1, {2} )`. The brace structure must match the shape exactly;
//! elements are stored as they are read, so memory grows with the text,
//! never with the declared shape. Printing is `Literal::to_text`.

use super::lexer::{Cursor, MAX_DEPTH, quote};
use crate::element_type::ElementType;
use crate::error::Result;
use crate::literal::{ArrayData, ArrayLiteral, Literal};
use crate::shape::{ArrayShape, Shape};
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};

/// The error for an elided constant `{...}` read without
/// [`super::ParseOptions::fill_elided_constants`].
pub const ELIDED_MESSAGE: &str = "elided constant `{...}` (XLA left its values out of the \
dump): re-dump with --xla_dump_large_constants, or fill it with seeded random values (rxla: \
`--fill-elided-constants[=SEED]`; library: `ParseOptions::fill_elided_constants`)";

/// Most elements one elided constant may be filled with (2^28).
pub const MAX_FILL_ELEMENTS: usize = 1 << 28;

/// Fills elided constants with deterministic pseudo-random values, like
/// XLA's `run_hlo_module` fills them with fake data: floats are multiples
/// of 1/128 in [-1, 1), signed integers in [-8, 8), unsigned ones in
/// [0, 8), preds fair. Constant `k` (in reading order) draws from a
/// splitmix64 stream seeded with `seed` and `k`, so the same seed gives
/// the same values.
pub struct ElidedFill {
    seed: u64,
    /// Constants filled so far.
    pub count: usize,
}

impl ElidedFill {
    pub fn new(seed: u64) -> ElidedFill {
        ElidedFill { seed, count: 0 }
    }

    /// Values for the elided constant of `shape` at the cursor (which is
    /// at `{...}`; it is consumed).
    pub fn fill(&mut self, c: &mut Cursor<'_>, shape: &ArrayShape) -> Result<ArrayLiteral> {
        let n = shape.element_count().map_err(|e| c.err(e.to_string()))?;
        if n > MAX_FILL_ELEMENTS {
            return Err(c.err(format!(
                "elided constant of shape {shape} has {n} elements; at most {MAX_FILL_ELEMENTS} are filled"
            )));
        }
        let mut state = self
            .seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(self.count as u64);
        let mut next = move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let unit = |next: &mut dyn FnMut() -> u64| ((next() % 256) as f64 - 128.0) / 128.0;
        let small_int = |next: &mut dyn FnMut() -> u64| (next() % 16) as i64 - 8;
        let data = match shape.element_type {
            ElementType::F16 => {
                ArrayData::F16((0..n).map(|_| f16::from_f64(unit(&mut next))).collect())
            }
            ElementType::BF16 => {
                ArrayData::BF16((0..n).map(|_| bf16::from_f64(unit(&mut next))).collect())
            }
            ElementType::F32 => ArrayData::F32((0..n).map(|_| unit(&mut next) as f32).collect()),
            ElementType::F64 => ArrayData::F64((0..n).map(|_| unit(&mut next)).collect()),
            ElementType::C64 => ArrayData::C64(
                (0..n)
                    .map(|_| crate::Complex32::new(unit(&mut next) as f32, unit(&mut next) as f32))
                    .collect(),
            ),
            ElementType::C128 => ArrayData::C128(
                (0..n)
                    .map(|_| crate::Complex64::new(unit(&mut next), unit(&mut next)))
                    .collect(),
            ),
            ElementType::Pred => ArrayData::Pred((0..n).map(|_| next() & 1 == 1).collect()),
            ElementType::S8 => ArrayData::S8((0..n).map(|_| small_int(&mut next) as i8).collect()),
            ElementType::S16 => {
                ArrayData::S16((0..n).map(|_| small_int(&mut next) as i16).collect())
            }
            ElementType::S32 => {
                ArrayData::S32((0..n).map(|_| small_int(&mut next) as i32).collect())
            }
            ElementType::S64 => ArrayData::S64((0..n).map(|_| small_int(&mut next)).collect()),
            ElementType::U8 => ArrayData::U8((0..n).map(|_| (next() % 8) as u8).collect()),
            ElementType::U16 => ArrayData::U16((0..n).map(|_| (next() % 8) as u16).collect()),
            ElementType::U32 => ArrayData::U32((0..n).map(|_| (next() % 8) as u32).collect()),
            ElementType::U64 => ArrayData::U64((0..n).map(|_| next() % 8).collect()),
            t @ (crate::narrow_types!()) => ArrayData::narrow(
                t,
                (0..n)
                    .map(|_| {
                        if t.is_f8() {
                            crate::narrow::from_f64(t, unit(&mut next))
                        } else {
                            let (lo, hi) = crate::narrow::int_n_range(t);
                            let v = small_int(&mut next).clamp(lo, hi);
                            crate::narrow::int_n_wrap(t, v)
                        }
                    })
                    .collect(),
            ),
            ElementType::Token => ArrayData::Token(1),
        };
        c.pos += "{...}".len();
        self.count += 1;
        ArrayLiteral::new(shape.clone(), data).map_err(|e| c.err(e.to_string()))
    }
}

/// Reads a literal of `shape` at the cursor.
pub fn literal(c: &mut Cursor<'_>, shape: &Shape) -> Result<Literal> {
    literal_depth(c, shape, 0)
}

fn literal_depth(c: &mut Cursor<'_>, shape: &Shape, depth: usize) -> Result<Literal> {
    match shape {
        Shape::Tuple(elems) => {
            if depth >= MAX_DEPTH {
                return Err(c.err(format!("tuple literal nested deeper than {MAX_DEPTH}")));
            }
            c.expect(
                b'(',
                &format!("'(' starting a tuple literal of shape {shape}"),
            )?;
            let mut out = Vec::with_capacity(elems.len().min(64));
            for (i, e) in elems.iter().enumerate() {
                if i > 0 {
                    c.expect(b',', "',' between tuple literal elements")?;
                }
                out.push(literal_depth(c, e, depth + 1)?);
            }
            c.expect(
                b')',
                &format!("')' closing a tuple literal of {} elements", elems.len()),
            )?;
            Ok(Literal::Tuple(out))
        }
        Shape::Array(a) => Ok(Literal::Array(array_literal(c, a)?)),
    }
}

/// Reads the text of an array literal of shape `shape`.
pub fn array_literal(c: &mut Cursor<'_>, shape: &ArrayShape) -> Result<ArrayLiteral> {
    let total = shape.element_count().map_err(|e| c.err(e.to_string()))?;
    c.skip_ws()?;
    if shape.element_type == ElementType::Token {
        c.eat_str("token")?;
        return Ok(ArrayLiteral {
            shape: shape.clone(),
            data: ArrayData::Token(1),
            runtime_sizes: Vec::new(),
        });
    }
    let mut data = ArrayData::zeros(shape.element_type, 0);
    let rank = shape.rank();
    if rank == 0 {
        if c.peek() == Some(b'{') {
            return Err(c.err(format!(
                "expected a scalar value for shape {shape}, got {}",
                c.describe_next()
            )));
        }
        element(c, &mut data)?;
        return Ok(ArrayLiteral {
            shape: shape.clone(),
            data,
            runtime_sizes: Vec::new(),
        });
    }
    if c.starts_with("{...}") {
        return Err(c.err(ELIDED_MESSAGE));
    }
    let open_at = c.pos;
    c.expect(b'{', &format!("'{{' starting a literal of shape {shape}"))?;
    // counts[d]: sub-literals (or elements, at the innermost level) read so
    // far at nesting level d. A dynamic dim (`<=N`) takes any count up to
    // its bound, the same for every sub-literal; the literal is then static
    // with those sizes (how arguments of dynamic parameters are written).
    let mut counts: Vec<i64> = vec![0];
    let mut seen: Vec<Option<i64>> = vec![None; rank];
    let mut need_sep = false;
    let mut read: usize = 0;
    loop {
        c.skip_ws()?;
        let depth = counts.len(); // 1-based nesting depth
        match c.peek() {
            Some(b'}') => {
                let d = depth - 1;
                let want = if shape.is_dynamic_dim(d) {
                    *seen[d].get_or_insert(counts[d])
                } else {
                    shape.dims[d]
                };
                if counts[d] != want {
                    return Err(c.err(format!(
                        "literal of shape {shape}: dimension {d} needs {want} elements, got {}",
                        counts[d]
                    )));
                }
                c.pos += 1;
                counts.pop();
                match counts.last_mut() {
                    None => break,
                    Some(n) => *n += 1,
                }
                need_sep = true;
            }
            Some(b',') if need_sep => {
                c.pos += 1;
                need_sep = false;
            }
            None => {
                return Err(c.error_at(open_at, format!("unterminated literal of shape {shape}")));
            }
            _ if need_sep => {
                return Err(c.err(format!(
                    "expected ',' or '}}' in a literal, got {}",
                    c.describe_next()
                )));
            }
            Some(b'{') => {
                let d = depth - 1;
                if depth >= rank {
                    return Err(c.err(format!(
                        "literal of shape {shape} is nested deeper than its rank {rank}"
                    )));
                }
                if counts[d] >= shape.dims[d] {
                    return Err(c.err(format!(
                        "literal of shape {shape}: dimension {d} needs {} elements, got more",
                        shape.dims[d]
                    )));
                }
                c.pos += 1;
                counts.push(0);
            }
            Some(_) => {
                let d = depth - 1;
                if depth != rank {
                    return Err(c.err(format!(
                        "literal of shape {shape}: expected '{{' at nesting level {depth}, got {}",
                        c.describe_next()
                    )));
                }
                if counts[d] >= shape.dims[d] || read >= total {
                    return Err(c.err(format!(
                        "literal of shape {shape}: dimension {d} needs {} elements, got more",
                        shape.dims[d]
                    )));
                }
                element(c, &mut data)?;
                counts[d] += 1;
                read += 1;
                need_sep = true;
            }
        }
    }
    let mut out_shape = shape.clone();
    if shape.is_dynamic() {
        for (d, s) in seen.iter().enumerate() {
            if let Some(s) = s {
                out_shape.dims[d] = *s;
            }
        }
        out_shape.dynamic = crate::DynamicDims::STATIC;
    }
    let total = out_shape
        .element_count()
        .map_err(|e| c.err(e.to_string()))?;
    if read != total {
        return Err(c.error_at(
            open_at,
            format!("literal of shape {shape} needs {total} elements, got {read}"),
        ));
    }
    Ok(ArrayLiteral {
        shape: out_shape,
        data,
        runtime_sizes: Vec::new(),
    })
}

/// Reads one element and appends it to `data`: a token, or for complex
/// types XLA's `(re, im)`.
fn element(c: &mut Cursor<'_>, data: &mut ArrayData) -> Result<()> {
    if let ArrayData::C64(_) | ArrayData::C128(_) = data {
        let ty = data.element_type();
        c.skip_ws()?;
        c.expect(b'(', &format!("'(' starting a {ty} value (re, im)"))?;
        let (at, re) = number(c, ty)?;
        c.skip_ws()?;
        c.expect(
            b',',
            &format!("',' between the parts of a {ty} value (re, im)"),
        )?;
        let (at2, im) = number(c, ty)?;
        c.skip_ws()?;
        c.expect(b')', &format!("')' closing a {ty} value (re, im)"))?;
        match data {
            ArrayData::C64(v) => {
                let part = |at: usize, t: &str| {
                    float32(t).ok_or_else(|| {
                        c.error_at(at, format!("bad {ty} part {}: expected a number", quote(t)))
                    })
                };
                v.push(Complex32::new(part(at, re)?, part(at2, im)?));
            }
            ArrayData::C128(v) => {
                let part = |at: usize, t: &str| {
                    float(t).ok_or_else(|| {
                        c.error_at(at, format!("bad {ty} part {}: expected a number", quote(t)))
                    })
                };
                v.push(Complex64::new(part(at, re)?, part(at2, im)?));
            }
            _ => {}
        }
        return Ok(());
    }
    c.skip_ws()?;
    let start = c.pos;
    while matches!(c.peek(), Some(b) if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-' | b'_'))
    {
        c.pos += 1;
    }
    let tok = &c.src[start..c.pos];
    if tok.is_empty() {
        return Err(c.err(format!(
            "expected a literal value, got {}",
            c.describe_next()
        )));
    }
    let ty = data.element_type();
    let bad = |why: &str| c.error_at(start, format!("bad {ty} value {}: {why}", quote(tok)));
    macro_rules! int {
        ($v:ident, $t:ty) => {{
            let x: i128 = tok.parse().map_err(|_| bad("expected an integer"))?;
            let y = <$t>::try_from(x).map_err(|_| bad("out of range"))?;
            $v.push(y)
        }};
    }
    match data {
        ArrayData::Pred(v) => match tok {
            "true" | "1" => v.push(true),
            "false" | "0" => v.push(false),
            _ => return Err(bad("expected true or false")),
        },
        ArrayData::S8(v) => int!(v, i8),
        ArrayData::S16(v) => int!(v, i16),
        ArrayData::S32(v) => int!(v, i32),
        ArrayData::S64(v) => int!(v, i64),
        ArrayData::U8(v) => int!(v, u8),
        ArrayData::U16(v) => int!(v, u16),
        ArrayData::U32(v) => int!(v, u32),
        ArrayData::U64(v) => int!(v, u64),
        ArrayData::F16(v) => v.push(f16::from_f64(
            float(tok).ok_or_else(|| bad("expected a number"))?,
        )),
        ArrayData::BF16(v) => v.push(bf16::from_f64(
            float(tok).ok_or_else(|| bad("expected a number"))?,
        )),
        ArrayData::F32(v) => v.push(float32(tok).ok_or_else(|| bad("expected a number"))?),
        ArrayData::F64(v) => v.push(float(tok).ok_or_else(|| bad("expected a number"))?),
        // Read above.
        ArrayData::C64(_) | ArrayData::C128(_) => {}
        ArrayData::Narrow(t, v) => {
            let t = *t;
            if t.is_f8() {
                let x = float(tok).ok_or_else(|| bad("expected a number"))?;
                v.push(crate::narrow::from_f64(t, x));
            } else {
                let x: i128 = tok.parse().map_err(|_| bad("expected an integer"))?;
                let (lo, hi) = crate::narrow::int_n_range(t);
                if x < lo as i128 || x > hi as i128 {
                    return Err(bad(&format!("out of range [{lo}, {hi}]")));
                }
                v.push(crate::narrow::int_n_wrap(t, x as i64));
            }
        }
        ArrayData::Token(n) => *n += 1,
    }
    Ok(())
}

/// The text of one number token (a part of a complex value) and where it
/// starts.
fn number<'a>(c: &mut Cursor<'a>, ty: ElementType) -> Result<(usize, &'a str)> {
    c.skip_ws()?;
    let start = c.pos;
    while matches!(c.peek(), Some(b) if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-' | b'_'))
    {
        c.pos += 1;
    }
    let src: &'a str = c.src;
    let tok = &src[start..c.pos];
    if tok.is_empty() {
        return Err(c.err(format!(
            "expected a number in a {ty} value (re, im), got {}",
            c.describe_next()
        )));
    }
    Ok((start, tok))
}

fn special(tok: &str) -> Option<f64> {
    match tok {
        "inf" | "+inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        "nan" | "+nan" => Some(f64::NAN),
        "-nan" => Some(-f64::NAN),
        _ => None,
    }
}

fn numeric(tok: &str) -> bool {
    tok.bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'+' | b'-' | b'e' | b'E'))
        && tok.bytes().any(|b| b.is_ascii_digit())
}

fn float(tok: &str) -> Option<f64> {
    special(tok).or_else(|| if numeric(tok) { tok.parse().ok() } else { None })
}

fn float32(tok: &str) -> Option<f32> {
    match special(tok) {
        Some(v) => Some(v as f32),
        None if numeric(tok) => tok.parse().ok(),
        None => None,
    }
}

/// Parses a whole string as a literal of `shape`.
pub fn parse_literal_str(text: &str, shape: &Shape) -> Result<Literal> {
    let mut c = Cursor::new(text, "<literal>");
    let l = literal(&mut c, shape)?;
    c.skip_ws()?;
    if !c.at_end() {
        return Err(c.err(format!(
            "unexpected {} after the literal",
            c.describe_next()
        )));
    }
    Ok(l)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::shapes::parse_shape_str;

    fn rt(shape: &str, text: &str) -> String {
        let s = parse_shape_str(shape).unwrap();
        parse_literal_str(text, &s).unwrap().to_text()
    }

    fn err(shape: &str, text: &str) -> String {
        let s = parse_shape_str(shape).unwrap();
        parse_literal_str(text, &s).unwrap_err().to_string()
    }

    #[test]
    fn literal_forms() {
        assert_eq!(rt("f32[]", "0"), "0");
        assert_eq!(rt("f32[]", "-inf"), "-inf");
        assert_eq!(rt("f32[]", "nan"), "nan");
        assert_eq!(rt("f32[]", "-nan"), "-nan");
        assert_eq!(rt("bf16[]", "-nan"), "-nan");
        assert_eq!(rt("f64[]", "-nan"), "-nan");
        assert_eq!(rt("f32[]", "1.5e-07"), "1.5e-7");
        assert_eq!(rt("f64[]", "1e+30"), "1e+30");
        assert_eq!(rt("s32[]", "2147483647"), "2147483647");
        assert_eq!(rt("pred[2]", "{true, false}"), "{true, false}");
        assert_eq!(rt("s32[2,2]", "{ {1, 2}, {3, 4} }"), "{ {1, 2}, {3, 4} }");
        assert_eq!(rt("f32[0]", "{}"), "{}");
        assert_eq!(rt("f32[2,0]", "{ {}, {} }"), "{ {}, {} }");
        assert_eq!(rt("(s32[], f32[1])", "( 1, {2} )"), "(1, {2})");
        assert_eq!(rt("bf16[2]", "{0.5, -2}"), "{0.5, -2}");
        assert_eq!(rt("u8[1]", "{255}"), "{255}");
        assert_eq!(rt("c64[2]", "{(1, 2), (3,-4.5)}"), "{(1, 2), (3, -4.5)}");
        assert_eq!(rt("c128[]", "(1, 0)"), "(1, 0)");
        assert_eq!(
            rt("c64[2,1]", "{ {(inf, -nan)}, {(0, -0)} }"),
            "{ {(inf, -nan)}, {(0, -0)} }"
        );
        assert_eq!(rt("(c64[], f32[])", "((1, 2), 3)"), "((1, 2), 3)");
    }

    #[test]
    fn dynamic_shapes_take_shorter_literals() {
        let dims = |shape: &str, text: &str| {
            let s = parse_shape_str(shape).unwrap();
            let l = parse_literal_str(text, &s).unwrap();
            let a = l.as_array().unwrap();
            assert!(!a.shape.is_dynamic());
            a.shape.dims.clone()
        };
        assert_eq!(dims("f32[<=4]", "{1, 2}"), vec![2]);
        assert_eq!(dims("f32[<=4,2]", "{{1, 2}, {3, 4}, {5, 6}}"), vec![3, 2]);
        assert_eq!(dims("f32[2,<=3]", "{{1}, {2}}"), vec![2, 1]);
        assert_eq!(dims("f32[<=3,<=3]", "{}"), vec![0, 3]);
        assert!(err("f32[2,<=3]", "{{1}, {2, 3}}").contains("needs 1 elements"));
        assert!(err("f32[<=2]", "{1, 2, 3}").contains("got more"));
    }

    #[test]
    fn literal_errors() {
        assert!(err("f32[3]", "{1, 2}").contains("needs 3 elements, got 2"));
        assert!(err("f32[2]", "{1, 2, 3}").contains("got more"));
        assert!(err("f32[2,2]", "{1, 2}").contains("expected '{'"));
        assert!(err("f32[2]", "{...}").contains("elided constant"));
        assert!(err("s8[]", "300").contains("out of range"));
        assert!(err("s32[]", "1.5").contains("expected an integer"));
        assert!(err("f32[]", "abc").contains("expected a number"));
        assert!(err("f32[2]", "{1 2}").contains("expected ','"));
        assert!(err("f32[2]", "{1,").contains("unterminated"));
        assert!(err("c64[]", "1").contains("'(' starting a c64 value"));
        assert!(err("c64[]", "(1 2)").contains("','"));
        assert!(err("c128[]", "(1, x)").contains("bad c128 part"));
        let big = parse_shape_str("f32[1099511627776,1024]").unwrap();
        assert!(parse_literal_str("{1}", &big).is_err());
    }
}
