//! The memory and depth a compiled plan needs, measured once at compile
//! time (without recursion) and checked against `RunOptions::max_memory`
//! before a run allocates anything. An upper estimate: every step buffer
//! of every nested program (the runtime keeps them for reuse), both
//! halves of each while carry, relayout scratch.

use crate::plan::{Program, Step};
use rxla_ir::Module;

/// What a plan needs.
#[derive(Clone, Debug, Default)]
pub struct PlanBudget {
    /// Bytes of every step buffer together.
    pub bytes: u64,
    /// The largest single step: `(bytes, "computation/instruction")`.
    pub largest: (u64, String),
    /// Nesting depth of programs (1 = the entry calls nothing).
    pub depth: usize,
}

fn sum(v: &[usize]) -> u64 {
    v.iter().map(|&n| n as u64).fold(0, u64::saturating_add)
}

fn leaf_plan_bytes(p: &crate::plan::LeafPlan) -> u64 {
    p.iter()
        .flatten()
        .map(|b| b.1.byte_size().map(|n| n as u64).unwrap_or(u64::MAX))
        .fold(0, u64::saturating_add)
}

/// Own bytes of one step (nested programs are counted separately).
fn step_bytes(step: &Step, sizes: &[usize], writes_output: bool) -> u64 {
    match step {
        Step::Dead
        | Step::Param(_)
        | Step::Const(_)
        | Step::Alias { .. }
        | Step::Tuple
        | Step::Token
        | Step::Outfeed(_)
        | Step::Call(_)
        | Step::Conditional(_)
        // Writes into its operand's buffer.
        | Step::DusInPlace(_) => 0,
        Step::Leaves { bytes, .. } => sum(bytes),
        Step::Select { branches, .. } => branches
            .iter()
            .map(|b| step_bytes(b, sizes, false))
            .max()
            .unwrap_or(0),
        Step::Kernel { post, .. } => {
            let own = if writes_output && post.is_none() {
                0
            } else {
                sum(sizes)
            };
            own.saturating_add(post.as_ref().map_or(0, |p| sum(&p.scratch_bytes)))
        }
        Step::RowGather(_) => {
            if writes_output {
                0
            } else {
                sum(sizes)
            }
        }
        Step::Gemm { types, .. } => {
            let own = if writes_output { 0 } else { sum(sizes) };
            // Half dots widen their operands and result to f32 scratch.
            let half = types.iter().any(|t| *t != rxla_ir::ElementType::F32);
            own.saturating_add(if half {
                sum(sizes).saturating_mul(2)
            } else {
                0
            })
        }
        Step::While { init, .. } => sum(sizes)
            .saturating_mul(2)
            .saturating_add(init.as_ref().map_or(0, leaf_plan_bytes)),
        Step::AllReduce { single, .. } => sum(sizes).max(step_bytes(single, sizes, false)),
        Step::Fallback(_)
        | Step::ColReduce(_)
        | Step::Fft(_)
        | Step::Complex(_)
        | Step::Sort(_)
        | Step::TopK(_)
        | Step::Rng(_)
        | Step::RngBits(_)
        | Step::CustomCall(_)
        | Step::Infeed(_) => sum(sizes),
    }
}

/// Measures `entry` (the executable's plan) with an explicit stack.
pub fn measure(module: &Module, entry: &Program) -> PlanBudget {
    let mut b = PlanBudget::default();
    let mut stack: Vec<(&Program, usize, bool)> = vec![(entry, 1, true)];
    while let Some((prog, depth, is_entry)) = stack.pop() {
        b.depth = b.depth.max(depth);
        for plan in prog.entry.iter().flatten() {
            b.bytes = b.bytes.saturating_add(leaf_plan_bytes(plan));
        }
        if let Some(p) = &prog.exit {
            b.bytes = b.bytes.saturating_add(leaf_plan_bytes(p));
        }
        for (i, step) in prog.steps.iter().enumerate() {
            let sizes = prog.leaf_bytes.get(i).map(Vec::as_slice).unwrap_or(&[]);
            let writes_output = is_entry && i == prog.root.index();
            let own = step_bytes(step, sizes, writes_output);
            b.bytes = b.bytes.saturating_add(own);
            if own > b.largest.0 {
                let name = module
                    .computations
                    .get(prog.comp.index())
                    .and_then(|c| c.instructions.get(i).map(|x| (c, x)))
                    .map(|(c, x)| format!("{}/{}", c.name, x.name))
                    .unwrap_or_else(|| format!("instruction #{i}"));
                b.largest = (own, name);
            }
            match step {
                Step::Call(p) => stack.push((p, depth + 1, false)),
                Step::Conditional(ps) => {
                    stack.extend(ps.iter().map(|p| (p, depth + 1, false)));
                }
                Step::While { cond, body, .. } => {
                    stack.push((cond, depth + 1, false));
                    stack.push((body, depth + 1, false));
                }
                _ => {}
            }
        }
    }
    b
}
