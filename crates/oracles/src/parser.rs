//! Oracle 4, the parser is robust: on arbitrary bytes and on mutated module
//! text it returns Ok or Err, never panics, and returns quickly. When the
//! text parses and verifies, printing it must give text that parses again
//! to the same printed form. Text mutations live here too.

use crate::{OracleResult, Verdict};
use rxla_fuzzgen::prng::SplitMix64;
use rxla_fuzzgen::values::Choices;
use rxla_ir::{Module, parse_module, print_module, verify_module};
use std::time::{Duration, Instant};

/// A parse slower than this counts as a hang.
pub const PARSE_TIME_LIMIT: Duration = Duration::from_secs(5);

/// Checks the parser on raw bytes (non-UTF-8 input is accepted silently,
/// as the CLI rejects it before parsing).
pub fn check_bytes(bytes: &[u8]) -> OracleResult {
    match std::str::from_utf8(bytes) {
        Ok(text) => check_text(text),
        Err(_) => Ok(Verdict::Skipped("not UTF-8".into())),
    }
}

/// Checks the parser on `text`.
pub fn check_text(text: &str) -> OracleResult {
    let start = Instant::now();
    let parsed = parse_module(text, "<fuzz>");
    let took = start.elapsed();
    if took > PARSE_TIME_LIMIT {
        return Err(format!(
            "parsing {} bytes took {took:?} (limit {PARSE_TIME_LIMIT:?})",
            text.len()
        ));
    }
    let Ok(module) = parsed else {
        return Ok(Verdict::Checked);
    };
    if verify_module(&module).is_err() {
        return Ok(Verdict::Checked);
    }
    let printed = print_module(&module);
    let again = parse_module(&printed, "<printed>").map_err(|e| {
        format!("the text parses and verifies, but its printed form does not parse: {e}")
    })?;
    let printed2 = print_module(&again);
    if printed != printed2 {
        return Err(format!(
            "the text parses and verifies, but printing is not a fixed point: {}",
            crate::roundtrip::first_line_difference(&printed, &printed2)
        ));
    }
    Ok(Verdict::Checked)
}

/// Prints `module`, applies a few random mutations chosen by `seed`, and
/// checks the parser on the result.
pub fn check_mutated(module: &Module, seed: u64) -> OracleResult {
    let text = print_module(module);
    check_text(&mutate(&text, seed))
}

/// Tokens spliced into text by [`mutate`].
const DICTIONARY: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "=",
    ",",
    ":",
    "%",
    "\"",
    "\n",
    " ",
    "-1",
    "0",
    "1",
    "999999999999999999999",
    "-9223372036854775808",
    "1e999",
    "nan",
    "-inf",
    "0x7fc00001",
    "f32[",
    "s32[]",
    "pred[2,3]{1,0}",
    "(f32[], s32[])",
    "{0,1:P(3,5):V(-1)}",
    "ENTRY",
    "ROOT",
    "HloModule m",
    "parameter(0)",
    "parameter(-1)",
    "constant(",
    "to_apply=",
    "calls=",
    "dimensions={",
    "window={size=2x2 stride=1x1 pad=-1_2x0_0}",
    "slice={[0:2:1]}",
    "dim_labels=b01f_01io->b01f",
    "lhs_contracting_dims={1}",
    "index=9",
    "get-tuple-element",
    "while(",
    "condition=",
    "body=",
    "branch_computations={",
    "/*",
    "*/",
    "//",
    "\\",
    "padding=0_0_0",
    "metadata={op_name=\"x\"}",
    "\u{7f}",
    "é",
];

/// Applies 1–4 random edits to `text`: deletions, duplications, token
/// insertions and replacements, digit changes, truncation. Deterministic
/// in `seed`; always returns valid UTF-8.
pub fn mutate(text: &str, seed: u64) -> String {
    let mut rng = SplitMix64::new(seed ^ 0x5EED_7E57);
    let mut chars: Vec<char> = text.chars().collect();
    let edits = rng.range(1, 4);
    for _ in 0..edits {
        let n = chars.len() as i64;
        let at = rng.range(0, n) as usize;
        let len = rng.range(0, 16.min(n - at as i64).max(0)) as usize;
        match rng.range(0, 6) {
            0 => {
                chars.drain(at..at + len);
            }
            1 => {
                let piece: Vec<char> = chars[at..at + len].to_vec();
                let to = rng.range(0, chars.len() as i64) as usize;
                chars.splice(to..to, piece);
            }
            2 | 3 => {
                let tok = DICTIONARY[rng.range(0, DICTIONARY.len() as i64 - 1) as usize];
                let end = if rng.coin() { at + len.min(3) } else { at };
                chars.splice(at..end, tok.chars());
            }
            4 => {
                // Change every digit in a small range.
                let d = char::from(b'0' + rng.range(0, 9) as u8);
                for c in chars.iter_mut().skip(at).take(len.max(1)) {
                    if c.is_ascii_digit() {
                        *c = d;
                    }
                }
            }
            5 => chars.truncate(at),
            _ => {
                // Swap two lines.
                let s: String = chars.iter().collect();
                let mut lines: Vec<&str> = s.lines().collect();
                if lines.len() > 1 {
                    let i = rng.range(0, lines.len() as i64 - 1) as usize;
                    let j = rng.range(0, lines.len() as i64 - 1) as usize;
                    lines.swap(i, j);
                }
                chars = lines.join("\n").chars().collect();
            }
        }
    }
    chars.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutation_is_deterministic_and_changes_text() {
        let t = "HloModule m\n\nENTRY main {\n  ROOT c = f32[] constant(1)\n}\n";
        assert_eq!(mutate(t, 3), mutate(t, 3));
        let changed = (0..20).filter(|&s| mutate(t, s) != t).count();
        assert!(
            changed >= 15,
            "only {changed} of 20 mutations changed the text"
        );
    }
}
