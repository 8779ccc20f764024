//! `dot` in its general form (XLA's dot_general): batch dimensions, any number of contracting dimensions; result
//! dimensions are batch, then lhs free, then rhs free (each in operand order). Only values are computed here; shape
//! inference is not repeated beyond the checks needed to index safely.
//!
//! Accumulation order (part of the documented semantics): every output element is computed on its own. The
//! accumulator starts at zero in the computation type (f32 for f16/bf16/f32 results, f64 for f64, the result type for
//! integers with wrapping arithmetic, or/and for pred); then for each contracting index `k`, in row-major order over the
//! contracting dimensions taken in the order of `lhs_contracting_dims`, `acc = acc + lhs[..k..] * rhs[..k..]` (a
//! rounded multiply, then a rounded add: no fused multiply-add). Operands of another type are first converted to the
//! computation type; f16/bf16 results are rounded once from the f32 accumulator.

use super::numeric::{Ring, RingKernel, permute, run_for_output};
use super::util::{check_literal, count, make_array};
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, ArrayShape, DotDims};

/// `dot(lhs, rhs)` with dimension numbers `dims`; `out` is the instruction's shape.
pub fn dot(
    lhs: &ArrayLiteral,
    rhs: &ArrayLiteral,
    dims: &DotDims,
    out: &ArrayShape,
) -> Result<ArrayLiteral> {
    check_literal(lhs, "dot lhs")?;
    check_literal(rhs, "dot rhs")?;
    let plan = Plan::new(&lhs.shape.dims, &rhs.shape.dims, dims, &out.dims)?;
    let data = run_for_output(&plan, out.element_type, &lhs.data, &rhs.data)?;
    make_array(out, data)
}

/// The canonical form of a dot: lhs viewed as `[B, M, K]`, rhs as `[B, N, K]`, result `[B, M, N]`.
struct Plan {
    lhs_dims: Vec<i64>,
    rhs_dims: Vec<i64>,
    lhs_perm: Vec<usize>,
    rhs_perm: Vec<usize>,
    b: usize,
    m: usize,
    n: usize,
    k: usize,
}

/// Batch, free and contracting dimensions of one side, as a permutation.
fn side_perm(batch: &[usize], free: &[usize], contracting: &[usize]) -> Vec<usize> {
    batch
        .iter()
        .chain(free)
        .chain(contracting)
        .copied()
        .collect()
}

impl Plan {
    fn new(ld: &[i64], rd: &[i64], dims: &DotDims, out: &[i64]) -> Result<Plan> {
        // Every check is `rxla_ir::geometry`'s.
        let g = rxla_ir::geometry::dot_geometry(ld, rd, dims, out).map_err(EvalError::new)?;
        let (lb, lc, lfree) = (&g.lhs_batch, &g.lhs_contracting, &g.lhs_free);
        let (rb, rc, rfree) = (&g.rhs_batch, &g.rhs_contracting, &g.rhs_free);
        let lhs_perm = side_perm(lb, lfree, lc);
        let rhs_perm = side_perm(rb, rfree, rc);
        let prod = |ds: &[usize], sizes: &[i64]| {
            count(&ds.iter().map(|&d| sizes[d]).collect::<Vec<_>>(), "dot")
        };
        count(out, "dot result")?;
        Ok(Plan {
            lhs_dims: ld.to_vec(),
            rhs_dims: rd.to_vec(),
            b: prod(lb, ld)?,
            m: prod(lfree, ld)?,
            n: prod(rfree, rd)?,
            k: prod(lc, ld)?,
            lhs_perm,
            rhs_perm,
        })
    }
}

impl RingKernel for Plan {
    fn run<R: Ring>(&self, lhs: &[R], rhs: &[R]) -> Result<Vec<R>> {
        let l = permute(lhs, &self.lhs_dims, &self.lhs_perm);
        let r = permute(rhs, &self.rhs_dims, &self.rhs_perm);
        let (m, n, k) = (self.m, self.n, self.k);
        let mut out = Vec::with_capacity(self.b * m * n);
        for b in 0..self.b {
            for i in 0..m {
                let lrow = &l[(b * m + i) * k..][..k];
                for j in 0..n {
                    let rrow = &r[(b * n + j) * k..][..k];
                    let mut acc = R::ZERO;
                    for (&x, &y) in lrow.iter().zip(rrow) {
                        acc = acc.add(x.mul(y));
                    }
                    out.push(acc);
                }
            }
        }
        Ok(out)
    }
}
