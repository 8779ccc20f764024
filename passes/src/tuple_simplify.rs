//! `tuple-simplify`: `get-tuple-element(tuple(a0, ..., an), i)` → `ai`,
//! and `tuple(gte(t, 0), ..., gte(t, n-1))` (all n elements of the same
//! `t`, in order, with `t`'s exact shape) → `t`. The rewritten
//! instructions are removed; operands that become dead are left for `dce`.
//! Honours fuel: one unit per rewrite.

use crate::error::Result;
use crate::pass::{Pass, PassContext};
use crate::util::remove_marked;
use rxla_ir::{InstrId, Module, Op};

/// The tuple simplification pass.
pub struct TupleSimplify;

impl Pass for TupleSimplify {
    fn name(&self) -> &'static str {
        "tuple-simplify"
    }

    fn description(&self) -> &'static str {
        "fold get-tuple-element(tuple(...)) and tuple(get-tuple-element(t, 0..n)) → t; honours fuel (one unit per rewrite)"
    }

    fn honours_fuel(&self) -> bool {
        true
    }

    fn run(&mut self, module: &mut Module, ctx: &mut PassContext) -> Result<bool> {
        let mut gte_folds = 0u64;
        let mut tuple_folds = 0u64;
        for cid in module.comp_ids().collect::<Vec<_>>() {
            let comp = module.comp_mut(cid);
            let n = comp.len();
            let mut canon: Vec<InstrId> = (0..n as u32).map(InstrId).collect();
            let mut gone = vec![false; n];
            for idx in 0..n {
                for o in &mut comp.instructions[idx].operands {
                    if let Some(c) = canon.get(o.index()) {
                        *o = *c;
                    }
                }
                let instr = &comp.instructions[idx];
                let replacement = match &instr.op {
                    Op::GetTupleElement { index } => instr.operands.first().and_then(|&t| {
                        let t_instr = comp.instructions.get(t.index())?;
                        if !matches!(t_instr.op, Op::Tuple) {
                            return None;
                        }
                        let e = *t_instr.operands.get(usize::try_from(*index).ok()?)?;
                        (comp.instructions.get(e.index())?.shape == instr.shape)
                            .then_some((e, "get-tuple-element of tuple"))
                    }),
                    Op::Tuple => tuple_of_gtes(comp, InstrId(idx as u32))
                        .map(|t| (t, "tuple of get-tuple-elements")),
                    _ => None,
                };
                let Some((to, kind)) = replacement else {
                    continue;
                };
                let what = format_args!(
                    "tuple-simplify: {kind}: replace {} by {} in {}",
                    instr.name,
                    comp.instructions[to.index()].name,
                    comp.name
                );
                if !ctx.consume_fuel(what) {
                    continue;
                }
                if matches!(instr.op, Op::Tuple) {
                    tuple_folds += 1;
                } else {
                    gte_folds += 1;
                }
                canon[idx] = to;
                gone[idx] = true;
            }
            if gone.iter().any(|&g| g) {
                comp.root = canon.get(comp.root.index()).copied().unwrap_or(comp.root);
                remove_marked(comp, &gone)?;
            }
        }
        ctx.stat("get-tuple-element of tuple folded", gte_folds);
        ctx.stat("tuple of get-tuple-elements folded", tuple_folds);
        Ok(gte_folds + tuple_folds > 0)
    }
}

/// If `id` is `tuple(gte(t,0), ..., gte(t,n-1))` with `t` of the same
/// shape, returns `t`.
fn tuple_of_gtes(comp: &rxla_ir::Computation, id: InstrId) -> Option<InstrId> {
    let tuple = comp.instructions.get(id.index())?;
    let mut source = None;
    for (i, &o) in tuple.operands.iter().enumerate() {
        let g = comp.instructions.get(o.index())?;
        let Op::GetTupleElement { index } = g.op else {
            return None;
        };
        if index != i as i64 {
            return None;
        }
        let t = *g.operands.first()?;
        if source.is_some_and(|s| s != t) {
            return None;
        }
        source = Some(t);
    }
    let t = source?;
    let t_instr = comp.instructions.get(t.index())?;
    let n = t_instr.shape.tuple_elements()?.len();
    (n == tuple.operands.len() && t_instr.shape == tuple.shape).then_some(t)
}
