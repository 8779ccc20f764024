//! Builder calls for linear algebra: cholesky and triangular-solve.

use super::{ComputationBuilder, Value};
use crate::error::Result;
use crate::linalg::TriangularSolveOptions;
use crate::ops::Op;

impl ComputationBuilder<'_> {
    /// `cholesky(a), lower=lower`: the Cholesky factor of each `[m, m]`
    /// matrix in the trailing dims of `a` (f32/f64, batched).
    pub fn cholesky(&mut self, a: Value, lower: bool) -> Result<Value> {
        self.push("cholesky", Op::Cholesky { lower }, &[a], None)
    }

    /// `triangular-solve(a, b), ...`: solves `op(a) x = b` (left side) or
    /// `x op(a) = b` for x, batched; the result has b's shape.
    pub fn triangular_solve(
        &mut self,
        a: Value,
        b: Value,
        options: TriangularSolveOptions,
    ) -> Result<Value> {
        self.push(
            "triangular-solve",
            Op::TriangularSolve(options),
            &[a, b],
            None,
        )
    }
}
