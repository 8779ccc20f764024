//! Generators of the cross-device ops in their single-device (1×1) form,
//! so every oracle sees them: all-reduce, all-gather, reduce-scatter,
//! all-to-all (array and tuple forms), collective-permute (also XLA's
//! in-place form),
//! collective-broadcast, the async start/done pairs, replica-id and
//! partition-id. Groups are `{}`, `{{0}}` or the iota `[1,1]<=[1]`;
//! channel ids and `use_global_device_ids` vary (every group mode is
//! valid on one device). Never inside scalar bodies (reducers,
//! comparators), where XLA forbids collectives.

use super::data::emit_array;
use super::{Cb, Gen};
use crate::values::Choices;
use rxla_ir::{CollectiveAttrs, ElementType, IotaGroups, Op, ReplicaGroups, Shape};

fn attrs(g: &mut Gen, global_attr: bool) -> CollectiveAttrs {
    let replica_groups = match g.range(0, 2) {
        0 => ReplicaGroups::List(vec![]),
        1 => ReplicaGroups::List(vec![vec![0]]),
        _ => ReplicaGroups::Iota(IotaGroups {
            num_groups: 1,
            group_size: 1,
            reshape_dims: vec![1],
            transpose: vec![],
        }),
    };
    let channel_id = g.coin().then(|| g.range(1, 9));
    // Flattened ids need non-empty groups.
    let use_global_device_ids =
        global_attr && channel_id.is_some() && !replica_groups.is_empty() && g.coin();
    CollectiveAttrs {
        replica_groups,
        channel_id,
        use_global_device_ids,
    }
}

fn pairs(g: &mut Gen) -> (Vec<(i64, i64)>, Option<i64>) {
    let p = if g.chance(3, 4) { vec![(0, 0)] } else { vec![] };
    (p, g.coin().then(|| g.range(1, 9)))
}

/// XLA's in-place collective-permute of `x` into another value of its
/// shape: random (possibly out-of-range, so clamped) start indices, one
/// set for every pair or one per pair, and a random block size.
fn in_place(
    g: &mut Gen,
    cb: &mut Cb,
    x: rxla_ir::InstrId,
    a: &rxla_ir::ArrayShape,
    pairs: Vec<(i64, i64)>,
    channel_id: Option<i64>,
) {
    let out = g.value_of(cb, a);
    let ty = g.ty_index();
    let per_pair = !pairs.is_empty() && g.coin();
    let index_operand = |g: &mut Gen, cb: &mut Cb| {
        let set = |g: &mut Gen, cb: &mut Cb| {
            let v: Vec<rxla_ir::InstrId> = (0..a.rank()).map(|_| g.index_scalar(cb, ty)).collect();
            let shape = Shape::Tuple(vec![Shape::scalar(ty); a.rank()]);
            (g.emit(cb, Op::Tuple, v, shape.clone()), shape)
        };
        if per_pair {
            let (v, shapes): (Vec<_>, Vec<_>) = (0..pairs.len()).map(|_| set(g, cb)).unzip();
            g.emit(cb, Op::Tuple, v, Shape::Tuple(shapes))
        } else {
            set(g, cb).0
        }
    };
    let in_idx = index_operand(g, cb);
    let out_idx = index_operand(g, cb);
    let sets = if per_pair { pairs.len() } else { 1 };
    let slice_sizes = (0..sets)
        .map(|_| a.dims.iter().map(|&d| g.range(0, d)).collect())
        .collect();
    let op = Op::CollectivePermuteInPlace {
        pairs,
        channel_id,
        slice_sizes,
    };
    emit_array(
        g,
        cb,
        op,
        vec![x, out, in_idx, out_idx],
        a.element_type,
        a.dims.clone(),
    );
}

pub(super) fn by_name(g: &mut Gen, cb: &mut Cb, name: &str) -> bool {
    let known = matches!(
        name,
        "all-reduce"
            | "all-reduce-start"
            | "all-reduce-done"
            | "all-gather"
            | "all-gather-start"
            | "all-gather-done"
            | "reduce-scatter"
            | "all-to-all"
            | "collective-permute"
            | "collective-permute-start"
            | "collective-permute-done"
            | "collective-broadcast"
            | "replica-id"
            | "partition-id"
    );
    if !known {
        return false;
    }
    if g.scalar_mode {
        return false;
    }
    match name {
        "all-reduce" | "all-reduce-start" | "all-reduce-done" => {
            let x = g.array_where(cb, |t| !t.is_pred(), Gen::ty_numeric, 0);
            let Some(a) = cb.array(x).cloned() else {
                return false;
            };
            let t = a.element_type;
            let to_apply = g.scalar_comp(&[t, t], &[t]);
            let attrs = attrs(g, true);
            if name == "all-reduce" {
                emit_array(g, cb, Op::AllReduce { to_apply, attrs }, vec![x], t, a.dims);
            } else {
                let s = emit_array(
                    g,
                    cb,
                    Op::AllReduceStart { to_apply, attrs },
                    vec![x],
                    t,
                    a.dims.clone(),
                );
                emit_array(g, cb, Op::AllReduceDone, vec![s], t, a.dims);
            }
        }
        "all-gather" | "all-gather-start" | "all-gather-done" => {
            let x = g.any_array(cb, 1);
            let Some(a) = cb.array(x).cloned() else {
                return false;
            };
            let dimension = g.range(0, a.rank() as i64 - 1);
            let attrs = attrs(g, true);
            let same = Shape::Array(
                rxla_ir::ArrayShape::new(a.element_type, a.dims.clone()).unwrap_or(a.clone()),
            );
            if name == "all-gather" {
                g.emit(cb, Op::AllGather { dimension, attrs }, vec![x], same);
            } else {
                let st = Shape::Tuple(vec![same.clone(), same.clone()]);
                let s = g.emit(cb, Op::AllGatherStart { dimension, attrs }, vec![x], st);
                g.emit(cb, Op::AllGatherDone, vec![s], same);
            }
        }
        "reduce-scatter" => {
            let x = g.array_where(cb, |t| !t.is_pred(), Gen::ty_numeric, 1);
            let Some(a) = cb.array(x).cloned() else {
                return false;
            };
            let t = a.element_type;
            let to_apply = g.scalar_comp(&[t, t], &[t]);
            let dimension = g.range(0, a.rank() as i64 - 1);
            let attrs = attrs(g, true);
            let op = Op::ReduceScatter {
                dimension,
                to_apply,
                attrs,
            };
            emit_array(g, cb, op, vec![x], t, a.dims);
        }
        "all-to-all" => {
            let x = g.any_array(cb, 1);
            let Some(a) = cb.array(x).cloned() else {
                return false;
            };
            let mut at = attrs(g, false);
            if g.coin() {
                let dimension = Some(g.range(0, a.rank() as i64 - 1));
                let op = Op::AllToAll {
                    dimension,
                    attrs: at,
                };
                emit_array(g, cb, op, vec![x], a.element_type, a.dims);
            } else {
                // The tuple form needs one operand per member: the group
                // must be known to have one member.
                if at.replica_groups.is_empty() {
                    at.replica_groups = ReplicaGroups::List(vec![vec![0]]);
                }
                let one = Shape::Array(
                    rxla_ir::ArrayShape::new(a.element_type, a.dims.clone()).unwrap_or(a.clone()),
                );
                let op = Op::AllToAll {
                    dimension: None,
                    attrs: at,
                };
                g.emit(cb, op, vec![x], Shape::Tuple(vec![one]));
            }
        }
        "collective-permute" | "collective-permute-start" | "collective-permute-done" => {
            let x = g.any_array(cb, 0);
            let Some(a) = cb.array(x).cloned() else {
                return false;
            };
            let (pairs, channel_id) = pairs(g);
            if name == "collective-permute" && g.chance(1, 3) {
                in_place(g, cb, x, &a, pairs, channel_id);
            } else if name == "collective-permute" {
                let op = Op::CollectivePermute { pairs, channel_id };
                emit_array(g, cb, op, vec![x], a.element_type, a.dims);
            } else {
                let same = Shape::Array(
                    rxla_ir::ArrayShape::new(a.element_type, a.dims.clone()).unwrap_or(a.clone()),
                );
                let u = Shape::scalar(ElementType::U32);
                let st = Shape::Tuple(vec![same.clone(), same.clone(), u.clone(), u]);
                let op = Op::CollectivePermuteStart { pairs, channel_id };
                let s = g.emit(cb, op, vec![x], st);
                g.emit(cb, Op::CollectivePermuteDone, vec![s], same);
            }
        }
        "collective-broadcast" => {
            let x = g.any_array(cb, 0);
            let Some(a) = cb.array(x).cloned() else {
                return false;
            };
            let attrs = attrs(g, false);
            let op = Op::CollectiveBroadcast { attrs };
            emit_array(g, cb, op, vec![x], a.element_type, a.dims);
        }
        "replica-id" => {
            emit_array(g, cb, Op::ReplicaId, vec![], ElementType::U32, vec![]);
        }
        "partition-id" => {
            emit_array(g, cb, Op::PartitionId, vec![], ElementType::U32, vec![]);
        }
        _ => return false,
    }
    true
}
