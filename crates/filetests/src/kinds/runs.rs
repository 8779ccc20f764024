//! `// run:` lines on a backend (`interp`, `jit`, `jit-fallback`, and the
//! optimized module of `opt`): arguments parsed in the ENTRY's parameter
//! shapes, the result compared bit for bit (`==`) or within the file's
//! tolerance (`~=`).

use crate::directives::FileTest;
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

/// Checks every run line of `t` on `module` with `backend`; `what` names
/// the subtest in messages.
pub fn check(t: &FileTest, module: &Module, what: &str, backend: Backend) -> Result<(), String> {
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
            literals_close(&got, &want, t.tolerance)
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
