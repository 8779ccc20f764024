//! A memory-reducing instruction order (list scheduling). Among the
//! instructions whose operands are all scheduled, it picks the one with
//! the best `bytes freed - bytes allocated`: bytes freed are the sizes of
//! operand values this instruction is the last remaining user of, bytes
//! allocated the size of its own result (zero for ops that only alias
//! their operands: bitcast, tuple, get-tuple-element, parameters). Ties
//! go to the earlier instruction in the input order, so a program that is
//! already good keeps its order. Side-effecting and nondeterministic ops
//! (infeed, outfeed, rng, custom calls with effects, all-reduce) keep
//! their relative input order. The schedule only orders; it never edits
//! the computation.

use rxla_ir::{Computation, InstrId, Op};

/// Whether `op`'s result is only a view of its operands (no new bytes).
pub fn is_alias(op: &Op) -> bool {
    matches!(
        op,
        Op::Bitcast
            | Op::Tuple
            | Op::GetTupleElement { .. }
            | Op::OptimizationBarrier
            | Op::Parameter { .. }
    )
}

fn bytes(c: &Computation, id: usize) -> i64 {
    let i = &c.instructions[id];
    if is_alias(&i.op) {
        0
    } else {
        i.shape.byte_size().map(|b| b as i64).unwrap_or(0)
    }
}

/// A topological order of `c`'s instructions chosen to keep peak memory
/// low (see the module doc).
pub fn memory_schedule(c: &Computation) -> Vec<InstrId> {
    let n = c.len();
    // Dependencies: operands, plus the previous ordered (effectful) op.
    let mut deps: Vec<Vec<usize>> = c
        .instructions
        .iter()
        .map(|i| {
            i.operands
                .iter()
                .map(|o| o.index())
                .filter(|&o| o < n)
                .collect()
        })
        .collect();
    let mut last_ordered: Option<usize> = None;
    for (k, i) in c.instructions.iter().enumerate() {
        if i.op.is_nondeterministic() || matches!(i.op, Op::CustomCall { .. }) {
            if let Some(p) = last_ordered {
                deps[k].push(p);
            }
            last_ordered = Some(k);
        }
    }
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut missing: Vec<usize> = vec![0; n];
    for (k, d) in deps.iter_mut().enumerate() {
        d.sort_unstable();
        d.dedup();
        missing[k] = d.len();
        for &p in d.iter() {
            dependents[p].push(k);
        }
    }
    // Remaining (unscheduled) users of each value.
    let mut remaining: Vec<usize> = vec![0; n];
    for i in &c.instructions {
        let mut ops: Vec<usize> = i
            .operands
            .iter()
            .map(|o| o.index())
            .filter(|&o| o < n)
            .collect();
        ops.sort_unstable();
        ops.dedup();
        for o in ops {
            remaining[o] += 1;
        }
    }
    let size: Vec<i64> = (0..n).map(|k| bytes(c, k)).collect();
    let mut ready: Vec<usize> = (0..n).filter(|&k| missing[k] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while !ready.is_empty() {
        let score = |k: usize| -> i64 {
            if is_alias(&c.instructions[k].op) {
                // A view keeps its operands' storage alive.
                return 0;
            }
            let mut ops: Vec<usize> = c.instructions[k]
                .operands
                .iter()
                .map(|o| o.index())
                .filter(|&o| o < n)
                .collect();
            ops.sort_unstable();
            ops.dedup();
            let freed: i64 = ops
                .iter()
                .filter(|&&o| remaining[o] == 1)
                .map(|&o| size[o])
                .sum();
            freed - size[k]
        };
        let (pos, &best) = ready
            .iter()
            .enumerate()
            .max_by_key(|&(_, &k)| (score(k), std::cmp::Reverse(k)))
            .expect("ready is not empty");
        ready.swap_remove(pos);
        order.push(InstrId(best as u32));
        let mut ops: Vec<usize> = c.instructions[best]
            .operands
            .iter()
            .map(|o| o.index())
            .filter(|&o| o < n)
            .collect();
        ops.sort_unstable();
        ops.dedup();
        for o in ops {
            remaining[o] -= 1;
        }
        for &d in &dependents[best] {
            missing[d] -= 1;
            if missing[d] == 0 {
                ready.push(d);
            }
        }
    }
    order
}
