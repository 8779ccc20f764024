//! Which producers of a host `scatter` its kernel computes inline instead
//! of reading them from a buffer (plan time). The scatter kernel reads
//! every element of its operands, indices and updates exactly once, so a
//! producer computed per element inside it does no more work than its own
//! kernel would, and never writes the array: jax's `segment_sum(x, iota %
//! n, n)` computes its 1 Mi s32 indices in the scatter loop.
//!
//! A producer is absorbed when the scatter is its only user, it is not the
//! computation's root, and it is a broadcast or iota, or a fusion whose
//! fused computation has only per-element and data-movement ops (what the
//! emitter computes at an index without loops of its own). The planner
//! (`plan.rs`) gives the kernel the producers' operands as inputs and marks
//! the producers dead; the kernel (`codegen/scatter.rs`) binds a fusion's
//! parameters to those inputs. This module decides only; it must not
//! compile or change anything.

use rxla_ir::{Computation, InstrId, Module, Op, Shape};
use std::collections::HashMap;

/// Per live scatter of `comp`: the operands its kernel computes inline
/// (empty scatters are left out).
pub fn absorbed(
    module: &Module,
    comp: &Computation,
    live: &[bool],
) -> HashMap<InstrId, Vec<InstrId>> {
    let users = comp.users();
    let mut out = HashMap::new();
    for id in comp.ids() {
        if !live.get(id.index()).copied().unwrap_or(false) {
            continue;
        }
        let instr = comp.get(id);
        if !matches!(instr.op, Op::Scatter { .. }) || !matches!(instr.shape, Shape::Array(_)) {
            continue;
        }
        let mut producers: Vec<InstrId> = Vec::new();
        for &o in &instr.operands {
            if producers.contains(&o)
                || o == comp.root
                || users[o.index()].iter().any(|&u| u != id)
                || !absorbable(module, comp, o)
            {
                continue;
            }
            producers.push(o);
        }
        if !producers.is_empty() {
            out.insert(id, producers);
        }
    }
    out
}

/// Whether instruction `o` of `comp` can be computed at an index inside
/// another kernel from its operands' buffers.
fn absorbable(module: &Module, comp: &Computation, o: InstrId) -> bool {
    let instr = comp.get(o);
    let arrays = |c: &Computation, ids: &[InstrId]| {
        ids.iter()
            .all(|&i| matches!(c.get(i).shape, Shape::Array(_)))
    };
    if !matches!(instr.shape, Shape::Array(_)) || !arrays(comp, &instr.operands) {
        return false;
    }
    match &instr.op {
        Op::Broadcast { .. } | Op::Iota { .. } => true,
        Op::Fusion { calls, .. } => {
            let fc = module.comp(*calls);
            fc.parameters().len() == instr.operands.len()
                && fc.ids().all(|i| {
                    let f = fc.get(i);
                    matches!(f.shape, Shape::Array(_)) && per_element(&f.op)
                })
        }
        _ => false,
    }
}

/// Ops the emitter computes at an index without a loop of its own.
fn per_element(op: &Op) -> bool {
    matches!(
        op,
        Op::Parameter { .. }
            | Op::Constant { .. }
            | Op::Iota { .. }
            | Op::Broadcast { .. }
            | Op::Reshape
            | Op::Bitcast
            | Op::Copy
            | Op::Transpose { .. }
            | Op::Convert
            | Op::BitcastConvert
            | Op::Slice { .. }
            | Op::Concatenate { .. }
            | Op::Pad { .. }
            | Op::Reverse { .. }
            | Op::Select
            | Op::Clamp
            | Op::Compare { .. }
            | Op::Unary(_)
            | Op::Binary(_)
    )
}
