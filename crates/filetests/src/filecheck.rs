//! A small FileCheck: `CHECK:` (substring, in order), `CHECK-NEXT:` (on the
//! line right after the previous match), `CHECK-SAME:` (later on the same
//! line), `CHECK-NOT:` (absent between the previous match and the next one,
//! or the end), `CHECK-EMPTY:` (next line empty). Directives are read from
//! `// CHECK...:` comment lines. Matching only; it never edits text.

/// One check directive.
#[derive(Clone, Debug, PartialEq)]
pub enum Check {
    Plain(String),
    Next(String),
    Same(String),
    Not(String),
    Empty,
}

/// Extracts the check directives from a filetest's comment lines.
pub fn parse_checks(source: &str) -> Vec<(usize, Check)> {
    let mut out = Vec::new();
    for (no, line) in source.lines().enumerate() {
        let Some(rest) = line.trim_start().strip_prefix("//") else {
            continue;
        };
        let rest = rest.trim_start();
        type Make = fn(String) -> Check;
        let pairs: [(&str, Make); 4] = [
            ("CHECK-NEXT:", Check::Next),
            ("CHECK-SAME:", Check::Same),
            ("CHECK-NOT:", Check::Not),
            ("CHECK:", Check::Plain),
        ];
        if rest.starts_with("CHECK-EMPTY:") {
            out.push((no + 1, Check::Empty));
            continue;
        }
        for (prefix, make) in pairs {
            if let Some(p) = rest.strip_prefix(prefix) {
                out.push((no + 1, make(p.trim().to_string())));
                break;
            }
        }
    }
    out
}

/// Runs `checks` against `text`. On failure, the message names the
/// directive's line and shows where matching stood.
pub fn run_checks(checks: &[(usize, Check)], text: &str) -> Result<(), String> {
    let lines: Vec<&str> = text.lines().collect();
    // Position: (line index, byte offset in that line) after the last match.
    let mut line = 0usize;
    let mut col = 0usize;
    let mut matched_any = false;
    let mut pending_not: Vec<(usize, String)> = Vec::new();

    let check_nots = |nots: &mut Vec<(usize, String)>,
                      from: (usize, usize),
                      to: (usize, usize)|
     -> Result<(), String> {
        for (dl, pat) in nots.drain(..) {
            for (li, l) in lines.iter().enumerate().take(to.0 + 1).skip(from.0) {
                let start = if li == from.0 { from.1.min(l.len()) } else { 0 };
                let end = if li == to.0 {
                    to.1.min(l.len())
                } else {
                    l.len()
                };
                if start <= end && l[start..end].contains(pat.as_str()) {
                    return Err(format!(
                        "line {dl}: CHECK-NOT: '{pat}' found on output line {}: {l}",
                        li + 1
                    ));
                }
            }
        }
        Ok(())
    };

    for (dl, check) in checks {
        match check {
            Check::Not(p) => pending_not.push((*dl, p.clone())),
            Check::Plain(p) => {
                let from = (line, col);
                let mut found = None;
                for (li, l) in lines.iter().enumerate().skip(line) {
                    let start = if li == line { col.min(l.len()) } else { 0 };
                    if let Some(pos) = l[start..].find(p.as_str()) {
                        found = Some((li, start + pos + p.len()));
                        break;
                    }
                }
                let Some((li, c)) = found else {
                    return Err(format!(
                        "line {dl}: CHECK: '{p}' not found after output line {}",
                        line + 1
                    ));
                };
                check_nots(&mut pending_not, from, (li, c - p.len()))?;
                line = li;
                col = c;
                matched_any = true;
            }
            Check::Next(p) => {
                let target = if matched_any { line + 1 } else { 0 };
                let Some(l) = lines.get(target) else {
                    return Err(format!("line {dl}: CHECK-NEXT: '{p}': no next line"));
                };
                let Some(pos) = l.find(p.as_str()) else {
                    return Err(format!(
                        "line {dl}: CHECK-NEXT: '{p}' not on output line {}: {l}",
                        target + 1
                    ));
                };
                check_nots(&mut pending_not, (line, col), (target, pos))?;
                line = target;
                col = pos + p.len();
                matched_any = true;
            }
            Check::Same(p) => {
                let l = lines.get(line).copied().unwrap_or("");
                let start = col.min(l.len());
                let Some(pos) = l[start..].find(p.as_str()) else {
                    return Err(format!(
                        "line {dl}: CHECK-SAME: '{p}' not later on output line {}: {l}",
                        line + 1
                    ));
                };
                col = start + pos + p.len();
            }
            Check::Empty => {
                let target = if matched_any { line + 1 } else { 0 };
                match lines.get(target) {
                    Some(l) if l.trim().is_empty() => {
                        line = target;
                        col = 0;
                        matched_any = true;
                    }
                    other => {
                        return Err(format!(
                            "line {dl}: CHECK-EMPTY: output line {} is {:?}",
                            target + 1,
                            other
                        ));
                    }
                }
            }
        }
    }
    let end = (lines.len(), 0);
    check_nots(&mut pending_not, (line, col), end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checks(s: &str) -> Vec<(usize, Check)> {
        parse_checks(s)
    }

    #[test]
    fn plain_next_not() {
        let out = "a = add(x, y)\nb = mul(a, a)\nROOT c = neg(b)\n";
        assert!(
            run_checks(
                &checks("// CHECK: add\n// CHECK-NEXT: mul\n// CHECK: ROOT"),
                out
            )
            .is_ok()
        );
        assert!(run_checks(&checks("// CHECK: mul\n// CHECK: add"), out).is_err());
        assert!(run_checks(&checks("// CHECK: add\n// CHECK-NEXT: neg"), out).is_err());
        assert!(run_checks(&checks("// CHECK-NOT: sub\n// CHECK: neg"), out).is_ok());
        assert!(
            run_checks(
                &checks("// CHECK: add\n// CHECK-NOT: mul\n// CHECK: neg"),
                out
            )
            .is_err()
        );
        assert!(run_checks(&checks("// CHECK: b = \n// CHECK-SAME: (a, a)"), out).is_ok());
        assert!(run_checks(&checks("// CHECK-NOT: mul"), out).is_err());
    }
}
