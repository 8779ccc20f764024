//! `dce`: dead code elimination. Removes instructions not reachable from
//! their computation's root (parameters and side-effecting instructions,
//! including calls, loops and conditionals whose computations have side
//! effects, are always kept; an unused `rng` is removed), then computations no
//! longer reachable from ENTRY. Honours fuel: one unit per removed
//! instruction and per removed computation.

use crate::error::Result;
use crate::pass::{Pass, PassContext};
use crate::util::{effectful_computations, live_mask};
use rxla_ir::Module;

/// The dead code elimination pass.
pub struct Dce;

impl Pass for Dce {
    fn name(&self) -> &'static str {
        "dce"
    }

    fn description(&self) -> &'static str {
        "remove instructions unreachable from the root (side effects kept) and computations unreachable from ENTRY; honours fuel (one unit per removal)"
    }

    fn honours_fuel(&self) -> bool {
        true
    }

    fn run(&mut self, module: &mut Module, ctx: &mut PassContext) -> Result<bool> {
        let effectful = effectful_computations(module);
        let mut removed_instrs = 0u64;
        for cid in module.comp_ids().collect::<Vec<_>>() {
            let comp = module.comp_mut(cid);
            let mut keep = live_mask(comp, &effectful);
            // Users come after operands: decide from the end so a dead
            // instruction kept for lack of fuel keeps its operands too.
            for idx in (0..keep.len()).rev() {
                if keep[idx] {
                    continue;
                }
                let name = &comp.instructions[idx].name;
                if ctx.consume_fuel(format_args!("dce: remove {name} in {}", comp.name)) {
                    removed_instrs += 1;
                } else {
                    keep[idx] = true;
                    for &o in &comp.instructions[idx].operands {
                        if let Some(k) = keep.get_mut(o.index()) {
                            *k = true;
                        }
                    }
                }
            }
            if keep.iter().any(|k| !k) {
                comp.retain(&keep)?;
            }
        }
        let removed_comps = remove_unreachable_computations(module, ctx)?;
        ctx.stat("instructions removed", removed_instrs);
        ctx.stat("computations removed", removed_comps);
        Ok(removed_instrs + removed_comps > 0)
    }
}

/// Removes computations unreachable from ENTRY, one unit of fuel each.
/// Callers are decided before their callees, so a computation kept for
/// lack of fuel keeps what it calls without spending fuel on them.
fn remove_unreachable_computations(module: &mut Module, ctx: &mut PassContext) -> Result<u64> {
    let reachable = rxla_ir::graph::reachable_computations(module);
    if reachable.iter().all(|&r| r) {
        return Ok(0);
    }
    let Ok(callees_first) = rxla_ir::graph::callees_first(module) else {
        return Ok(0); // recursion: the verifier reports it; remove nothing
    };
    let mut keep = reachable.clone();
    let mut forced = vec![false; keep.len()];
    let mut removed = 0u64;
    for cid in callees_first.into_iter().rev() {
        let i = cid.index();
        if reachable[i] {
            continue;
        }
        let name = &module.computations[i].name;
        if forced[i] || !ctx.consume_fuel(format_args!("dce: remove computation {name}")) {
            keep[i] = true;
            for instr in &module.computations[i].instructions {
                for c in instr.op.called_computations() {
                    if let Some(f) = forced.get_mut(c.index()) {
                        *f = true;
                    }
                }
            }
        } else {
            removed += 1;
        }
    }
    if removed > 0 {
        module.retain_computations(&keep)?;
    }
    Ok(removed)
}
