//! `dot` at one output element, the evaluator's way: the contracting
//! dims walked in row-major order, `acc = acc + lhs · rhs` from zero in
//! the computation type (f32 for half results, rounded once at the end;
//! a rounded multiply then a rounded add, never fused; or/and for pred);
//! F32X4 lanes along an output dim for f32. These are the baseline loops:
//! large f32 dots go to the GEMM engine instead (`plan`). Must not
//! reorder the accumulation nor depend on another lowering family.

use super::emit::{At, Emitter, Sym};
use super::repr;
use super::scalar;
use crate::error::{JitError, Result};
use cranelift_codegen::ir::types::F32X4;
use cranelift_codegen::ir::{InstBuilder, Value};
use rxla_ir::{ArrayShape, BinaryOp, DotDims, ElementType};

/// `dot` of `at` (operands lhs, rhs) with dimension numbers `dims`.
/// Contractions of at most this many steps are unrolled.
const UNROLL: i64 = 16;

pub fn dot(em: &mut Emitter, at: &At, dims: &DotDims) -> Result<Value> {
    let (c, out, idx, lanes) = (at.c, &at.shape, at.idx, at.lanes);
    let (lhs, rhs) = (at.instr.operands[0], at.instr.operands[1]);
    let ls = em.array_shape(c, lhs)?;
    let rs = em.array_shape(c, rhs)?;
    let et = out.element_type;
    // The evaluator's computation type: f32 for half results (rounded
    // once at the end), else the result type; operands are converted
    // to it first (`as` casts; pred is `!= 0`); pred is (or, and).
    let ct = if repr::is_half(et) {
        ElementType::F32
    } else {
        et
    };
    if lanes.is_some()
        && (et != ElementType::F32
            || ls.element_type != ElementType::F32
            || rs.element_type != ElementType::F32)
    {
        return Err(JitError::unsupported("vector dot of non-f32 operands"));
    }
    let free = |s: &ArrayShape, b: &[i64], k: &[i64]| -> Vec<usize> {
        (0..s.rank())
            .filter(|d| !b.contains(&(*d as i64)) && !k.contains(&(*d as i64)))
            .collect()
    };
    let lf = free(&ls, &dims.lhs_batch, &dims.lhs_contracting);
    let rf = free(&rs, &dims.rhs_batch, &dims.rhs_contracting);
    let zero = em.iconst(0);
    let mut li = vec![zero; ls.rank()];
    let mut ri = vec![zero; rs.rank()];
    let oc = match lanes {
        Some(s) => Some(s.dims(out.rank())?),
        None => None,
    };
    let mut lc = vec![0i64; ls.rank()];
    let mut rc = vec![0i64; rs.rank()];
    let nb = dims.lhs_batch.len();
    for i in 0..nb {
        li[dims.lhs_batch[i] as usize] = idx[i];
        ri[dims.rhs_batch[i] as usize] = idx[i];
        if let Some(oc) = &oc {
            lc[dims.lhs_batch[i] as usize] = oc[i];
            rc[dims.rhs_batch[i] as usize] = oc[i];
        }
    }
    for (j, &d) in lf.iter().enumerate() {
        li[d] = idx[nb + j];
        if let Some(oc) = &oc {
            lc[d] = oc[nb + j];
        }
    }
    for (j, &d) in rf.iter().enumerate() {
        ri[d] = idx[nb + lf.len() + j];
        if let Some(oc) = &oc {
            rc[d] = oc[nb + lf.len() + j];
        }
    }
    let extents: Vec<i64> = dims
        .lhs_contracting
        .iter()
        .map(|&d| ls.dims[d as usize])
        .collect();
    let vector = lanes.is_some();
    let ty = if vector { F32X4 } else { repr::storage(ct)? };
    let z = scalar::zero(em, ct)?;
    let z = if vector {
        em.b.ins().splat(F32X4, z)
    } else {
        z
    };
    let acc = em.b.declare_var(ty);
    em.b.def_var(acc, z);
    let (lsym, rsym) = match oc {
        Some(_) => (Some(Sym::Dims(lc)), Some(Sym::Dims(rc))),
        None => (None, None),
    };
    let mut step = |em: &mut Emitter, ks: &[Value]| -> Result<()> {
        let mut li2 = li.clone();
        let mut ri2 = ri.clone();
        for (j, &k) in ks.iter().enumerate() {
            li2[dims.lhs_contracting[j] as usize] = k;
            ri2[dims.rhs_contracting[j] as usize] = k;
        }
        let a = em.emit(c, lhs, &li2, lsym.as_ref())?;
        let b = em.emit(c, rhs, &ri2, rsym.as_ref())?;
        let s = em.b.use_var(acc);
        // A rounded multiply, then a rounded add (no fused
        // multiply-add), as the evaluator.
        let r = if vector {
            let p = em.b.ins().fmul(a, b);
            em.b.ins().fadd(s, p)
        } else {
            let a = scalar::convert(em, a, ls.element_type, ct)?;
            let b = scalar::convert(em, b, rs.element_type, ct)?;
            if ct == ElementType::Pred {
                let p = em.b.ins().band(a, b);
                em.b.ins().bor(s, p)
            } else {
                let p = em.binary(BinaryOp::Multiply, ct, a, b, false)?;
                em.binary(BinaryOp::Add, ct, s, p, false)?
            }
        };
        em.b.def_var(acc, r);
        Ok(())
    };
    let total: i64 = extents.iter().product();
    if total <= UNROLL {
        // A short contraction as straight-line code (same order): no loop
        // branch or index arithmetic per step (batches of small matrices).
        for flat in 0..total {
            let mut rest = flat;
            let mut ks = vec![0i64; extents.len()];
            for (k, &n) in ks.iter_mut().zip(&extents).rev() {
                *k = rest % n;
                rest /= n;
            }
            let ks: Vec<Value> = ks.into_iter().map(|k| em.iconst(k)).collect();
            step(em, &ks)?;
        }
    } else {
        em.nest(&extents, &mut Vec::new(), &mut step)?;
    }
    let r = em.b.use_var(acc);
    if repr::is_half(et) {
        repr::round_half(em, r, et)
    } else if et.is_int_n() {
        Ok(repr::wrap_int_n(em, r, et))
    } else {
        Ok(r)
    }
}
