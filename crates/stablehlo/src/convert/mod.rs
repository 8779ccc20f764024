//! [`ModuleAst`] → rxla [`Module`], as XLA's StableHLO→HLO converter does:
//! each `func.func` becomes a computation (callees first; the public
//! `@main` is ENTRY), several results become a tuple, region ops become
//! called computations (values a `while`/`case` region captures from
//! outside are threaded through the loop tuple / branch operand), and
//! every op is built with shape inference and checked against the types
//! the text declares. This file holds the driver, scopes and the
//! instruction emitter; one file per op family does the mapping. It
//! never reads text: errors point at the op's position in the source.

mod chlo;
mod contraction;
mod control;
mod elementwise;
mod reduction;
mod shape_ops;

use crate::ast::{Func, ModuleAst, Operation, Region};
use crate::attrs::Attr;
use crate::lexer::{MAX_DEPTH, error_at};
use crate::types::Type;
use rxla_ir::shape_inference::infer_shape;
use rxla_ir::{CompId, Computation, InstrId, Instruction, IrError, Literal, Module, Op, Shape};
use std::collections::{HashMap, HashSet};

pub(crate) type Result<T> = std::result::Result<T, IrError>;

/// Shared conversion state.
pub(crate) struct Ctx<'a> {
    pub src: &'a str,
    pub file: &'a str,
    pub module: Module,
    /// Converted functions: id and result count.
    pub funcs: HashMap<String, (CompId, usize)>,
}

impl Ctx<'_> {
    pub fn err(&self, pos: usize, msg: impl Into<String>) -> IrError {
        error_at(self.src, self.file, pos, msg)
    }
}

/// Builds one computation.
pub(crate) struct B<'c, 'a> {
    pub cx: &'c mut Ctx<'a>,
    pub comp: Computation,
    pub vals: HashMap<String, InstrId>,
    /// Position of the op being converted (for errors).
    pub pos: usize,
    /// Name of the op being converted.
    pub opname: String,
    pub depth: usize,
}

/// Converts a parsed module.
pub fn convert(ast: &ModuleAst, src: &str, file: &str) -> Result<Module> {
    let name = ast.name.clone().unwrap_or_else(|| "module".into());
    let mut cx = Ctx {
        src,
        file,
        module: Module::new(name),
        funcs: HashMap::new(),
    };
    let by_name: HashMap<&str, &Func> = ast.funcs.iter().map(|f| (f.name.as_str(), f)).collect();
    let mut seen = HashSet::new();
    for f in &ast.funcs {
        if !seen.insert(f.name.as_str()) {
            return Err(cx.err(f.pos, format!("function '@{}' is defined twice", f.name)));
        }
    }
    let entry = ast
        .funcs
        .iter()
        .find(|f| f.name == "main")
        .or_else(|| {
            let public: Vec<&Func> = ast.funcs.iter().filter(|f| f.public).collect();
            (public.len() == 1).then(|| public[0])
        })
        .ok_or_else(|| cx.err(0, "no entry function: expected 'func.func public @main' (or exactly one public function)"))?;
    // Callees first: iterative post-order over the call graph from main.
    let order = call_order(&cx, entry, &by_name)?;
    let mut entry_id = None;
    for f in order {
        let id = convert_func(&mut cx, f)?;
        if std::ptr::eq(f, entry) {
            entry_id = Some(id);
        }
    }
    let entry_id = entry_id.ok_or_else(|| cx.err(entry.pos, "internal: entry not converted"))?;
    cx.module.entry = entry_id;
    rxla_ir::verify_module(&cx.module).map_err(|e| {
        cx.err(
            entry.pos,
            format!("the converted module does not verify: {e}"),
        )
    })?;
    Ok(cx.module)
}

/// Functions reachable from `entry`, callees before callers.
fn call_order<'f>(
    cx: &Ctx,
    entry: &'f Func,
    by_name: &HashMap<&str, &'f Func>,
) -> Result<Vec<&'f Func>> {
    fn callees<'o>(r: &'o Region, out: &mut Vec<(&'o str, usize)>) {
        for op in &r.ops {
            for key in ["callee", "decomposition", "_symbol"] {
                if op.name == "stablehlo.custom_call" && key == "_symbol" {
                    continue;
                }
                if let Some(Attr::Symbol(s)) = op.attr(&[key]) {
                    out.push((s.as_str(), op.pos));
                }
            }
            if op.name == "stablehlo.composite" {
                // `decomposition = @f` lives in the attribute dictionary.
            }
            for r in &op.regions {
                callees(r, out);
            }
        }
    }
    let mut order = Vec::new();
    let mut state: HashMap<&str, u8> = HashMap::new(); // 1 = on stack, 2 = done
    // (function, its callees with call positions, next callee to visit)
    type Frame<'f, 'o> = (&'f Func, Vec<(&'o str, usize)>, usize);
    let mut stack: Vec<Frame> = Vec::new();
    let mut first = Vec::new();
    callees(&entry.body, &mut first);
    state.insert(entry.name.as_str(), 1);
    stack.push((entry, first, 0));
    while let Some(top) = stack.last_mut() {
        if top.2 < top.1.len() {
            let (name, pos) = top.1[top.2];
            top.2 += 1;
            match state.get(name) {
                Some(2) => continue,
                Some(_) => {
                    return Err(
                        cx.err(pos, format!("recursive call to '@{name}' is not supported"))
                    );
                }
                None => {}
            }
            let f = by_name
                .get(name)
                .ok_or_else(|| cx.err(pos, format!("call to unknown function '@{name}'")))?;
            let mut c = Vec::new();
            callees(&f.body, &mut c);
            state.insert(f.name.as_str(), 1);
            stack.push((f, c, 0));
        } else {
            let (f, _, _) = stack.pop().unwrap_or_else(|| unreachable!());
            state.insert(f.name.as_str(), 2);
            order.push(f);
        }
    }
    Ok(order)
}

fn convert_func(cx: &mut Ctx, f: &Func) -> Result<CompId> {
    let mut b = B::new(cx, &f.name, f.pos, 0);
    for (i, a) in f.args.iter().enumerate() {
        let shape = b.shape_of(&a.ty, a.pos)?;
        let id = b.raw_push(
            Op::Parameter { number: i as i64 },
            &[],
            shape,
            &format!("Arg_{i}"),
        );
        b.vals.insert(a.key.clone(), id);
    }
    let rets = b.block(&f.body.ops)?;
    if rets.len() != f.results.len() {
        return Err(b.cx.err(
            f.pos,
            format!(
                "@{} returns {} values but declares {} results",
                f.name,
                rets.len(),
                f.results.len()
            ),
        ));
    }
    let n = rets.len();
    let root = b.pack(&rets)?;
    let id = b.finish(root)?;
    cx.funcs.insert(f.name.clone(), (id, n));
    Ok(id)
}

impl<'c, 'a> B<'c, 'a> {
    pub fn new(cx: &'c mut Ctx<'a>, name: &str, pos: usize, depth: usize) -> B<'c, 'a> {
        B {
            cx,
            comp: Computation::new(name),
            vals: HashMap::new(),
            pos,
            opname: String::new(),
            depth,
        }
    }

    /// A builder for another computation in the same module.
    pub fn sub(&mut self, name: &str) -> Result<B<'_, 'a>> {
        if self.depth >= MAX_DEPTH {
            return Err(self.err("regions nested too deeply"));
        }
        let mut s = B::new(self.cx, name, self.pos, self.depth + 1);
        s.opname = self.opname.clone();
        Ok(s)
    }

    /// The integer list `key` of a dimension-numbers attribute's fields
    /// (empty when absent; an error naming it when not a list of integers).
    pub fn dims_list(&self, fields: &[(String, Attr)], key: &str) -> Result<Vec<i64>> {
        match crate::attrs::field(fields, key) {
            None => Ok(Vec::new()),
            Some(a) => a
                .as_i64s()
                .ok_or_else(|| self.err(format!("'{key}' must be a list of integers"))),
        }
    }

    /// An error at the current op, prefixed with its name.
    pub fn err(&self, msg: impl std::fmt::Display) -> IrError {
        if self.opname.is_empty() {
            self.cx.err(self.pos, msg.to_string())
        } else {
            self.cx.err(self.pos, format!("{}: {msg}", self.opname))
        }
    }

    pub fn shape_of(&self, ty: &Type, pos: usize) -> Result<Shape> {
        ty.to_shape()
            .map_err(|e| self.cx.err(pos, format!("bad type {ty}: {e}")))
    }

    pub fn shape(&self, id: InstrId) -> &Shape {
        &self.comp.get(id).shape
    }

    /// Appends without shape inference (parameters). Names are unique by
    /// construction (`Arg_N` for parameters, `opcode.INDEX` otherwise), so
    /// there is no search for a fresh one (O(n) per instruction).
    pub fn raw_push(&mut self, op: Op, operands: &[InstrId], shape: Shape, name: &str) -> InstrId {
        self.comp
            .push(Instruction::new(name, op, operands.to_vec(), shape))
    }

    /// Appends `op` with shape inference; a `declared` shape must agree
    /// with the inferred one.
    pub fn push(
        &mut self,
        op: Op,
        operands: &[InstrId],
        declared: Option<Shape>,
    ) -> Result<InstrId> {
        let shapes: Vec<&Shape> = operands.iter().map(|&o| &self.comp.get(o).shape).collect();
        let inferred = infer_shape(&self.cx.module, &op, &shapes, declared.as_ref())
            .map_err(|e| self.err(e))?;
        if let Some(d) = &declared
            && !d.compatible(&inferred)
        {
            return Err(self.err(format!(
                "the declared result type {} differs from the inferred {}",
                d.to_string_no_layout(),
                inferred.to_string_no_layout()
            )));
        }
        let name = format!("{}.{}", op.opcode(), self.comp.instructions.len());
        Ok(self.raw_push(op, operands, inferred, &name))
    }

    /// A constant.
    pub fn constant(&mut self, lit: Literal) -> Result<InstrId> {
        self.push(Op::Constant { literal: lit }, &[], None)
    }

    /// One value, or a tuple of several (zero: the empty tuple).
    pub fn pack(&mut self, vals: &[InstrId]) -> Result<InstrId> {
        if vals.len() == 1 {
            Ok(vals[0])
        } else {
            self.push(Op::Tuple, vals, None)
        }
    }

    /// The elements of a value holding `n` results (a tuple unless n = 1).
    pub fn unpack(&mut self, v: InstrId, n: usize) -> Result<Vec<InstrId>> {
        if n == 1 {
            return Ok(vec![v]);
        }
        (0..n)
            .map(|i| self.push(Op::GetTupleElement { index: i as i64 }, &[v], None))
            .collect()
    }

    /// Adds the computation to the module.
    pub fn finish(mut self, root: InstrId) -> Result<CompId> {
        self.comp.root = root;
        self.comp.name = self.cx.module.fresh_computation_name(&self.comp.name);
        Ok(self.cx.module.add_computation(self.comp))
    }

    /// The value of an operand.
    pub fn get(&self, key: &str, pos: usize) -> Result<InstrId> {
        self.vals.get(key).copied().ok_or_else(|| {
            let shown = key.strip_suffix("#0").unwrap_or(key);
            self.cx
                .err(pos, format!("use of undefined value '%{shown}'"))
        })
    }

    /// Converts a block's ops; returns the terminator's operands.
    pub fn block(&mut self, ops: &[Operation]) -> Result<Vec<InstrId>> {
        for (i, op) in ops.iter().enumerate() {
            self.pos = op.pos;
            self.opname = op.name.clone();
            if op.name == "func.return" || op.name == "stablehlo.return" {
                if i + 1 != ops.len() {
                    return Err(self.err("a return must be the last operation of its block"));
                }
                return op
                    .operands
                    .iter()
                    .map(|u| self.get(&u.key, u.pos))
                    .collect();
            }
            let outs = self.op(op)?;
            if outs.len() != op.results.len() {
                return Err(self.err(format!(
                    "produces {} values but {} result names are bound",
                    outs.len(),
                    op.results.len()
                )));
            }
            for (k, v) in op.results.iter().zip(outs) {
                self.vals.insert(k.clone(), v);
            }
        }
        let at = ops.last().map_or(self.pos, |o| o.pos);
        Err(self.cx.err(at, "block has no return operation"))
    }

    /// The operand values of `op`.
    pub fn operands(&self, op: &Operation) -> Result<Vec<InstrId>> {
        op.operands
            .iter()
            .map(|u| self.get(&u.key, u.pos))
            .collect()
    }

    /// The declared shape of result `i`.
    pub fn result_shape(&self, op: &Operation, i: usize) -> Result<Shape> {
        let t = op
            .result_types
            .get(i)
            .ok_or_else(|| self.err(format!("expected a type for result {i}")))?;
        self.shape_of(t, op.pos)
    }

    /// A required integer-list attribute (first of `names`).
    pub fn ints(&self, op: &Operation, names: &[&str]) -> Result<Vec<i64>> {
        self.ints_opt(op, names)?
            .ok_or_else(|| self.err(format!("expected the attribute '{}'", names[0])))
    }

    pub fn ints_opt(&self, op: &Operation, names: &[&str]) -> Result<Option<Vec<i64>>> {
        match op.attr(names) {
            None => Ok(None),
            Some(a) => a.as_i64s().map(Some).ok_or_else(|| {
                self.err(format!(
                    "attribute '{}' must be a list of integers, got {}",
                    names[0],
                    a.describe()
                ))
            }),
        }
    }

    pub fn int(&self, op: &Operation, names: &[&str]) -> Result<i64> {
        let a = op
            .attr(names)
            .ok_or_else(|| self.err(format!("expected the attribute '{}'", names[0])))?;
        a.as_i64().ok_or_else(|| {
            self.err(format!(
                "attribute '{}' must be an integer, got {}",
                names[0],
                a.describe()
            ))
        })
    }

    pub fn bool_attr(&self, op: &Operation, names: &[&str], default: bool) -> Result<bool> {
        match op.attr(names) {
            None => Ok(default),
            Some(a) => a.as_bool().ok_or_else(|| {
                self.err(format!(
                    "attribute '{}' must be a bool, got {}",
                    names[0],
                    a.describe()
                ))
            }),
        }
    }

    pub fn expect_operands(&self, op: &Operation, n: usize) -> Result<Vec<InstrId>> {
        let v = self.operands(op)?;
        if v.len() != n {
            return Err(self.err(format!("expected {n} operands, got {}", v.len())));
        }
        Ok(v)
    }

    /// Builds a computation from a region whose block arguments are
    /// scalar/array parameters (reduce bodies, comparators, ...). The
    /// region may not use values from outside.
    pub fn scalar_region(&mut self, r: &Region, name: &str) -> Result<CompId> {
        let outer_pos = self.pos;
        let free = free_values(r);
        if let Some((k, p)) = free.first() {
            let shown = k.strip_suffix("#0").unwrap_or(k);
            return Err(self.cx.err(
                *p,
                format!(
                    "a {} body may not use '%{shown}' from outside its region",
                    self.opname
                ),
            ));
        }
        let mut s = self.sub(name)?;
        for (i, a) in r.args.iter().enumerate() {
            let shape = s.shape_of(&a.ty, a.pos)?;
            let id = s.raw_push(
                Op::Parameter { number: i as i64 },
                &[],
                shape,
                &format!("Arg_{i}"),
            );
            s.vals.insert(a.key.clone(), id);
        }
        let rets = s.block(&r.ops)?;
        let root = s.pack(&rets)?;
        let id = s.finish(root)?;
        self.pos = outer_pos;
        Ok(id)
    }

    /// Converts one op; returns its results.
    fn op(&mut self, op: &Operation) -> Result<Vec<InstrId>> {
        let name = op.name.as_str();
        if let Some(r) = elementwise::convert(self, op)? {
            return Ok(r);
        }
        if let Some(r) = shape_ops::convert(self, op)? {
            return Ok(r);
        }
        if let Some(r) = contraction::convert(self, op)? {
            return Ok(r);
        }
        if let Some(r) = reduction::convert(self, op)? {
            return Ok(r);
        }
        if let Some(r) = control::convert(self, op)? {
            return Ok(r);
        }
        if name.starts_with("chlo.")
            && let Some(r) = chlo::convert(self, op)?
        {
            return Ok(r);
        }
        let hint = if name.starts_with("stablehlo.")
            || name.starts_with("chlo.")
            || name.starts_with("func.")
        {
            "rxla does not support this operation (see docs/STABLEHLO.md)"
        } else {
            "expected a stablehlo.*, chlo.* or func.* operation"
        };
        Err(self
            .cx
            .err(op.pos, format!("unsupported operation '{name}': {hint}")))
    }
}

/// Values a region uses but does not define (in first-use order).
pub(crate) fn free_values(r: &Region) -> Vec<(String, usize)> {
    fn walk(
        r: &Region,
        bound: &mut HashSet<String>,
        out: &mut Vec<(String, usize)>,
        seen: &mut HashSet<String>,
    ) {
        for a in &r.args {
            bound.insert(a.key.clone());
        }
        for op in &r.ops {
            for u in &op.operands {
                if !bound.contains(&u.key) && seen.insert(u.key.clone()) {
                    out.push((u.key.clone(), u.pos));
                }
            }
            for nested in &op.regions {
                let mut inner = bound.clone();
                walk(nested, &mut inner, out, seen);
            }
            for k in &op.results {
                bound.insert(k.clone());
            }
        }
    }
    let mut out = Vec::new();
    walk(r, &mut HashSet::new(), &mut out, &mut HashSet::new());
    out
}
