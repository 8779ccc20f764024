//! The well-typed random program generator: builds a [`Module`] op by op
//! from `arbitrary::Unstructured` bytes. Each op picks operands of suitable
//! shapes among earlier values (or makes fresh parameters, constants,
//! broadcasts or iotas when none fits) and computes its result shape by
//! construction. Called computations are generated recursively and pushed
//! before their callers. It must never produce a module that fails to
//! verify, and never panic whatever the bytes.

mod collective;
mod control;
mod data;
mod dynamic;
mod linalg;
mod math;

use crate::values::{Choices, random_literal};
use arbitrary::Unstructured;
use rxla_ir::{
    ArrayShape, CompId, Computation, ElementType, InstrId, Instruction, Layout, Module, Op, Shape,
};

/// What the generator may produce.
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// Upper bound on random ops in the ENTRY computation.
    pub max_instructions: usize,
    /// Upper bound on random ops in each called computation.
    pub max_sub_instructions: usize,
    /// Nesting depth of general called computations (call, fusion, while,
    /// conditional); scalar bodies (reduce, map, sort...) are always allowed.
    pub max_depth: usize,
    /// Upper bound on the element count of generated arrays (inputs; a few
    /// ops such as pad or broadcast may produce somewhat more).
    pub max_elements: i64,
    /// Random layouts (column-major, permuted, padded) on ENTRY values.
    pub layouts: bool,
    /// Ops whose results the evaluator cannot compare differentially:
    /// rng, infeed, outfeed, custom-call. (The collectives are evaluable
    /// in their single-device form.)
    pub unevaluable_ops: bool,
}

impl GenConfig {
    /// Every opcode, for the round-trip and parser oracles.
    pub fn all_ops() -> GenConfig {
        GenConfig {
            max_instructions: 10,
            max_sub_instructions: 4,
            max_depth: 2,
            max_elements: 48,
            layouts: true,
            unevaluable_ops: true,
        }
    }

    /// Only ops with deterministic, side-effect-free results, for oracles
    /// that evaluate (round-trip evaluation, passes, JIT).
    pub fn evaluable() -> GenConfig {
        GenConfig {
            unevaluable_ops: false,
            ..GenConfig::all_ops()
        }
    }

    /// Opcodes this config may emit.
    pub fn opcodes(&self) -> Vec<&'static str> {
        Op::all_opcode_names()
            .into_iter()
            .filter(|n| self.unevaluable_ops || !UNEVALUABLE.contains(n))
            .collect()
    }
}

impl Default for GenConfig {
    fn default() -> GenConfig {
        GenConfig::evaluable()
    }
}

/// Opcodes only produced with [`GenConfig::unevaluable_ops`].
pub const UNEVALUABLE: [&str; 4] = ["rng", "infeed", "outfeed", "custom-call"];

/// Every element type that holds data: the first 13 of
/// [`ElementType::ALL`] (pred, the integers, the IEEE floats); the order
/// is part of what a seed generates.
pub(crate) const DATA_TYPES: &[ElementType] = ElementType::ALL.split_at(13).0;

/// A computation under construction.
pub(crate) struct Cb {
    pub comp: Computation,
    /// Whether fresh parameters may be added (ENTRY only: called
    /// computations have fixed signatures).
    pub allow_params: bool,
    pub nparams: i64,
    pub depth: usize,
    pub entry: bool,
}

impl Cb {
    pub fn shape(&self, id: InstrId) -> &Shape {
        &self.comp.get(id).shape
    }
    pub fn array(&self, id: InstrId) -> Option<&ArrayShape> {
        match self.shape(id) {
            Shape::Array(a) => Some(a),
            Shape::Tuple(_) => None,
        }
    }
}

/// The generator state: the byte source, the config, finished
/// computations and name counters.
pub(crate) struct Gen<'a, 'b> {
    u: &'a mut Unstructured<'b>,
    pub cfg: GenConfig,
    pub comps: Vec<Computation>,
    next_name: usize,
    next_comp: usize,
    /// Set while building a scalar body: every value is a scalar.
    pub(super) scalar_mode: bool,
}

impl Choices for Gen<'_, '_> {
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        self.u.int_in_range(lo..=hi).unwrap_or(lo)
    }
}

impl<'a, 'b> Gen<'a, 'b> {
    pub fn new(u: &'a mut Unstructured<'b>, cfg: &GenConfig) -> Gen<'a, 'b> {
        Gen {
            u,
            cfg: cfg.clone(),
            comps: Vec::new(),
            next_name: 0,
            next_comp: 0,
            scalar_mode: false,
        }
    }

    /// A module-unique instruction name.
    pub fn name(&mut self, base: &str) -> String {
        self.next_name += 1;
        format!("{base}.{}", self.next_name)
    }

    /// Picks one element of a non-empty slice.
    pub fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        let i = self.range(0, xs.len() as i64 - 1) as usize;
        xs[i.min(xs.len() - 1)].clone()
    }

    /// A random permutation of `0..n`.
    pub fn permutation(&mut self, n: usize) -> Vec<i64> {
        let mut p: Vec<i64> = (0..n as i64).collect();
        for i in (1..n).rev() {
            let j = self.range(0, i as i64) as usize;
            p.swap(i, j);
        }
        p
    }

    /// A random sorted subset of `0..n`.
    pub fn subset(&mut self, n: usize) -> Vec<i64> {
        (0..n as i64).filter(|_| self.coin()).collect()
    }

    /// A random sorted subset of `0..n` with exactly `k` elements.
    pub fn subset_of_size(&mut self, n: usize, k: usize) -> Vec<i64> {
        let mut p = self.permutation(n);
        p.truncate(k.min(n));
        p.sort();
        p
    }

    /// Any data type; one time in eight a narrow one (s2, s4, u2, u4, f8).
    pub fn ty_any(&mut self) -> ElementType {
        if self.chance(1, 8) {
            self.pick(&ElementType::NARROW)
        } else {
            self.pick(DATA_TYPES)
        }
    }
    pub fn ty_float(&mut self) -> ElementType {
        self.pick(&[
            ElementType::F16,
            ElementType::BF16,
            ElementType::F32,
            ElementType::F64,
        ])
    }
    pub fn ty_int(&mut self) -> ElementType {
        self.pick(&DATA_TYPES[1..9])
    }
    pub fn ty_numeric(&mut self) -> ElementType {
        self.pick(&DATA_TYPES[1..])
    }
    /// An index type for dynamic indices and gather/scatter indices.
    pub fn ty_index(&mut self) -> ElementType {
        if self.chance(3, 4) {
            ElementType::S32
        } else {
            self.pick(&[
                ElementType::S64,
                ElementType::U32,
                ElementType::S8,
                ElementType::U8,
            ])
        }
    }

    /// Random dims of `rank`, each 0..=9, with the product kept within the
    /// element budget.
    pub fn dims(&mut self, rank: usize) -> Vec<i64> {
        let mut budget = self.cfg.max_elements.max(1);
        let mut out = Vec::with_capacity(rank);
        for _ in 0..rank {
            let d = if self.chance(1, 16) {
                0
            } else {
                self.range(1, budget.clamp(1, 9))
            };
            if d > 0 {
                budget /= d;
            }
            out.push(d);
        }
        out
    }

    pub fn rank(&mut self) -> usize {
        if self.scalar_mode {
            return 0;
        }
        self.range(0, 4) as usize
    }

    pub fn array_shape(&mut self, ty: ElementType, rank: usize) -> ArrayShape {
        let dims = self.dims(rank);
        ArrayShape::new(ty, dims).unwrap_or_else(|_| scalar(ty))
    }

    /// A random layout for `dims`: mostly the default, sometimes
    /// column-major, permuted or padded.
    pub fn layout(&mut self, dims: &[i64]) -> Layout {
        let r = dims.len();
        let m2m = match self.range(0, 2) {
            0 => Layout::default_for_rank(r).minor_to_major,
            1 => Layout::column_major(r).minor_to_major,
            _ => self.permutation(r),
        };
        let mut l = Layout::from_minor_to_major(m2m);
        if self.chance(1, 3) {
            let padded: Vec<i64> = dims.iter().map(|&d| d + self.range(0, 2)).collect();
            let value = if self.coin() {
                Some(self.range(-2, 2) as f64)
            } else {
                None
            };
            l = l.with_padding(padded, value);
        }
        l
    }

    /// Appends an instruction (applying a random layout to ENTRY array
    /// results when enabled) and returns its id.
    pub fn emit(&mut self, cb: &mut Cb, op: Op, operands: Vec<InstrId>, shape: Shape) -> InstrId {
        let mut shape = shape;
        let mut op = op;
        if let Shape::Array(a) = &mut shape
            && cb.entry
            && self.cfg.layouts
            && a.element_type != ElementType::Token
            && a.rank() > 0
            && self.chance(1, 5)
        {
            a.layout = self.layout(&a.dims);
        }
        if let (Op::Constant { literal }, Shape::Array(a)) = (&mut op, &shape)
            && let Ok(l) = literal.relayout_to(&Shape::Array(a.clone()))
        {
            *literal = l;
        }
        let name = self.name(op.opcode());
        cb.comp.push(Instruction::new(name, op, operands, shape))
    }

    /// Existing values whose shape satisfies `ok`. Complex values (c64,
    /// c128) are never offered: only the complex generators
    /// (`math::complex_chain`, `math::fft`) use them, through
    /// [`Gen::complex_candidates`], so no other op meets a type it does not
    /// define. Values with dynamic dimensions are never offered either
    /// (only `dynamic.rs` chains consume them).
    pub fn candidates(&self, cb: &Cb, ok: impl Fn(&Shape) -> bool) -> Vec<InstrId> {
        let complex =
            |s: &Shape| s.is_dynamic() || s.leaves().iter().any(|a| a.element_type.is_complex());
        cb.comp
            .ids()
            .filter(|&id| !complex(cb.shape(id)) && ok(cb.shape(id)))
            .filter(|&id| {
                !self.scalar_mode || matches!(cb.shape(id), Shape::Array(a) if a.rank() == 0)
            })
            .collect()
    }

    /// Existing complex arrays of exactly `shape`'s type and dims.
    pub fn complex_candidates(&self, cb: &Cb, shape: &ArrayShape) -> Vec<InstrId> {
        cb.comp
            .ids()
            .filter(|&id| matches!(cb.shape(id), Shape::Array(a) if a.compatible(shape)))
            .filter(|&id| {
                !self.scalar_mode || matches!(cb.shape(id), Shape::Array(a) if a.rank() == 0)
            })
            .collect()
    }

    /// A fresh value of exactly `shape` (dims and type; default layout).
    pub fn fresh(&mut self, cb: &mut Cb, shape: &ArrayShape) -> InstrId {
        let shape = shape.with_default_layout();
        let ty = shape.element_type;
        if ty == ElementType::Token {
            return self.emit(cb, Op::AfterAll, vec![], Shape::token());
        }
        let choice = self.range(0, 5);
        if cb.allow_params && choice <= 1 {
            let number = cb.nparams;
            cb.nparams += 1;
            return self.emit(cb, Op::Parameter { number }, vec![], Shape::Array(shape));
        }
        if shape.rank() > 0 && choice == 2 {
            let s = self.scalar_const(cb, ty);
            return self.emit(
                cb,
                Op::Broadcast { dimensions: vec![] },
                vec![s],
                Shape::Array(shape),
            );
        }
        if shape.rank() > 0 && choice == 3 && !ty.is_pred() {
            let dimension = self.range(0, shape.rank() as i64 - 1);
            return self.emit(cb, Op::Iota { dimension }, vec![], Shape::Array(shape));
        }
        self.constant(cb, &Shape::Array(shape))
    }

    pub fn constant(&mut self, cb: &mut Cb, shape: &Shape) -> InstrId {
        let literal = random_literal(self, shape);
        self.emit(cb, Op::Constant { literal }, vec![], shape.clone())
    }

    pub fn scalar_const(&mut self, cb: &mut Cb, ty: ElementType) -> InstrId {
        self.constant(cb, &Shape::scalar(ty))
    }

    /// A value with `shape`'s type and dims: an existing one (usually) or a
    /// fresh one.
    pub fn value_of(&mut self, cb: &mut Cb, shape: &ArrayShape) -> InstrId {
        let c = self.candidates(cb, |s| matches!(s, Shape::Array(a) if a.compatible(shape)));
        if !c.is_empty() && self.chance(3, 4) {
            return self.pick(&c);
        }
        self.fresh(cb, shape)
    }

    /// Like [`Gen::value_of`] but avoiding `not` (a second operand that
    /// differs from the first makes differential testing sharper).
    pub fn other_value_of(&mut self, cb: &mut Cb, shape: &ArrayShape, not: InstrId) -> InstrId {
        let c = self.candidates(cb, |s| matches!(s, Shape::Array(a) if a.compatible(shape)));
        let c: Vec<InstrId> = c.into_iter().filter(|&i| i != not).collect();
        if !c.is_empty() && self.chance(3, 4) {
            return self.pick(&c);
        }
        if self.chance(1, 8) {
            return not;
        }
        self.fresh(cb, shape)
    }

    pub fn scalar(&mut self, cb: &mut Cb, ty: ElementType) -> InstrId {
        self.value_of(cb, &scalar(ty))
    }

    /// An array value whose element type satisfies `ok`: an existing one or
    /// a fresh one of a type from `make`.
    pub fn array_where(
        &mut self,
        cb: &mut Cb,
        ok: impl Fn(ElementType) -> bool,
        make: fn(&mut Self) -> ElementType,
        min_rank: usize,
    ) -> InstrId {
        let c = self.candidates(cb, |s| match s {
            Shape::Array(a) => {
                a.element_type != ElementType::Token && ok(a.element_type) && a.rank() >= min_rank
            }
            Shape::Tuple(_) => false,
        });
        if !c.is_empty() && self.chance(4, 5) {
            return self.pick(&c);
        }
        let ty = make(self);
        let rank = if self.scalar_mode {
            0
        } else {
            self.range(min_rank as i64, 4) as usize
        };
        let shape = self.array_shape(ty, rank);
        self.fresh(cb, &shape)
    }

    pub fn any_array(&mut self, cb: &mut Cb, min_rank: usize) -> InstrId {
        self.array_where(cb, |_| true, Gen::ty_any, min_rank)
    }

    /// Any existing non-token value (array or tuple), or a fresh array.
    pub fn any_value(&mut self, cb: &mut Cb) -> InstrId {
        let c = self.candidates(cb, |s| !s.is_token());
        if !c.is_empty() && self.chance(4, 5) {
            return self.pick(&c);
        }
        self.any_array(cb, 0)
    }

    /// A dynamic index scalar of type `ty`: usually a small constant that
    /// may be out of range (negative or past the end), sometimes a
    /// parameter.
    pub fn index_scalar(&mut self, cb: &mut Cb, ty: ElementType) -> InstrId {
        if cb.allow_params && self.chance(1, 4) {
            let number = cb.nparams;
            cb.nparams += 1;
            return self.emit(cb, Op::Parameter { number }, vec![], Shape::scalar(ty));
        }
        let v = self.range(-3, 12);
        let literal = crate::values::splat_int(&scalar(ty), v);
        self.emit(cb, Op::Constant { literal }, vec![], Shape::scalar(ty))
    }

    /// Finishes a computation and returns its id (callees first).
    pub fn finish(&mut self, cb: Cb, root: InstrId) -> CompId {
        let mut comp = cb.comp;
        comp.root = root;
        self.comps.push(comp);
        CompId(self.comps.len() as u32 - 1)
    }

    /// Starts a called computation with the given parameter shapes.
    pub fn sub(&mut self, params: &[Shape], depth: usize) -> (Cb, Vec<InstrId>) {
        self.next_comp += 1;
        let name = format!("region.{}", self.next_comp);
        let mut cb = Cb {
            comp: Computation::new(name),
            allow_params: false,
            nparams: params.len() as i64,
            depth,
            entry: false,
        };
        let ids = params
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let name = self.name("parameter");
                cb.comp.push(Instruction::new(
                    name,
                    Op::Parameter { number: i as i64 },
                    vec![],
                    s.with_default_layouts(),
                ))
            })
            .collect();
        (cb, ids)
    }

    /// Emits one random op into `cb`.
    pub fn random_op(&mut self, cb: &mut Cb) {
        if cb.comp.len() > 2 && self.chance(1, 12) {
            // Duplicate an earlier instruction (same op and operands): food
            // for CSE. Parameters are never duplicated.
            let c = self.candidates(cb, |_| true);
            let id = self.pick(&c);
            let mut dup = cb.comp.get(id).clone();
            if !matches!(dup.op, Op::Parameter { .. }) {
                dup.name = self.name(dup.op.opcode());
                cb.comp.push(dup);
                return;
            }
        }
        let names = self.cfg.opcodes();
        let name = self.pick(&names);
        if !self.op_by_name(cb, name) {
            // Not possible here (e.g. nesting too deep): a unary op instead.
            math::unary(self, cb, None);
        }
    }

    fn op_by_name(&mut self, cb: &mut Cb, name: &str) -> bool {
        // real/imag: usually of a complex value (a small complex chain),
        // sometimes of a float (the value itself / zero).
        if matches!(name, "real" | "imag") && self.chance(2, 3) {
            return math::by_name(self, cb, name);
        }
        if let Some(u) = rxla_ir::UnaryOp::ALL.iter().find(|u| u.name() == name) {
            math::unary(self, cb, Some(*u));
            return true;
        }
        if let Some(b) = rxla_ir::BinaryOp::ALL.iter().find(|b| b.name() == name) {
            math::binary(self, cb, Some(*b));
            return true;
        }
        data::by_name(self, cb, name)
            || collective::by_name(self, cb, name)
            || math::by_name(self, cb, name)
            || control::by_name(self, cb, name)
            || linalg::by_name(self, cb, name)
            || dynamic::by_name(self, cb, name)
    }

    /// A scalar computation `(params...) -> results` (a tuple when several
    /// results) made of a few elementwise ops: reduce/map/scatter bodies.
    pub fn scalar_comp(&mut self, params: &[ElementType], results: &[ElementType]) -> CompId {
        let shapes: Vec<Shape> = params.iter().map(|&t| Shape::scalar(t)).collect();
        let (mut cb, ps) = self.sub(&shapes, usize::MAX);
        let outer = std::mem::replace(&mut self.scalar_mode, true);
        let n = self.range(0, 3);
        for _ in 0..n {
            math::scalar_op(self, &mut cb);
        }
        let mut outs = Vec::new();
        for (i, &t) in results.iter().enumerate() {
            // Prefer the matching parameter combination for realism.
            let c = self.candidates(&cb, |s| matches!(s, Shape::Array(a) if a.element_type == t));
            let v = if !c.is_empty() && self.chance(7, 8) {
                // Later values use more of the parameters.
                if self.coin() {
                    c[c.len() - 1]
                } else {
                    self.pick(&c)
                }
            } else if let Some(&p) = ps.get(i) {
                let name = self.name("convert");
                cb.comp.push(Instruction::new(
                    name,
                    Op::Convert,
                    vec![p],
                    Shape::scalar(t),
                ))
            } else {
                self.scalar_const(&mut cb, t)
            };
            outs.push(v);
        }
        let root = if outs.len() == 1 {
            outs[0]
        } else {
            let shape = Shape::Tuple(results.iter().map(|&t| Shape::scalar(t)).collect());
            self.emit(&mut cb, Op::Tuple, outs, shape)
        };
        self.scalar_mode = outer;
        self.finish(cb, root)
    }

    /// A general called computation with `params`; its root has `result`
    /// (when given) or is a random value. Returns its id and root shape.
    pub fn general_comp(
        &mut self,
        params: &[Shape],
        result: Option<&ArrayShape>,
        depth: usize,
    ) -> (CompId, Shape) {
        let (mut cb, _) = self.sub(params, depth);
        let n = self.range(0, self.cfg.max_sub_instructions as i64);
        for _ in 0..n {
            self.random_op(&mut cb);
        }
        let root = match result {
            Some(r) => self.value_of(&mut cb, r),
            None => match self.unused_root(&mut cb) {
                Some(r) if self.chance(3, 4) => r,
                _ => self.any_value(&mut cb),
            },
        };
        let shape = cb.shape(root).clone();
        (self.finish(cb, root), shape)
    }

    /// Whether general called computations may be nested one level deeper.
    pub fn can_nest(&self, cb: &Cb) -> bool {
        cb.depth < self.cfg.max_depth
    }

    /// Generates the whole module.
    pub fn module(mut self) -> Module {
        let mut cb = Cb {
            comp: Computation::new("main"),
            allow_params: true,
            nparams: 0,
            depth: 0,
            entry: true,
        };
        let n = self.range(1, self.cfg.max_instructions.max(1) as i64);
        for _ in 0..n {
            self.random_op(&mut cb);
        }
        let root = self.entry_root(&mut cb);
        self.finish(cb, root);
        let mut m = Module::new("fuzz");
        m.computations = self.comps;
        m.entry = CompId(m.computations.len() as u32 - 1);
        m
    }

    /// The ENTRY root: one unused value or a tuple of up to six, so most
    /// of the program is live.
    fn entry_root(&mut self, cb: &mut Cb) -> InstrId {
        match self.unused_root(cb) {
            Some(r) => r,
            None => self.any_array(cb, 0),
        }
    }

    /// A root using the values nobody uses yet (parameters and tokens
    /// aside): one of them, or a tuple of up to six. None when there are
    /// none.
    fn unused_root(&mut self, cb: &mut Cb) -> Option<InstrId> {
        let users = cb.comp.users();
        let mut unused: Vec<InstrId> = cb
            .comp
            .ids()
            .filter(|id| users[id.index()].is_empty() && !cb.shape(*id).is_token())
            .filter(|id| !matches!(cb.comp.get(*id).op, Op::Parameter { .. }))
            .collect();
        if unused.is_empty() {
            return None;
        }
        if unused.len() == 1 && self.coin() {
            return Some(unused[0]);
        }
        while unused.len() > 6 {
            let i = self.range(0, unused.len() as i64 - 1) as usize;
            unused.remove(i);
        }
        if self.chance(1, 3) {
            unused.reverse();
        }
        let shape = Shape::Tuple(unused.iter().map(|&i| cb.shape(i).clone()).collect());
        Some(self.emit(cb, Op::Tuple, unused, shape))
    }
}

pub(crate) fn scalar(ty: ElementType) -> ArrayShape {
    match Shape::scalar(ty) {
        Shape::Array(a) => a,
        Shape::Tuple(_) => unreachable!("Shape::scalar is an array"),
    }
}

/// Strided output bound of a window: positions of a window of (dilated)
/// size `window` over `bound` elements with `stride` (0 when it does not fit).
pub(crate) fn strided_bound(bound: i64, window: i64, stride: i64) -> i64 {
    if bound < window || stride <= 0 {
        0
    } else {
        (bound - window) / stride + 1
    }
}
