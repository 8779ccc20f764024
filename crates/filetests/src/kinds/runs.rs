//! `// run:` lines on a backend (`interp`, `jit`, `jit-fallback`, and the
//! optimized module of `opt`): arguments parsed in the ENTRY's parameter
//! shapes, the result compared exactly (`==`) or within the file's
//! tolerance (`~=`), or the run must fail (`error: text`). With
//! `// devices:` every device of the grid gets its
//! own arguments and result (`evaluate_replicated`, `run_replicated`).

use crate::directives::{Devices, FileTest, RunLine, per_device};
use crate::values::{literals_close, literals_identical, parse_value};
use rxla_ir::{Literal, Module};

/// Where run lines execute.
#[derive(Clone, Copy, Debug)]
pub enum Backend {
    Interp,
    /// Every instruction native (the interpreter fallback off).
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

/// Runs `module` on every device of the grid (`args[d]` for device `d`).
fn execute_replicated(
    backend: Backend,
    module: &Module,
    args: &[Vec<Literal>],
    devices: Devices,
) -> Result<Vec<Literal>, String> {
    let opts = rxla_eval::RunOptions {
        replica_count: Some(devices.replicas),
        partition_count: Some(devices.partitions),
        ..rxla_eval::RunOptions::default()
    };
    match backend {
        Backend::Interp => rxla_eval::evaluate_replicated(module, args, &opts)
            .map_err(|e| format!("evaluation failed: {e}")),
        Backend::Jit | Backend::JitFallback => {
            let copts = rxla_jit::CompileOptions {
                allow_interpreter_fallback: matches!(backend, Backend::JitFallback),
                ..rxla_jit::CompileOptions::default()
            };
            let exe = rxla_jit::compile(module, &copts).map_err(|e| format!("JIT compile: {e}"))?;
            exe.run_replicated(args, &opts)
                .map_err(|e| format!("JIT run: {e}"))
        }
    }
}

/// An `error:` run line: the run must have failed with a message
/// containing the expected text.
fn expect_error<T: std::fmt::Debug>(r: &RunLine, run: Result<T, String>) -> Result<(), String> {
    match run {
        Ok(v) => Err(format!(
            "expected an error containing {:?}, got {v:?}",
            r.expected
        )),
        Err(e) if e.contains(r.expected.as_str()) => Ok(()),
        Err(e) => Err(format!("the error does not contain {:?}: {e}", r.expected)),
    }
}

/// Compares one result with the run line's expectation (`==` exact, `~=`
/// within the file's tolerance).
fn compare(t: &FileTest, r: &RunLine, got: &Literal, want: &Literal) -> Result<(), String> {
    let ok = if r.approx {
        literals_close(got, want, t.tolerance)
    } else if literals_identical(got, want) {
        Ok(())
    } else {
        Err("not identical".to_string())
    };
    ok.map_err(|e| format!("got {} want {}: {e}", got.to_text(), want.to_text()))
}

/// The run lines of a multi-device file: per-device arguments and
/// results.
fn check_devices(
    t: &FileTest,
    module: &Module,
    what: &str,
    backend: Backend,
    devices: Devices,
) -> Result<(), String> {
    let sig = module.entry_program_shape();
    for r in &t.runs {
        let at = |e: String| format!("line {}: {e}", r.line);
        if r.args.len() != sig.parameters.len() {
            return Err(at(format!(
                "{} arguments given, the ENTRY takes {}",
                r.args.len(),
                sig.parameters.len()
            )));
        }
        let mut args = vec![Vec::new(); devices.count()];
        for (a, s) in r.args.iter().zip(&sig.parameters) {
            for (d, v) in per_device(a, devices).map_err(at)?.iter().enumerate() {
                args[d].push(parse_value(v, s).map_err(at)?);
            }
        }
        if r.error {
            expect_error(r, execute_replicated(backend, module, &args, devices))
                .map_err(|e| format!("line {} ({what}): {e}", r.line))?;
            continue;
        }
        let want = per_device(&r.expected, devices)
            .map_err(at)?
            .iter()
            .map(|v| parse_value(v, &sig.result))
            .collect::<Result<Vec<_>, _>>()
            .map_err(at)?;
        let got = execute_replicated(backend, module, &args, devices)
            .map_err(|e| format!("line {} ({what}): {e}", r.line))?;
        for (d, (g, w)) in got.iter().zip(&want).enumerate() {
            compare(t, r, g, w).map_err(|e| format!("line {} ({what}) device {d}: {e}", r.line))?;
        }
    }
    Ok(())
}

/// Checks every run line of `t` on `module` with `backend`; `what` names
/// the subtest in messages.
pub fn check(t: &FileTest, module: &Module, what: &str, backend: Backend) -> Result<(), String> {
    if let Some(devices) = t.devices {
        return check_devices(t, module, what, backend, devices);
    }
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
        if r.error {
            expect_error(r, execute(backend, module, &args))
                .map_err(|e| format!("line {} ({what}): {e}", r.line))?;
            continue;
        }
        let want =
            parse_value(&r.expected, &sig.result).map_err(|e| format!("line {}: {e}", r.line))?;
        let got = execute(backend, module, &args)
            .map_err(|e| format!("line {} ({what}): {e}", r.line))?;
        compare(t, r, &got, &want).map_err(|e| format!("line {} ({what}): {e}", r.line))?;
    }
    Ok(())
}
