//! Graph views of the IR built with petgraph: the instruction dependency
//! graph of a computation (topological order, cycle detection, DOT export)
//! and the module's call graph (callees-first order, recursion detection).
//! Read-only: nothing here mutates the IR.

use crate::error::{IrError, Result};
use crate::module::{Computation, Module};
use crate::ops::{CompId, InstrId};
use petgraph::algo::toposort;
use petgraph::graphmap::DiGraphMap;
use std::fmt::Write as _;

/// The dependency graph: an edge operand → user per use.
pub fn dependency_graph(c: &Computation) -> DiGraphMap<u32, ()> {
    let mut g = DiGraphMap::new();
    for id in c.ids() {
        g.add_node(id.0);
    }
    for id in c.ids() {
        for &o in &c.get(id).operands {
            if o.index() < c.len() {
                g.add_edge(o.0, id.0, ());
            }
        }
    }
    g
}

/// A topological order of the instructions (operands first), stable with
/// respect to the current order when it is already valid. Errors on a
/// cycle, naming an instruction on it.
pub fn topological_order(c: &Computation) -> Result<Vec<InstrId>> {
    // Kahn's algorithm taking the lowest index first keeps order stable.
    let n = c.len();
    let mut indeg = vec![0usize; n];
    let users = c.users();
    for id in c.ids() {
        indeg[id.index()] = c.get(id).operands.iter().filter(|o| o.index() < n).count();
    }
    let mut ready: std::collections::BTreeSet<u32> =
        (0..n as u32).filter(|&i| indeg[i as usize] == 0).collect();
    let mut out = Vec::with_capacity(n);
    while let Some(&i) = ready.iter().next() {
        ready.remove(&i);
        out.push(InstrId(i));
        for u in &users[i as usize] {
            indeg[u.index()] -= 1;
            if indeg[u.index()] == 0 {
                ready.insert(u.0);
            }
        }
    }
    if out.len() != n {
        let stuck = (0..n).find(|&i| indeg[i] > 0).unwrap_or(0);
        return Err(IrError::verify(format!(
            "computation {}: cycle through instruction {}",
            c.name, c.instructions[stuck].name
        )));
    }
    Ok(out)
}

/// The call graph: an edge caller → callee per call.
pub fn call_graph(m: &Module) -> DiGraphMap<u32, ()> {
    let mut g = DiGraphMap::new();
    for cid in m.comp_ids() {
        g.add_node(cid.0);
    }
    for cid in m.comp_ids() {
        for instr in &m.comp(cid).instructions {
            for callee in instr.op.called_computations() {
                if callee.index() < m.computations.len() {
                    g.add_edge(cid.0, callee.0, ());
                }
            }
        }
    }
    g
}

/// Computations in callees-first order. Errors on recursion.
pub fn callees_first(m: &Module) -> Result<Vec<CompId>> {
    let g = call_graph(m);
    let order = toposort(&g, None).map_err(|cyc| {
        IrError::verify(format!(
            "computation {} calls itself (recursion is not allowed)",
            m.comp(CompId(cyc.node_id())).name
        ))
    })?;
    Ok(order.into_iter().rev().map(CompId).collect())
}

/// Computations reachable from the ENTRY through calls (mask by id).
pub fn reachable_computations(m: &Module) -> Vec<bool> {
    let mut seen = vec![false; m.computations.len()];
    let mut stack = vec![m.entry];
    while let Some(c) = stack.pop() {
        if c.index() >= seen.len() || seen[c.index()] {
            continue;
        }
        seen[c.index()] = true;
        for instr in &m.comp(c).instructions {
            stack.extend(instr.op.called_computations());
        }
    }
    seen
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Graphviz DOT of one computation: a node per instruction labelled with
/// name, opcode and shape; edges operand → user labelled with the operand
/// position when the user has more than one operand.
pub fn computation_to_dot(c: &Computation) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "digraph \"{}\" {{", dot_escape(&c.name));
    let _ = writeln!(s, "  rankdir=TB;");
    let _ = writeln!(s, "  node [shape=box, fontname=\"monospace\"];");
    for id in c.ids() {
        let i = c.get(id);
        let extra = if id == c.root {
            ", style=bold, color=\"#1f77b4\""
        } else if matches!(i.op, crate::Op::Parameter { .. }) {
            ", style=filled, fillcolor=\"#eeeeee\""
        } else {
            ""
        };
        let _ = writeln!(
            s,
            "  n{} [label=\"{}\\n{}\\n{}\"{}];",
            id.0,
            dot_escape(&i.name),
            i.opcode(),
            dot_escape(&i.shape.to_string()),
            extra
        );
    }
    for id in c.ids() {
        let i = c.get(id);
        for (k, o) in i.operands.iter().enumerate() {
            if i.operands.len() > 1 {
                let _ = writeln!(s, "  n{} -> n{} [label=\"{}\"];", o.0, id.0, k);
            } else {
                let _ = writeln!(s, "  n{} -> n{};", o.0, id.0);
            }
        }
    }
    s.push_str("}\n");
    s
}
