//! Writes [`ReportData`] as one self-contained HTML page: a summary table
//! with timing bars, then one section per pass run (counters, simplify's
//! explanations, fusion and buffer decisions, the coloured IR diff, the
//! ENTRY graph before and after), with inline CSS and the pan/zoom script.
//! Text generation only.

use super::{PassRecord, ReportData, Status};
use crate::escape::xml;
use crate::html::PAN_ZOOM_JS;
use std::fmt::Write;

const CSS: &str = "\
body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#222;background:#fafafa}\
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:0 0 6px}h3{font-size:14px;margin:10px 0 4px}\
.meta{color:#555;margin-bottom:12px}code,pre{font:12px monospace}\
table{border-collapse:collapse;background:#fff}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}\
th{background:#f0f0f0}td.num{text-align:right}\
.bar{height:12px;background:#4a7fc1;min-width:1px}.bar.u{background:#b7c4d6}.bar.s{background:none}\
.st-changed{color:#1a7f37;font-weight:bold}.st-unchanged{color:#777}.st-skipped{color:#b35900}\
section{background:#fff;border:1px solid #ddd;border-radius:6px;padding:10px 14px;margin:14px 0}\
section.unchanged{opacity:.75}\
pre.diff{background:#f7f7f7;border:1px solid #e5e5e5;padding:6px;overflow:auto;max-height:420px}\
.add{color:#1a7f37;background:#e6f6ea;display:block}.del{color:#b31d28;background:#fdecee;display:block}.hunk{color:#6f42c1;display:block}\
.graphs{display:flex;gap:10px;flex-wrap:wrap}.graphs>div{flex:1 1 420px;min-width:320px}\
.pz{height:520px;border:1px solid #ddd;overflow:hidden;background:#fff;cursor:grab}\
ul.ex{margin:2px 0;padding-left:20px;font:12px monospace}";

/// The page.
pub fn render(d: &ReportData) -> String {
    let mut s = String::with_capacity(64 * 1024 + d.graphs.iter().map(String::len).sum::<usize>());
    let title = format!("rxla opt report: {}", d.module);
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title>\n<style>{CSS}</style></head>\n<body>\n<h1>{}</h1>\n",
        xml(&title),
        xml(&title)
    );
    let runs: Vec<&PassRecord> = d.passes.iter().filter(|p| p.duration.is_some()).collect();
    let total: f64 = runs
        .iter()
        .filter_map(|p| p.duration)
        .map(|t| t.as_secs_f64() * 1e3)
        .sum();
    let _ = writeln!(
        s,
        "<div class=\"meta\">pipeline <code>{}</code> · {} pass runs · {:.3} ms · instructions {} → {}</div>",
        xml(if d.pipeline.is_empty() {
            "(none)"
        } else {
            &d.pipeline
        }),
        runs.len(),
        total,
        d.instructions_before,
        d.instructions_after
    );
    if let Some(e) = &d.error {
        let _ = writeln!(
            s,
            "<section><h2 class=\"st-skipped\">pipeline failed</h2><pre>{}</pre></section>",
            xml(e)
        );
    }
    summary_table(&mut s, d, total);
    if let Some(note) = &d.graph_note {
        let _ = writeln!(s, "<p class=\"meta\">{}</p>", xml(note));
    }
    if let Some(g) = d
        .passes
        .first()
        .and_then(|p| p.graph_before)
        .or(if d.graphs.is_empty() { None } else { Some(0) })
        && let Some(svg) = d.graphs.get(g)
    {
        let _ = write!(
            s,
            "<section id=\"input\"><h2>input: ENTRY graph</h2><div class=\"pz\">\n{svg}</div></section>\n"
        );
    }
    for (i, p) in d.passes.iter().enumerate() {
        pass_section(&mut s, d, i, p);
    }
    s.push_str(PAN_ZOOM_JS);
    s.push_str("\n</body></html>\n");
    s
}

fn status(p: &PassRecord) -> (&'static str, String) {
    match &p.status {
        Status::Changed => ("changed", "changed".to_string()),
        Status::Unchanged => ("unchanged", "unchanged".to_string()),
        Status::Skipped(why) => ("skipped", why.clone()),
    }
}

fn summary_table(s: &mut String, d: &ReportData, total: f64) {
    let max = d
        .passes
        .iter()
        .filter_map(|p| p.duration)
        .map(|t| t.as_secs_f64() * 1e3)
        .fold(0.0, f64::max);
    s.push_str("<table class=\"summary\"><tr><th>#</th><th>pass</th><th style=\"width:260px\">time</th><th>ms</th><th>% of total</th><th>instructions</th><th>status</th></tr>\n");
    for (i, p) in d.passes.iter().enumerate() {
        let (cls, text) = status(p);
        let ms = p.duration.map(|t| t.as_secs_f64() * 1e3);
        let pct = match ms {
            Some(m) if max > 0.0 => 100.0 * m / max,
            _ => 0.0,
        };
        let bar = match (&p.status, ms) {
            (Status::Skipped(_), _) | (_, None) => "s",
            (Status::Unchanged, _) => "u",
            (Status::Changed, _) => "",
        };
        let share = match ms {
            Some(m) if total > 0.0 => format!("{:.1}%", 100.0 * m / total),
            _ => "-".to_string(),
        };
        let _ = writeln!(
            s,
            "<tr><td class=\"num\">{n}</td><td><a href=\"#pass-{n}\">{}</a></td><td><div class=\"bar {bar}\" style=\"width:{pct:.1}%\"></div></td><td class=\"num\">{}</td><td class=\"num\">{share}</td><td>{} → {}</td><td class=\"st-{cls}\">{}</td></tr>",
            xml(&p.pass),
            ms.map_or("-".to_string(), |m| format!("{m:.3}")),
            p.instructions_before,
            p.instructions_after,
            xml(&text),
            n = i + 1,
        );
    }
    s.push_str("</table>\n");
}

fn pass_section(s: &mut String, d: &ReportData, i: usize, p: &PassRecord) {
    let (cls, text) = status(p);
    let time = p.duration.map_or(String::new(), |t| {
        format!(" · {:.3} ms", t.as_secs_f64() * 1e3)
    });
    let _ = writeln!(
        s,
        "<section id=\"pass-{n}\" class=\"{cls}\"><h2>{n}. {} — <span class=\"st-{cls}\">{}</span>{time} · instructions {} → {}</h2>",
        xml(&p.pass),
        xml(&text),
        p.instructions_before,
        p.instructions_after,
        n = i + 1,
    );
    if !p.stats.is_empty() {
        s.push_str("<div class=\"meta\">");
        let parts: Vec<String> = p
            .stats
            .iter()
            .map(|(k, v)| format!("{}: {v}", xml(k)))
            .collect();
        s.push_str(&parts.join(" · "));
        s.push_str("</div>\n");
    }
    if !p.explanations.is_empty() {
        s.push_str("<h3>simplify: why each instruction changes (rule chains)</h3>\n");
        for (comp, lines) in &p.explanations {
            let _ = write!(s, "<div><code>{}</code><ul class=\"ex\">", xml(comp));
            for l in lines {
                let _ = write!(s, "<li>{}</li>", xml(l));
            }
            s.push_str("</ul></div>\n");
        }
    }
    if !p.fusions.is_empty() {
        s.push_str("<h3>fusion decisions</h3>\n<table><tr><th>computation</th><th>fusion</th><th>kind</th><th>fused computation</th><th>members</th><th>inputs</th></tr>\n");
        for f in &p.fusions {
            let members: Vec<String> = f
                .members
                .iter()
                .map(|(n, o)| format!("{} <i>{}</i>", xml(n), xml(o)))
                .collect();
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td><b>{}</b></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                xml(&f.computation),
                xml(&f.fusion),
                xml(&f.kind),
                xml(&f.callee),
                members.join(", "),
                xml(&f.inputs.join(", "))
            );
        }
        s.push_str("</table>\n");
    }
    if let Some(b) = &p.buffers {
        let _ = write!(
            s,
            "<h3>buffer decisions (ENTRY, schedule order)</h3>\n<div class=\"meta\">{}</div>\n<table><tr><th>#</th><th>instruction</th><th>opcode</th><th>buffers</th><th>bytes</th><th>arena offset</th><th>why</th></tr>\n",
            xml(&b.summary)
        );
        for (k, r) in b.rows.iter().enumerate() {
            let bufs: Vec<String> = r.buffers.iter().map(|b| format!("#{b}")).collect();
            let _ = writeln!(
                s,
                "<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
                k + 1,
                xml(&r.instruction),
                xml(&r.opcode),
                bufs.join(" "),
                r.bytes,
                r.offset.map_or("-".to_string(), |o| o.to_string()),
                xml(&r.why)
            );
        }
        s.push_str("</table>\n");
    }
    if !p.diff.is_empty() {
        s.push_str("<h3>IR diff</h3>\n<pre class=\"diff\">");
        for line in p.diff.lines() {
            let cls = if line.starts_with("+++") || line.starts_with("---") {
                "hunk"
            } else if line.starts_with('+') {
                "add"
            } else if line.starts_with('-') {
                "del"
            } else if line.starts_with("@@") {
                "hunk"
            } else {
                ""
            };
            if cls.is_empty() {
                let _ = writeln!(s, "{}", xml(line));
            } else {
                let _ = write!(s, "<span class=\"{cls}\">{}</span>", xml(line));
            }
        }
        s.push_str("</pre>\n");
    }
    if p.status == Status::Changed
        && let (Some(b), Some(a)) = (p.graph_before, p.graph_after)
        && let (Some(before), Some(after)) = (d.graphs.get(b), d.graphs.get(a))
    {
        // The same SVG may appear twice (after one pass, before the next):
        // give each copy its own ids.
        let before = before.replacen(&format!("id=\"g{b}\""), &format!("id=\"g{b}b{i}\""), 1);
        let before = before.replace(&format!("g{b}-arrow"), &format!("g{b}b{i}-arrow"));
        let _ = write!(
            s,
            "<h3>ENTRY graph</h3>\n<div class=\"graphs\"><div><b>before</b><div class=\"pz\">\n{before}</div></div><div><b>after</b><div class=\"pz\">\n{after}</div></div></div>\n"
        );
    }
    s.push_str("</section>\n");
}
