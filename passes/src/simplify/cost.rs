//! The cost model and extraction of `simplify`. A node costs the bytes it
//! moves (operands read + result written) plus its flops; reshapes and
//! copies are nearly free (a copy is a logical identity: the copies that
//! change a layout are priced on the instructions by
//! `raise::relayout_cost`), and so are tuples and `get-tuple-element`.
//! Extraction is DAG-aware: a greedy bottom-up pass keeps, per e-class, the
//! set of classes its best term needs, so a shared subterm counts once;
//! the result is compared with a tree extractor (every use of a subterm
//! counted; Knuth's generalization of Dijkstra, O(E log V), so a chain of
//! a million classes is extracted in linear-ish time) and with any other
//! candidate by exact DAG cost, and a choice containing a cycle is never
//! returned. Every phase checks a [`Deadline`] and gives up (returns
//! nothing) once it has passed, so extraction time is bounded whatever the
//! e-graph. No rewriting here.

use crate::simplify::analysis::{HloGraph, Sh, shape_of};
use crate::simplify::lang::Hlo;
use egg::{Id, Language};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::time::Instant;

/// A point in time after which extraction gives up. Checked every
/// [`Deadline::EVERY`] steps of each loop (reading the clock costs ~20 ns).
#[derive(Clone, Copy, Debug)]
pub struct Deadline(pub Option<Instant>);

impl Deadline {
    const EVERY: usize = 1024;

    /// No deadline.
    pub fn none() -> Deadline {
        Deadline(None)
    }

    /// Whether the deadline has passed (reads the clock).
    pub fn passed(&self) -> bool {
        self.0.is_some_and(|d| Instant::now() >= d)
    }

    /// Whether the deadline has passed, reading the clock only every
    /// [`Deadline::EVERY`] values of `step`.
    pub fn passed_at(&self, step: usize) -> bool {
        step.is_multiple_of(Self::EVERY) && self.passed()
    }
}

/// The chosen node of each needed e-class (canonical ids).
pub type Choice = HashMap<Id, Hlo>;

/// How to price nodes. `penalized` nodes (canonical form) cost extra: the
/// rule tests use it to prefer what a rule added over the original.
#[derive(Default)]
pub struct CostModel {
    pub penalized: HashSet<Hlo>,
}

impl CostModel {
    /// The cost of `node` in class `class` (children not included).
    pub fn node_cost(&self, eg: &HloGraph, class: Id, node: &Hlo) -> f64 {
        let base = base_cost(eg, class, node);
        if !self.penalized.is_empty()
            && !node.is_leaf()
            && !matches!(node, Hlo::Opaque(..))
            && self.penalized.contains(node)
        {
            base + 1e12
        } else {
            base
        }
    }
}

/// The node cost of a tuple or `get-tuple-element`.
pub const TUPLE_NODE_COST: f64 = 1.0;

/// The node cost of a copy (or reshape) writing `bytes`.
pub fn copy_node_cost(bytes: f64) -> f64 {
    1.0 + 0.01 * bytes
}

fn bytes(eg: &HloGraph, id: Id) -> f64 {
    shape_of(eg, id).map(Sh::bytes).unwrap_or(0.0)
}

fn base_cost(eg: &HloGraph, class: Id, node: &Hlo) -> f64 {
    let out = shape_of(eg, class);
    let out_bytes = out.map(Sh::bytes).unwrap_or(0.0);
    let out_elems = out.map(Sh::elements).unwrap_or(0.0);
    let read: f64 = node.children().iter().map(|&c| bytes(eg, c)).sum();
    match node {
        Hlo::Attr(_) => 0.0,
        Hlo::Const(c) => 1.0 + c.bytes.len() as f64,
        Hlo::Opaque(..) => 1.0 + out_bytes,
        // Tuples and their elements alias buffers: nothing moves.
        Hlo::Tuple(_) | Hlo::Gte(_) => TUPLE_NODE_COST,
        Hlo::Reshape(_) | Hlo::Copy(_) => copy_node_cost(out_bytes),
        Hlo::Broadcast(_) | Hlo::Slice(_) | Hlo::Reverse(_) | Hlo::Pad(_) => {
            2.0 + out_bytes + 0.5 * read
        }
        Hlo::Transpose(_) | Hlo::Concatenate(_) => 2.0 + out_bytes + read,
        Hlo::Dot([_, a, _]) => {
            let contract: f64 = match (shape_of(eg, *a), out) {
                (Some(sa), Some(_)) => {
                    // flops = 2 * out elements * contracted size; the
                    // contracted size is |a| / (batch * a-free) which we
                    // bound by |a| elements / out elements when positive.
                    sa.elements()
                }
                _ => 0.0,
            };
            2.0 + out_bytes + read + 2.0 * contract.max(out_elems)
        }
        Hlo::Reduce([_, x, _]) => {
            2.0 + out_bytes + read + shape_of(eg, *x).map(Sh::elements).unwrap_or(0.0)
        }
        _ => 2.0 + out_bytes + read + out_elems,
    }
}

/// Exact DAG cost of `choice` from `roots` (each class counted once);
/// `None` when a needed class has no choice or the choice has a cycle.
pub fn dag_cost(eg: &HloGraph, model: &CostModel, choice: &Choice, roots: &[Id]) -> Option<f64> {
    dag_cost_until(eg, model, choice, roots, Deadline::none())
}

/// [`dag_cost`], `None` also when `deadline` passes.
pub fn dag_cost_until(
    eg: &HloGraph,
    model: &CostModel,
    choice: &Choice,
    roots: &[Id],
    deadline: Deadline,
) -> Option<f64> {
    // 0 = unvisited, 1 = on stack, 2 = done
    let mut state: HashMap<Id, u8> = HashMap::new();
    let mut total = 0.0;
    let mut steps = 0usize;
    for &r in roots {
        let r = eg.find(r);
        let mut stack: Vec<(Id, bool)> = vec![(r, false)];
        while let Some((c, expanded)) = stack.pop() {
            steps += 1;
            if deadline.passed_at(steps) {
                return None;
            }
            if expanded {
                state.insert(c, 2);
                continue;
            }
            match state.get(&c) {
                Some(2) => continue,
                Some(1) => return None,
                _ => {}
            }
            let node = choice.get(&c)?;
            state.insert(c, 1);
            total += model.node_cost(eg, c, node);
            stack.push((c, true));
            for &ch in node.children() {
                let ch = eg.find(ch);
                match state.get(&ch) {
                    Some(2) => {}
                    Some(1) => return None,
                    _ => stack.push((ch, false)),
                }
            }
        }
    }
    Some(total)
}

/// Work bound of [`greedy_dag`] (set entries built).
const MAX_SET_ENTRIES: usize = 30_000_000;

/// A class's best term so far: total cost, the (class, cost) set it
/// needs (sorted by class), and its node.
type Best = (f64, Vec<(Id, f64)>, Hlo);

/// Greedy DAG-aware extraction (each class's best term is priced as the
/// union of the classes it needs). Empty when it gives up (work bound or
/// `deadline`).
pub fn greedy_dag(eg: &HloGraph, model: &CostModel, deadline: Deadline) -> Choice {
    // Per class: sorted (class, cost) list of its best term and the node.
    let mut best: HashMap<Id, Best> = HashMap::new();
    let mut parents: HashMap<Id, Vec<(Id, Hlo)>> = HashMap::new();
    let mut queue: Vec<(Id, Hlo)> = Vec::new();
    for class in eg.classes() {
        for node in &class.nodes {
            if node.children().is_empty() {
                queue.push((class.id, node.clone()));
            }
            for &ch in node.children() {
                parents
                    .entry(eg.find(ch))
                    .or_default()
                    .push((class.id, node.clone()));
            }
        }
    }
    let mut steps = 0usize;
    let limit = 50 * eg.total_number_of_nodes() + 1000;
    // Cost sets grow with the depth of the program (quadratic on long
    // chains): past this many entries built, give up (the tree extractor
    // is the fallback).
    let mut entries = 0usize;
    while let Some((class, node)) = queue.pop() {
        steps += 1;
        if steps > limit || entries > MAX_SET_ENTRIES || deadline.passed_at(steps) {
            return Choice::new();
        }
        let mut set: Vec<(Id, f64)> = Vec::new();
        let mut ok = true;
        for &ch in node.children() {
            match best.get(&eg.find(ch)) {
                Some((_, s, _)) => set = union(&set, s),
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if !ok || set.binary_search_by_key(&class, |e| e.0).is_ok() {
            continue;
        }
        let own = model.node_cost(eg, class, &node);
        set = union(&set, &[(class, own)]);
        entries += set.len();
        let total: f64 = set.iter().map(|e| e.1).sum();
        let better = best.get(&class).is_none_or(|(t, _, _)| total < *t - 1e-9);
        if better {
            best.insert(class, (total, set, node));
            if let Some(ps) = parents.get(&class) {
                queue.extend(ps.iter().cloned());
            }
        }
    }
    best.into_iter().map(|(c, (_, _, n))| (c, n)).collect()
}

fn union(a: &[(Id, f64)], b: &[(Id, f64)]) -> Vec<(Id, f64)> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// A cost that orders totally (`f64::total_cmp`) for the heap.
#[derive(Clone, Copy, PartialEq)]
struct Cost(f64);

impl Eq for Cost {}

impl PartialOrd for Cost {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Cost {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Tree extraction (shared subterms counted per use): the cheapest term
/// of every class whose terms are finite, by Knuth's generalization of
/// Dijkstra's algorithm. A node's cost is its own cost (at least 1e-6)
/// plus its children's, so it is never below a child's: classes are
/// finalized cheapest first, each node is priced once, when its last child
/// class is finalized, and the whole run is O(E log V) — egg's `Extractor`
/// iterates to a fixpoint over all classes, which is quadratic on a chain.
/// Ties go to the earlier node of a class (egg's choice too). The choice
/// is acyclic: a class's node only uses classes finalized before it.
/// `None` when `deadline` passes.
pub fn tree(eg: &HloGraph, model: &CostModel, deadline: Deadline) -> Option<Choice> {
    let classes: Vec<&egg::EClass<Hlo, _>> = eg.classes().collect();
    let index: HashMap<Id, usize> = classes.iter().enumerate().map(|(i, c)| (c.id, i)).collect();
    // Nodes as (class index, position in the class); per node the number
    // of distinct child classes not yet finalized; per class the nodes
    // that wait for it.
    let mut nodes: Vec<(usize, usize)> = Vec::new();
    let mut pending: Vec<u32> = Vec::new();
    let mut waiting: Vec<Vec<u32>> = vec![Vec::new(); classes.len()];
    let mut heap: BinaryHeap<Reverse<(Cost, usize, usize)>> = BinaryHeap::new();
    let mut best: Vec<Option<(f64, usize)>> = vec![None; classes.len()];
    let mut steps = 0usize;
    let price = |ci: usize, pos: usize, best: &[Option<(f64, usize)>]| -> f64 {
        let class = classes[ci];
        let node = &class.nodes[pos];
        let own = model.node_cost(eg, class.id, node).max(0.0) + 1e-6;
        node.children().iter().fold(own, |acc, &c| {
            acc + index
                .get(&eg.find(c))
                .and_then(|&k| best[k])
                .map_or(f64::INFINITY, |b| b.0)
        })
    };
    for (ci, class) in classes.iter().enumerate() {
        for (pos, node) in class.nodes.iter().enumerate() {
            steps += 1;
            if deadline.passed_at(steps) {
                return None;
            }
            let mut kids: Vec<usize> = node
                .children()
                .iter()
                .filter_map(|&c| index.get(&eg.find(c)).copied())
                .collect();
            kids.sort_unstable();
            kids.dedup();
            let n = nodes.len() as u32;
            nodes.push((ci, pos));
            pending.push(kids.len() as u32);
            if kids.is_empty() {
                heap.push(Reverse((Cost(price(ci, pos, &best)), ci, pos)));
            }
            for k in kids {
                waiting[k].push(n);
            }
        }
    }
    while let Some(Reverse((Cost(cost), ci, pos))) = heap.pop() {
        steps += 1;
        if deadline.passed_at(steps) {
            return None;
        }
        if best[ci].is_some() {
            continue;
        }
        best[ci] = Some((cost, pos));
        for &n in &waiting[ci] {
            let n = n as usize;
            pending[n] -= 1;
            if pending[n] == 0 {
                let (nc, npos) = nodes[n];
                if best[nc].is_none() {
                    heap.push(Reverse((Cost(price(nc, npos, &best)), nc, npos)));
                }
            }
        }
    }
    Some(
        classes
            .iter()
            .zip(&best)
            .filter_map(|(c, b)| b.map(|(_, pos)| (c.id, c.nodes[pos].clone())))
            .collect(),
    )
}

/// Bound on whole-program cost evaluations in [`improve`].
const MAX_TRIALS: usize = 4000;

/// Local search on top of a choice: switch one class at a time to another
/// of its nodes when that lowers the exact DAG cost from `roots` (this is
/// what sees sharing between siblings, which the bottom-up greedy pass
/// cannot). Cycles are rejected by [`dag_cost`].
pub fn improve(
    eg: &HloGraph,
    model: &CostModel,
    choice: &mut Choice,
    roots: &[Id],
    mut best: f64,
    deadline: Deadline,
) -> f64 {
    let mut trials = 0;
    for _round in 0..3 {
        let mut improved = false;
        let mut classes: Vec<Id> = reachable(eg, choice, roots)
            .into_iter()
            .filter(|&c| eg[c].nodes.len() > 1)
            .collect();
        classes.sort();
        for c in classes {
            for node in &eg[c].nodes {
                if trials >= MAX_TRIALS || deadline.passed() {
                    return best;
                }
                if choice.get(&c) == Some(node)
                    || node
                        .children()
                        .iter()
                        .any(|ch| !choice.contains_key(&eg.find(*ch)))
                {
                    continue;
                }
                trials += 1;
                let old = choice.insert(c, node.clone());
                match dag_cost_until(eg, model, choice, roots, deadline) {
                    Some(k) if k < best - 1e-9 => {
                        best = k;
                        improved = true;
                    }
                    _ => {
                        if let Some(o) = old {
                            choice.insert(c, o);
                        }
                    }
                }
            }
        }
        if !improved {
            break;
        }
    }
    best
}

/// Classes reachable from `roots` through `choice`.
fn reachable(eg: &HloGraph, choice: &Choice, roots: &[Id]) -> Vec<Id> {
    let mut seen = std::collections::HashSet::new();
    let mut stack: Vec<Id> = roots.iter().map(|&r| eg.find(r)).collect();
    let mut out = Vec::new();
    while let Some(c) = stack.pop() {
        if !seen.insert(c) {
            continue;
        }
        out.push(c);
        if let Some(n) = choice.get(&c) {
            stack.extend(n.children().iter().map(|&ch| eg.find(ch)));
        }
    }
    out
}

/// The best acyclic choice for `roots` among the greedy DAG and tree
/// extractions, improved by local search, with its DAG cost. `None` when
/// no acyclic choice was found before `deadline` (the local search stops
/// at the deadline and keeps what it has).
pub fn extract(
    eg: &HloGraph,
    model: &CostModel,
    roots: &[Id],
    deadline: Deadline,
) -> Option<(Choice, f64)> {
    let mut best: Option<(Choice, f64)> = None;
    let tree_choice = tree(eg, model, deadline)?;
    for choice in [greedy_dag(eg, model, deadline), tree_choice] {
        if let Some(c) = dag_cost_until(eg, model, &choice, roots, deadline)
            && best.as_ref().is_none_or(|(_, b)| c < *b)
        {
            best = Some((choice, c));
        }
    }
    if deadline.passed() {
        return None;
    }
    let (mut choice, cost) = best?;
    let cost = improve(eg, model, &mut choice, roots, cost, deadline);
    Some((choice, cost))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simplify::analysis::{HloAnalysis, Sh};
    use egg::{EGraph, Symbol};
    use rxla_ir::ElementType;

    /// root = add(A, B) with B = abs(S), S = exp(sin(p)) shared, and A
    /// either negate(S) or tanh(sqrt(p)). Counting S once (DAG), negate(S)
    /// is cheaper; counting it per use (tree), tanh(sqrt(p)) looks cheaper.
    #[test]
    fn extraction_counts_shared_subterms_once() {
        let mut eg: HloGraph = EGraph::new(HloAnalysis::default());
        let name = Symbol::from("p");
        eg.analysis.opaque_shapes.insert(
            name,
            crate::simplify::analysis::Ty::Array(Sh::new(ElementType::F32, vec![1000])),
        );
        let p = eg.add(Hlo::Opaque(name, vec![]));
        let sin = eg.add(Hlo::Sin([p]));
        let s = eg.add(Hlo::Exp([sin]));
        let b = eg.add(Hlo::Abs([s]));
        let a1 = eg.add(Hlo::Negate([s]));
        let sq = eg.add(Hlo::Sqrt([p]));
        let a2 = eg.add(Hlo::Tanh([sq]));
        eg.union(a1, a2);
        eg.rebuild();
        let root = eg.add(Hlo::Add([a1, b]));
        eg.rebuild();
        let model = CostModel::default();
        let (choice, cost) = extract(&eg, &model, &[root], Deadline::none()).unwrap();
        assert!(
            matches!(choice[&eg.find(a1)], Hlo::Negate(_)),
            "{:?}",
            choice[&eg.find(a1)]
        );
        // The DAG cost counts p, sin, exp, abs, negate and add once each.
        let each = 2.0 + 4000.0 + 4000.0 + 1000.0;
        let want = (1.0 + 4000.0) + 4.0 * each + (2.0 + 4000.0 + 8000.0 + 1000.0);
        assert!((cost - want).abs() < 1e-6, "{cost} vs {want}");
        // The tree extractor alone picks the unshared alternative.
        let t = tree(&eg, &model, Deadline::none()).unwrap();
        assert!(
            matches!(t[&eg.find(a1)], Hlo::Tanh(_)),
            "{:?}",
            t[&eg.find(a1)]
        );
    }
}
