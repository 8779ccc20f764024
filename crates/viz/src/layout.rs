//! A layered (Sugiyama-style) layout of a directed graph of boxes, in
//! four steps, each near-linear in nodes + edges:
//!
//! 1. layering by longest path from the sources (a source is then pulled
//!    down to just above its first user, which shortens its edges);
//! 2. dummy nodes on edges that span several layers (capped by
//!    [`Options::max_dummies`]: beyond the cap the longest edges are drawn
//!    as one direct curve and take no part in ordering);
//! 3. crossing reduction by [`Options::sweeps`] alternating barycenter
//!    sweeps (down, up, ...);
//! 4. coordinates: each layer is placed by isotonic regression (pool
//!    adjacent violators) towards its neighbours' mean x, keeping the order
//!    and a gap between boxes, so boxes of one layer never overlap.
//!
//! Pure geometry: it knows nothing of HLO and draws nothing. Bad input
//! (edges to missing nodes, self loops, cycles) never panics: such edges
//! are dropped or drawn as direct curves.

/// A point (SVG user units, y grows downwards).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// An edge. Ports are x offsets from the box centre where the edge leaves
/// the source's bottom side and enters the target's top side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub from_port: f64,
    pub to_port: f64,
}

impl Edge {
    /// An edge between box centres.
    pub fn new(from: usize, to: usize) -> Edge {
        Edge {
            from,
            to,
            from_port: 0.0,
            to_port: 0.0,
        }
    }
}

/// The graph to lay out: box sizes (width, height) and edges.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub sizes: Vec<(f64, f64)>,
    pub edges: Vec<Edge>,
    /// Sources that stay in the top layer (not pulled down to their
    /// users); missing entries mean false.
    pub pin_top: Vec<bool>,
}

/// Layout parameters.
#[derive(Clone, Debug)]
pub struct Options {
    /// Horizontal space between boxes of a layer.
    pub node_gap: f64,
    /// Vertical space between layers.
    pub layer_gap: f64,
    /// Width reserved for an edge passing through a layer.
    pub dummy_width: f64,
    /// Barycenter sweeps (halved above 50k layout nodes, at least 2).
    pub sweeps: usize,
    /// Most dummy nodes in total (keeps huge graphs near-linear).
    pub max_dummies: usize,
    /// Empty border around the drawing.
    pub margin: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            node_gap: 24.0,
            layer_gap: 36.0,
            dummy_width: 8.0,
            sweeps: 8,
            max_dummies: 200_000,
            margin: 12.0,
        }
    }
}

/// The result: box centres, layers, per-layer order and edge polylines.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// Centre of every box.
    pub centers: Vec<Point>,
    /// Layer of every box (0 = top).
    pub layers: Vec<usize>,
    /// The boxes of each layer, left to right (dummies left out).
    pub order: Vec<Vec<usize>>,
    /// One polyline per input edge (same index), from the source's bottom
    /// to the target's top; empty for a dropped edge.
    pub edges: Vec<Vec<Point>>,
    pub width: f64,
    pub height: f64,
}

/// Lays out `g`.
pub fn layout(g: &Graph, opts: &Options) -> Layout {
    let n = g.sizes.len();
    let valid = |e: &Edge| e.from < n && e.to < n && e.from != e.to;
    // Topological order (Kahn, lowest index first); nodes on cycles follow
    // in index order and their backward edges become direct curves.
    let mut indeg = vec![0usize; n];
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in g.edges.iter().filter(|e| valid(e)) {
        indeg[e.to] += 1;
        succ[e.from].push(e.to);
    }
    let mut topo = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack: Vec<usize> = (0..n).rev().filter(|&v| indeg[v] == 0).collect();
    while let Some(v) = stack.pop() {
        seen[v] = true;
        topo.push(v);
        for &w in succ[v].iter().rev() {
            indeg[w] -= 1;
            if indeg[w] == 0 {
                stack.push(w);
            }
        }
    }
    topo.extend((0..n).filter(|&v| !seen[v]));
    let mut rank = vec![0usize; n];
    for (i, &v) in topo.iter().enumerate() {
        rank[v] = i;
    }
    let forward = |e: &Edge| valid(e) && rank[e.from] < rank[e.to];

    // 1. Longest-path layering, then sources pulled down.
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in g.edges.iter().filter(|e| forward(e)) {
        preds[e.to].push(e.from);
        succs[e.from].push(e.to);
    }
    let mut layer = vec![0usize; n];
    for &v in &topo {
        layer[v] = preds[v].iter().map(|&u| layer[u] + 1).max().unwrap_or(0);
    }
    for &v in topo.iter().rev() {
        if preds[v].is_empty()
            && !g.pin_top.get(v).copied().unwrap_or(false)
            && let Some(m) = succs[v].iter().map(|&w| layer[w]).min()
        {
            layer[v] = m.saturating_sub(1);
        }
    }
    let nlayers = layer.iter().max().map_or(0, |m| m + 1);

    // 2. Dummy chains, shortest edges first until the budget is spent.
    let mut by_span: Vec<usize> = (0..g.edges.len())
        .filter(|&i| forward(&g.edges[i]))
        .collect();
    by_span.sort_by_key(|&i| (layer[g.edges[i].to] - layer[g.edges[i].from], i));
    let mut chains: Vec<Option<Vec<usize>>> = vec![None; g.edges.len()];
    let mut node_layer = layer.clone();
    let mut width: Vec<f64> = g.sizes.iter().map(|s| s.0.max(0.0)).collect();
    let mut dummies = 0usize;
    for &i in &by_span {
        let e = g.edges[i];
        let span = layer[e.to] - layer[e.from];
        if span > 1 && dummies + span - 1 > opts.max_dummies {
            continue;
        }
        let mut chain = vec![e.from];
        for l in layer[e.from] + 1..layer[e.to] {
            chain.push(node_layer.len());
            node_layer.push(l);
            width.push(opts.dummy_width);
            dummies += 1;
        }
        chain.push(e.to);
        chains[i] = Some(chain);
    }
    let total = node_layer.len();
    let mut up: Vec<Vec<usize>> = vec![Vec::new(); total];
    let mut down: Vec<Vec<usize>> = vec![Vec::new(); total];
    for chain in chains.iter().flatten() {
        for w in chain.windows(2) {
            down[w[0]].push(w[1]);
            up[w[1]].push(w[0]);
        }
    }

    // 3. Crossing reduction.
    let mut layers: Vec<Vec<usize>> = vec![Vec::new(); nlayers];
    for &v in &topo {
        layers[layer[v]].push(v);
    }
    for (d, &l) in node_layer.iter().enumerate().skip(n) {
        layers[l].push(d);
    }
    let mut pos = vec![0usize; total];
    let renumber = |layers: &[Vec<usize>], pos: &mut Vec<usize>| {
        for l in layers {
            for (i, &v) in l.iter().enumerate() {
                pos[v] = i;
            }
        }
    };
    renumber(&layers, &mut pos);
    let sweeps = if total > 50_000 {
        (opts.sweeps / 2).max(2)
    } else {
        opts.sweeps
    };
    for s in 0..sweeps {
        let downward = s % 2 == 0;
        let order: Vec<usize> = if downward {
            (1..nlayers).collect()
        } else {
            (0..nlayers.saturating_sub(1)).rev().collect()
        };
        for l in order {
            let nb = if downward { &up } else { &down };
            let mut keyed: Vec<(f64, usize, usize)> = layers[l]
                .iter()
                .enumerate()
                .map(|(i, &v)| {
                    let ns = &nb[v];
                    let key = if ns.is_empty() {
                        i as f64
                    } else {
                        ns.iter().map(|&u| pos[u] as f64).sum::<f64>() / ns.len() as f64
                    };
                    (key, i, v)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            layers[l] = keyed.into_iter().map(|k| k.2).collect();
            for (i, &v) in layers[l].iter().enumerate() {
                pos[v] = i;
            }
        }
    }

    // 4. Coordinates.
    let mut x = vec![0.0f64; total];
    let gap = |a: usize, b: usize| {
        let g = if a >= n && b >= n {
            opts.dummy_width / 2.0
        } else {
            opts.node_gap
        };
        (width[a] + width[b]) / 2.0 + g
    };
    for l in &layers {
        let mut cur = 0.0;
        for (i, &v) in l.iter().enumerate() {
            if i > 0 {
                cur += gap(l[i - 1], v);
            }
            x[v] = cur;
        }
    }
    for round in 0..6 {
        let downward = round % 2 == 0;
        let both = round == 5;
        let order: Vec<usize> = if downward {
            (0..nlayers).collect()
        } else {
            (0..nlayers).rev().collect()
        };
        for l in order {
            let want: Vec<(f64, f64)> = layers[l]
                .iter()
                .map(|&v| {
                    let mut sum = 0.0;
                    let mut cnt = 0usize;
                    let lists: [&Vec<usize>; 2] = if both {
                        [&up[v], &down[v]]
                    } else if downward {
                        [&up[v], &EMPTY]
                    } else {
                        [&down[v], &EMPTY]
                    };
                    for list in lists {
                        for &u in list {
                            sum += x[u];
                            cnt += 1;
                        }
                    }
                    // Dummies pull harder: long edges stay straight.
                    let w = if v >= n { 2.0 } else { 1.0 };
                    if cnt == 0 {
                        (x[v], 0.25)
                    } else {
                        (sum / cnt as f64, w)
                    }
                })
                .collect();
            let seps: Vec<f64> = layers[l].windows(2).map(|p| gap(p[0], p[1])).collect();
            let placed = place(&want, &seps);
            for (&v, p) in layers[l].iter().zip(placed) {
                x[v] = p;
            }
        }
    }
    let left = (0..total)
        .map(|v| x[v] - width[v] / 2.0)
        .fold(f64::INFINITY, f64::min);
    let shift = if left.is_finite() {
        opts.margin - left
    } else {
        0.0
    };
    for v in x.iter_mut() {
        *v += shift;
    }
    let mut heights = vec![0.0f64; nlayers];
    for v in 0..n {
        heights[layer[v]] = heights[layer[v]].max(g.sizes[v].1.max(0.0));
    }
    let mut tops = Vec::with_capacity(nlayers);
    let mut y = opts.margin;
    for h in &heights {
        tops.push(y);
        y += h + opts.layer_gap;
    }
    let height = if nlayers == 0 {
        2.0 * opts.margin
    } else {
        y - opts.layer_gap + opts.margin
    };
    let centers: Vec<Point> = (0..n)
        .map(|v| Point {
            x: x[v],
            y: tops[layer[v]] + heights[layer[v]] / 2.0,
        })
        .collect();
    let widthmax = (0..total)
        .map(|v| x[v] + width[v] / 2.0)
        .fold(0.0, f64::max)
        + opts.margin;

    // Edge polylines.
    let bottom = |v: usize, port: f64| Point {
        x: centers[v].x + port,
        y: centers[v].y + g.sizes[v].1 / 2.0,
    };
    let top = |v: usize, port: f64| Point {
        x: centers[v].x + port,
        y: centers[v].y - g.sizes[v].1 / 2.0,
    };
    let edges = g
        .edges
        .iter()
        .zip(&chains)
        .map(|(e, chain)| {
            if !valid(e) {
                return Vec::new();
            }
            let mut pts = vec![bottom(e.from, e.from_port)];
            if let Some(chain) = chain {
                for &d in &chain[1..chain.len() - 1] {
                    let l = node_layer[d];
                    pts.push(Point {
                        x: x[d],
                        y: tops[l],
                    });
                    pts.push(Point {
                        x: x[d],
                        y: tops[l] + heights[l],
                    });
                }
            }
            pts.push(top(e.to, e.to_port));
            pts
        })
        .collect();
    let order = layers
        .into_iter()
        .map(|l| l.into_iter().filter(|&v| v < n).collect())
        .collect();
    Layout {
        centers,
        layers: layer,
        order,
        edges,
        width: widthmax.max(2.0 * opts.margin),
        height,
    }
}

static EMPTY: Vec<usize> = Vec::new();

/// Positions closest (weighted least squares) to `want[i].0` with
/// `x[i+1] - x[i] >= seps[i]`: isotonic regression on `x[i] - offset[i]`
/// by pooling adjacent violators. Linear time.
fn place(want: &[(f64, f64)], seps: &[f64]) -> Vec<f64> {
    let mut offset = Vec::with_capacity(want.len());
    let mut acc = 0.0;
    for i in 0..want.len() {
        if i > 0 {
            acc += seps[i - 1];
        }
        offset.push(acc);
    }
    // Blocks: (weighted sum, weight, count).
    let mut blocks: Vec<(f64, f64, usize)> = Vec::with_capacity(want.len());
    for (i, &(w, wt)) in want.iter().enumerate() {
        let wt = wt.max(1e-9);
        blocks.push(((w - offset[i]) * wt, wt, 1));
        while blocks.len() > 1 {
            let (s1, w1, c1) = blocks[blocks.len() - 2];
            let (s2, w2, c2) = blocks[blocks.len() - 1];
            if s1 / w1 <= s2 / w2 {
                break;
            }
            blocks.pop();
            let last = blocks.len() - 1;
            blocks[last] = (s1 + s2, w1 + w2, c1 + c2);
        }
    }
    let mut out = Vec::with_capacity(want.len());
    for (s, w, c) in blocks {
        for _ in 0..c {
            let i = out.len();
            out.push(s / w + offset[i]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn place_keeps_order_and_gaps() {
        let p = place(&[(10.0, 1.0), (0.0, 1.0), (5.0, 1.0)], &[4.0, 4.0]);
        assert!(p[1] - p[0] >= 4.0 - 1e-9 && p[2] - p[1] >= 4.0 - 1e-9);
        // Unconstrained targets are hit exactly.
        let q = place(&[(0.0, 1.0), (100.0, 1.0)], &[10.0]);
        assert_eq!(q, vec![0.0, 100.0]);
    }

    #[test]
    fn a_chain_is_vertical_and_layers_follow_edges() {
        let g = Graph {
            sizes: vec![(40.0, 20.0); 3],
            edges: vec![Edge::new(0, 1), Edge::new(1, 2)],
            ..Graph::default()
        };
        let l = layout(&g, &Options::default());
        assert_eq!(l.layers, vec![0, 1, 2]);
        assert_eq!(l.centers[0].x, l.centers[2].x);
        assert!(l.centers[0].y < l.centers[1].y && l.centers[1].y < l.centers[2].y);
    }

    #[test]
    fn sources_are_pulled_down_unless_pinned() {
        // 0 -> 1 -> 2 and 3 -> 2: source 3 sits just above 2.
        let mut g = Graph {
            sizes: vec![(40.0, 20.0); 4],
            edges: vec![Edge::new(0, 1), Edge::new(1, 2), Edge::new(3, 2)],
            ..Graph::default()
        };
        assert_eq!(layout(&g, &Options::default()).layers, vec![0, 1, 2, 1]);
        g.pin_top = vec![false, false, false, true];
        assert_eq!(layout(&g, &Options::default()).layers, vec![0, 1, 2, 0]);
    }

    /// Random DAGs with random box sizes: edges point down a layer or
    /// more, boxes of a layer keep their gap, polylines run from the
    /// source's bottom to the target's top, and the result is stable.
    #[test]
    fn random_dags_keep_the_invariants() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut rand = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for round in 0..40 {
            let n = 1 + rand(120);
            let sizes: Vec<(f64, f64)> = (0..n)
                .map(|_| (20.0 + rand(200) as f64, 20.0 + rand(90) as f64))
                .collect();
            let mut edges = Vec::new();
            for v in 1..n {
                for _ in 0..rand(4) {
                    edges.push(Edge::new(rand(v), v));
                }
            }
            let g = Graph {
                sizes: sizes.clone(),
                edges: edges.clone(),
                ..Graph::default()
            };
            let opts = Options {
                max_dummies: if round % 2 == 0 { 50 } else { 200_000 },
                ..Options::default()
            };
            let l = layout(&g, &opts);
            for e in &edges {
                assert!(l.layers[e.to] > l.layers[e.from], "round {round}");
            }
            for layer in &l.order {
                for w in layer.windows(2) {
                    let (a, b) = (w[0], w[1]);
                    let gap = l.centers[b].x - l.centers[a].x - (sizes[a].0 + sizes[b].0) / 2.0;
                    assert!(gap >= opts.node_gap - 1e-6, "round {round}: gap {gap}");
                }
            }
            assert_eq!(l.order.iter().map(Vec::len).sum::<usize>(), n);
            for (e, pts) in edges.iter().zip(&l.edges) {
                let (first, last) = (pts[0], pts[pts.len() - 1]);
                assert_eq!(first.y, l.centers[e.from].y + sizes[e.from].1 / 2.0);
                assert_eq!(last.y, l.centers[e.to].y - sizes[e.to].1 / 2.0);
                assert!(pts.windows(2).all(|p| p[1].y >= p[0].y), "round {round}");
            }
            for (c, s) in l.centers.iter().zip(&sizes) {
                assert!(c.x - s.0 / 2.0 >= opts.margin - 1e-6);
                assert!(c.x + s.0 / 2.0 <= l.width + 1e-6);
                assert!(c.y + s.1 / 2.0 <= l.height + 1e-6);
            }
            let again = layout(&g, &opts);
            assert_eq!(again.centers, l.centers);
            assert_eq!(again.edges, l.edges);
        }
    }

    #[test]
    fn bad_edges_and_cycles_do_not_panic() {
        let g = Graph {
            sizes: vec![(10.0, 10.0); 2],
            edges: vec![
                Edge::new(0, 1),
                Edge::new(1, 0),
                Edge::new(0, 7),
                Edge::new(1, 1),
            ],
            ..Graph::default()
        };
        let l = layout(&g, &Options::default());
        assert_eq!(l.edges.len(), 4);
        assert!(l.edges[2].is_empty() && l.edges[3].is_empty());
        assert_eq!(l.edges[1].len(), 2);
        let empty = layout(&Graph::default(), &Options::default());
        assert!(empty.centers.is_empty());
    }
}
