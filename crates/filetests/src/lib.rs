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
//! // test: layouts                     `verify_layouts` accepts the module (the
//!                                      optimized one with `opt`); with `error:`
//!                                      lines it must reject the module as written
//!                                      (and accept the `opt` result, if any)
//! // run: ({1, 2}, {3, 4}) == {4, 6}   args (shapes from the ENTRY) and the exact result
//!                                      (-0 is not 0; a NaN matches any NaN)
//! // run: ({0.5}) ~= {0.4621172}       result within the tolerance
//! // run: ({1, 2}) error: exhausted     the run must fail with a message containing this
//! // tolerance: rtol=1e-4 atol=1e-6    the tolerance of `~=` (default 1e-5, 1e-6)
//! // devices: 2x2                      run on 2 replicas × 2 partitions (`devices: 4`
//!                                      is 4 × 1); in run lines a value is then
//!                                      `[d0, d1, d2, d3]`, one per device
//!                                      (replica-major), or one value for all:
//! // run: ([{1}, {2}, {3}, {4}]) == {10}
//! // CHECK: ROOT                       FileCheck-style directives (see `filecheck`)
//! // error: hostile.hlo:7:3: window   the module must be rejected (parse or
//!                                      verify) with a message containing this
//! ```
//!
//! With `opt`, `run` lines are checked on the optimized module too, and
//! CHECK lines match the optimized text (without `opt`, the module as
//! parsed). [`run_source`] runs one file's subtests; [`bless_source`]
//! rewrites its CHECK lines from the actual output (`rxla test --bless`).
//! Directives are parsed in `directives`, each kind runs in `kinds`. A file
//! named `*.mlir` is StableHLO text (read by `rxla-stablehlo`; its `//`
//! directive lines are MLIR comments), and CHECK lines then match the HLO
//! text of the converted module.
//! Running never edits a file; only `bless` produces new text, and the
//! caller decides whether to write it.

pub mod bless;
pub mod directives;
pub mod filecheck;
pub mod kinds;
pub mod values;

pub use bless::bless_source;
pub use directives::{FileTest, Kind, OptSpec, RunLine, Tolerance, parse_filetest};
use kinds::runs::Backend;
use std::path::{Path, PathBuf};

/// Runs one filetest. `name` is used in messages (every message starts
/// with it).
pub fn run_source(name: &str, source: &str) -> Result<(), String> {
    let t = parse_filetest(source).map_err(|e| format!("{name}: {e}"))?;
    run_parsed(&t, name, source).map_err(|e| format!("{name}: {e}"))
}

fn run_parsed(t: &FileTest, name: &str, source: &str) -> Result<(), String> {
    if !t.errors.is_empty() {
        return kinds::errors::check(t, name, source);
    }
    if t.kinds.is_empty() && t.checks.is_empty() {
        return Err("declares no test (`// test: interp|jit|roundtrip|opt ...`)".into());
    }
    let module = parse_source(name, source).map_err(|e| e.to_string())?;
    rxla_ir::verify_module(&module).map_err(|e| e.to_string())?;
    for kind in &t.kinds {
        match kind {
            Kind::Roundtrip => kinds::roundtrip::check(name, &module)?,
            Kind::Interp => kinds::runs::check(t, &module, "interp", Backend::Interp)?,
            Kind::Jit | Kind::JitFallback => {
                let (what, backend) = if *kind == Kind::Jit {
                    ("jit", Backend::Jit)
                } else {
                    ("jit-fallback", Backend::JitFallback)
                };
                if t.runs.is_empty() {
                    return Err(format!("`test: {what}` needs `run:` lines"));
                }
                kinds::runs::check(t, &module, what, backend)?;
            }
            Kind::Opt(spec) => {
                let optimized = kinds::opt::run(&module, spec)?;
                kinds::runs::check(t, &optimized, "opt", Backend::Interp)?;
            }
            Kind::Layouts => {
                let checked = match t.opt() {
                    Some(spec) => kinds::opt::run(&module, spec)?,
                    None => module.clone(),
                };
                rxla_ir::layout_verifier::verify_layouts(&checked).map_err(|e| {
                    format!(
                        "layouts: {e}\n--- output ---\n{}",
                        rxla_ir::print_module(&checked)
                    )
                })?;
            }
        }
    }
    if !t.checks.is_empty() {
        let text = checked_text(t, &module)?;
        filecheck::run_checks(&t.checks, &text)
            .map_err(|e| format!("{e}\n--- output ---\n{text}"))?;
    }
    Ok(())
}

/// Reads the module: StableHLO text for a `.mlir` name, else HLO text.
pub fn parse_source(name: &str, source: &str) -> Result<rxla_ir::Module, rxla_ir::IrError> {
    if name.ends_with(".mlir") {
        rxla_stablehlo::parse_stablehlo(source, name)
    } else {
        rxla_ir::parse_module(source, name)
    }
}

/// The text CHECK lines match: the optimized module with `opt`, else the
/// module as parsed.
pub(crate) fn checked_text(t: &FileTest, module: &rxla_ir::Module) -> Result<String, String> {
    Ok(match t.opt() {
        Some(spec) => rxla_ir::print_module(&kinds::opt::run(module, spec)?),
        None => rxla_ir::print_module(module),
    })
}

/// Every `.hlo` and `.mlir` file under `dir` (recursively), sorted.
pub fn collect_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "hlo" || x == "mlir") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// The outcome of running a set of files.
#[derive(Debug, Default)]
pub struct Summary {
    pub passed: Vec<PathBuf>,
    /// Failing files with their messages.
    pub failed: Vec<(PathBuf, String)>,
    /// Files whose CHECK lines `bless` rewrote.
    pub blessed: Vec<PathBuf>,
}

/// Runs (or, with `bless`, first rewrites the CHECK lines of and then runs)
/// each file; a directory stands for every `.hlo` and `.mlir` file under it.
pub fn run_paths(paths: &[PathBuf], bless: bool) -> Summary {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            files.extend(collect_files(p));
        } else {
            files.push(p.clone());
        }
    }
    let mut s = Summary::default();
    for f in files {
        let name = f.display().to_string();
        let src = match std::fs::read_to_string(&f) {
            Ok(src) => src,
            Err(e) => {
                s.failed.push((f, format!("{name}: cannot read: {e}")));
                continue;
            }
        };
        let src = if bless {
            match bless_source(&name, &src) {
                Ok(Some(new)) => {
                    if let Err(e) = std::fs::write(&f, &new) {
                        s.failed.push((f, format!("{name}: cannot write: {e}")));
                        continue;
                    }
                    s.blessed.push(f.clone());
                    new
                }
                Ok(None) => src,
                Err(e) => {
                    s.failed.push((f, e));
                    continue;
                }
            }
        } else {
            src
        };
        match run_source(&name, &src) {
            Ok(()) => s.passed.push(f),
            Err(e) => s.failed.push((f, e)),
        }
    }
    s
}
