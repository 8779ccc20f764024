//! `cse`: common subexpression elimination within each computation.
//! Two instructions merge when they have the same op and typed attributes,
//! the same operands (after earlier merges; sorted for commutative binary
//! ops), the same shape including layout, and the same verbatim attributes
//! other than `metadata`. Constants merge by value bit for bit (so -0 and
//! +0 differ, NaNs only with equal bits). Never merges nondeterministic or
//! side-effecting ops (rng, infeed, custom-call, all-reduce, ...) nor ops
//! calling computations that contain them. Ops calling structurally
//! identical computations (JAX's one reducer per reduction) count as the
//! same op. Honours fuel: one unit per merged instruction.

use crate::error::Result;
use crate::pass::{Pass, PassContext};
use crate::util::{op_is_pure, pure_computations, remove_marked};
use rxla_ir::{CompId, InstrId, Instruction, Literal, Module, Op};
use std::collections::HashMap;
use std::fmt::Write as _;

/// The CSE pass.
pub struct Cse;

impl Pass for Cse {
    fn name(&self) -> &'static str {
        "cse"
    }

    fn description(&self) -> &'static str {
        "merge structurally identical instructions (commutative operands canonicalized, constants by bits; never side-effecting or nondeterministic ops); honours fuel (one unit per merge)"
    }

    fn honours_fuel(&self) -> bool {
        true
    }

    fn run(&mut self, module: &mut Module, ctx: &mut PassContext) -> Result<bool> {
        let pure = pure_computations(module);
        let rep = computation_representatives(module);
        let mut merged_total = 0u64;
        let mut constants = 0u64;
        for cid in module.comp_ids().collect::<Vec<_>>() {
            let comp = module.comp_mut(cid);
            let n = comp.len();
            let mut canon: Vec<InstrId> = (0..n as u32).map(InstrId).collect();
            let mut merged = vec![false; n];
            let mut seen: HashMap<String, InstrId> = HashMap::new();
            for idx in 0..n {
                let instr = &mut comp.instructions[idx];
                for o in &mut instr.operands {
                    if let Some(c) = canon.get(o.index()) {
                        *o = *c;
                    }
                }
                let instr = &comp.instructions[idx];
                if matches!(instr.op, Op::Parameter { .. }) || !op_is_pure(&instr.op, &pure) {
                    continue;
                }
                let key = key(instr, &rep);
                match seen.get(&key) {
                    Some(&first) => {
                        let what = format_args!(
                            "cse: replace {} by {} in {}",
                            instr.name,
                            comp.instructions[first.index()].name,
                            comp.name
                        );
                        if ctx.consume_fuel(what) {
                            if matches!(instr.op, Op::Constant { .. }) {
                                constants += 1;
                            }
                            canon[idx] = first;
                            merged[idx] = true;
                            merged_total += 1;
                        }
                    }
                    None => {
                        seen.insert(key, InstrId(idx as u32));
                    }
                }
            }
            if merged.iter().any(|&m| m) {
                comp.root = canon.get(comp.root.index()).copied().unwrap_or(comp.root);
                remove_marked(comp, &merged)?;
            }
        }
        ctx.stat("instructions merged", merged_total);
        ctx.stat("constants merged", constants);
        Ok(merged_total > 0)
    }
}

/// Per computation, the first computation structurally identical to it
/// (the same instructions in the same order, names aside, calling
/// identical computations): JAX emits one reducer per reduction
/// (`region_0`, `region_1`, ... all `add(p0, p1)`), so two reductions of
/// the same values would otherwise never merge. Computations whose
/// callees are not resolved (a cycle, which the verifier rejects) map to
/// themselves.
fn computation_representatives(module: &Module) -> HashMap<CompId, CompId> {
    let ids: Vec<CompId> = module.comp_ids().collect();
    let mut rep: HashMap<CompId, CompId> = HashMap::new();
    let mut by_key: HashMap<String, CompId> = HashMap::new();
    let mut progress = true;
    while progress && rep.len() < ids.len() {
        progress = false;
        for &cid in &ids {
            if rep.contains_key(&cid) {
                continue;
            }
            let comp = module.comp(cid);
            let ready = comp.instructions.iter().all(|i| {
                i.op.called_computations()
                    .iter()
                    .all(|c| rep.contains_key(c))
            });
            if !ready {
                continue;
            }
            let mut k = format!("root {:?};", comp.root);
            for i in &comp.instructions {
                k.push_str(&key(i, &rep));
                k.push(';');
            }
            let r = *by_key.entry(k).or_insert(cid);
            rep.insert(cid, r);
            progress = true;
        }
    }
    rep
}

/// The structural key of an instruction (two instructions with equal keys
/// compute the same value), called computations named by their
/// representatives (`computation_representatives`).
fn key(instr: &Instruction, rep: &HashMap<CompId, CompId>) -> String {
    let mut k = String::new();
    match &instr.op {
        Op::Constant { literal } => {
            k.push_str("constant ");
            literal_key(literal, &mut k);
        }
        op => {
            let mut op = op.clone();
            for c in op.called_computations_mut() {
                if let Some(&r) = rep.get(c) {
                    *c = r;
                }
            }
            let _ = write!(k, "{op:?}");
        }
    }
    let mut ops = instr.operands.clone();
    if let Op::Binary(b) = instr.op
        && b.is_commutative()
    {
        ops.sort();
    }
    let _ = write!(k, " {ops:?} {:?}", instr.shape);
    for (a, v) in &instr.attrs {
        if a != "metadata" {
            let _ = write!(k, " {a}={v}");
        }
    }
    k
}

/// Shape and exact bits of a literal.
fn literal_key(l: &Literal, out: &mut String) {
    match l {
        Literal::Array(a) => {
            let _ = write!(out, "{:?}:", a.shape);
            for b in a.data.to_le_bytes() {
                let _ = write!(out, "{b:02x}");
            }
        }
        Literal::Tuple(es) => {
            out.push('(');
            for e in es {
                literal_key(e, out);
                out.push(',');
            }
            out.push(')');
        }
    }
}
