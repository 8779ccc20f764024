//! `rxla graph FILE|- [--format dot|svg|html] [--computation NAME]`: a
//! picture of the ENTRY (or a named) computation on stdout. `dot` (the
//! default, for `| dot -Tsvg`) is Graphviz text from `rxla_ir::graph`;
//! `svg` and `html` are laid out and drawn by `rxla_viz` with no external
//! tool. Flag parsing and output only.

use crate::{Failure, input};
use clap::{Args, ValueEnum};

/// The picture format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Graphviz DOT text (render with `dot -Tsvg`).
    Dot,
    /// An SVG drawn by rxla (layered layout, fusions and calls as clusters).
    Svg,
    /// A self-contained HTML page with the SVG and pan/zoom.
    Html,
}

#[derive(Args)]
pub struct GraphArgs {
    /// HLO text file, or `-` for stdin.
    pub file: String,
    /// Graph this computation instead of the ENTRY.
    #[arg(long)]
    pub computation: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "dot")]
    pub format: Format,
    /// svg/html: draw fusions and calls as single boxes, not clusters.
    #[arg(long)]
    pub no_clusters: bool,
}

pub fn run(args: GraphArgs) -> Result<(), Failure> {
    let m = input::load_module(&args.file)?;
    let cid = match &args.computation {
        None => m.entry,
        Some(name) => m
            .find_computation(name)
            .ok_or_else(|| Failure::input(format!("no computation named '{name}'")))?,
    };
    let opts = rxla_viz::SceneOptions {
        clusters: !args.no_clusters,
        ..Default::default()
    };
    crate::emit(&match args.format {
        Format::Dot => rxla_ir::graph::computation_to_dot(m.comp(cid)),
        Format::Svg => rxla_viz::computation_svg(&m, cid, "graph", &opts),
        Format::Html => rxla_viz::computation_html(&m, cid, &opts),
    })
}
