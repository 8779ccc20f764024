//! rxla-viz: pictures of HLO without external tools. A layered
//! (Sugiyama-style) layout of a computation ([`layout`], [`scene`]) written
//! as SVG ([`svg`]) or a self-contained HTML page ([`html`]), and the HTML
//! report of a pass-pipeline run ([`report`]): passes with timing bars,
//! IR diffs, before/after graphs, simplify's explanations, and fusion and
//! buffer decisions.
//!
//! Output is text only: this crate reads modules and never edits them,
//! writes no files and prints nothing (the CLI does that).

pub mod escape;
pub mod html;
pub mod layout;
pub mod report;
pub mod scene;
pub mod svg;

use rxla_ir::{CompId, Module};
pub use scene::SceneOptions;

/// Computation `cid` of `module` as an SVG document; `id` prefixes the
/// element ids. An out-of-range `cid` gives an empty picture.
pub fn computation_svg(module: &Module, cid: CompId, id: &str, opts: &SceneOptions) -> String {
    svg::to_svg(&scene::scene(module, cid, opts), id)
}

/// Computation `cid` as a self-contained HTML page with pan and zoom.
pub fn computation_html(module: &Module, cid: CompId, opts: &SceneOptions) -> String {
    let name = module
        .computations
        .get(cid.index())
        .map(|c| c.name.as_str())
        .unwrap_or("?");
    html::graph_page(
        &format!("{} · {name}", module.name),
        &computation_svg(module, cid, "graph", opts),
    )
}
