//! XML/HTML text escaping for everything the SVG and HTML writers emit
//! from module text (names, shapes, tooltips, diffs). Escaping only.

/// `s` with `& < > " '` escaped and control characters other than
/// newline and tab dropped (they are not allowed in XML 1.0).
pub fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_markup_and_drops_controls() {
        assert_eq!(super::xml("a<b>&\"c'\u{1}"), "a&lt;b&gt;&amp;&quot;c&#39;");
    }
}
