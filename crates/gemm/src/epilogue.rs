//! Fused epilogues: what is applied to a finished C tile while it is still in L1 (bias, relu, an arbitrary
//! row-segment callback). This module only describes epilogues and applies one to one row segment; it must not
//! know about packing or threads.

/// A bias added to every output element.
#[derive(Clone, Copy, Debug)]
pub enum Bias<'a> {
    /// `c[i][j] += bias[i]` (conv: one value per output feature; must have at least `m` values).
    PerRow(&'a [f32]),
    /// `c[i][j] += bias[j]` (dense layers; at least `n` values).
    PerCol(&'a [f32]),
}

/// A row-segment callback: `(row, first_col, values)`; `values[t]` is `c[row][first_col + t]`, contiguous
/// (copied through a buffer when the output is strided). Row/column numbering is the entry point's
/// (see `sgemm`, `DotPlan`, `ConvPlan`).
pub type RowFn<'a> = &'a (dyn Fn(usize, usize, &mut [f32]) + Sync);

/// Applied in order: `c = alpha*A*B + beta*c`, then `+ bias`, then `relu`, then `map`.
#[derive(Clone, Copy, Default)]
pub struct Epilogue<'a> {
    pub bias: Option<Bias<'a>>,
    pub relu: bool,
    pub map: Option<RowFn<'a>>,
}

impl std::fmt::Debug for Epilogue<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Epilogue")
            .field("bias", &self.bias)
            .field("relu", &self.relu)
            .field("map", &self.map.map(|_| "<fn>"))
            .finish()
    }
}

impl<'a> Epilogue<'a> {
    /// The same epilogue for the transposed product (rows and columns swapped: the bias kinds swap).
    pub(crate) fn transposed(&self) -> Epilogue<'a> {
        Epilogue {
            bias: self.bias.map(|b| match b {
                Bias::PerRow(v) => Bias::PerCol(v),
                Bias::PerCol(v) => Bias::PerRow(v),
            }),
            relu: self.relu,
            map: self.map,
        }
    }
}

impl Epilogue<'_> {
    /// Applies the epilogue to the contiguous segment `vals` = `c[row][col..col+len]`; `row`/`col` are the
    /// entry point's global indices, `bias_row`/`bias_col` the indices into the bias vector.
    #[inline]
    pub(crate) fn apply(
        &self,
        row: usize,
        col: usize,
        bias_row: usize,
        bias_col: usize,
        vals: &mut [f32],
    ) {
        match self.bias {
            Some(Bias::PerRow(b)) => {
                let x = b[bias_row];
                vals.iter_mut().for_each(|v| *v += x);
            }
            Some(Bias::PerCol(b)) => {
                for (v, &x) in vals.iter_mut().zip(&b[bias_col..]) {
                    *v += x;
                }
            }
            None => {}
        }
        if self.relu {
            vals.iter_mut().for_each(|v| *v = v.max(0.0));
        }
        if let Some(f) = self.map {
            f(row, col, vals);
        }
    }

    /// Checks the bias covers an `m x n` output.
    pub(crate) fn check(&self, m: usize, n: usize, what: &str) -> crate::Result<()> {
        let (len, need, kind) = match self.bias {
            Some(Bias::PerRow(b)) => (b.len(), m, "per-row"),
            Some(Bias::PerCol(b)) => (b.len(), n, "per-column"),
            None => return Ok(()),
        };
        if len < need {
            return Err(crate::GemmError::new(format!(
                "{what}: {kind} bias has {len} values, the output needs {need}"
            )));
        }
        Ok(())
    }
}
