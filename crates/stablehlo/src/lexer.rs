//! Tokens of MLIR's textual form: `%values` (with a `#N` result index),
//! `^blocks`, `@symbols`, `#attributes`, `!types`, bare identifiers (dots
//! allowed: `stablehlo.add`), integers (decimal and `0x` hex), floats,
//! quoted strings (MLIR escapes) and punctuation, each with its byte
//! offset; plus located errors (`FILE:LINE:COL`). It knows no grammar and
//! must not build any AST; the parser reads tokens on demand.

use rxla_ir::IrError;
/// Located errors are built as for HLO text (same line and column rules).
pub use rxla_ir::text::error_at;

/// Deepest nesting of regions, types and attributes the parser accepts.
pub const MAX_DEPTH: usize = 128;

/// A token kind with its text (without the sigil for `%`, `^`, `@`, `#`, `!`).
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// `%name` or `%name#3` (index kept separately).
    Value(String, Option<usize>),
    Block(String),
    Symbol(String),
    Hash(String),
    Bang(String),
    Ident(String),
    /// An integer literal as written (sign and `0x` prefix included).
    Int(String),
    Float(String),
    Str(String),
    Arrow,
    Punct(char),
    Eof,
}

impl Tok {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            Tok::Value(v, None) => format!("'%{v}'"),
            Tok::Value(v, Some(i)) => format!("'%{v}#{i}'"),
            Tok::Block(b) => format!("'^{b}'"),
            Tok::Symbol(s) => format!("'@{s}'"),
            Tok::Hash(s) => format!("'#{s}'"),
            Tok::Bang(s) => format!("'!{s}'"),
            Tok::Ident(s) => format!("'{}'", clip(s)),
            Tok::Int(s) | Tok::Float(s) => format!("'{}'", clip(s)),
            Tok::Str(s) => format!("the string \"{}\"", clip(s)),
            Tok::Arrow => "'->'".into(),
            Tok::Punct(c) => format!("'{c}'"),
            Tok::Eof => "the end of the input".into(),
        }
    }
}

fn clip(s: &str) -> String {
    if s.chars().count() > 48 {
        format!("{}...", s.chars().take(48).collect::<String>())
    } else {
        s.to_string()
    }
}

/// A cursor over the source producing tokens on demand.
#[derive(Clone, Debug)]
pub struct Lexer<'a> {
    pub src: &'a str,
    pub file: &'a str,
    pub pos: usize,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$'
}

fn is_suffix_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$' || b == b'-'
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str, file: &'a str) -> Lexer<'a> {
        Lexer { src, file, pos: 0 }
    }

    pub fn err_at(&self, pos: usize, msg: impl Into<String>) -> IrError {
        error_at(self.src, self.file, pos, msg)
    }

    fn bytes(&self) -> &'a [u8] {
        self.src.as_bytes()
    }

    /// Skips whitespace and `//` comments.
    pub fn skip_ws(&mut self) {
        let b = self.bytes();
        while self.pos < b.len() {
            match b[self.pos] {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'/' if b.get(self.pos + 1) == Some(&b'/') => {
                    while self.pos < b.len() && b[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
    }

    /// The next raw byte after whitespace, without consuming it.
    pub fn peek_byte(&mut self) -> Option<u8> {
        self.skip_ws();
        self.bytes().get(self.pos).copied()
    }

    /// The next token and its start offset, without consuming it.
    pub fn peek(&mut self) -> Result<(Tok, usize), IrError> {
        let save = self.pos;
        let r = self.next();
        self.pos = save;
        r
    }

    fn take_while(&mut self, f: impl Fn(u8) -> bool) -> &'a str {
        let b = self.bytes();
        let start = self.pos;
        while self.pos < b.len() && f(b[self.pos]) {
            self.pos += 1;
        }
        &self.src[start..self.pos]
    }

    /// Reads a name after a sigil: a bare suffix id or a quoted string.
    fn sigil_name(&mut self, start: usize, what: &str) -> Result<String, IrError> {
        if self.bytes().get(self.pos) == Some(&b'"') {
            return self.string(self.pos);
        }
        let s = self.take_while(is_suffix_char);
        if s.is_empty() {
            return Err(self.err_at(start, format!("expected a name after '{what}'")));
        }
        Ok(s.to_string())
    }

    /// Consumes and returns the next token with its start offset. (Not an
    /// `Iterator`: it fails, and callers rewind by setting `pos`.)
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<(Tok, usize), IrError> {
        self.skip_ws();
        let b = self.bytes();
        let start = self.pos;
        let Some(&c) = b.get(self.pos) else {
            return Ok((Tok::Eof, start));
        };
        let tok = match c {
            b'%' => {
                self.pos += 1;
                let name = self.sigil_name(start, "%")?;
                let mut index = None;
                if self.bytes().get(self.pos) == Some(&b'#')
                    && self
                        .bytes()
                        .get(self.pos + 1)
                        .is_some_and(u8::is_ascii_digit)
                {
                    self.pos += 1;
                    let digits = self.take_while(|b| b.is_ascii_digit());
                    index = Some(digits.parse::<usize>().map_err(|_| {
                        self.err_at(start, format!("result index '#{digits}' is too large"))
                    })?);
                }
                Tok::Value(name, index)
            }
            b'^' => {
                self.pos += 1;
                Tok::Block(self.sigil_name(start, "^")?)
            }
            b'@' => {
                self.pos += 1;
                Tok::Symbol(self.sigil_name(start, "@")?)
            }
            b'#' => {
                self.pos += 1;
                Tok::Hash(self.sigil_name(start, "#")?)
            }
            b'!' => {
                self.pos += 1;
                Tok::Bang(self.sigil_name(start, "!")?)
            }
            b'"' => Tok::Str(self.string(start)?),
            b'-' if b.get(self.pos + 1) == Some(&b'>') => {
                self.pos += 2;
                Tok::Arrow
            }
            b'-' | b'+' if b.get(self.pos + 1).is_some_and(u8::is_ascii_digit) => {
                self.pos += 1;
                self.number(start)?
            }
            b'0'..=b'9' => self.number(start)?,
            c if is_ident_start(c) => Tok::Ident(self.take_while(is_ident_char).to_string()),
            b'(' | b')' | b'{' | b'}' | b'[' | b']' | b'<' | b'>' | b',' | b':' | b'=' | b'?'
            | b'*' | b'+' | b'-' | b'|' => {
                self.pos += 1;
                Tok::Punct(c as char)
            }
            _ => {
                let ch = self.src[start..].chars().next().unwrap_or('?');
                return Err(self.err_at(start, format!("unexpected character '{ch}'")));
            }
        };
        Ok((tok, start))
    }

    /// Reads a number whose sign (if any) was consumed; `start` includes it.
    fn number(&mut self, start: usize) -> Result<Tok, IrError> {
        let b = self.bytes();
        if b.get(self.pos) == Some(&b'0') && matches!(b.get(self.pos + 1), Some(b'x' | b'X')) {
            // `0x...` hex, but `0x3` inside a shape is the lexer's caller's
            // business: types are read with `dims`, never as tokens.
            if b.get(self.pos + 2).is_some_and(u8::is_ascii_hexdigit) {
                self.pos += 2;
                self.take_while(|b| b.is_ascii_hexdigit());
                return Ok(Tok::Int(self.src[start..self.pos].to_string()));
            }
        }
        self.take_while(|b| b.is_ascii_digit());
        let mut float = false;
        if b.get(self.pos) == Some(&b'.') {
            float = true;
            self.pos += 1;
            self.take_while(|b| b.is_ascii_digit());
        }
        if matches!(b.get(self.pos), Some(b'e' | b'E')) {
            let save = self.pos;
            self.pos += 1;
            if matches!(b.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if b.get(self.pos).is_some_and(u8::is_ascii_digit) {
                float = true;
                self.take_while(|b| b.is_ascii_digit());
            } else {
                self.pos = save;
            }
        }
        let text = self.src[start..self.pos].to_string();
        Ok(if float {
            Tok::Float(text)
        } else {
            Tok::Int(text)
        })
    }

    /// Reads a quoted string at `self.pos` (MLIR escapes: `\\`, `\"`,
    /// `\n`, `\t`, `\XX` hex bytes).
    fn string(&mut self, start: usize) -> Result<String, IrError> {
        let b = self.bytes();
        self.pos += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(&c) = b.get(self.pos) else {
                return Err(self.err_at(start, "unterminated string"));
            };
            self.pos += 1;
            match c {
                b'"' => break,
                b'\n' => return Err(self.err_at(start, "unterminated string (newline)")),
                b'\\' => {
                    let Some(&e) = b.get(self.pos) else {
                        return Err(self.err_at(start, "unterminated string"));
                    };
                    self.pos += 1;
                    match e {
                        b'\\' | b'"' => out.push(e),
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        h if h.is_ascii_hexdigit() => {
                            let l = b.get(self.pos).copied().filter(u8::is_ascii_hexdigit);
                            let Some(l) = l else {
                                return Err(self
                                    .err_at(self.pos - 2, "bad escape: expected two hex digits"));
                            };
                            self.pos += 1;
                            let v = (hex(h) << 4) | hex(l);
                            out.push(v);
                        }
                        _ => return Err(self.err_at(self.pos - 2, "unknown escape in string")),
                    }
                }
                _ => out.push(c),
            }
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// Reads the dimension list of a shaped type: `2x3x` (each dim
    /// followed by `x`), stopping before the element type. `?` (dynamic)
    /// is an error naming the position.
    /// `None` for a dynamic dimension `?` (its bound comes from the
    /// tensor's `#stablehlo.bounds<...>` encoding).
    pub fn dims(&mut self) -> Result<Vec<Option<i64>>, IrError> {
        self.skip_ws();
        let mut dims = Vec::new();
        loop {
            let b = self.bytes();
            let start = self.pos;
            match b.get(self.pos) {
                Some(b'?') => {
                    self.pos += 1;
                    if self.bytes().get(self.pos) != Some(&b'x') {
                        return Err(self.err_at(self.pos, "expected 'x' after a dimension size"));
                    }
                    self.pos += 1;
                    dims.push(None);
                }
                Some(c) if c.is_ascii_digit() => {
                    let digits = self.take_while(|b| b.is_ascii_digit());
                    if self.bytes().get(self.pos) != Some(&b'x') {
                        return Err(self.err_at(self.pos, "expected 'x' after a dimension size"));
                    }
                    self.pos += 1;
                    let d: i64 = digits
                        .parse()
                        .map_err(|_| self.err_at(start, "dimension size is too large"))?;
                    dims.push(Some(d));
                }
                _ => return Ok(dims),
            }
        }
    }
}

fn hex(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        _ => b - b'A' + 10,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        let mut l = Lexer::new(s, "t");
        let mut v = Vec::new();
        loop {
            let (t, _) = l.next().unwrap();
            if t == Tok::Eof {
                return v;
            }
            v.push(t);
        }
    }

    #[test]
    fn tokens() {
        assert_eq!(
            toks("%0:2 = stablehlo.add %a#1, %b -> @f #loc3 !stablehlo.token"),
            vec![
                Tok::Value("0".into(), None),
                Tok::Punct(':'),
                Tok::Int("2".into()),
                Tok::Punct('='),
                Tok::Ident("stablehlo.add".into()),
                Tok::Value("a".into(), Some(1)),
                Tok::Punct(','),
                Tok::Value("b".into(), None),
                Tok::Arrow,
                Tok::Symbol("f".into()),
                Tok::Hash("loc3".into()),
                Tok::Bang("stablehlo.token".into()),
            ]
        );
        assert_eq!(
            toks("1.000000e+00 -2 0xFF800000 \"a\\22b\" 3e5 -1.5"),
            vec![
                Tok::Float("1.000000e+00".into()),
                Tok::Int("-2".into()),
                Tok::Int("0xFF800000".into()),
                Tok::Str("a\"b".into()),
                Tok::Float("3e5".into()),
                Tok::Float("-1.5".into()),
            ]
        );
    }

    #[test]
    fn errors_are_located() {
        let mut l = Lexer::new("a\n  \"open", "f.mlir");
        l.next().unwrap();
        let e = l.next().unwrap_err().to_string();
        assert!(
            e.starts_with("f.mlir:2:3: error: unterminated string"),
            "{e}"
        );
        let mut l = Lexer::new("  ~", "f.mlir");
        let e = l.next().unwrap_err().to_string();
        assert!(
            e.starts_with("f.mlir:1:3: error: unexpected character '~'"),
            "{e}"
        );
    }

    #[test]
    fn dims_read_up_to_the_element_type() {
        let mut l = Lexer::new("2x3xf32>", "t");
        assert_eq!(l.dims().unwrap(), vec![Some(2), Some(3)]);
        assert_eq!(l.next().unwrap().0, Tok::Ident("f32".into()));
        let mut l = Lexer::new("?x3xf32>", "t");
        assert_eq!(l.dims().unwrap(), vec![None, Some(3)]);
    }
}
