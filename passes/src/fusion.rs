//! `fusion`: groups producers into their consumers so the JIT computes
//! each group as one loop nest, printed like XLA as
//! `fusion(operands...), kind=kLoop|kInput|kOutput, calls=fused_computation`.
//!
//! Groups grow from a root (visited from the end of each host computation
//! — ENTRY and the bodies of while/conditional/call) towards its
//! producers. Fusible: elementwise ops, broadcast, reshape, transpose,
//! slice, pad, concatenate, iota, reverse, copy, dynamic-slice, convert,
//! constants, a gather from a table of at most 64 KiB or at indices
//! computed from constants and iotas alone; a single-output `reduce` (kInput), `reduce-window` (kLoop)
//! and `dot` (kOutput) only where each of their elements is read once.
//!
//! Cost rule (no duplication of work): a producer joins a group only when
//! every user of it is already in the group, so nothing is computed twice
//! — except constants and iotas, which are copied into every group that
//! reads them (and broadcasts of scalar constants), and cheap producers
//! (add/subtract/multiply/min/max/negate/abs/convert, broadcasts) whose
//! every user reads them at its own index: each user's group computes
//! its own copy, at most 3 users and 2 levels deep, and the shared
//! intermediate disappears (softmax's `x - max`, read by `sum(exp(·))`
//! and by the output; what XLA's fusion duplicates too). A producer copied
//! into a group before all its users joined is moved in once they all
//! have (`promote_copies`). A producer that is expensive per element (reduce, dot,
//! transcendental, sqrt, divide, remainder or power/atan2) joins only where its elements
//! are read at most once per output element: through elementwise ops of
//! the same dims, reshape, transpose, slice, reverse, copy, convert, pad,
//! concatenate or a reduce's input — never through a broadcast or a dot
//! operand. Any producer joins only while the number of index
//! expressions it would be computed at stays at most 4 (after XLA's
//! fusion_node_indexing_evaluation limit, against the exponential
//! recomputation of stencils: step k read at 5 offsets by step k+1).
//! Groups are capped at 256 instructions. Results are unchanged.
//! This pass never fuses across computations or changes layouts.

use crate::error::Result;
use crate::pass::{Pass, PassContext, PassOption};
use rxla_ir::{CompId, Computation, FusionKind, InstrId, Instruction, Module, Op, Shape, UnaryOp};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The fusion pass. `fusion{dots=false}` is the JIT's form (its GEMM
/// engine runs dots unfused; see `pipeline::JIT_BACKEND`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Fusion {
    pub config: FusionConfig,
}

const OPTIONS: &[PassOption] = &[PassOption {
    key: "dots",
    description: "fuse elementwise consumers into dots (kOutput): true or false",
    default: "true",
}];

const MAX_GROUP: usize = 256;

/// Most index expressions one fused instruction may be computed at (XLA's
/// fusion_node_indexing_evaluation allows 15 per node; 4 keeps a stencil
/// step, read at 4-5 offsets by the next, out of the next step's loop:
/// heat stencil 1024², 10 steps: 108 ms at 16, 90 ms at 4).
const MAX_INDEXINGS: u64 = 4;

impl Pass for Fusion {
    fn name(&self) -> &'static str {
        "fusion"
    }

    fn description(&self) -> &'static str {
        "fuse elementwise and data-movement producers into consumers (kLoop), into reductions (kInput) and elementwise consumers into dots (kOutput); no duplicated work"
    }

    fn honours_fuel(&self) -> bool {
        true
    }

    fn options(&self) -> &'static [PassOption] {
        OPTIONS
    }

    fn set_option(&mut self, key: &str, value: &str) -> Result<()> {
        match (key, value) {
            ("dots", "true") => self.config.fuse_dots = true,
            ("dots", "false") => self.config.fuse_dots = false,
            ("dots", _) => {
                return Err(crate::PassError::option(
                    self.name(),
                    key,
                    "expected true or false",
                ));
            }
            _ => {
                return Err(crate::PassError::option(
                    self.name(),
                    key,
                    "unknown option (known: dots)",
                ));
            }
        }
        Ok(())
    }

    fn option_values(&self) -> Vec<(String, String)> {
        if self.config.fuse_dots {
            Vec::new()
        } else {
            vec![("dots".to_string(), "false".to_string())]
        }
    }

    fn run(&mut self, module: &mut Module, ctx: &mut PassContext) -> Result<bool> {
        let n = fuse_module_with(module, self.config, &mut |what| ctx.consume_fuel(what))?;
        if n > 0 {
            ctx.stat("fusions created", n as u64);
        }
        Ok(n > 0)
    }
}

/// What the pass may fuse.
#[derive(Clone, Copy, Debug)]
pub struct FusionConfig {
    /// Fuse dots with their elementwise consumers (kOutput). A backend
    /// with a separate GEMM engine turns this off so dots stay alone.
    pub fuse_dots: bool,
}

impl Default for FusionConfig {
    fn default() -> Self {
        FusionConfig { fuse_dots: true }
    }
}

/// Fuses every host computation of `module`; returns the number of fusion
/// instructions created.
pub fn fuse_module(module: &mut Module) -> Result<usize> {
    fuse_module_with_config(module, FusionConfig::default())
}

/// [`fuse_module`] with a configuration.
pub fn fuse_module_with_config(module: &mut Module, cfg: FusionConfig) -> Result<usize> {
    fuse_module_with(module, cfg, &mut |_| true)
}

fn fuse_module_with(
    module: &mut Module,
    cfg: FusionConfig,
    allow: &mut dyn FnMut(&str) -> bool,
) -> Result<usize> {
    let names = host_computations(module);
    let mut created = 0;
    for name in names {
        let Some(cid) = module.find_computation(&name) else {
            continue;
        };
        created += fuse_computation(module, cid, cfg, allow)?;
    }
    Ok(created)
}

/// Names of ENTRY and the computations it reaches through call, while
/// and conditional (never reducers, comparators or fused computations).
pub(crate) fn host_computations(module: &Module) -> Vec<String> {
    let mut seen: HashSet<CompId> = HashSet::new();
    let mut stack = vec![module.entry];
    let mut out = Vec::new();
    while let Some(c) = stack.pop() {
        if c.index() >= module.computations.len() || !seen.insert(c) {
            continue;
        }
        out.push(module.comp(c).name.clone());
        for i in &module.comp(c).instructions {
            if matches!(
                i.op,
                Op::Call { .. } | Op::While { .. } | Op::Conditional { .. }
            ) {
                stack.extend(i.op.called_computations());
            }
        }
    }
    out
}

/// Ops a loop fusion can compute per output element.
fn is_loop_fusible(op: &Op) -> bool {
    op.is_elementwise()
        || matches!(
            op,
            Op::Broadcast { .. }
                | Op::Reshape
                | Op::Transpose { .. }
                | Op::Slice { .. }
                | Op::Pad { .. }
                | Op::Concatenate { .. }
                | Op::Iota { .. }
                | Op::Reverse { .. }
                | Op::Copy
                | Op::DynamicSlice { .. }
                | Op::BitcastConvert
                | Op::Constant { .. }
        )
}

/// Complex (c64/c128) values stay out of fusions: the JIT computes them
/// one instruction at a time on the host (no native code for them).
/// Values with bounded dynamic dimensions stay out too (the JIT runs such
/// modules on the evaluator; fusions would only hide the ops).
fn touches_complex(comp: &Computation, instr: &Instruction) -> bool {
    let complex =
        |s: &Shape| s.is_dynamic() || s.leaves().iter().any(|a| a.element_type.is_complex());
    complex(&instr.shape) || instr.operands.iter().any(|&o| complex(&comp.get(o).shape))
}

fn fusible(comp: &Computation, instr: &Instruction, cfg: FusionConfig) -> bool {
    let array = matches!(&instr.shape, Shape::Array(a) if !a.element_type.is_token());
    if variadic_reduce(instr) {
        return !touches_complex(comp, instr);
    }
    array
        && !touches_complex(comp, instr)
        && (is_loop_fusible(&instr.op)
            || small_table_gather(comp, instr)
            || matches!(instr.op, Op::Reduce { .. } | Op::ReduceWindow { .. })
                && instr.operands.len() == 2
            || cfg.fuse_dots && matches!(instr.op, Op::Dot { .. }))
}

/// Largest operand (bytes) of a gather that fuses: a lookup table that
/// stays in L1/L2 while the fused loop reads it at data-dependent places
/// (searchsorted's sorted 4096 values, a small codebook or embedding).
/// A larger operand is gathered by its own kernel: a fused loop would
/// read it at random for every element of its consumer's iteration space
/// (`take_along_axis` from a 1024×1024 array ran 2.4× slower fused).
const MAX_FUSED_GATHER_TABLE: u64 = 64 << 10;

/// A gather from a small table, whose result the consumer reads at its own
/// index: fused like an elementwise op, saving the gathered array's write
/// and read.
fn small_table_gather(comp: &Computation, instr: &Instruction) -> bool {
    matches!(instr.op, Op::Gather { .. })
        && (instr.operands.first().is_some_and(|&t| {
            matches!(&comp.get(t).shape, Shape::Array(a)
                if a.byte_size().is_ok_and(|b| b as u64 <= MAX_FUSED_GATHER_TABLE))
        }) || instr
            .operands
            .get(1)
            .is_some_and(|&i| static_value(comp, i)))
}

/// Whether `id` is computed from constants and iotas alone (no parameter,
/// no side effect or random op; at most [`STATIC_SEARCH`] instructions
/// looked at). A gather with such indices is data movement fixed at
/// compile time (nearest-neighbour upsampling's row and column maps, a
/// constant permutation): each output element reads one element of the
/// table at a place known per output index, so it fuses like a slice,
/// whatever the table's size (upsample 8×64×64×32 ×2: two gathers, 36 MB
/// of traffic, become one loop reading 4 MB and writing 16 MB).
fn static_value(comp: &Computation, id: InstrId) -> bool {
    let mut stack = vec![id];
    let mut seen: HashSet<InstrId> = HashSet::new();
    while let Some(x) = stack.pop() {
        if !seen.insert(x) {
            continue;
        }
        if seen.len() > STATIC_SEARCH {
            return false;
        }
        let i = comp.get(x);
        let ok = match &i.op {
            Op::Constant { .. } | Op::Iota { .. } => true,
            Op::Parameter { .. } | Op::Fusion { .. } => false,
            op => {
                (op.is_elementwise() || is_loop_fusible(op))
                    && !op.has_side_effect()
                    && !op.is_nondeterministic()
            }
        };
        if !ok {
            return false;
        }
        stack.extend(i.operands.iter().copied());
    }
    true
}

/// Instructions [`static_value`] looks at, at most.
const STATIC_SEARCH: usize = 64;

/// A variadic reduce (argmax's value and index): a tuple of arrays, one
/// per operand. It may root a group (its iota operand is then computed in
/// the kernel instead of materialized); its users, get-tuple-elements,
/// never fuse, so it never joins another group.
fn variadic_reduce(instr: &Instruction) -> bool {
    matches!(instr.op, Op::Reduce { .. })
        && instr.operands.len() >= 4
        && matches!(&instr.shape, Shape::Tuple(t)
            if t.iter().all(|l| matches!(l, Shape::Array(a) if !a.element_type.is_token())))
}

/// Per element, ten or more times an add: reductions, products,
/// transcendental functions, and square roots, divisions and remainders
/// (a divide or sqrt of a row statistic read through a broadcast — an L2
/// norm's `x / sqrt(sum(x²))` — was computed again for every element:
/// 4096×1024 took 2.7 ms against 1.2 ms for the same divide of a
/// materialized row).
fn expensive(op: &Op) -> bool {
    use rxla_ir::BinaryOp as B;
    matches!(
        op,
        Op::Reduce { .. }
            | Op::ReduceWindow { .. }
            | Op::Dot { .. }
            | Op::Unary(UnaryOp::Sqrt)
            | Op::Binary(B::Divide | B::Remainder)
    ) || op.is_transcendental()
}

fn duplicable(comp: &Computation, instr: &Instruction) -> bool {
    match &instr.op {
        Op::Iota { .. } => true,
        // A broadcast of a scalar constant costs nothing per element.
        Op::Broadcast { .. } => instr.operands.first().is_some_and(|&o| {
            matches!(comp.get(o).op, Op::Constant { .. }) && duplicable(comp, comp.get(o))
        }),
        Op::Constant { .. } => instr
            .shape
            .as_array()
            .is_ok_and(|a| a.dims.iter().product::<i64>() <= 1),
        _ => false,
    }
}

/// A producer cheap enough to be computed again in each consumer group
/// that reads it (XLA's fusion duplicates such producers too): one
/// add/subtract/multiply/min/max/negate/abs/convert per element, or a
/// broadcast. Copying it lets each consumer read the producer's own
/// operands instead of a materialized intermediate (softmax-like graphs:
/// `x - max` read by both `sum(exp(·))` and the output).
fn cheap_copyable(instr: &Instruction) -> bool {
    use rxla_ir::BinaryOp as B;
    match &instr.op {
        Op::Binary(b) => matches!(
            b,
            B::Add
                | B::Subtract
                | B::Multiply
                | B::Maximum
                | B::Minimum
                | B::And
                | B::Or
                | B::Xor
                | B::ShiftLeft
                | B::ShiftRightLogical
                | B::ShiftRightArithmetic
        ),
        Op::Unary(u) => matches!(u, UnaryOp::Negate | UnaryOp::Abs | UnaryOp::Not),
        Op::Convert | Op::Broadcast { .. } => true,
        _ => false,
    }
}

/// An expensive elementwise producer worth computing again in each of its
/// (at most two) users: it is larger than a core's L2 (materializing it
/// costs a write and a read from memory per element, more than computing a
/// transcendental again) and one user reduces it over outer dimensions
/// (keeping its minor one), where no row group keeps it in cache: softmax
/// over axis 0, `exp(x - max)` read by the column sum and the output.
/// 4096×1024 on one core: rxla/XLA 1.8 -> see docs/PERFORMANCE.md.
fn costly_copyable(comp: &Computation, users: &[InstrId], p: InstrId) -> bool {
    let pi = comp.get(p);
    let Ok(a) = pi.shape.as_array() else {
        return false;
    };
    let minor = a.layout.minor_to_major.first().copied();
    let column_reduce = |u: InstrId| {
        let ui = comp.get(u);
        matches!(&ui.op, Op::Reduce { dimensions, .. }
            if ui.operands.first() == Some(&p)
                && minor.is_some_and(|m| !dimensions.contains(&m)))
    };
    pi.op.is_elementwise()
        && expensive(&pi.op)
        && users.len() <= 2
        && a.dims.iter().product::<i64>() >= COSTLY_COPY_MIN_ELEMENTS
        && users.iter().any(|&u| column_reduce(u))
}

/// Elements (f32: 1 MiB) from which an expensive producer may be copied.
const COSTLY_COPY_MIN_ELEMENTS: i64 = 1 << 18;

/// Most users a cheap producer may be copied for.
const MAX_COPY_USERS: usize = 3;

/// Longest chain of cheap copies (a copy's operands may be copies too).
const MAX_COPY_DEPTH: u32 = 2;

/// Longest chain of cheap integer copies: an integer add, xor or shift is
/// a fraction of the memory traffic of materializing its result, and
/// jax's PRNG (threefry: 20 rounds of add, rotate, xor over two u32
/// arrays, five rounds per while-loop step) chains eight of them between
/// the step's two outputs; the work repeated is at most this many times
/// the group's.
const MAX_INT_COPY_DEPTH: u32 = 8;

/// Whether `instr` yields integers (signed or unsigned, any width).
fn integer_valued(instr: &Instruction) -> bool {
    instr
        .shape
        .as_array()
        .is_ok_and(|a| a.element_type.is_signed_int() || a.element_type.is_unsigned_int())
}

/// Whether operand `k` of `user` is read at most once per element of
/// `user` (so an expensive producer there is not recomputed).
fn read_once(comp: &Computation, user: InstrId, k: usize) -> bool {
    let u = comp.get(user);
    match &u.op {
        Op::Reshape | Op::Transpose { .. } | Op::Slice { .. } | Op::Reverse { .. } | Op::Copy => {
            true
        }
        Op::Convert => true,
        // A narrowing bitcast-convert reads each operand element once per
        // piece (an extra minor dimension).
        Op::BitcastConvert => comp.get(u.operands[k]).shape.dims() == u.shape.dims(),
        Op::Pad { .. } => k == 0,
        Op::Concatenate { .. } => true,
        Op::Reduce { .. } => k < u.operands.len() / 2,
        op if op.is_elementwise() => {
            let o = comp.get(u.operands[k]);
            o.shape.dims() == u.shape.dims()
        }
        _ => false,
    }
}

/// Moves into `g` the producers it copied before all their users had
/// joined, now that they all have (none of them a copy itself): a copy
/// beside a kept original would compute the value twice and materialize it
/// once (JAX's erf polynomial: `x·c` read by `x·c·x·c` and by the output
/// was written to memory and read back). Users first, so a chain of such
/// copies moves in one call; an expensive copy moves only where it is
/// read once per output element. Returns whether anything moved.
fn promote_copies(
    comp: &Computation,
    users: &[Vec<InstrId>],
    g: &mut Group,
    read_elsewhere: &dyn Fn(InstrId) -> bool,
) -> bool {
    let mut copies: Vec<InstrId> = g
        .copies
        .iter()
        .copied()
        .filter(|&c| c != comp.root && !duplicable(comp, comp.get(c)) && !read_elsewhere(c))
        .collect();
    copies.sort_by_key(|c| std::cmp::Reverse(c.index()));
    let mut moved = false;
    for c in copies {
        let us = &users[c.index()];
        let all_in = !us.is_empty()
            && us
                .iter()
                .all(|u| g.members.contains_key(u) && !g.copies.contains(u));
        if !all_in {
            continue;
        }
        let once = read_once_by_all(comp, us, g, c);
        if expensive(&comp.get(c).op) && !once {
            continue;
        }
        g.copies.remove(&c);
        g.members.insert(c, once);
        moved = true;
    }
    moved
}

/// Whether `p` is read once per output element of `g`: every user (all
/// members of `g` by now, so their flags are final) is computed once per
/// output element and reads `p` once per element of its own.
fn read_once_by_all(comp: &Computation, users: &[InstrId], g: &Group, p: InstrId) -> bool {
    users.iter().all(|&u| {
        g.members.get(&u).copied().unwrap_or(false)
            && comp
                .get(u)
                .operands
                .iter()
                .enumerate()
                .filter(|(_, o)| **o == p)
                .all(|(j, _)| read_once(comp, u, j))
    })
}

struct Group {
    root: InstrId,
    members: BTreeMap<InstrId, bool>,
    /// Duplicated producers (copied in, original kept for other users).
    copies: HashSet<InstrId>,
}

fn fuse_computation(
    module: &mut Module,
    cid: CompId,
    cfg: FusionConfig,
    allow: &mut dyn FnMut(&str) -> bool,
) -> Result<usize> {
    let comp = module.comp(cid).clone();
    let users = comp.users();
    let mut owner: Vec<Option<usize>> = vec![None; comp.len()];
    let mut groups: Vec<Group> = Vec::new();
    // Producers every user of which copied them (or is itself copied
    // away): they disappear in the rewrite, so they root no group.
    let mut copied_away: HashSet<InstrId> = HashSet::new();
    let mut copy_groups: HashMap<InstrId, Vec<usize>> = HashMap::new();
    for root in (0..comp.len() as u32).rev().map(InstrId) {
        if owner[root.index()].is_some()
            || !fusible(&comp, comp.get(root), cfg)
            || duplicable(&comp, comp.get(root))
        {
            continue;
        }
        let us = &users[root.index()];
        if root != comp.root
            && !us.is_empty()
            && us.iter().all(|u| {
                let copied_with = |gi: &usize| groups[*gi].copies.contains(&root);
                owner[u.index()].is_some_and(|gi| copied_with(&gi))
                    || copied_away.contains(u)
                        && copy_groups
                            .get(u)
                            .is_some_and(|gs| gs.iter().all(copied_with))
            })
        {
            copied_away.insert(root);
            continue;
        }
        let mut g = Group {
            root,
            members: BTreeMap::new(),
            copies: HashSet::new(),
        };
        g.members.insert(root, true);
        let mut indexings: HashMap<InstrId, u64> = HashMap::new();
        let mut copy_depth: HashMap<InstrId, u32> = HashMap::new();
        // Grow until no producer can join.
        let mut changed = true;
        while changed && g.members.len() < MAX_GROUP {
            changed = false;
            let members: Vec<InstrId> = g.members.keys().copied().collect();
            for m in members {
                for &p in &comp.get(m).operands {
                    if g.members.contains_key(&p) || owner[p.index()].is_some() {
                        continue;
                    }
                    let pi = comp.get(p);
                    if !fusible(&comp, pi, cfg) {
                        continue;
                    }
                    if duplicable(&comp, pi) {
                        // Copied in, unless every user is in the group (then moved).
                        let all_in = p != comp.root
                            && users[p.index()]
                                .iter()
                                .all(|u| g.members.contains_key(u) && !g.copies.contains(u));
                        g.members.insert(p, false);
                        if !all_in {
                            g.copies.insert(p);
                        }
                        changed = true;
                        continue;
                    }
                    if p == comp.root {
                        continue;
                    }
                    let all_users_in = users[p.index()].iter().all(|u| g.members.contains_key(u));
                    let read_by_copy = users[p.index()].iter().any(|u| g.copies.contains(u));
                    if !all_users_in || read_by_copy {
                        // Copied (computed again here, the original kept for
                        // its other users) if cheap and not fanned out far.
                        let depth = if g.copies.contains(&m) {
                            copy_depth.get(&m).copied().unwrap_or(1) + 1
                        } else {
                            1
                        };
                        // Read here only at the users' own index (elementwise
                        // users of the same dims, a reduce's input, or a
                        // copied broadcast), by users computed at one index:
                        // never through a slice, pad or transpose, where a
                        // stencil would compute each copy at many offsets.
                        // Every user, here or elsewhere, must read it so (then
                        // each user's group can copy it and the original
                        // goes; a copy beside a kept original saves nothing).
                        let own_index = users[p.index()].iter().all(|&u| {
                            let ui = comp.get(u);
                            fusible(&comp, ui, cfg)
                                && indexings.get(&u).copied().unwrap_or(1) == 1
                                && (ui.op.is_elementwise() && ui.shape.dims() == pi.shape.dims()
                                    || matches!(ui.op, Op::Reduce { .. })
                                        && ui.operands.first() == Some(&p)
                                    || matches!(ui.op, Op::Broadcast { .. })
                                        && g.copies.contains(&u))
                        });
                        let max_depth = if integer_valued(pi) {
                            MAX_INT_COPY_DEPTH
                        } else {
                            MAX_COPY_DEPTH
                        };
                        let cheap = cheap_copyable(pi)
                            && users[p.index()].len() <= MAX_COPY_USERS
                            && depth <= max_depth;
                        let costly =
                            !cheap && depth == 1 && costly_copyable(&comp, &users[p.index()], p);
                        if (cheap || costly)
                            && own_index
                            && allow(&format!("copy {} into {}", pi.name, comp.get(g.root).name))
                        {
                            g.members.insert(p, false);
                            g.copies.insert(p);
                            // A costly copy's own cheap operands may still be
                            // copied two levels deep (softmax's `x - max` and
                            // its broadcast).
                            copy_depth.insert(p, if cheap { depth } else { 0 });
                            changed = true;
                        }
                        continue;
                    }
                    // Moved in only if no earlier group that copied a user of
                    // it reads it as a parameter.
                    let read_elsewhere = users[p.index()].iter().any(|u| {
                        copy_groups.get(u).is_some_and(|gs| {
                            gs.iter().any(|&gi| !groups[gi].members.contains_key(&p))
                        })
                    });
                    if read_elsewhere {
                        continue;
                    }
                    // Read once per output element only if every user reads it once
                    // and is itself computed once per output element (all users are
                    // members by now, so their flags are final).
                    let p_once = read_once_by_all(&comp, &users[p.index()], &g, p);
                    // How many index expressions compute `p` in the group's loop
                    // nest: the sum over users reading it at another index
                    // (slice, pad, transpose, ...) of their own counts, plus the
                    // largest count among users reading it at their own index
                    // (the emitter computes a value once per index). A stencil
                    // reading the previous step at five offsets would otherwise
                    // recompute it 5^steps times.
                    let (mut same, mut other) = (0u64, 0u64);
                    for &u in &users[p.index()] {
                        let ui = comp.get(u);
                        let c = indexings.get(&u).copied().unwrap_or(1);
                        if ui.op.is_elementwise() && ui.shape.dims() == pi.shape.dims() {
                            same = same.max(c);
                        } else {
                            other = other.saturating_add(c);
                        }
                    }
                    let p_indexings = same.saturating_add(other).max(1);
                    if p_indexings > MAX_INDEXINGS
                        || expensive(&pi.op) && (!p_once || p_indexings > 1)
                    {
                        continue;
                    }
                    if !allow(&format!("fuse {} into {}", pi.name, comp.get(g.root).name)) {
                        continue;
                    }
                    g.members.insert(p, p_once);
                    indexings.insert(p, p_indexings);
                    changed = true;
                }
            }
            // Not where an earlier group copied a user of it and reads it
            // as a parameter (it must stay materialized for that group).
            let read_elsewhere = |c: InstrId| {
                users[c.index()].iter().any(|u| {
                    copy_groups
                        .get(u)
                        .is_some_and(|gs| gs.iter().any(|&gi| !groups[gi].members.contains_key(&c)))
                })
            };
            changed |= promote_copies(&comp, &users, &mut g, &read_elsewhere);
        }
        let real = g.members.keys().filter(|m| !g.copies.contains(m)).count();
        if real + g.copies.len() < 2 {
            continue;
        }
        let gi = groups.len();
        for m in g.members.keys() {
            if !g.copies.contains(m) {
                owner[m.index()] = Some(gi);
            } else {
                copy_groups.entry(*m).or_default().push(gi);
            }
        }
        groups.push(g);
    }
    if groups.is_empty() {
        return Ok(0);
    }
    let n = groups.len();
    rewrite(module, cid, &comp, &groups)?;
    Ok(n)
}

fn kind_of(comp: &Computation, g: &Group) -> &'static str {
    let ops = g.members.keys().map(|m| &comp.get(*m).op);
    let mut kind = "kLoop";
    for op in ops {
        match op {
            Op::Dot { .. } => return "kOutput",
            Op::Reduce { .. } => kind = "kInput",
            _ => {}
        }
    }
    kind
}

/// Builds the fused computations and replaces each group by a fusion.
fn rewrite(module: &mut Module, cid: CompId, comp: &Computation, groups: &[Group]) -> Result<()> {
    let mut new_comps: Vec<Computation> = Vec::new();
    let mut fusion_instrs: Vec<(InstrId, Instruction)> = Vec::new();
    let mut removed: HashSet<InstrId> = HashSet::new();
    let mut taken: HashSet<String> = module.computations.iter().map(|c| c.name.clone()).collect();
    for g in groups {
        let base = format!("fused_{}", comp.get(g.root).name);
        let name = crate::util::fresh_name(&mut taken, &base);
        let mut fc = Computation::new(name.clone());
        let mut map: BTreeMap<InstrId, InstrId> = BTreeMap::new();
        let mut params: Vec<InstrId> = Vec::new();
        for &m in g.members.keys() {
            let instr = comp.get(m);
            let mut ops = Vec::with_capacity(instr.operands.len());
            for &o in &instr.operands {
                let id = match map.get(&o) {
                    Some(&x) => x,
                    None => {
                        let k = params.len();
                        params.push(o);
                        let p = fc.push(Instruction::new(
                            format!("param_{k}"),
                            Op::Parameter { number: k as i64 },
                            vec![],
                            comp.get(o).shape.clone(),
                        ));
                        map.insert(o, p);
                        p
                    }
                };
                ops.push(id);
            }
            let mut copy = instr.clone();
            copy.operands = ops;
            copy.attrs.retain(|(k, _)| k == "metadata");
            let id = fc.push(copy);
            map.insert(m, id);
            if !g.copies.contains(&m) && m != g.root {
                removed.insert(m);
            }
        }
        fc.root = map[&g.root];
        fc.topo_sort()?;
        let root = comp.get(g.root);
        let mut fusion = Instruction::new(
            root.name.clone(),
            Op::Fusion {
                kind: FusionKind(kind_of(comp, g).to_string()),
                calls: CompId(u32::MAX),
            },
            params,
            root.shape.clone(),
        );
        fusion.attrs = root
            .attrs
            .iter()
            .filter(|(k, _)| k == "metadata")
            .cloned()
            .collect();
        fusion_instrs.push((g.root, fusion));
        new_comps.push(fc);
    }
    // Copied constants/iotas left without users outside their groups go.
    let users = comp.users();
    let roots: HashSet<InstrId> = groups.iter().map(|g| g.root).collect();
    // A copied producer goes when no instruction left outside the groups
    // reads it and every group reading one of its users holds its own copy
    // (else the group reads it as a parameter). To a fixpoint: a copy's
    // own copied operands go once it has.
    let mut groups_of: HashMap<InstrId, Vec<usize>> = HashMap::new();
    for (gi, g) in groups.iter().enumerate() {
        for &m in g.members.keys() {
            groups_of.entry(m).or_default().push(gi);
        }
    }
    let mut again = true;
    while again {
        again = false;
        for g in groups {
            for &c in &g.copies {
                if removed.contains(&c) || comp.root == c {
                    continue;
                }
                let gone = users[c.index()].iter().all(|u| {
                    (removed.contains(u) || roots.contains(u))
                        && groups_of.get(u).is_some_and(|gs| {
                            gs.iter().all(|&gi| groups[gi].members.contains_key(&c))
                        })
                });
                if gone {
                    removed.insert(c);
                    again = true;
                }
            }
        }
    }
    // Insert the fused computations just before their caller (callees
    // first), shifting later computation ids.
    let pos = cid.index();
    let k = new_comps.len() as u32;
    let shift = |c: &mut CompId| {
        if c.0 != u32::MAX && c.index() >= pos {
            c.0 += k;
        }
    };
    for c in &mut module.computations {
        for i in &mut c.instructions {
            for cc in i.op.called_computations_mut() {
                shift(cc);
            }
        }
    }
    for c in &mut new_comps {
        for i in &mut c.instructions {
            for cc in i.op.called_computations_mut() {
                shift(cc);
            }
        }
    }
    shift(&mut module.entry);
    for (gi, (_, f)) in fusion_instrs.iter_mut().enumerate() {
        if let Op::Fusion { calls, .. } = &mut f.op {
            *calls = CompId(pos as u32 + gi as u32);
        }
    }
    let caller = CompId(cid.0 + k);
    for (j, c) in new_comps.into_iter().enumerate() {
        module.computations.insert(pos + j, c);
    }
    let host = module.comp_mut(caller);
    for (root, f) in fusion_instrs {
        *host.get_mut(root) = f;
    }
    let keep: Vec<bool> = (0..host.len())
        .map(|i| !removed.contains(&InstrId(i as u32)))
        .collect();
    host.retain(&keep)?;
    Ok(())
}

/// Unit tests that look inside the fused computations. Module-in, IR-out
/// cases are filetests in `tests/filetests/opt/fusion/`.
#[cfg(test)]
mod tests {
    use super::*;

    fn fused(text: &str) -> (Module, String) {
        let mut m = rxla_ir::parse_module(text, "t").expect("parses");
        fuse_module(&mut m).expect("fuses");
        rxla_ir::verify_module(&m).expect("verifies");
        let printed = rxla_ir::print_module(&m);
        (m, printed)
    }

    const SOFTMAX: &str = "HloModule s
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8,16] parameter(0)
  ninf = f32[] constant(-inf)
  mx = f32[8] reduce(x, ninf), dimensions={1}, to_apply=max
  bm = f32[8,16] broadcast(mx), dimensions={0}
  d = f32[8,16] subtract(x, bm)
  ex = f32[8,16] exponential(d)
  zero = f32[] constant(0)
  sm = f32[8] reduce(ex, zero), dimensions={1}, to_apply=add
  bs = f32[8,16] broadcast(sm), dimensions={0}
  ROOT r = f32[8,16] divide(ex, bs)
}
";

    #[test]
    fn softmax_groups_and_kinds() {
        let (m, text) = fused(SOFTMAX);
        let e = m.entry_computation();
        let kinds: Vec<&str> = e
            .instructions
            .iter()
            .filter_map(|i| match &i.op {
                Op::Fusion { kind, .. } => Some(kind.0.as_str()),
                _ => None,
            })
            .collect();
        // reduce-max (kInput), subtract+exp (kLoop; exp has two users so it
        // is materialized once), reduce-sum (kInput), divide (kLoop).
        assert_eq!(kinds, vec!["kInput", "kLoop", "kInput", "kLoop"], "{text}");
        // The reduce results reach their consumers through broadcasts: never fused there.
        assert!(text.contains("calls=fused_r"), "{text}");
        let fused_div = &m.computations[m.find_computation("fused_r").expect("fused_r").index()];
        assert!(
            !fused_div
                .instructions
                .iter()
                .any(|i| matches!(i.op, Op::Reduce { .. } | Op::Unary(UnaryOp::Exp))),
            "the divide fusion must not recompute exp or the sum:\n{text}"
        );
    }

    /// Log-softmax: `d = x - max` is read by `sum(exp(d))` and by the
    /// output `d - log(sum)`, both at their own index: each group computes
    /// its own `d` from `x` and the row maximum, and `d` is never
    /// materialized. A cheap producer also read through a slice is not
    /// copied (a stencil would compute it at every offset).
    #[test]
    fn large_exp_read_by_a_column_sum_is_copied_into_both_readers() {
        // Softmax over axis 0: exp(x - max) is read by the column sum and
        // the output. Above 2^18 elements each reader computes its own
        // exp; below (a row group keeps it in cache) it stays one value.
        let text = |r: usize, c: usize| {
            format!(
                "HloModule s0
add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}}
max {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}}
ENTRY e {{
  x = f32[{r},{c}] parameter(0)
  lo = f32[] constant(-inf)
  mx = f32[{c}] reduce(x, lo), dimensions={{0}}, to_apply=max
  bm = f32[{r},{c}] broadcast(mx), dimensions={{1}}
  d = f32[{r},{c}] subtract(x, bm)
  ex = f32[{r},{c}] exponential(d)
  z = f32[] constant(0)
  sm = f32[{c}] reduce(ex, z), dimensions={{0}}, to_apply=add
  bs = f32[{r},{c}] broadcast(sm), dimensions={{1}}
  ROOT r = f32[{r},{c}] divide(ex, bs)
}}
"
            )
        };
        let (m, t) = fused(&text(1024, 512));
        let names: Vec<&str> = m
            .entry_computation()
            .instructions
            .iter()
            .map(|i| i.name.as_str())
            .collect();
        assert_eq!(names, vec!["x", "mx", "sm", "r"], "{t}");
        for f in ["fused_sm", "fused_r"] {
            let c = &m.computations[m.find_computation(f).expect(f).index()];
            let exps = c
                .instructions
                .iter()
                .filter(|i| matches!(i.op, Op::Unary(UnaryOp::Exp)))
                .count();
            assert_eq!(exps, 1, "{f} computes exp once per element:\n{t}");
        }
        let (m, t) = fused(&text(64, 32));
        assert!(
            m.entry_computation()
                .instructions
                .iter()
                .any(|i| i.name == "ex"),
            "a small exp stays one value:\n{t}"
        );
    }

    #[test]
    fn cheap_shared_producer_is_copied_into_each_reader() {
        // SOFTMAX with the output `d - log(sum)` instead of `ex / sum`.
        let tail =
            "  bs = f32[8,16] broadcast(sm), dimensions={0}\n  ROOT r = f32[8,16] divide(ex, bs)";
        assert!(SOFTMAX.contains(tail));
        let log_softmax = SOFTMAX.replace(
            tail,
            "  lg = f32[8] log(sm)\n  bl = f32[8,16] broadcast(lg), dimensions={0}\n  ROOT r = f32[8,16] subtract(d, bl)",
        );
        let (m, text) = fused(&log_softmax);
        let e = m.entry_computation();
        let ops: Vec<&str> = e.instructions.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(ops, vec!["x", "mx", "lg", "r"], "{text}");
        for f in ["fused_lg", "fused_r"] {
            let c = &m.computations[m.find_computation(f).expect(f).index()];
            let subs = c
                .instructions
                .iter()
                .filter(|i| matches!(i.op, Op::Binary(rxla_ir::BinaryOp::Subtract)))
                .count();
            assert!(subs >= 1, "{f} computes its own x - max:\n{text}");
        }

        let (m, text) = fused(
            "HloModule st
ENTRY e {
  x = f32[16] parameter(0)
  y = f32[16] parameter(1)
  a = f32[16] add(x, y)
  s = f32[14] slice(a), slice={[1:15]}
  t = f32[14] slice(a), slice={[0:14]}
  u = f32[14] add(s, t)
  n = f32[16] negate(a)
  ROOT r = (f32[14], f32[16]) tuple(u, n)
}
",
        );
        assert!(
            m.entry_computation()
                .instructions
                .iter()
                .any(|i| i.name == "a"),
            "a is read through slices: kept, not copied:\n{text}"
        );
    }

    /// JAX's `logsumexp(x, -1)`: the row maximum reaches the final add
    /// directly *and* the exp through a broadcast. It must not join a
    /// group through the direct path (it would be recomputed for every
    /// element of the row: O(rows·cols²)).
    #[test]
    fn reduce_read_directly_and_through_a_broadcast_is_not_fused() {
        let (m, text) = fused(
            "HloModule lse
max { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b) }
add { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b) }
ENTRY e {
  x = f32[4,8] parameter(0)
  ninf = f32[] constant(-inf)
  mx = f32[4] reduce(x, ninf), dimensions={1}, to_apply=max
  bninf = f32[4] broadcast(ninf), dimensions={}
  m3 = f32[4] maximum(mx, bninf)
  fin = pred[4] is-finite(m3)
  zero = f32[] constant(0)
  bz = f32[4] broadcast(zero), dimensions={}
  sel = f32[4] select(fin, m3, bz)
  r1 = f32[4,1] reshape(sel)
  b1 = f32[4,1] broadcast(r1), dimensions={0,1}
  r2 = f32[4] reshape(b1)
  b2 = f32[4,8] broadcast(r2), dimensions={0}
  d = f32[4,8] subtract(x, b2)
  ex = f32[4,8] exponential(d)
  s = f32[4] reduce(ex, zero), dimensions={1}, to_apply=add
  a = f32[4] abs(s)
  l = f32[4] log(a)
  ROOT r = f32[4] add(l, sel)
}
",
        );
        for (_, name, opcode, times) in crate::work::fused_recomputation(&m) {
            if matches!(opcode, "reduce" | "exponential" | "log") {
                assert!(
                    times <= 1.0,
                    "{name} ({opcode}) computed {times}x per element:\n{text}"
                );
            }
        }
        // The maximum is its own kInput fusion; the rest is one kInput group.
        let reduces_in_one = m.computations.iter().any(|c| {
            c.instructions
                .iter()
                .filter(|i| matches!(i.op, Op::Reduce { .. }))
                .count()
                > 1
        });
        assert!(!reduces_in_one, "{text}");
    }

    /// An explicit stencil: each step reads the previous one at three
    /// offsets. Fusing every step into one loop would compute step 1
    /// 3^7 times per element; the indexing limit cuts the chain.
    #[test]
    fn stencil_steps_are_not_recomputed_exponentially() {
        let (m, text) = fused(
            "HloModule heat
ENTRY e {
  u0 = f32[16] parameter(0)
  z = f32[] constant(0)
  p1 = f32[18] pad(u0, z), padding=1_1
  l1 = f32[16] slice(p1), slice={[0:16]}
  r1 = f32[16] slice(p1), slice={[2:18]}
  s1 = f32[16] add(l1, r1)
  u1 = f32[16] add(s1, u0)
  p2 = f32[18] pad(u1, z), padding=1_1
  l2 = f32[16] slice(p2), slice={[0:16]}
  r2 = f32[16] slice(p2), slice={[2:18]}
  s2 = f32[16] add(l2, r2)
  u2 = f32[16] add(s2, u1)
  p3 = f32[18] pad(u2, z), padding=1_1
  l3 = f32[16] slice(p3), slice={[0:16]}
  r3 = f32[16] slice(p3), slice={[2:18]}
  s3 = f32[16] add(l3, r3)
  u3 = f32[16] add(s3, u2)
  p4 = f32[18] pad(u3, z), padding=1_1
  l4 = f32[16] slice(p4), slice={[0:16]}
  r4 = f32[16] slice(p4), slice={[2:18]}
  s4 = f32[16] add(l4, r4)
  u4 = f32[16] add(s4, u3)
  p5 = f32[18] pad(u4, z), padding=1_1
  l5 = f32[16] slice(p5), slice={[0:16]}
  r5 = f32[16] slice(p5), slice={[2:18]}
  s5 = f32[16] add(l5, r5)
  u5 = f32[16] add(s5, u4)
  p6 = f32[18] pad(u5, z), padding=1_1
  l6 = f32[16] slice(p6), slice={[0:16]}
  r6 = f32[16] slice(p6), slice={[2:18]}
  s6 = f32[16] add(l6, r6)
  u6 = f32[16] add(s6, u5)
  p7 = f32[18] pad(u6, z), padding=1_1
  l7 = f32[16] slice(p7), slice={[0:16]}
  r7 = f32[16] slice(p7), slice={[2:18]}
  s7 = f32[16] add(l7, r7)
  u7 = f32[16] add(s7, u6)
  p8 = f32[18] pad(u7, z), padding=1_1
  l8 = f32[16] slice(p8), slice={[0:16]}
  r8 = f32[16] slice(p8), slice={[2:18]}
  s8 = f32[16] add(l8, r8)
  ROOT u8 = f32[16] add(s8, u7)
}
",
        );
        let worst = crate::work::fused_recomputation(&m)
            .into_iter()
            .map(|(_, _, _, t)| t)
            .fold(0.0, f64::max);
        assert!(worst <= 16.0, "{worst}x:\n{text}");
        assert!(
            text.contains("fusion("),
            "the steps still fuse in short runs:\n{text}"
        );
    }
}
