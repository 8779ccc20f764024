//! Generic rewriting helpers shared by passes: purity of ops and
//! computations, removing instructions, module-wide fresh names, and
//! cutting the ENTRY computation out of printed text. No pass logic.

use crate::error::Result;
use rxla_ir::{Computation, Module, Op};
use std::collections::HashSet;

/// For each computation, whether it (and everything it calls) is free of
/// side effects and nondeterminism. On a recursive call graph every
/// computation is reported impure (the conservative answer).
pub fn pure_computations(module: &Module) -> Vec<bool> {
    let n = module.computations.len();
    let Ok(order) = rxla_ir::graph::callees_first(module) else {
        return vec![false; n];
    };
    let mut pure = vec![false; n];
    for cid in order {
        let c = module.comp(cid);
        pure[cid.index()] = c.instructions.iter().all(|i| op_is_pure(&i.op, &pure));
    }
    pure
}

/// Whether `op` is deterministic and side-effect free, including the
/// computations it calls (`pure` from [`pure_computations`]). Custom calls
/// are opaque and never count as pure, whatever `has_side_effect` says.
pub fn op_is_pure(op: &Op, pure: &[bool]) -> bool {
    !op.is_nondeterministic()
        && !matches!(op, Op::CustomCall { .. })
        && op
            .called_computations()
            .iter()
            .all(|c| pure.get(c.index()).copied().unwrap_or(false))
}

/// For each computation, whether it (or anything it calls) has side
/// effects (`Op::has_side_effect`; nondeterminism alone does not count).
/// On a recursive call graph every computation is reported effectful.
pub fn effectful_computations(module: &Module) -> Vec<bool> {
    let n = module.computations.len();
    let Ok(order) = rxla_ir::graph::callees_first(module) else {
        return vec![true; n];
    };
    let mut effectful = vec![true; n];
    for cid in order {
        let c = module.comp(cid);
        effectful[cid.index()] = c.instructions.iter().any(|i| has_effect(&i.op, &effectful));
    }
    effectful
}

/// Whether `op` has a side effect itself or calls a computation that has
/// (`effectful` from [`effectful_computations`]).
pub fn has_effect(op: &Op, effectful: &[bool]) -> bool {
    op.has_side_effect()
        || op
            .called_computations()
            .iter()
            .any(|c| effectful.get(c.index()).copied().unwrap_or(true))
}

/// Instructions that must stay: the root, parameters, instructions with
/// side effects (directly or through called computations), and everything
/// they use.
pub fn live_mask(comp: &Computation, effectful: &[bool]) -> Vec<bool> {
    let n = comp.len();
    let mut live = vec![false; n];
    let mut stack = vec![comp.root];
    for id in comp.ids() {
        let op = &comp.get(id).op;
        if matches!(op, Op::Parameter { .. }) || has_effect(op, effectful) {
            stack.push(id);
        }
    }
    while let Some(id) = stack.pop() {
        let Some(l) = live.get_mut(id.index()) else {
            continue;
        };
        if *l {
            continue;
        }
        *l = true;
        stack.extend(comp.get(id).operands.iter().copied());
    }
    live
}

/// Removes the instructions marked in `remove`. They must be unused by
/// the instructions kept (and not the root).
pub fn remove_marked(comp: &mut Computation, remove: &[bool]) -> Result<()> {
    let keep: Vec<bool> = remove.iter().map(|r| !r).collect();
    comp.retain(&keep)?;
    Ok(())
}

/// Every instruction name in the module (names are kept unique
/// module-wide by passes that copy instructions).
pub fn module_instruction_names(module: &Module) -> HashSet<String> {
    module
        .computations
        .iter()
        .flat_map(|c| c.instructions.iter().map(|i| i.name.clone()))
        .collect()
}

/// A name based on `base` not in `taken`; records it as taken. `base`
/// itself when free, else its stem (without a trailing `.N`) with the
/// lowest free numeric suffix: `add.3` → `add.4` (if `add.4` is free).
pub fn fresh_name(taken: &mut HashSet<String>, base: &str) -> String {
    let name = if taken.contains(base) {
        let stem = match base.rsplit_once('.') {
            Some((stem, n))
                if !stem.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) =>
            {
                stem
            }
            _ => base,
        };
        (1..)
            .map(|k| format!("{stem}.{k}"))
            .find(|n| !taken.contains(n))
            .unwrap_or_else(|| base.to_string())
    } else {
        base.to_string()
    };
    taken.insert(name.clone());
    name
}

/// The ENTRY computation's text within printed module text: from the line
/// starting with `ENTRY` through the next line that is `}`. The whole
/// text when no ENTRY line is found.
pub fn entry_text(full: &str) -> &str {
    let mut offset = 0;
    let mut start = None;
    for line in full.split_inclusive('\n') {
        if start.is_none() && line.trim_start().starts_with("ENTRY") {
            start = Some(offset);
        } else if let Some(s) = start
            && line.trim_end() == "}"
        {
            return &full[s..offset + line.len()];
        }
        offset += line.len();
    }
    match start {
        Some(s) => &full[s..],
        None => full,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_text_cuts_the_entry() {
        let t = "HloModule m\n\nf {\n  a = f32[] parameter(0)\n}\n\nENTRY main {\n  ROOT x = f32[] constant(1)\n}\n\ng {\n}\n";
        assert_eq!(
            entry_text(t),
            "ENTRY main {\n  ROOT x = f32[] constant(1)\n}\n"
        );
        assert_eq!(entry_text("no entry"), "no entry");
    }

    #[test]
    fn fresh_names_are_unique() {
        let mut taken: HashSet<String> = ["a".to_string(), "a.1".to_string()].into();
        assert_eq!(fresh_name(&mut taken, "a"), "a.2");
        assert_eq!(fresh_name(&mut taken, "a"), "a.3");
        assert_eq!(fresh_name(&mut taken, "b"), "b");
        assert_eq!(fresh_name(&mut taken, "b"), "b.1");
        assert_eq!(fresh_name(&mut taken, "a.1"), "a.4");
        assert_eq!(fresh_name(&mut taken, "x.1"), "x.1");
        assert_eq!(fresh_name(&mut taken, "x.1"), "x.2");
        assert_eq!(fresh_name(&mut taken, "v1.0"), "v1.0");
        assert_eq!(fresh_name(&mut taken, "v1.0"), "v1.1");
    }
}
