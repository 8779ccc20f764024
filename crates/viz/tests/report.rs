//! The pipeline report: what the recorder collects per pass (status,
//! counts, diff, graphs, explanations, fusion and buffer decisions) and
//! the page it renders (every pass, timing bars, well-formed SVGs, no
//! external resources).

use rxla_passes::{PassManager, Registry};
use rxla_viz::report::{Recorder, ReportData, ReportOptions, Status, render};
use std::path::PathBuf;

fn mlp() -> rxla_ir::Module {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/mlp.hlo");
    rxla_ir::parse_module(&std::fs::read_to_string(p).unwrap(), "mlp.hlo").unwrap()
}

const PIPELINE: &str = "inline,simplify,cse,dce,fusion,buffer-assignment";

fn record(pipeline: &str, opts: ReportOptions) -> ReportData {
    let mut m = mlp();
    let mut pm = PassManager::from_text(pipeline, &Registry::standard()).unwrap();
    pm.disable(&["cse"]);
    let (rec, data) = Recorder::new(opts);
    pm.add_instrumentation(Box::new(rec));
    pm.run(&mut m).unwrap();
    let mut d = data.borrow().clone();
    d.pipeline = pipeline.to_string();
    d
}

#[test]
fn records_every_pass_with_its_evidence() {
    let d = record(PIPELINE, ReportOptions::default());
    let names: Vec<&str> = d.passes.iter().map(|p| p.pass.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "inline",
            "simplify",
            "cse",
            "dce",
            "fusion",
            "buffer-assignment"
        ]
    );
    let status: Vec<&Status> = d.passes.iter().map(|p| &p.status).collect();
    assert_eq!(status[0], &Status::Changed);
    assert_eq!(status[2], &Status::Skipped("disabled".into()));
    assert_eq!(status[5], &Status::Unchanged);
    assert_eq!(d.module, "jit_f");
    assert_eq!(d.instructions_before, 31);
    // Counts chain from pass to pass.
    for w in d.passes.windows(2) {
        assert_eq!(w[0].instructions_after, w[1].instructions_before);
    }
    let inline = &d.passes[0];
    assert!(
        inline
            .diff
            .starts_with("--- before inline\n+++ after inline\n")
    );
    assert!(
        inline
            .diff
            .contains("-  jit_relu_.2 = f32[4,16]{1,0} call(add.15), to_apply=relu.1")
    );
    assert_ne!(inline.graph_before, inline.graph_after);
    assert!(inline.graph_after.is_some());
    // simplify's rule chains, per computation.
    let simplify = &d.passes[1];
    assert_eq!(simplify.explanations.len(), 1);
    assert_eq!(simplify.explanations[0].0, "main.2");
    assert!(
        simplify.explanations[0]
            .1
            .contains(&"add.13: reshape-noop".to_string()),
        "{:?}",
        simplify.explanations
    );
    assert!(simplify.stats.iter().any(|(k, _)| k == "rule reshape-noop"));
    // The fusions the fusion pass made, and nothing claimed elsewhere.
    let fusion = &d.passes[4];
    assert!(!fusion.fusions.is_empty());
    for f in &fusion.fusions {
        assert!(f.callee.starts_with("fused_"), "{f:?}");
        assert!(!f.members.is_empty() && !f.inputs.is_empty(), "{f:?}");
    }
    assert!(d.passes[..4].iter().all(|p| p.fusions.is_empty()));
    // The buffer table after buffer-assignment, one row per ENTRY value.
    let b = d.passes[5].buffers.as_ref().unwrap();
    assert!(b.summary.starts_with("buffers: "));
    assert_eq!(
        b.rows.len(),
        d.passes[5].instructions_after - fused_count(&d)
    );
    assert_eq!(b.rows[0].why, "parameter 0");
    // Unchanged passes share the graph of the module they saw.
    assert_eq!(d.passes[5].graph_before, d.passes[5].graph_after);
}

/// Instructions outside ENTRY (inside the fused computations).
fn fused_count(d: &ReportData) -> usize {
    d.passes[4]
        .fusions
        .iter()
        .map(|f| f.members.len() + f.inputs.len())
        .sum()
}

#[test]
fn page_is_self_contained_and_shows_everything() {
    let d = record(PIPELINE, ReportOptions::default());
    let page = render(&d);
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.ends_with("</body></html>\n"));
    for p in &d.passes {
        assert!(page.contains(&format!(">{}</a>", p.pass)), "{}", p.pass);
    }
    for needle in [
        "class=\"bar ",
        "simplify: why each instruction changes",
        "add.13: reshape-noop",
        "fusion decisions",
        "buffer decisions (ENTRY, schedule order)",
        "<span class=\"del\">",
        "<span class=\"add\">",
        "<b>before</b>",
        ">disabled</td>",
        "addEventListener('wheel'",
    ] {
        assert!(page.contains(needle), "missing {needle}");
    }
    // No external resources.
    assert!(!page.contains("src=\"http") && !page.contains("href=\"http"));
    // Every embedded SVG is well-formed XML and ids are unique.
    let mut ids = std::collections::BTreeSet::new();
    let mut count = 0;
    for part in page.split("<svg ").skip(1) {
        let svg = format!("<svg {}</svg>", part.split("</svg>").next().unwrap());
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let id = doc.root_element().attribute("id").unwrap().to_string();
        assert!(ids.insert(id.clone()), "duplicate svg id {id}");
        count += 1;
    }
    // Input + before/after of the four changed passes.
    assert_eq!(count, 1 + 2 * 4, "{ids:?}");
    // Deterministic apart from the timings.
    let again = render(&record(PIPELINE, ReportOptions::default()));
    let strip = |s: &str| {
        s.lines()
            .filter(|l| !l.contains(" ms") && !l.contains("class=\"bar"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&page), strip(&again));
}

#[test]
fn big_modules_skip_graphs_with_a_note() {
    let opts = ReportOptions {
        max_graph_instructions: 5,
        ..ReportOptions::default()
    };
    let d = record("inline,dce", opts);
    assert!(d.graphs.is_empty());
    assert!(d.graph_note.as_deref().unwrap().contains("limit 5"));
    let page = render(&d);
    assert!(page.contains("graphs omitted"));
    assert!(!page.contains("<svg"));
}
