//! Shape rules of gather and scatter in XLA's general form (offset/window
//! dims, collapsed/inserted dims, index maps, index_vector_dim, operand and
//! indices batching dims). Shapes only: index values are runtime data and
//! are never inspected.

use super::{array, ash, check_dim_list, check_reducer, err, make};
use crate::element_type::ElementType;
use crate::error::Result;
use crate::module::Module;
use crate::ops::{CompId, GatherDims, ScatterDims};
use crate::shape::{ArrayShape, Shape};

/// The indices' dims with an implicit trailing 1 when
/// `index_vector_dim == rank`, after checking it is in `0..=rank`.
fn expanded_indices(indices: &ArrayShape, ivd: i64) -> Result<Vec<i64>> {
    if !indices.element_type.is_integer() {
        return err(format!("indices must be integers, got {}", ash(indices)));
    }
    if ivd < 0 || ivd as usize > indices.rank() {
        return err(format!(
            "index_vector_dim {ivd} is out of range for indices {} (0..={})",
            ash(indices),
            indices.rank()
        ));
    }
    let mut dims = indices.dims.clone();
    if ivd as usize == indices.rank() {
        dims.push(1);
    }
    Ok(dims)
}

/// Shared checks of the index map and batching dims of gather/scatter.
struct IndexRules<'a> {
    operand: &'a ArrayShape,
    expanded: &'a [i64],
    ivd: usize,
    index_map: &'a [i64],
    index_map_name: &'a str,
    removed: &'a [i64],
    removed_name: &'a str,
    operand_batching: &'a [i64],
    operand_batching_name: &'a str,
    indices_batching: &'a [i64],
    indices_batching_name: &'a str,
}

impl IndexRules<'_> {
    fn check(&self) -> Result<()> {
        let or = self.operand.rank();
        let vsize = self.expanded[self.ivd];
        if self.index_map.len() as i64 != vsize {
            return err(format!(
                "{} {:?} must have one entry per index vector element ({vsize})",
                self.index_map_name, self.index_map
            ));
        }
        check_dim_list(self.index_map, or, self.index_map_name, false)?;
        check_dim_list(self.removed, or, self.removed_name, true)?;
        check_dim_list(self.operand_batching, or, self.operand_batching_name, true)?;
        check_dim_list(
            self.indices_batching,
            self.expanded.len(),
            self.indices_batching_name,
            false,
        )?;
        if self.indices_batching.contains(&(self.ivd as i64)) {
            return err(format!(
                "{} {:?} must not contain index_vector_dim {}",
                self.indices_batching_name, self.indices_batching, self.ivd
            ));
        }
        if self.operand_batching.len() != self.indices_batching.len() {
            return err(format!(
                "{} {:?} and {} {:?} have different lengths",
                self.operand_batching_name,
                self.operand_batching,
                self.indices_batching_name,
                self.indices_batching
            ));
        }
        for d in self.removed {
            if self.operand_batching.contains(d) {
                return err(format!(
                    "dimension {d} is in both {} and {}",
                    self.removed_name, self.operand_batching_name
                ));
            }
        }
        for d in self.index_map {
            if self.operand_batching.contains(d) {
                return err(format!(
                    "dimension {d} is in both {} and {}",
                    self.index_map_name, self.operand_batching_name
                ));
            }
        }
        for (&o, &i) in self.operand_batching.iter().zip(self.indices_batching) {
            let (a, b) = (self.operand.dims[o as usize], self.expanded[i as usize]);
            if a != b {
                return err(format!(
                    "batching dimension sizes differ: operand dimension {o} is {a}, indices dimension {i} is {b}"
                ));
            }
        }
        Ok(())
    }
}

/// Gather.
pub(super) fn gather(ops: &[&Shape], dn: &GatherDims, slice_sizes: &[i64]) -> Result<Shape> {
    super::expect_count(ops, 2)?;
    let a = array(ops[0], "the operand")?;
    let idx = array(ops[1], "the start indices")?;
    let expanded = expanded_indices(idx, dn.index_vector_dim)?;
    let ivd = dn.index_vector_dim as usize;
    IndexRules {
        operand: a,
        expanded: &expanded,
        ivd,
        index_map: &dn.start_index_map,
        index_map_name: "start_index_map",
        removed: &dn.collapsed_slice_dims,
        removed_name: "collapsed_slice_dims",
        operand_batching: &dn.operand_batching_dims,
        operand_batching_name: "operand_batching_dims",
        indices_batching: &dn.start_indices_batching_dims,
        indices_batching_name: "start_indices_batching_dims",
    }
    .check()?;
    if slice_sizes.len() != a.rank() {
        return err(format!(
            "slice_sizes {slice_sizes:?} must have one entry per dimension of {}",
            ash(a)
        ));
    }
    for (i, (&s, &d)) in slice_sizes.iter().zip(&a.dims).enumerate() {
        if s < 0 || s > d {
            return err(format!(
                "slice size {s} of dimension {i} is out of range for {} (0..={d})",
                ash(a)
            ));
        }
    }
    for &d in dn
        .collapsed_slice_dims
        .iter()
        .chain(&dn.operand_batching_dims)
    {
        // XLA: a collapsed (or batching) dim is sliced to exactly one
        // element; a size-0 slice would make the gather read nothing for
        // elements the result still has.
        if slice_sizes[d as usize] != 1 {
            return err(format!(
                "collapsed or batching dimension {d} must have slice size 1, got {}",
                slice_sizes[d as usize]
            ));
        }
    }
    let kept: Vec<i64> = (0..a.rank())
        .filter(|&i| {
            !dn.collapsed_slice_dims.contains(&(i as i64))
                && !dn.operand_batching_dims.contains(&(i as i64))
        })
        .map(|i| slice_sizes[i])
        .collect();
    if dn.offset_dims.len() != kept.len() {
        return err(format!(
            "offset_dims {:?} must have {} entries (operand rank {} minus collapsed and batching dims)",
            dn.offset_dims,
            kept.len(),
            a.rank()
        ));
    }
    let batch: Vec<i64> = expanded
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != ivd)
        .map(|(_, &d)| d)
        .collect();
    let out_rank = kept.len() + batch.len();
    check_dim_list(&dn.offset_dims, out_rank, "offset_dims", true)?;
    let (mut k, mut b) = (kept.iter(), batch.iter());
    let mut out = Vec::with_capacity(out_rank);
    for i in 0..out_rank {
        let next = if dn.offset_dims.contains(&(i as i64)) {
            k.next()
        } else {
            b.next()
        };
        out.push(*next.unwrap_or(&0));
    }
    make(a.element_type, out)
}

/// Scatter(operands..., indices, updates...).
pub(super) fn scatter(
    module: &Module,
    ops: &[&Shape],
    dn: &ScatterDims,
    f: CompId,
) -> Result<Shape> {
    if ops.len() < 3 || ops.len().is_multiple_of(2) {
        return err(format!(
            "expects N operands, the indices and N updates (an odd count >= 3), got {}",
            ops.len()
        ));
    }
    let n = (ops.len() - 1) / 2;
    let inputs: Vec<&ArrayShape> = ops[..n]
        .iter()
        .enumerate()
        .map(|(i, s)| array(s, &format!("operand {i}")))
        .collect::<Result<_>>()?;
    let idx = array(ops[n], "the scatter indices")?;
    let updates: Vec<&ArrayShape> = ops[n + 1..]
        .iter()
        .enumerate()
        .map(|(i, s)| array(s, &format!("update {i}")))
        .collect::<Result<_>>()?;
    let a = inputs[0];
    for (i, (x, u)) in inputs.iter().zip(&updates).enumerate() {
        if x.dims != a.dims {
            return err(format!(
                "operands have different dims {} and {}",
                ash(a),
                ash(x)
            ));
        }
        if u.dims != updates[0].dims {
            return err(format!(
                "updates have different dims {} and {}",
                ash(updates[0]),
                ash(u)
            ));
        }
        if u.element_type != x.element_type {
            return err(format!(
                "update {i} {} must have the element type of operand {i} {}",
                ash(u),
                ash(x)
            ));
        }
    }
    let expanded = expanded_indices(idx, dn.index_vector_dim)?;
    let ivd = dn.index_vector_dim as usize;
    IndexRules {
        operand: a,
        expanded: &expanded,
        ivd,
        index_map: &dn.scatter_dims_to_operand_dims,
        index_map_name: "scatter_dims_to_operand_dims",
        removed: &dn.inserted_window_dims,
        removed_name: "inserted_window_dims",
        operand_batching: &dn.input_batching_dims,
        operand_batching_name: "input_batching_dims",
        indices_batching: &dn.scatter_indices_batching_dims,
        indices_batching_name: "scatter_indices_batching_dims",
    }
    .check()?;
    let u = updates[0];
    check_dim_list(&dn.update_window_dims, u.rank(), "update_window_dims", true)?;
    let window_operand_dims: Vec<usize> = (0..a.rank())
        .filter(|&i| {
            !dn.inserted_window_dims.contains(&(i as i64))
                && !dn.input_batching_dims.contains(&(i as i64))
        })
        .collect();
    if dn.update_window_dims.len() != window_operand_dims.len() {
        return err(format!(
            "update_window_dims {:?} must have {} entries (operand rank {} minus inserted and batching dims)",
            dn.update_window_dims,
            window_operand_dims.len(),
            a.rank()
        ));
    }
    let scatter_dims: Vec<i64> = expanded
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != ivd)
        .map(|(_, &d)| d)
        .collect();
    if u.rank() != dn.update_window_dims.len() + scatter_dims.len() {
        return err(format!(
            "updates {} must have rank {} (update window dims plus scatter dims)",
            ash(u),
            dn.update_window_dims.len() + scatter_dims.len()
        ));
    }
    for (&w, &od) in dn.update_window_dims.iter().zip(&window_operand_dims) {
        if u.dims[w as usize] > a.dims[od] {
            return err(format!(
                "update window dimension {w} of {} (size {}) exceeds operand dimension {od} of {}",
                ash(u),
                u.dims[w as usize],
                ash(a)
            ));
        }
    }
    let mut s = scatter_dims.iter();
    for i in 0..u.rank() {
        if dn.update_window_dims.contains(&(i as i64)) {
            continue;
        }
        let want = *s.next().unwrap_or(&0);
        if u.dims[i] != want {
            return err(format!(
                "update scatter dimension {i} of {} has size {} but the indices give {want}",
                ash(u),
                u.dims[i]
            ));
        }
    }
    let types: Vec<ElementType> = inputs.iter().map(|x| x.element_type).collect();
    check_reducer(module, f, &types, "the update")?;
    let shapes: Vec<Shape> = inputs
        .iter()
        .map(|x| make(x.element_type, x.dims.clone()))
        .collect::<Result<_>>()?;
    Ok(if n == 1 {
        shapes.into_iter().next().unwrap_or(Shape::Tuple(vec![]))
    } else {
        Shape::Tuple(shapes)
    })
}
