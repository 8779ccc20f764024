//! Linear algebra: the `cholesky` and `triangular-solve` ops, and the
//! LAPACK custom calls JAX emits on CPU (`lapack_{s,d}<routine>_ffi`, named
//! by [`rxla_ir::lapack_target`]): potrf and trsm (cholesky.rs, trsm.rs),
//! getrf behind `jnp.linalg.solve` (lu.rs), geqrf and orgqr behind
//! `jnp.linalg.qr` (qr.rs), syevd behind `jnp.linalg.eigh` (eigh.rs), gesdd
//! and gesvd behind `jnp.linalg.svd` (svd.rs), geev behind
//! `jnp.linalg.eig` (eig.rs), and the complex (`c`, `z`) forms of all of
//! them: potrf, trsm and getrf (and the two ops on c64/c128) through the
//! generic code over [`Scalar`], geqrf, ungqr, heevd, gesdd and gesvd in
//! the same modules, geev in ceig.rs; lapack.rs parses `backend_config`
//! and dispatches. Each module's doc says its algorithm and conventions.
//!
//! Every matrix is the trailing `[m, m]` (or `[m, n]`) of an array, batched
//! over the leading dims. Values are read into f64 (Complex64 for complex
//! types), the arithmetic is done in f64 (one accumulator per dot product,
//! in index order) and the results rounded once to the element type.
//!
//! Choices the spec leaves open (docs/SEMANTICS.md):
//! - `cholesky` writes zeros in the triangle it does not compute. A matrix
//!   whose pivot `a[j][j] - Σ l[j][k]²` is not > 0 (or NaN) is not positive
//!   definite: its whole computed triangle is NaN (zeros elsewhere), as
//!   `jnp.linalg.cholesky` returns; never an error.
//! - complex `cholesky` factors `A = L Lᴴ` reading one triangle (the other
//!   is its conjugate transpose; the diagonal's imaginary part is ignored).
//! - `triangular-solve` reads only the `lower` (or upper) triangle of `a`,
//!   and not its diagonal with `unit_diagonal=true`. A zero pivot gives
//!   inf/NaN by IEEE division.
//! - The potrf custom call leaves the other triangle as the input's values
//!   (LAPACK's behaviour) and returns `info` = the 1-based order of the
//!   first non-positive leading minor (0 on success); its factor triangle
//!   is NaN when info > 0 (LAPACK leaves it partially updated).

mod ceig;
mod cholesky;
mod eig;
mod eigh;
mod lapack;
mod lu;
mod qr;
mod svd;
mod trsm;

pub use cholesky::cholesky;
pub use lapack::lapack_call;
pub use rxla_ir::is_lapack_target;
pub use trsm::triangular_solve;

use crate::error::{EvalError, Result};
use rxla_ir::{
    ArrayData, ArrayLiteral, ArrayShape, Complex32, Complex64, ElementType, Literal, Shape,
};

pub(super) fn to_f64(a: &ArrayLiteral, what: &str) -> Result<Vec<f64>> {
    match &a.data {
        ArrayData::F32(v) => Ok(v.iter().map(|&x| x as f64).collect()),
        ArrayData::F64(v) => Ok(v.clone()),
        _ => Err(EvalError::new(format!(
            "{what} must be f32 or f64, got {}",
            a.shape
        ))),
    }
}

pub(super) fn from_f64(ty: ElementType, v: Vec<f64>) -> Result<ArrayData> {
    match ty {
        ElementType::F32 => Ok(ArrayData::F32(v.into_iter().map(|x| x as f32).collect())),
        ElementType::F64 => Ok(ArrayData::F64(v)),
        _ => Err(EvalError::new(format!(
            "linear algebra on {ty:?}: expected f32 or f64"
        ))),
    }
}

/// The scalar arithmetic the factorizations that exist in real and complex
/// forms (cholesky/potrf, triangular-solve/trsm, getrf) are written over:
/// f64 for f32/f64 arrays, Complex64 for c64/c128 ones.
pub(super) trait Scalar:
    Copy
    + PartialEq
    + std::fmt::Debug
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::SubAssign
{
    const ZERO: Self;
    /// The complex conjugate (the value itself for reals).
    fn conj(self) -> Self;
    /// The real part.
    fn re(self) -> f64;
    fn from_re(x: f64) -> Self;
    fn nan() -> Self;
    /// `self / d` (Smith's algorithm for complex: no overflow in |d|²).
    fn quot(self, d: Self) -> Self;
    /// `|re| + |im|`, LAPACK's `cabs1`, by which i?amax picks pivots
    /// (plain `|x|` for reals).
    fn abs1(self) -> f64;
    /// The values of `a` (f32/f64, or c64/c128 for complex).
    fn read(a: &ArrayLiteral, what: &str) -> Result<Vec<Self>>;
    /// `v` as the data of an array of type `ty` (rounded once).
    fn data(ty: ElementType, v: Vec<Self>) -> Result<ArrayData>;
}

impl Scalar for f64 {
    const ZERO: Self = 0.0;
    fn conj(self) -> Self {
        self
    }
    fn re(self) -> f64 {
        self
    }
    fn from_re(x: f64) -> Self {
        x
    }
    fn nan() -> Self {
        f64::NAN
    }
    fn quot(self, d: Self) -> Self {
        self / d
    }
    fn abs1(self) -> f64 {
        self.abs()
    }
    fn read(a: &ArrayLiteral, what: &str) -> Result<Vec<Self>> {
        to_f64(a, what)
    }
    fn data(ty: ElementType, v: Vec<Self>) -> Result<ArrayData> {
        from_f64(ty, v)
    }
}

impl Scalar for Complex64 {
    const ZERO: Self = Complex64::new(0.0, 0.0);
    fn conj(self) -> Self {
        Complex64::conj(&self)
    }
    fn re(self) -> f64 {
        self.re
    }
    fn from_re(x: f64) -> Self {
        Complex64::new(x, 0.0)
    }
    fn nan() -> Self {
        Complex64::new(f64::NAN, f64::NAN)
    }
    fn quot(self, d: Self) -> Self {
        cdiv(self, d)
    }
    fn abs1(self) -> f64 {
        self.re.abs() + self.im.abs()
    }
    fn read(a: &ArrayLiteral, what: &str) -> Result<Vec<Self>> {
        complex_values(a, what)
    }
    fn data(ty: ElementType, v: Vec<Self>) -> Result<ArrayData> {
        match ty {
            ElementType::C64 => Ok(ArrayData::C64(
                v.into_iter()
                    .map(|c| Complex32::new(c.re as f32, c.im as f32))
                    .collect(),
            )),
            ElementType::C128 => Ok(ArrayData::C128(v)),
            _ => Err(EvalError::new(format!(
                "complex linear algebra on {ty:?}: expected c64 or c128"
            ))),
        }
    }
}

/// `x / y` by Smith's algorithm (no overflow or underflow in `|y|²`).
pub(super) fn cdiv(x: Complex64, y: Complex64) -> Complex64 {
    if y.re.abs() >= y.im.abs() {
        let r = y.im / y.re;
        let d = y.re + r * y.im;
        Complex64::new((x.re + r * x.im) / d, (x.im - r * x.re) / d)
    } else {
        let r = y.re / y.im;
        let d = y.im + r * y.re;
        Complex64::new((r * x.re + x.im) / d, (r * x.im - x.re) / d)
    }
}

/// The trailing two dims `(rows, cols)` and the batch count.
pub(super) fn matrix_dims(s: &ArrayShape, what: &str) -> Result<(usize, usize, usize)> {
    let r = s.dims.len();
    if r < 2 {
        return Err(EvalError::new(format!(
            "{what} must have rank >= 2, got {s}"
        )));
    }
    let rows = s.dims[r - 2] as usize;
    let cols = s.dims[r - 1] as usize;
    let batch = s.dims[..r - 2].iter().product::<i64>() as usize;
    Ok((rows, cols, batch))
}

/// The largest matrix dimension the factorizations accept (their work is
/// O(n³) and the iterative ones keep several n×n f64 copies).
pub(super) const MAX_DIM: usize = 4096;

/// A batch of matrices read from one operand: `batch` row-major
/// `rows×cols` matrices of f64 values, one after another.
pub(super) struct Matrices {
    /// The operand's leading (batch) dims.
    pub batch_dims: Vec<i64>,
    pub batch: usize,
    pub rows: usize,
    pub cols: usize,
    pub data: Vec<f64>,
}

impl Matrices {
    /// Reads `a` (rank >= 2, f32 or f64, each of its two minor dims at
    /// most [`MAX_DIM`]); `what` names it in errors.
    pub fn read(a: &ArrayLiteral, what: &str) -> Result<Matrices> {
        let (rows, cols, batch) = matrix_dims(&a.shape, what)?;
        if rows > MAX_DIM || cols > MAX_DIM {
            return Err(EvalError::new(format!(
                "{what} {} has a matrix dimension above rxla's limit of {MAX_DIM}",
                a.shape
            )));
        }
        let r = a.shape.dims.len();
        Ok(Matrices {
            batch_dims: a.shape.dims[..r - 2].to_vec(),
            batch,
            rows,
            cols,
            data: to_f64(a, what)?,
        })
    }

    /// Matrix `b` (row-major).
    pub fn get(&self, b: usize) -> &[f64] {
        let n = self.rows * self.cols;
        &self.data[b * n..(b + 1) * n]
    }

    /// Whether every value is finite.
    pub fn all_finite(&self, b: usize) -> bool {
        self.get(b).iter().all(|x| x.is_finite())
    }
}

/// The leaves of `result` (the instruction's declared shape), checked to be
/// a tuple of arrays with exactly these element types and dims (the error
/// names `target` and the expected tuple); layouts are kept.
pub(super) fn result_leaves(
    result: &Shape,
    want: &[(ElementType, Vec<i64>)],
    target: &str,
) -> Result<Vec<ArrayShape>> {
    let fits = |leaves: &[Shape]| {
        leaves.len() == want.len()
            && leaves.iter().zip(want).all(|(s, (ty, dims))| {
                matches!(s, Shape::Array(a) if a.element_type == *ty && &a.dims == dims)
            })
    };
    match result.tuple_elements() {
        Some(leaves) if fits(leaves) => Ok(leaves
            .iter()
            .filter_map(|s| s.as_array().ok().cloned())
            .collect()),
        _ => {
            let parts: Vec<String> = want
                .iter()
                .map(|(ty, dims)| {
                    let d: Vec<String> = dims.iter().map(|x| x.to_string()).collect();
                    format!("{}[{}]", ty.name(), d.join(","))
                })
                .collect();
            Err(EvalError::new(format!(
                "{target}: the result must be ({}), got {result}",
                parts.join(", ")
            )))
        }
    }
}

/// `batch ++ minor`.
pub(super) fn dims(batch: &[i64], minor: &[usize]) -> Vec<i64> {
    let mut d = batch.to_vec();
    d.extend(minor.iter().map(|&x| x as i64));
    d
}

/// An array leaf of shape `shape` holding `v` (rounded to its type).
pub(super) fn leaf(shape: &ArrayShape, v: Vec<f64>) -> Result<Literal> {
    Ok(Literal::Array(ArrayLiteral {
        shape: shape.clone(),
        data: from_f64(shape.element_type, v)?,
        runtime_sizes: Vec::new(),
    }))
}

/// An s32 `info` leaf.
pub(super) fn info_leaf(shape: &ArrayShape, v: Vec<i32>) -> Literal {
    Literal::Array(ArrayLiteral {
        shape: shape.clone(),
        data: ArrayData::S32(v),
        runtime_sizes: Vec::new(),
    })
}

/// The Euclidean norm of `x`, scaled so that it neither overflows nor
/// underflows (LAPACK's dnrm2).
pub(super) fn norm2(x: impl Iterator<Item = f64> + Clone) -> f64 {
    let scale = x.clone().fold(0.0f64, |m, v| m.max(v.abs()));
    if scale == 0.0 || !scale.is_finite() {
        return scale;
    }
    let s: f64 = x.map(|v| (v / scale) * (v / scale)).sum();
    scale * s.sqrt()
}

/// The transpose of the row-major `rows×cols` matrix `a`.
pub(super) fn transpose(a: &[f64], rows: usize, cols: usize) -> Vec<f64> {
    let mut t = vec![0.0; a.len()];
    for i in 0..rows {
        for j in 0..cols {
            t[j * rows + i] = a[i * cols + j];
        }
    }
    t
}

/// The values of a c64 or c128 array as Complex64.
pub(super) fn complex_values(a: &ArrayLiteral, what: &str) -> Result<Vec<Complex64>> {
    match &a.data {
        ArrayData::C64(v) => Ok(v
            .iter()
            .map(|c| Complex64::new(c.re as f64, c.im as f64))
            .collect()),
        ArrayData::C128(v) => Ok(v.clone()),
        _ => Err(EvalError::new(format!(
            "{what} must be c64 or c128, got {}",
            a.shape
        ))),
    }
}

/// A complex leaf of shape `shape` (c64: rounded) holding `v`.
pub(super) fn complex_leaf(shape: &ArrayShape, v: Vec<Complex64>) -> Literal {
    let data = if shape.element_type == ElementType::C64 {
        ArrayData::C64(
            v.into_iter()
                .map(|c| Complex32::new(c.re as f32, c.im as f32))
                .collect(),
        )
    } else {
        ArrayData::C128(v)
    };
    Literal::Array(ArrayLiteral {
        shape: shape.clone(),
        data,
        runtime_sizes: Vec::new(),
    })
}

/// Multiplies column `j` of the row-major `rows×cols` `v` by the phase that
/// makes its first largest-magnitude entry real and positive (exactly);
/// returns that phase (1 for a zero column).
pub(super) fn fix_phase(v: &mut [Complex64], rows: usize, cols: usize, j: usize) -> Complex64 {
    let mut best = 0.0;
    let mut at = 0;
    for i in 0..rows {
        let m = v[i * cols + j].norm();
        if m > best {
            best = m;
            at = i;
        }
    }
    if best == 0.0 {
        return Complex64::new(1.0, 0.0);
    }
    let f = v[at * cols + j].conj() / best;
    for i in 0..rows {
        v[i * cols + j] *= f;
    }
    v[at * cols + j] = Complex64::new(best, 0.0);
    f
}

#[cfg(test)]
mod tests {
    use super::lapack::{config_char, config_flag};
    use super::lu::lu;
    use super::*;

    fn lit(dims: &[i64], v: Vec<f64>) -> ArrayLiteral {
        ArrayLiteral {
            shape: ArrayShape::new(ElementType::F64, dims.to_vec()).unwrap(),
            data: ArrayData::F64(v),
            runtime_sizes: Vec::new(),
        }
    }

    fn vals(a: &ArrayLiteral) -> Vec<f64> {
        match &a.data {
            ArrayData::F64(v) => v.clone(),
            _ => panic!("f64 expected"),
        }
    }

    #[test]
    fn cholesky_of_a_known_matrix() {
        // [[4,12,-16],[12,37,-43],[-16,-43,98]] = L Lᵀ with L below.
        let a = lit(
            &[3, 3],
            vec![4., 12., -16., 12., 37., -43., -16., -43., 98.],
        );
        let l = cholesky(&a, true).unwrap();
        assert_eq!(vals(&l), vec![2., 0., 0., 6., 1., 0., -8., 5., 3.]);
        let u = cholesky(&a, false).unwrap();
        assert_eq!(vals(&u), vec![2., 6., -8., 0., 1., 5., 0., 0., 3.]);
    }

    #[test]
    fn not_positive_definite_is_nan_not_an_error() {
        let a = lit(&[2, 2], vec![1., 2., 2., 1.]);
        let l = vals(&cholesky(&a, true).unwrap());
        assert!(l[0].is_nan() && l[2].is_nan() && l[3].is_nan());
        assert_eq!(l[1], 0.0);
    }

    #[test]
    fn lu_pivots_like_lapack() {
        // [[1,2],[3,4]]: pivot row 2; L = [[1,0],[1/3,1]], U = [[3,4],[0,2/3]].
        let mut a = vec![1., 2., 3., 4.];
        let (p, info) = lu(&mut a, 2, 2);
        assert_eq!((p, info), (vec![2, 2], 0));
        assert_eq!(a, vec![3., 4., 1. / 3., 2. - 4. / 3.]);
        let mut z = vec![0., 1., 0., 1.];
        assert_eq!(lu(&mut z, 2, 2).1, 1);
    }

    #[test]
    fn config_chars() {
        let c = "{diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 85 : ui8}";
        assert_eq!(config_char(c, "diag"), Some('N'));
        assert_eq!(config_char(c, "trans_x"), Some('T'));
        assert_eq!(config_char(c, "uplo"), Some('U'));
        assert_eq!(config_char(c, "nope"), None);
        assert!(config_flag("", "uplo", 'L', 'U', "t").is_err());
    }
}
