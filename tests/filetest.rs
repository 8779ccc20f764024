//! `.hlo` filetests, in the style of Cranelift's: one text file says what it
//! tests and carries its own expectations.
//!
//! ```text
//! // test: interp                      evaluate the module as written
//! // test: jit                         compile it with the JIT (no interpreter
//!                                      fallback) and check the run lines there
//! // test: jit-fallback                the same with the interpreter fallback
//!                                      allowed (ops without native code)
//! // test: roundtrip                   print → parse → print is a fixed point
//! // test: opt --passes=dce,cse        run passes; CHECK lines match the output
//! // run: ({1, 2}, {3, 4}) == {4, 6}   args (shapes from the ENTRY) and the exact result
//! // run: ({0.5}) ~= {0.4621172}       result within rtol 1e-5, atol 1e-6
//! // CHECK: ROOT {{.*}}                FileCheck-style directives (see filecheck.rs)
//! // error: hostile.hlo:7:3: window   the module must be rejected (parse or
//!                                      verify) with a message containing this
//! ```
//!
//! With `opt`, `run` lines are checked on the optimized module too. A file
//! named `*.mlir` is StableHLO text (read by `rxla_stablehlo`; its `//`
//! directive lines are MLIR comments); CHECK lines then match the HLO text
//! of the converted module. This module parses directives and runs them;
//! it never rewrites the files.

use crate::filecheck;
use rxla_ir::{Literal, Module, Shape};

/// What one filetest asks for.
#[derive(Debug, Default)]
pub struct FileTest {
    pub interp: bool,
    /// Run lines are checked on the JIT too (every instruction native).
    pub jit: bool,
    /// Run lines are checked on the JIT with the interpreter fallback
    /// allowed.
    pub jit_fallback: bool,
    pub roundtrip: bool,
    /// The pass pipeline of an `opt` test (`--passes=...` or `--pipeline=O1`).
    pub opt: Option<OptSpec>,
    pub runs: Vec<RunLine>,
    pub checks: Vec<(usize, filecheck::Check)>,
    /// `// error:` lines: parsing or verifying must fail with a message
    /// containing each of these texts (line number, text).
    pub errors: Vec<(usize, String)>,
}

#[derive(Debug, Clone)]
pub enum OptSpec {
    Passes(String),
    Pipeline(String),
}

#[derive(Debug, Clone)]
pub struct RunLine {
    pub line: usize,
    pub args: Vec<String>,
    pub expected: String,
    pub approx: bool,
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
    let (lhs, rhs, approx) = if let Some((l, r)) = body.split_once("~=") {
        (l, r, true)
    } else if let Some((l, r)) = body.split_once("==") {
        (l, r, false)
    } else {
        return Err(format!(
            "line {line}: run line needs `== expected` or `~= expected`"
        ));
    };
    let lhs = lhs.trim();
    let inner = lhs
        .strip_prefix('(')
        .and_then(|x| x.strip_suffix(')'))
        .ok_or_else(|| format!("line {line}: run arguments must be in parentheses: {lhs}"))?;
    Ok(RunLine {
        line,
        args: split_top_level(inner),
        expected: rhs.trim().to_string(),
        approx,
    })
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
                match words[i] {
                    "interp" => t.interp = true,
                    "roundtrip" => t.roundtrip = true,
                    "jit" => t.jit = true,
                    "jit-fallback" => t.jit_fallback = true,
                    "opt" => {
                        let arg = words.get(i + 1).copied().unwrap_or("");
                        t.opt = Some(if let Some(p) = arg.strip_prefix("--passes=") {
                            i += 1;
                            OptSpec::Passes(p.to_string())
                        } else if let Some(p) = arg.strip_prefix("--pipeline=") {
                            i += 1;
                            OptSpec::Pipeline(p.to_string())
                        } else {
                            OptSpec::Pipeline("O1".to_string())
                        });
                    }
                    other => return Err(format!("line {line}: unknown test kind {other:?}")),
                }
                i += 1;
            }
        } else if let Some(rest) = c.strip_prefix("run:") {
            t.runs.push(parse_run(line, rest.trim())?);
        } else if let Some(rest) = c.strip_prefix("error:") {
            t.errors.push((line, rest.trim().to_string()));
        }
    }
    Ok(t)
}

/// Parses a value in the text form of `shape` (HLO literal text).
pub fn parse_value(text: &str, shape: &Shape) -> Result<Literal, String> {
    rxla_ir::text::parse_literal(text, shape).map_err(|e| format!("value `{text}`: {e}"))
}

/// Bitwise equality of literals (NaN equals NaN of any payload).
pub fn literals_identical(a: &Literal, b: &Literal) -> bool {
    match (a, b) {
        (Literal::Tuple(x), Literal::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| literals_identical(p, q))
        }
        (Literal::Array(x), Literal::Array(y)) => {
            x.shape.compatible(&y.shape)
                && rxla_eval::json::compare_with_tolerance(x, y, 0.0, 0.0).is_ok()
        }
        _ => false,
    }
}

fn literals_close(a: &Literal, b: &Literal) -> Result<(), String> {
    let (la, lb) = (a.leaves(), b.leaves());
    if la.len() != lb.len() {
        return Err("different tuple structure".into());
    }
    for (x, y) in la.iter().zip(&lb) {
        if !x.shape.compatible(&y.shape) {
            return Err(format!("shape {} vs {}", x.shape, y.shape));
        }
        rxla_eval::json::compare_with_tolerance(x, y, 1e-5, 1e-6)?;
    }
    Ok(())
}

/// Where run lines execute.
#[derive(Clone, Copy)]
enum Backend {
    Interp,
    Jit,
    JitFallback,
}

fn execute(backend: Backend, module: &Module, args: &[Literal]) -> Result<Literal, String> {
    match backend {
        Backend::Interp => rxla_eval::evaluate(module, args, &rxla_eval::RunOptions::default())
            .map_err(|e| format!("evaluation failed: {e}")),
        Backend::Jit | Backend::JitFallback => {
            let opts = rxla_jit::CompileOptions {
                allow_interpreter_fallback: matches!(backend, Backend::JitFallback),
                ..rxla_jit::CompileOptions::default()
            };
            let exe = rxla_jit::compile(module, &opts).map_err(|e| format!("JIT compile: {e}"))?;
            exe.run(args).map_err(|e| format!("JIT run: {e}"))
        }
    }
}

fn check_runs(t: &FileTest, module: &Module, what: &str) -> Result<(), String> {
    check_runs_on(t, module, what, Backend::Interp)
}

fn check_runs_on(
    t: &FileTest,
    module: &Module,
    what: &str,
    backend: Backend,
) -> Result<(), String> {
    let sig = module.entry_program_shape();
    for r in &t.runs {
        if r.args.len() != sig.parameters.len() {
            return Err(format!(
                "line {}: {} arguments given, the ENTRY takes {}",
                r.line,
                r.args.len(),
                sig.parameters.len()
            ));
        }
        let args = r
            .args
            .iter()
            .zip(&sig.parameters)
            .map(|(a, s)| parse_value(a, s))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("line {}: {e}", r.line))?;
        let want =
            parse_value(&r.expected, &sig.result).map_err(|e| format!("line {}: {e}", r.line))?;
        let got = execute(backend, module, &args)
            .map_err(|e| format!("line {} ({what}): {e}", r.line))?;
        let ok = if r.approx {
            literals_close(&got, &want)
        } else if literals_identical(&got, &want) {
            Ok(())
        } else {
            Err("not identical".to_string())
        };
        ok.map_err(|e| {
            format!(
                "line {} ({what}): got {} want {}: {e}",
                r.line,
                got.to_text(),
                want.to_text()
            )
        })?;
    }
    Ok(())
}

/// Reads the module: StableHLO text for a `.mlir` name, else HLO text.
fn parse_source(name: &str, source: &str) -> Result<Module, rxla_ir::IrError> {
    if name.ends_with(".mlir") {
        rxla_stablehlo::parse_stablehlo(source, name)
    } else {
        rxla_ir::parse_module(source, name)
    }
}

/// An `// error:` filetest: the module must not parse and verify, and the
/// message must contain every expected text.
fn check_errors(t: &FileTest, name: &str, source: &str) -> Result<(), String> {
    let msg = match parse_source(name, source) {
        Err(e) => e.to_string(),
        Ok(module) => match rxla_ir::verify_module(&module) {
            Err(e) => e.to_string(),
            Ok(()) => return Err(format!("{name}: expected an error, the module verifies")),
        },
    };
    for (line, want) in &t.errors {
        if !msg.contains(want.as_str()) {
            return Err(format!(
                "{name}: line {line}: error message does not contain {want:?}: {msg}"
            ));
        }
    }
    Ok(())
}

/// Runs one filetest. `name` is used in messages.
pub fn run_filetest(name: &str, source: &str) -> Result<(), String> {
    let t = parse_filetest(source).map_err(|e| format!("{name}: {e}"))?;
    if !t.errors.is_empty() {
        return check_errors(&t, name, source);
    }
    let module = parse_source(name, source).map_err(|e| e.to_string())?;
    rxla_ir::verify_module(&module).map_err(|e| format!("{name}: {e}"))?;
    if t.roundtrip {
        let once = rxla_ir::print_module(&module);
        let again = rxla_ir::parse_module(&once, name)
            .map_err(|e| format!("{name}: printed text does not parse: {e}"))?;
        let twice = rxla_ir::print_module(&again);
        if once != twice {
            return Err(format!(
                "{name}: print → parse → print is not a fixed point"
            ));
        }
    }
    if t.interp {
        check_runs(&t, &module, "interp").map_err(|e| format!("{name}: {e}"))?;
    }
    if t.jit {
        if t.runs.is_empty() {
            return Err(format!("{name}: `test: jit` needs `run:` lines"));
        }
        check_runs_on(&t, &module, "jit", Backend::Jit).map_err(|e| format!("{name}: {e}"))?;
    }
    if t.jit_fallback {
        if t.runs.is_empty() {
            return Err(format!("{name}: `test: jit-fallback` needs `run:` lines"));
        }
        check_runs_on(&t, &module, "jit-fallback", Backend::JitFallback)
            .map_err(|e| format!("{name}: {e}"))?;
    }
    let checked_text = match &t.opt {
        Some(spec) => {
            let optimized = crate::run_opt(&module, spec).map_err(|e| format!("{name}: {e}"))?;
            check_runs(&t, &optimized, "opt").map_err(|e| format!("{name}: {e}"))?;
            Some(rxla_ir::print_module(&optimized))
        }
        None if !t.checks.is_empty() => Some(rxla_ir::print_module(&module)),
        None => None,
    };
    if let Some(text) = checked_text {
        filecheck::run_checks(&t.checks, &text)
            .map_err(|e| format!("{name}: {e}\n--- output ---\n{text}"))?;
    }
    if !t.interp
        && !t.jit
        && !t.jit_fallback
        && !t.roundtrip
        && t.opt.is_none()
        && t.checks.is_empty()
    {
        return Err(format!(
            "{name}: declares no test (`// test: interp|jit|roundtrip|opt ...`)"
        ));
    }
    Ok(())
}
