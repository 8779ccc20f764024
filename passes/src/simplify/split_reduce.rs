//! Splitting variadic reduces (a module-level step of `simplify`, run
//! before the e-graph because it adds computations). A variadic `reduce`
//! (N ≥ 2 inputs, N inits, a tuple result) that is not a root and is only
//! read through `get-tuple-element`s of one index k, and whose reducer
//! computes its k-th output from its parameters k (accumulator k) and
//! N+k (input k) alone, is replaced — at each of those
//! `get-tuple-element`s — by a plain `reduce` of input k and init k whose
//! reducer is that k-th output's expression (the reducer restricted,
//! a new computation `<reducer>.out<k>` placed right after the reducer).
//! Exact: the evaluator folds plain and variadic reduces in the same
//! element order, and output k never reads another accumulator or input.
//! The variadic reduce is left dead (the e-graph step or `dce` removes
//! it). The reducer is read, not trusted: a root that is not a tuple of N
//! values, a side-effecting instruction, a parameter other than k and N+k
//! or mismatched scalar types make the reduce stay as it is.

use rxla_ir::{CompId, Computation, InstrId, Instruction, Module, Op, Shape};
use std::collections::HashMap;

/// One variadic reduce to split: where it is, which output, and the
/// `get-tuple-element`s reading it.
struct Candidate {
    /// The caller's and the reducer's names (ids move as computations
    /// are inserted).
    comp: String,
    reducer: String,
    n: usize,
    output: usize,
    gtes: Vec<InstrId>,
    /// The plain reduce's input and init.
    input: InstrId,
    init: InstrId,
    dims: Vec<i64>,
}

/// The reducer restricted to output `k` of `n`, if it reads only its
/// parameters `k` and `n + k`: a computation `(acc, x) -> value`.
pub fn restrict_reducer(
    reducer: &Computation,
    n: usize,
    k: usize,
    name: String,
) -> Option<Computation> {
    let root = reducer.instructions.get(reducer.root.index())?;
    if !matches!(root.op, Op::Tuple) || root.operands.len() != n {
        return None;
    }
    let out = *root.operands.get(k)?;
    let param = |num: usize| {
        reducer.instructions.iter().position(
            |i| matches!(i.op, Op::Parameter { number } if usize::try_from(number) == Ok(num)),
        )
    };
    let (acc, x) = (param(k)?, param(n + k)?);
    let scalar = |i: usize| match &reducer.instructions[i].shape {
        Shape::Array(a) if a.dims.is_empty() => Some(a.element_type),
        _ => None,
    };
    let ty = scalar(acc)?;
    if scalar(x)? != ty || scalar(out.index())? != ty {
        return None;
    }
    // What output k needs, both parameters always (the signature).
    let mut need = vec![false; reducer.len()];
    need[acc] = true;
    need[x] = true;
    let mut stack = vec![out.index()];
    while let Some(i) = stack.pop() {
        if std::mem::replace(need.get_mut(i)?, true) && i != acc && i != x {
            continue;
        }
        let instr = &reducer.instructions[i];
        match instr.op {
            Op::Parameter { .. } if i != acc && i != x => return None,
            _ if instr.op.has_side_effect() => return None,
            _ => stack.extend(instr.operands.iter().map(|o| o.index())),
        }
    }
    let mut c = Computation::new(name);
    let mut map: HashMap<usize, InstrId> = HashMap::new();
    for (i, instr) in reducer.instructions.iter().enumerate() {
        if !need[i] {
            continue;
        }
        let mut copy = instr.clone();
        if i == acc {
            copy.op = Op::Parameter { number: 0 };
        } else if i == x {
            copy.op = Op::Parameter { number: 1 };
        }
        copy.operands = instr
            .operands
            .iter()
            .map(|o| map.get(&o.index()).copied())
            .collect::<Option<_>>()?;
        c.instructions.push(copy);
        map.insert(i, InstrId((c.instructions.len() - 1) as u32));
    }
    c.root = *map.get(&out.index())?;
    Some(c)
}

/// Finds the variadic reduces of `module` that can be split.
fn candidates(module: &Module) -> Vec<Candidate> {
    let mut out = Vec::new();
    for cid in module.comp_ids() {
        let comp = module.comp(cid);
        let mut users: Option<Vec<Vec<InstrId>>> = None;
        for (i, instr) in comp.instructions.iter().enumerate() {
            let Op::Reduce {
                dimensions,
                to_apply,
            } = &instr.op
            else {
                continue;
            };
            let n = instr.operands.len() / 2;
            if n < 2 || !matches!(instr.shape, Shape::Tuple(_)) || comp.root.index() == i {
                continue;
            }
            let users = users.get_or_insert_with(|| comp.users());
            let us = &users[i];
            let mut k = None;
            let ok = !us.is_empty()
                && us.iter().all(|u| match comp.instructions[u.index()].op {
                    Op::GetTupleElement { index } => {
                        let index = usize::try_from(index).ok();
                        index.is_some() && *k.get_or_insert(index) == index
                    }
                    _ => false,
                });
            let Some(Some(k)) = k.filter(|_| ok) else {
                continue;
            };
            if k >= n {
                continue;
            }
            out.push(Candidate {
                comp: comp.name.clone(),
                reducer: module.comp(*to_apply).name.clone(),
                n,
                output: k,
                gtes: us.clone(),
                input: instr.operands[k],
                init: instr.operands[n + k],
                dims: dimensions.clone(),
            });
        }
    }
    out
}

/// The id of the computation named `name`.
fn comp_named(module: &Module, name: &str) -> Option<CompId> {
    module.comp_ids().find(|&c| module.comp(c).name == name)
}

/// Splits every variadic reduce it can, asking `fuel` before each (with a
/// description); returns how many were split.
pub fn split_variadic_reduces(module: &mut Module, fuel: &mut dyn FnMut(&str) -> bool) -> usize {
    let mut done = 0;
    // Restricted reducers made so far: (reducer, n, k) → computation name.
    let mut made: HashMap<(String, usize, usize), String> = HashMap::new();
    for cand in candidates(module) {
        let key = (cand.reducer.clone(), cand.n, cand.output);
        let made_name = made.get(&key).cloned();
        let restricted = match &made_name {
            Some(_) => None,
            None => {
                let Some(rid) = comp_named(module, &cand.reducer) else {
                    continue;
                };
                let name =
                    module.fresh_computation_name(&format!("{}.out{}", cand.reducer, cand.output));
                let Some(c) = restrict_reducer(module.comp(rid), cand.n, cand.output, name) else {
                    continue;
                };
                Some((rid, c))
            }
        };
        if !fuel(&format!(
            "simplify: split a variadic reduce of {} (output {})",
            cand.comp, cand.output
        )) {
            continue;
        }
        let name = match (made_name, restricted) {
            (Some(name), _) => name,
            (None, Some((rid, c))) => {
                let name = c.name.clone();
                insert_after(module, rid, c);
                made.insert(key, name.clone());
                name
            }
            (None, None) => continue,
        };
        let (Some(new), Some(cid)) = (comp_named(module, &name), comp_named(module, &cand.comp))
        else {
            continue;
        };
        let comp = module.comp_mut(cid);
        for g in &cand.gtes {
            let old = &comp.instructions[g.index()];
            let mut plain = Instruction::new(
                old.name.clone(),
                Op::Reduce {
                    dimensions: cand.dims.clone(),
                    to_apply: new,
                },
                vec![cand.input, cand.init],
                old.shape.clone(),
            );
            plain.attrs = old.attrs.clone();
            comp.instructions[g.index()] = plain;
        }
        done += 1;
    }
    done
}

/// Inserts `c` right after computation `after`, renumbering the
/// computations behind it (so callees still precede their callers).
fn insert_after(module: &mut Module, after: CompId, c: Computation) {
    let pos = after.index() + 1;
    let shift = |cc: &mut CompId| {
        if cc.index() >= pos {
            cc.0 += 1;
        }
    };
    for comp in &mut module.computations {
        for i in &mut comp.instructions {
            for cc in i.op.called_computations_mut() {
                shift(cc);
            }
        }
    }
    shift(&mut module.entry);
    module.computations.insert(pos, c);
}
