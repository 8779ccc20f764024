//! The SSA graph: a [`Module`] holds [`Computation`]s (one is the ENTRY),
//! each a list of [`Instruction`]s in SSA order (operands are earlier
//! instructions of the same computation). This module only stores and
//! navigates; building with shape inference is `builder`, checking is
//! `verifier`, text is `text`.

use crate::error::{IrError, Result};
use crate::ops::{CompId, InstrId, Op};
use crate::shape::{ProgramShape, Shape};

/// One instruction: a named op applied to earlier instructions.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    pub name: String,
    pub op: Op,
    pub operands: Vec<InstrId>,
    pub shape: Shape,
    /// Attributes kept verbatim for printing back, in source order:
    /// `metadata`, `backend_config`, `frontend_attributes`, `sharding`,
    /// and any attribute the IR does not model. Key and raw value text.
    pub attrs: Vec<(String, String)>,
}

impl Instruction {
    pub fn new(name: impl Into<String>, op: Op, operands: Vec<InstrId>, shape: Shape) -> Self {
        Instruction {
            name: name.into(),
            op,
            operands,
            shape,
            attrs: Vec::new(),
        }
    }

    pub fn opcode(&self) -> &'static str {
        self.op.opcode()
    }

    /// The verbatim attribute `key`, if present.
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// A computation: instructions in SSA order and a root.
#[derive(Clone, Debug, PartialEq)]
pub struct Computation {
    pub name: String,
    pub instructions: Vec<Instruction>,
    pub root: InstrId,
}

impl Computation {
    pub fn new(name: impl Into<String>) -> Computation {
        Computation {
            name: name.into(),
            instructions: Vec::new(),
            root: InstrId(0),
        }
    }

    pub fn get(&self, id: InstrId) -> &Instruction {
        &self.instructions[id.index()]
    }

    pub fn get_mut(&mut self, id: InstrId) -> &mut Instruction {
        &mut self.instructions[id.index()]
    }

    pub fn root_instruction(&self) -> &Instruction {
        self.get(self.root)
    }

    /// Appends an instruction (no checks) and returns its id.
    pub fn push(&mut self, instr: Instruction) -> InstrId {
        self.instructions.push(instr);
        InstrId((self.instructions.len() - 1) as u32)
    }

    pub fn len(&self) -> usize {
        self.instructions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.instructions.is_empty()
    }

    pub fn ids(&self) -> impl Iterator<Item = InstrId> + '_ {
        (0..self.instructions.len() as u32).map(InstrId)
    }

    /// Parameter instructions ordered by parameter number.
    pub fn parameters(&self) -> Vec<InstrId> {
        let mut ps: Vec<(i64, InstrId)> = self
            .ids()
            .filter_map(|id| match self.get(id).op {
                Op::Parameter { number } => Some((number, id)),
                _ => None,
            })
            .collect();
        ps.sort();
        ps.into_iter().map(|(_, id)| id).collect()
    }

    /// Parameter shapes (by number) and root shape.
    pub fn program_shape(&self) -> ProgramShape {
        ProgramShape {
            parameters: self
                .parameters()
                .into_iter()
                .map(|id| self.get(id).shape.clone())
                .collect(),
            result: self
                .instructions
                .get(self.root.index())
                .map(|i| i.shape.clone())
                .unwrap_or(Shape::Tuple(vec![])),
        }
    }

    /// Finds an instruction by name.
    pub fn find(&self, name: &str) -> Option<InstrId> {
        self.ids().find(|&id| self.get(id).name == name)
    }

    /// For each instruction, the ids of instructions using it (in order,
    /// one entry per use).
    pub fn users(&self) -> Vec<Vec<InstrId>> {
        let mut users = vec![Vec::new(); self.instructions.len()];
        for id in self.ids() {
            for &op in &self.get(id).operands {
                if let Some(u) = users.get_mut(op.index()) {
                    u.push(id);
                }
            }
        }
        users
    }

    /// Instructions reachable from the root (and side-effecting ones),
    /// as a mask.
    pub fn live_mask(&self) -> Vec<bool> {
        let mut live = vec![false; self.instructions.len()];
        let mut stack: Vec<InstrId> = vec![self.root];
        for id in self.ids() {
            let i = self.get(id);
            if i.op.has_side_effect() || matches!(i.op, Op::Parameter { .. }) {
                stack.push(id);
            }
        }
        while let Some(id) = stack.pop() {
            if id.index() >= live.len() || live[id.index()] {
                continue;
            }
            live[id.index()] = true;
            stack.extend(self.get(id).operands.iter().copied());
        }
        live
    }

    /// Keeps only instructions with `keep[i]`, renumbering operands and the
    /// root. Kept instructions must not use dropped ones.
    pub fn retain(&mut self, keep: &[bool]) -> Result<()> {
        let mut remap = vec![None; self.instructions.len()];
        let mut next = 0u32;
        for (i, &k) in keep.iter().enumerate() {
            if k {
                remap[i] = Some(InstrId(next));
                next += 1;
            }
        }
        let old = std::mem::take(&mut self.instructions);
        for (i, mut instr) in old.into_iter().enumerate() {
            if !keep[i] {
                continue;
            }
            for op in &mut instr.operands {
                *op = remap[op.index()].ok_or_else(|| {
                    IrError::verify(format!(
                        "{} keeps operand #{} which was removed",
                        instr.name,
                        op.index()
                    ))
                })?;
            }
            self.instructions.push(instr);
        }
        self.root = remap[self.root.index()]
            .ok_or_else(|| IrError::verify(format!("root of {} was removed", self.name)))?;
        Ok(())
    }

    /// Replaces every use of `from` by `to` (operands and root).
    pub fn replace_uses(&mut self, from: InstrId, to: InstrId) {
        for instr in &mut self.instructions {
            for op in &mut instr.operands {
                if *op == from {
                    *op = to;
                }
            }
        }
        if self.root == from {
            self.root = to;
        }
    }

    /// Reorders instructions so every operand precedes its user (stable
    /// for an already-ordered list). Errors on a cycle.
    pub fn topo_sort(&mut self) -> Result<()> {
        let order = crate::graph::topological_order(self)?;
        let mut pos = vec![0u32; self.instructions.len()];
        for (new, old) in order.iter().enumerate() {
            pos[old.index()] = new as u32;
        }
        let mut old: Vec<Option<Instruction>> = std::mem::take(&mut self.instructions)
            .into_iter()
            .map(Some)
            .collect();
        for id in &order {
            let mut instr = old[id.index()].take().expect("each id once");
            for o in &mut instr.operands {
                *o = InstrId(pos[o.index()]);
            }
            self.instructions.push(instr);
        }
        self.root = InstrId(pos[self.root.index()]);
        Ok(())
    }

    /// A fresh instruction name based on `base` not used in this
    /// computation (`base`, `base.1`, `base.2`, ...).
    pub fn fresh_name(&self, base: &str) -> String {
        let taken: std::collections::HashSet<&str> =
            self.instructions.iter().map(|i| i.name.as_str()).collect();
        if !taken.contains(base) {
            return base.to_string();
        }
        (1..)
            .map(|k| format!("{base}.{k}"))
            .find(|n| !taken.contains(n.as_str()))
            .expect("some name is free")
    }
}

/// A module: computations (callees before callers), one ENTRY.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    pub name: String,
    pub computations: Vec<Computation>,
    pub entry: CompId,
    /// `entry_computation_layout={...}` when given.
    pub entry_layout: Option<ProgramShape>,
    /// Other header attributes verbatim (`is_scheduled=true`,
    /// `replica_count=2`, ...), in source order.
    pub attrs: Vec<(String, String)>,
    /// The FileNames/FunctionNames/FileLocations/StackFrames tables
    /// verbatim (empty when absent).
    pub debug_tables: String,
}

impl Module {
    pub fn new(name: impl Into<String>) -> Module {
        Module {
            name: name.into(),
            computations: Vec::new(),
            entry: CompId(0),
            entry_layout: None,
            attrs: Vec::new(),
            debug_tables: String::new(),
        }
    }

    pub fn comp(&self, id: CompId) -> &Computation {
        &self.computations[id.index()]
    }

    pub fn comp_mut(&mut self, id: CompId) -> &mut Computation {
        &mut self.computations[id.index()]
    }

    pub fn entry_computation(&self) -> &Computation {
        self.comp(self.entry)
    }

    pub fn entry_computation_mut(&mut self) -> &mut Computation {
        let e = self.entry;
        self.comp_mut(e)
    }

    pub fn comp_ids(&self) -> impl Iterator<Item = CompId> + '_ {
        (0..self.computations.len() as u32).map(CompId)
    }

    pub fn find_computation(&self, name: &str) -> Option<CompId> {
        self.comp_ids().find(|&c| self.comp(c).name == name)
    }

    /// Appends a computation and returns its id.
    pub fn add_computation(&mut self, c: Computation) -> CompId {
        self.computations.push(c);
        CompId((self.computations.len() - 1) as u32)
    }

    /// The module's verbatim header attribute `key`.
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// `num_partitions` from the header (1 when absent).
    pub fn num_partitions(&self) -> i64 {
        self.attr("num_partitions")
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(1)
    }

    /// `replica_count` from the header (1 when absent).
    pub fn replica_count(&self) -> i64 {
        self.attr("replica_count")
            .and_then(|v| v.parse().ok())
            .unwrap_or(1)
    }

    /// The entry signature: `entry_layout` when given, else the ENTRY
    /// computation's program shape.
    pub fn entry_program_shape(&self) -> ProgramShape {
        self.entry_layout
            .clone()
            .unwrap_or_else(|| self.entry_computation().program_shape())
    }

    /// Total instruction count over all computations.
    pub fn instruction_count(&self) -> usize {
        self.computations.iter().map(|c| c.len()).sum()
    }

    /// Keeps only computations with `keep[c]`, renumbering called ids and
    /// the entry. Kept computations must not call dropped ones.
    pub fn retain_computations(&mut self, keep: &[bool]) -> Result<()> {
        let mut remap = vec![None; self.computations.len()];
        let mut next = 0u32;
        for (i, &k) in keep.iter().enumerate() {
            if k {
                remap[i] = Some(CompId(next));
                next += 1;
            }
        }
        let old = std::mem::take(&mut self.computations);
        for (i, mut c) in old.into_iter().enumerate() {
            if !keep[i] {
                continue;
            }
            for instr in &mut c.instructions {
                for cid in instr.op.called_computations_mut() {
                    *cid = remap[cid.index()].ok_or_else(|| {
                        IrError::verify(format!(
                            "{} calls a computation that was removed",
                            instr.name
                        ))
                    })?;
                }
            }
            self.computations.push(c);
        }
        self.entry = remap[self.entry.index()]
            .ok_or_else(|| IrError::verify("the ENTRY computation was removed"))?;
        Ok(())
    }

    /// A computation name not used yet, based on `base`.
    pub fn fresh_computation_name(&self, base: &str) -> String {
        let taken: std::collections::HashSet<&str> =
            self.computations.iter().map(|c| c.name.as_str()).collect();
        if !taken.contains(base) {
            return base.to_string();
        }
        (1..)
            .map(|k| format!("{base}.{k}"))
            .find(|n| !taken.contains(n.as_str()))
            .expect("some name is free")
    }
}
