//! Oracle 1, text round trip: print → parse → print must be a fixed point,
//! the reparsed module must verify, and it must evaluate exactly like the
//! original (bit-exact, NaN payloads aside). Modules with ops the evaluator
//! cannot compare (rng, infeed, ...) get the text checks only.

use crate::compare::same_values;
use crate::{OracleResult, Verdict, eval, has_unevaluable_ops};
use rxla_fuzzgen::random_args;
use rxla_ir::{Module, parse_module, print_module, verify_module};

pub fn check(module: &Module, seed: u64) -> OracleResult {
    let text = print_module(module);
    let reparsed = parse_module(&text, "<printed>")
        .map_err(|e| format!("the printed module does not parse: {e}"))?;
    verify_module(&reparsed).map_err(|e| format!("the reparsed module does not verify: {e}"))?;
    let text2 = print_module(&reparsed);
    if text != text2 {
        return Err(format!(
            "print → parse → print is not a fixed point: {}",
            first_line_difference(&text, &text2)
        ));
    }
    if has_unevaluable_ops(module) {
        return Ok(Verdict::Checked);
    }
    let args = random_args(module, seed);
    match (eval(module, &args), eval(&reparsed, &args)) {
        (Ok(a), Ok(b)) => same_values(&a, &b)
            .map(|_| Verdict::Checked)
            .map_err(|e| format!("the reparsed module evaluates differently: {e}")),
        (Err(a), Err(_)) => Ok(Verdict::Skipped(format!("evaluation fails: {a}"))),
        (Ok(_), Err(e)) => Err(format!("only the reparsed module fails to evaluate: {e}")),
        (Err(e), Ok(_)) => Err(format!("only the original module fails to evaluate: {e}")),
    }
}

/// `line N: "a" vs "b"` for the first differing line.
pub fn first_line_difference(a: &str, b: &str) -> String {
    let (mut la, mut lb) = (a.lines(), b.lines());
    let mut n = 1;
    loop {
        match (la.next(), lb.next()) {
            (Some(x), Some(y)) if x == y => n += 1,
            (x, y) => {
                return format!(
                    "line {n}: {:?} vs {:?}",
                    x.unwrap_or("<end>"),
                    y.unwrap_or("<end>")
                );
            }
        }
    }
}
