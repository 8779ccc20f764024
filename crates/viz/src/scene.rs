//! Turns an HLO computation into positioned drawing items: one box per
//! instruction (name, opcode, shape with layout; parameters, constants and
//! the ROOT marked), fusions and calls drawn as clusters (a box around the
//! laid-out instructions of the called computation, entered at its
//! parameters and left at its root), and edges as polylines. Each cluster
//! is laid out first and then placed as one box of the caller's layout.
//! Geometry only: it writes no SVG and never edits the module.

use crate::layout::{self, Edge, Graph, Point};
use rxla_ir::{CompId, Computation, InstrId, Module, Op};

/// How an instruction box is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Normal,
    Parameter,
    Constant,
    /// The computation's ROOT.
    Root,
}

/// One positioned drawing item (top-left corner, size).
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// An instruction box with its three label lines.
    Node {
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        kind: NodeKind,
        /// Instruction name, opcode, shape.
        lines: [String; 3],
        /// The instruction's full HLO text (a tooltip).
        title: String,
    },
    /// A fusion or call: a box around its computation's instructions.
    Cluster {
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        label: String,
        title: String,
        /// The fusion or call is its computation's ROOT.
        root: bool,
    },
    /// An operand edge, from producer to user.
    Edge { points: Vec<Point> },
}

/// Drawing parameters.
#[derive(Clone, Debug)]
pub struct SceneOptions {
    /// Draw fusions and calls as clusters (else as single boxes).
    pub clusters: bool,
    /// Cluster nesting depth at most (deeper calls are single boxes).
    pub max_depth: usize,
    /// Label lines are cut to this many characters.
    pub max_label: usize,
    pub layout: layout::Options,
}

impl Default for SceneOptions {
    fn default() -> Self {
        SceneOptions {
            clusters: true,
            max_depth: 3,
            max_label: 48,
            layout: layout::Options::default(),
        }
    }
}

/// A laid-out computation: items relative to its top-left corner.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    pub width: f64,
    pub height: f64,
    pub items: Vec<Item>,
    /// Top-centre of each parameter box, by parameter number.
    params: Vec<Option<Point>>,
    /// Bottom-centre of the root box.
    root: Option<Point>,
}

/// Character width and line height of the 12px monospace label font.
pub const CHAR_W: f64 = 7.3;
pub const LINE_H: f64 = 15.0;
const PAD: f64 = 8.0;
const HEADER: f64 = 20.0;

/// Lays out computation `cid` of `module`.
pub fn scene(module: &Module, cid: CompId, opts: &SceneOptions) -> Scene {
    if cid.index() >= module.computations.len() {
        return Scene::default();
    }
    build(module, cid, 0, opts)
}

/// The computation a fusion or call box expands into, if drawn as a cluster.
fn cluster_callee(module: &Module, op: &Op, depth: usize, opts: &SceneOptions) -> Option<CompId> {
    if !opts.clusters || depth >= opts.max_depth {
        return None;
    }
    let c = match op {
        Op::Fusion { calls, .. } => *calls,
        Op::Call { to_apply, .. } => *to_apply,
        _ => return None,
    };
    (c.index() < module.computations.len()).then_some(c)
}

fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

fn build(module: &Module, cid: CompId, depth: usize, opts: &SceneOptions) -> Scene {
    let comp: &Computation = module.comp(cid);
    let n = comp.instructions.len();
    // Per instruction: a sub-scene (cluster) or a label box.
    let mut subs: Vec<Option<Scene>> = Vec::with_capacity(n);
    let mut sizes = Vec::with_capacity(n);
    for instr in &comp.instructions {
        match cluster_callee(module, &instr.op, depth, opts) {
            Some(callee) => {
                let s = build(module, callee, depth + 1, opts);
                let label_w = (cluster_label(module, instr).chars().count() as f64) * CHAR_W;
                let w = (s.width + 2.0 * PAD).max(label_w + 2.0 * PAD);
                sizes.push((w, s.height + HEADER + PAD));
                subs.push(Some(s));
            }
            None => {
                let chars = label_lines(instr, opts.max_label)
                    .iter()
                    .map(|l| l.chars().count())
                    .max()
                    .unwrap_or(0);
                sizes.push(((chars as f64) * CHAR_W + 2.0 * PAD, 3.0 * LINE_H + PAD));
                subs.push(None);
            }
        }
    }
    // Where an edge enters / leaves a cluster, relative to its box centre.
    let inner_x = |v: usize, p: Option<Point>| -> f64 {
        match (&subs[v], p) {
            (Some(s), Some(p)) => {
                let w = sizes[v].0;
                (w - s.width) / 2.0 + p.x - w / 2.0
            }
            _ => 0.0,
        }
    };
    let mut edges = Vec::new();
    let mut operand_k = Vec::new();
    for (v, instr) in comp.instructions.iter().enumerate() {
        for (k, o) in instr.operands.iter().enumerate() {
            let u = o.index();
            if u >= n {
                continue;
            }
            let from_port = inner_x(u, subs[u].as_ref().and_then(|s| s.root));
            let to_port = inner_x(
                v,
                subs[v]
                    .as_ref()
                    .and_then(|s| s.params.get(k).copied().flatten()),
            );
            edges.push(Edge {
                from: u,
                to: v,
                from_port,
                to_port,
            });
            operand_k.push(k);
        }
    }
    // Inside a cluster the parameters stay on top, where edges enter.
    let pin_top = comp
        .instructions
        .iter()
        .map(|i| depth > 0 && matches!(i.op, Op::Parameter { .. }))
        .collect();
    let g = Graph {
        sizes,
        edges,
        pin_top,
    };
    let lay = layout::layout(&g, &opts.layout);
    let mut items = Vec::new();
    let mut params = Vec::new();
    let mut root = None;
    // Clusters first (drawn behind), then edges, then boxes.
    let mut boxes = Vec::new();
    for (v, instr) in comp.instructions.iter().enumerate() {
        let (w, h) = g.sizes[v];
        let (x, y) = (lay.centers[v].x - w / 2.0, lay.centers[v].y - h / 2.0);
        if let Op::Parameter { number } = instr.op
            && number >= 0
        {
            let k = number as usize;
            if k < n {
                if params.len() <= k {
                    params.resize(k + 1, None);
                }
                params[k] = Some(Point { x: x + w / 2.0, y });
            }
        }
        if InstrId(v as u32) == comp.root {
            root = Some(Point {
                x: x + w / 2.0,
                y: y + h,
            });
        }
        match &subs[v] {
            Some(s) => {
                items.push(Item::Cluster {
                    x,
                    y,
                    w,
                    h,
                    label: cluster_label(module, instr),
                    title: rxla_ir::text::print_instruction(module, comp, InstrId(v as u32)),
                    root: InstrId(v as u32) == comp.root,
                });
                let (ox, oy) = (x + (w - s.width) / 2.0, y + HEADER);
                for it in &s.items {
                    items.push(shift(it, ox, oy));
                }
            }
            None => {
                let kind = if InstrId(v as u32) == comp.root {
                    NodeKind::Root
                } else {
                    match instr.op {
                        Op::Parameter { .. } => NodeKind::Parameter,
                        Op::Constant { .. } | Op::Iota { .. } => NodeKind::Constant,
                        _ => NodeKind::Normal,
                    }
                };
                boxes.push(Item::Node {
                    x,
                    y,
                    w,
                    h,
                    kind,
                    lines: label_lines(instr, opts.max_label),
                    title: rxla_ir::text::print_instruction(module, comp, InstrId(v as u32)),
                });
            }
        }
    }
    for ((e, pts), &k) in g.edges.iter().zip(&lay.edges).zip(&operand_k) {
        if pts.is_empty() {
            continue;
        }
        let mut points = Vec::with_capacity(pts.len() + 2);
        // Out of a cluster: start at its root box.
        if let Some(s) = &subs[e.from]
            && let Some(r) = s.root
        {
            let o = inner_origin(&g, &lay, e.from, s);
            points.push(Point {
                x: o.x + r.x,
                y: o.y + r.y,
            });
        }
        points.extend(pts.iter().copied());
        // Into a cluster: down to the parameter box the operand feeds.
        if let Some(s) = &subs[e.to]
            && let Some(p) = s.params.get(k).copied().flatten()
        {
            let o = inner_origin(&g, &lay, e.to, s);
            points.push(Point {
                x: o.x + p.x,
                y: o.y + p.y,
            });
        }
        items.push(Item::Edge { points });
    }
    items.extend(boxes);
    Scene {
        width: lay.width,
        height: lay.height,
        items,
        params,
        root,
    }
}

/// Top-left corner of cluster `v`'s inner scene.
fn inner_origin(g: &Graph, lay: &layout::Layout, v: usize, s: &Scene) -> Point {
    let (w, h) = g.sizes[v];
    let c = lay.centers[v];
    Point {
        x: c.x - w / 2.0 + (w - s.width) / 2.0,
        y: c.y - h / 2.0 + HEADER,
    }
}

/// `fusion.3 · fusion kLoop · f32[4,16]{1,0}` and similar for calls.
fn cluster_label(module: &Module, instr: &rxla_ir::Instruction) -> String {
    let (what, callee) = match &instr.op {
        Op::Fusion { kind, calls } => (format!("fusion {}", kind.0), *calls),
        Op::Call { to_apply, .. } => ("call".to_string(), *to_apply),
        _ => (instr.opcode().to_string(), CompId(u32::MAX)),
    };
    let callee = module
        .computations
        .get(callee.index())
        .map(|c| c.name.as_str())
        .unwrap_or("?");
    format!(
        "{} · {what} → {callee} · {}",
        instr.name,
        clip(&instr.shape.to_string(), 48)
    )
}

fn label_lines(instr: &rxla_ir::Instruction, max: usize) -> [String; 3] {
    let op = match &instr.op {
        Op::Parameter { number } => format!("parameter({number})"),
        Op::Fusion { kind, .. } => format!("fusion {}", kind.0),
        _ => instr.opcode().to_string(),
    };
    [
        clip(&instr.name, max),
        clip(&op, max),
        clip(&instr.shape.to_string(), max),
    ]
}

fn shift(it: &Item, dx: f64, dy: f64) -> Item {
    match it {
        Item::Node {
            x,
            y,
            w,
            h,
            kind,
            lines,
            title,
        } => Item::Node {
            x: x + dx,
            y: y + dy,
            w: *w,
            h: *h,
            kind: *kind,
            lines: lines.clone(),
            title: title.clone(),
        },
        Item::Cluster {
            x,
            y,
            w,
            h,
            label,
            title,
            root,
        } => Item::Cluster {
            x: x + dx,
            y: y + dy,
            w: *w,
            h: *h,
            label: label.clone(),
            title: title.clone(),
            root: *root,
        },
        Item::Edge { points } => Item::Edge {
            points: points
                .iter()
                .map(|p| Point {
                    x: p.x + dx,
                    y: p.y + dy,
                })
                .collect(),
        },
    }
}
