//! rxla-oracles: the checking side of rxla's differential fuzzing. Each
//! oracle checks one property of the code under test on one input (a
//! module from `rxla-fuzzgen`'s generator and the arguments of a seed) and
//! returns `Ok(Verdict)` or `Err(description)`:
//!
//! 1. [`roundtrip`] — print → parse → print is a fixed point and the
//!    reparsed module evaluates identically;
//! 2. [`passes`] — every registered pass alone, and the O1/O2 pipelines,
//!    leave the evaluator's results unchanged;
//! 3. [`jit`] — the JIT (default options) computes what the evaluator does:
//!    bit-exact ([`compare`]), except a stated tolerance downstream of
//!    float accumulations and transcendentals ([`jit::tolerance`]);
//! 4. [`parser`] — the parser never panics or hangs on arbitrary or mutated
//!    text;
//! 5. [`builder`] — random builder calls return Ok or Err, never panic.
//!
//! Also one fuzzing case from a seed ([`campaign`], shared by `rxla fuzz`,
//! the seeded tests and the cargo-fuzz targets) and the delta-debugging
//! reducer ([`reduce`]). Generating inputs is `rxla-fuzzgen`'s job, not
//! this crate's.
//!
//! Oracles never panic themselves; [`guard`] turns a panic in the code
//! under test into an `Err` for the stable drivers (cargo-fuzz targets call
//! the oracles directly so libFuzzer sees the crash). No I/O.

pub mod builder;
pub mod campaign;
pub mod compare;
pub mod jit;
pub mod parser;
pub mod passes;
pub mod reduce;
pub mod roundtrip;

use rxla_fuzzgen::GenConfig;
use rxla_ir::{Literal, Module};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

/// What an oracle concluded when nothing failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The property was checked and holds.
    Checked,
    /// The property could not be checked (e.g. the evaluator does not
    /// support an op); the reason.
    Skipped(String),
}

/// An oracle's answer: a verdict, or a description of the failure.
pub type OracleResult = Result<Verdict, String>;

/// The oracles by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Oracle {
    Roundtrip,
    Passes,
    Jit,
    Parser,
    Builder,
}

impl Oracle {
    pub const ALL: [Oracle; 5] = [
        Oracle::Roundtrip,
        Oracle::Passes,
        Oracle::Jit,
        Oracle::Parser,
        Oracle::Builder,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Oracle::Roundtrip => "roundtrip",
            Oracle::Passes => "passes",
            Oracle::Jit => "jit",
            Oracle::Parser => "parser",
            Oracle::Builder => "builder",
        }
    }

    pub fn from_name(name: &str) -> Option<Oracle> {
        Oracle::ALL.into_iter().find(|o| o.name() == name)
    }

    /// The generator config this oracle's programs come from: the oracles
    /// that evaluate only get evaluable ops.
    pub fn config(self) -> GenConfig {
        match self {
            Oracle::Passes | Oracle::Jit => GenConfig::evaluable(),
            // Round-trip checks text of every op and evaluates when it can.
            Oracle::Roundtrip | Oracle::Parser | Oracle::Builder => GenConfig::all_ops(),
        }
    }

    /// Whether the oracle checks a module (and so can drive the reducer).
    pub fn takes_module(self) -> bool {
        matches!(self, Oracle::Roundtrip | Oracle::Passes | Oracle::Jit)
    }

    /// Checks `module` (generated from `seed`; the seed also drives the
    /// arguments, the text mutations of `parser` and the calls of
    /// `builder`). Panics in the code under test become `Err`.
    pub fn check(self, module: &Module, seed: u64) -> OracleResult {
        guard(|| match self {
            Oracle::Roundtrip => roundtrip::check(module, seed),
            Oracle::Passes => passes::check(module, seed),
            Oracle::Jit => jit::check(module, seed),
            Oracle::Parser => parser::check_mutated(module, seed),
            Oracle::Builder => builder::check(seed),
        })
    }
}

thread_local! {
    /// Set while [`guard`] runs on this thread; the panic message lands here.
    static GUARDED: std::cell::RefCell<Option<Option<String>>> = const { std::cell::RefCell::new(None) };
}

/// Installs (once) a panic hook that records the message of panics inside
/// [`guard`] (on that thread) and defers to the previous hook otherwise.
fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let guarded = GUARDED.with(|g| g.borrow().is_some());
            if !guarded {
                return prev(info);
            }
            let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
                s.to_string()
            } else if let Some(s) = info.payload().downcast_ref::<String>() {
                s.clone()
            } else {
                "(non-string panic payload)".to_string()
            };
            let loc = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            GUARDED.with(|g| *g.borrow_mut() = Some(Some(format!("{msg}{loc}"))));
        }));
    });
}

/// Runs `f`, turning a panic into `Err("panic: MESSAGE at FILE:LINE")`
/// (the default panic message is suppressed for panics inside `f`; other
/// threads' panics are reported as usual).
pub fn guard(f: impl FnOnce() -> OracleResult) -> OracleResult {
    install_hook();
    let outer = GUARDED.with(|g| g.borrow_mut().replace(None));
    let r = catch_unwind(AssertUnwindSafe(f));
    let info = GUARDED.with(|g| std::mem::replace(&mut *g.borrow_mut(), outer));
    match r {
        Ok(r) => r,
        Err(_) => Err(format!("panic: {}", info.flatten().unwrap_or_default())),
    }
}

/// Run options for oracle evaluations: default, with a small loop cap
/// (generated loops run at most 3 times).
pub fn run_options() -> rxla_eval::RunOptions {
    rxla_eval::RunOptions {
        max_while_iterations: 1000,
        ..Default::default()
    }
}

/// Evaluates `module` on `args`, the error as text.
pub fn eval(module: &Module, args: &[Literal]) -> Result<Literal, String> {
    rxla_eval::evaluate(module, args, &run_options()).map_err(|e| e.to_string())
}

/// Whether `module` uses an op the evaluating oracles cannot compare.
pub fn has_unevaluable_ops(module: &Module) -> bool {
    rxla_fuzzgen::opcodes_used(module)
        .iter()
        .any(|o| rxla_fuzzgen::UNEVALUABLE.contains(o))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_turns_panics_into_errors_with_a_location() {
        let r = guard(|| panic!("boom {}", 7));
        let e = r.unwrap_err();
        assert!(e.starts_with("panic: boom 7 at "), "{e}");
        assert!(e.contains("oracles/src/lib.rs"), "{e}");
        assert_eq!(guard(|| Ok(Verdict::Checked)), Ok(Verdict::Checked));
        // Nested guards keep their own messages.
        let outer = guard(|| {
            let inner = guard(|| panic!("inner"));
            assert!(inner.unwrap_err().contains("inner"));
            panic!("outer")
        });
        assert!(outer.unwrap_err().contains("outer"));
    }

    #[test]
    fn oracle_names_round_trip() {
        for o in Oracle::ALL {
            assert_eq!(Oracle::from_name(o.name()), Some(o));
        }
        assert_eq!(Oracle::from_name("nope"), None);
        assert!(Oracle::Passes.takes_module() && !Oracle::Parser.takes_module());
    }
}
