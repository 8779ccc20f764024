//! Wide programs from the IR: finds the dense f32 elementwise expression
//! under a kernel's root (the long polynomial and rational chains JAX
//! lowers `erf`, exact GELU or `lgamma` into) and compiles it into one
//! `crate::wide::program` routine, run a row block at a time through
//! `blocks::run_blocks` in 512-bit vectors instead of inline F32X4 code.
//!
//! The expression is the root and every instruction whose users are all in
//! it, read at the root's own index (elementwise, same dims), of a kind the
//! routine computes bit for bit as the inline code does. Scalar constants
//! become immediates, row-invariant values one-value leaves, everything
//! else a leaf row that the kernel fills (or reads in place). Chains of
//! single-use values stay in registers; a value read twice goes to a
//! scratch slot. This module must not change results: it only picks and
//! orders work, and declines (returns `None`) whatever it cannot express.

use super::blocks::{kernel_users, row_invariant};
use crate::wide::program::{self as wp, Ins, MAX_LEAVES, MAX_SLOTS, Op as P, Src};
use rxla_ir::{
    BinaryOp, ComparisonDirection, ComparisonType, Computation, ElementType, InstrId, Op, UnaryOp,
};
use std::collections::{HashMap, HashSet};

/// A compiled expression: the routine's words and the leaves it reads, in
/// leaf-index order.
#[derive(Clone, Debug)]
pub struct WideProgram {
    pub words: Vec<u64>,
    pub leaves: Vec<InstrId>,
}

/// Whether wide programs are used (`RXLA_WIDE_PROGRAM=0` turns them off,
/// to compare; read once).
pub fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("RXLA_WIDE_PROGRAM").as_deref() != Ok("0"))
}

/// Whether programs run as machine code (`crate::wide::compile`) rather
/// than through the interpreter (`RXLA_WIDE_PROGRAM_COMPILE=0`, to
/// compare; read once).
pub fn compiled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("RXLA_WIDE_PROGRAM_COMPILE").as_deref() != Ok("0"))
}

/// The machine code of a program (`words`, reading `leaves` leaves)
/// defined as a function of `em`'s module with `rxla_block_program`'s
/// signature, or `None` (compilation off, or the code cannot be made):
/// the caller then calls the interpreter.
pub fn define_compiled(
    em: &mut super::emit::Emitter,
    words: &[u64],
    leaves: usize,
) -> Option<cranelift_codegen::ir::FuncRef> {
    use cranelift_codegen::ir::{AbiParam, types::I64};
    use cranelift_module::Module;
    if !compiled() {
        return None;
    }
    let bytes = crate::wide::compile::compile_words(words, leaves)?;
    let mut sig = em.jm.make_signature();
    sig.params = vec![AbiParam::new(I64); 4];
    sig.returns = vec![AbiParam::new(I64)];
    // A name profilers show (`perf` reads the JIT's map): unique per
    // process, so unique per module.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let id = em
        .jm
        .declare_function(
            &format!("rxla_wide_program_{n}"),
            cranelift_module::Linkage::Local,
            &sig,
        )
        .ok()?;
    em.jm.define_function_bytes(id, 64, &bytes, &[]).ok()?;
    Some(em.jm.declare_func_in_func(id, em.b.func))
}

/// [`MIN_COST`], or `RXLA_WIDE_PROGRAM_MIN_COST` (1 makes every eligible
/// kernel a program: the fuzzer's way to exercise them; read once).
fn min_cost() -> usize {
    static MIN: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *MIN.get_or_init(|| {
        std::env::var("RXLA_WIDE_PROGRAM_MIN_COST")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(MIN_COST)
    })
}

/// Cost units below which the inline code is as good (memory-bound): a
/// cheap op is 1, a divide or square root 4, a transcendental 10.
const MIN_COST: usize = 16;
/// The floor for kernels whose values fit in L2 (at most
/// [`IN_CACHE_ELEMENTS`] per array): there the arithmetic, not memory,
/// sets the pace, and a program wins from a divide and a few cheap ops on
/// (a Newton step on 4096 values: 0.078 -> 0.030 ms; on arrays of
/// millions the same floor measured up to 1.46x slower).
const MIN_COST_IN_CACHE: usize = 6;
const IN_CACHE_ELEMENTS: i64 = 1 << 16;
/// Largest expression compiled (recursion depth of the chain builder).
const MAX_NODES: usize = 1024;

/// The program for the expression under `root` (values of dims `dims`,
/// contiguous dimension `d`), or `None` when there is no dense enough
/// expression or it does not fit the routine's limits.
pub fn wide_program(
    comp: &Computation,
    root: InstrId,
    dims: &[i64],
    d: usize,
    is_input: &dyn Fn(InstrId) -> bool,
) -> Option<WideProgram> {
    let (ids, users) = kernel_users(comp, root, is_input);
    let same = |id: InstrId| comp.get(id).shape.dims() == dims;
    // A float program (f32 values) or an integer one (s32/u32 values: the
    // same 32-bit lanes, integer ops only).
    let int = comp
        .get(root)
        .shape
        .element_type()
        .is_some_and(|t| matches!(t, ElementType::S32 | ElementType::U32));
    let f32_ = |id: InstrId| {
        comp.get(id).shape.as_array().is_ok_and(|a| {
            if int {
                matches!(a.element_type, ElementType::S32 | ElementType::U32)
            } else {
                a.element_type == ElementType::F32
            }
        })
    };
    let float_compare = |id: InstrId| {
        let i = comp.get(id);
        !int && matches!(&i.op, Op::Compare { kind, .. } if *kind != Some(ComparisonType::TotalOrder))
            && i.operands.iter().all(|&o| f32_(o))
            && same(id)
            && !is_input(id)
    };
    let mut consts: HashMap<InstrId, f32> = HashMap::new();
    let mut member: HashSet<InstrId> = HashSet::new();
    let mut cost = 0usize;
    for &id in &ids {
        if is_input(id) || !same(id) {
            continue;
        }
        if let Some(c) = splat_constant(comp, id, int) {
            consts.insert(id, c);
            continue;
        }
        let i = comp.get(id);
        let uses = users.get(&id).map(Vec::as_slice).unwrap_or(&[]);
        let all_users_in = id == root || uses.iter().all(|u| member.contains(u));
        let pred_of_select = uses.iter().any(|&u| {
            member.contains(&u)
                && comp.get(u).op == Op::Select
                && comp.get(u).operands.first() == Some(&id)
        });
        let weight = match &i.op {
            Op::Compare { .. } if pred_of_select && float_compare(id) => Some(1),
            Op::Select if f32_(id) => {
                let ok = i.operands.len() == 3
                    && float_compare(i.operands[0])
                    && f32_(i.operands[1])
                    && f32_(i.operands[2]);
                ok.then_some(1)
            }
            op if int && f32_(id) && i.operands.iter().all(|&o| f32_(o)) => int_weight(op),
            op if f32_(id) && i.operands.iter().all(|&o| f32_(o)) => weight(op),
            _ => None,
        };
        let Some(w) = weight else { continue };
        if all_users_in || matches!(i.op, Op::Compare { .. }) {
            member.insert(id);
            cost += w;
        }
    }
    let elements = dims.iter().try_fold(1i64, |a, &d| a.checked_mul(d));
    let in_cache = elements.is_some_and(|n| n <= IN_CACHE_ELEMENTS);
    let floor = if in_cache {
        min_cost().min(MIN_COST_IN_CACHE)
    } else {
        min_cost()
    };
    if !member.contains(&root) || cost < floor || member.len() > MAX_NODES {
        return None;
    }
    let mut b = Builder {
        comp,
        int,
        member: &member,
        consts: &consts,
        uses: HashMap::new(),
        slot_of: HashMap::new(),
        free: Vec::new(),
        slots: 0,
        leaves: Vec::new(),
        leaf_of: HashMap::new(),
        d,
        code: Vec::new(),
    };
    for &m in &member {
        for &o in &comp.get(m).operands {
            *b.uses.entry(o).or_default() += 1;
        }
    }
    b.acc(root)?;
    let slots = b.slots as usize;
    if !wp::validate(&b.code, slots, b.leaves.len()) {
        return None;
    }
    if std::env::var("RXLA_DUMP_PROG").is_ok() {
        for ins in &b.code {
            eprintln!("{:?} {:?} {}", ins.op, ins.src, ins.aux);
        }
        eprintln!("-- {} instructions, {} slots", b.code.len(), slots);
    }
    Some(WideProgram {
        words: wp::encode(&b.code, slots),
        leaves: b.leaves,
    })
}

/// Cost units of an elementwise op the routine computes, or `None`.
fn weight(op: &Op) -> Option<usize> {
    Some(match op {
        Op::Binary(
            BinaryOp::Add
            | BinaryOp::Subtract
            | BinaryOp::Multiply
            | BinaryOp::Maximum
            | BinaryOp::Minimum,
        ) => 1,
        Op::Binary(BinaryOp::Divide) => 4,
        Op::Unary(UnaryOp::Negate | UnaryOp::Abs) => 1,
        Op::Unary(UnaryOp::Sqrt) => 4,
        Op::Unary(
            UnaryOp::Exp
            | UnaryOp::Tanh
            | UnaryOp::Logistic
            | UnaryOp::Log
            | UnaryOp::Erf
            | UnaryOp::Log1p,
        ) => 10,
        _ => return None,
    })
}

/// Cost units of an integer op an integer program computes, or `None`
/// (a shift's amount must be a source, not the accumulator: see
/// `int_binary_op`).
fn int_weight(op: &Op) -> Option<usize> {
    Some(match op {
        Op::Binary(
            BinaryOp::Add
            | BinaryOp::Subtract
            | BinaryOp::Multiply
            | BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::Xor
            | BinaryOp::ShiftLeft
            | BinaryOp::ShiftRightLogical
            | BinaryOp::ShiftRightArithmetic,
        ) => 1,
        Op::Unary(UnaryOp::Not) => 1,
        _ => return None,
    })
}

/// The value of a broadcast of a one-element f32 constant (or such a
/// constant itself); with `int`, of an s32/u32 one, as the f32 of its
/// bits.
fn splat_constant(comp: &Computation, id: InstrId, int: bool) -> Option<f32> {
    let i = comp.get(id);
    let lit = match &i.op {
        Op::Constant { literal } => literal,
        Op::Broadcast { .. } => match &comp.get(*i.operands.first()?).op {
            Op::Constant { literal } => literal,
            _ => return None,
        },
        _ => return None,
    };
    if int {
        return match (lit.as_slice::<i32>(), lit.as_slice::<u32>()) {
            (Some([v]), _) => Some(f32::from_bits(*v as u32)),
            (_, Some([v])) => Some(f32::from_bits(*v)),
            _ => None,
        };
    }
    match lit.as_slice::<f32>()? {
        [v] => Some(*v),
        _ => None,
    }
}

struct Builder<'a> {
    comp: &'a Computation,
    /// An integer program (`int_unary_op`, `int_binary_op`).
    int: bool,
    member: &'a HashSet<InstrId>,
    consts: &'a HashMap<InstrId, f32>,
    /// Reads of each value by members not yet emitted.
    uses: HashMap<InstrId, usize>,
    slot_of: HashMap<InstrId, u32>,
    free: Vec<u32>,
    slots: u32,
    leaves: Vec<InstrId>,
    leaf_of: HashMap<InstrId, u32>,
    d: usize,
    code: Vec<Ins>,
}

impl Builder<'_> {
    /// Appends an instruction; an add or subtract of a constant right
    /// after a multiply becomes one [`P::MulAdd`] (`x - c` is `x + -c`
    /// exactly in IEEE arithmetic).
    fn push(&mut self, op: P, src: Src, aux: u32) {
        let addend = match (op, src) {
            (P::Add, Src::Const(c)) => Some(c),
            (P::Sub, Src::Const(c)) if !c.is_nan() => Some(-c),
            _ => None,
        };
        if let (Some(c), Some(last)) = (addend, self.code.last_mut())
            && last.op == P::Mul
        {
            last.op = P::MulAdd;
            last.aux = c.to_bits();
            return;
        }
        // A load of the slot just stored: the accumulator still holds it.
        if let (P::Load, Src::Slot(s), Some(last)) = (op, src, self.code.last())
            && last.op == P::Store
            && last.src == Src::Slot(s)
        {
            return;
        }
        self.code.push(Ins { op, src, aux });
    }

    /// Whether member `id` can be computed straight into the accumulator
    /// (read once, not in a slot yet).
    fn chainable(&self, id: InstrId) -> bool {
        self.member.contains(&id)
            && !self.slot_of.contains_key(&id)
            && self.uses.get(&id) == Some(&1)
    }

    /// Where operand `id` can be read from, computing a member into a slot
    /// first; with the member whose read is to be [`Builder::consume`]d
    /// once the reading instruction is out (not before: another reader
    /// emitted in between must not free the slot under this one).
    fn src(&mut self, id: InstrId) -> Option<(Src, Option<InstrId>)> {
        if let Some(&c) = self.consts.get(&id) {
            return Some((Src::Const(c), None));
        }
        if !self.member.contains(&id) {
            let i = match self.leaf_of.get(&id) {
                Some(&i) => i,
                None => {
                    if self.leaves.len() >= MAX_LEAVES {
                        return None;
                    }
                    self.leaves.push(id);
                    let i = (self.leaves.len() - 1) as u32;
                    self.leaf_of.insert(id, i);
                    i
                }
            };
            let one = row_invariant(self.comp, id, self.d, 4);
            return Some((if one { Src::Scalar(i) } else { Src::Row(i) }, None));
        }
        let slot = match self.slot_of.get(&id) {
            Some(&s) => s,
            None => {
                self.acc(id)?;
                let s = match self.free.pop() {
                    Some(s) => s,
                    None if (self.slots as usize) < MAX_SLOTS => {
                        self.slots += 1;
                        self.slots - 1
                    }
                    None => return None,
                };
                self.push(P::Store, Src::Slot(s), 0);
                self.slot_of.insert(id, s);
                s
            }
        };
        Some((Src::Slot(slot), Some(id)))
    }

    /// One read of member `id`'s slot is done; the slot is free for reuse
    /// after its last read.
    fn consume(&mut self, id: Option<InstrId>) {
        let Some(id) = id else { return };
        let left = self.uses.entry(id).or_default();
        *left = left.saturating_sub(1);
        if *left == 0
            && let Some(&s) = self.slot_of.get(&id)
        {
            self.free.push(s);
        }
    }

    /// Emits code leaving member `id`'s value in the accumulator.
    fn acc(&mut self, id: InstrId) -> Option<()> {
        let i = self.comp.get(id);
        let ops = i.operands.clone();
        // Which operand positions may be the accumulator, and the op for
        // each choice.
        let (positions, op_for): (&[usize], OpFor) = match &i.op {
            Op::Unary(_) if self.int => (&[0], int_unary_op),
            Op::Binary(b) if self.int && b.is_shift() => (&[0], int_binary_op),
            Op::Binary(_) if self.int => (&[0, 1], int_binary_op),
            Op::Unary(_) => (&[0], unary_op),
            Op::Binary(_) => (&[0, 1], binary_op),
            Op::Compare { .. } => (&[0, 1], compare_op),
            Op::Select => (&[1, 2], select_op),
            _ => return None,
        };
        let pos = positions
            .iter()
            .copied()
            .find(|&p| self.chainable(ops[p]))
            .unwrap_or(positions[0]);
        let (op, dir) = op_for(&i.op, pos)?;
        // The other operands first (they may need the accumulator), then
        // the accumulator's chain, then this op.
        let mut done = Vec::new();
        let mut other = Src::None;
        let mut mask = 0u32;
        for (k, &o) in ops.iter().enumerate() {
            if k == pos {
                continue;
            }
            let (s, free) = self.src(o)?;
            done.push(free);
            match (&i.op, k) {
                (Op::Select, 0) => match s {
                    Src::Slot(m) => mask = m,
                    _ => return None,
                },
                _ => other = s,
            }
        }
        if self.chainable(ops[pos]) {
            self.uses.insert(ops[pos], 0);
            self.acc(ops[pos])?;
        } else {
            let (s, free) = self.src(ops[pos])?;
            self.push(P::Load, s, 0);
            self.consume(free);
        }
        let aux = if matches!(i.op, Op::Select) {
            mask
        } else {
            dir
        };
        self.push(op, other, aux);
        for f in done {
            self.consume(f);
        }
        Some(())
    }
}

/// The program op (and compare direction) for an IR op with the
/// accumulator as operand `pos`.
type OpFor = fn(&Op, usize) -> Option<(P, u32)>;

fn unary_op(op: &Op, _: usize) -> Option<(P, u32)> {
    let p = match op {
        Op::Unary(UnaryOp::Negate) => P::Neg,
        Op::Unary(UnaryOp::Abs) => P::Abs,
        Op::Unary(UnaryOp::Sqrt) => P::Sqrt,
        Op::Unary(UnaryOp::Exp) => P::Exp,
        Op::Unary(UnaryOp::Tanh) => P::Tanh,
        Op::Unary(UnaryOp::Logistic) => P::Logistic,
        Op::Unary(UnaryOp::Log) => P::Log,
        Op::Unary(UnaryOp::Erf) => P::Erf,
        Op::Unary(UnaryOp::Log1p) => P::Log1p,
        _ => return None,
    };
    Some((p, 0))
}

/// The op with the accumulator as operand `pos` (0: `a ∘ s`, 1: `s ∘ a`).
fn binary_op(op: &Op, pos: usize) -> Option<(P, u32)> {
    let Op::Binary(b) = op else { return None };
    let p = match (b, pos) {
        (BinaryOp::Add, _) => P::Add,
        (BinaryOp::Multiply, _) => P::Mul,
        (BinaryOp::Subtract, 0) => P::Sub,
        (BinaryOp::Subtract, _) => P::RSub,
        (BinaryOp::Divide, 0) => P::Div,
        (BinaryOp::Divide, _) => P::RDiv,
        (BinaryOp::Maximum, 0) => P::Max,
        (BinaryOp::Maximum, _) => P::RMax,
        (BinaryOp::Minimum, 0) => P::Min,
        (BinaryOp::Minimum, _) => P::RMin,
        _ => return None,
    };
    Some((p, 0))
}

/// An integer program's unary op.
fn int_unary_op(op: &Op, _: usize) -> Option<(P, u32)> {
    match op {
        Op::Unary(UnaryOp::Not) => Some((P::Not, 0)),
        _ => None,
    }
}

/// An integer program's binary op with the accumulator as operand `pos`
/// (a shift's accumulator is always the shifted value).
fn int_binary_op(op: &Op, pos: usize) -> Option<(P, u32)> {
    let Op::Binary(b) = op else { return None };
    let p = match (b, pos) {
        (BinaryOp::Add, _) => P::IAdd,
        (BinaryOp::Multiply, _) => P::IMul,
        (BinaryOp::Subtract, 0) => P::ISub,
        (BinaryOp::Subtract, _) => P::IRSub,
        (BinaryOp::And, _) => P::And,
        (BinaryOp::Or, _) => P::Or,
        (BinaryOp::Xor, _) => P::Xor,
        (BinaryOp::ShiftLeft, 0) => P::Shl,
        (BinaryOp::ShiftRightLogical, 0) => P::Shr,
        (BinaryOp::ShiftRightArithmetic, 0) => P::Sar,
        _ => return None,
    };
    Some((p, 0))
}

/// `a cmp s` for the accumulator as the left operand; as the right one the
/// direction is mirrored.
fn compare_op(op: &Op, pos: usize) -> Option<(P, u32)> {
    let Op::Compare { direction, .. } = op else {
        return None;
    };
    use ComparisonDirection::*;
    let dir = match (direction, pos) {
        (Eq, _) => 0,
        (Ne, _) => 1,
        (Lt, 0) | (Gt, 1) => 2,
        (Le, 0) | (Ge, 1) => 3,
        (Gt, 0) | (Lt, 1) => 4,
        (Ge, 0) | (Le, 1) => 5,
        _ => return None,
    };
    Some((P::Cmp, dir))
}

/// Select with the accumulator as the true (position 1) or false value.
fn select_op(_: &Op, pos: usize) -> Option<(P, u32)> {
    Some((
        if pos == 1 {
            P::SelectKeepTrue
        } else {
            P::SelectKeepFalse
        },
        0,
    ))
}
