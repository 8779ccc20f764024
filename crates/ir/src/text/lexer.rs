//! A cursor over HLO text: skips whitespace and `/* */` / `//` comments,
//! reads identifiers, integers, quoted strings and punctuation, and builds
//! located [`ParseError`]s (file, 1-based line and column, source line).
//! It knows no grammar: shapes, attributes and instructions are parsed by
//! the other `text` modules on top of it. It never allocates in
//! proportion to anything but the text itself.

use crate::error::{IrError, ParseError, Result};

/// Deepest nesting accepted for tuple shapes, tuple literals and other
/// recursive constructs (protects the stack from hostile input).
pub const MAX_DEPTH: usize = 256;

/// Longest name quoted verbatim in an error message.
const MAX_QUOTED: usize = 64;

/// Quotes `s` for an error message, shortening very long text.
pub fn quote(s: &str) -> String {
    if s.chars().count() <= MAX_QUOTED {
        format!("'{s}'")
    } else {
        let head: String = s.chars().take(MAX_QUOTED).collect();
        format!("'{head}...' ({} characters)", s.chars().count())
    }
}

/// Shortens long text (shapes, signatures) for an error message.
pub fn clip(s: String) -> String {
    const MAX: usize = 200;
    if s.chars().count() <= MAX {
        s
    } else {
        let head: String = s.chars().take(MAX).collect();
        format!("{head}...")
    }
}

/// A position in the full source plus a bounded window (`pos..end`) that
/// the current parser may read.
#[derive(Clone, Debug)]
pub struct Cursor<'a> {
    /// The whole source (error locations are relative to it).
    pub src: &'a str,
    pub file: &'a str,
    pub pos: usize,
    pub end: usize,
}

/// Builds a located parse error at byte offset `pos` of `src`.
pub fn error_at(src: &str, file: &str, pos: usize, msg: impl Into<String>) -> IrError {
    let pos = floor_char_boundary(src, pos.min(src.len()));
    let before = &src[..pos];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = src[line_start..pos].chars().count() + 1;
    let line_end = src[pos..].find('\n').map_or(src.len(), |i| pos + i);
    let source_line = src[line_start..line_end].trim_end_matches('\r').to_string();
    IrError::Parse(Box::new(ParseError {
        file: file.to_string(),
        line,
        col,
        message: msg.into(),
        source_line,
    }))
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Characters allowed in names after the first.
pub fn is_name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-'
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

impl<'a> Cursor<'a> {
    pub fn new(src: &'a str, file: &'a str) -> Cursor<'a> {
        Cursor {
            src,
            file,
            pos: 0,
            end: src.len(),
        }
    }

    /// A cursor over `start..end` of the same source.
    pub fn sub(&self, start: usize, end: usize) -> Cursor<'a> {
        Cursor {
            src: self.src,
            file: self.file,
            pos: start,
            end,
        }
    }

    pub fn error_at(&self, pos: usize, msg: impl Into<String>) -> IrError {
        error_at(self.src, self.file, pos, msg)
    }

    /// The 1-based line of byte offset `pos`.
    pub fn line_of(&self, pos: usize) -> usize {
        let pos = floor_char_boundary(self.src, pos.min(self.src.len()));
        self.src.as_bytes()[..pos]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    }

    /// An error at the current position.
    pub fn err(&self, msg: impl Into<String>) -> IrError {
        self.error_at(self.pos, msg)
    }

    pub fn peek(&self) -> Option<u8> {
        if self.pos < self.end {
            Some(self.src.as_bytes()[self.pos])
        } else {
            None
        }
    }

    pub fn peek_at(&self, k: usize) -> Option<u8> {
        let p = self.pos + k;
        if p < self.end {
            Some(self.src.as_bytes()[p])
        } else {
            None
        }
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.end
    }

    /// The unread text of the window.
    pub fn rest(&self) -> &'a str {
        self.src.get(self.pos.min(self.end)..self.end).unwrap_or("")
    }

    pub fn starts_with(&self, s: &str) -> bool {
        self.rest().starts_with(s)
    }

    /// Skips whitespace and comments. An unterminated `/*` is an error.
    pub fn skip_ws(&mut self) -> Result<()> {
        loop {
            match self.peek() {
                Some(b) if b.is_ascii_whitespace() => self.pos += 1,
                Some(b'/') if self.peek_at(1) == Some(b'*') => {
                    let start = self.pos;
                    match self.rest()[2..].find("*/") {
                        Some(i) => self.pos += 2 + i + 2,
                        None => return Err(self.error_at(start, "unterminated comment '/*'")),
                    }
                }
                Some(b'/') if self.peek_at(1) == Some(b'/') => match self.rest().find('\n') {
                    Some(i) => self.pos += i + 1,
                    None => self.pos = self.end,
                },
                _ => return Ok(()),
            }
        }
    }

    /// Skips whitespace, then consumes `c` if it is next.
    pub fn eat(&mut self, c: u8) -> Result<bool> {
        self.skip_ws()?;
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// Skips whitespace, then consumes `s` if it is next.
    pub fn eat_str(&mut self, s: &str) -> Result<bool> {
        self.skip_ws()?;
        if self.starts_with(s) {
            self.pos += s.len();
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// Describes what is at the cursor, for "expected X, got Y" messages.
    pub fn describe_next(&self) -> String {
        match self.peek() {
            None => "end of input".to_string(),
            Some(_) => {
                let tok: String = self
                    .rest()
                    .chars()
                    .take_while(|c| !c.is_whitespace())
                    .take(24)
                    .collect();
                format!("'{tok}'")
            }
        }
    }

    /// Consumes `c` (after whitespace) or errors with `what` expected.
    pub fn expect(&mut self, c: u8, what: &str) -> Result<()> {
        if self.eat(c)? {
            Ok(())
        } else {
            Err(self.err(format!("expected {what}, got {}", self.describe_next())))
        }
    }

    /// Consumes `s` (after whitespace) or errors.
    pub fn expect_str(&mut self, s: &str) -> Result<()> {
        if self.eat_str(s)? {
            Ok(())
        } else {
            Err(self.err(format!("expected '{s}', got {}", self.describe_next())))
        }
    }

    /// Reads an identifier `[A-Za-z_][A-Za-z0-9_.-]*` (after whitespace);
    /// `None` (nothing consumed) when none is next.
    pub fn ident(&mut self) -> Result<Option<&'a str>> {
        self.skip_ws()?;
        match self.peek() {
            Some(b) if is_name_start(b) => {}
            _ => return Ok(None),
        }
        let start = self.pos;
        while matches!(self.peek(), Some(b) if is_name_char(b)) {
            self.pos += 1;
        }
        Ok(Some(&self.src[start..self.pos]))
    }

    /// Reads an instruction or computation name, with an optional `%`
    /// prefix (which is dropped). Returns the name and its start offset.
    pub fn name(&mut self, what: &str) -> Result<(&'a str, usize)> {
        self.skip_ws()?;
        let at = self.pos;
        let percent = self.peek() == Some(b'%');
        if percent {
            self.pos += 1;
        }
        let start = self.pos;
        let ok_start = match self.peek() {
            Some(b) if percent => is_name_char(b),
            Some(b) => is_name_start(b),
            None => false,
        };
        if !ok_start {
            return Err(self.err(format!("expected {what}, got {}", self.describe_next())));
        }
        while matches!(self.peek(), Some(b) if is_name_char(b)) {
            self.pos += 1;
        }
        Ok((&self.src[start..self.pos], at))
    }

    /// Like [`Cursor::name`] but returns `None` (consuming nothing but
    /// whitespace) when no name is next, without building an error.
    pub fn try_name(&mut self) -> Result<Option<&'a str>> {
        self.skip_ws()?;
        let save = self.pos;
        let percent = self.peek() == Some(b'%');
        let ok = match self.peek_at(percent as usize) {
            Some(b) if percent => is_name_char(b),
            Some(b) => is_name_start(b),
            None => false,
        };
        if !ok {
            self.pos = save;
            return Ok(None);
        }
        Ok(Some(self.name("a name")?.0))
    }

    /// Reads a decimal integer with optional sign (after whitespace),
    /// checking it fits i64 and is not followed by more number characters
    /// (so `1e30` or `2.5` are rejected rather than read as `1`).
    pub fn int(&mut self, what: &str) -> Result<i64> {
        self.skip_ws()?;
        let start = self.pos;
        if matches!(self.peek(), Some(b'-') | Some(b'+')) {
            self.pos += 1;
        }
        let digits = self.pos;
        while matches!(self.peek(), Some(b) if b.is_ascii_digit()) {
            self.pos += 1;
        }
        if self.pos == digits {
            self.pos = start;
            return Err(self.err(format!("expected {what}, got {}", self.describe_next())));
        }
        if matches!(self.peek(), Some(b) if b.is_ascii_alphanumeric() || b == b'.') {
            while matches!(self.peek(), Some(b) if b.is_ascii_alphanumeric() || b == b'.' || b == b'+' || b == b'-')
            {
                self.pos += 1;
            }
            let text = &self.src[start..self.pos];
            return Err(self.error_at(
                start,
                format!("expected {what} (an integer), got {}", quote(text)),
            ));
        }
        let text = &self.src[start..self.pos];
        text.parse::<i64>().map_err(|_| {
            self.error_at(
                start,
                format!("{what} {} does not fit a 64-bit integer", quote(text)),
            )
        })
    }

    /// Reads a `"..."` string with C escapes (after whitespace).
    pub fn string(&mut self) -> Result<String> {
        self.skip_ws()?;
        let start = self.pos;
        if self.peek() != Some(b'"') {
            return Err(self.err(format!(
                "expected a quoted string, got {}",
                self.describe_next()
            )));
        }
        self.pos += 1;
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                '\\' => match chars.next() {
                    Some((_, 'n')) => out.push('\n'),
                    Some((_, 't')) => out.push('\t'),
                    Some((_, 'r')) => out.push('\r'),
                    Some((_, '0')) => out.push('\0'),
                    Some((_, e)) => out.push(e),
                    None => break,
                },
                c => out.push(c),
            }
        }
        Err(self.error_at(start, "unterminated string"))
    }

    /// Skips a quoted string starting at the cursor (no unescaping);
    /// errors when unterminated.
    pub fn skip_string(&mut self) -> Result<()> {
        let start = self.pos;
        self.pos += 1;
        let bytes = self.src.as_bytes();
        while self.pos < self.end {
            match bytes[self.pos] {
                b'"' => {
                    self.pos += 1;
                    return Ok(());
                }
                b'\\' => self.pos += 2,
                _ => self.pos += 1,
            }
        }
        self.pos = self.end;
        Err(self.error_at(start, "unterminated string"))
    }
}

/// Escapes a string for printing inside `"..."`.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_and_tokens() {
        let src = "a /* c */ b\n  %x.1 = 12, \"s\\\"t\"";
        let mut c = Cursor::new(src, "f.hlo");
        assert_eq!(c.ident().unwrap(), Some("a"));
        assert_eq!(c.ident().unwrap(), Some("b"));
        assert_eq!(c.name("name").unwrap().0, "x.1");
        c.expect(b'=', "'='").unwrap();
        assert_eq!(c.int("n").unwrap(), 12);
        assert!(c.eat(b',').unwrap());
        assert_eq!(c.string().unwrap(), "s\"t");
        let e = error_at(src, "f.hlo", 14, "boom");
        match e {
            IrError::Parse(p) => {
                assert_eq!((p.line, p.col), (2, 3));
                assert_eq!(p.source_line, "  %x.1 = 12, \"s\\\"t\"");
            }
            _ => panic!("not a parse error"),
        }
    }

    #[test]
    fn bad_ints() {
        let mut c = Cursor::new("1e30", "f");
        assert!(
            c.int("dimension")
                .unwrap_err()
                .to_string()
                .contains("'1e30'")
        );
        let mut c = Cursor::new("99999999999999999999", "f");
        assert!(c.int("n").unwrap_err().to_string().contains("64-bit"));
        let mut c = Cursor::new("/* open", "f");
        assert!(
            c.skip_ws()
                .unwrap_err()
                .to_string()
                .contains("unterminated")
        );
    }
}
