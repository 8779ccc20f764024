//! Layout assignment of one computation, in three sweeps over the input:
//!
//! 1. backward (users before producers): every value collects the layouts
//!    its users accept (the intersection; on a conflict the root's
//!    requirement, then the earliest user, wins) and a hint (the layout
//!    that makes its first hinting user free), giving a provisional layout
//!    that users further up see;
//! 2. forward (producers before users): every value takes its natural
//!    layout (the free one given its operands: a transpose's bitcast
//!    layout, an elementwise op's operand layout) when the users accept
//!    it; otherwise an accepted one. A layout-preserving op whose operands
//!    disagree with its users keeps its operands' layout when that needs
//!    fewer copies (one copy of the result instead of one per operand);
//! 3. rewrite: a `copy` is inserted wherever an operand's layout is still
//!    not accepted (one per value and layout, shared; a tuple is built in
//!    the layouts its users want, copying its operands), transposes and
//!    reshapes that move no data become `bitcast`s, constants are
//!    relaid, and the root is copied to the required result layout.
//!
//! It never changes what a value means, only where its elements live.

use super::physical::{reshape_is_bitcast, transpose_is_bitcast};
use super::rules::{Rules, relayout_like};
use crate::error::{PassError, Result};
use crate::util::fresh_name;
use rxla_ir::layout_verifier::{layouts_equal, operand_must_match_result, same_dims};
use rxla_ir::{CompId, Computation, InstrId, Instruction, Literal, Op, Shape};
use std::collections::{HashMap, HashSet};

/// Counters of one computation's assignment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AssignStats {
    pub copies: u64,
    pub transposes_to_bitcast: u64,
    pub reshapes_to_bitcast: u64,
    pub layouts_changed: u64,
    /// Values given a SIMD-padded layout (`simd-pad`).
    pub padded: u64,
}

fn contains(list: &[Shape], s: &Shape) -> bool {
    list.iter().any(|x| layouts_equal(x, s))
}

/// The intersection of accepted-layout lists; on an empty intersection
/// the earlier lists win.
fn intersect(lists: Vec<Vec<Shape>>) -> Option<Vec<Shape>> {
    let mut it = lists.into_iter();
    let mut cur = it.next()?;
    for next in it {
        let both: Vec<Shape> = cur.iter().filter(|s| contains(&next, s)).cloned().collect();
        if !both.is_empty() {
            cur = both;
        }
    }
    Some(cur)
}

fn default_shape(s: &Shape) -> Shape {
    match s {
        Shape::Array(_) => s.with_default_layouts(),
        Shape::Tuple(_) => s.clone(),
    }
}

/// Assigns layouts to computation `cid` of `rules.module`; returns the
/// rewritten computation. `names` holds every instruction name of the
/// module (new names are added).
pub fn assign_computation(
    rules: &Rules<'_>,
    cid: CompId,
    names: &mut HashSet<String>,
    stats: &mut AssignStats,
) -> Result<Computation> {
    let comp = rules.module.comp(cid);
    let n = comp.len();
    let required = rules
        .iface
        .results
        .get(cid.index())
        .cloned()
        .unwrap_or_else(|| comp.root_instruction().shape.clone());
    // (user, operand index) of every use, by operand.
    let mut uses: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for (u, instr) in comp.instructions.iter().enumerate() {
        for (i, o) in instr.operands.iter().enumerate() {
            if o.index() >= u {
                return Err(PassError::failed(
                    "layout-assignment",
                    format!(
                        "computation {}: {} uses an operand defined after it",
                        comp.name, instr.name
                    ),
                ));
            }
            let slot = uses.get_mut(o.index()).ok_or_else(|| {
                PassError::failed(
                    "layout-assignment",
                    format!("{}: operand out of range", instr.name),
                )
            })?;
            slot.push((u, i));
        }
    }

    // 1. Backward.
    let mut acc: Vec<Option<Vec<Shape>>> = vec![None; n];
    let mut prov: Vec<Option<Shape>> = vec![None; n];
    let mut hints: Vec<Option<Shape>> = vec![None; n];
    for x in (0..n).rev() {
        let mut lists = Vec::new();
        if x == comp.root.index() {
            lists.push(vec![required.clone()]);
        }
        let mut hint = None;
        for &(u, i) in &uses[x] {
            let user = &comp.instructions[u];
            if let Some(l) = rules.operand_accepts(comp, user, i, prov[u].as_ref()) {
                lists.push(l);
            }
            if let Some(r) = &prov[u] {
                if matches!(user.op, Op::Tuple)
                    && let Some(e) = r.tuple_elements().and_then(|t| t.get(i))
                {
                    lists.push(vec![e.clone()]);
                }
                if hint.is_none() {
                    hint = rules.operand_hint(comp, user, i, r);
                }
            }
        }
        acc[x] = intersect(lists);
        let instr = &comp.instructions[x];
        prov[x] = rules
            .fixed_result(cid, instr)
            .or_else(|| acc[x].as_ref().and_then(|l| l.first().cloned()))
            .or_else(|| hint.clone());
        hints[x] = hint;
    }

    // 2. Forward.
    let mut chosen: Vec<Shape> = Vec::with_capacity(n);
    for x in 0..n {
        let instr = &comp.instructions[x];
        let ops: Vec<&Shape> = instr.operands.iter().map(|o| &chosen[o.index()]).collect();
        let s = if let Some(f) = rules.fixed_result(cid, instr) {
            f
        } else if let (Op::Tuple, Some(want)) = (&instr.op, &prov[x]) {
            // A tuple is built in the layouts its users want; its operands
            // are copied where they differ (sharing copies per value).
            want.clone()
        } else if Rules::is_derived(&instr.op) {
            rules
                .natural(instr, &ops)
                .unwrap_or_else(|| instr.shape.clone())
        } else {
            choose(rules, instr, &ops, acc[x].as_deref(), hints[x].as_ref())
        };
        let s = if s.compatible(&instr.shape) && s.validate().is_ok() {
            s
        } else {
            instr.shape.clone()
        };
        chosen.push(s);
    }

    // 3. Rewrite.
    let mut out = Computation::new(comp.name.clone());
    let mut new_id: Vec<InstrId> = Vec::with_capacity(n);
    let mut cache: HashMap<(InstrId, String), InstrId> = HashMap::new();
    for x in 0..n {
        let orig = &comp.instructions[x];
        let mut instr = orig.clone();
        instr.shape = chosen[x].clone();
        if !layouts_equal(&instr.shape, &orig.shape) {
            stats.layouts_changed += 1;
        }
        for (i, o) in orig.operands.iter().enumerate() {
            let mut id = new_id[o.index()];
            let accepts = match (&orig.op, chosen[x].tuple_elements()) {
                (Op::Tuple, Some(elems)) => elems.get(i).map(|e| vec![e.clone()]),
                _ => rules.operand_accepts(comp, orig, i, Some(&chosen[x])),
            };
            if let Some(list) = accepts
                && !contains(&list, &chosen[o.index()])
            {
                let want = relayout_like(&chosen[o.index()], &list[0]);
                id = conform(
                    &mut out,
                    id,
                    &chosen[o.index()],
                    &want,
                    &mut cache,
                    names,
                    stats,
                );
            }
            instr.operands[i] = id;
        }
        let operand_shape = |k: usize| {
            instr
                .operands
                .get(k)
                .and_then(|o| out.instructions.get(o.index()))
                .map(|i| &i.shape)
        };
        match (&instr.op, operand_shape(0)) {
            // A bitcast has no rule for dynamic dims: keep the op.
            _ if instr.shape.is_dynamic() || operand_shape(0).is_some_and(Shape::is_dynamic) => {}
            (Op::Transpose { permutation }, Some(Shape::Array(a))) => {
                if let Shape::Array(r) = &instr.shape
                    && transpose_is_bitcast(a, r, permutation)
                {
                    instr.op = Op::Bitcast;
                    stats.transposes_to_bitcast += 1;
                }
            }
            (Op::Reshape, Some(Shape::Array(a))) => {
                if let Shape::Array(r) = &instr.shape
                    && reshape_is_bitcast(a, r)
                {
                    instr.op = Op::Bitcast;
                    stats.reshapes_to_bitcast += 1;
                }
            }
            _ => {}
        }
        if let (
            Op::Constant {
                literal: Literal::Array(a),
            },
            Shape::Array(s),
        ) = (&mut instr.op, &instr.shape)
        {
            a.shape.layout = s.layout.clone();
        }
        new_id.push(out.push(instr));
    }
    let root = new_id[comp.root.index()];
    let have = chosen[comp.root.index()].clone();
    out.root = conform(&mut out, root, &have, &required, &mut cache, names, stats);
    Ok(out)
}

/// Picks the layout of a value that is free to choose.
fn choose(
    rules: &Rules<'_>,
    instr: &Instruction,
    ops: &[&Shape],
    acc: Option<&[Shape]>,
    hint: Option<&Shape>,
) -> Shape {
    let natural = rules.natural(instr, ops);
    let Some(list) = acc else {
        return natural
            .or_else(|| hint.cloned())
            .unwrap_or_else(|| default_shape(&instr.shape));
    };
    let list: Vec<Shape> = list
        .iter()
        .map(|s| relayout_like(&instr.shape, s))
        .collect();
    if let Some(nat) = &natural {
        if contains(&list, nat) {
            return nat.clone();
        }
        let preserving = instr.op.is_elementwise()
            || matches!(instr.op, Op::Map { .. } | Op::DynamicUpdateSlice);
        if preserving {
            // Copies needed if the op runs in `cand`: one per distinct
            // operand value of the result's dims in another layout.
            let mismatches = |cand: &Shape| {
                let mut seen: Vec<InstrId> = Vec::new();
                for (k, s) in ops.iter().enumerate() {
                    let id = instr.operands[k];
                    if operand_must_match_result(&instr.op, k)
                        && same_dims(s, &instr.shape)
                        && !layouts_equal(s, cand)
                        && !seen.contains(&id)
                    {
                        seen.push(id);
                    }
                }
                seen.len()
            };
            let best = list
                .iter()
                .min_by_key(|c| mismatches(c))
                .cloned()
                .unwrap_or_else(|| list[0].clone());
            return if mismatches(&best) > 1 {
                nat.clone()
            } else {
                best
            };
        }
    }
    if let Some(h) = hint
        && contains(&list, h)
    {
        return relayout_like(&instr.shape, h);
    }
    list[0].clone()
}

/// Makes value `id` (of shape `have`) available in the layouts of `want`:
/// a `copy` per array leaf that differs (tuples are taken apart and
/// rebuilt). Copies are shared through `cache`.
fn conform(
    out: &mut Computation,
    id: InstrId,
    have: &Shape,
    want: &Shape,
    cache: &mut HashMap<(InstrId, String), InstrId>,
    names: &mut HashSet<String>,
    stats: &mut AssignStats,
) -> InstrId {
    if layouts_equal(have, want) {
        return id;
    }
    let key = (id, want.to_string());
    if let Some(&c) = cache.get(&key) {
        return c;
    }
    let new = match (have, want) {
        (Shape::Tuple(hs), Shape::Tuple(ws)) if hs.len() == ws.len() => {
            let mut elems = Vec::new();
            for (k, (h, w)) in hs.iter().zip(ws).enumerate() {
                let gte_key = (id, format!("gte {k}"));
                let g = match cache.get(&gte_key) {
                    Some(&g) => g,
                    None => {
                        let name = fresh_name(names, "get-tuple-element");
                        let g = out.push(Instruction::new(
                            name,
                            Op::GetTupleElement { index: k as i64 },
                            vec![id],
                            h.clone(),
                        ));
                        cache.insert(gte_key, g);
                        g
                    }
                };
                elems.push(conform(out, g, h, w, cache, names, stats));
            }
            let shape = Shape::Tuple(elems.iter().map(|e| out.get(*e).shape.clone()).collect());
            let name = fresh_name(names, "tuple");
            out.push(Instruction::new(name, Op::Tuple, elems, shape))
        }
        _ => {
            stats.copies += 1;
            let name = fresh_name(names, "copy");
            out.push(Instruction::new(
                name,
                Op::Copy,
                vec![id],
                relayout_like(have, want),
            ))
        }
    };
    cache.insert(key, new);
    new
}
