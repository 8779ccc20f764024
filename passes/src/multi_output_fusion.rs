//! `multi-output-fusion`: merges loop kernels over the same index space
//! into one kernel with several outputs (a fusion whose fused computation
//! returns a tuple, read through get-tuple-element), like XLA's
//! multi-output fusion. Two shapes of merge:
//!
//! - **producer–consumer**: a loop node read by a consumer loop node *and*
//!   by others (Adam's new `m`, read by the parameter update and returned):
//!   the consumer computes it in-line and also stores it, so it is not
//!   written by one kernel and read back by the next;
//! - **siblings**: two loop nodes reading a common array (the new `m` and
//!   `v` both read the gradient; a binary search's two selects read the
//!   same comparison): one loop reads it once.
//!
//! Runs after `fusion` (whose groups it merges) on ENTRY and the bodies of
//! while/conditional/call. A *loop node* is a `kLoop` fusion (or a bare
//! elementwise instruction) whose computation holds only elementwise ops,
//! constants, iotas, reshapes, scalar broadcasts and gathers (the kinds the
//! JIT's loop kernel computes at one index with no cross-row structure),
//! with at least [`MIN_ELEMENTS`] elements, that does not read a dot or
//! convolution (the JIT computes such a loop as the GEMM's epilogue) and
//! whose dims are not those of a value the computation reduces along its
//! minor dimension (the JIT runs those loops in row groups); the nodes
//! merged have the same dimensions and layout. A merge is legal when no path leads from the
//! earlier node to the later one except the direct reads being fused (a
//! bounded search; past [`SEARCH_BUDGET`] nodes the merge is skipped).
//! Work is never duplicated: every value is computed once per index, as
//! before. Rounds of disjoint merges, each linear in the computation.
//! This pass never changes values, layouts, or the nodes' own groups
//! beyond joining them; it must not merge reductions, dots, windows or
//! data movement with their own kernels (slices, pads, concatenates,
//! transposes).

use crate::error::Result;
use crate::pass::{Pass, PassContext, PassOption};
use rxla_ir::{CompId, Computation, FusionKind, InstrId, Instruction, Module, Op, Shape};
use std::collections::{HashMap, HashSet};

/// The multi-output fusion pass (see the module doc).
#[derive(Clone, Copy, Debug)]
pub struct MultiOutputFusion {
    /// Smallest node (elements) merged.
    pub min_elements: i64,
}

impl Default for MultiOutputFusion {
    /// [`MIN_ELEMENTS`], or `RXLA_MULTI_OUTPUT_MIN_ELEMENTS` (1 merges the
    /// fuzzer's small modules too; read once).
    fn default() -> Self {
        static MIN: std::sync::OnceLock<i64> = std::sync::OnceLock::new();
        let min = *MIN.get_or_init(|| {
            std::env::var("RXLA_MULTI_OUTPUT_MIN_ELEMENTS")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(MIN_ELEMENTS)
        });
        MultiOutputFusion { min_elements: min }
    }
}

/// Smallest node (elements) worth merging by default: below it the
/// kernels' launch and the intermediate's traffic are noise.
pub const MIN_ELEMENTS: i64 = 4096;

const OPTIONS: &[PassOption] = &[PassOption {
    key: "min-elements",
    description: "smallest node merged, in elements (tests use 1)",
    default: "4096",
}];

/// Instructions the legality search visits per candidate at most.
pub const SEARCH_BUDGET: usize = 512;

/// Largest merged fused computation (instructions).
const MAX_INSTRUCTIONS: usize = 256;

/// Most outputs of one merged fusion.
const MAX_OUTPUTS: usize = 8;

/// Most operands of one merged fusion.
const MAX_OPERANDS: usize = 16;

/// Rounds of merges per computation (each merges disjoint pairs).
const MAX_ROUNDS: usize = 6;

/// Users of a shared array scanned for a sibling.
const MAX_SIBLING_SCAN: usize = 32;

impl Pass for MultiOutputFusion {
    fn name(&self) -> &'static str {
        "multi-output-fusion"
    }

    fn description(&self) -> &'static str {
        "merge loop fusions over the same index space that share inputs or feed each other into one kernel with several outputs (tuple-rooted kLoop fusions)"
    }

    fn honours_fuel(&self) -> bool {
        true
    }

    fn options(&self) -> &'static [PassOption] {
        OPTIONS
    }

    fn set_option(&mut self, key: &str, value: &str) -> Result<()> {
        match key {
            "min-elements" => match value.parse::<i64>() {
                Ok(n) if n >= 0 => {
                    self.min_elements = n;
                    Ok(())
                }
                _ => Err(crate::PassError::option(
                    self.name(),
                    key,
                    "expected a count of elements (0 or more)",
                )),
            },
            _ => Err(crate::PassError::option(
                self.name(),
                key,
                "unknown option (known: min-elements)",
            )),
        }
    }

    fn option_values(&self) -> Vec<(String, String)> {
        if self.min_elements == MultiOutputFusion::default().min_elements {
            Vec::new()
        } else {
            vec![("min-elements".to_string(), self.min_elements.to_string())]
        }
    }

    fn run(&mut self, module: &mut Module, ctx: &mut PassContext) -> Result<bool> {
        let min = self.min_elements;
        let n = run_on_module(module, min, &mut |what| ctx.consume_fuel(what))?;
        if n > 0 {
            ctx.stat("fusions merged", n as u64);
        }
        Ok(n > 0)
    }
}

/// Merges loop nodes in every host computation of `module`; returns the
/// number of merges.
pub fn multi_output_fuse(module: &mut Module) -> Result<usize> {
    run_on_module(module, MIN_ELEMENTS, &mut |_| true)
}

fn run_on_module(
    module: &mut Module,
    min: i64,
    allow: &mut dyn FnMut(&str) -> bool,
) -> Result<usize> {
    let mut merged = 0;
    let mut orphans: HashSet<String> = HashSet::new();
    for name in crate::fusion::host_computations(module) {
        for _ in 0..MAX_ROUNDS {
            let Some(cid) = module.find_computation(&name) else {
                break;
            };
            let n = merge_round(module, cid, min, allow, &mut orphans)?;
            if n == 0 {
                break;
            }
            merged += n;
        }
    }
    if merged > 0 {
        drop_orphans(module, &orphans)?;
    }
    Ok(merged)
}

/// What the pass knows of a loop node.
#[derive(Clone, Debug)]
struct Node {
    /// Dimensions and minor-to-major order of every output.
    key: (Vec<i64>, Vec<i64>),
    /// Number of outputs (1, or the tuple's arity).
    outputs: usize,
    /// Instructions of its fused computation (1 for a bare instruction).
    size: usize,
}

/// Ops a merged loop kernel computes at one index, reading its inputs at
/// that index (or at an index derived from it without crossing rows).
fn op_ok(fc: &Computation, instr: &Instruction) -> bool {
    match &instr.op {
        Op::Parameter { .. } | Op::Constant { .. } | Op::Iota { .. } | Op::Reshape => true,
        Op::Convert | Op::BitcastConvert => true,
        Op::Broadcast { .. } => instr
            .operands
            .first()
            .is_some_and(|&o| fc.get(o).shape.dims().is_empty()),
        Op::Gather { .. } => true,
        Op::Complex => false,
        op => op.is_elementwise(),
    }
}

fn plain_array(s: &Shape) -> Option<(Vec<i64>, Vec<i64>)> {
    let a = s.as_array().ok()?;
    if a.is_dynamic() || a.element_type.is_complex() || a.element_type.is_token() {
        return None;
    }
    if a.layout.is_padded() {
        return None;
    }
    Some((a.dims.clone(), a.layout.minor_to_major.clone()))
}

fn loop_node(
    module: &Module,
    comp: &Computation,
    users: &[Vec<InstrId>],
    id: InstrId,
    min: i64,
) -> Option<Node> {
    let instr = comp.get(id);
    // A loop reading a dot or convolution is the JIT's GEMM epilogue
    // (computed inside the GEMM's tiles): it stays as it is.
    if instr
        .operands
        .iter()
        .any(|&o| matches!(comp.get(o).op, Op::Dot { .. } | Op::Convolution { .. }))
    {
        return None;
    }
    let (keys, size) = match &instr.op {
        Op::Fusion { kind, calls } if kind.0 == "kLoop" => {
            let fc = module.computations.get(calls.index())?;
            // Arrays only, but for a root tuple (one output per operand).
            let ok = |i: InstrId| {
                let x = fc.get(i);
                if i == fc.root && x.op == Op::Tuple {
                    return true;
                }
                op_ok(fc, x) && plain_array(&x.shape).is_some()
            };
            if !fc.ids().all(ok) || outputs_of(fc).len() != instr.shape.leaves().len() {
                return None;
            }
            // Parameters and outputs exactly as the fusion declares them
            // (the merged computation takes the outside values' shapes).
            let params_match = fc.ids().all(|i| match fc.get(i).op {
                Op::Parameter { number } => instr
                    .operands
                    .get(number as usize)
                    .is_some_and(|&o| comp.get(o).shape == fc.get(i).shape),
                _ => true,
            });
            let outs: Vec<&Shape> = outputs_of(fc).iter().map(|&o| &fc.get(o).shape).collect();
            let declared: Vec<&Shape> = match &instr.shape {
                Shape::Tuple(t) => t.iter().collect(),
                s => vec![s],
            };
            if !params_match || outs != declared {
                return None;
            }
            let keys: Vec<_> = match &instr.shape {
                Shape::Tuple(t) => {
                    // Read only through get-tuple-element.
                    if !users[id.index()]
                        .iter()
                        .all(|&u| matches!(comp.get(u).op, Op::GetTupleElement { .. }))
                        || comp.root == id
                    {
                        return None;
                    }
                    t.iter().map(plain_array).collect::<Option<_>>()?
                }
                s => vec![plain_array(s)?],
            };
            (keys, fc.len())
        }
        op if op.is_elementwise() && !matches!(op, Op::Complex) => {
            if instr
                .operands
                .iter()
                .any(|&o| plain_array(&comp.get(o).shape).is_none())
            {
                return None;
            }
            (vec![plain_array(&instr.shape)?], 1)
        }
        _ => return None,
    };
    let key = keys.first()?.clone();
    if keys.iter().any(|k| *k != key) || key.0.iter().product::<i64>() < min {
        return None;
    }
    Some(Node {
        key,
        outputs: keys.len(),
        size,
    })
}

/// The tuple-shaped node `o` reads through get-tuple-element, else `o`.
fn through_gte(comp: &Computation, o: InstrId) -> InstrId {
    match comp.get(o).op {
        Op::GetTupleElement { .. } if comp.get(comp.get(o).operands[0]).shape.is_tuple() => {
            comp.get(o).operands[0]
        }
        _ => o,
    }
}

/// Whether a path leads from `a` to `b` other than `b`'s direct reads of
/// `a` (itself or a get-tuple-element of it); `true` when the search runs
/// out of budget. Instructions are in topological order, so the search
/// never goes below `a`.
fn reaches_indirectly(comp: &Computation, a: InstrId, b: InstrId) -> bool {
    let mut stack: Vec<InstrId> = comp
        .get(b)
        .operands
        .iter()
        .copied()
        .filter(|&o| through_gte(comp, o) != a)
        .collect();
    let mut seen: HashSet<InstrId> = HashSet::new();
    while let Some(x) = stack.pop() {
        if x == a {
            return true;
        }
        if x.index() < a.index() || !seen.insert(x) {
            continue;
        }
        if seen.len() > SEARCH_BUDGET {
            return true;
        }
        stack.extend(comp.get(x).operands.iter().copied());
    }
    false
}

/// Whether `x` is worth reading once instead of twice: a non-constant
/// array of at least `min` elements.
fn shared_input(comp: &Computation, x: InstrId, min: i64) -> bool {
    let i = comp.get(x);
    !matches!(
        i.op,
        Op::Constant { .. } | Op::Broadcast { .. } | Op::Iota { .. }
    ) && i
        .shape
        .as_array()
        .is_ok_and(|a| a.dims.iter().product::<i64>() >= min)
}

/// One round: disjoint pairs chosen in order, then rewritten together.
fn merge_round(
    module: &mut Module,
    cid: CompId,
    min: i64,
    allow: &mut dyn FnMut(&str) -> bool,
    orphans: &mut HashSet<String>,
) -> Result<usize> {
    module.comp_mut(cid).topo_sort()?;
    let comp = module.comp(cid);
    let users = comp.users();
    let row_reduced = row_reduced_dims(module, comp);
    let nodes: Vec<Option<Node>> = comp
        .ids()
        .map(|id| {
            loop_node(module, comp, &users, id, min).filter(|n| !row_reduced.contains(&n.key.0))
        })
        .collect();
    let node = |id: InstrId| nodes[id.index()].as_ref();
    let mut taken = vec![false; comp.len()];
    let mut pairs: Vec<(InstrId, InstrId)> = Vec::new();
    for b in comp.ids() {
        let Some(nb) = node(b) else { continue };
        if taken[b.index()] {
            continue;
        }
        let fits = |a: InstrId, na: &Node| {
            na.key == nb.key
                && !taken[a.index()]
                && a.index() < b.index()
                && na.size + nb.size <= MAX_INSTRUCTIONS
                && na.outputs + nb.outputs <= MAX_OUTPUTS
                && operand_count(comp, a, b) <= MAX_OPERANDS
        };
        let mut candidates: Vec<InstrId> = Vec::new();
        // Producers read by `b` and by others.
        for &o in &comp.get(b).operands {
            let a = through_gte(comp, o);
            if a != b && !candidates.contains(&a) {
                candidates.push(a);
            }
        }
        // Siblings reading a common array.
        for &x in &comp.get(b).operands {
            if !shared_input(comp, x, min) {
                continue;
            }
            for &u in users[x.index()].iter().take(MAX_SIBLING_SCAN) {
                if u != b && !candidates.contains(&u) {
                    candidates.push(u);
                }
            }
        }
        for a in candidates {
            let Some(na) = node(a) else { continue };
            if !fits(a, na) || reaches_indirectly(comp, a, b) {
                continue;
            }
            if !allow(&format!(
                "merge {} into {}",
                comp.get(a).name,
                comp.get(b).name
            )) {
                continue;
            }
            taken[a.index()] = true;
            taken[b.index()] = true;
            pairs.push((a, b));
            break;
        }
    }
    if pairs.is_empty() {
        return Ok(0);
    }
    match rewrite(module, cid, &pairs, orphans) {
        Ok(()) => Ok(pairs.len()),
        // Two merges of one round can close a cycle between them that
        // neither closes alone: then one merge this round.
        Err(_) if pairs.len() > 1 => {
            rewrite(module, cid, &pairs[..1], orphans)?;
            Ok(1)
        }
        Err(e) => Err(e),
    }
}

/// Dims of the values the computation reduces along their minor
/// dimension (a row reduction, directly or in a fusion). The JIT runs the
/// loops over such values with their reductions row by row, in cache
/// (`rows.rs` row groups of single-output kernels: a layernorm's backward
/// pass keeps its intermediates in scratch rows); merged, they would leave
/// the group and go through memory (grad layernorm 4096×1024: 15 -> 20 ms).
/// Nodes over these dims are not merged.
fn row_reduced_dims(module: &Module, comp: &Computation) -> HashSet<Vec<i64>> {
    let mut dims = HashSet::new();
    let mut visit = |c: &Computation, i: &Instruction| {
        if let Op::Reduce { dimensions, .. } = &i.op
            && let Some(&o) = i.operands.first()
            && let Ok(a) = c.get(o).shape.as_array()
            && let Some(&minor) = a.layout.minor_to_major.first()
            && dimensions.contains(&minor)
        {
            dims.insert(a.dims.clone());
        }
    };
    for i in &comp.instructions {
        visit(comp, i);
        if let Op::Fusion { calls, .. } = &i.op
            && let Some(fc) = module.computations.get(calls.index())
        {
            for j in &fc.instructions {
                visit(fc, j);
            }
        }
    }
    dims
}

/// Distinct outside operands of the merge of `a` into `b`.
fn operand_count(comp: &Computation, a: InstrId, b: InstrId) -> usize {
    let mut ops: Vec<InstrId> = comp.get(a).operands.clone();
    for &o in &comp.get(b).operands {
        if through_gte(comp, o) != a && !ops.contains(&o) {
            ops.push(o);
        }
    }
    ops.len()
}

/// A node's computation: its fused computation, or one built around a
/// bare instruction (a parameter per operand).
fn node_computation(module: &Module, comp: &Computation, id: InstrId) -> Computation {
    let instr = comp.get(id);
    if let Op::Fusion { calls, .. } = &instr.op {
        return module.comp(*calls).clone();
    }
    let mut c = Computation::new(instr.name.clone());
    let mut ops = Vec::new();
    for (k, &o) in instr.operands.iter().enumerate() {
        ops.push(c.push(Instruction::new(
            format!("param_{k}"),
            Op::Parameter { number: k as i64 },
            vec![],
            comp.get(o).shape.clone(),
        )));
    }
    let mut copy = instr.clone();
    copy.operands = ops;
    copy.attrs.retain(|(k, _)| k == "metadata");
    c.root = c.push(copy);
    c
}

/// The outputs of a node's computation: the root tuple's operands, or the
/// root.
fn outputs_of(c: &Computation) -> Vec<InstrId> {
    match c.root_instruction().op {
        Op::Tuple => c.root_instruction().operands.clone(),
        _ => vec![c.root],
    }
}

/// Builds the merged computations of `pairs`, replaces each `b` by the
/// merged fusion and `a` by reads of its outputs, and inserts the new
/// computations before the host.
fn rewrite(
    module: &mut Module,
    cid: CompId,
    pairs: &[(InstrId, InstrId)],
    orphans: &mut HashSet<String>,
) -> Result<()> {
    let comp = module.comp(cid);
    let users = comp.users();
    let mut host = comp.clone();
    let mut taken_names: HashSet<String> =
        host.instructions.iter().map(|i| i.name.clone()).collect();
    let mut comp_names: HashSet<String> =
        module.computations.iter().map(|c| c.name.clone()).collect();
    let mut removed = vec![false; host.len()];
    // Values whose readers now read a get-tuple-element of a merged fusion
    // (applied at the end: a reader may itself be replaced by a merge of
    // this round), and the get-tuple-elements made or re-pointed here.
    let mut replace: HashMap<InstrId, InstrId> = HashMap::new();
    let mut fixed: HashSet<InstrId> = HashSet::new();
    // One merged computation per pair, inserted just before the host
    // (callees first): ids from `pos` on move up by `k`, and pair `j`'s
    // computation becomes `pos + j`.
    let (pos, k) = (cid.index(), pairs.len() as u32);
    let shift = move |c: &mut CompId| {
        if c.index() >= pos {
            c.0 += k;
        }
    };
    for i in &mut host.instructions {
        for cc in i.op.called_computations_mut() {
            shift(cc);
        }
    }
    let mut new_comps: Vec<Computation> = Vec::new();
    let mut new_orphans: Vec<String> = Vec::new();
    for &(a, b) in pairs {
        for id in [a, b] {
            if let Op::Fusion { calls, .. } = &comp.get(id).op {
                new_orphans.push(module.comp(*calls).name.clone());
            }
        }
        let (ca, cb) = (
            node_computation(module, comp, a),
            node_computation(module, comp, b),
        );
        let name = crate::util::fresh_name(&mut comp_names, &format!("fused_{}", comp.get(b).name));
        let mut nc = Computation::new(name);
        let mut local: HashSet<String> = HashSet::new();
        let mut params: Vec<InstrId> = Vec::new();
        let mut param_of: HashMap<InstrId, InstrId> = HashMap::new();
        // `a`'s values, then `b`'s reading them in place of its reads of `a`.
        let a_outs = inline(&mut nc, &ca, &comp.get(a).operands, &mut |nc, o| {
            param(nc, comp, &mut params, &mut param_of, &mut local, o)
        });
        let a_outs = a_outs?;
        let b_ops = comp.get(b).operands.clone();
        let b_outs = inline(&mut nc, &cb, &b_ops, &mut |nc, o| {
            if o == a {
                return Ok(a_outs[0]);
            }
            if through_gte(comp, o) == a
                && let Op::GetTupleElement { index } = comp.get(o).op
            {
                return Ok(a_outs[index as usize]);
            }
            param(nc, comp, &mut params, &mut param_of, &mut local, o)
        })?;
        // `a`'s outputs read outside `b` (through get-tuple-elements when
        // `a` has several).
        let a_tuple = comp.get(a).shape.is_tuple();
        let outside = |x: InstrId| users[x.index()].iter().any(|&u| u != b) || comp.root == x;
        let mut a_kept: Vec<(usize, Vec<InstrId>)> = Vec::new();
        if a_tuple {
            let mut by_index: Vec<Vec<InstrId>> = vec![Vec::new(); a_outs.len()];
            for &g in &users[a.index()] {
                if let Op::GetTupleElement { index } = comp.get(g).op {
                    by_index[index as usize].push(g);
                }
            }
            for (k, gs) in by_index.into_iter().enumerate() {
                if gs.iter().any(|&g| outside(g)) {
                    a_kept.push((k, gs));
                } else {
                    for g in gs {
                        removed[g.index()] = true;
                    }
                }
            }
        } else if outside(a) {
            a_kept.push((0, vec![a]));
        }
        let mut outs = b_outs.clone();
        outs.extend(a_kept.iter().map(|(k, _)| a_outs[*k]));
        // A tuple whenever `b` was one (its get-tuple-elements stay), even
        // of one output.
        let single = outs.len() == 1 && !comp.get(b).shape.is_tuple();
        let shape = if single {
            nc.get(outs[0]).shape.clone()
        } else {
            Shape::Tuple(outs.iter().map(|&o| nc.get(o).shape.clone()).collect())
        };
        nc.root = if single {
            outs[0]
        } else {
            let n = crate::util::fresh_name(&mut local, "tuple");
            nc.push(Instruction::new(n, Op::Tuple, outs.clone(), shape.clone()))
        };
        dedupe_names(&mut nc);
        nc.topo_sort()?;
        let bi = comp.get(b);
        let b_tuple = bi.shape.is_tuple();
        // A single-output `b` that gains outputs: its name goes to the read
        // of its value, the fusion gets a new one.
        let fusion_name = if !b_tuple && outs.len() > 1 {
            crate::util::fresh_name(&mut taken_names, &format!("{}.multi", bi.name))
        } else {
            bi.name.clone()
        };
        let mut fusion = Instruction::new(
            fusion_name,
            Op::Fusion {
                kind: FusionKind("kLoop".to_string()),
                calls: CompId((pos + new_comps.len()) as u32),
            },
            params.clone(),
            shape.clone(),
        );
        fusion.attrs = bi
            .attrs
            .iter()
            .filter(|(k, _)| k == "metadata")
            .cloned()
            .collect();
        *host.get_mut(b) = fusion;
        new_comps.push(nc);
        // Reads of the merged fusion's outputs take the names of the values
        // they stand for (whose instructions are gone).
        let gte = |host: &mut Computation, name: &str, k: usize| {
            let n = name.to_string();
            let s = match &shape {
                Shape::Tuple(t) => t[k].clone(),
                s => s.clone(),
            };
            host.push(Instruction::new(
                n,
                Op::GetTupleElement { index: k as i64 },
                vec![b],
                s,
            ))
        };
        // `b`'s readers.
        if !b_tuple && outs.len() > 1 {
            let g = gte(&mut host, &comp.get(b).name, 0);
            replace.insert(b, g);
            fixed.insert(g);
        }
        // `b`'s get-tuple-elements keep their indices (its outputs come
        // first). `a`'s readers read the merged fusion.
        for (j, (_, gs)) in a_kept.iter().enumerate() {
            let at = b_outs.len() + j;
            if a_tuple {
                for &g in gs {
                    let gi = host.get_mut(g);
                    gi.operands = vec![b];
                    gi.op = Op::GetTupleElement { index: at as i64 };
                    fixed.insert(g);
                }
            } else {
                let g = gte(&mut host, &comp.get(a).name, at);
                replace.insert(a, g);
                fixed.insert(g);
            }
        }
        removed[a.index()] = true;
    }
    for id in host.ids().collect::<Vec<_>>() {
        if fixed.contains(&id) {
            continue;
        }
        for o in &mut host.get_mut(id).operands {
            if let Some(&n) = replace.get(o) {
                *o = n;
            }
        }
    }
    if let Some(&n) = replace.get(&host.root) {
        host.root = n;
    }
    let mut keep: Vec<bool> = removed.iter().map(|r| !r).collect();
    keep.resize(host.len(), true);
    host.retain(&keep)?;
    host.topo_sort()?;
    for c in module.computations.iter_mut().chain(new_comps.iter_mut()) {
        for i in &mut c.instructions {
            for cc in i.op.called_computations_mut() {
                shift(cc);
            }
        }
    }
    shift(&mut module.entry);
    for (j, c) in new_comps.into_iter().enumerate() {
        module.computations.insert(pos + j, c);
    }
    *module.comp_mut(CompId(cid.0 + k)) = host;
    orphans.extend(new_orphans);
    Ok(())
}

/// Renames instructions whose name an earlier one has (the two merged
/// computations may share names).
fn dedupe_names(c: &mut Computation) {
    let mut seen: HashSet<String> = HashSet::new();
    let names: HashSet<String> = c.instructions.iter().map(|i| i.name.clone()).collect();
    let mut taken = names;
    for i in &mut c.instructions {
        if !seen.insert(i.name.clone()) {
            i.name = crate::util::fresh_name(&mut taken, &i.name);
            seen.insert(i.name.clone());
        }
    }
}

/// The merged computation's parameter for outside value `o` (one per
/// distinct value).
fn param(
    nc: &mut Computation,
    comp: &Computation,
    params: &mut Vec<InstrId>,
    param_of: &mut HashMap<InstrId, InstrId>,
    local: &mut HashSet<String>,
    o: InstrId,
) -> Result<InstrId> {
    if let Some(&p) = param_of.get(&o) {
        return Ok(p);
    }
    let k = params.len();
    params.push(o);
    let name = crate::util::fresh_name(local, &format!("param_{k}"));
    let p = nc.push(Instruction::new(
        name,
        Op::Parameter { number: k as i64 },
        vec![],
        comp.get(o).shape.clone(),
    ));
    param_of.insert(o, p);
    Ok(p)
}

/// Copies `src`'s instructions (except parameters and a root tuple) into
/// `nc`; parameter `n` becomes `read(nc, operands[n])`. Returns `nc`'s ids
/// of `src`'s outputs.
fn inline(
    nc: &mut Computation,
    src: &Computation,
    operands: &[InstrId],
    read: &mut dyn FnMut(&mut Computation, InstrId) -> Result<InstrId>,
) -> Result<Vec<InstrId>> {
    let mut map: HashMap<InstrId, InstrId> = HashMap::new();
    let tuple_root = matches!(src.root_instruction().op, Op::Tuple);
    for id in src.ids() {
        let i = src.get(id);
        if tuple_root && id == src.root {
            continue;
        }
        let new = match i.op {
            Op::Parameter { number } => {
                let o = operands.get(number as usize).copied().ok_or_else(|| {
                    crate::PassError::Failed {
                        pass: "multi-output-fusion".to_string(),
                        message: format!(
                            "{} reads parameter {number} of {} operands",
                            src.name,
                            operands.len()
                        ),
                    }
                })?;
                read(nc, o)?
            }
            _ => {
                let mut copy = i.clone();
                copy.operands = i.operands.iter().map(|o| map[o]).collect();
                nc.push(copy)
            }
        };
        map.insert(id, new);
    }
    Ok(outputs_of(src).iter().map(|o| map[o]).collect())
}

/// Removes the fused computations the merges replaced, when nothing calls
/// them any more.
fn drop_orphans(module: &mut Module, orphans: &HashSet<String>) -> Result<()> {
    let mut called = vec![false; module.computations.len()];
    for c in &module.computations {
        for i in &c.instructions {
            for cc in i.op.called_computations() {
                if let Some(x) = called.get_mut(cc.index()) {
                    *x = true;
                }
            }
        }
    }
    let keep: Vec<bool> = module
        .computations
        .iter()
        .enumerate()
        .map(|(i, c)| called[i] || !orphans.contains(&c.name) || CompId(i as u32) == module.entry)
        .collect();
    if keep.iter().all(|&k| k) {
        return Ok(());
    }
    Ok(module.retain_computations(&keep)?)
}
