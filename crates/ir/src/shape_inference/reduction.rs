//! Shape rules of ops that apply a called computation over many elements:
//! reduce, reduce-window, select-and-scatter, sort and all-reduce (all
//! variadic where XLA is). Called computations are checked against the
//! scalar signatures XLA requires; callee bodies are never inspected.

use super::{
    array, ash, callee, check_dim_list, check_reducer, comp_name, err, expect_count, make, psh,
    window_output_dim,
};
use crate::element_type::ElementType;
use crate::error::Result;
use crate::module::Module;
use crate::ops::{CompId, Window};
use crate::shape::{ArrayShape, ProgramShape, Shape};

/// Splits `2N` operands into N inputs (same dims) and N scalar inits of
/// matching types.
fn inputs_and_inits<'a>(ops: &[&'a Shape]) -> Result<(Vec<&'a ArrayShape>, Vec<ElementType>)> {
    if ops.is_empty() || !ops.len().is_multiple_of(2) {
        return err(format!(
            "expects N inputs followed by N init values (an even, non-zero count), got {} operands",
            ops.len()
        ));
    }
    let n = ops.len() / 2;
    let inputs: Vec<&ArrayShape> = ops[..n]
        .iter()
        .enumerate()
        .map(|(i, s)| array(s, &format!("input {i}")))
        .collect::<Result<_>>()?;
    for a in &inputs[1..] {
        if a.dims != inputs[0].dims {
            return err(format!(
                "inputs have different dims {} and {}",
                ash(inputs[0]),
                ash(a)
            ));
        }
    }
    let mut types = Vec::with_capacity(n);
    for (i, s) in ops[n..].iter().enumerate() {
        let init = array(s, &format!("init value {i}"))?;
        if !init.is_scalar() || init.element_type != inputs[i].element_type {
            return err(format!(
                "init value {i} must be a {} scalar (the type of input {}), got {}",
                inputs[i].element_type,
                ash(inputs[i]),
                ash(init)
            ));
        }
        types.push(init.element_type);
    }
    Ok((inputs, types))
}

/// One array per type with `dims`; a tuple when there is more than one.
fn one_or_tuple(types: &[ElementType], dims: &[i64]) -> Result<Shape> {
    let shapes: Vec<Shape> = types
        .iter()
        .map(|&t| make(t, dims.to_vec()))
        .collect::<Result<_>>()?;
    Ok(if shapes.len() == 1 {
        shapes.into_iter().next().unwrap_or(Shape::Tuple(vec![]))
    } else {
        Shape::Tuple(shapes)
    })
}

/// Reduce: removes `dimensions` from the inputs.
pub(super) fn reduce(
    module: &Module,
    ops: &[&Shape],
    dimensions: &[i64],
    f: CompId,
) -> Result<Shape> {
    let (inputs, types) = inputs_and_inits(ops)?;
    let rank = inputs[0].rank();
    check_dim_list(dimensions, rank, "dimensions", false)?;
    check_reducer(module, f, &types, "the reduction")?;
    let dims: Vec<i64> = (0..rank)
        .filter(|i| !dimensions.contains(&(*i as i64)))
        .map(|i| inputs[0].dims[i])
        .collect();
    one_or_tuple(&types, &dims)
}

/// Output dims of a window over `input`.
pub(crate) fn window_output(input: &ArrayShape, window: &Window) -> Result<Vec<i64>> {
    if window.dims.len() != input.rank() {
        return err(format!(
            "the window has {} dimensions but the input {} has rank {}",
            window.dims.len(),
            ash(input),
            input.rank()
        ));
    }
    input
        .dims
        .iter()
        .zip(&window.dims)
        .enumerate()
        .map(|(i, (&d, w))| window_output_dim(d, w, i))
        .collect()
}

/// Reduce-window (variadic).
pub(super) fn reduce_window(
    module: &Module,
    ops: &[&Shape],
    window: &Window,
    f: CompId,
) -> Result<Shape> {
    let (inputs, types) = inputs_and_inits(ops)?;
    let dims = window_output(inputs[0], window)?;
    check_reducer(module, f, &types, "the reduction")?;
    one_or_tuple(&types, &dims)
}

/// Select-and-scatter(operand, source, init).
pub(super) fn select_and_scatter(
    module: &Module,
    ops: &[&Shape],
    window: &Window,
    select: CompId,
    scatter: CompId,
) -> Result<Shape> {
    expect_count(ops, 3)?;
    let a = array(ops[0], "the operand")?;
    let src = array(ops[1], "the source")?;
    let init = array(ops[2], "the init value")?;
    let t = a.element_type;
    if !init.is_scalar() || init.element_type != t {
        return err(format!(
            "the init value must be a {t} scalar, got {}",
            ash(init)
        ));
    }
    let dims = window_output(a, window)?;
    if src.element_type != t || src.dims != dims {
        return err(format!(
            "the source must have the windowed operand's shape {}[{}], got {}",
            t,
            dims.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(","),
            ash(src)
        ));
    }
    let p = callee(module, select)?;
    let want = ProgramShape {
        parameters: vec![Shape::scalar(t), Shape::scalar(t)],
        result: Shape::scalar(ElementType::Pred),
    };
    if !p.compatible(&want) {
        return err(format!(
            "the select computation {} must have signature {}, got {}",
            comp_name(module, select),
            psh(&want),
            psh(&p)
        ));
    }
    check_reducer(module, scatter, &[t], "the scatter")?;
    make(t, a.dims.clone())
}

/// Checks a sort comparator: `(T1, T1, ..., TN, TN) -> pred[]`.
pub(crate) fn check_comparator(module: &Module, f: CompId, types: &[ElementType]) -> Result<()> {
    let p = callee(module, f)?;
    let want = ProgramShape {
        parameters: types
            .iter()
            .flat_map(|&t| [Shape::scalar(t), Shape::scalar(t)])
            .collect(),
        result: Shape::scalar(ElementType::Pred),
    };
    if !p.compatible(&want) {
        return err(format!(
            "the comparator {} must have signature {}, got {}",
            comp_name(module, f),
            psh(&want),
            psh(&p)
        ));
    }
    Ok(())
}

/// Sort: operands with equal dims; a tuple when more than one.
pub(super) fn sort(module: &Module, ops: &[&Shape], dimension: i64, f: CompId) -> Result<Shape> {
    if ops.is_empty() {
        return err("expects at least one operand");
    }
    let arrays: Vec<&ArrayShape> = ops
        .iter()
        .enumerate()
        .map(|(i, s)| array(s, &format!("operand {i}")))
        .collect::<Result<_>>()?;
    for a in &arrays[1..] {
        if a.dims != arrays[0].dims {
            return err(format!(
                "operands have different dims {} and {}",
                ash(arrays[0]),
                ash(a)
            ));
        }
    }
    let rank = arrays[0].rank();
    if dimension < 0 || dimension as usize >= rank {
        return err(format!(
            "dimension {dimension} is out of range for {}",
            ash(arrays[0])
        ));
    }
    let types: Vec<ElementType> = arrays.iter().map(|a| a.element_type).collect();
    check_comparator(module, f, &types)?;
    one_or_tuple(&types, &arrays[0].dims)
}

/// All-reduce: same shapes out (a tuple for several operands).
pub(super) fn all_reduce(module: &Module, ops: &[&Shape], f: CompId) -> Result<Shape> {
    if ops.is_empty() {
        return err("expects at least one operand");
    }
    let arrays: Vec<&ArrayShape> = ops
        .iter()
        .enumerate()
        .map(|(i, s)| array(s, &format!("operand {i}")))
        .collect::<Result<_>>()?;
    let t = arrays[0].element_type;
    if arrays.iter().all(|a| a.element_type == t) {
        check_reducer(module, f, &[t], "the reduction")?;
    } else {
        callee(module, f)?;
    }
    let shapes: Vec<Shape> = arrays
        .iter()
        .map(|a| make(a.element_type, a.dims.clone()))
        .collect::<Result<_>>()?;
    Ok(if shapes.len() == 1 {
        shapes.into_iter().next().unwrap_or(Shape::Tuple(vec![]))
    } else {
        Shape::Tuple(shapes)
    })
}

/// topk: an array of rank ≥ 1 with k ≤ its last dimension; the result is
/// `(values, s32 indices)`, each with the last dimension replaced by k.
pub(super) fn top_k(ops: &[&Shape], k: i64) -> Result<Shape> {
    expect_count(ops, 1)?;
    let a = array(ops[0], "the operand")?;
    if a.element_type.is_complex() {
        return err(format!(
            "topk needs ordered elements, complex is not ordered: {}",
            ash(a)
        ));
    }
    let Some(&last) = a.dims.last() else {
        return err(format!("expects an operand of rank >= 1, got {}", ash(a)));
    };
    if k < 0 || k > last {
        return err(format!("k={k} is not in 0..={last} for operand {}", ash(a)));
    }
    let mut dims = a.dims.clone();
    *dims.last_mut().expect("rank >= 1") = k;
    Ok(Shape::Tuple(vec![
        make(a.element_type, dims.clone())?,
        make(ElementType::S32, dims)?,
    ]))
}
