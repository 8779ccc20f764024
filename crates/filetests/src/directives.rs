//! Reads a filetest's directives (`// test:`, `// run:`, `// error:`,
//! `// tolerance:` and the FileCheck lines) into a [`FileTest`]. Parsing
//! only: nothing here runs a module.

use crate::filecheck;

/// What one filetest asks for.
#[derive(Debug, Default)]
pub struct FileTest {
    /// The kinds declared by `// test:` lines, in order.
    pub kinds: Vec<Kind>,
    pub runs: Vec<RunLine>,
    pub checks: Vec<(usize, filecheck::Check)>,
    /// `// error:` lines: parsing or verifying must fail with a message
    /// containing each of these texts (line number, text).
    pub errors: Vec<(usize, String)>,
    /// The tolerance of `~=` run lines (`// tolerance: rtol=… atol=…`).
    pub tolerance: Tolerance,
    /// `// devices: R` or `// devices: RxP`: run lines execute on a grid
    /// of R replicas × P partitions (one value per device, see
    /// [`Devices`]).
    pub devices: Option<Devices>,
}

/// The device grid of a multi-device filetest: `replicas` × `partitions`
/// devices, numbered replica-major (device `r·P + p`). Each argument and
/// the expected result of a run line is then either `[v0, v1, …]`, one
/// value per device, or a single value that every device shares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Devices {
    pub replicas: usize,
    pub partitions: usize,
}

impl Devices {
    pub fn count(&self) -> usize {
        self.replicas * self.partitions
    }
}

fn parse_devices(line: usize, body: &str) -> Result<Devices, String> {
    let body = body.trim();
    let (r, p) = body.split_once('x').unwrap_or((body, "1"));
    let num = |s: &str| {
        s.trim()
            .parse::<usize>()
            .ok()
            .filter(|&n| (1..=64).contains(&n))
            .ok_or_else(|| {
                format!("line {line}: devices wants `R` or `RxP` with counts 1..=64, got {body:?}")
            })
    };
    Ok(Devices {
        replicas: num(r)?,
        partitions: num(p)?,
    })
}

/// The per-device values of one run-line value: `[v0, v1, …]` with one
/// entry per device, or one value repeated for every device.
pub fn per_device(text: &str, devices: Devices) -> Result<Vec<String>, String> {
    let n = devices.count();
    let Some(inner) = text
        .trim()
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
    else {
        return Ok(vec![text.trim().to_string(); n]);
    };
    let vals = split_top_level(inner);
    if vals.len() != n {
        return Err(format!(
            "`{text}` has {} values, the grid has {n} devices",
            vals.len()
        ));
    }
    Ok(vals)
}

impl FileTest {
    pub fn has(&self, kind: &Kind) -> bool {
        self.kinds.iter().any(|k| k == kind)
    }

    /// The pass pipeline of the `opt` kind, if declared.
    pub fn opt(&self) -> Option<&OptSpec> {
        self.kinds.iter().find_map(|k| match k {
            Kind::Opt(spec) => Some(spec),
            _ => None,
        })
    }
}

/// One subtest kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// print → parse → print is a fixed point.
    Roundtrip,
    /// Run lines on the reference evaluator.
    Interp,
    /// Run lines on the JIT, every instruction native.
    Jit,
    /// Run lines on the JIT with the interpreter fallback allowed.
    JitFallback,
    /// Passes; CHECK lines match the output and run lines are checked on it.
    Opt(OptSpec),
    /// `verify_layouts` accepts the module CHECK lines see (the optimized
    /// one with `opt`); with `// error:` lines, it rejects the module as
    /// written with those texts (and accepts the `opt` result, if any).
    Layouts,
}

#[derive(Debug, Clone, PartialEq)]
pub enum OptSpec {
    Passes(String),
    Pipeline(String),
}

impl std::fmt::Display for OptSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OptSpec::Passes(p) => write!(f, "--passes={p}"),
            OptSpec::Pipeline(p) => write!(f, "--pipeline={p}"),
        }
    }
}

/// Relative and absolute tolerance of `~=` comparisons.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    pub rtol: f64,
    pub atol: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance {
            rtol: 1e-5,
            atol: 1e-6,
        }
    }
}

#[derive(Debug, Clone)]
pub struct RunLine {
    pub line: usize,
    pub args: Vec<String>,
    /// The expected value, or with [`RunLine::error`] the text the
    /// failure's message must contain.
    pub expected: String,
    /// `~=`: compared within the file's tolerance.
    pub approx: bool,
    /// `error: TEXT`: the run must fail with a message containing TEXT.
    pub error: bool,
}

/// Splits `s` at top-level commas (outside (), {}, []).
pub fn split_top_level(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for ch in s.chars() {
        match ch {
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

fn parse_run(line: usize, body: &str) -> Result<RunLine, String> {
    // The arguments are the leading parenthesised group; what follows is
    // `== value`, `~= value` or `error: text`.
    let mut depth = 0i32;
    let mut close = None;
    if body.starts_with('(') {
        for (i, ch) in body.char_indices() {
            match ch {
                '(' | '{' | '[' => depth += 1,
                ')' | '}' | ']' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                close = Some(i);
                break;
            }
        }
    }
    let Some(close) = close else {
        let lhs = body.split(['=', '~']).next().unwrap_or(body).trim();
        return Err(format!(
            "line {line}: run arguments must be in parentheses: {lhs}"
        ));
    };
    let inner = &body[1..close];
    let rest = body[close + 1..].trim_start();
    let (expected, approx, error) = if let Some(r) = rest.strip_prefix("~=") {
        (r, true, false)
    } else if let Some(r) = rest.strip_prefix("==") {
        (r, false, false)
    } else if let Some(r) = rest.strip_prefix("error:") {
        (r, false, true)
    } else {
        return Err(format!(
            "line {line}: run line needs `== expected`, `~= expected` or `error: text`"
        ));
    };
    Ok(RunLine {
        line,
        args: split_top_level(inner),
        expected: expected.trim().to_string(),
        approx,
        error,
    })
}

fn parse_tolerance(line: usize, body: &str) -> Result<Tolerance, String> {
    let mut t = Tolerance::default();
    for word in body.split_whitespace() {
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| format!("line {line}: tolerance wants `rtol=X atol=Y`, got {word:?}"))?;
        let v: f64 = value
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| format!("line {line}: {key} must be a number >= 0, got {value:?}"))?;
        match key {
            "rtol" => t.rtol = v,
            "atol" => t.atol = v,
            _ => {
                return Err(format!(
                    "line {line}: unknown tolerance {key:?} (rtol, atol)"
                ));
            }
        }
    }
    Ok(t)
}

/// Reads the directives of a filetest.
pub fn parse_filetest(source: &str) -> Result<FileTest, String> {
    let mut t = FileTest {
        checks: filecheck::parse_checks(source),
        ..FileTest::default()
    };
    for (no, raw) in source.lines().enumerate() {
        let line = no + 1;
        let Some(c) = raw.trim_start().strip_prefix("//") else {
            continue;
        };
        let c = c.trim();
        if let Some(rest) = c.strip_prefix("test:") {
            // Kinds are separated by commas or spaces; an `opt` kind takes
            // the following `--passes=...`/`--pipeline=...` word (whose own
            // commas separate passes).
            let words: Vec<&str> = rest
                .split_whitespace()
                .map(|w| w.trim_end_matches(','))
                .filter(|w| !w.is_empty())
                .collect();
            let mut i = 0;
            while i < words.len() {
                let kind = match words[i] {
                    "interp" => Kind::Interp,
                    "roundtrip" => Kind::Roundtrip,
                    "jit" => Kind::Jit,
                    "jit-fallback" => Kind::JitFallback,
                    "layouts" => Kind::Layouts,
                    "opt" => {
                        let arg = words.get(i + 1).copied().unwrap_or("");
                        Kind::Opt(if let Some(p) = arg.strip_prefix("--passes=") {
                            i += 1;
                            OptSpec::Passes(p.to_string())
                        } else if let Some(p) = arg.strip_prefix("--pipeline=") {
                            i += 1;
                            OptSpec::Pipeline(p.to_string())
                        } else {
                            OptSpec::Pipeline("O1".to_string())
                        })
                    }
                    other => return Err(format!("line {line}: unknown test kind {other:?}")),
                };
                if matches!(kind, Kind::Opt(_)) && t.opt().is_some() {
                    return Err(format!("line {line}: a second `opt` kind"));
                }
                t.kinds.push(kind);
                i += 1;
            }
        } else if let Some(rest) = c.strip_prefix("run:") {
            t.runs.push(parse_run(line, rest.trim())?);
        } else if let Some(rest) = c.strip_prefix("error:") {
            t.errors.push((line, rest.trim().to_string()));
        } else if let Some(rest) = c.strip_prefix("tolerance:") {
            t.tolerance = parse_tolerance(line, rest)?;
        } else if let Some(rest) = c.strip_prefix("devices:") {
            t.devices = Some(parse_devices(line, rest)?);
        }
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_runs_and_tolerance() {
        let t = parse_filetest(
            "// test: interp, jit opt --passes=dce,cse layouts\n// tolerance: rtol=1e-3 atol=0\n// run: ({1, 2}, 3) == {4}\n",
        )
        .unwrap();
        assert_eq!(
            t.kinds,
            vec![
                Kind::Interp,
                Kind::Jit,
                Kind::Opt(OptSpec::Passes("dce,cse".into())),
                Kind::Layouts
            ]
        );
        assert_eq!(t.runs[0].args, vec!["{1, 2}".to_string(), "3".to_string()]);
        assert_eq!(
            t.tolerance,
            Tolerance {
                rtol: 1e-3,
                atol: 0.0
            }
        );
    }

    #[test]
    fn run_lines_expect_values_or_an_error() {
        let t = parse_filetest(
            "// run: ({1, 2}, (3, {4})) == (5, 6)\n// run: () ~= 0.5\n// run: (7) error: x == y: no\n",
        )
        .unwrap();
        let r = &t.runs;
        assert_eq!(
            r[0].args,
            vec!["{1, 2}".to_string(), "(3, {4})".to_string()]
        );
        assert_eq!(
            (r[0].expected.as_str(), r[0].approx, r[0].error),
            ("(5, 6)", false, false)
        );
        assert!(r[1].args.is_empty() && r[1].approx && !r[1].error);
        assert_eq!((r[2].expected.as_str(), r[2].error), ("x == y: no", true));
    }

    #[test]
    fn devices_and_per_device_values() {
        let t =
            parse_filetest("// devices: 2x3\n// run: ([{1}, {2}, {3}, {4}, {5}, {6}]) == {0}\n")
                .unwrap();
        let d = t.devices.unwrap();
        assert_eq!((d.replicas, d.partitions, d.count()), (2, 3, 6));
        assert_eq!(per_device(&t.runs[0].args[0], d).unwrap()[5], "{6}");
        assert_eq!(per_device("{0}", d).unwrap(), vec!["{0}".to_string(); 6]);
        assert!(per_device("[1, 2]", d).unwrap_err().contains("6 devices"));
        let one = parse_filetest("// devices: 4\n").unwrap().devices.unwrap();
        assert_eq!((one.replicas, one.partitions), (4, 1));
        let e = parse_filetest("// devices: 0x2\n").unwrap_err();
        assert!(e.starts_with("line 1:") && e.contains("RxP"), "{e}");
    }

    #[test]
    fn bad_directives_are_errors_with_the_line() {
        let e = parse_filetest("\n// test: interp, frob\n").unwrap_err();
        assert!(e.starts_with("line 2:") && e.contains("frob"), "{e}");
        let e = parse_filetest("// tolerance: rtol=abc\n").unwrap_err();
        assert!(e.contains("rtol must be a number"), "{e}");
        let e = parse_filetest("// run: 1, 2 == 3\n").unwrap_err();
        assert!(e.contains("parentheses"), "{e}");
        let e = parse_filetest("// run: (1) = 3\n").unwrap_err();
        assert!(e.contains("error: text"), "{e}");
    }
}
