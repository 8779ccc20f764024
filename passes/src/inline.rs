//! `inline`: replaces every `call` instruction by a copy of the called
//! computation's body (JAX wraps relu, where, argmax, ... in calls).
//! Callee parameters become the call's operands; copied instructions get
//! names unique in the module (the callee's root takes the call's name),
//! and keep their attributes (metadata included). Where an operand's or
//! the root's layout differs from the parameter's or the call's, a `copy`
//! converts it (the body may depend on physical layouts, e.g. `bitcast`). Computations are
//! processed callees first, so nested calls are fully inlined. The
//! callee itself is left in place (`dce` removes it once unreachable).
//! Honours fuel: one unit per inlined call site.

use crate::error::{PassError, Result};
use crate::pass::{Pass, PassContext};
use crate::util::{fresh_name, module_instruction_names};
use rxla_ir::{Computation, InstrId, Instruction, Module, Op};

/// The call inlining pass.
pub struct Inline;

impl Pass for Inline {
    fn name(&self) -> &'static str {
        "inline"
    }

    fn description(&self) -> &'static str {
        "inline call instructions (callees first; the callee stays until dce); honours fuel (one unit per call site)"
    }

    fn honours_fuel(&self) -> bool {
        true
    }

    fn run(&mut self, module: &mut Module, ctx: &mut PassContext) -> Result<bool> {
        let order =
            rxla_ir::graph::callees_first(module).map_err(|e| PassError::failed(self.name(), e))?;
        let mut names = module_instruction_names(module);
        let mut inlined = 0u64;
        let mut copied = 0u64;
        for cid in order {
            if !module
                .comp(cid)
                .instructions
                .iter()
                .any(|i| matches!(i.op, Op::Call { .. }))
            {
                continue;
            }
            let caller = module.comp(cid);
            let mut out = Computation::new(caller.name.clone());
            // Old id in the caller → new id.
            let mut map: Vec<InstrId> = Vec::with_capacity(caller.len());
            for instr in &caller.instructions {
                let operands = remap(&instr.operands, &map, &instr.name)?;
                let callee = match instr.op {
                    Op::Call { to_apply } => Some(to_apply),
                    _ => None,
                };
                let granted = callee.is_some()
                    && ctx.consume_fuel(format_args!("inline: {} in {}", instr.name, caller.name));
                let new_id = match callee {
                    Some(callee) if granted => {
                        let body = module.computations.get(callee.index()).ok_or_else(|| {
                            PassError::failed(
                                "inline",
                                format!("{} calls a computation that does not exist", instr.name),
                            )
                        })?;
                        inlined += 1;
                        copied += body
                            .instructions
                            .iter()
                            .filter(|i| !matches!(i.op, Op::Parameter { .. }))
                            .count() as u64;
                        inline_body(&mut out, body, &operands, instr, &mut names)?
                    }
                    _ => {
                        let mut copy = instr.clone();
                        copy.operands = operands;
                        out.push(copy)
                    }
                };
                map.push(new_id);
            }
            out.root = *map.get(caller.root.index()).ok_or_else(|| {
                PassError::failed(
                    "inline",
                    format!("{}: the root does not exist", caller.name),
                )
            })?;
            *module.comp_mut(cid) = out;
        }
        ctx.stat("call sites inlined", inlined);
        ctx.stat("instructions copied", copied);
        Ok(inlined > 0)
    }
}

/// Appends a copy of `body` to `out` with parameters bound to `args`;
/// returns the id standing for the call's result, named like the call.
///
/// Layouts: a call may pass an operand whose layout differs from the
/// parameter's, and the callee's root may have another layout than the
/// call. Inside the body the physical layout matters (`bitcast`), so a
/// `copy` to the parameter's shape is inserted for such an operand, and a
/// `copy` to the call's shape for such a root.
fn inline_body(
    out: &mut Computation,
    body: &Computation,
    args: &[InstrId],
    call: &Instruction,
    names: &mut std::collections::HashSet<String>,
) -> Result<InstrId> {
    let mut map: Vec<InstrId> = Vec::with_capacity(body.len());
    let root_shape_matches = body
        .instructions
        .get(body.root.index())
        .is_some_and(|r| r.shape == call.shape && !matches!(r.op, Op::Parameter { .. }));
    for (idx, instr) in body.instructions.iter().enumerate() {
        let id = match instr.op {
            Op::Parameter { number } => {
                let arg = *usize::try_from(number)
                    .ok()
                    .and_then(|n| args.get(n))
                    .ok_or_else(|| {
                        PassError::failed(
                            "inline",
                            format!(
                                "{} passes {} operands but {} has parameter({number})",
                                call.name,
                                args.len(),
                                body.name
                            ),
                        )
                    })?;
                if out.get(arg).shape == instr.shape {
                    arg
                } else {
                    let mut copy = Instruction::new(
                        fresh_name(names, &instr.name),
                        Op::Copy,
                        vec![arg],
                        instr.shape.clone(),
                    );
                    copy.attrs = call.attrs.clone();
                    out.push(copy)
                }
            }
            _ => {
                let mut copy = instr.clone();
                copy.operands = remap(&instr.operands, &map, &instr.name)?;
                copy.name = if idx == body.root.index() && root_shape_matches {
                    call.name.clone()
                } else {
                    fresh_name(names, &instr.name)
                };
                out.push(copy)
            }
        };
        map.push(id);
    }
    let root = map.get(body.root.index()).copied().ok_or_else(|| {
        PassError::failed("inline", format!("{}: the root does not exist", body.name))
    })?;
    if out.get(root).shape == call.shape {
        return Ok(root);
    }
    let mut copy = Instruction::new(call.name.clone(), Op::Copy, vec![root], call.shape.clone());
    copy.attrs = call.attrs.clone();
    Ok(out.push(copy))
}

/// Maps operand ids through `map` (ids of earlier instructions only).
fn remap(operands: &[InstrId], map: &[InstrId], user: &str) -> Result<Vec<InstrId>> {
    operands
        .iter()
        .map(|o| {
            map.get(o.index()).copied().ok_or_else(|| {
                PassError::failed(
                    "inline",
                    format!("{user}: operand {o} is not defined before its use"),
                )
            })
        })
        .collect()
}
