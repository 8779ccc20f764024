//! The verifier: re-checks every invariant of a module (one ENTRY, unique
//! computation and instruction names, def-before-use, no cycles, root in
//! range, dense parameter numbers, called computations exist and have the
//! right signatures, no recursion, operand counts and types via shape
//! inference, valid layouts, entry_computation_layout consistent with
//! ENTRY). Read-only: it never repairs anything, and never panics on a
//! malformed module.

use crate::error::{IrError, Result};
use crate::graph;
use crate::module::{Computation, Module};
use crate::ops::{CompId, Op};
use crate::shape::Shape;
use crate::shape_inference::infer_shape;
use std::collections::HashSet;

/// Verifies the whole module.
pub fn verify_module(module: &Module) -> Result<()> {
    if module.computations.is_empty() {
        return Err(IrError::verify(format!(
            "module {} has no computations",
            module.name
        )));
    }
    if module.entry.index() >= module.computations.len() {
        return Err(IrError::verify(format!(
            "module {}: the ENTRY id {} is out of range ({} computations)",
            module.name,
            module.entry,
            module.computations.len()
        )));
    }
    let mut names = HashSet::with_capacity(module.computations.len());
    for c in &module.computations {
        if !names.insert(c.name.as_str()) {
            return Err(IrError::verify(format!(
                "module {}: two computations are named {}",
                module.name, c.name
            )));
        }
    }
    for cid in module.comp_ids() {
        check_calls_exist(module, cid)?;
    }
    graph::callees_first(module)?;
    for cid in module.comp_ids() {
        verify_computation(module, cid)?;
    }
    check_entry_layout(module)
}

/// Every called computation id is in range.
fn check_calls_exist(module: &Module, cid: CompId) -> Result<()> {
    let c = module.comp(cid);
    for instr in &c.instructions {
        for callee in instr.op.called_computations() {
            if callee.index() >= module.computations.len() {
                return Err(IrError::verify(format!(
                    "computation {}: instruction {} calls {callee}, which does not exist",
                    c.name, instr.name
                )));
            }
        }
    }
    Ok(())
}

/// Verifies one computation of `module` (structure, then each
/// instruction's shape against shape inference).
pub fn verify_computation(module: &Module, id: CompId) -> Result<()> {
    let c = module
        .computations
        .get(id.index())
        .ok_or_else(|| IrError::verify(format!("computation id {id} is out of range")))?;
    check_structure(c)?;
    check_parameters(c)?;
    for (k, instr) in c.instructions.iter().enumerate() {
        let at = |e: IrError| {
            let msg = match e {
                IrError::Verify(m)
                | IrError::Shape(m)
                | IrError::Literal(m)
                | IrError::Build(m) => m,
                IrError::Parse(p) => p.message,
            };
            IrError::verify(format!(
                "computation {}: instruction {} (#{k}): {msg}",
                c.name, instr.name
            ))
        };
        instr.shape.validate().map_err(at)?;
        for callee in instr.op.called_computations() {
            if callee == id {
                return Err(at(IrError::verify("calls its own computation")));
            }
        }
        if let Op::AsyncUpdate { calls } | Op::AsyncDone { calls } = &instr.op {
            check_async_operand(module, c, instr, *calls).map_err(at)?;
        }
        let operands: Vec<&Shape> = instr
            .operands
            .iter()
            .map(|o| &c.instructions[o.index()].shape)
            .collect();
        let inferred = infer_shape(module, &instr.op, &operands, Some(&instr.shape)).map_err(at)?;
        if !inferred.compatible_dynamic(&instr.shape) {
            return Err(at(IrError::verify(format!(
                "the shape is {} but {} infers {}",
                instr.shape.to_string_no_layout(),
                instr.opcode(),
                inferred.to_string_no_layout()
            ))));
        }
    }
    Ok(())
}

/// An `async-update`/`async-done` takes an `async-start` or
/// `async-update` of the same computation.
fn check_async_operand(
    module: &Module,
    c: &Computation,
    instr: &crate::module::Instruction,
    calls: CompId,
) -> Result<()> {
    let Some(&o) = instr.operands.first() else {
        return Ok(()); // shape inference reports the count
    };
    let Some(src) = c.instructions.get(o.index()) else {
        return Ok(()); // check_structure reports it
    };
    let name = |id: CompId| {
        module
            .computations
            .get(id.index())
            .map_or("?", |c| c.name.as_str())
            .to_string()
    };
    match &src.op {
        Op::AsyncStart { calls: f } | Op::AsyncUpdate { calls: f } if *f == calls => Ok(()),
        Op::AsyncStart { calls: f } | Op::AsyncUpdate { calls: f } => {
            Err(IrError::verify(format!(
                "{} of {} takes {} {}, which calls {}",
                instr.op.opcode(),
                name(calls),
                src.op.opcode(),
                src.name,
                name(*f)
            )))
        }
        op => Err(IrError::verify(format!(
            "{} of {} must take an async-start or async-update of it, got {} {}",
            instr.op.opcode(),
            name(calls),
            op.opcode(),
            src.name
        ))),
    }
}

/// Non-empty, root in range, unique names, operands defined before use.
fn check_structure(c: &Computation) -> Result<()> {
    if c.instructions.is_empty() {
        return Err(IrError::verify(format!(
            "computation {} has no instructions",
            c.name
        )));
    }
    if c.root.index() >= c.len() {
        return Err(IrError::verify(format!(
            "computation {}: the root {} is out of range ({} instructions)",
            c.name,
            c.root,
            c.len()
        )));
    }
    // Sized up front: growing the set rehashes every name (half the
    // verifier's time on a million instructions).
    let mut names = HashSet::with_capacity(c.len());
    for instr in &c.instructions {
        if !names.insert(instr.name.as_str()) {
            return Err(IrError::verify(format!(
                "computation {}: two instructions are named {}",
                c.name, instr.name
            )));
        }
    }
    for (k, instr) in c.instructions.iter().enumerate() {
        for &o in &instr.operands {
            if o.index() >= c.len() {
                return Err(IrError::verify(format!(
                    "computation {}: instruction {} uses operand {o}, which does not exist",
                    c.name, instr.name
                )));
            }
            if o.index() >= k {
                // A forward or self reference: report a cycle when there is
                // one, else the ordering problem.
                graph::topological_order(c)?;
                return Err(IrError::verify(format!(
                    "computation {}: instruction {} uses {} before it is defined",
                    c.name,
                    instr.name,
                    c.instructions[o.index()].name
                )));
            }
        }
    }
    Ok(())
}

/// Parameter numbers are unique and dense (0..N-1); parameters have no
/// operands (checked by shape inference).
fn check_parameters(c: &Computation) -> Result<()> {
    let mut numbers: Vec<(i64, &str)> = c
        .instructions
        .iter()
        .filter_map(|i| match i.op {
            Op::Parameter { number } => Some((number, i.name.as_str())),
            _ => None,
        })
        .collect();
    numbers.sort();
    for (k, &(n, name)) in numbers.iter().enumerate() {
        if n != k as i64 {
            let why = if k > 0 && numbers[k - 1].0 == n {
                format!(
                    "parameter number {n} is used twice (also by {})",
                    numbers[k - 1].1
                )
            } else {
                format!(
                    "parameter numbers must be 0..{} without gaps, found parameter({n})",
                    numbers.len()
                )
            };
            return Err(IrError::verify(format!(
                "computation {}: instruction {name}: {why}",
                c.name
            )));
        }
    }
    Ok(())
}

/// entry_computation_layout (when present) matches the ENTRY's parameters
/// and root (type and dims) and has valid layouts.
fn check_entry_layout(module: &Module) -> Result<()> {
    let Some(layout) = &module.entry_layout else {
        return Ok(());
    };
    let entry = module.entry_computation();
    let actual = entry.program_shape();
    let ctx = |m: String| {
        IrError::verify(format!(
            "module {}: entry_computation_layout: {m}",
            module.name
        ))
    };
    if layout.parameters.len() != actual.parameters.len() {
        return Err(ctx(format!(
            "{} parameters, but ENTRY {} has {}",
            layout.parameters.len(),
            entry.name,
            actual.parameters.len()
        )));
    }
    for (i, (l, a)) in layout.parameters.iter().zip(&actual.parameters).enumerate() {
        l.validate()
            .map_err(|e| ctx(format!("parameter {i}: {e}")))?;
        if !l.compatible_dynamic(a) {
            return Err(ctx(format!(
                "parameter {i} is {} but ENTRY {} takes {}",
                l.to_string_no_layout(),
                entry.name,
                a.to_string_no_layout()
            )));
        }
    }
    layout
        .result
        .validate()
        .map_err(|e| ctx(format!("result: {e}")))?;
    if !layout.result.compatible_dynamic(&actual.result) {
        return Err(ctx(format!(
            "the result is {} but ENTRY {} returns {}",
            layout.result.to_string_no_layout(),
            entry.name,
            actual.result.to_string_no_layout()
        )));
    }
    Ok(())
}
