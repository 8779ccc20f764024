//! Attributes of the linear-algebra ops `cholesky` and `triangular-solve`
//! (XLA's `CholeskyOptions` / `TriangularSolveOptions`), kept in their own
//! module so the `Op` enum only names them.

/// `transpose_a=` of `triangular-solve`: which of `a`, `aᵀ` or `aᴴ` the
/// solve uses. For real element types `Adjoint` is `Transpose`.
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
