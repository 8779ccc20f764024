//! Writes a laid-out [`Scene`] as one standalone SVG document (inline
//! style, an arrowhead marker, a `<title>` tooltip with the full HLO text
//! on every box). Text generation only; the layout is done elsewhere.

use crate::escape::xml;
use crate::layout::Point;
use crate::scene::{CHAR_W, Item, LINE_H, NodeKind, Scene};
use std::fmt::Write;

/// The stylesheet every graph carries (scoped by the SVG's class).
const STYLE: &str = "\
.rxg text{font:12px monospace;fill:#222}\
.rxg .n rect{fill:#fff;stroke:#556;stroke-width:1}\
.rxg .n.param rect{fill:#e3edf9;stroke:#2c6db5}\
.rxg .n.const rect{fill:#f3f3f3;stroke:#999}\
.rxg .n.root rect{fill:#fdecea;stroke:#c0392b;stroke-width:2.5}\
.rxg .n text.name{font-weight:bold}\
.rxg .n text.op{fill:#7a3e9d}\
.rxg .n text.shape{fill:#555}\
.rxg .c rect{fill:#fff8e8;stroke:#d9962b;stroke-width:1.2;stroke-dasharray:5 3}\
.rxg .c text{fill:#8a5a00;font-weight:bold}\
.rxg .c.root rect{stroke:#c0392b;stroke-width:2;stroke-dasharray:none}\
.rxg path.e{fill:none;stroke:#8a8f98;stroke-width:1.2}";

/// `scene` as an SVG document. `id` prefixes the element ids (the
/// arrowhead marker), so several graphs can share one HTML page.
pub fn to_svg(scene: &Scene, id: &str) -> String {
    let id = sanitize_id(id);
    let mut s = String::with_capacity(256 + scene.items.len() * 300);
    let (w, h) = (scene.width.max(1.0), scene.height.max(1.0));
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"rxg\" id=\"{id}\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.1} {h:.1}\">\n\
         <style>{STYLE}</style>\n\
         <defs><marker id=\"{id}-arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#8a8f98\"/></marker></defs>\n"
    );
    for it in &scene.items {
        match it {
            Item::Cluster {
                x,
                y,
                w,
                h,
                label,
                title,
                root,
            } => {
                let class = if *root { "c root" } else { "c" };
                let _ = writeln!(
                    s,
                    "<g class=\"{class}\"><title>{}</title><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" rx=\"6\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text></g>",
                    xml(title),
                    x + 8.0,
                    y + 14.0,
                    xml(label)
                );
            }
            Item::Edge { points } => {
                let _ = writeln!(
                    s,
                    "<path class=\"e\" d=\"{}\" marker-end=\"url(#{id}-arrow)\"/>",
                    path_data(points)
                );
            }
            Item::Node {
                x,
                y,
                w,
                h,
                kind,
                lines,
                title,
            } => {
                let class = match kind {
                    NodeKind::Normal => "n",
                    NodeKind::Parameter => "n param",
                    NodeKind::Constant => "n const",
                    NodeKind::Root => "n root",
                };
                let _ = write!(
                    s,
                    "<g class=\"{class}\"><title>{}</title><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" rx=\"3\"/>",
                    xml(title)
                );
                for (i, (line, cls)) in lines.iter().zip(["name", "op", "shape"]).enumerate() {
                    let tx = x + (w - line.chars().count() as f64 * CHAR_W) / 2.0;
                    let ty = y + 4.0 + LINE_H * (i as f64 + 1.0) - 3.0;
                    let _ = write!(
                        s,
                        "<text class=\"{cls}\" x=\"{tx:.1}\" y=\"{ty:.1}\">{}</text>",
                        xml(line)
                    );
                }
                s.push_str("</g>\n");
            }
        }
    }
    s.push_str("</svg>\n");
    s
}

/// SVG path data: straight vertical runs, cubic curves between layers.
fn path_data(points: &[Point]) -> String {
    let mut d = String::new();
    for (i, p) in points.iter().enumerate() {
        if i == 0 {
            let _ = write!(d, "M{:.1},{:.1}", p.x, p.y);
            continue;
        }
        let q = points[i - 1];
        if (q.x - p.x).abs() < 0.05 {
            let _ = write!(d, " L{:.1},{:.1}", p.x, p.y);
        } else {
            let my = (q.y + p.y) / 2.0;
            let _ = write!(
                d,
                " C{:.1},{my:.1} {:.1},{my:.1} {:.1},{:.1}",
                q.x, p.x, p.x, p.y
            );
        }
    }
    d
}

/// Keeps `[A-Za-z0-9_-]` so the id is valid in XML and CSS.
fn sanitize_id(id: &str) -> String {
    let s: String = id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("g{s}")
    } else {
        s
    }
}
