//! `cholesky` and `triangular-solve`, and the LAPACK custom calls JAX emits
//! for them on CPU (`lapack_{s,d}potrf_ffi`, `lapack_{s,d}trsm_ffi`), and
//! the LU factorization behind `jnp.linalg.solve` (`lapack_{s,d}getrf_ffi`).
//!
//! Every matrix is the trailing `[m, m]` (or `[m, n]`) of an array, batched
//! over the leading dims. Values are read into f64, the arithmetic is done
//! in f64 (one accumulator per dot product, in index order) and the results
//! rounded once to the element type.
//!
//! Choices the spec leaves open (docs/SEMANTICS.md):
//! - `cholesky` writes zeros in the triangle it does not compute. A matrix
//!   whose pivot `a[j][j] - Σ l[j][k]²` is not > 0 (or NaN) is not positive
//!   definite: its whole computed triangle is NaN (zeros elsewhere), as
//!   `jnp.linalg.cholesky` returns; never an error.
//! - `triangular-solve` reads only the `lower` (or upper) triangle of `a`,
//!   and not its diagonal with `unit_diagonal=true`. A zero pivot gives
//!   inf/NaN by IEEE division.
//! - The potrf custom call leaves the other triangle as the input's values
//!   (LAPACK's behaviour) and returns `info` = the 1-based order of the
//!   first non-positive leading minor (0 on success); its factor triangle
//!   is NaN when info > 0 (LAPACK leaves it partially updated).

use crate::error::{EvalError, Result};
use rxla_ir::{
    ArrayData, ArrayLiteral, ArrayShape, ElementType, Literal, Shape, TransposeA,
    TriangularSolveOptions,
};

/// The LAPACK targets the evaluator implements itself.
pub const LAPACK_TARGETS: [&str; 6] = [
    "lapack_spotrf_ffi",
    "lapack_dpotrf_ffi",
    "lapack_strsm_ffi",
    "lapack_dtrsm_ffi",
    "lapack_sgetrf_ffi",
    "lapack_dgetrf_ffi",
];

/// Whether `target` is one of [`LAPACK_TARGETS`].
pub fn is_lapack_target(target: &str) -> bool {
    LAPACK_TARGETS.contains(&target)
}

fn to_f64(a: &ArrayLiteral, what: &str) -> Result<Vec<f64>> {
    match &a.data {
        ArrayData::F32(v) => Ok(v.iter().map(|&x| x as f64).collect()),
        ArrayData::F64(v) => Ok(v.clone()),
        _ => Err(EvalError::new(format!(
            "{what} must be f32 or f64, got {}",
            a.shape
        ))),
    }
}

fn from_f64(ty: ElementType, v: Vec<f64>) -> Result<ArrayData> {
    match ty {
        ElementType::F32 => Ok(ArrayData::F32(v.into_iter().map(|x| x as f32).collect())),
        ElementType::F64 => Ok(ArrayData::F64(v)),
        _ => Err(EvalError::new(format!(
            "linear algebra on {ty:?}: expected f32 or f64"
        ))),
    }
}

/// The trailing two dims `(rows, cols)` and the batch count.
fn matrix_dims(s: &ArrayShape, what: &str) -> Result<(usize, usize, usize)> {
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

/// Cholesky of one `m×m` matrix `a` (row-major) reading the `lower` (or
/// upper) triangle. Returns the lower factor `l` (row-major, zeros above)
/// and, if the matrix is not positive definite, the 1-based order of the
/// first failing pivot.
fn factor(a: &[f64], m: usize, lower: bool) -> (Vec<f64>, Option<usize>) {
    // The symmetric matrix's (i, j) with i >= j, from the stored triangle.
    let s = |i: usize, j: usize| if lower { a[i * m + j] } else { a[j * m + i] };
    let mut l = vec![0.0f64; m * m];
    for j in 0..m {
        let mut d = s(j, j);
        for k in 0..j {
            d -= l[j * m + k] * l[j * m + k];
        }
        // NaN and non-positive pivots fail (LAPACK's `ajj <= 0 || isnan`).
        if d.is_nan() || d <= 0.0 {
            return (l, Some(j + 1));
        }
        let d = d.sqrt();
        l[j * m + j] = d;
        for i in j + 1..m {
            let mut x = s(i, j);
            for k in 0..j {
                x -= l[i * m + k] * l[j * m + k];
            }
            l[i * m + j] = x / d;
        }
    }
    (l, None)
}

/// Writes factor `l` (lower, row-major) into `out` as the `lower` triangle
/// (or its transpose as the upper one); NaN when `failed`; the other
/// triangle is left as it is in `out`.
fn write_factor(out: &mut [f64], l: &[f64], m: usize, lower: bool, failed: bool) {
    for i in 0..m {
        for j in 0..=i {
            let v = if failed { f64::NAN } else { l[i * m + j] };
            if lower {
                out[i * m + j] = v;
            } else {
                out[j * m + i] = v;
            }
        }
    }
}

/// LU with partial pivoting of one `m×n` row-major matrix in place
/// (LAPACK's unblocked getf2: the pivot is the first largest `|a[i][j]|`,
/// whole rows swapped, the column scaled by the pivot, the trailing block
/// updated). Returns the 1-based pivot rows and info (1-based column of the
/// first exact zero pivot, 0 if none).
fn lu(a: &mut [f64], m: usize, n: usize) -> (Vec<i32>, i32) {
    let k = m.min(n);
    let mut ipiv = Vec::with_capacity(k);
    let mut info = 0;
    for j in 0..k {
        // idamax: the first index of the largest magnitude (NaN never wins
        // after the first).
        let mut p = j;
        let mut best = a[j * n + j].abs();
        for i in j + 1..m {
            let v = a[i * n + j].abs();
            if v > best {
                best = v;
                p = i;
            }
        }
        ipiv.push((p + 1) as i32);
        if a[p * n + j] != 0.0 {
            if p != j {
                for c in 0..n {
                    a.swap(j * n + c, p * n + c);
                }
            }
            let d = a[j * n + j];
            for i in j + 1..m {
                a[i * n + j] /= d;
            }
        } else if info == 0 {
            info = (j + 1) as i32;
        }
        for i in j + 1..m {
            let l = a[i * n + j];
            for c in j + 1..n {
                a[i * n + c] -= l * a[j * n + c];
            }
        }
    }
    (ipiv, info)
}

/// `cholesky(a), lower=lower`.
pub fn cholesky(a: &ArrayLiteral, lower: bool) -> Result<ArrayLiteral> {
    let (m, n, batch) = matrix_dims(&a.shape, "the cholesky operand")?;
    if m != n {
        return Err(EvalError::new(format!(
            "the cholesky operand must be square in its two minor dims, got {}",
            a.shape
        )));
    }
    let x = to_f64(a, "the cholesky operand")?;
    let mut out = vec![0.0f64; x.len()];
    for b in 0..batch {
        let r = b * m * m..(b + 1) * m * m;
        let (l, fail) = factor(&x[r.clone()], m, lower);
        write_factor(&mut out[r], &l, m, lower, fail.is_some());
    }
    Ok(ArrayLiteral {
        shape: a.shape.clone(),
        data: from_f64(a.shape.element_type, out)?,
        runtime_sizes: Vec::new(),
    })
}

/// Solves one system in place: `t x = rhs` for a triangular `t` given by
/// `t(i, j)` (read only on its triangle: `i >= j` when `t_lower`, else
/// `i <= j`; never on the diagonal when `unit`). `rhs` is `m` values at
/// stride `stride` from `base`.
fn substitute(
    t: &dyn Fn(usize, usize) -> f64,
    t_lower: bool,
    unit: bool,
    m: usize,
    x: &mut [f64],
    base: usize,
    stride: usize,
) {
    let at = |i: usize| base + i * stride;
    let mut solve_row = |i: usize, ks: &mut dyn Iterator<Item = usize>| {
        let mut acc = x[at(i)];
        for k in ks {
            acc -= t(i, k) * x[at(k)];
        }
        x[at(i)] = if unit { acc } else { acc / t(i, i) };
    };
    if t_lower {
        for i in 0..m {
            solve_row(i, &mut (0..i));
        }
    } else {
        for i in (0..m).rev() {
            solve_row(i, &mut (i + 1..m));
        }
    }
}

/// `triangular-solve(a, b), ...`: x with `op(a) x = b` (left side) or
/// `x op(a) = b`, where `op(a)` is `a`, `aᵀ` (TRANSPOSE, and ADJOINT for
/// real types) restricted to the `lower` or upper triangle.
pub fn triangular_solve(
    a: &ArrayLiteral,
    b: &ArrayLiteral,
    o: &TriangularSolveOptions,
) -> Result<ArrayLiteral> {
    let (m, ma, batch) = matrix_dims(&a.shape, "a")?;
    let (br, bc, bbatch) = matrix_dims(&b.shape, "b")?;
    let shared = if o.left_side { br } else { bc };
    if m != ma || shared != m || batch != bbatch || a.shape.element_type != b.shape.element_type {
        return Err(EvalError::new(format!(
            "triangular-solve shapes do not fit: a {} b {} (left_side={})",
            a.shape, b.shape, o.left_side
        )));
    }
    let av = to_f64(a, "a")?;
    let mut x = to_f64(b, "b")?;
    let trans = o.transpose_a.transposes();
    // op(a) is lower triangular when exactly one of lower / transpose holds.
    let op_lower = o.lower != trans;
    for bi in 0..batch {
        let am = &av[bi * m * m..(bi + 1) * m * m];
        // op(a)(i, j).
        let op = |i: usize, j: usize| if trans { am[j * m + i] } else { am[i * m + j] };
        let xb = bi * br * bc;
        if o.left_side {
            // op(a) X = B: one column of B at a time (stride bc).
            for c in 0..bc {
                substitute(&op, op_lower, o.unit_diagonal, m, &mut x, xb + c, bc);
            }
        } else {
            // X op(a) = B ⇔ op(a)ᵀ Xᵀ = Bᵀ: one row of B at a time.
            let opt = |i: usize, j: usize| op(j, i);
            for r in 0..br {
                substitute(&opt, !op_lower, o.unit_diagonal, m, &mut x, xb + r * bc, 1);
            }
        }
    }
    Ok(ArrayLiteral {
        shape: b.shape.clone(),
        data: from_f64(b.shape.element_type, x)?,
        runtime_sizes: Vec::new(),
    })
}

/// One `key = N : ui8` entry of a LAPACK custom call's `backend_config`
/// (`{diag = 78 : ui8, side = 76 : ui8, ...}`), as a character.
fn config_char(config: &str, key: &str) -> Option<char> {
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

fn config_flag(config: &str, key: &str, yes: char, no: char, target: &str) -> Result<bool> {
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

/// A LAPACK custom call (`target` in [`LAPACK_TARGETS`]) with its
/// `backend_config` text (empty when absent) on array operands; `result`
/// is the instruction's shape.
pub fn lapack_call(
    target: &str,
    config: &str,
    operands: &[&ArrayLiteral],
    result: &Shape,
) -> Result<Literal> {
    let want_ty = if target.starts_with("lapack_s") {
        ElementType::F32
    } else {
        ElementType::F64
    };
    for (k, o) in operands.iter().enumerate() {
        if o.shape.element_type != want_ty {
            return Err(EvalError::new(format!(
                "{target}: operand {k} must be {want_ty:?}, got {}",
                o.shape
            )));
        }
    }
    if target.ends_with("potrf_ffi") {
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
        let x = to_f64(a, "the potrf operand")?;
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
            data: from_f64(want_ty, out)?,
            runtime_sizes: Vec::new(),
        };
        let info = ArrayLiteral {
            shape: info_shape,
            data: ArrayData::S32(info),
            runtime_sizes: Vec::new(),
        };
        return Ok(Literal::Tuple(vec![
            Literal::Array(factor),
            Literal::Array(info),
        ]));
    }
    if target.ends_with("getrf_ffi") {
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
        let mut x = to_f64(a, "the getrf operand")?;
        let mut ipiv = Vec::with_capacity(batch * k);
        let mut info = Vec::with_capacity(batch);
        for b in 0..batch {
            let (p, i) = lu(&mut x[b * m * n..(b + 1) * m * n], m, n);
            ipiv.extend(p);
            info.push(i);
        }
        return Ok(Literal::Tuple(vec![
            Literal::Array(ArrayLiteral {
                shape: lu_shape,
                data: from_f64(want_ty, x)?,
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
        ]));
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

#[cfg(test)]
mod tests {
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
