//! Structured "decisions" of the fusion and buffer-assignment passes, for
//! the report: which fusions a run created (kind, callee, members, inputs)
//! and, per ENTRY instruction in schedule order, which buffer it got and
//! why (parameter, constant, view, in place over an operand, reuse of a
//! freed buffer, new). Derived from the modules and the public buffer
//! assignment API; read-only.

use rxla_ir::{Module, Op};
use rxla_passes::buffer_assignment::schedule::is_alias;
use rxla_passes::buffer_assignment::{BufferKind, BufferOptions, assign_buffers, summary};
use std::collections::BTreeSet;

/// One fusion instruction a pass created.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FusionDecision {
    /// The computation holding the fusion instruction.
    pub computation: String,
    pub fusion: String,
    /// `kLoop`, `kInput`, `kOutput`, ...
    pub kind: String,
    /// The fused computation's name.
    pub callee: String,
    /// The fused instructions (name, opcode), parameters left out.
    pub members: Vec<(String, String)>,
    /// The fusion's operands.
    pub inputs: Vec<String>,
}

/// Fusion instructions in `after` that were not fusions in `before`
/// (matched by computation and instruction name).
pub fn fusion_decisions(before: &Module, after: &Module) -> Vec<FusionDecision> {
    let mut old: BTreeSet<(&str, &str)> = BTreeSet::new();
    for c in &before.computations {
        for i in &c.instructions {
            if matches!(i.op, Op::Fusion { .. }) {
                old.insert((&c.name, &i.name));
            }
        }
    }
    let mut out = Vec::new();
    for c in &after.computations {
        for i in &c.instructions {
            let Op::Fusion { kind, calls } = &i.op else {
                continue;
            };
            if old.contains(&(c.name.as_str(), i.name.as_str())) {
                continue;
            }
            let callee = after.computations.get(calls.index());
            let members = callee
                .map(|f| {
                    f.instructions
                        .iter()
                        .filter(|m| !matches!(m.op, Op::Parameter { .. }))
                        .map(|m| (m.name.clone(), m.opcode().to_string()))
                        .collect()
                })
                .unwrap_or_default();
            out.push(FusionDecision {
                computation: c.name.clone(),
                fusion: i.name.clone(),
                kind: kind.0.clone(),
                callee: callee.map(|f| f.name.clone()).unwrap_or_default(),
                members,
                inputs: i
                    .operands
                    .iter()
                    .filter_map(|o| c.instructions.get(o.index()))
                    .map(|o| o.name.clone())
                    .collect(),
            });
        }
    }
    out
}

/// Where one ENTRY instruction's result lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferRow {
    pub instruction: String,
    pub opcode: String,
    /// Buffer index per array leaf.
    pub buffers: Vec<usize>,
    /// Bytes of the leaves.
    pub bytes: usize,
    /// Offset in the temporary arena (first temporary leaf), if any.
    pub offset: Option<usize>,
    /// Why: `parameter`, `constant`, `view`, `in place over X`,
    /// `reuses buffer of X`, `new buffer`.
    pub why: String,
}

/// The ENTRY buffer assignment as a table plus its one-line summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferDecisions {
    pub summary: String,
    /// Rows in schedule order.
    pub rows: Vec<BufferRow>,
}

/// Assigns buffers to `module` (default options) and explains the ENTRY
/// assignment; `None` when the assignment fails.
pub fn buffer_decisions(module: &Module) -> Option<BufferDecisions> {
    let a = assign_buffers(module, &BufferOptions::default()).ok()?;
    let comp = module.computations.get(module.entry.index())?;
    let e = a.entry();
    // The last instruction that held each buffer.
    let mut holder: Vec<Option<usize>> = vec![None; e.buffers.len()];
    let mut rows = Vec::with_capacity(e.schedule.len());
    for &id in &e.schedule {
        let v = id.index();
        let (Some(instr), Some(slots)) = (comp.instructions.get(v), e.slots.get(v)) else {
            continue;
        };
        let buffers: Vec<usize> = slots.iter().map(|s| s.buffer).collect();
        let bytes = slots.iter().map(|s| s.size).sum();
        let first = slots.iter().find_map(|s| e.buffers.get(s.buffer));
        let offset = slots
            .iter()
            .filter_map(|s| e.buffers.get(s.buffer))
            .find(|b| b.kind == BufferKind::Temp)
            .map(|b| b.offset);
        let name_of = |i: usize| {
            comp.instructions
                .get(i)
                .map(|x| x.name.clone())
                .unwrap_or_default()
        };
        let why = if is_alias(&instr.op) && !matches!(instr.op, Op::Parameter { .. }) {
            "view".to_string()
        } else {
            match first.map(|b| b.kind) {
                Some(BufferKind::Parameter(k)) => format!("parameter {k}"),
                Some(BufferKind::Constant) => "constant".to_string(),
                Some(BufferKind::Temp) | None => {
                    let b = buffers.first().copied();
                    let over = instr.operands.iter().find(|o| {
                        e.slots
                            .get(o.index())
                            .is_some_and(|s| s.iter().any(|s| Some(s.buffer) == b))
                    });
                    match (over, b.and_then(|b| holder.get(b).copied().flatten())) {
                        (Some(o), _) => format!("in place over {}", name_of(o.index())),
                        (None, Some(prev)) => format!("reuses buffer of {}", name_of(prev)),
                        (None, None) => "new buffer".to_string(),
                    }
                }
            }
        };
        for &b in &buffers {
            if let Some(h) = holder.get_mut(b) {
                *h = Some(v);
            }
        }
        rows.push(BufferRow {
            instruction: instr.name.clone(),
            opcode: instr.opcode().to_string(),
            buffers,
            bytes,
            offset,
            why,
        });
    }
    Some(BufferDecisions {
        summary: summary(&a),
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: &str = "HloModule m\n\nENTRY main {\n  x = f32[4]{0} parameter(0)\n  n = f32[4]{0} negate(x)\n  e = f32[4]{0} exponential(n)\n  ROOT a = f32[4]{0} add(e, x)\n}\n";

    #[test]
    fn fusion_decisions_list_new_fusions() {
        let before = rxla_ir::parse_module(M, "m.hlo").unwrap();
        let mut after = before.clone();
        rxla_passes::fusion::fuse_module(&mut after).unwrap();
        let d = fusion_decisions(&before, &after);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].fusion, "a");
        assert_eq!(d[0].kind, "kLoop");
        assert_eq!(d[0].inputs, vec!["x".to_string()]);
        let ops: Vec<&str> = d[0].members.iter().map(|m| m.1.as_str()).collect();
        assert_eq!(ops, vec!["negate", "exponential", "add"]);
        assert!(fusion_decisions(&after, &after).is_empty());
    }

    #[test]
    fn buffer_decisions_explain_each_value() {
        let m = rxla_ir::parse_module(M, "m.hlo").unwrap();
        let d = buffer_decisions(&m).unwrap();
        let why: Vec<(&str, &str)> = d
            .rows
            .iter()
            .map(|r| (r.instruction.as_str(), r.why.as_str()))
            .collect();
        assert_eq!(
            why,
            vec![
                ("x", "parameter 0"),
                ("n", "new buffer"),
                ("e", "in place over n"),
                ("a", "in place over e"),
            ]
        );
        assert!(d.summary.starts_with("buffers: "), "{}", d.summary);
    }
}
