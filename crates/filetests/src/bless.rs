//! `bless`: rewrites a filetest's CHECK lines from the actual output, as
//! Cranelift's filetests do — the text after `opt` (or the module as
//! parsed) becomes `// CHECK:` for its first line and `// CHECK-NEXT:` /
//! `// CHECK-EMPTY:` for the rest, in place of the old CHECK lines (or
//! after the leading directive comments when there were none). Only files
//! with `opt` or with CHECK lines are rewritten; run lines are never
//! touched (their expected values must come from outside rxla).

use crate::directives::parse_filetest;

/// The blessed text of `source`, or `None` when it has nothing to bless or
/// is already up to date.
pub fn bless_source(name: &str, source: &str) -> Result<Option<String>, String> {
    let t = parse_filetest(source).map_err(|e| format!("{name}: {e}"))?;
    if !t.errors.is_empty() || (t.opt().is_none() && t.checks.is_empty()) {
        return Ok(None);
    }
    let module = crate::parse_source(name, source).map_err(|e| format!("{name}: {e}"))?;
    rxla_ir::verify_module(&module).map_err(|e| format!("{name}: {e}"))?;
    let text = crate::checked_text(&t, &module).map_err(|e| format!("{name}: {e}"))?;
    let checks = check_lines(&text);
    let lines: Vec<&str> = source.lines().collect();
    let is_check = |l: &str| {
        l.trim_start()
            .strip_prefix("//")
            .is_some_and(|c| c.trim_start().starts_with("CHECK"))
    };
    // Where the new block goes: the first old CHECK line, else after the
    // leading comment lines.
    let at = lines.iter().position(|l| is_check(l)).unwrap_or_else(|| {
        lines
            .iter()
            .position(|l| !l.trim_start().starts_with("//"))
            .unwrap_or(lines.len())
    });
    let mut out: Vec<String> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if i == at {
            out.extend(checks.iter().cloned());
        }
        if !is_check(l) {
            out.push((*l).to_string());
        }
    }
    if at >= lines.len() {
        out.extend(checks);
    }
    let mut new = out.join("\n");
    if source.ends_with('\n') {
        new.push('\n');
    }
    Ok((new != source).then_some(new))
}

/// FileCheck lines that match `text` line for line.
fn check_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for l in text.lines() {
        let l = l.trim();
        out.push(match (out.is_empty(), l.is_empty()) {
            (true, true) => continue,
            (true, false) => format!("// CHECK: {l}"),
            (false, true) => "// CHECK-EMPTY:".to_string(),
            (false, false) => format!("// CHECK-NEXT: {l}"),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "// test: opt --passes=dce\n// CHECK: stale\nHloModule m\n\nENTRY main {\n  p = f32[] parameter(0)\n  unused = f32[] negate(p)\n  ROOT r = f32[] add(p, p)\n}\n";

    #[test]
    fn bless_replaces_checks_and_the_result_passes() {
        assert!(
            crate::run_source("m.hlo", SRC).is_err(),
            "the stale check fails"
        );
        let new = bless_source("m.hlo", SRC).unwrap().expect("rewritten");
        assert!(!new.contains("stale"), "{new}");
        assert!(
            !new.lines()
                .any(|l| l.contains("CHECK") && l.contains("negate")),
            "dce removed it: {new}"
        );
        assert!(
            new.contains("// CHECK-NEXT: ROOT r = f32[] add(p, p)"),
            "{new}"
        );
        crate::run_source("m.hlo", &new).unwrap();
        assert_eq!(bless_source("m.hlo", &new).unwrap(), None, "a fixed point");
    }

    #[test]
    fn files_without_opt_or_checks_are_left_alone() {
        let src = "// test: interp\n// run: (1) == 2\nHloModule m\n\nENTRY main {\n  p = s32[] parameter(0)\n  ROOT r = s32[] add(p, p)\n}\n";
        assert_eq!(bless_source("m.hlo", src).unwrap(), None);
    }
}
