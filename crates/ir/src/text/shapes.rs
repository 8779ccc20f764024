//! Reading shapes, layouts and program shapes from HLO text:
//! `f32[2,3]{1,0}`, `f32[]`, `token[]`, `(f32[2]{0}, (s32[], pred[]))`,
//! bounded dynamic dims `f32[<=4,3]` (unbounded `?` is refused),
//! layout suffixes `{0,1:P(3,5):V(-1)}` and verbatim extras (`T(8,128)`,
//! `S(1)`, ...), and `(f32[2], s32[])->f32[2]`. Sizes are checked before
//! anything is allocated for them; nesting is limited to [`MAX_DEPTH`].

use super::lexer::{Cursor, MAX_DEPTH, quote};
use crate::element_type::ElementType;
use crate::error::Result;
use crate::layout::Layout;
use crate::shape::{ArrayShape, DynamicDims, MAX_DIM, MAX_DYNAMIC_DIM, ProgramShape, Shape};

/// Reads a shape at the cursor.
pub fn shape(c: &mut Cursor<'_>) -> Result<Shape> {
    shape_depth(c, 0)
}

fn shape_depth(c: &mut Cursor<'_>, depth: usize) -> Result<Shape> {
    c.skip_ws()?;
    if c.peek() == Some(b'(') {
        if depth >= MAX_DEPTH {
            return Err(c.err(format!(
                "tuple shapes nested deeper than {MAX_DEPTH} levels"
            )));
        }
        c.pos += 1;
        let mut elems = Vec::new();
        if c.eat(b')')? {
            return Ok(Shape::Tuple(elems));
        }
        loop {
            elems.push(shape_depth(c, depth + 1)?);
            if c.eat(b')')? {
                return Ok(Shape::Tuple(elems));
            }
            c.expect(b',', "',' or ')' in a tuple shape")?;
        }
    }
    Ok(Shape::Array(array_shape(c)?))
}

/// Reads an array shape `ty[d0,d1,...]` with an optional layout.
pub fn array_shape(c: &mut Cursor<'_>) -> Result<ArrayShape> {
    c.skip_ws()?;
    let start = c.pos;
    let ty_name = match c.ident()? {
        Some(n) => n,
        None => {
            return Err(c.err(format!("expected a shape, got {}", c.describe_next())));
        }
    };
    let element_type = ElementType::from_name(ty_name)
        .ok_or_else(|| c.error_at(start, format!("unknown element type {}", quote(ty_name))))?;
    if c.peek() != Some(b'[') {
        return Err(c.err(format!(
            "expected '[' after element type {ty_name}, got {}",
            c.describe_next()
        )));
    }
    c.pos += 1;
    let mut dims: Vec<i64> = Vec::new();
    let mut dynamic = DynamicDims::STATIC;
    let mut count: i64 = 1;
    if !c.eat(b']')? {
        loop {
            c.skip_ws()?;
            let at = c.pos;
            if c.peek() == Some(b'?') {
                return Err(c.error_at(
                    at,
                    "unbounded dynamic dimensions ('?') are not supported; write a bound as '<=N'",
                ));
            }
            let bounded = c.rest().starts_with("<=");
            if bounded {
                c.pos += 2;
                c.skip_ws()?;
            }
            let at = c.pos;
            let d = c.int(if bounded {
                "a dimension bound after '<='"
            } else {
                "a dimension size"
            })?;
            if bounded {
                if d <= 0 {
                    return Err(c.error_at(
                        at,
                        format!("the bound of a dynamic dimension must be positive, got {d}"),
                    ));
                }
                if dims.len() >= MAX_DYNAMIC_DIM {
                    return Err(c.error_at(
                        at,
                        format!(
                            "dimension {} cannot be dynamic: only the first {MAX_DYNAMIC_DIM} dimensions can",
                            dims.len()
                        ),
                    ));
                }
                dynamic = dynamic.with(dims.len());
            }
            if d < 0 {
                return Err(c.error_at(at, format!("negative dimension size {d}")));
            }
            if d > MAX_DIM {
                return Err(c.error_at(
                    at,
                    format!("dimension size {d} is above the limit {MAX_DIM}"),
                ));
            }
            if dims.len() >= MAX_DEPTH {
                return Err(c.error_at(
                    at,
                    format!("array shapes have at most {MAX_DEPTH} dimensions"),
                ));
            }
            count = count.checked_mul(d).ok_or_else(|| {
                c.error_at(at, "the shape's element count overflows a 64-bit integer")
            })?;
            dims.push(d);
            if c.eat(b']')? {
                break;
            }
            c.expect(b',', "',' or ']' in dimensions")?;
        }
    }
    if element_type == ElementType::Token && !dims.is_empty() {
        return Err(c.error_at(start, "token shapes have no dimensions"));
    }
    let mut shape = ArrayShape {
        element_type,
        layout: Layout::default_for_rank(dims.len()),
        dims,
        dynamic,
    };
    // A layout follows only directly (no whitespace) in XLA's printing, but
    // accept whitespace as long as the brace holds a layout.
    let save = c.pos;
    c.skip_ws()?;
    if c.peek() == Some(b'{') && looks_like_layout(c) {
        let at = c.pos;
        let layout = layout(c)?;
        // Rank-0 shapes accept `{}` only.
        layout
            .validate(&shape.dims)
            .map_err(|e| c.error_at(at, e.to_string()))?;
        shape.layout = layout;
    } else {
        c.pos = save;
    }
    Ok(shape)
}

/// Is the `{` at the cursor a layout (`{}`, `{1,0}`, `{0:T(...)}`) rather
/// than, e.g., a literal or a computation body?
fn looks_like_layout(c: &Cursor<'_>) -> bool {
    let rest = c.rest().as_bytes();
    let mut i = 1;
    while i < rest.len() && rest[i].is_ascii_whitespace() && rest[i] != b'\n' {
        i += 1;
    }
    match rest.get(i) {
        Some(b'}') | Some(b':') => true,
        Some(b) if b.is_ascii_digit() => {
            // `{1,0}` but not `{1, 2}` literal text would be ambiguous only
            // for rank-1 literals following a shape, which HLO never
            // writes without a layout; accept digits.
            true
        }
        _ => false,
    }
}

/// Reads a layout `{m2m...[:item]...}`.
pub fn layout(c: &mut Cursor<'_>) -> Result<Layout> {
    c.expect(b'{', "'{' starting a layout")?;
    let mut m2m = Vec::new();
    c.skip_ws()?;
    if c.peek() != Some(b'}') && c.peek() != Some(b':') {
        loop {
            let at = c.pos;
            let d = c.int("a layout dimension")?;
            if !(0..=MAX_DIM).contains(&d) {
                return Err(c.error_at(at, format!("invalid layout dimension {d}")));
            }
            m2m.push(d);
            c.skip_ws()?;
            if c.peek() == Some(b',') {
                c.pos += 1;
                continue;
            }
            break;
        }
    }
    let mut layout = Layout::from_minor_to_major(m2m);
    while c.eat(b':')? {
        loop {
            c.skip_ws()?;
            match c.peek() {
                Some(b'}') | Some(b':') | None => break,
                _ => {}
            }
            let at = c.pos;
            let item = layout_item(c)?;
            if let Some(inner) = item.strip_prefix("P(").and_then(|s| s.strip_suffix(')')) {
                if layout.padded_dimensions.is_some() {
                    return Err(c.error_at(at, "layout has two P(...) items"));
                }
                let mut v = Vec::new();
                for p in inner.split(',').filter(|s| !s.trim().is_empty()) {
                    let n: i64 = p.trim().parse().map_err(|_| {
                        c.error_at(at, format!("bad padded dimension {}", quote(p)))
                    })?;
                    if !(0..=MAX_DIM).contains(&n) {
                        return Err(c.error_at(at, format!("padded dimension {n} out of range")));
                    }
                    v.push(n);
                }
                layout.padded_dimensions = Some(v);
            } else if let Some(inner) = item.strip_prefix("V(").and_then(|s| s.strip_suffix(')')) {
                let v: f64 = inner
                    .trim()
                    .parse()
                    .map_err(|_| c.error_at(at, format!("bad padding value {}", quote(inner))))?;
                layout.padding_value = Some(v);
            } else if let Some(inner) = item.strip_prefix("E(").and_then(|s| s.strip_suffix(')')) {
                if layout.element_size_in_bits.is_some() {
                    return Err(c.error_at(at, "layout has two E(...) items"));
                }
                let n: u32 = inner
                    .trim()
                    .parse()
                    .ok()
                    .filter(|&n| (1..=128).contains(&n))
                    .ok_or_else(|| c.error_at(at, format!("bad element size {}", quote(inner))))?;
                layout.element_size_in_bits = Some(n);
            } else {
                layout.extras.push(item.to_string());
            }
        }
    }
    c.expect(b'}', "'}' closing a layout")?;
    Ok(layout)
}

/// One layout suffix item: a letter prefix followed by parenthesised
/// groups (`T(8,128)(2,1)`, `S(1)`), ending at `:`, `}` or where a new
/// item starts after a closing parenthesis.
fn layout_item<'a>(c: &mut Cursor<'a>) -> Result<&'a str> {
    let start = c.pos;
    let mut depth = 0usize;
    let mut after_group = false;
    while let Some(b) = c.peek() {
        match b {
            b'(' => depth += 1,
            b')' => {
                if depth == 0 {
                    return Err(c.err("unbalanced ')' in a layout"));
                }
                depth -= 1;
                if depth == 0 {
                    after_group = true;
                    c.pos += 1;
                    continue;
                }
            }
            b':' | b'}' if depth == 0 => break,
            b'{' | b'\n' => break,
            _ if depth == 0 && after_group => break,
            _ => {}
        }
        c.pos += 1;
    }
    if depth != 0 {
        return Err(c.error_at(start, "unterminated '(' in a layout"));
    }
    if c.pos == start {
        return Err(c.err(format!("expected a layout item, got {}", c.describe_next())));
    }
    Ok(c.src[start..c.pos].trim())
}

/// Reads `(shape, ...)->shape`; parameters may be written `name: shape`.
pub fn program_shape(c: &mut Cursor<'_>) -> Result<ProgramShape> {
    c.expect(b'(', "'(' starting a program shape")?;
    let mut parameters = Vec::new();
    if !c.eat(b')')? {
        loop {
            // Optional `name:` prefix.
            let save = c.pos;
            let named = c.try_name()?.is_some() && c.eat(b':')?;
            if !named {
                c.pos = save;
            }
            parameters.push(shape(c)?);
            if c.eat(b')')? {
                break;
            }
            c.expect(b',', "',' or ')' in a parameter list")?;
        }
    }
    c.expect_str("->")?;
    let result = shape(c)?;
    Ok(ProgramShape { parameters, result })
}

/// Parses a whole string as a shape.
pub fn parse_shape_str(text: &str) -> Result<Shape> {
    let mut c = Cursor::new(text, "<shape>");
    let s = shape(&mut c)?;
    c.skip_ws()?;
    if !c.at_end() {
        return Err(c.err(format!("unexpected {} after the shape", c.describe_next())));
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rt(s: &str) -> String {
        parse_shape_str(s).unwrap().to_string()
    }

    #[test]
    fn shapes_round_trip() {
        assert_eq!(rt("f32[2,3]{1,0}"), "f32[2,3]{1,0}");
        assert_eq!(rt("f32[2,3]"), "f32[2,3]{1,0}");
        assert_eq!(rt("f32[]"), "f32[]");
        assert_eq!(rt("token[]"), "token[]");
        assert_eq!(
            rt("(f32[2]{0}, (s32[], pred[]))"),
            "(f32[2]{0}, (s32[], pred[]))"
        );
        assert_eq!(rt("()"), "()");
        assert_eq!(rt("f32[2,3]{0,1:P(3,5)}"), "f32[2,3]{0,1:P(3,5)}");
        assert_eq!(
            rt("f32[2,3]{0,1:P(3,5):V(-1)}"),
            "f32[2,3]{0,1:P(3,5):V(-1)}"
        );
        assert_eq!(rt("f32[8,128]{1,0:T(8,128)}"), "f32[8,128]{1,0:T(8,128)}");
        assert_eq!(
            rt("f32[8,128]{1,0:T(8,128)(2,1)S(1)}"),
            "f32[8,128]{1,0:T(8,128)(2,1):S(1)}"
        );
        assert_eq!(
            rt("f32[8,128]{1,0:T(8,128):E(32)}"),
            "f32[8,128]{1,0:T(8,128):E(32)}"
        );
    }

    #[test]
    fn dynamic_shapes_round_trip() {
        assert_eq!(rt("f32[<=4,3]"), "f32[<=4,3]{1,0}");
        assert_eq!(rt("f32[<=4,<=3]{0,1}"), "f32[<=4,<=3]{0,1}");
        assert_eq!(rt("(f32[<=4]{0}, s32[])"), "(f32[<=4]{0}, s32[])");
        assert_eq!(rt("f32[<= 4]"), "f32[<=4]{0}");
        let e = |s: &str| parse_shape_str(s).unwrap_err().to_string();
        assert!(e("f32[<=0]").contains("must be positive"));
        assert!(e("f32[<=-2]").contains("must be positive"));
        assert!(e("f32[?]").contains("unbounded"));
        assert!(e("f32[<=]").contains("bound after '<='"));
        assert!(e("f32[<4]").contains("dimension size"));
        assert!(e("f32[<=2199023255553]").contains("above the limit"));
        assert!(e("f32[=4]").contains("dimension size"));
        let many = format!("f32[{},<=2]", vec!["1"; 64].join(","));
        assert!(e(&many).contains("cannot be dynamic"));
    }

    #[test]
    fn bad_shapes() {
        let e = |s: &str| parse_shape_str(s).unwrap_err().to_string();
        assert!(e("f33[2]").contains("unknown element type 'f33'"));
        assert!(e("f32[-1]").contains("negative dimension size -1"));
        assert!(e("f32[1e30]").contains("'1e30'"));
        assert!(e("f32[4294967296,4294967296,4]").contains("overflows"));
        assert!(e("f32[2199023255553]").contains("above the limit"));
        assert!(e("f32[2,3]{0,0}").contains("permutation"));
        assert!(e("token[2]").contains("token"));
        let many = format!("f32[{}]", vec!["1"; 300].join(","));
        assert!(e(&many).contains("at most 256 dimensions"));
        let deep = format!("{}f32[]{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(e(&deep).contains("nested deeper than 256"));
    }

    #[test]
    fn program_shapes() {
        let mut c = Cursor::new("(f32[2]{0}, /*index=1*/s32[])->(f32[2]{0})", "f");
        let p = program_shape(&mut c).unwrap();
        assert_eq!(p.to_string(), "(f32[2]{0}, s32[])->(f32[2]{0})");
        let mut c = Cursor::new("(p: f32[2], q: s32[]) -> f32[2]", "f");
        assert_eq!(program_shape(&mut c).unwrap().parameters.len(), 2);
    }
}
