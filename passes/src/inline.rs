//! `inline`: replaces every `call` instruction by a copy of the called
//! computation's body (JAX wraps relu, where, argmax, ... in calls).
//! Callee parameters become the call's operands; copied instructions get
//! names unique in the module (the callee's root takes the call's name),
//! and keep their attributes (metadata included). Where an operand's or
//! the root's layout differs from the parameter's or the call's, a `copy`
//! converts it (the body may depend on physical layouts, e.g. `bitcast`).
//! Computations are processed callees first, so nested calls are fully
//! inlined. The callee itself is left in place (`dce` removes it once
//! unreachable). Honours fuel: one unit per inlined call site.
//!
//! Size: inlining every computation of a call chain of depth N copies
//! N²/2 instructions, almost all into callees that die. When that total
//! exceeds twice what the computations that stay reachable need (plus
//! 64k), only those are rewritten — the ENTRY and computations used by
//! other ops than `call` — and nested calls are expanded on the fly from
//! the callees (an explicit stack: no recursion on the call depth);
//! computations reached only through calls are left as they are for
//! `dce`. Work is then linear in the inlined output. An inlined result of
//! more than [`MAX_INLINED`] instructions is an error naming the
//! computation, never an allocation failure.

use crate::error::{PassError, Result};
use crate::pass::{Pass, PassContext};
use crate::util::{fresh_name, module_instruction_names};
use rxla_ir::{CompId, Computation, InstrId, Instruction, Module, Op};
use std::collections::HashSet;

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
        let has_calls = module
            .computations
            .iter()
            .flat_map(|c| &c.instructions)
            .any(|i| matches!(i.op, Op::Call { .. }));
        if !has_calls {
            ctx.stat("call sites inlined", 0);
            ctx.stat("instructions copied", 0);
            return Ok(false);
        }
        let order =
            rxla_ir::graph::callees_first(module).map_err(|e| PassError::failed(self.name(), e))?;
        let plan = plan(module, &order)?;
        let mut names = module_instruction_names(module);
        let mut counts = Counts::default();
        for cid in order {
            let comp = module.comp(cid);
            if !plan.rewrite[cid.index()]
                || !comp
                    .instructions
                    .iter()
                    .any(|i| matches!(i.op, Op::Call { .. }))
            {
                continue;
            }
            let out = inline_into(module, comp, plan.nested, &mut names, ctx, &mut counts)?;
            *module.comp_mut(cid) = out;
        }
        ctx.stat("call sites inlined", counts.inlined);
        ctx.stat("instructions copied", counts.copied);
        Ok(counts.inlined > 0)
    }
}

/// Inlined outputs larger than this are refused (an error, not an
/// allocation failure): 2^24 instructions.
pub const MAX_INLINED: u64 = 1 << 24;

/// Which computations to rewrite, and whether nested calls are expanded
/// while copying (when callees are not rewritten first).
struct Plan {
    rewrite: Vec<bool>,
    nested: bool,
}

/// Chooses between rewriting every computation (callees first, bodies
/// copied already inlined) and rewriting only the computations that stay
/// reachable (nested calls expanded on the fly), from the inlined size of
/// each computation.
fn plan(module: &Module, order: &[CompId]) -> Result<Plan> {
    let n = module.computations.len();
    // Instructions each computation has once inlined (saturating).
    let mut size = vec![0u64; n];
    for &cid in order {
        let mut s = 0u64;
        for i in &module.comp(cid).instructions {
            s = s.saturating_add(match i.op {
                Op::Call { to_apply } => size.get(to_apply.index()).copied().unwrap_or(1),
                _ => 1,
            });
        }
        size[cid.index()] = s;
    }
    let mut live = vec![false; n];
    if let Some(l) = live.get_mut(module.entry.index()) {
        *l = true;
    }
    for c in &module.computations {
        for i in &c.instructions {
            if !matches!(i.op, Op::Call { .. }) {
                for callee in i.op.called_computations() {
                    if let Some(l) = live.get_mut(callee.index()) {
                        *l = true;
                    }
                }
            }
        }
    }
    let has_call = |c: &Computation| {
        c.instructions
            .iter()
            .any(|i| matches!(i.op, Op::Call { .. }))
    };
    let mut all = 0u64;
    let mut needed = 0u64;
    for (k, c) in module.computations.iter().enumerate() {
        if !has_call(c) {
            continue;
        }
        all = all.saturating_add(size[k]);
        if live[k] {
            if size[k] > MAX_INLINED {
                return Err(PassError::failed(
                    "inline",
                    format!(
                        "computation {} would have {} instructions once inlined (limit {MAX_INLINED})",
                        c.name, size[k]
                    ),
                ));
            }
            needed = needed.saturating_add(size[k]);
        }
    }
    if all <= needed.saturating_mul(2).saturating_add(1 << 16) {
        Ok(Plan {
            rewrite: vec![true; n],
            nested: false,
        })
    } else {
        Ok(Plan {
            rewrite: live,
            nested: true,
        })
    }
}

#[derive(Default)]
struct Counts {
    inlined: u64,
    copied: u64,
}

/// One body being copied: the caller itself (`call` = None) or an inlined
/// callee, with its arguments and the name its result takes.
struct Frame<'m> {
    body: &'m Computation,
    next: usize,
    /// Old id in `body` → id in the output.
    map: Vec<InstrId>,
    call: Option<Inlined<'m>>,
}

struct Inlined<'m> {
    call: &'m Instruction,
    args: Vec<InstrId>,
    /// The name the callee's result takes (the call's, or a fresh one for
    /// a nested call).
    name: String,
    /// Whether the callee's root can take `name` (same shape, not a
    /// parameter).
    root_named: bool,
}

/// The caller with its calls inlined. Calls in the caller always; calls
/// inside inlined bodies too when `nested` (else they are copied as calls:
/// callees were rewritten first).
fn inline_into(
    module: &Module,
    caller: &Computation,
    nested: bool,
    names: &mut HashSet<String>,
    ctx: &mut PassContext,
    counts: &mut Counts,
) -> Result<Computation> {
    let mut out = Computation::new(caller.name.clone());
    let mut stack = vec![Frame {
        body: caller,
        next: 0,
        map: Vec::with_capacity(caller.len()),
        call: None,
    }];
    while let Some(top) = stack.last_mut() {
        let body = top.body;
        let Some(instr) = body.instructions.get(top.next) else {
            let Some(done) = stack.pop() else { break };
            let root = *done.map.get(done.body.root.index()).ok_or_else(|| {
                PassError::failed(
                    "inline",
                    format!("{}: the root does not exist", done.body.name),
                )
            })?;
            let Some(inl) = done.call else {
                out.root = root;
                return Ok(out);
            };
            let result = if out.get(root).shape == inl.call.shape {
                root
            } else {
                let mut copy =
                    Instruction::new(inl.name, Op::Copy, vec![root], inl.call.shape.clone());
                copy.attrs = inl.call.attrs.clone();
                out.push(copy)
            };
            if let Some(parent) = stack.last_mut() {
                parent.map.push(result);
            }
            continue;
        };
        let idx = top.next;
        top.next += 1;
        let outer = top.call.is_none();
        let operands = remap(&instr.operands, &top.map, &instr.name)?;
        if let (Op::Parameter { number }, Some(inl)) = (&instr.op, &top.call) {
            let arg = *usize::try_from(*number)
                .ok()
                .and_then(|n| inl.args.get(n))
                .ok_or_else(|| {
                    PassError::failed(
                        "inline",
                        format!(
                            "{} passes {} operands but {} has parameter({number})",
                            inl.call.name,
                            inl.args.len(),
                            top.body.name
                        ),
                    )
                })?;
            let id = if out.get(arg).shape == instr.shape {
                arg
            } else {
                let mut copy = Instruction::new(
                    fresh_name(names, &instr.name),
                    Op::Copy,
                    vec![arg],
                    instr.shape.clone(),
                );
                copy.attrs = inl.call.attrs.clone();
                out.push(copy)
            };
            top.map.push(id);
            continue;
        }
        let callee = match instr.op {
            Op::Call { to_apply } if outer || nested => Some(to_apply),
            _ => None,
        };
        let granted = callee.is_some()
            && ctx.consume_fuel(format_args!("inline: {} in {}", instr.name, top.body.name));
        // The name this instruction (or the result of its inlined body)
        // takes: its own in the caller, the call's for the callee's root.
        let name = match &top.call {
            None => instr.name.clone(),
            Some(inl) if idx == top.body.root.index() && inl.root_named => inl.name.clone(),
            Some(_) => fresh_name(names, &instr.name),
        };
        match callee {
            Some(callee) if granted => {
                let body = module.computations.get(callee.index()).ok_or_else(|| {
                    PassError::failed(
                        "inline",
                        format!("{} calls a computation that does not exist", instr.name),
                    )
                })?;
                counts.inlined += 1;
                counts.copied += body
                    .instructions
                    .iter()
                    .filter(|i| !matches!(i.op, Op::Parameter { .. }))
                    .count() as u64;
                let root_named = body.instructions.get(body.root.index()).is_some_and(|r| {
                    r.shape == instr.shape && !matches!(r.op, Op::Parameter { .. })
                });
                stack.push(Frame {
                    body,
                    next: 0,
                    map: Vec::with_capacity(body.len()),
                    call: Some(Inlined {
                        call: instr,
                        args: operands,
                        name,
                        root_named,
                    }),
                });
            }
            _ => {
                let mut copy = instr.clone();
                copy.operands = operands;
                copy.name = name;
                let id = out.push(copy);
                top.map.push(id);
            }
        }
    }
    Err(PassError::failed(
        "inline",
        format!("{}: no frame left", caller.name),
    ))
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
