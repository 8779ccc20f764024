//! Shape rules of the cross-device ops: all-gather (dim × group size),
//! reduce-scatter (dim ÷ group size), all-to-all, collective-permute,
//! collective-broadcast, the async `*-start`/`*-done` pairs in the tuple
//! forms XLA prints, and `replica-id`/`partition-id` (`u32[]`). When the
//! group size is not static (`replica_groups={}`, or the
//! cross-replica-and-partition mode, whose groups span every partition)
//! the declared shape decides and only has to be consistent; the run
//! checks it against the real group size.

use super::{array, ash, err, expect_count, make, need_declared, sh};
use crate::collective::{CollectiveAttrs, GroupMode};
use crate::element_type::ElementType;
use crate::error::{IrError, Result};
use crate::module::Module;
use crate::ops::CompId;
use crate::shape::{ArrayShape, Shape};

/// The static group size, when the groups say it.
fn factor(attrs: &CollectiveAttrs, global_attr: bool) -> Result<Option<i64>> {
    let mode = GroupMode::of(attrs, global_attr).map_err(|e| IrError::shape(e.to_string()))?;
    let size = attrs
        .replica_groups
        .uniform_size()
        .map_err(|e| IrError::shape(e.to_string()))?;
    if size == Some(0) {
        return err("replica groups must not be empty lists");
    }
    Ok(match mode {
        GroupMode::CrossReplicaAndPartition => None,
        _ => size.map(|s| s as i64),
    })
}

fn arrays<'a>(ops: &[&'a Shape]) -> Result<Vec<&'a ArrayShape>> {
    if ops.is_empty() {
        return err("expects at least one operand");
    }
    ops.iter()
        .enumerate()
        .map(|(i, s)| array(s, &format!("operand {i}")))
        .collect()
}

fn one_or_tuple(v: Vec<Shape>) -> Shape {
    if v.len() == 1 {
        v.into_iter().next().unwrap_or(Shape::Tuple(vec![]))
    } else {
        Shape::Tuple(v)
    }
}

/// The declared leaves matching `n` operands (one array, or a tuple).
fn declared_leaves(declared: &Shape, n: usize) -> Result<Vec<&ArrayShape>> {
    match declared {
        Shape::Array(a) if n == 1 => Ok(vec![a]),
        Shape::Tuple(t) if n > 1 && t.len() == n => t
            .iter()
            .map(|s| array(s, "declared result element"))
            .collect(),
        _ => err(format!(
            "declared shape {} does not fit {n} operand(s)",
            sh(declared)
        )),
    }
}

fn check_dim(a: &ArrayShape, d: i64, what: &str) -> Result<usize> {
    match usize::try_from(d).ok().filter(|&i| i < a.rank()) {
        Some(i) => Ok(i),
        None => err(format!(
            "{what} dimension {d} is out of range for {}",
            super::ash(a)
        )),
    }
}

/// Shared by all-gather (`gather`) and reduce-scatter: dim `d` of each
/// operand multiplied (or divided) by the group size.
fn resize(
    ops: &[&Shape],
    dimension: i64,
    attrs: &CollectiveAttrs,
    declared: Option<&Shape>,
    gather: bool,
) -> Result<Shape> {
    let arrs = arrays(ops)?;
    let f = factor(attrs, true)?;
    let what = if gather {
        "all-gather"
    } else {
        "reduce-scatter"
    };
    let mut out = Vec::with_capacity(arrs.len());
    let decl = match f {
        Some(_) => None,
        None => Some(declared_leaves(
            need_declared(declared).map_err(|_| {
                IrError::shape(format!(
                    "the group size of this {what} is not static (replica_groups={{}} or groups spanning partitions): declare the result shape"
                ))
            })?,
            arrs.len(),
        )?),
    };
    for (k, a) in arrs.iter().enumerate() {
        let d = check_dim(a, dimension, what)?;
        let n = a.dims[d];
        let m = match (f, &decl) {
            (Some(f), _) if gather => n.checked_mul(f).ok_or_else(|| {
                IrError::shape(format!(
                    "dimension {d} of {} × {f} overflows",
                    super::ash(a)
                ))
            })?,
            (Some(f), _) => {
                if n % f != 0 {
                    return err(format!(
                        "dimension {d} of operand {k} ({}) is not divisible by the group size {f}",
                        super::ash(a)
                    ));
                }
                n / f
            }
            (None, Some(dl)) => {
                let want = dl[k];
                let ok = want.element_type == a.element_type
                    && want.rank() == a.rank()
                    && want
                        .dims
                        .iter()
                        .zip(&a.dims)
                        .enumerate()
                        .all(|(i, (w, x))| i == d || w == x);
                let (big, small) = if gather {
                    (want.dims.get(d), Some(&n))
                } else {
                    (Some(&n), want.dims.get(d))
                };
                let multiple = match (big, small) {
                    (Some(&b), Some(&s)) => (s == 0 && b == 0) || (s > 0 && b % s == 0 && b > 0),
                    _ => false,
                };
                if !ok || !multiple {
                    return err(format!(
                        "declared result {} does not fit operand {k} ({}) along dimension {d}",
                        super::ash(want),
                        super::ash(a)
                    ));
                }
                want.dims[d]
            }
            (None, None) => return err("no group size"),
        };
        let mut dims = a.dims.clone();
        dims[d] = m;
        out.push(make(a.element_type, dims)?);
    }
    Ok(one_or_tuple(out))
}

pub(super) fn all_gather(
    ops: &[&Shape],
    dimension: i64,
    attrs: &CollectiveAttrs,
    declared: Option<&Shape>,
) -> Result<Shape> {
    resize(ops, dimension, attrs, declared, true)
}

/// `(operand, result)`, each a tuple for several operands.
pub(super) fn all_gather_start(
    ops: &[&Shape],
    dimension: i64,
    attrs: &CollectiveAttrs,
    declared: Option<&Shape>,
) -> Result<Shape> {
    let inner = match declared {
        Some(Shape::Tuple(t)) if t.len() == 2 => Some(&t[1]),
        _ => None,
    };
    let result = resize(ops, dimension, attrs, inner, true)?;
    let operands = one_or_tuple(ops.iter().map(|s| (*s).clone()).collect());
    Ok(Shape::Tuple(vec![operands, result]))
}

pub(super) fn reduce_scatter(
    module: &Module,
    ops: &[&Shape],
    dimension: i64,
    to_apply: CompId,
    attrs: &CollectiveAttrs,
    declared: Option<&Shape>,
) -> Result<Shape> {
    super::reduction::all_reduce(module, ops, to_apply)?;
    resize(ops, dimension, attrs, declared, false)
}

pub(super) fn all_reduce(
    module: &Module,
    ops: &[&Shape],
    to_apply: CompId,
    attrs: &CollectiveAttrs,
) -> Result<Shape> {
    GroupMode::of(attrs, true).map_err(|e| IrError::shape(e.to_string()))?;
    if attrs.replica_groups.groups()?.iter().any(|g| g.is_empty())
        && !attrs.replica_groups.is_empty()
    {
        return err("replica groups must not be empty lists");
    }
    super::reduction::all_reduce(module, ops, to_apply)
}

pub(super) fn all_to_all(
    ops: &[&Shape],
    dimension: Option<i64>,
    attrs: &CollectiveAttrs,
) -> Result<Shape> {
    let arrs = arrays(ops)?;
    let f = factor(attrs, false)?;
    match dimension {
        Some(dim) => {
            expect_count(ops, 1).map_err(|_| {
                IrError::shape(format!(
                    "the array form (dimensions={{{dim}}}) takes one operand, got {}",
                    ops.len()
                ))
            })?;
            let a = arrs[0];
            let d = check_dim(a, dim, "split")?;
            if let Some(f) = f
                && a.dims[d] % f != 0
            {
                return err(format!(
                    "dimension {d} of {} is not divisible by the group size {f}",
                    super::ash(a)
                ));
            }
            Ok(ops[0].clone())
        }
        None => {
            if let Some(f) = f
                && arrs.len() as i64 != f
            {
                return err(format!(
                    "the tuple form sends operand k to group member k: {} operands for groups of {f}",
                    arrs.len()
                ));
            }
            if let Some(b) = arrs.iter().find(|a| !a.compatible(arrs[0])) {
                return err(format!(
                    "the tuple form needs operands of one shape, got {} and {}",
                    super::ash(arrs[0]),
                    super::ash(b)
                ));
            }
            Ok(Shape::Tuple(ops.iter().map(|s| (*s).clone()).collect()))
        }
    }
}

pub(super) fn same_shape(ops: &[&Shape], attrs: Option<&CollectiveAttrs>) -> Result<Shape> {
    if let Some(a) = attrs {
        factor(a, false)?;
    }
    let arrs = arrays(ops)?;
    Ok(one_or_tuple(
        arrs.iter().map(|a| Shape::Array((*a).clone())).collect(),
    ))
}

fn check_pairs(pairs: &[(i64, i64)]) -> Result<()> {
    if let Some((s, t)) = pairs.iter().find(|(s, t)| *s < 0 || *t < 0) {
        return err(format!(
            "source_target_pairs has a negative id in {{{s},{t}}}"
        ));
    }
    Ok(())
}

pub(super) fn collective_permute(ops: &[&Shape], pairs: &[(i64, i64)]) -> Result<Shape> {
    expect_count(ops, 1)?;
    check_pairs(pairs)?;
    Ok(Shape::Array(array(ops[0], "operand")?.clone()))
}

/// `(operand, result, u32[], u32[])`; a declared tuple may carry any
/// number of trailing `u32[]` context scalars.
pub(super) fn collective_permute_start(
    ops: &[&Shape],
    pairs: &[(i64, i64)],
    declared: Option<&Shape>,
) -> Result<Shape> {
    let x = collective_permute(ops, pairs)?;
    let u32s = make(ElementType::U32, vec![])?;
    if let Some(Shape::Tuple(t)) = declared
        && t.len() >= 2
        && t[0].compatible(&x)
        && t[1].compatible(&x)
        && t[2..].iter().all(|c| c.compatible(&u32s))
    {
        return Ok(Shape::Tuple(t.clone()));
    }
    Ok(Shape::Tuple(vec![x.clone(), x, u32s.clone(), u32s]))
}

/// `*-done`: element `index` of the start's tuple (all-reduce-done: the
/// value itself).
pub(super) fn done(ops: &[&Shape], index: Option<usize>, start: &str) -> Result<Shape> {
    expect_count(ops, 1)?;
    match index {
        None => Ok(ops[0].clone()),
        Some(i) => match ops[0] {
            Shape::Tuple(t) if t.len() >= 2 => Ok(t[i].clone()),
            s => err(format!(
                "the operand must be the tuple of a {start}, got {}",
                sh(s)
            )),
        },
    }
}

pub(super) fn device_id(ops: &[&Shape]) -> Result<Shape> {
    expect_count(ops, 0)?;
    make(ElementType::U32, vec![])
}

/// The index sets of an in-place collective-permute's index operand: a
/// tuple of `rank` integer scalars (one set for every pair) or a tuple of
/// `pairs` such tuples. Returns how many sets it holds.
fn in_place_index_sets(s: &Shape, rank: usize, pairs: usize, what: &str) -> Result<usize> {
    let scalars = |t: &[Shape]| {
        t.len() == rank
            && t.iter().all(|e| {
                e.as_array()
                    .is_ok_and(|a| a.rank() == 0 && a.element_type.is_integer())
            })
    };
    match s {
        Shape::Tuple(t) if scalars(t) => Ok(1),
        Shape::Tuple(t)
            if t.len() == pairs && t.iter().all(|e| matches!(e, Shape::Tuple(u) if scalars(u))) =>
        {
            Ok(pairs)
        }
        s => err(format!(
            "{what} must be a tuple of {rank} integer scalars or a tuple of {pairs} such tuples (one per pair), got {}",
            sh(s)
        )),
    }
}

/// In-place `collective-permute(input, output, input_start_indices,
/// output_start_indices), slice_sizes=...`: the output's shape.
pub(super) fn collective_permute_in_place(
    ops: &[&Shape],
    pairs: &[(i64, i64)],
    slice_sizes: &[Vec<i64>],
) -> Result<Shape> {
    expect_count(ops, 4)?;
    check_pairs(pairs)?;
    let input = array(ops[0], "input")?;
    let output = array(ops[1], "output")?;
    if input.element_type != output.element_type || input.rank() != output.rank() {
        return err(format!(
            "input {} and output {} must have the same element type and rank",
            ash(input),
            ash(output)
        ));
    }
    let rank = input.rank();
    let n_in = in_place_index_sets(ops[2], rank, pairs.len(), "input_start_indices")?;
    let n_out = in_place_index_sets(ops[3], rank, pairs.len(), "output_start_indices")?;
    if n_in != n_out || (slice_sizes.len() != n_in && slice_sizes.len() != 1) {
        return err(format!(
            "input_start_indices ({n_in} sets), output_start_indices ({n_out}) and slice_sizes ({}) must agree",
            slice_sizes.len()
        ));
    }
    for s in slice_sizes {
        let fits = s.len() == rank
            && s.iter()
                .zip(input.dims.iter().zip(&output.dims))
                .all(|(&z, (&i, &o))| z >= 0 && z <= i && z <= o);
        if !fits {
            return err(format!(
                "slice_sizes {{{}}} must have {rank} sizes, each at most the input's and the output's dim ({} and {})",
                s.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
                ash(input),
                ash(output)
            ));
        }
    }
    Ok(Shape::Array(output.clone()))
}
