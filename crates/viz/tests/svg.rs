//! SVG generation: well-formed XML for every corpus module, every
//! instruction drawn, fusions and calls as clusters, no overlapping boxes,
//! deterministic output, a snapshot, and a 10k-instruction module in
//! seconds.

use rxla_ir::{Module, Op, parse_module};
use rxla_viz::scene::{Item, scene};
use rxla_viz::{SceneOptions, computation_html, computation_svg};
use std::time::Instant;

fn corpus() -> Vec<(String, Module)> {
    let dir = rxla_testkit::corpus_dir();
    let files = rxla_testkit::files_with_ext(&dir, "hlo");
    assert!(files.len() >= 40, "corpus not found in {}", dir.display());
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let m = parse_module(&text, &name).unwrap();
            (name, m)
        })
        .collect()
}

/// The module after inline + fusion, so fusions exist.
fn fused(m: &Module) -> Module {
    let mut m = m.clone();
    let mut pm =
        rxla_passes::PassManager::from_text("inline,fusion", &rxla_passes::Registry::standard())
            .unwrap();
    pm.run(&mut m).unwrap();
    m
}

/// Texts of `<text>` elements with class `class`, and of cluster labels.
fn texts<'a>(doc: &'a roxmltree::Document<'a>, class: &str) -> Vec<&'a str> {
    doc.descendants()
        .filter(|n| n.has_tag_name("text") && n.attribute("class") == Some(class))
        .filter_map(|n| n.text())
        .collect()
}

fn cluster_count(doc: &roxmltree::Document<'_>) -> usize {
    doc.descendants()
        .filter(|n| {
            n.has_tag_name("g")
                && n.attribute("class")
                    .is_some_and(|c| c == "c" || c == "c root")
        })
        .count()
}

/// Checks one module's ENTRY picture; returns the number of clusters.
fn check(name: &str, m: &Module) -> usize {
    let svg = computation_svg(m, m.entry, "t", &SceneOptions::default());
    let doc = roxmltree::Document::parse(&svg)
        .unwrap_or_else(|e| panic!("{name}: SVG is not well-formed XML: {e}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg", "{name}");
    let names = texts(&doc, "name");
    let labels: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("g") && n.attribute("class").is_some_and(|c| c.starts_with('c')))
        .filter_map(|g| g.children().find(|c| c.has_tag_name("text")))
        .filter_map(|t| t.text())
        .collect();
    // Every ENTRY instruction: a box, or the label of its cluster; and
    // every instruction of a clustered callee: a box.
    let entry = m.entry_computation();
    let mut clusters = 0;
    for i in &entry.instructions {
        let callee = match i.op {
            Op::Fusion { calls, .. } => Some(calls),
            Op::Call { to_apply, .. } => Some(to_apply),
            _ => None,
        };
        match callee {
            Some(c) => {
                clusters += 1;
                assert!(
                    labels
                        .iter()
                        .any(|l| l.starts_with(&format!("{} · ", i.name))),
                    "{name}: no cluster for {}",
                    i.name
                );
                for j in &m.comp(c).instructions {
                    assert!(names.contains(&j.name.as_str()), "{name}: {}", j.name);
                }
            }
            None => assert!(
                names.contains(&i.name.as_str()),
                "{name}: {} not drawn",
                i.name
            ),
        }
    }
    assert_eq!(cluster_count(&doc), clusters, "{name}");
    // One edge per operand.
    let edges = doc
        .descendants()
        .filter(|n| n.has_tag_name("path") && n.attribute("class") == Some("e"))
        .count();
    let operands: usize = entry
        .instructions
        .iter()
        .map(|i| i.operands.len())
        .sum::<usize>()
        + entry
            .instructions
            .iter()
            .filter_map(|i| match i.op {
                Op::Fusion { calls, .. } => Some(calls),
                Op::Call { to_apply, .. } => Some(to_apply),
                _ => None,
            })
            .map(|c| {
                m.comp(c)
                    .instructions
                    .iter()
                    .map(|i| i.operands.len())
                    .sum::<usize>()
            })
            .sum::<usize>();
    assert_eq!(edges, operands, "{name}");
    no_overlaps(name, m);
    clusters
}

/// No two instruction boxes overlap, anywhere in the picture.
fn no_overlaps(name: &str, m: &Module) {
    let s = scene(m, m.entry, &SceneOptions::default());
    let mut boxes: Vec<(f64, f64, f64, f64, String)> = s
        .items
        .iter()
        .filter_map(|it| match it {
            Item::Node {
                x, y, w, h, lines, ..
            } => Some((*x, *y, *w, *h, lines[0].clone())),
            _ => None,
        })
        .collect();
    boxes.sort_by(|a, b| a.0.total_cmp(&b.0));
    for i in 0..boxes.len() {
        let a = &boxes[i];
        for b in &boxes[i + 1..] {
            if b.0 >= a.0 + a.2 {
                break;
            }
            let apart_y = b.1 >= a.1 + a.3 || a.1 >= b.1 + b.3;
            assert!(apart_y, "{name}: boxes {} and {} overlap", a.4, b.4);
        }
    }
    for it in &s.items {
        if let Item::Node { x, y, w, h, .. } = it {
            assert!(*x >= 0.0 && *y >= 0.0, "{name}");
            assert!(
                x + w <= s.width + 1e-6 && y + h <= s.height + 1e-6,
                "{name}"
            );
        }
    }
}

#[test]
fn every_corpus_module_draws_well_formed_svg() {
    let mut clusters = 0;
    for (name, m) in corpus() {
        clusters += check(&name, &m);
        clusters += check(&format!("{name} (fused)"), &fused(&m));
    }
    assert!(clusters > 20, "only {clusters} clusters drawn");
}

#[test]
fn fusions_are_clusters_with_kind_and_callee() {
    let (_, m) = corpus().into_iter().find(|(n, _)| n == "mlp.hlo").unwrap();
    let f = fused(&m);
    let svg = computation_svg(&f, f.entry, "t", &SceneOptions::default());
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let fusions = f
        .entry_computation()
        .instructions
        .iter()
        .filter(|i| matches!(i.op, Op::Fusion { .. }))
        .count();
    assert!(fusions >= 2, "{fusions}");
    assert_eq!(cluster_count(&doc), fusions);
    for i in &f.entry_computation().instructions {
        if let Op::Fusion { kind, calls } = &i.op {
            let label = format!(
                "{} · fusion {} → {} · ",
                i.name,
                kind.0,
                f.comp(*calls).name
            );
            assert!(svg.contains(&label), "{label}");
        }
    }
    // Parameters and the ROOT are marked.
    assert!(svg.contains("class=\"n param\""));
    let entry_root_is_box = !matches!(
        f.entry_computation().root_instruction().op,
        Op::Fusion { .. }
    );
    assert_eq!(
        svg.matches("class=\"n root\"").count(),
        usize::from(entry_root_is_box) + fusions
    );
    assert_eq!(
        svg.matches("class=\"c root\"").count(),
        usize::from(!entry_root_is_box)
    );
    // Without clusters: one box per ENTRY instruction, no cluster.
    let flat = SceneOptions {
        clusters: false,
        ..SceneOptions::default()
    };
    let svg = computation_svg(&f, f.entry, "t", &flat);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    assert_eq!(cluster_count(&doc), 0);
    assert_eq!(texts(&doc, "name").len(), f.entry_computation().len());
}

#[test]
fn output_is_deterministic() {
    for (name, m) in corpus() {
        let f = fused(&m);
        let a = computation_svg(&f, f.entry, "t", &SceneOptions::default());
        let b = computation_svg(&f.clone(), f.entry, "t", &SceneOptions::default());
        assert_eq!(a, b, "{name}");
    }
}

#[test]
fn snapshot_of_a_small_fused_module() {
    let m = parse_module(
        "HloModule s\n\nENTRY main {\n  x = f32[4]{0} parameter(0)\n  y = f32[4]{0} parameter(1)\n  n = f32[4]{0} negate(x)\n  e = f32[4]{0} exponential(n)\n  ROOT a = f32[4]{0} add(e, y)\n}\n",
        "s.hlo",
    )
    .unwrap();
    let f = fused(&m);
    insta::assert_snapshot!(
        "small_fused_svg",
        computation_svg(&f, f.entry, "s", &SceneOptions::default())
    );
}

#[test]
fn html_page_embeds_the_svg() {
    let (_, m) = corpus().into_iter().find(|(n, _)| n == "mlp.hlo").unwrap();
    let page = computation_html(&m, m.entry, &SceneOptions::default());
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(page.contains("<script>") && page.contains("addEventListener('wheel'"));
    assert!(!page.contains("http://") || !page.contains("src=\"http"));
}

/// `n` instructions: a chain where each add also reads the value 7
/// back (long edges), every 100th a parameter-fed multiply.
fn big_module(n: usize) -> Module {
    let mut s = String::from("HloModule big\n\nENTRY main {\n");
    s.push_str("  p0 = f32[8]{0} parameter(0)\n  p1 = f32[8]{0} parameter(1)\n");
    let mut prev = vec!["p0".to_string(), "p1".to_string()];
    for i in 0..n {
        let a = &prev[prev.len() - 1];
        let b = &prev[prev.len().saturating_sub(7)];
        let line = if i % 100 == 99 {
            format!("  v{i} = f32[8]{{0}} multiply({a}, p1)\n")
        } else {
            format!("  v{i} = f32[8]{{0}} add({a}, {b})\n")
        };
        s.push_str(&line);
        prev.push(format!("v{i}"));
    }
    s.push_str(&format!(
        "  ROOT r = f32[8]{{0}} negate({})\n}}\n",
        prev.last().unwrap()
    ));
    parse_module(&s, "big.hlo").unwrap()
}

/// 10k instructions render to well-formed SVG without overlaps; the times
/// are printed, not asserted (a slow host must not fail CI).
#[test]
fn ten_thousand_instructions_render() {
    let m = big_module(10_000);
    let t = Instant::now();
    let svg = computation_svg(&m, m.entry, "b", &SceneOptions::default());
    let flat = t.elapsed();
    let f = fused(&m);
    let t = Instant::now();
    let svg2 = computation_svg(&f, f.entry, "b", &SceneOptions::default());
    let clustered = t.elapsed();
    eprintln!(
        "10k instructions: flat {flat:?} ({} KiB), fused into {} clusters {clustered:?}",
        svg.len() / 1024,
        svg2.matches("class=\"c\"").count()
    );
    assert!(roxmltree::Document::parse(&svg).is_ok());
    assert!(roxmltree::Document::parse(&svg2).is_ok());
    no_overlaps("big", &m);
}
