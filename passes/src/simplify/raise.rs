//! Raising: an extracted choice (one node per needed e-class) → the
//! instructions of a new computation. An instruction whose original node
//! was chosen survives with its name, shape (layout) and attributes; a new
//! node becomes a new instruction with a fresh readable name (its opcode,
//! made unique module-wide) and the metadata of the instruction whose
//! class it stands for. Parameters and side-effecting instructions are
//! always kept. Errors (a cycle, a missing choice, an attribute of the
//! wrong kind, a value wanted in another type or tuple structure) leave
//! the caller to keep the computation unchanged.
//!
//! Layouts. E-classes are logical values, so physical placement is
//! decided here, by what each user needs ([`Want`]):
//!
//! - the root is emitted in exactly the original root's shape (layouts
//!   included), and every kept opaque instruction (bitcasts, calls,
//!   custom calls, while, ...), bitcast (also one modeled as a reshape),
//!   tuple and `get-tuple-element` gets each operand in exactly its
//!   original operand's shape;
//! - an elementwise node (kept or new) gets its same-dims operands in its
//!   own layout (what layout assignment would give them), a new tuple its
//!   elements in the wanted element layouts, any other modeled node its
//!   operands in whatever layout they come (its value is logical);
//! - a new array node takes the wanted layout, or else the layout of the
//!   first original instruction of its class (the default otherwise); a
//!   `get-tuple-element` takes its element's layout;
//! - a value already emitted (or an original whose layout is fixed) in
//!   another layout than wanted is relaid out by a new `copy` (a tuple
//!   node is rebuilt from its elements in the wanted layouts; another
//!   tuple is relaid out element by element, `tuple(copy(gte(t, 0)),
//!   ...)`). The caller counts those copies, tuples and
//!   `get-tuple-element`s in the cost ([`Raised::added_copies`],
//!   [`relayout_cost`]), so a rewrite that needs them must pay for them.

use crate::simplify::analysis::{HloGraph, attr_of, shape_of};
use crate::simplify::cost::{Choice, TUPLE_NODE_COST};
use crate::simplify::lang::{Attr, Hlo};
use crate::simplify::lower::Lowered;
use crate::util::fresh_name;
use egg::{Id, Language};
use rxla_ir::{
    ArrayShape, CompId, Computation, DotDims, InstrId, Instruction, Layout, Literal, Op, PadDim,
    Shape,
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
        | Hlo::Reduce(_)
        | Hlo::Gte(_) => &ch[1..],
        _ => ch,
    }
}

/// What a user needs of a value.
#[derive(Clone, Debug, PartialEq)]
enum Want {
    /// Any layout: the value is read logically.
    Any,
    /// Exactly this shape, layouts included.
    Exact(Shape),
}

/// How a class is emitted.
enum How {
    /// As original instruction `i`.
    Original(usize),
    /// As a new instruction from the chosen node, arrays in this layout.
    New(Option<Layout>),
}

/// A class's emission: how, and what it needs of its operand classes.
struct Plan {
    how: How,
    children: Vec<(Id, Want)>,
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
    /// Every instruction emitted for a class (first: its own emission,
    /// then relayout copies).
    emitted: HashMap<Id, Vec<InstrId>>,
    instr_map: Vec<Option<InstrId>>,
    /// What the relayout copies, tuples and `get-tuple-element`s added
    /// here cost as e-graph nodes (the extraction did not count them).
    added_copies: f64,
}

/// A raised computation.
pub struct Raised {
    pub comp: Computation,
    /// The node cost of the relayout copies (and tuples) raising added
    /// (see [`relayout_cost`] for the rest of a copy's price).
    pub added_copies: f64,
}

/// The cost of the layout-changing copies among `comp`'s instructions
/// (only those `live`, when given): bytes read and written. The e-graph
/// prices a copy as nearly free (it is a logical identity), so the pass
/// adds this to both sides of its comparison.
pub fn relayout_cost(comp: &Computation, live: Option<&[bool]>) -> f64 {
    comp.instructions
        .iter()
        .enumerate()
        .filter(|(i, _)| live.is_none_or(|l| l.get(*i).copied().unwrap_or(false)))
        .filter_map(|(_, instr)| match (&instr.op, instr.operands.first()) {
            (Op::Copy, Some(o)) => {
                let from = &comp.instructions.get(o.index())?.shape;
                (from != &instr.shape).then(|| {
                    let bytes: f64 = instr
                        .shape
                        .leaves()
                        .iter()
                        .map(|a| a.byte_size().map(|b| b as f64).unwrap_or(0.0))
                        .sum();
                    2.0 + 2.0 * bytes
                })
            }
            _ => None,
        })
        .sum()
}

/// Builds the new instruction list and root of `comp` from `choice`.
pub fn raise(
    eg: &HloGraph,
    comp: &Computation,
    low: &Lowered,
    choice: &Choice,
    taken: &mut HashSet<String>,
) -> Result<Raised, String> {
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
        emitted: HashMap::new(),
        instr_map: vec![None; comp.len()],
        added_copies: 0.0,
    };
    for (i, instr) in comp.instructions.iter().enumerate() {
        if forced(instr) {
            let children = r.original_children(i)?;
            for (c, w) in &children {
                r.emit(*c, w.clone())?;
            }
            let id = r.emit_original(i, &children)?;
            let class = eg.find(low.classes[i]);
            let v = r.emitted.entry(class).or_default();
            if !v.contains(&id) {
                v.push(id);
            }
        }
    }
    let root_shape = comp.instructions[comp.root.index()].shape.clone();
    let root = r.emit(
        eg.find(low.classes[comp.root.index()]),
        Want::Exact(root_shape),
    )?;
    let mut c = Computation::new(comp.name.clone());
    c.instructions = r.out;
    c.root = root;
    c.topo_sort().map_err(|e| e.to_string())?;
    Ok(Raised {
        comp: c,
        added_copies: r.added_copies,
    })
}

/// Whether a node computes each element from the same element of its
/// operands (so its operands are best read in its own layout).
fn elementwise(node: &Hlo) -> bool {
    node.as_unary().is_some()
        || node.as_binary().is_some()
        || matches!(
            node,
            Hlo::Compare(_) | Hlo::Select(_) | Hlo::Clamp(_) | Hlo::Convert(_) | Hlo::Copy(_)
        )
}

impl Raiser<'_> {
    /// The instruction emitted for `class` that satisfies `want`.
    fn lookup(&self, class: Id, want: &Want) -> Option<InstrId> {
        let v = self.emitted.get(&class)?;
        match want {
            Want::Any => v.first().copied(),
            Want::Exact(s) => v
                .iter()
                .copied()
                .find(|id| &self.out[id.index()].shape == s),
        }
    }

    /// The operand classes of original instruction `i` and what it wants
    /// of them: an opaque instruction, a tuple or a `get-tuple-element`
    /// exactly its original operands' shapes (a bitcast reads bytes; a
    /// call, a loop, a custom call have signatures); an elementwise one
    /// its same-dims operands in its own layout; any other modeled one any
    /// layout (its value is logical).
    fn original_children(&self, i: usize) -> Result<Vec<(Id, Want)>, String> {
        let instr = &self.comp.instructions[i];
        let node = &self.low.nodes[i];
        let classes = operand_children(node);
        if classes.len() != instr.operands.len() {
            return Err(format!("{}: operand count changed", instr.name));
        }
        // A kept bitcast (lowered as a reshape between default layouts)
        // still reads bytes: its operand must stay row-major.
        let exact = matches!(node, Hlo::Opaque(..) | Hlo::Tuple(_) | Hlo::Gte(_))
            || matches!(instr.op, Op::Bitcast);
        let own = match &instr.shape {
            Shape::Array(a) if elementwise(node) => Some(a),
            _ => None,
        };
        Ok(classes
            .iter()
            .zip(&instr.operands)
            .map(|(&c, o)| {
                let orig = &self.comp.instructions[o.index()].shape;
                let want = match (orig, own) {
                    _ if exact => Want::Exact(orig.clone()),
                    (Shape::Array(a), Some(r)) if a.dims == r.dims => {
                        Want::Exact(Shape::Array(ArrayShape {
                            element_type: a.element_type,
                            dims: a.dims.clone(),
                            layout: r.layout.clone(),
                            dynamic: a.dynamic,
                        }))
                    }
                    _ => Want::Any,
                };
                (self.eg.find(c), want)
            })
            .collect())
    }

    /// The layout a new array node of `class` takes when any will do: the
    /// first original instruction's of the class, else the default.
    fn preferred_layout(&self, class: Id) -> Option<Layout> {
        self.originals.get(&class).and_then(|v| {
            v.iter()
                .find_map(|(_, i)| match &self.comp.instructions[*i].shape {
                    Shape::Array(a) => Some(a.layout.clone()),
                    Shape::Tuple(_) => None,
                })
        })
    }

    /// How to emit `class` for `want`.
    fn plan(&self, class: Id, want: &Want) -> Result<Plan, String> {
        let node = self
            .choice
            .get(&class)
            .ok_or_else(|| format!("no choice for class {class}"))?;
        if let Hlo::Opaque(name, _) = node {
            let i = *self
                .by_name
                .get(name.as_str())
                .ok_or_else(|| format!("unknown opaque instruction {name}"))?;
            return Ok(Plan {
                how: How::Original(i),
                children: self.original_children(i)?,
            });
        }
        let canon = canonical(self.eg, node);
        if let Some(v) = self.originals.get(&class) {
            let same: Vec<usize> = v
                .iter()
                .filter(|(n, _)| *n == canon)
                .map(|(_, i)| *i)
                .collect();
            let fits = |i: &usize| match want {
                Want::Exact(s) => &self.comp.instructions[*i].shape == s,
                Want::Any => true,
            };
            if let Some(&i) = same.iter().find(|i| fits(i)).or(same.first()) {
                return Ok(Plan {
                    how: How::Original(i),
                    children: self.original_children(i)?,
                });
            }
        }
        let layout = match want {
            Want::Exact(Shape::Array(a)) => Some(a.layout.clone()),
            _ => self.preferred_layout(class),
        };
        let ops = operand_children(node);
        let children = match (node, want) {
            (Hlo::Tuple(_), Want::Exact(Shape::Tuple(elems))) if elems.len() == ops.len() => ops
                .iter()
                .zip(elems)
                .map(|(&c, s)| (self.eg.find(c), Want::Exact(s.clone())))
                .collect(),
            _ if elementwise(node) => {
                let dims = shape_of(self.eg, class).map(|s| s.dims.clone());
                ops.iter()
                    .map(|&c| {
                        let c = self.eg.find(c);
                        let want = match (shape_of(self.eg, c), &dims, &layout) {
                            (Some(s), Some(d), Some(l)) if &s.dims == d => {
                                Want::Exact(Shape::Array(ArrayShape {
                                    element_type: s.ty,
                                    dims: s.dims.clone(),
                                    layout: l.clone(),
                                    dynamic: Default::default(),
                                }))
                            }
                            _ => Want::Any,
                        };
                        (c, want)
                    })
                    .collect()
            }
            _ => ops.iter().map(|&c| (self.eg.find(c), Want::Any)).collect(),
        };
        Ok(Plan {
            how: How::New(layout),
            children,
        })
    }

    /// Emits `class` as `want` needs it (iteratively: operands first).
    fn emit(&mut self, class: Id, want: Want) -> Result<InstrId, String> {
        let mut stack: Vec<(Id, Want, Option<Plan>)> = vec![(class, want.clone(), None)];
        let mut on_stack: HashSet<Id> = HashSet::new();
        while let Some((c, w, plan)) = stack.pop() {
            match plan {
                Some(p) => {
                    on_stack.remove(&c);
                    self.finish(c, &w, p)?;
                }
                None => {
                    if self.lookup(c, &w).is_some() {
                        continue;
                    }
                    // Emitted in another layout: relay it out (a tuple
                    // node is rebuilt instead, from elements in the
                    // wanted layouts).
                    let tuple = matches!(self.choice.get(&c), Some(Hlo::Tuple(_)));
                    if self.emitted.contains_key(&c) && !tuple {
                        self.finish(
                            c,
                            &w,
                            Plan {
                                how: How::New(None),
                                children: vec![],
                            },
                        )?;
                        continue;
                    }
                    if !on_stack.insert(c) {
                        return Err(format!("cycle through class {c}"));
                    }
                    let p = self.plan(c, &w)?;
                    let children = p.children.clone();
                    stack.push((c, w, Some(p)));
                    for (ch, cw) in children.into_iter().rev() {
                        if self.lookup(ch, &cw).is_none() {
                            if on_stack.contains(&ch) {
                                return Err(format!("cycle through class {ch}"));
                            }
                            stack.push((ch, cw, None));
                        }
                    }
                }
            }
        }
        self.lookup(class, &want)
            .ok_or_else(|| format!("class {class} was not emitted"))
    }

    /// Emits `class` per `plan` (its operands are emitted), then relays it
    /// out if `want` needs another layout.
    fn finish(&mut self, class: Id, want: &Want, plan: Plan) -> Result<(), String> {
        if self.lookup(class, want).is_some() {
            return Ok(());
        }
        let rebuild =
            !plan.children.is_empty() && matches!(self.choice.get(&class), Some(Hlo::Tuple(_)));
        let id = match self.emitted.get(&class).and_then(|v| v.first()) {
            Some(&first) if !rebuild => first,
            existing => {
                if existing.is_some() {
                    // A second tuple: the extraction counted one.
                    self.added_copies += TUPLE_NODE_COST;
                }
                let id = match plan.how {
                    How::Original(i) => self.emit_original(i, &plan.children)?,
                    How::New(layout) => self.emit_new(class, layout, &plan.children)?,
                };
                self.emitted.entry(class).or_default().push(id);
                id
            }
        };
        if let Want::Exact(s) = want
            && &self.out[id.index()].shape != s
        {
            let cid = self.relayout(id, s, 0)?;
            self.emitted.entry(class).or_default().push(cid);
        }
        Ok(())
    }

    /// Pushes an instruction computing `op(operands)` of `shape` with the
    /// metadata of `like`.
    fn push(&mut self, op: Op, operands: Vec<InstrId>, shape: Shape, like: InstrId) -> InstrId {
        let name = fresh_name(self.taken, op.opcode());
        let mut instr = Instruction::new(name, op, operands, shape);
        instr.attrs = self.out[like.index()]
            .attrs
            .iter()
            .filter(|(k, _)| k == "metadata")
            .cloned()
            .collect();
        self.out.push(instr);
        InstrId((self.out.len() - 1) as u32)
    }

    /// The value of `id` in shape `want` (same types and dims, other
    /// layouts): a `copy` of an array, a tuple of relaid-out elements.
    fn relayout(&mut self, id: InstrId, want: &Shape, depth: usize) -> Result<InstrId, String> {
        let from = self.out[id.index()].shape.clone();
        if &from == want {
            return Ok(id);
        }
        match (&from, want) {
            (Shape::Array(a), Shape::Array(b))
                if a.element_type == b.element_type && a.dims == b.dims =>
            {
                let bytes = b.byte_size().map(|n| n as f64).unwrap_or(0.0);
                self.added_copies += crate::simplify::cost::copy_node_cost(bytes);
                Ok(self.push(Op::Copy, vec![id], want.clone(), id))
            }
            (Shape::Tuple(f), Shape::Tuple(w)) if f.len() == w.len() && depth < 64 => {
                let mut elems = Vec::with_capacity(w.len());
                for (k, (fe, we)) in f.iter().zip(w).enumerate() {
                    self.added_copies += TUPLE_NODE_COST;
                    let g = self.push(
                        Op::GetTupleElement { index: k as i64 },
                        vec![id],
                        fe.clone(),
                        id,
                    );
                    elems.push(self.relayout(g, we, depth + 1)?);
                }
                self.added_copies += TUPLE_NODE_COST;
                Ok(self.push(Op::Tuple, elems, want.clone(), id))
            }
            _ => Err(format!("cannot relay out {from} as {want}")),
        }
    }

    /// Emits original instruction `i` with the operands `children` want
    /// (already emitted).
    fn emit_original(&mut self, i: usize, children: &[(Id, Want)]) -> Result<InstrId, String> {
        if let Some(id) = self.instr_map[i] {
            return Ok(id);
        }
        let instr = &self.comp.instructions[i];
        let ops = children
            .iter()
            .map(|(c, w)| {
                self.lookup(*c, w)
                    .ok_or_else(|| format!("{}: operand class {c} not emitted", instr.name))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if ops.len() != instr.operands.len() {
            return Err(format!("{}: operand count changed", instr.name));
        }
        let mut copy = instr.clone();
        copy.operands = ops;
        self.out.push(copy);
        let id = InstrId((self.out.len() - 1) as u32);
        self.instr_map[i] = Some(id);
        Ok(id)
    }

    /// Emits the chosen node of `class` as a new instruction (operands
    /// already emitted as `children` want them).
    fn emit_new(
        &mut self,
        class: Id,
        layout: Option<Layout>,
        children: &[(Id, Want)],
    ) -> Result<InstrId, String> {
        let node = self
            .choice
            .get(&class)
            .ok_or_else(|| format!("no choice for class {class}"))?;
        let ops: Vec<InstrId> = children
            .iter()
            .map(|(c, w)| {
                self.lookup(*c, w)
                    .ok_or_else(|| format!("operand class {c} not emitted"))
            })
            .collect::<Result<_, _>>()?;
        let mut op = self.op_of(node)?;
        let shape = match node {
            Hlo::Tuple(_) => Shape::Tuple(
                ops.iter()
                    .map(|id| self.out[id.index()].shape.clone())
                    .collect(),
            ),
            Hlo::Gte(_) => {
                let index = match op {
                    Op::GetTupleElement { index } => index,
                    _ => return Err(format!("{node}: bad get-tuple-element")),
                };
                let t = ops.first().ok_or("get-tuple-element without operand")?;
                self.out[t.index()]
                    .shape
                    .tuple_elements()
                    .and_then(|e| e.get(usize::try_from(index).ok()?))
                    .cloned()
                    .ok_or_else(|| format!("{node}: no element {index}"))?
            }
            _ => {
                let sh = shape_of(self.eg, class)
                    .ok_or_else(|| format!("class {class} has no shape"))?;
                let mut a = ArrayShape::new(sh.ty, sh.dims.clone()).map_err(|e| e.to_string())?;
                if let Some(l) = layout
                    && l.validate(&a.dims).is_ok()
                {
                    a.layout = l;
                }
                if let Op::Constant {
                    literal: Literal::Array(lit),
                } = &mut op
                {
                    lit.shape.layout = a.layout.clone();
                }
                Shape::Array(a)
            }
        };
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
        Ok(InstrId((self.out.len() - 1) as u32))
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
            Hlo::Tuple(_) => Op::Tuple,
            Hlo::Gte([a, _]) => match self.attr(*a)? {
                Attr::Ints(i) if i.len() == 1 => Op::GetTupleElement { index: i[0] },
                _ => return Err(bad("get-tuple-element")),
            },
            Hlo::Const(c) => Op::Constant {
                literal: Literal::Array(c.to_literal().map_err(|e| e.to_string())?),
            },
            _ => return Err(format!("{node} cannot be raised")),
        })
    }
}
