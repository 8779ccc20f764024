//! Raising: an extracted choice (one node per needed e-class) → the
//! instructions of a new computation. An instruction whose original node
//! was chosen survives with its name, shape (layout) and attributes; a new
//! node becomes a new instruction with a fresh readable name (its opcode,
//! made unique module-wide) and the metadata of the instruction whose
//! class it stands for. Parameters and side-effecting instructions are
//! always kept. Errors (a cycle, a missing choice, an attribute of the
//! wrong kind) leave the caller to keep the computation unchanged.

use crate::simplify::analysis::{HloGraph, attr_of, shape_of};
use crate::simplify::cost::Choice;
use crate::simplify::lang::{Attr, Hlo};
use crate::simplify::lower::Lowered;
use crate::util::fresh_name;
use egg::{Id, Language};
use rxla_ir::{
    ArrayShape, CompId, Computation, DotDims, InstrId, Instruction, Literal, Op, PadDim, Shape,
};
use std::collections::{HashMap, HashSet};

/// Canonical form of a node (children replaced by their class leaders).
pub fn canonical(eg: &HloGraph, node: &Hlo) -> Hlo {
    node.clone().map_children(|c| eg.find(c))
}

/// Whether instruction `i` must be kept whatever is chosen.
pub fn forced(instr: &Instruction) -> bool {
    matches!(instr.op, Op::Parameter { .. }) || instr.op.has_side_effect()
}

/// The operand children of a node (attribute leaves skipped).
pub fn operand_children(node: &Hlo) -> &[Id] {
    let ch = node.children();
    match node {
        Hlo::Compare(_)
        | Hlo::Convert(_)
        | Hlo::Reshape(_)
        | Hlo::Transpose(_)
        | Hlo::Broadcast(_)
        | Hlo::Reverse(_)
        | Hlo::Slice(_)
        | Hlo::Concatenate(_)
        | Hlo::Pad(_)
        | Hlo::Dot(_)
        | Hlo::Reduce(_) => &ch[1..],
        _ => ch,
    }
}

struct Raiser<'a> {
    eg: &'a HloGraph,
    comp: &'a Computation,
    low: &'a Lowered,
    choice: &'a Choice,
    taken: &'a mut HashSet<String>,
    /// class → original instructions lowered into it, with their
    /// canonical nodes.
    originals: HashMap<Id, Vec<(Hlo, usize)>>,
    by_name: HashMap<&'a str, usize>,
    out: Vec<Instruction>,
    class_map: HashMap<Id, InstrId>,
    instr_map: Vec<Option<InstrId>>,
}

/// Builds the new instruction list and root of `comp` from `choice`.
pub fn raise(
    eg: &HloGraph,
    comp: &Computation,
    low: &Lowered,
    choice: &Choice,
    taken: &mut HashSet<String>,
) -> Result<Computation, String> {
    let mut originals: HashMap<Id, Vec<(Hlo, usize)>> = HashMap::new();
    for (i, n) in low.nodes.iter().enumerate() {
        originals
            .entry(eg.find(low.classes[i]))
            .or_default()
            .push((canonical(eg, n), i));
    }
    let mut r = Raiser {
        eg,
        comp,
        low,
        choice,
        taken,
        originals,
        by_name: comp
            .instructions
            .iter()
            .enumerate()
            .map(|(i, x)| (x.name.as_str(), i))
            .collect(),
        out: Vec::new(),
        class_map: HashMap::new(),
        instr_map: vec![None; comp.len()],
    };
    for (i, instr) in comp.instructions.iter().enumerate() {
        if forced(instr) {
            r.emit_original(i)?;
        }
    }
    let root = r.emit(eg.find(low.classes[comp.root.index()]))?;
    let mut c = Computation::new(comp.name.clone());
    c.instructions = r.out;
    c.root = root;
    c.topo_sort().map_err(|e| e.to_string())?;
    Ok(c)
}

impl Raiser<'_> {
    /// Emits the original instruction `i` (operands through their classes).
    fn emit_original(&mut self, i: usize) -> Result<InstrId, String> {
        if let Some(id) = self.instr_map[i] {
            return Ok(id);
        }
        let instr = &self.comp.instructions[i];
        let node = &self.low.nodes[i];
        let mut ops = Vec::with_capacity(instr.operands.len());
        for &c in operand_children(node) {
            ops.push(self.emit(self.eg.find(c))?);
        }
        if ops.len() != instr.operands.len() {
            return Err(format!("{}: operand count changed", instr.name));
        }
        let mut copy = instr.clone();
        copy.operands = ops;
        self.out.push(copy);
        let id = InstrId((self.out.len() - 1) as u32);
        self.instr_map[i] = Some(id);
        self.class_map
            .entry(self.eg.find(self.low.classes[i]))
            .or_insert(id);
        Ok(id)
    }

    /// Emits the chosen term of `class` (iteratively: operands first).
    fn emit(&mut self, class: Id) -> Result<InstrId, String> {
        let mut stack: Vec<(Id, bool)> = vec![(class, false)];
        let mut on_stack: HashSet<Id> = HashSet::new();
        while let Some((c, expanded)) = stack.pop() {
            if self.class_map.contains_key(&c) {
                continue;
            }
            let node = self
                .choice
                .get(&c)
                .ok_or_else(|| format!("no choice for class {c}"))?;
            if expanded {
                on_stack.remove(&c);
                self.emit_node(c, node)?;
                continue;
            }
            if !on_stack.insert(c) {
                return Err(format!("cycle through class {c}"));
            }
            stack.push((c, true));
            for &ch in operand_children(node).iter().rev() {
                let ch = self.eg.find(ch);
                if !self.class_map.contains_key(&ch) {
                    if on_stack.contains(&ch) {
                        return Err(format!("cycle through class {ch}"));
                    }
                    stack.push((ch, false));
                }
            }
        }
        self.class_map
            .get(&class)
            .copied()
            .ok_or_else(|| format!("class {class} was not emitted"))
    }

    /// Emits one node whose operand classes are already emitted.
    fn emit_node(&mut self, class: Id, node: &Hlo) -> Result<(), String> {
        let canon = canonical(self.eg, node);
        if let Hlo::Opaque(name, _) = node {
            let i = *self
                .by_name
                .get(name.as_str())
                .ok_or_else(|| format!("unknown opaque instruction {name}"))?;
            let id = self.emit_original(i)?;
            self.class_map.insert(class, id);
            return Ok(());
        }
        let same = self
            .originals
            .get(&class)
            .and_then(|v| v.iter().find(|(n, _)| *n == canon).map(|(_, i)| *i));
        if let Some(i) = same {
            let id = self.emit_original(i)?;
            self.class_map.insert(class, id);
            return Ok(());
        }
        let ops: Vec<InstrId> = operand_children(node)
            .iter()
            .map(|&c| {
                self.class_map
                    .get(&self.eg.find(c))
                    .copied()
                    .ok_or_else(|| format!("operand class {c} not emitted"))
            })
            .collect::<Result<_, _>>()?;
        let op = self.op_of(node)?;
        let sh = shape_of(self.eg, class).ok_or_else(|| format!("class {class} has no shape"))?;
        let shape =
            Shape::Array(ArrayShape::new(sh.ty, sh.dims.clone()).map_err(|e| e.to_string())?);
        let name = fresh_name(self.taken, op.opcode());
        let mut instr = Instruction::new(name, op, ops, shape);
        if let Some(orig) = self.originals.get(&class).and_then(|v| v.first()) {
            let o = &self.comp.instructions[orig.1];
            instr.attrs = o
                .attrs
                .iter()
                .filter(|(k, _)| k == "metadata")
                .cloned()
                .collect();
        }
        self.out.push(instr);
        self.class_map
            .insert(class, InstrId((self.out.len() - 1) as u32));
        Ok(())
    }

    fn attr(&self, id: Id) -> Result<&Attr, String> {
        attr_of(self.eg, id).ok_or_else(|| format!("class {id} is not an attribute"))
    }

    fn op_of(&self, node: &Hlo) -> Result<Op, String> {
        if let Some((u, _)) = node.as_unary() {
            return Ok(Op::Unary(u));
        }
        if let Some((b, _, _)) = node.as_binary() {
            return Ok(Op::Binary(b));
        }
        let bad = |what: &str| format!("{node}: bad {what} attribute");
        Ok(match node {
            Hlo::Compare([a, _, _]) => match self.attr(*a)? {
                Attr::Cmp { dir, kind } => Op::Compare {
                    direction: *dir,
                    kind: *kind,
                },
                _ => return Err(bad("compare")),
            },
            Hlo::Select(_) => Op::Select,
            Hlo::Clamp(_) => Op::Clamp,
            Hlo::Convert(_) => Op::Convert,
            Hlo::Copy(_) => Op::Copy,
            Hlo::Reshape(_) => Op::Reshape,
            Hlo::Transpose([a, _]) => match self.attr(*a)? {
                Attr::Ints(p) => Op::Transpose {
                    permutation: p.clone(),
                },
                _ => return Err(bad("transpose")),
            },
            Hlo::Broadcast([a, _]) => match self.attr(*a)? {
                Attr::Bcast { map, .. } => Op::Broadcast {
                    dimensions: map.clone(),
                },
                _ => return Err(bad("broadcast")),
            },
            Hlo::Reverse([a, _]) => match self.attr(*a)? {
                Attr::Ints(d) => Op::Reverse {
                    dimensions: d.clone(),
                },
                _ => return Err(bad("reverse")),
            },
            Hlo::Slice([a, _]) => match self.attr(*a)? {
                Attr::Slice {
                    starts,
                    limits,
                    strides,
                } => Op::Slice {
                    starts: starts.clone(),
                    limits: limits.clone(),
                    strides: strides.clone(),
                },
                _ => return Err(bad("slice")),
            },
            Hlo::Concatenate(ids) => match self.attr(ids[0])? {
                Attr::Ints(d) if d.len() == 1 => Op::Concatenate { dimension: d[0] },
                _ => return Err(bad("concatenate")),
            },
            Hlo::Pad([a, _, _]) => match self.attr(*a)? {
                Attr::Pad(cfg) => Op::Pad {
                    config: cfg
                        .iter()
                        .map(|&(low, high, interior)| PadDim {
                            low,
                            high,
                            interior,
                        })
                        .collect(),
                },
                _ => return Err(bad("pad")),
            },
            Hlo::Dot([a, _, _]) => match self.attr(*a)? {
                Attr::Dot { lb, lc, rb, rc } => Op::Dot {
                    dims: DotDims {
                        lhs_batch: lb.clone(),
                        lhs_contracting: lc.clone(),
                        rhs_batch: rb.clone(),
                        rhs_contracting: rc.clone(),
                    },
                },
                _ => return Err(bad("dot")),
            },
            Hlo::Reduce([a, _, _]) => match self.attr(*a)? {
                Attr::Reduce { dims, comp } => Op::Reduce {
                    dimensions: dims.clone(),
                    to_apply: CompId(*comp),
                },
                _ => return Err(bad("reduce")),
            },
            Hlo::Const(c) => Op::Constant {
                literal: Literal::Array(c.to_literal().map_err(|e| e.to_string())?),
            },
            _ => return Err(format!("{node} cannot be raised")),
        })
    }
}
