//! A line diff (Myers' O((N+M)·D) algorithm after trimming the common
//! prefix and suffix) and unified-diff formatting with context lines, for
//! `--print-ir-diff`. Pure text in, text out.

/// One step of an edit script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit {
    /// Line `a` of the old text equals line `b` of the new text.
    Equal(usize, usize),
    /// Line of the old text removed.
    Delete(usize),
    /// Line of the new text inserted.
    Insert(usize),
}

/// Above this many differences the diff gives up on minimality and
/// replaces the whole differing middle (keeps memory bounded).
const MAX_D: usize = 4000;

/// A minimal edit script turning `a` into `b` (lines).
pub fn diff_lines(a: &[&str], b: &[&str]) -> Vec<Edit> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let mut out: Vec<Edit> = (0..prefix).map(|i| Edit::Equal(i, i)).collect();
    let (am, bm) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    for e in myers(am, bm) {
        out.push(match e {
            Edit::Equal(x, y) => Edit::Equal(x + prefix, y + prefix),
            Edit::Delete(x) => Edit::Delete(x + prefix),
            Edit::Insert(y) => Edit::Insert(y + prefix),
        });
    }
    let (sa, sb) = (a.len() - suffix, b.len() - suffix);
    out.extend((0..suffix).map(|i| Edit::Equal(sa + i, sb + i)));
    out
}

fn myers(a: &[&str], b: &[&str]) -> Vec<Edit> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    if n == 0 || m == 0 {
        return (0..a.len())
            .map(Edit::Delete)
            .chain((0..b.len()).map(Edit::Insert))
            .collect();
    }
    let max = (n + m) as usize;
    let off = max as isize;
    let mut v = vec![0isize; 2 * max + 2];
    let mut trace: Vec<Vec<isize>> = Vec::new();
    let mut found = None;
    'outer: for d in 0..=max.min(MAX_D) as isize {
        trace.push(v.clone());
        let mut k = -d;
        while k <= d {
            let idx = (k + off) as usize;
            let mut x = if k == -d || (k != d && v[idx - 1] < v[idx + 1]) {
                v[idx + 1]
            } else {
                v[idx - 1] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[idx] = x;
            if x >= n && y >= m {
                found = Some(d);
                break 'outer;
            }
            k += 2;
        }
    }
    let Some(dmax) = found else {
        return (0..a.len())
            .map(Edit::Delete)
            .chain((0..b.len()).map(Edit::Insert))
            .collect();
    };
    // Backtrack through the saved frontiers.
    let mut edits = Vec::new();
    let (mut x, mut y) = (n, m);
    for d in (1..=dmax).rev() {
        let v = &trace[d as usize];
        let k = x - y;
        let idx = (k + off) as usize;
        let prev_k = if k == -d || (k != d && v[idx - 1] < v[idx + 1]) {
            k + 1
        } else {
            k - 1
        };
        let prev_x = v[(prev_k + off) as usize];
        let prev_y = prev_x - prev_k;
        while x > prev_x && y > prev_y {
            x -= 1;
            y -= 1;
            edits.push(Edit::Equal(x as usize, y as usize));
        }
        if x == prev_x {
            y -= 1;
            edits.push(Edit::Insert(y as usize));
        } else {
            x -= 1;
            edits.push(Edit::Delete(x as usize));
        }
    }
    while x > 0 && y > 0 {
        x -= 1;
        y -= 1;
        edits.push(Edit::Equal(x as usize, y as usize));
    }
    edits.reverse();
    edits
}

/// A unified diff of `old` → `new` with `context` lines around changes,
/// headed by `--- from` / `+++ to`. Empty when the texts are equal.
pub fn unified_diff(old: &str, new: &str, from: &str, to: &str, context: usize) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let edits = diff_lines(&a, &b);
    let changes: Vec<usize> = edits
        .iter()
        .enumerate()
        .filter(|(_, e)| !matches!(e, Edit::Equal(..)))
        .map(|(i, _)| i)
        .collect();
    if changes.is_empty() {
        return String::new();
    }
    let mut out = format!("--- {from}\n+++ {to}\n");
    // Group change positions into hunks.
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for &c in &changes {
        match groups.last_mut() {
            Some((_, end)) if c <= *end + 2 * context + 1 => *end = c,
            _ => groups.push((c, c)),
        }
    }
    for (first, last) in groups {
        let start = first.saturating_sub(context);
        let end = (last + context + 1).min(edits.len());
        let hunk = &edits[start..end];
        // Positions: the first old/new line the hunk touches.
        let (mut a_start, mut b_start) = position_before(&edits, start);
        let a_len = hunk
            .iter()
            .filter(|e| !matches!(e, Edit::Insert(_)))
            .count();
        let b_len = hunk
            .iter()
            .filter(|e| !matches!(e, Edit::Delete(_)))
            .count();
        if a_len > 0 {
            a_start += 1;
        }
        if b_len > 0 {
            b_start += 1;
        }
        out.push_str(&format!("@@ -{a_start},{a_len} +{b_start},{b_len} @@\n"));
        for e in hunk {
            match *e {
                Edit::Equal(i, _) => out.push_str(&format!(" {}\n", a[i])),
                Edit::Delete(i) => out.push_str(&format!("-{}\n", a[i])),
                Edit::Insert(j) => out.push_str(&format!("+{}\n", b[j])),
            }
        }
    }
    out
}

/// Number of old and new lines consumed before edit `pos`.
fn position_before(edits: &[Edit], pos: usize) -> (usize, usize) {
    let mut a = 0;
    let mut b = 0;
    for e in &edits[..pos] {
        match e {
            Edit::Equal(..) => {
                a += 1;
                b += 1;
            }
            Edit::Delete(_) => a += 1,
            Edit::Insert(_) => b += 1,
        }
    }
    (a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(a: &[&str], b: &[&str], edits: &[Edit]) -> Vec<String> {
        let mut out = Vec::new();
        for e in edits {
            match *e {
                Edit::Equal(i, j) => {
                    assert_eq!(a[i], b[j]);
                    out.push(a[i].to_string());
                }
                Edit::Insert(j) => out.push(b[j].to_string()),
                Edit::Delete(_) => {}
            }
        }
        out
    }

    #[test]
    fn edit_scripts_are_minimal_and_correct() {
        let cases: [(&str, &str, usize); 5] = [
            ("a b c a b b a", "c b a b a c", 5),
            ("", "x y", 2),
            ("x y", "", 2),
            ("a b c", "a b c", 0),
            ("a x c", "a y c", 2),
        ];
        for (a, b, d) in cases {
            let a: Vec<&str> = a.split_whitespace().collect();
            let b: Vec<&str> = b.split_whitespace().collect();
            let e = diff_lines(&a, &b);
            assert_eq!(apply(&a, &b, &e), b);
            let changes = e.iter().filter(|e| !matches!(e, Edit::Equal(..))).count();
            assert_eq!(changes, d, "{a:?} -> {b:?}");
        }
    }

    #[test]
    fn unified_format() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
        let new = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n";
        let d = unified_diff(old, new, "before", "after", 2);
        assert_eq!(
            d,
            "--- before\n+++ after\n@@ -3,5 +3,5 @@\n 3\n 4\n-5\n+five\n 6\n 7\n@@ -9,2 +9,3 @@\n 9\n 10\n+11\n"
        );
        assert_eq!(unified_diff(old, old, "a", "b", 3), "");
    }
}
