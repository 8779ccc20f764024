//! The LAPACK custom calls JAX emits on CPU (`lapack_{s,d,c,z}<routine>_ffi`,
//! see [`crate::linalg::lapack_target`]): operand and result shapes. Every
//! matrix is the trailing two dims of its operand, batched over the leading
//! ones; `info` results are `s32[batch dims]`. The `backend_config` flags
//! (uplo, mode, ...) are checked by the evaluator, which reads them.

use super::{array, ash, err, expect_count, need_declared, sh};
use crate::element_type::ElementType;
use crate::error::Result;
use crate::linalg::LapackKind;
use crate::shape::{ArrayShape, Shape};

/// A batch of matrices of element type `ty`: `(batch dims, rows, cols)`.
fn matrices<'a>(s: &'a Shape, what: &str, ty: ElementType) -> Result<(&'a [i64], i64, i64)> {
    let a = array(s, what)?;
    if a.element_type != ty {
        return err(format!(
            "expects {what} of element type {}, got {}",
            ty.name(),
            ash(a)
        ));
    }
    let r = a.dims.len();
    if r < 2 {
        return err(format!("expects {what} of rank >= 2, got {}", ash(a)));
    }
    Ok((&a.dims[..r - 2], a.dims[r - 2], a.dims[r - 1]))
}

fn arr(ty: ElementType, batch: &[i64], minor: &[i64]) -> Result<Shape> {
    let mut dims = batch.to_vec();
    dims.extend_from_slice(minor);
    Ok(Shape::Array(ArrayShape::new(ty, dims)?))
}

fn square(m: i64, n: i64, what: &str, s: &Shape) -> Result<()> {
    if m != n {
        return err(format!(
            "expects {what} to be square in its two minor dimensions, got {}",
            sh(s)
        ));
    }
    Ok(())
}

/// The declared result if it is (layouts aside) one of `allowed`, else an
/// error listing them.
fn one_of(declared: Option<&Shape>, allowed: Vec<Shape>) -> Result<Shape> {
    let d = need_declared(declared)?;
    d.validate()?;
    if allowed.iter().any(|a| a.compatible(d)) {
        return Ok(d.clone());
    }
    let want: Vec<String> = allowed.iter().map(sh).collect();
    err(format!(
        "expects the result shape {}, got {}",
        want.join(" or "),
        sh(d)
    ))
}

/// The result shape of LAPACK custom call `kind` on element type `ty`.
pub(super) fn custom_call(
    kind: LapackKind,
    ty: ElementType,
    target: &str,
    ops: &[&Shape],
    declared: Option<&Shape>,
) -> Result<Shape> {
    lapack(kind, ty, ops, declared).map_err(|e| e.context(target))
}

fn lapack(
    kind: LapackKind,
    ty: ElementType,
    ops: &[&Shape],
    declared: Option<&Shape>,
) -> Result<Shape> {
    let s32 = ElementType::S32;
    // Eigenvalues and singular values are real.
    let real = ty.complex_component().unwrap_or(ty);
    match kind {
        LapackKind::Potrf | LapackKind::Syevd => {
            expect_count(ops, 1)?;
            let (b, m, n) = matrices(ops[0], "the operand", ty)?;
            square(m, n, "the operand", ops[0])?;
            let mut t = vec![arr(ty, b, &[m, m])?];
            if kind == LapackKind::Syevd {
                t.push(arr(real, b, &[m])?);
            }
            t.push(arr(s32, b, &[])?);
            one_of(declared, vec![Shape::Tuple(t)])
        }
        LapackKind::Trsm => {
            expect_count(ops, 2)?;
            let (ba, m, n) = matrices(ops[0], "a", ty)?;
            square(m, n, "a", ops[0])?;
            let (bb, r, c) = matrices(ops[1], "b", ty)?;
            if ba != bb || (r != m && c != m) {
                return err(format!(
                    "expects b with a's batch dimensions and {m} rows or columns, got a {} and b {}",
                    sh(ops[0]),
                    sh(ops[1])
                ));
            }
            one_of(declared, vec![ops[1].clone()])
        }
        LapackKind::Getrf => {
            expect_count(ops, 1)?;
            let (b, m, n) = matrices(ops[0], "the operand", ty)?;
            one_of(
                declared,
                vec![Shape::Tuple(vec![
                    arr(ty, b, &[m, n])?,
                    arr(s32, b, &[m.min(n)])?,
                    arr(s32, b, &[])?,
                ])],
            )
        }
        LapackKind::Geqrf => {
            expect_count(ops, 1)?;
            let (b, m, n) = matrices(ops[0], "the operand", ty)?;
            one_of(
                declared,
                vec![Shape::Tuple(vec![
                    arr(ty, b, &[m, n])?,
                    arr(ty, b, &[m.min(n)])?,
                ])],
            )
        }
        LapackKind::Orgqr => {
            expect_count(ops, 2)?;
            let (b, m, n) = matrices(ops[0], "a", ty)?;
            let tau = array(ops[1], "tau")?;
            let k = tau.dims.last().copied().unwrap_or(-1);
            if tau.element_type != ty || tau.dims.len() != b.len() + 1 || &tau.dims[..b.len()] != b
            {
                return err(format!(
                    "expects tau of element type {} with a's batch dimensions plus one, got a {} and tau {}",
                    ty.name(),
                    sh(ops[0]),
                    sh(ops[1])
                ));
            }
            if !(m >= n && n >= k) {
                return err(format!(
                    "expects rows >= columns >= reflectors (m >= n >= k), got a {} and tau {}",
                    sh(ops[0]),
                    sh(ops[1])
                ));
            }
            one_of(declared, vec![arr(ty, b, &[m, n])?])
        }
        LapackKind::Geev => {
            expect_count(ops, 1)?;
            let (b, m, n) = matrices(ops[0], "the operand", ty)?;
            square(m, n, "the operand", ops[0])?;
            if ty.is_complex() {
                // cgeev/zgeev: one complex eigenvalue array.
                return one_of(
                    declared,
                    vec![Shape::Tuple(vec![
                        arr(ty, b, &[m])?,
                        arr(ty, b, &[m, m])?,
                        arr(ty, b, &[m, m])?,
                        arr(s32, b, &[])?,
                    ])],
                );
            }
            let cty = if ty == ElementType::F32 {
                ElementType::C64
            } else {
                ElementType::C128
            };
            one_of(
                declared,
                vec![Shape::Tuple(vec![
                    arr(ty, b, &[m])?,
                    arr(ty, b, &[m])?,
                    arr(cty, b, &[m, m])?,
                    arr(cty, b, &[m, m])?,
                    arr(s32, b, &[])?,
                ])],
            )
        }
        LapackKind::Gesdd | LapackKind::Gesvd => {
            expect_count(ops, 1)?;
            let (b, m, n) = matrices(ops[0], "the operand", ty)?;
            let k = m.min(n);
            let with = |u: &[i64], vt: &[i64]| -> Result<Shape> {
                Ok(Shape::Tuple(vec![
                    arr(ty, b, &[m, n])?,
                    arr(real, b, &[k])?,
                    arr(ty, b, u)?,
                    arr(ty, b, vt)?,
                    arr(s32, b, &[])?,
                ]))
            };
            // Full (mode 'A') or reduced (mode 'S') factors; mode 'N' has
            // either (JAX follows full_matrices).
            one_of(
                declared,
                vec![with(&[m, m], &[n, n])?, with(&[m, k], &[k, n])?],
            )
        }
    }
}
