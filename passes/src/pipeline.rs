//! Pipeline text: `inline,cse,constant-folding{max-elements=64},
//! fixpoint{max-iters=8}(tuple-simplify,dce)`, parsed into
//! [`PipelineItem`]s, and the named pipelines O0/O1/O2. Syntax only: this
//! module does not know which passes exist (see `registry`).
//!
//! Grammar (whitespace allowed between tokens):
//! ```text
//! list    := item (',' item)*      | (empty)
//! item    := NAME options? group?
//! options := '{' key '=' value (',' key '=' value)* '}'
//! group   := '(' list ')'            (only after `fixpoint`)
//! NAME    := [A-Za-z0-9_.-]+
//! ```

use crate::error::PipelineError;
use std::fmt;

/// The name of the group combinator.
pub const FIXPOINT: &str = "fixpoint";
/// Default iteration cap of `fixpoint(...)`.
pub const DEFAULT_FIXPOINT_ITERS: usize = 25;

/// One element of a pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PipelineItem {
    /// A pass with its options, and the 1-based column of its name.
    Pass {
        name: String,
        options: Vec<(String, String)>,
        col: usize,
    },
    /// `fixpoint{max-iters=N}(...)`: rerun `items` until none changes the
    /// module, at most `max_iters` times.
    Fixpoint {
        max_iters: usize,
        items: Vec<PipelineItem>,
    },
}

impl fmt::Display for PipelineItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PipelineItem::Pass { name, options, .. } => {
                write!(f, "{name}")?;
                write_options(f, options)
            }
            PipelineItem::Fixpoint { max_iters, items } => {
                write!(f, "{FIXPOINT}")?;
                if *max_iters != DEFAULT_FIXPOINT_ITERS {
                    write!(f, "{{max-iters={max_iters}}}")?;
                }
                write!(f, "({})", display_list(items))
            }
        }
    }
}

/// Writes `{k=v,...}` (nothing when empty).
pub fn write_options(f: &mut impl fmt::Write, options: &[(String, String)]) -> fmt::Result {
    if options.is_empty() {
        return Ok(());
    }
    let body: Vec<String> = options.iter().map(|(k, v)| format!("{k}={v}")).collect();
    write!(f, "{{{}}}", body.join(","))
}

/// Prints a pipeline back in its canonical text form.
pub fn display_list(items: &[PipelineItem]) -> String {
    items
        .iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The JIT's backend pipeline: what `rxla_jit::compile` runs through the
/// pass manager before it plans and generates code. Dots stay unfused (the
/// GEMM engine runs them); input-dilated convolutions are split into
/// phases first (`conv-polyphase`). Layouts and buffers are not passes yet: the
/// JIT's planner honours the module's layouts (relayouting where they
/// differ) and owns its buffers.
pub const JIT_BACKEND: &str = "conv-polyphase,fusion{dots=false},multi-output-fusion";

/// The named pipelines and their text. O2 is O1 followed by a cleanup
/// fixpoint; `jit-backend` is [`JIT_BACKEND`]; `jit` is O2 then the
/// backend: exactly what `rxla run` compiles by default.
pub const NAMED_PIPELINES: [(&str, &str); 5] = [
    ("O0", ""),
    ("O1", "inline,tuple-simplify,dce,cse,constant-folding,dce"),
    (
        "O2",
        "inline,tuple-simplify,dce,cse,constant-folding,dce,transpose-folding,fixpoint(tuple-simplify,simplify,cse,constant-folding,dce)",
    ),
    ("jit-backend", JIT_BACKEND),
    (
        "jit",
        "inline,tuple-simplify,dce,cse,constant-folding,dce,transpose-folding,fixpoint(tuple-simplify,simplify,cse,constant-folding,dce),conv-polyphase,fusion{dots=false},multi-output-fusion",
    ),
];

/// The text of a named pipeline (`O0`, `O1`, `O2`, `jit-backend`, `jit`).
pub fn named_pipeline_text(name: &str) -> Option<&'static str> {
    NAMED_PIPELINES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
}

/// Parses a named pipeline; errors list the known names.
pub fn named_pipeline(name: &str) -> Result<Vec<PipelineItem>, PipelineError> {
    match named_pipeline_text(name) {
        Some(t) => parse_pipeline(t),
        None => Err(PipelineError {
            text: name.to_string(),
            col: 1,
            message: format!(
                "unknown pipeline `{name}` (known: {})",
                NAMED_PIPELINES
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }),
    }
}

/// Parses pipeline text.
pub fn parse_pipeline(text: &str) -> Result<Vec<PipelineItem>, PipelineError> {
    let mut p = Parser {
        text,
        chars: text.chars().collect(),
        pos: 0,
    };
    let items = p.list()?;
    p.skip_ws();
    if p.pos < p.chars.len() {
        let c = p.chars[p.pos];
        return Err(p.error(if c == ')' {
            "unbalanced `)`".to_string()
        } else {
            format!("expected `,` or end of pipeline, found `{c}`")
        }));
    }
    Ok(items)
}

struct Parser<'a> {
    text: &'a str,
    chars: Vec<char>,
    pos: usize,
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

impl Parser<'_> {
    fn error(&self, message: impl Into<String>) -> PipelineError {
        self.error_at(self.pos, message)
    }

    fn error_at(&self, pos: usize, message: impl Into<String>) -> PipelineError {
        PipelineError {
            text: self.text.to_string(),
            col: pos + 1,
            message: message.into(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn describe_next(&self) -> String {
        match self.peek() {
            Some(c) => format!("`{c}`"),
            None => "end of pipeline".to_string(),
        }
    }

    fn name(&mut self, what: &str) -> Result<(String, usize), PipelineError> {
        self.skip_ws();
        let start = self.pos;
        while self.peek().is_some_and(is_name_char) {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.error(format!("expected {what}, found {}", self.describe_next())));
        }
        Ok((self.chars[start..self.pos].iter().collect(), start))
    }

    fn list(&mut self) -> Result<Vec<PipelineItem>, PipelineError> {
        let mut items = Vec::new();
        self.skip_ws();
        if matches!(self.peek(), None | Some(')')) {
            return Ok(items);
        }
        loop {
            items.push(self.item()?);
            self.skip_ws();
            if self.peek() == Some(',') {
                self.pos += 1;
                continue;
            }
            return Ok(items);
        }
    }

    fn item(&mut self) -> Result<PipelineItem, PipelineError> {
        let (name, start) = self.name("a pass name")?;
        self.skip_ws();
        let options = if self.peek() == Some('{') {
            self.options()?
        } else {
            Vec::new()
        };
        self.skip_ws();
        if name != FIXPOINT {
            if self.peek() == Some('(') {
                return Err(self.error(format!(
                    "`(` after `{name}`: only `{FIXPOINT}` takes a group of passes"
                )));
            }
            return Ok(PipelineItem::Pass {
                name,
                options,
                col: start + 1,
            });
        }
        let mut max_iters = DEFAULT_FIXPOINT_ITERS;
        for (k, v) in &options {
            if k != "max-iters" {
                return Err(self.error_at(
                    start,
                    format!("`{FIXPOINT}` has no option `{k}` (it takes max-iters=N)"),
                ));
            }
            max_iters = v.parse().ok().filter(|&n: &usize| n > 0).ok_or_else(|| {
                self.error_at(
                    start,
                    format!("`{FIXPOINT}{{max-iters=...}}` expects a positive integer, got `{v}`"),
                )
            })?;
        }
        if self.peek() != Some('(') {
            return Err(self.error(format!(
                "expected `(` and a group of passes after `{FIXPOINT}`, found {}",
                self.describe_next()
            )));
        }
        let open = self.pos;
        self.pos += 1;
        let items = self.list()?;
        self.skip_ws();
        if self.peek() != Some(')') {
            if self.peek().is_none() {
                return Err(self.error_at(open, "unclosed `(`"));
            }
            return Err(self.error(format!(
                "expected `,` or `)`, found {}",
                self.describe_next()
            )));
        }
        self.pos += 1;
        if items.is_empty() {
            return Err(self.error_at(open, format!("empty `{FIXPOINT}()` group")));
        }
        Ok(PipelineItem::Fixpoint { max_iters, items })
    }

    fn options(&mut self) -> Result<Vec<(String, String)>, PipelineError> {
        let open = self.pos;
        self.pos += 1; // '{'
        let mut out: Vec<(String, String)> = Vec::new();
        loop {
            self.skip_ws();
            if self.peek() == Some('}') && out.is_empty() {
                self.pos += 1;
                return Ok(out);
            }
            let (key, kpos) = self.name("an option name")?;
            self.skip_ws();
            if self.peek() != Some('=') {
                return Err(self.error(format!(
                    "expected `=` after option `{key}`, found {}",
                    self.describe_next()
                )));
            }
            self.pos += 1;
            self.skip_ws();
            let vstart = self.pos;
            while self
                .peek()
                .is_some_and(|c| !c.is_whitespace() && !matches!(c, ',' | '}' | '{' | '(' | ')'))
            {
                self.pos += 1;
            }
            if self.pos == vstart {
                return Err(self.error(format!(
                    "expected a value for option `{key}`, found {}",
                    self.describe_next()
                )));
            }
            let value: String = self.chars[vstart..self.pos].iter().collect();
            if out.iter().any(|(k, _)| *k == key) {
                return Err(self.error_at(kpos, format!("option `{key}` given twice")));
            }
            out.push((key, value));
            self.skip_ws();
            match self.peek() {
                Some(',') => self.pos += 1,
                Some('}') => {
                    self.pos += 1;
                    return Ok(out);
                }
                None => return Err(self.error_at(open, "unclosed `{`")),
                Some(c) => {
                    return Err(self.error(format!("expected `,` or `}}` in options, found `{c}`")));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jit_is_o2_then_the_backend() {
        let o2 = named_pipeline_text("O2").unwrap();
        assert_eq!(
            named_pipeline_text("jit").unwrap(),
            format!("{o2},{JIT_BACKEND}")
        );
        assert_eq!(named_pipeline_text("jit-backend"), Some(JIT_BACKEND));
        let items = named_pipeline("jit").unwrap();
        assert_eq!(items.last().unwrap().to_string(), "multi-output-fusion");
    }

    fn pass(name: &str, col: usize) -> PipelineItem {
        PipelineItem::Pass {
            name: name.into(),
            options: vec![],
            col,
        }
    }

    fn err(text: &str) -> PipelineError {
        parse_pipeline(text).expect_err("should fail")
    }

    #[test]
    fn flat_list_with_columns() {
        assert_eq!(
            parse_pipeline("inline, cse,dce").unwrap(),
            vec![pass("inline", 1), pass("cse", 9), pass("dce", 13)]
        );
    }

    #[test]
    fn empty_pipeline() {
        assert_eq!(parse_pipeline("").unwrap(), vec![]);
        assert_eq!(parse_pipeline("  ").unwrap(), vec![]);
    }

    #[test]
    fn options_are_parsed() {
        let p = parse_pipeline("constant-folding{max-elements=64, x=y}").unwrap();
        assert_eq!(
            p,
            vec![PipelineItem::Pass {
                name: "constant-folding".into(),
                options: vec![
                    ("max-elements".into(), "64".into()),
                    ("x".into(), "y".into())
                ],
                col: 1
            }]
        );
        assert_eq!(display_list(&p), "constant-folding{max-elements=64,x=y}");
    }

    #[test]
    fn nested_fixpoints() {
        let p = parse_pipeline("inline,fixpoint{max-iters=3}(cse,fixpoint(dce)),dce").unwrap();
        assert_eq!(
            p,
            vec![
                pass("inline", 1),
                PipelineItem::Fixpoint {
                    max_iters: 3,
                    items: vec![
                        pass("cse", 30),
                        PipelineItem::Fixpoint {
                            max_iters: DEFAULT_FIXPOINT_ITERS,
                            items: vec![pass("dce", 43)]
                        }
                    ]
                },
                pass("dce", 49)
            ]
        );
        assert_eq!(
            display_list(&p),
            "inline,fixpoint{max-iters=3}(cse,fixpoint(dce)),dce"
        );
    }

    #[test]
    fn named_pipelines_parse() {
        assert_eq!(named_pipeline("O0").unwrap(), vec![]);
        assert_eq!(named_pipeline("O1").unwrap().len(), 6);
        let o2 = named_pipeline("O2").unwrap();
        assert!(matches!(o2.last(), Some(PipelineItem::Fixpoint { .. })));
        let e = named_pipeline("O3").unwrap_err();
        assert!(e.message.contains("known: O0, O1, O2"), "{}", e.message);
    }

    #[test]
    fn errors_point_at_columns() {
        let e = err("cse,,dce");
        assert_eq!(
            (e.col, e.message.as_str()),
            (5, "expected a pass name, found `,`")
        );
        let e = err("cse,");
        assert_eq!(e.col, 5);
        assert_eq!(e.message, "expected a pass name, found end of pipeline");
        let e = err("cse(dce)");
        assert_eq!(e.col, 4);
        assert!(e.message.contains("only `fixpoint` takes a group"));
        let e = err("fixpoint(cse,dce");
        assert_eq!((e.col, e.message.as_str()), (9, "unclosed `(`"));
        let e = err("fixpoint()");
        assert_eq!((e.col, e.message.as_str()), (9, "empty `fixpoint()` group"));
        let e = err("fixpoint");
        assert_eq!(e.col, 9);
        let e = err("cse{a=1");
        assert_eq!((e.col, e.message.as_str()), (4, "unclosed `{`"));
        let e = err("cse{a}");
        assert_eq!(e.col, 6);
        assert!(e.message.contains("expected `=` after option `a`"));
        let e = err("cse{a=}");
        assert_eq!(e.col, 7);
        let e = err("cse{a=1,a=2}");
        assert_eq!((e.col, e.message.as_str()), (9, "option `a` given twice"));
        let e = err("cse)");
        assert_eq!((e.col, e.message.as_str()), (4, "unbalanced `)`"));
        let e = err("fixpoint{max-iters=0}(dce)");
        assert_eq!(e.col, 1);
        assert!(e.message.contains("positive integer"));
        let e = err("cse dce");
        assert_eq!(e.col, 5);
        let e = err("c$e");
        assert_eq!(e.col, 2);
    }

    #[test]
    fn error_display_has_caret() {
        let e = err("cse,,dce");
        assert_eq!(
            e.to_string(),
            "pipeline:5: error: expected a pass name, found `,`\n  cse,,dce\n      ^"
        );
    }
}
