//! Attributes of the linear-algebra ops `cholesky` and `triangular-solve`
//! (XLA's `CholeskyOptions` / `TriangularSolveOptions`), kept in their own
//! module so the `Op` enum only names them.

/// `transpose_a=` of `triangular-solve`: which of `a`, `aᵀ` or `aᴴ` the
/// solve uses. For real element types `Adjoint` is `Transpose`; for
/// complex ones it also conjugates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TransposeA {
    NoTranspose,
    Transpose,
    Adjoint,
}

impl TransposeA {
    pub const ALL: [TransposeA; 3] = [
        TransposeA::NoTranspose,
        TransposeA::Transpose,
        TransposeA::Adjoint,
    ];

    /// The name XLA prints (`TriangularSolveOptions_Transpose_Name`).
    pub fn name(self) -> &'static str {
        match self {
            TransposeA::NoTranspose => "NO_TRANSPOSE",
            TransposeA::Transpose => "TRANSPOSE",
            TransposeA::Adjoint => "ADJOINT",
        }
    }

    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|t| t.name() == s)
    }

    /// Whether the solve uses `a` transposed (conjugation aside).
    pub fn transposes(self) -> bool {
        !matches!(self, TransposeA::NoTranspose)
    }

    /// Whether the solve uses `a` conjugated (complex element types).
    pub fn conjugates(self) -> bool {
        matches!(self, TransposeA::Adjoint)
    }
}

/// The attributes of `triangular-solve(a, b)`: solve `op(a) x = b`
/// (`left_side`) or `x op(a) = b`, reading only the `lower` (or upper)
/// triangle of `a`, with ones assumed on the diagonal if `unit_diagonal`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TriangularSolveOptions {
    pub left_side: bool,
    pub lower: bool,
    pub unit_diagonal: bool,
    pub transpose_a: TransposeA,
}

impl Default for TriangularSolveOptions {
    fn default() -> Self {
        TriangularSolveOptions {
            left_side: true,
            lower: true,
            unit_diagonal: false,
            transpose_a: TransposeA::NoTranspose,
        }
    }
}

/// The factorization a LAPACK custom call (`lapack_<t><name>_ffi`, as JAX
/// emits them on CPU) computes. The evaluator implements each one itself
/// (`rxla-eval`'s `kernels/linalg`); shape rules are in
/// `shape_inference/lapack.rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LapackKind {
    /// `potrf`: Cholesky factor and info.
    Potrf,
    /// `trsm`: triangular solve.
    Trsm,
    /// `getrf`: LU with partial pivoting, pivots and info.
    Getrf,
    /// `geqrf`: Householder QR (R and reflectors, tau).
    Geqrf,
    /// `orgqr`: Q from geqrf's reflectors (`householder_product`).
    Orgqr,
    /// `syevd`: symmetric eigendecomposition.
    Syevd,
    /// `gesdd`: singular value decomposition (divide and conquer in LAPACK).
    Gesdd,
    /// `gesvd`: singular value decomposition (QR iteration in LAPACK).
    Gesvd,
    /// `geev`: general eigendecomposition (complex eigenvectors; the
    /// complex forms return one complex eigenvalue array instead of
    /// `wr, wi`).
    Geev,
}

impl LapackKind {
    pub const ALL: [LapackKind; 9] = [
        LapackKind::Potrf,
        LapackKind::Trsm,
        LapackKind::Getrf,
        LapackKind::Geqrf,
        LapackKind::Orgqr,
        LapackKind::Syevd,
        LapackKind::Gesdd,
        LapackKind::Gesvd,
        LapackKind::Geev,
    ];

    /// The LAPACK routine name without its type letter (`potrf`).
    pub fn name(self) -> &'static str {
        match self {
            LapackKind::Potrf => "potrf",
            LapackKind::Trsm => "trsm",
            LapackKind::Getrf => "getrf",
            LapackKind::Geqrf => "geqrf",
            LapackKind::Orgqr => "orgqr",
            LapackKind::Syevd => "syevd",
            LapackKind::Gesdd => "gesdd",
            LapackKind::Gesvd => "gesvd",
            LapackKind::Geev => "geev",
        }
    }
}

/// The LAPACK custom-call target `target` names (`lapack_sgeqrf_ffi` →
/// `(Geqrf, F32)`): `s` is f32, `d` f64; `c` (c64) and `z` (c128) for
/// potrf, trsm, getrf, geqrf, ungqr (as [`LapackKind::Orgqr`]), heevd (as
/// [`LapackKind::Syevd`]), gesdd, gesvd and geev. Other names give `None`.
pub fn lapack_target(target: &str) -> Option<(LapackKind, crate::ElementType)> {
    use crate::ElementType as T;
    let body = target.strip_prefix("lapack_")?.strip_suffix("_ffi")?;
    let (ty, complex) = match body.as_bytes().first()? {
        b's' => (T::F32, false),
        b'd' => (T::F64, false),
        b'c' => (T::C64, true),
        b'z' => (T::C128, true),
        _ => return None,
    };
    let routine = &body[1..];
    if complex {
        // orgqr is ungqr and syevd heevd there; the other routines keep
        // their names.
        return match routine {
            "potrf" => Some((LapackKind::Potrf, ty)),
            "trsm" => Some((LapackKind::Trsm, ty)),
            "getrf" => Some((LapackKind::Getrf, ty)),
            "geev" => Some((LapackKind::Geev, ty)),
            "geqrf" => Some((LapackKind::Geqrf, ty)),
            "ungqr" => Some((LapackKind::Orgqr, ty)),
            "heevd" => Some((LapackKind::Syevd, ty)),
            "gesdd" => Some((LapackKind::Gesdd, ty)),
            "gesvd" => Some((LapackKind::Gesvd, ty)),
            _ => None,
        };
    }
    let kind = LapackKind::ALL.into_iter().find(|k| routine == k.name())?;
    Some((kind, ty))
}

/// Whether `target` is a LAPACK custom call rxla implements.
pub fn is_lapack_target(target: &str) -> bool {
    lapack_target(target).is_some()
}
