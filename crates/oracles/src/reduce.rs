//! The test-case reducer: greedy delta debugging over modules. Candidate
//! edits — drop the ENTRY root's tuple elements, replace an instruction's
//! uses by a zero constant or a new parameter, bypass an instruction with
//! one of its operands, inline calls, zero constants, drop unused
//! parameters and computations — are applied one at a time; a candidate is
//! kept when it verifies and the caller's interestingness test still holds.
//! Repeats until no edit helps. Pure: the caller decides what
//! "interesting" means (an oracle failure, an external command).

use rxla_ir::{CompId, InstrId, Instruction, Literal, Module, Op, Shape, verify_module};

/// Statistics of a reduction.
#[derive(Clone, Debug, Default)]
pub struct ReduceStats {
    /// Candidates that verified and were tested.
    pub tests: usize,
    /// Candidates kept.
    pub accepted: usize,
}

/// Shrinks `module` while `interesting` holds. `interesting(module)` must
/// hold for the input (checked: an error otherwise). `max_tests` bounds the
/// number of interestingness tests.
pub fn reduce(
    module: &Module,
    mut interesting: impl FnMut(&Module) -> bool,
    max_tests: usize,
) -> Result<(Module, ReduceStats), String> {
    verify_module(module).map_err(|e| format!("the input does not verify: {e}"))?;
    if !interesting(module) {
        return Err("the input is not interesting (the failure does not reproduce)".into());
    }
    let mut best = module.clone();
    let mut stats = ReduceStats::default();
    loop {
        let mut improved = false;
        let mut k = 0;
        while let Some(cand) = candidate(&best, k) {
            k += 1;
            let Some(cand) = cleanup(cand) else { continue };
            if cand == best || verify_module(&cand).is_err() {
                continue;
            }
            if stats.tests >= max_tests {
                return Ok((best, stats));
            }
            stats.tests += 1;
            if size(&cand) < size(&best) && interesting(&cand) {
                stats.accepted += 1;
                best = cand;
                improved = true;
            }
        }
        if !improved {
            return Ok((best, stats));
        }
    }
}

/// A size measure, compared lexicographically; every accepted edit must
/// make it strictly smaller (so reduction terminates): instructions,
/// computations, non-leaf instructions, parameters, elements of all
/// results, non-zero constants.
fn size(m: &Module) -> [usize; 6] {
    let instrs = || m.computations.iter().flat_map(|c| &c.instructions);
    let elems: usize = instrs()
        .map(|i| {
            i.shape
                .leaves()
                .iter()
                .map(|a| a.element_count().unwrap_or(0))
                .sum::<usize>()
        })
        .sum();
    let leaf = |i: &&Instruction| matches!(i.op, Op::Parameter { .. } | Op::Constant { .. });
    let nonleaf = instrs().filter(|i| !leaf(i)).count();
    let params = m.entry_computation().parameters().len();
    let nonzero = instrs()
        .filter(|i| match &i.op {
            Op::Constant { literal } => {
                Literal::zeros(&literal.shape()).ok().as_ref() != Some(literal)
            }
            _ => false,
        })
        .count();
    [
        m.instruction_count(),
        m.computations.len(),
        nonleaf,
        params,
        elems,
        nonzero,
    ]
}

/// The `k`-th candidate edit of `m`, or None when `k` is past the last.
fn candidate(m: &Module, k: usize) -> Option<Module> {
    let mut k = k;
    // 1. Replace the ENTRY root tuple by one of its elements, or drop one
    //    element (2n candidates for n elements).
    let entry = m.entry_computation();
    let root = entry.root_instruction();
    if matches!(root.op, Op::Tuple) {
        let n = root.operands.len();
        if k < 2 * n {
            let mut c = m.clone();
            c.entry_layout = None;
            let e = c.entry_computation_mut();
            let r = e.root;
            if k < n {
                e.root = e.get(r).operands[k];
            } else if n > 1 {
                let instr = e.get_mut(r);
                instr.operands.remove(k - n);
                if let Shape::Tuple(t) = &mut instr.shape {
                    t.remove(k - n);
                }
            }
            return Some(c);
        }
        k -= 2 * n;
    }
    // 2. Per instruction of every computation: replace uses by zeros, by a
    //    new parameter (ENTRY), or by an operand of the same shape; zero a
    //    constant; inline a call.
    const EDITS: usize = 8 + 2 * MAX_RANK;
    let total: usize = m.computations.iter().map(|c| c.len()).sum();
    if k < total * EDITS {
        let (mut idx, edit) = (k / EDITS, k % EDITS);
        for cid in m.comp_ids() {
            let comp = m.comp(cid);
            if idx < comp.len() {
                // Walk from the root backwards so big subtrees go first.
                let id = InstrId((comp.len() - 1 - idx) as u32);
                return edit_instruction(m, cid, id, edit);
            }
            idx -= comp.len();
        }
        return None;
    }
    k -= total * EDITS;
    // 3. Drop unused ENTRY parameters; drop side-effecting instructions
    //    nothing reads (collectives, outfeeds: `cleanup` keeps them).
    if k == 0 {
        return Some(drop_unused_parameters(m));
    }
    if k == 1 {
        return drop_unread_side_effects(m);
    }
    None
}

/// `m` without the instructions the roots do not reach (parameters kept),
/// side-effecting ones included; `None` when there are none.
fn drop_unread_side_effects(m: &Module) -> Option<Module> {
    let mut c = m.clone();
    let mut changed = false;
    for cid in c.comp_ids().collect::<Vec<_>>() {
        let comp = c.comp_mut(cid);
        let mut keep = vec![false; comp.len()];
        let mut stack = vec![comp.root];
        while let Some(id) = stack.pop() {
            if std::mem::replace(&mut keep[id.index()], true) {
                continue;
            }
            stack.extend(comp.get(id).operands.iter().copied());
        }
        for id in comp.parameters() {
            keep[id.index()] = true;
        }
        if keep.iter().any(|k| !k) {
            comp.retain(&keep).ok()?;
            changed = true;
        }
    }
    changed.then_some(c)
}

/// Applies edit number `edit` to instruction `id` of computation `cid`
/// (Some(unchanged clone) when the edit does not apply).
fn edit_instruction(m: &Module, cid: CompId, id: InstrId, edit: usize) -> Option<Module> {
    let mut c = m.clone();
    let is_entry = cid == m.entry;
    let instr = m.comp(cid).get(id).clone();
    match edit {
        // Replace uses by a zero constant of the same shape.
        0 => {
            if matches!(instr.op, Op::Constant { .. }) {
                return Some(c);
            }
            let lit = Literal::zeros(&instr.shape).ok()?;
            if instr
                .shape
                .leaves()
                .iter()
                .any(|a| a.element_type == rxla_ir::ElementType::Token)
            {
                return Some(c);
            }
            replace_with_leaf(&mut c, cid, id, Op::Constant { literal: lit }, "constant");
        }
        // Replace uses by a new ENTRY parameter.
        1 => {
            if !is_entry || matches!(instr.op, Op::Parameter { .. }) {
                return Some(c);
            }
            let number = c.comp(cid).parameters().len() as i64;
            replace_with_leaf(&mut c, cid, id, Op::Parameter { number }, "parameter");
        }
        // Bypass: replace uses by the first/second/third operand of the
        // same shape.
        2..=4 => {
            let Some(&op) = instr.operands.get(edit - 2) else {
                return Some(c);
            };
            let comp = c.comp(cid);
            if !comp.get(op).shape.compatible(&instr.shape) {
                return Some(c);
            }
            c.comp_mut(cid).replace_uses(id, op);
        }
        // Zero a constant's literal.
        5 => {
            if let Op::Constant { literal } = &instr.op {
                let z = Literal::zeros(&literal.shape()).ok()?;
                if &z == literal {
                    return Some(c);
                }
                c.comp_mut(cid).get_mut(id).op = Op::Constant { literal: z };
            }
        }
        // Inline a call (or fusion).
        6 => {
            if let Op::Call { to_apply }
            | Op::Fusion {
                calls: to_apply, ..
            } = instr.op
            {
                inline_call(&mut c, cid, id, to_apply)?;
            }
        }
        // Shrink one dimension of an ENTRY leaf (to half, or to 1) and
        // re-infer the shapes downstream.
        8.. => {
            let dim = (edit - 8) / 2;
            let to_one = (edit - 8) % 2 == 1;
            if !is_entry {
                return Some(c);
            }
            return Some(shrink_leaf(m, id, dim, to_one).unwrap_or(c));
        }
        // Make a while loop run zero times by replacing it with its init.
        _ => {
            if matches!(instr.op, Op::While { .. }) {
                c.comp_mut(cid).replace_uses(id, instr.operands[0]);
            }
        }
    }
    Some(c)
}

/// Highest rank the shape-shrinking edits consider.
const MAX_RANK: usize = 4;

/// Shrinks dimension `dim` of the ENTRY leaf `id` (a constant, parameter
/// or iota) to half its size (or to 1) and re-infers every later shape of
/// the ENTRY computation. None when the edit does not apply or an
/// instruction no longer type-checks (e.g. a slice whose limits exceed the
/// new size).
fn shrink_leaf(m: &Module, id: InstrId, dim: usize, to_one: bool) -> Option<Module> {
    let mut c = m.clone();
    let e = c.entry;
    let instr = c.comp(e).get(id).clone();
    let Shape::Array(a) = &instr.shape else {
        return None;
    };
    let old = *a.dims.get(dim)?;
    let new = if to_one { 1 } else { old / 2 };
    if new >= old
        || !matches!(
            instr.op,
            Op::Constant { .. } | Op::Parameter { .. } | Op::Iota { .. }
        )
    {
        return None;
    }
    let mut dims = a.dims.clone();
    dims[dim] = new;
    let shape = rxla_ir::ArrayShape::new(a.element_type, dims.clone()).ok()?;
    let op = match &instr.op {
        Op::Constant { literal } => {
            let lit = literal.as_array().ok()?;
            let keep: Vec<usize> = rxla_ir::index::IndexIter::new(&a.dims)
                .enumerate()
                .filter(|(_, ix)| ix[dim] < new)
                .map(|(i, _)| i)
                .collect();
            let data = lit.data.take(&keep);
            let l = rxla_ir::ArrayLiteral::new(shape.clone(), data).ok()?;
            Op::Constant {
                literal: Literal::Array(l),
            }
        }
        other => other.clone(),
    };
    {
        let comp = c.comp_mut(e);
        let target = comp.get_mut(id);
        target.op = op;
        target.shape = Shape::Array(shape);
    }
    // Re-infer the shapes of everything after `id`.
    let n = c.comp(e).len();
    for i in id.index() + 1..n {
        let instr = c.comp(e).get(InstrId(i as u32)).clone();
        let ops: Vec<Shape> = instr
            .operands
            .iter()
            .map(|o| c.comp(e).get(*o).shape.clone())
            .collect();
        let refs: Vec<&Shape> = ops.iter().collect();
        let inferred =
            rxla_ir::shape_inference::infer_shape(&c, &instr.op, &refs, Some(&instr.shape)).ok()?;
        if !inferred.compatible(&instr.shape) {
            c.comp_mut(e).get_mut(InstrId(i as u32)).shape = inferred.with_default_layouts();
        }
    }
    c.entry_layout = None;
    Some(c)
}

/// Appends a leaf instruction (constant or parameter) with `id`'s shape
/// and redirects every use of `id` (and the root) to it.
fn replace_with_leaf(m: &mut Module, cid: CompId, id: InstrId, op: Op, base: &str) {
    let comp = m.comp_mut(cid);
    let shape = comp.get(id).shape.with_default_layouts();
    let name = comp.fresh_name(&format!("{base}.reduced"));
    let leaf = comp.push(Instruction::new(name, op, vec![], shape));
    comp.replace_uses(id, leaf);
    if cid == m.entry {
        m.entry_layout = None;
    }
}

/// Inlines computation `callee` at the call `id` of computation `cid`.
fn inline_call(m: &mut Module, cid: CompId, id: InstrId, callee: CompId) -> Option<()> {
    let body = m.comp(callee).clone();
    let args = m.comp(cid).get(id).operands.clone();
    let comp = m.comp_mut(cid);
    let mut map: Vec<InstrId> = Vec::with_capacity(body.len());
    for instr in &body.instructions {
        let new_id = match instr.op {
            Op::Parameter { number } => *args.get(usize::try_from(number).ok()?)?,
            _ => {
                let mut copy = instr.clone();
                copy.operands = copy.operands.iter().map(|o| map[o.index()]).collect();
                copy.name = comp.fresh_name(&instr.name);
                comp.push(copy)
            }
        };
        map.push(new_id);
    }
    let root = map[body.root.index()];
    comp.replace_uses(id, root);
    comp.topo_sort().ok()
}

/// Removes ENTRY parameters nobody uses, renumbering the rest.
fn drop_unused_parameters(m: &Module) -> Module {
    let mut c = m.clone();
    let e = c.entry;
    let comp = c.comp_mut(e);
    let users = comp.users();
    let keep: Vec<bool> = comp
        .ids()
        .map(|id| {
            !matches!(comp.get(id).op, Op::Parameter { .. })
                || !users[id.index()].is_empty()
                || id == comp.root
        })
        .collect();
    if comp.retain(&keep).is_err() {
        return m.clone();
    }
    let params = comp.parameters();
    for (n, id) in params.into_iter().enumerate() {
        comp.get_mut(id).op = Op::Parameter { number: n as i64 };
    }
    c.entry_layout = None;
    c
}

/// Dead code and unused computations removed; None when the edit broke
/// the structure.
fn cleanup(mut m: Module) -> Option<Module> {
    m.entry_layout = None;
    for cid in m.comp_ids().collect::<Vec<_>>() {
        let comp = m.comp_mut(cid);
        let live = comp.live_mask();
        comp.retain(&live).ok()?;
    }
    // Computations reachable from the entry.
    let mut reach = vec![false; m.computations.len()];
    let mut stack = vec![m.entry];
    while let Some(c) = stack.pop() {
        if c.index() >= reach.len() || reach[c.index()] {
            continue;
        }
        reach[c.index()] = true;
        for i in &m.comp(c).instructions {
            stack.extend(i.op.called_computations());
        }
    }
    m.retain_computations(&reach).ok()?;
    Some(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rxla_fuzzgen::{GenConfig, generate_from_seed};

    #[test]
    fn reduces_to_the_interesting_opcode() {
        // Find a seed with a `dot`, then reduce while a dot remains.
        let cfg = GenConfig::evaluable();
        let (m, _) = (0..500)
            .map(|s| (generate_from_seed(s, &cfg), s))
            .find(|(m, _)| {
                // A dot in ENTRY (one in a loop body the reducer may have
                // to keep whole, as the generator's seeds move with every
                // op it learns).
                // A live one: some instruction uses it (a dead dot goes with
                // the first dead-code removal, and nothing is accepted).
                let e = m.entry_computation();
                e.instructions.iter().enumerate().any(|(k, i)| {
                    i.opcode() == "dot"
                        && e.instructions
                            .iter()
                            .any(|u| u.operands.iter().any(|o| o.index() == k))
                }) && m.instruction_count() > 10
            })
            .expect("some seed has a dot");
        let has_dot = |m: &Module| rxla_fuzzgen::opcodes_used(m).contains("dot");
        let (r, stats) = reduce(&m, has_dot, 5000).unwrap();
        verify_module(&r).unwrap();
        assert!(has_dot(&r));
        assert!(stats.accepted > 0, "{}", rxla_ir::print_module(&m));
        // Much smaller than the input, and small: the reducer never
        // changes the ENTRY's result shape, so a dot feeding a variadic
        // reduce keeps the reduce, its operands and its 4-parameter
        // reducer (12 instructions for the seed found since the generator
        // learnt linalg ops).
        assert!(
            r.instruction_count() * 2 <= m.instruction_count() && r.instruction_count() <= 16,
            "reduced {} to {} instructions:\n{}",
            m.instruction_count(),
            r.instruction_count(),
            rxla_ir::print_module(&r)
        );
    }

    #[test]
    fn uninteresting_input_is_an_error() {
        let m = generate_from_seed(1, &GenConfig::evaluable());
        assert!(reduce(&m, |_| false, 10).is_err());
    }
}
