//! Work estimate: how many element operations a module costs when each
//! instruction outside a fusion is computed once per element and each
//! fused computation is evaluated the way the JIT's loop nests evaluate
//! it — a member is recomputed every time a user reads it (a value read
//! through a broadcast is recomputed for every broadcast element, a
//! reduce's input once per reduced element).
//!
//! Users that read a value at their own index share its evaluation (the
//! emitter memoizes a value per index); users that read it at other
//! indices each recompute it.
//!
//! Used to check that fusion never multiplies work (`fusion`'s cost rule)
//! and reported by nothing else; it must not change the module. Calls,
//! loops and conditionals count their bodies once (trip counts are
//! unknown), so fused and unfused modules are compared on equal terms.

use rxla_ir::{Computation, InstrId, Module, Op, Shape};

/// Elements of an instruction's result (tuples: the sum of the leaves).
fn elements(shape: &Shape) -> f64 {
    match shape {
        Shape::Array(a) => a.dims.iter().map(|&d| d.max(0) as f64).product(),
        Shape::Tuple(t) => t.iter().map(elements).sum(),
    }
}

/// Reduction extent of one output element of `i` (1 for non-reductions).
fn extent(comp: &Computation, id: InstrId) -> f64 {
    let i = comp.get(id);
    let out = elements(&i.shape).max(1.0);
    match &i.op {
        Op::Reduce { .. } => {
            let input = i
                .operands
                .first()
                .map_or(0.0, |o| elements(&comp.get(*o).shape));
            (input / out).max(1.0)
        }
        Op::Dot { dims } => {
            let lhs = comp.get(i.operands[0]);
            lhs.shape
                .as_array()
                .map(|a| {
                    dims.lhs_contracting
                        .iter()
                        .map(|&d| a.dims.get(d as usize).copied().unwrap_or(1).max(1) as f64)
                        .product()
                })
                .unwrap_or(1.0)
        }
        Op::ReduceWindow { window, .. } | Op::SelectAndScatter { window, .. } => {
            window.dims.iter().map(|d| d.size.max(1) as f64).product()
        }
        Op::Convolution { .. } => {
            let k = comp.get(i.operands[1]);
            let out_features = i
                .shape
                .as_array()
                .ok()
                .and_then(|a| a.dims.iter().copied().max())
                .unwrap_or(1)
                .max(1) as f64;
            (elements(&k.shape) / out_features).max(1.0)
        }
        _ => 1.0,
    }
}

/// Cost of computing one element of `id`.
fn cost(comp: &Computation, id: InstrId) -> f64 {
    match comp.get(id).op {
        // Bookkeeping, no element work (a multi-output fusion's root tuple
        // and the reads of its outputs).
        Op::Parameter { .. } | Op::Constant { .. } | Op::Tuple | Op::GetTupleElement { .. } => 0.0,
        _ => extent(comp, id),
    }
}

/// How often operand `k` of `user` is read per element of `user`.
fn reads(comp: &Computation, user: InstrId, k: usize) -> f64 {
    let u = comp.get(user);
    let out = elements(&u.shape).max(1.0);
    let operand = elements(&comp.get(u.operands[k]).shape);
    match &u.op {
        Op::Reduce { .. } if k < u.operands.len() / 2 => operand / out,
        Op::Dot { .. } | Op::ReduceWindow { .. } => extent(comp, user),
        Op::Concatenate { .. } | Op::Pad { .. } | Op::Slice { .. } | Op::Tuple => {
            (operand / out).min(1.0)
        }
        _ => 1.0,
    }
}

/// Work of one evaluation of a fused computation producing `out` elements.
fn fused_work(module: &Module, comp: &Computation) -> f64 {
    let evals = fused_evals(comp);
    (0..comp.len())
        .map(|idx| {
            let id = InstrId(idx as u32);
            evals[idx] * cost(comp, id) + nested(module, comp, id)
        })
        .sum()
}

/// How many times each instruction of a fused computation is evaluated
/// for one evaluation of its root. Users reading a value at their own
/// index (elementwise, same dims) share one evaluation (the emitter
/// computes a value once per index), so they count as their most
/// demanding one; users reading it at other indices (slice, pad,
/// transpose, broadcast, reduce, ...) add up.
fn fused_evals(comp: &Computation) -> Vec<f64> {
    let n = comp.len();
    let mut same = vec![0.0f64; n];
    let mut other = vec![0.0f64; n];
    let root = comp.root.index();
    let mut evals = vec![0.0f64; n];
    for idx in (0..n).rev() {
        evals[idx] = if idx == root {
            elements(&comp.get(comp.root).shape)
        } else {
            same[idx] + other[idx]
        };
        let id = InstrId(idx as u32);
        let i = comp.get(id);
        for (k, o) in i.operands.iter().enumerate() {
            if i.operands[..k].contains(o) {
                continue;
            }
            let oi = comp.get(*o);
            if matches!(i.op, Op::Tuple) {
                // A multi-output root stores each output at its own
                // index: once per element, shared with the other readers.
                same[o.index()] = same[o.index()].max(elements(&oi.shape));
                continue;
            }
            let r = evals[idx] * reads(comp, id, k);
            if i.op.is_elementwise() && oi.shape.dims() == i.shape.dims() {
                same[o.index()] = same[o.index()].max(r);
            } else {
                other[o.index()] += r;
            }
        }
    }
    evals
}

/// Work of the computations an instruction calls (bodies counted once).
fn nested(module: &Module, comp: &Computation, id: InstrId) -> f64 {
    let i = comp.get(id);
    match &i.op {
        Op::Fusion { .. } | Op::Call { .. } | Op::While { .. } | Op::Conditional { .. } => {
            i.op.called_computations()
                .into_iter()
                .filter(|c| c.index() < module.computations.len())
                .map(|c| {
                    let callee = module.comp(c);
                    if matches!(i.op, Op::Fusion { .. }) {
                        fused_work(module, callee)
                    } else {
                        host_work(module, callee)
                    }
                })
                .sum()
        }
        _ => 0.0,
    }
}

/// Work of a host computation: every instruction once per element.
fn host_work(module: &Module, comp: &Computation) -> f64 {
    (0..comp.len())
        .map(|idx| {
            let id = InstrId(idx as u32);
            let i = comp.get(id);
            let own = if matches!(i.op, Op::Fusion { .. }) {
                0.0
            } else {
                elements(&i.shape) * cost(comp, id)
            };
            own + nested(module, comp, id)
        })
        .sum()
}

/// Estimated element operations of one run of `module`'s ENTRY.
pub fn estimate_work(module: &Module) -> f64 {
    host_work(module, module.entry_computation())
}

/// For every instruction of every fused computation: how many times it is
/// evaluated per run divided by its element count (1.0 = computed once per
/// element; 1000 = recomputed a thousand times), with the fused
/// computation's name, its own name and its opcode.
pub fn fused_recomputation(module: &Module) -> Vec<(String, String, &'static str, f64)> {
    let mut out = Vec::new();
    for comp in &module.computations {
        let fusion_body = module.computations.iter().any(|c| {
            c.instructions.iter().any(|i| {
                matches!(i.op, Op::Fusion { .. })
                    && i.op
                        .called_computations()
                        .iter()
                        .any(|cid| module.comp(*cid).name == comp.name)
            })
        });
        if !fusion_body {
            continue;
        }
        let evals = fused_evals(comp);
        for (idx, i) in comp.instructions.iter().enumerate() {
            let el = elements(&i.shape).max(1.0);
            out.push((
                comp.name.clone(),
                i.name.clone(),
                i.op.opcode(),
                evals[idx] / el,
            ));
        }
    }
    out
}
