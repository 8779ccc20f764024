//! The collectives of one device in a multi-device evaluation: the
//! device's group (`rxla_ir::DeviceGrid::group_of`, XLA's group modes),
//! one rendezvous per collective (`crate::collectives`), then the op's
//! combination of the group's values: fold (all-reduce, reduce-scatter),
//! concatenate (all-gather), blocks (all-to-all), pick (collective-permute,
//! collective-broadcast). The async `*-start` ops run synchronously; their
//! `*-done` halves take the value out of the start's tuple. Outside a
//! multi-device run (`evaluate`) the module runs as device 0 of a 1×1 grid:
//! every collective sees only its own value.

use super::Evaluator;
use crate::error::{EvalError, Result};
use crate::movement;
use crate::reduce;
use rxla_ir::{
    ArrayLiteral, ArrayShape, CollectiveAttrs, CompId, Computation, DeviceGrid, GroupMode,
    Instruction, Literal, Op, Shape,
};

fn err<T>(instr: &Instruction, msg: impl std::fmt::Display) -> Result<T> {
    Err(EvalError::new(format!(
        "{} {}: {msg}",
        instr.op.opcode(),
        instr.name
    )))
}

/// One operand as is, several as a tuple (the value a device contributes).
fn bundle(ops: &[&Literal]) -> Literal {
    if ops.len() == 1 {
        ops[0].clone()
    } else {
        Literal::Tuple(ops.iter().map(|l| (*l).clone()).collect())
    }
}

/// The k-th operand's array out of a contribution of `n` operands.
fn leaf(v: &Literal, k: usize, n: usize) -> Result<&ArrayLiteral> {
    let l = if n == 1 {
        v
    } else {
        match v {
            Literal::Tuple(t) => t
                .get(k)
                .ok_or_else(|| EvalError::new("contribution has too few elements"))?,
            _ => return Err(EvalError::new("contribution is not a tuple")),
        }
    };
    l.as_array()
        .map_err(|_| EvalError::new("contribution is not an array"))
}

fn result_leaves(shape: &Shape) -> Vec<&ArrayShape> {
    match shape {
        Shape::Array(a) => vec![a],
        Shape::Tuple(t) => t.iter().filter_map(|s| s.as_array().ok()).collect(),
    }
}

fn one_or_tuple(v: Vec<ArrayLiteral>) -> Literal {
    if v.len() == 1 {
        v.into_iter()
            .next()
            .map(Literal::Array)
            .unwrap_or(Literal::Tuple(vec![]))
    } else {
        Literal::Tuple(v.into_iter().map(Literal::Array).collect())
    }
}

/// Block `k` of `n` equal blocks of `x` along `d`.
fn block(x: &ArrayLiteral, d: usize, k: usize, n: usize) -> Result<ArrayLiteral> {
    let size = x.shape.dims[d] / n as i64;
    let mut dims = x.shape.dims.clone();
    dims[d] = size;
    let out = ArrayShape::new(x.shape.element_type, dims)?;
    let mut starts = vec![0; dims_len(x)];
    starts[d] = k as i64 * size;
    movement::slice(x, &starts, &vec![1; dims_len(x)], &out)
}

fn dims_len(x: &ArrayLiteral) -> usize {
    x.shape.rank()
}

fn concat(parts: &[&ArrayLiteral], d: usize) -> Result<ArrayLiteral> {
    let first = parts
        .first()
        .ok_or_else(|| EvalError::new("nothing to concatenate"))?;
    let mut dims = first.shape.dims.clone();
    dims[d] = parts
        .iter()
        .map(|p| p.shape.dims.get(d).copied().unwrap_or(0))
        .sum();
    let out = ArrayShape::new(first.shape.element_type, dims)?;
    movement::concatenate(parts, d as i64, &out)
}

fn dim(instr: &Instruction, x: &ArrayLiteral, d: i64) -> Result<usize> {
    match usize::try_from(d).ok().filter(|&i| i < x.shape.rank()) {
        Some(i) => Ok(i),
        None => err(instr, format!("dimension {d} out of range for {}", x.shape)),
    }
}

/// Index set `k` of an in-place collective-permute's index operand (a
/// tuple of scalars, shared by every pair, or a tuple of such tuples).
fn in_place_starts<'a>(
    instr: &Instruction,
    idx: &'a Literal,
    k: usize,
) -> Result<Vec<&'a ArrayLiteral>> {
    let Literal::Tuple(t) = idx else {
        return err(instr, "start indices must be a tuple");
    };
    let set = match t.first() {
        Some(Literal::Tuple(_)) => match t.get(k) {
            Some(Literal::Tuple(u)) => u,
            _ => return err(instr, format!("no start index set for pair {k}")),
        },
        _ => t,
    };
    set.iter()
        .map(|l| {
            l.as_array()
                .map_err(|_| EvalError::new("collective-permute: a start index is not a scalar"))
        })
        .collect()
}

impl Evaluator<'_> {
    fn grid_and_device(&self) -> (DeviceGrid, usize) {
        match self.replica {
            Some(ctx) => (ctx.grid, ctx.id),
            None => (DeviceGrid::single(), 0),
        }
    }

    /// Exchanges `value` with the members of `group` (device ids, this
    /// device among them) and returns their values in group order.
    fn rendezvous(
        &mut self,
        comp: &Computation,
        instr: &Instruction,
        value: Literal,
        group: &[usize],
    ) -> Result<Vec<Literal>> {
        let Some(ctx) = self.replica else {
            return Ok(vec![value]);
        };
        let seq = self.collective_seq;
        self.collective_seq += 1;
        let site = crate::collectives::site(self.module, comp, instr);
        ctx.collectives.exchange(ctx.id, seq, value, group, &site)
    }

    /// This device's group and its position in it.
    fn my_group(
        &self,
        instr: &Instruction,
        attrs: &CollectiveAttrs,
    ) -> Result<(Vec<usize>, usize)> {
        let (grid, device) = self.grid_and_device();
        let mode = GroupMode::of(attrs, instr.op.has_global_device_ids_attr())
            .map_err(|e| EvalError::new(format!("{}: {e}", instr.name)))?;
        grid.group_of(&attrs.replica_groups, mode, device)
            .map_err(|e| EvalError::new(format!("{}: {e}", instr.name)))
    }

    /// Evaluates a collective (or replica-id / partition-id).
    pub(super) fn eval_collective(
        &mut self,
        comp: &Computation,
        instr: &Instruction,
        ops: &[&Literal],
    ) -> Result<Literal> {
        let (grid, device) = self.grid_and_device();
        let (replica, partition) = grid.coords(device);
        match &instr.op {
            Op::ReplicaId => Ok(Literal::scalar(replica as u32)),
            Op::PartitionId => Ok(Literal::scalar(partition as u32)),
            Op::AllReduceDone => ops
                .first()
                .map(|l| (*l).clone())
                .ok_or_else(|| EvalError::new("all-reduce-done needs an operand")),
            Op::AllGatherDone | Op::CollectivePermuteDone => match ops.first() {
                Some(Literal::Tuple(t)) if t.len() >= 2 => Ok(t[1].clone()),
                _ => err(instr, "the operand must be the start's tuple"),
            },
            Op::AllReduce { to_apply, attrs } | Op::AllReduceStart { to_apply, attrs } => {
                let (group, _) = self.my_group(instr, attrs)?;
                let parts = self.rendezvous(comp, instr, bundle(ops), &group)?;
                self.fold(instr, *to_apply, &parts)
            }
            Op::ReduceScatter {
                dimension,
                to_apply,
                attrs,
            } => {
                let (group, k) = self.my_group(instr, attrs)?;
                let parts = self.rendezvous(comp, instr, bundle(ops), &group)?;
                let sum = self.fold(instr, *to_apply, &parts)?;
                let n = ops.len();
                let outs = result_leaves(&instr.shape);
                let mut res = Vec::with_capacity(n);
                for i in 0..n {
                    let x = leaf(&sum, i, n)?;
                    let d = dim(instr, x, *dimension)?;
                    let want = outs
                        .get(i)
                        .map_or(-1, |o| o.dims.get(d).copied().unwrap_or(-1));
                    if x.shape.dims[d] != want * group.len() as i64 {
                        return err(
                            instr,
                            format!(
                                "dimension {d} of {} is not the result's {want} × the group size {}",
                                x.shape,
                                group.len()
                            ),
                        );
                    }
                    res.push(block(x, d, k, group.len())?);
                }
                Ok(one_or_tuple(res))
            }
            Op::AllGather { dimension, attrs } | Op::AllGatherStart { dimension, attrs } => {
                let (group, _) = self.my_group(instr, attrs)?;
                let parts = self.rendezvous(comp, instr, bundle(ops), &group)?;
                let n = ops.len();
                let outs = match (&instr.op, &instr.shape) {
                    (Op::AllGatherStart { .. }, Shape::Tuple(t)) if t.len() == 2 => {
                        result_leaves(&t[1])
                    }
                    _ => result_leaves(&instr.shape),
                };
                let mut res = Vec::with_capacity(n);
                for i in 0..n {
                    let xs = parts
                        .iter()
                        .map(|p| leaf(p, i, n))
                        .collect::<Result<Vec<_>>>()?;
                    let d = dim(instr, xs[0], *dimension)?;
                    let g = concat(&xs, d)?;
                    if outs.get(i).is_none_or(|o| o.dims != g.shape.dims) {
                        return err(
                            instr,
                            format!(
                                "gathering {} from a group of {} gives {}, but the result is declared {}",
                                xs[0].shape,
                                group.len(),
                                g.shape,
                                instr.shape
                            ),
                        );
                    }
                    res.push(g);
                }
                let gathered = one_or_tuple(res);
                Ok(match instr.op {
                    Op::AllGatherStart { .. } => Literal::Tuple(vec![bundle(ops), gathered]),
                    _ => gathered,
                })
            }
            Op::AllToAll { dimension, attrs } => {
                let (group, k) = self.my_group(instr, attrs)?;
                let parts = self.rendezvous(comp, instr, bundle(ops), &group)?;
                let g = group.len();
                match dimension {
                    Some(dm) => {
                        let mut blocks = Vec::with_capacity(g);
                        for p in &parts {
                            let x = leaf(p, 0, 1)?;
                            let d = dim(instr, x, *dm)?;
                            if x.shape.dims[d] % g as i64 != 0 {
                                return err(
                                    instr,
                                    format!(
                                        "dimension {d} of {} is not divisible by the group size {g}",
                                        x.shape
                                    ),
                                );
                            }
                            blocks.push((block(x, d, k, g)?, d));
                        }
                        let d = blocks.first().map_or(0, |b| b.1);
                        let refs: Vec<&ArrayLiteral> = blocks.iter().map(|b| &b.0).collect();
                        Ok(Literal::Array(concat(&refs, d)?))
                    }
                    None => {
                        if ops.len() != g {
                            return err(
                                instr,
                                format!(
                                    "the tuple form needs one operand per group member: {} operands, group of {g}",
                                    ops.len()
                                ),
                            );
                        }
                        let res = parts
                            .iter()
                            .map(|p| leaf(p, k, g).cloned())
                            .collect::<Result<Vec<_>>>()?;
                        Ok(Literal::Tuple(
                            res.into_iter().map(Literal::Array).collect(),
                        ))
                    }
                }
            }
            Op::CollectiveBroadcast { attrs } => {
                let (group, _) = self.my_group(instr, attrs)?;
                let mut parts = self.rendezvous(comp, instr, bundle(ops), &group)?;
                if parts.is_empty() {
                    return err(instr, "empty group");
                }
                Ok(parts.swap_remove(0))
            }
            Op::CollectivePermute { pairs, channel_id }
            | Op::CollectivePermuteStart { pairs, channel_id } => {
                let domain = grid
                    .permute_domain(pairs, channel_id.is_some(), device)
                    .map_err(|e| EvalError::new(format!("{}: {e}", instr.name)))?;
                let me = domain.iter().position(|&d| d == device).unwrap_or(0);
                let x = ops
                    .first()
                    .ok_or_else(|| EvalError::new("collective-permute needs an operand"))?;
                let mut parts = self.rendezvous(comp, instr, (*x).clone(), &domain)?;
                let received = match pairs.iter().find(|(_, t)| *t == me as i64) {
                    Some(&(s, _)) => {
                        let s = s as usize;
                        if s >= parts.len() {
                            return err(instr, format!("source {s} out of range"));
                        }
                        parts.swap_remove(s)
                    }
                    None => Literal::zeros(&x.shape())?,
                };
                match (&instr.op, &instr.shape) {
                    (Op::CollectivePermuteStart { .. }, Shape::Tuple(t)) => {
                        let mut v = vec![(*x).clone(), received];
                        for _ in 2..t.len() {
                            v.push(Literal::scalar(0u32));
                        }
                        Ok(Literal::Tuple(v))
                    }
                    _ => Ok(received),
                }
            }
            Op::CollectivePermuteInPlace {
                pairs,
                channel_id,
                slice_sizes,
            } => {
                let domain = grid
                    .permute_domain(pairs, channel_id.is_some(), device)
                    .map_err(|e| EvalError::new(format!("{}: {e}", instr.name)))?;
                let me = domain.iter().position(|&d| d == device).unwrap_or(0);
                let [input, output, in_idx, out_idx] = ops else {
                    return err(instr, "the in-place form takes four operands");
                };
                let sent = Literal::Tuple(vec![(*input).clone(), (*in_idx).clone()]);
                let parts = self.rendezvous(comp, instr, sent, &domain)?;
                let mut result = output
                    .as_array()
                    .map_err(|_| EvalError::new("collective-permute: output is not an array"))?
                    .clone();
                for (k, &(s, t)) in pairs.iter().enumerate() {
                    if t != me as i64 {
                        continue;
                    }
                    let Some(Literal::Tuple(src)) = parts.get(s as usize) else {
                        return err(instr, format!("source {s} out of range"));
                    };
                    let (Some(Literal::Array(x)), Some(idx)) = (src.first(), src.get(1)) else {
                        return err(instr, "a source's contribution is malformed");
                    };
                    let size = slice_sizes
                        .get(k)
                        .or_else(|| slice_sizes.first())
                        .ok_or_else(|| EvalError::new("collective-permute: no slice_sizes"))?;
                    let starts = in_place_starts(instr, idx, k)?;
                    let block_shape = ArrayShape::new(x.shape.element_type, size.clone())?;
                    let block = movement::dynamic_slice(x, &starts, &block_shape)?;
                    let out_starts = in_place_starts(instr, out_idx, k)?;
                    let shape = result.shape.clone();
                    result = movement::dynamic_update_slice(&result, &block, &out_starts, &shape)?;
                }
                Ok(Literal::Array(result))
            }
            _ => err(instr, "not a collective"),
        }
    }

    /// `acc = f(acc, next)` over the group's values in group order,
    /// element by element.
    fn fold(&mut self, instr: &Instruction, f: CompId, parts: &[Literal]) -> Result<Literal> {
        let Some((first, rest)) = parts.split_first() else {
            return err(instr, "empty group");
        };
        let fast = self.info(f)?.fast;
        let mut acc = first.clone();
        for next in rest {
            acc = self.combine(f, fast, &acc, next)?;
        }
        Ok(acc)
    }

    /// Elementwise `f(a, b)` over matching literals (tuples leaf by leaf).
    fn combine(
        &mut self,
        f: CompId,
        fast: Option<reduce::FastBody>,
        a: &Literal,
        b: &Literal,
    ) -> Result<Literal> {
        match (a, b) {
            (Literal::Tuple(x), Literal::Tuple(y)) if x.len() == y.len() => Ok(Literal::Tuple(
                x.iter()
                    .zip(y)
                    .map(|(p, q)| self.combine(f, fast, p, q))
                    .collect::<Result<_>>()?,
            )),
            (Literal::Array(x), Literal::Array(y)) => {
                let mut apply = |v: &[Literal]| self.call_owned(f, v);
                Ok(Literal::Array(reduce::map(
                    &[x, y],
                    fast,
                    &mut apply,
                    &x.shape,
                )?))
            }
            _ => Err(EvalError::new("contributions differ in shape")),
        }
    }
}
