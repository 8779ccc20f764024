//! The interpreter fallback: one instruction run by the reference
//! evaluator on literals read from (and written back to) physical
//! buffers. Used only for instructions without a native code path, and
//! recorded in the compile stats. Must not be used for whole modules.

use crate::error::{JitError, Result};
use rxla_eval::RunOptions;
use rxla_ir::{
    ArrayLiteral, CompId, Computation, InstrId, Instruction, Literal, Module, Op, Shape,
};

/// A single instruction wrapped as the ENTRY of a small module (every
/// computation of the original module kept, so called computations
/// resolve).
pub struct FallbackCall {
    module: Module,
    operand_shapes: Vec<Shape>,
    result_shape: Shape,
}

impl FallbackCall {
    /// Wraps instruction `id` of computation `cid`.
    pub fn new(module: &Module, cid: CompId, id: InstrId) -> Result<FallbackCall> {
        let comp = module.comp(cid);
        let instr = comp.get(id);
        let mut m = Module::new(format!("{}_fallback", module.name));
        // Only an instruction that calls computations needs the module's
        // (their ids stay valid); one that calls none (a dot's guard) gets
        // none, so a fallback per instruction costs its own size, not the
        // module's.
        if !instr.op.called_computations().is_empty() {
            m.computations = module.computations.clone();
        }
        m.attrs = module
            .attrs
            .iter()
            .filter(|(k, _)| k != "replica_count" && k != "num_partitions")
            .cloned()
            .collect();
        let mut c = Computation::new(m.fresh_computation_name("fallback_entry"));
        let mut operand_shapes = Vec::new();
        let mut operands = Vec::new();
        for (k, &o) in instr.operands.iter().enumerate() {
            let shape = comp.get(o).shape.clone();
            operand_shapes.push(shape.clone());
            operands.push(c.push(Instruction::new(
                format!("p{k}"),
                Op::Parameter { number: k as i64 },
                vec![],
                shape,
            )));
        }
        let mut copy = instr.clone();
        copy.operands = operands;
        c.root = c.push(copy);
        m.entry = m.add_computation(c);
        Ok(FallbackCall {
            module: m,
            operand_shapes,
            result_shape: instr.shape.clone(),
        })
    }

    /// Runs the instruction: `operands[k]` are the physical leaf buffers of
    /// operand k; the result's leaves are written into `out` (one buffer
    /// per leaf of the result shape, in the instruction's layouts).
    pub fn run(
        &self,
        operands: &[Vec<&[u8]>],
        out: &mut [&mut [u8]],
        opts: &RunOptions,
    ) -> Result<()> {
        let mut args = Vec::with_capacity(operands.len());
        for (shape, leaves) in self.operand_shapes.iter().zip(operands) {
            let mut pos = 0;
            args.push(literal_from_leaves(shape, leaves, &mut pos)?);
        }
        // One instruction is one replica's work: a replicated run's
        // replica count must not make the evaluator refuse it (the queues
        // stay the caller's unless that count is set).
        let single;
        let opts = if opts.replica_count.is_some_and(|n| n > 1)
            || opts.partition_count.is_some_and(|n| n > 1)
        {
            single = RunOptions {
                seed: opts.seed,
                max_while_iterations: opts.max_while_iterations,
                replica_count: None,
                custom_calls: opts.custom_calls.clone(),
                max_elements: opts.max_elements,
                ..RunOptions::default()
            };
            &single
        } else {
            opts
        };
        let r = rxla_eval::evaluate(&self.module, &args, opts)?;
        let r = r.relayout_to(&self.result_shape).unwrap_or(r);
        let leaves = r.leaves();
        if leaves.len() != out.len() {
            return Err(JitError::input(format!(
                "fallback produced {} leaves, expected {}",
                leaves.len(),
                out.len()
            )));
        }
        for (l, o) in leaves.iter().zip(out.iter_mut()) {
            let bytes = l.to_physical_bytes()?;
            if bytes.len() != o.len() {
                return Err(JitError::input(format!(
                    "fallback result leaf has {} bytes, buffer {}",
                    bytes.len(),
                    o.len()
                )));
            }
            o.copy_from_slice(&bytes);
        }
        Ok(())
    }
}

/// Builds a literal of `shape` from its physical leaf buffers.
pub fn literal_from_leaves(shape: &Shape, leaves: &[&[u8]], pos: &mut usize) -> Result<Literal> {
    match shape {
        Shape::Tuple(ts) => Ok(Literal::Tuple(
            ts.iter()
                .map(|t| literal_from_leaves(t, leaves, pos))
                .collect::<Result<_>>()?,
        )),
        Shape::Array(a) => {
            let bytes = *leaves.get(*pos).ok_or_else(|| {
                JitError::input(format!("missing buffer for a leaf of shape {a}"))
            })?;
            *pos += 1;
            if a.element_type.is_token() {
                return Ok(Literal::token());
            }
            Ok(Literal::Array(ArrayLiteral::from_physical_bytes(
                a.clone(),
                bytes,
            )?))
        }
    }
}
