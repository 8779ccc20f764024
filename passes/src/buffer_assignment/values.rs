//! Values and liveness over a schedule. Every array leaf of every
//! instruction result is either a new value (it needs storage) or a view
//! of an operand's value (`bitcast`, `tuple`, `get-tuple-element`,
//! `opt-barrier`). A value is live from the position of its defining
//! instruction to the last position of an instruction reading it directly
//! or through a view; values reachable from the root are live to the end.
//! Analysis only.

use super::schedule::is_alias;
use crate::error::{PassError, Result};
use rxla_ir::{Computation, InstrId, Op};

/// One value: storage needed by one array leaf.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Value {
    /// The instruction defining it and the leaf index in its result.
    pub instr: InstrId,
    pub leaf: usize,
    /// Physical size in bytes.
    pub size: usize,
    /// Schedule positions: defined at `def`, last read at `last_use`
    /// (`def` when never read); `live_out` values live to the end.
    pub def: usize,
    pub last_use: usize,
    pub live_out: bool,
}

/// The values of a computation and, per instruction leaf, the value it
/// names.
#[derive(Clone, Debug)]
pub struct Values {
    pub values: Vec<Value>,
    /// `leaf_value[instr][leaf]`: the value stored at that leaf.
    pub leaf_value: Vec<Vec<usize>>,
}

/// Computes values and liveness of `c` under `schedule` (a permutation of
/// its instruction ids in dependency order).
pub fn analyze(c: &Computation, schedule: &[InstrId]) -> Result<Values> {
    let n = c.len();
    let mut pos = vec![usize::MAX; n];
    for (p, id) in schedule.iter().enumerate() {
        *pos.get_mut(id.index())
            .ok_or_else(|| bad(c, "the schedule names an unknown instruction"))? = p;
    }
    if pos.contains(&usize::MAX) || schedule.len() != n {
        return Err(bad(c, "the schedule does not cover every instruction once"));
    }
    let mut values: Vec<Value> = Vec::new();
    let mut leaf_value: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &id in schedule {
        let i = c.get(id);
        let leaves = i.shape.leaves();
        let operand_leaves = |k: usize| -> Result<&Vec<usize>> {
            let o = i
                .operands
                .get(k)
                .ok_or_else(|| bad(c, &format!("{} lacks operand {k}", i.name)))?;
            if pos[o.index()] >= pos[id.index()] {
                return Err(bad(
                    c,
                    &format!("{} is scheduled before its operand", i.name),
                ));
            }
            Ok(&leaf_value[o.index()])
        };
        let names: Vec<usize> = match &i.op {
            Op::Bitcast | Op::OptimizationBarrier => operand_leaves(0)?.clone(),
            Op::Tuple => {
                let mut v = Vec::new();
                for k in 0..i.operands.len() {
                    v.extend(operand_leaves(k)?.iter().copied());
                }
                v
            }
            Op::GetTupleElement { index } => {
                let o = c.get(i.operands[0]);
                let elems = o
                    .shape
                    .tuple_elements()
                    .ok_or_else(|| bad(c, &format!("{}: operand is not a tuple", i.name)))?;
                let k = usize::try_from(*index).map_err(|_| bad(c, "negative tuple index"))?;
                let start: usize = elems.iter().take(k).map(|e| e.leaves().len()).sum();
                let len = elems.get(k).map(|e| e.leaves().len()).unwrap_or(0);
                operand_leaves(0)?
                    .get(start..start + len)
                    .ok_or_else(|| bad(c, &format!("{}: tuple index out of range", i.name)))?
                    .to_vec()
            }
            _ => {
                let mut v = Vec::new();
                for (leaf, s) in leaves.iter().enumerate() {
                    v.push(values.len());
                    values.push(Value {
                        instr: id,
                        leaf,
                        size: s.byte_size().map_err(|e| bad(c, &e.to_string()))?,
                        def: pos[id.index()],
                        last_use: pos[id.index()],
                        live_out: false,
                    });
                }
                v
            }
        };
        if names.len() != leaves.len() && is_alias(&i.op) {
            return Err(bad(
                c,
                &format!("{}: its view does not match its shape", i.name),
            ));
        }
        leaf_value[id.index()] = names;
    }
    // Last uses: a reader keeps every value its operand names alive.
    for &id in schedule {
        let i = c.get(id);
        if is_alias(&i.op) {
            continue;
        }
        for o in &i.operands {
            for &v in &leaf_value[o.index()] {
                values[v].last_use = values[v].last_use.max(pos[id.index()]);
            }
        }
    }
    // A view that is itself read later is handled by its readers naming
    // the same values; the root's values live to the end.
    for &v in leaf_value.get(c.root.index()).into_iter().flatten() {
        values[v].live_out = true;
        values[v].last_use = n;
    }
    Ok(Values { values, leaf_value })
}

fn bad(c: &Computation, what: &str) -> PassError {
    PassError::failed(
        "buffer-assignment",
        format!("computation {}: {what}", c.name),
    )
}
