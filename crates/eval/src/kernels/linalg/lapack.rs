//! The LAPACK custom calls JAX emits on CPU: `backend_config` parsing,
//! result-shape checks and the dispatch to each factorization.

use super::cholesky::{factor, write_factor};
use super::lu::lu;
use super::trsm::triangular_solve;
use super::{Scalar, eig, eigh, matrix_dims, qr, svd};
use crate::error::{EvalError, Result};
use rxla_ir::{
    ArrayData, ArrayLiteral, Complex64, ElementType, LapackKind, Literal, Shape, TransposeA,
    TriangularSolveOptions,
};

/// One `key = N : ui8` entry of a LAPACK custom call's `backend_config`
/// (`{diag = 78 : ui8, side = 76 : ui8, ...}`), as a character.
pub(super) fn config_char(config: &str, key: &str) -> Option<char> {
    let body = config.trim().trim_start_matches('{').trim_end_matches('}');
    body.split(',').find_map(|entry| {
        let (k, v) = entry.split_once('=')?;
        if k.trim() != key {
            return None;
        }
        let n: u32 = v.split(':').next()?.trim().parse().ok()?;
        char::from_u32(n)
    })
}

pub(super) fn config_flag(
    config: &str,
    key: &str,
    yes: char,
    no: char,
    target: &str,
) -> Result<bool> {
    match config_char(config, key) {
        Some(c) if c == yes => Ok(true),
        Some(c) if c == no => Ok(false),
        other => Err(EvalError::new(format!(
            "{target}: backend_config needs {key} = {} ('{yes}') or {} ('{no}'), got {}",
            yes as u32,
            no as u32,
            match other {
                Some(c) => format!("{} ({c:?})", c as u32),
                None => "none".to_string(),
            }
        ))),
    }
}

/// A LAPACK custom call (a `target` [`rxla_ir::lapack_target`] knows) with its
/// `backend_config` text (empty when absent) on array operands; `result`
/// is the instruction's shape.
pub fn lapack_call(
    target: &str,
    config: &str,
    operands: &[&ArrayLiteral],
    result: &Shape,
) -> Result<Literal> {
    let Some((kind, want_ty)) = rxla_ir::lapack_target(target) else {
        return Err(EvalError::new(format!(
            "{target} is not a LAPACK custom call rxla implements"
        )));
    };
    for (k, o) in operands.iter().enumerate() {
        if o.shape.element_type != want_ty {
            return Err(EvalError::new(format!(
                "{target}: operand {k} must be {want_ty:?}, got {}",
                o.shape
            )));
        }
    }
    let count = |n: usize, names: &str| {
        if operands.len() == n {
            Ok(())
        } else {
            Err(EvalError::new(format!(
                "{target} takes {n} operand(s) ({names}), got {}",
                operands.len()
            )))
        }
    };
    match kind {
        LapackKind::Geqrf => {
            count(1, "a")?;
            return qr::geqrf(target, operands[0], result);
        }
        LapackKind::Orgqr => {
            count(2, "a, tau")?;
            return qr::orgqr(target, operands[0], operands[1], result);
        }
        LapackKind::Syevd => {
            count(1, "a")?;
            return eigh::syevd(target, config, operands[0], result);
        }
        LapackKind::Gesdd | LapackKind::Gesvd => {
            count(1, "a")?;
            return svd::gesdd(kind, target, config, operands[0], result);
        }
        LapackKind::Geev => {
            count(1, "a")?;
            return eig::geev(target, config, operands[0], result);
        }
        LapackKind::Potrf | LapackKind::Getrf | LapackKind::Trsm => {}
    }
    let complex = want_ty.is_complex();
    match (kind, complex) {
        (LapackKind::Potrf, false) => {
            return potrf::<f64>(target, config, operands, result, want_ty);
        }
        (LapackKind::Potrf, true) => {
            return potrf::<Complex64>(target, config, operands, result, want_ty);
        }
        (LapackKind::Getrf, false) => return getrf::<f64>(target, operands, result, want_ty),
        (LapackKind::Getrf, true) => return getrf::<Complex64>(target, operands, result, want_ty),
        _ => {}
    }
    // trsm
    let [a, b] = operands else {
        return Err(EvalError::new(format!(
            "{target} takes 2 operands (a, b), got {}",
            operands.len()
        )));
    };
    if !result.compatible(&Shape::Array(b.shape.clone())) {
        return Err(EvalError::new(format!(
            "{target}: the result must have b's shape {}, got {result}",
            b.shape
        )));
    }
    let transpose_a = match config_char(config, "trans_x") {
        Some('N') => TransposeA::NoTranspose,
        Some('T') => TransposeA::Transpose,
        Some('C') => TransposeA::Adjoint,
        _ => {
            return Err(EvalError::new(format!(
                "{target}: backend_config needs trans_x = 78 ('N'), 84 ('T') or 67 ('C')"
            )));
        }
    };
    let o = TriangularSolveOptions {
        left_side: config_flag(config, "side", 'L', 'R', target)?,
        lower: config_flag(config, "uplo", 'L', 'U', target)?,
        unit_diagonal: config_flag(config, "diag", 'U', 'N', target)?,
        transpose_a,
    };
    Ok(Literal::Array(triangular_solve(a, b, &o)?))
}

/// `lapack_?potrf_ffi(a)` in `T` arithmetic (f64 for s/d, Complex64 for c/z).
fn potrf<T: Scalar>(
    target: &str,
    config: &str,
    operands: &[&ArrayLiteral],
    result: &Shape,
    want_ty: ElementType,
) -> Result<Literal> {
    let [a] = operands else {
        return Err(EvalError::new(format!(
            "{target} takes 1 operand, got {}",
            operands.len()
        )));
    };
    let lower = config_flag(config, "uplo", 'L', 'U', target)?;
    let (m, n, batch) = matrix_dims(&a.shape, "the potrf operand")?;
    let info_shape = match result {
        Shape::Tuple(t)
            if t.len() == 2
                && t[0].compatible(&Shape::Array(a.shape.clone()))
                && matches!(&t[1], Shape::Array(s)
                    if s.element_type == ElementType::S32
                        && s.dims.iter().product::<i64>() as usize == batch) =>
        {
            t[1].as_array()
                .map_err(|e| EvalError::new(e.to_string()))?
                .clone()
        }
        _ => {
            return Err(EvalError::new(format!(
                "{target}: the result must be ({}, s32[batch dims]), got {result}",
                a.shape
            )));
        }
    };
    if m != n {
        return Err(EvalError::new(format!(
            "{target}: the operand must be square in its two minor dims, got {}",
            a.shape
        )));
    }
    let x = T::read(a, "the potrf operand")?;
    let mut out = x.clone();
    let mut info = Vec::with_capacity(batch);
    for b in 0..batch {
        let r = b * m * m..(b + 1) * m * m;
        let (l, fail) = factor(&x[r.clone()], m, lower);
        write_factor(&mut out[r], &l, m, lower, fail.is_some());
        info.push(fail.map_or(0, |j| j as i32));
    }
    let factor = ArrayLiteral {
        shape: a.shape.clone(),
        data: T::data(want_ty, out)?,
        runtime_sizes: Vec::new(),
    };
    let info = ArrayLiteral {
        shape: info_shape,
        data: ArrayData::S32(info),
        runtime_sizes: Vec::new(),
    };
    Ok(Literal::Tuple(vec![
        Literal::Array(factor),
        Literal::Array(info),
    ]))
}

/// `lapack_?getrf_ffi(a)` in `T` arithmetic (f64 for s/d, Complex64 for c/z).
fn getrf<T: Scalar>(
    target: &str,
    operands: &[&ArrayLiteral],
    result: &Shape,
    want_ty: ElementType,
) -> Result<Literal> {
    let [a] = operands else {
        return Err(EvalError::new(format!(
            "{target} takes 1 operand, got {}",
            operands.len()
        )));
    };
    let (m, n, batch) = matrix_dims(&a.shape, "the getrf operand")?;
    let k = m.min(n);
    let leaf = |i: usize, ty: ElementType, count: usize| match result {
        Shape::Tuple(t) => t.get(i).and_then(|s| match s {
            Shape::Array(s)
                if s.element_type == ty && s.dims.iter().product::<i64>() as usize == count =>
            {
                Some(s.clone())
            }
            _ => None,
        }),
        _ => None,
    };
    let (Some(lu_shape), Some(ipiv_shape), Some(info_shape), true) = (
        leaf(0, want_ty, batch * m * n),
        leaf(1, ElementType::S32, batch * k),
        leaf(2, ElementType::S32, batch),
        result.tuple_elements().is_some_and(|t| t.len() == 3),
    ) else {
        return Err(EvalError::new(format!(
            "{target}: the result must be ({}, s32[batch dims, {k}], s32[batch dims]), got {result}",
            a.shape
        )));
    };
    let mut x = T::read(a, "the getrf operand")?;
    let mut ipiv = Vec::with_capacity(batch * k);
    let mut info = Vec::with_capacity(batch);
    for b in 0..batch {
        let (p, i) = lu(&mut x[b * m * n..(b + 1) * m * n], m, n);
        ipiv.extend(p);
        info.push(i);
    }
    Ok(Literal::Tuple(vec![
        Literal::Array(ArrayLiteral {
            shape: lu_shape,
            data: T::data(want_ty, x)?,
            runtime_sizes: Vec::new(),
        }),
        Literal::Array(ArrayLiteral {
            shape: ipiv_shape,
            data: ArrayData::S32(ipiv),
            runtime_sizes: Vec::new(),
        }),
        Literal::Array(ArrayLiteral {
            shape: info_shape,
            data: ArrayData::S32(info),
            runtime_sizes: Vec::new(),
        }),
    ]))
}
