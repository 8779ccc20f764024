//! Reduces over size-1 dimensions only (a module-level step of
//! `simplify`, run before the e-graph because it reads the reducer
//! computation). Such a reduce folds one element per output: it is the
//! reducer applied once, `reducer(init, x)`. When the reducer is a single
//! binary op of its two parameters, the reduce becomes that op on a
//! broadcast of the init and a reshape of the input (what XLA's algebraic
//! simplifier does with a map of the reducer): elementwise, so it fuses as
//! a loop and runs in vector lanes (`take_along_axis` as JAX lowers it
//! ANDs its index checks over a size-1 dim). Exact: the evaluator folds
//! `init` first, then the one element, with the same op.
//!
//! Multi-input (variadic) reduces, dynamic shapes and reducers that are
//! not one binary op of `(acc, x)` stay as they are. The reduce is left
//! dead (the e-graph step or `dce` removes it).

use rxla_ir::{CompId, Computation, InstrId, Instruction, Module, Op, Shape};

/// The reducer's binary op and whether its operands are swapped
/// (`op(x, acc)`), when the reducer is exactly `op` of its parameters.
fn single_binary_op(reducer: &Computation) -> Option<(Op, bool)> {
    if reducer.len() != 3 {
        return None;
    }
    let root = reducer.root_instruction();
    if !matches!(root.op, Op::Binary(_)) || root.operands.len() != 2 {
        return None;
    }
    let number = |id: InstrId| match reducer.get(id).op {
        Op::Parameter { number } => Some(number),
        _ => None,
    };
    match (number(root.operands[0])?, number(root.operands[1])?) {
        (0, 1) => Some((root.op.clone(), false)),
        (1, 0) => Some((root.op.clone(), true)),
        _ => None,
    }
}

/// Rewrites the degenerate reduces of computation `cid`; how many.
fn rewrite_computation(
    module: &mut Module,
    cid: CompId,
    allow: &mut dyn FnMut(&str) -> bool,
) -> usize {
    let comp = module.comp(cid);
    let mut todo: Vec<(InstrId, Op, bool)> = Vec::new();
    for id in comp.ids() {
        let r = comp.get(id);
        let Op::Reduce {
            dimensions,
            to_apply,
        } = &r.op
        else {
            continue;
        };
        let (Some(&x), Some(_), 2) = (r.operands.first(), r.operands.get(1), r.operands.len())
        else {
            continue;
        };
        let (Shape::Array(xs), Shape::Array(rs)) = (&comp.get(x).shape, &r.shape) else {
            continue;
        };
        if xs.is_dynamic()
            || rs.is_dynamic()
            || xs.element_type != rs.element_type
            || dimensions
                .iter()
                .any(|&d| usize::try_from(d).ok().and_then(|d| xs.dims.get(d)) != Some(&1))
        {
            continue;
        }
        let Some((op, swapped)) = single_binary_op(module.comp(*to_apply)) else {
            continue;
        };
        todo.push((id, op, swapped));
    }
    let mut done = 0;
    for (id, op, swapped) in todo {
        let comp = module.comp(cid);
        let r = comp.get(id);
        if !allow(&format!("reduce {} over size-1 dims", r.name)) {
            continue;
        }
        let (x, init, shape, name) = (
            r.operands[0],
            r.operands[1],
            r.shape.clone(),
            r.name.clone(),
        );
        let comp = module.comp_mut(cid);
        let b_name = comp.fresh_name(&format!("{name}.init"));
        let b = comp.push(Instruction::new(
            b_name,
            Op::Broadcast { dimensions: vec![] },
            vec![init],
            shape.clone(),
        ));
        let s_name = comp.fresh_name(&format!("{name}.input"));
        let s = comp.push(Instruction::new(
            s_name,
            Op::Reshape,
            vec![x],
            shape.clone(),
        ));
        let operands = if swapped { vec![s, b] } else { vec![b, s] };
        let e_name = comp.fresh_name(&format!("{name}.folded"));
        let e = comp.push(Instruction::new(e_name, op, operands, shape));
        comp.replace_uses(id, e);
        done += 1;
    }
    if done > 0 && module.comp_mut(cid).topo_sort().is_err() {
        // Cannot happen (the new instructions read only earlier ones);
        // the verifier after the pass would report it.
        return done;
    }
    done
}

/// Rewrites every degenerate reduce of the module (see the module doc);
/// `allow` is asked before each (fuel). Returns how many.
pub fn fold_degenerate_reduces(module: &mut Module, allow: &mut dyn FnMut(&str) -> bool) -> usize {
    let ids: Vec<CompId> = module.comp_ids().collect();
    ids.into_iter()
        .map(|cid| rewrite_computation(module, cid, allow))
        .sum()
}
