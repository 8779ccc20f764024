//! The cost model and extraction of `simplify`. A node costs the bytes it
//! moves (operands read + result written) plus its flops; reshapes and
//! copies of default-layout arrays are nearly free (they are bitcasts).
//! Extraction is DAG-aware: a greedy bottom-up pass keeps, per e-class, the
//! set of classes its best term needs, so a shared subterm counts once;
//! the result is compared with egg's tree extractor and with any other
//! candidate by exact DAG cost, and a choice containing a cycle is never
//! returned. No rewriting here.

use crate::simplify::analysis::{HloGraph, Sh, shape_of};
use crate::simplify::lang::Hlo;
use egg::{CostFunction, Extractor, Id, Language};
use std::collections::{HashMap, HashSet};

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
        Hlo::Reshape(_) | Hlo::Copy(_) => 1.0 + 0.01 * out_bytes,
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
    // 0 = unvisited, 1 = on stack, 2 = done
    let mut state: HashMap<Id, u8> = HashMap::new();
    let mut total = 0.0;
    for &r in roots {
        let r = eg.find(r);
        let mut stack: Vec<(Id, bool)> = vec![(r, false)];
        while let Some((c, expanded)) = stack.pop() {
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

/// A class's best term so far: total cost, the (class, cost) set it
/// needs (sorted by class), and its node.
type Best = (f64, Vec<(Id, f64)>, Hlo);

/// Greedy DAG-aware extraction (each class's best term is priced as the
/// union of the classes it needs).
pub fn greedy_dag(eg: &HloGraph, model: &CostModel) -> Choice {
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
    while let Some((class, node)) = queue.pop() {
        steps += 1;
        if steps > limit {
            break;
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

struct TreeCost<'a> {
    eg: &'a HloGraph,
    model: &'a CostModel,
}

impl CostFunction<Hlo> for TreeCost<'_> {
    type Cost = f64;
    fn cost<C>(&mut self, enode: &Hlo, mut costs: C) -> f64
    where
        C: FnMut(Id) -> f64,
    {
        // The class of an enode is not passed in; look it up (all children
        // are canonical during extraction).
        let class = self
            .eg
            .lookup(enode.clone())
            .unwrap_or_else(|| Id::from(0usize));
        let own = self.model.node_cost(self.eg, class, enode).max(0.0) + 1e-6;
        enode.children().iter().fold(own, |acc, &c| acc + costs(c))
    }
}

/// egg's tree extractor (shared subterms counted per use) as a choice.
pub fn tree(eg: &HloGraph, model: &CostModel) -> Choice {
    let ex = Extractor::new(eg, TreeCost { eg, model });
    eg.classes()
        .map(|c| (c.id, ex.find_best_node(c.id).clone()))
        .collect()
}

/// The best acyclic choice for `roots` among the greedy DAG and tree
/// extractions, with its DAG cost.
pub fn extract(eg: &HloGraph, model: &CostModel, roots: &[Id]) -> Option<(Choice, f64)> {
    let mut best: Option<(Choice, f64)> = None;
    for choice in [greedy_dag(eg, model), tree(eg, model)] {
        if let Some(c) = dag_cost(eg, model, &choice, roots)
            && best.as_ref().is_none_or(|(_, b)| c < *b)
        {
            best = Some((choice, c));
        }
    }
    best
}
