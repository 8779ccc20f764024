//! Explanations (`explain=true`): for each original instruction whose
//! e-class is now computed by a different term, egg's explanation of the
//! equality between its original term and the extracted one, reduced to
//! the chain of rule names applied (`name: rule > rule > ...`). Also the
//! public [`explain`] entry point used by tests and the CLI.

use crate::simplify::analysis::HloGraph;
use crate::simplify::cost::Choice;
use crate::simplify::lang::Hlo;
use crate::simplify::lower::Lowered;
use crate::simplify::raise::canonical;
use crate::simplify::{Simplify, simplify_computation};
use egg::{FlatTerm, Id, Language, RecExpr};
use rxla_ir::{CompId, Computation, Module};
use std::collections::HashMap;

/// The sub-term of `expr` rooted at `root` as its own `RecExpr`.
fn sub_expr(expr: &RecExpr<Hlo>, root: Id) -> RecExpr<Hlo> {
    let mut out = RecExpr::default();
    let mut map: HashMap<Id, Id> = HashMap::new();
    let mut stack = vec![(root, false)];
    while let Some((id, done)) = stack.pop() {
        if map.contains_key(&id) {
            continue;
        }
        let node = &expr[id];
        if done {
            let n = node.clone().map_children(|c| map[&c]);
            map.insert(id, out.add(n));
        } else {
            stack.push((id, true));
            for &c in node.children() {
                if !map.contains_key(&c) {
                    stack.push((c, false));
                }
            }
        }
    }
    out
}

/// The extracted term of `class` as a `RecExpr` (attribute classes take
/// their leaf).
fn chosen_expr(eg: &HloGraph, choice: &Choice, class: Id) -> Option<RecExpr<Hlo>> {
    let mut out = RecExpr::default();
    let mut map: HashMap<Id, Id> = HashMap::new();
    let mut stack = vec![(eg.find(class), false)];
    while let Some((c, done)) = stack.pop() {
        if map.contains_key(&c) {
            continue;
        }
        let node = match choice.get(&c) {
            Some(n) => n.clone(),
            None => eg[c].nodes.first()?.clone(),
        };
        if done {
            let mut missing = false;
            let n = node.map_children(|ch| match map.get(&eg.find(ch)) {
                Some(&x) => x,
                None => {
                    missing = true;
                    ch
                }
            });
            if missing {
                return None;
            }
            map.insert(c, out.add(n));
        } else {
            stack.push((c, true));
            for &ch in node.children() {
                let ch = eg.find(ch);
                if !map.contains_key(&ch) {
                    stack.push((ch, false));
                }
            }
        }
    }
    Some(out)
}

fn collect_rules(t: &FlatTerm<Hlo>, out: &mut Vec<String>) {
    if let Some(r) = t.forward_rule.or(t.backward_rule) {
        let r = r.to_string();
        if out.last() != Some(&r) {
            out.push(r);
        }
    }
    for c in &t.children {
        collect_rules(c, out);
    }
}

/// `name: rule > rule ...` for each instruction whose value is now
/// computed by a different term.
pub fn explain_changes(
    eg: &mut HloGraph,
    comp: &Computation,
    low: &Lowered,
    choice: &Choice,
) -> Vec<String> {
    let mut lines = Vec::new();
    for (i, instr) in comp.instructions.iter().enumerate() {
        if instr.operands.is_empty() {
            continue;
        }
        let class = eg.find(low.classes[i]);
        let Some(chosen) = choice.get(&class) else {
            continue;
        };
        if canonical(eg, chosen) == canonical(eg, &low.nodes[i]) {
            continue;
        }
        let Some(right) = chosen_expr(eg, choice, class) else {
            continue;
        };
        let left = sub_expr(&low.expr, low.expr_index[i]);
        // egg panics when asked to explain terms that are not equal.
        let l = eg.lookup_expr(&left).map(|x| eg.find(x));
        let r = eg.lookup_expr(&right).map(|x| eg.find(x));
        if l != Some(class) || r != Some(class) {
            continue;
        }
        let mut ex = eg.explain_equivalence(&left, &right);
        let mut rules = Vec::new();
        for t in ex.make_flat_explanation() {
            collect_rules(t, &mut rules);
        }
        if !rules.is_empty() {
            lines.push(format!("{}: {}", instr.name, rules.join(" > ")));
        }
    }
    lines
}

/// Runs `simplify` with explanations on computation `comp` of `module`
/// (not modified) and returns one line per changed instruction.
pub fn explain(module: &Module, comp: CompId) -> String {
    let opts = Simplify {
        explain: true,
        ..Simplify::default()
    };
    let Ok(rewrites) = opts.rewrites() else {
        return String::new();
    };
    let mut stats = Vec::new();
    let limits = crate::simplify::Limits::starting_now(opts.time_limit_ms);
    match simplify_computation(
        module, comp, &opts, &rewrites, false, &limits, &mut None, &mut stats,
    ) {
        Ok(Some(r)) => r.explanations.iter().map(|l| format!("{l}\n")).collect(),
        _ => String::new(),
    }
}
