//! Shape rules of structural and effectful ops: parameter, constant, call,
//! fusion, while, conditional, tuple access, custom-call, infeed/outfeed,
//! rng, rng-bit-generator and after-all. Reads callee signatures; never
//! looks inside callee bodies or follows calls recursively.

use super::{array, ash, callee, comp_name, err, expect_count, need_declared, psh, sh};
use crate::element_type::ElementType;
use crate::error::Result;
use crate::literal::Literal;
use crate::module::Module;
use crate::ops::{CompId, RngDistribution};
use crate::shape::{ProgramShape, Shape};

/// Parameter: the declared shape.
pub(super) fn parameter(ops: &[&Shape], declared: Option<&Shape>) -> Result<Shape> {
    expect_count(ops, 0)?;
    let d = need_declared(declared)?;
    d.validate()?;
    Ok(d.clone())
}

/// Constant: the literal's shape.
pub(super) fn constant(ops: &[&Shape], literal: &Literal) -> Result<Shape> {
    expect_count(ops, 0)?;
    Ok(literal.shape())
}

/// Checks arguments against a callee's parameters.
fn check_args(module: &Module, ops: &[&Shape], f: CompId) -> Result<ProgramShape> {
    let p = callee(module, f)?;
    let ok = p.parameters.len() == ops.len()
        && p.parameters.iter().zip(ops).all(|(a, b)| a.compatible(b));
    if !ok {
        let given: Vec<String> = ops.iter().map(|s| sh(s)).collect();
        return err(format!(
            "arguments ({}) do not match the parameters of {} {}",
            given.join(", "),
            comp_name(module, f),
            psh(&p)
        ));
    }
    Ok(p)
}

/// Call / fusion: the callee's result.
pub(super) fn call(module: &Module, ops: &[&Shape], f: CompId) -> Result<Shape> {
    Ok(check_args(module, ops, f)?.result.with_default_layouts())
}

/// While(init): cond T -> pred[], body T -> T.
pub(super) fn while_loop(
    module: &Module,
    ops: &[&Shape],
    cond: CompId,
    body: CompId,
) -> Result<Shape> {
    expect_count(ops, 1)?;
    let t = ops[0];
    let c = callee(module, cond)?;
    let want_c = ProgramShape {
        parameters: vec![t.clone()],
        result: Shape::scalar(ElementType::Pred),
    };
    if !c.compatible(&want_c) {
        return err(format!(
            "the condition {} must have signature {}, got {}",
            comp_name(module, cond),
            psh(&want_c),
            psh(&c)
        ));
    }
    let b = callee(module, body)?;
    let want_b = ProgramShape {
        parameters: vec![t.clone()],
        result: t.clone(),
    };
    if !b.compatible(&want_b) {
        return err(format!(
            "the body {} must have signature {}, got {}",
            comp_name(module, body),
            psh(&want_b),
            psh(&b)
        ));
    }
    Ok(t.with_default_layouts())
}

/// Conditional(selector, args...): pred selector with two branches or s32
/// index with N >= 1 branches; branch i takes argument i.
pub(super) fn conditional(module: &Module, ops: &[&Shape], branches: &[CompId]) -> Result<Shape> {
    if ops.is_empty() {
        return err("expects a selector operand");
    }
    let sel = array(ops[0], "the selector")?;
    match sel.element_type {
        ElementType::Pred if sel.is_scalar() => {
            if branches.len() != 2 {
                return err(format!(
                    "a pred selector needs 2 branches, got {}",
                    branches.len()
                ));
            }
        }
        ElementType::S32 if sel.is_scalar() => {
            if branches.is_empty() {
                return err("an s32 selector needs at least one branch");
            }
        }
        _ => {
            return err(format!(
                "the selector must be pred[] or s32[], got {}",
                ash(sel)
            ));
        }
    }
    if ops.len() != branches.len() + 1 {
        return err(format!(
            "expects one operand per branch ({}), got {}",
            branches.len(),
            ops.len() - 1
        ));
    }
    let mut result: Option<Shape> = None;
    for (i, (&b, arg)) in branches.iter().zip(&ops[1..]).enumerate() {
        let p = callee(module, b)?;
        if p.parameters.len() != 1 || !p.parameters[0].compatible(arg) {
            return err(format!(
                "branch {i} ({}) must take one parameter of shape {}, got {}",
                comp_name(module, b),
                sh(arg),
                psh(&p)
            ));
        }
        match &result {
            None => result = Some(p.result.with_default_layouts()),
            Some(r) if !r.compatible(&p.result) => {
                return err(format!(
                    "branch {i} ({}) returns {} but branch 0 returns {}",
                    comp_name(module, b),
                    sh(&p.result),
                    sh(r)
                ));
            }
            _ => {}
        }
    }
    Ok(result.unwrap_or(Shape::Tuple(vec![])))
}

/// Get-tuple-element.
pub(super) fn get_tuple_element(ops: &[&Shape], index: i64) -> Result<Shape> {
    expect_count(ops, 1)?;
    let elems = ops[0].tuple_elements().ok_or_else(|| {
        crate::IrError::shape(format!("the operand must be a tuple, got {}", sh(ops[0])))
    })?;
    if index < 0 || index as usize >= elems.len() {
        return err(format!(
            "index {index} is out of range for {} ({} elements)",
            sh(ops[0]),
            elems.len()
        ));
    }
    Ok(elems[index as usize].with_default_layouts())
}

/// Custom-call: the declared shape.
pub(super) fn custom_call(declared: Option<&Shape>) -> Result<Shape> {
    let d = need_declared(declared)?;
    d.validate()?;
    Ok(d.clone())
}

/// Infeed(token): declared `(data, token[])`.
pub(super) fn infeed(ops: &[&Shape], declared: Option<&Shape>) -> Result<Shape> {
    for s in ops {
        if !s.is_token() {
            return err(format!("operands must be tokens, got {}", sh(s)));
        }
    }
    let d = need_declared(declared)?;
    match d.tuple_elements() {
        Some([_, t]) if t.is_token() => {
            d.validate()?;
            Ok(d.clone())
        }
        _ => err(format!(
            "the result must be a (data, token[]) tuple, got {}",
            sh(d)
        )),
    }
}

/// Outfeed(data, token): token.
pub(super) fn outfeed(ops: &[&Shape]) -> Result<Shape> {
    if ops.is_empty() || ops.len() > 2 {
        return err(format!(
            "expects data and a token, got {} operands",
            ops.len()
        ));
    }
    if ops.len() == 2 && !ops[1].is_token() {
        return err(format!(
            "the second operand must be a token, got {}",
            sh(ops[1])
        ));
    }
    Ok(Shape::token())
}

/// Rng(a, b): scalars of one type; the declared array shape of that type.
pub(super) fn rng(
    ops: &[&Shape],
    dist: RngDistribution,
    declared: Option<&Shape>,
) -> Result<Shape> {
    expect_count(ops, 2)?;
    let a = array(ops[0], "the first parameter")?;
    let b = array(ops[1], "the second parameter")?;
    if !a.is_scalar() || !b.is_scalar() || a.element_type != b.element_type {
        return err(format!(
            "expects two scalars of the same type, got {} and {}",
            ash(a),
            ash(b)
        ));
    }
    let t = a.element_type;
    let ok = !t.is_narrow()
        && match dist {
            RngDistribution::Uniform => t.is_float() || t.is_integer(),
            RngDistribution::Normal => t.is_float(),
        };
    if !ok {
        return err(format!("{} does not support element type {t}", dist.name()));
    }
    let d = array(need_declared(declared)?, "the result")?;
    if d.element_type != t {
        return err(format!(
            "the result {} must have the parameters' type {t}",
            ash(d)
        ));
    }
    Ok(Shape::Array(d.with_default_layout()))
}

/// Rng-bit-generator(state): declared `(state, bits)`.
pub(super) fn rng_bit_generator(ops: &[&Shape], declared: Option<&Shape>) -> Result<Shape> {
    expect_count(ops, 1)?;
    let s = array(ops[0], "the state")?;
    if !s.element_type.is_integer() || s.rank() != 1 {
        return err(format!(
            "the state must be a rank-1 integer array, got {}",
            ash(s)
        ));
    }
    let d = need_declared(declared)?;
    match d.tuple_elements() {
        Some([st, bits]) if st.compatible(ops[0]) => {
            let b = array(bits, "the generated bits")?;
            if !(b.element_type.is_integer() || b.element_type.is_float()) {
                return err(format!("cannot generate {} bits", ash(b)));
            }
            Ok(d.with_default_layouts())
        }
        _ => err(format!(
            "the result must be a (state {}, bits) tuple, got {}",
            ash(s),
            sh(d)
        )),
    }
}

/// After-all(tokens...): token.
pub(super) fn after_all(ops: &[&Shape]) -> Result<Shape> {
    for s in ops {
        if !s.is_token() {
            return err(format!("operands must be tokens, got {}", sh(s)));
        }
    }
    Ok(Shape::token())
}

/// `async-start(x...), calls=f`: `((x...), f's result, context...)`. A
/// declared tuple whose first two elements agree may carry any context
/// shapes after them (XLA prints `u32[]` or `s32[]`); without one, no
/// context.
pub(super) fn async_start(
    module: &Module,
    ops: &[&Shape],
    f: CompId,
    declared: Option<&Shape>,
) -> Result<Shape> {
    let p = check_args(module, ops, f)?;
    let operands = Shape::Tuple(ops.iter().map(|s| (*s).clone()).collect());
    let result = p.result.with_default_layouts();
    if let Some(Shape::Tuple(t)) = declared
        && t.len() >= 2
        && t[0].compatible(&operands)
        && t[1].compatible(&result)
    {
        return Ok(Shape::Tuple(t.clone()));
    }
    Ok(Shape::Tuple(vec![operands, result]))
}

/// The start tuple an `async-update`/`async-done` of `f` takes: at least
/// `(operands, result)` with `result` matching `f`'s.
fn async_operand<'a>(module: &Module, ops: &[&'a Shape], f: CompId) -> Result<&'a [Shape]> {
    expect_count(ops, 1)?;
    let p = callee(module, f)?;
    match ops[0] {
        Shape::Tuple(t) if t.len() >= 2 && t[1].compatible(&p.result) => Ok(t),
        s => err(format!(
            "the operand must be the tuple of an async-start of {} (operands, {}, context...), got {}",
            comp_name(module, f),
            sh(&p.result),
            sh(s)
        )),
    }
}

/// `async-update(start), calls=f`: the start's tuple.
pub(super) fn async_update(module: &Module, ops: &[&Shape], f: CompId) -> Result<Shape> {
    Ok(Shape::Tuple(async_operand(module, ops, f)?.to_vec()))
}

/// `async-done(start), calls=f`: element 1 of the start's tuple.
pub(super) fn async_done(module: &Module, ops: &[&Shape], f: CompId) -> Result<Shape> {
    Ok(async_operand(module, ops, f)?[1].clone())
}
