//! The register micro-kernels behind one interface. A micro-kernel computes one `MR x NR` tile
//! `C = alpha * A_panel * B_panel + beta * C` from packed panels (A: `k` groups of `MR` values, B: `k` groups of
//! `NR` values); `beta == 0` means C is not read. Kernels must not allocate, branch on data, or touch memory outside
//! the tile and the panels.
//!
//! Tiers, fastest first (`KernelKind::detect`): `Avx512` (14x32, avx512f), `Avx2Fma` (6x16, avx2+fma),
//! `Portable` (6x8, any host); `Cranelift` (6x8 F32X4) is only chosen explicitly. `RXLA_ISA` forces a tier
//! (`KernelKind::from_env`), an error when the host lacks it.

mod avx2;
mod avx512;
mod clif;
mod portable;

use crate::error::{GemmError, Result};
use std::sync::OnceLock;

#[cfg(target_arch = "x86_64")]
#[doc(hidden)]
pub use avx512::explore_shapes;

/// `unsafe fn(k, a_panel, b_panel, c, rsc, csc, alpha, beta)`.
pub(crate) type KernelFn =
    unsafe fn(usize, *const f32, *const f32, *mut f32, isize, isize, f32, f32);

/// `unsafe fn(k, a_panel, b_panel, c, rsc, alpha, beta, rows, cols)`: the first `rows x cols` of a tile, C with
/// unit column stride (nothing outside them is read or written).
pub(crate) type EdgeFn =
    unsafe fn(usize, *const f32, *const f32, *mut f32, isize, f32, f32, usize, usize);

/// `unsafe fn(k, a, lda, b_panel, c, rsc, csc, alpha, beta)`: a full tile with A read in place (row `i` at
/// `a + i * lda`, contraction values contiguous).
pub(crate) type DirectFn =
    unsafe fn(usize, *const f32, usize, *const f32, *mut f32, isize, isize, f32, f32);

/// `unsafe fn(k, a, lda, b_panel, c, rsc, alpha, beta, rows, cols)`: the first `rows x cols` of a tile with A
/// read in place, C with unit column stride.
pub(crate) type DirectEdgeFn =
    unsafe fn(usize, *const f32, usize, *const f32, *mut f32, isize, f32, f32, usize, usize);

/// `unsafe fn(k, a_panel, b, ldb, c, rsc, alpha, beta, rows, cols)`: the first `rows x cols` of a tile from a
/// packed A panel and B read in place (row `p` at `b + p * ldb`, columns contiguous; nothing past `cols` read),
/// C with unit column stride.
pub(crate) type DirectBFn =
    unsafe fn(usize, *const f32, *const f32, usize, *mut f32, isize, f32, f32, usize, usize);

/// Which micro-kernel computes the tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelKind {
    /// 14x32 AVX-512 kernel (28 ZMM accumulators) with a masked edge kernel, Rust `std::arch` intrinsics;
    /// x86_64 with avx512f only.
    Avx512,
    /// 6x16 AVX2+FMA kernel (12 YMM accumulators), Rust `std::arch` intrinsics; x86_64 with avx2+fma only.
    Avx2Fma,
    /// 6x8 portable kernel (plain Rust the compiler vectorises to 128-bit lanes), any host.
    Portable,
    /// 6x8 Cranelift-generated F32X4+FMA kernel (ISA flags from cranelift-native), compiled on first use.
    Cranelift,
}

/// The environment variable that forces a tier (`avx512`, `avx2`, `portable`, `cranelift`).
pub const ISA_ENV: &str = "RXLA_ISA";

impl KernelKind {
    /// Every kernel, fastest tier first.
    pub const ALL: [KernelKind; 4] = [
        KernelKind::Avx512,
        KernelKind::Avx2Fma,
        KernelKind::Portable,
        KernelKind::Cranelift,
    ];

    /// The fastest kernel this host supports: AVX-512, else AVX2+FMA, else portable (ignores `RXLA_ISA`).
    pub fn detect() -> KernelKind {
        if KernelKind::Avx512.available() {
            KernelKind::Avx512
        } else if KernelKind::Avx2Fma.available() {
            KernelKind::Avx2Fma
        } else {
            KernelKind::Portable
        }
    }

    /// The tier `RXLA_ISA` selects (`detect()` when unset or empty), read once per process. An error — never a
    /// silent downgrade — when the value names no tier or a tier this host cannot run; the engine's entry points
    /// then refuse to run with this message.
    pub fn from_env() -> Result<KernelKind> {
        static CHOICE: OnceLock<Result<KernelKind>> = OnceLock::new();
        CHOICE
            .get_or_init(|| KernelKind::from_isa(std::env::var(ISA_ENV).ok().as_deref()))
            .clone()
    }

    /// What `from_env` returns for the value `v` of `RXLA_ISA` (`None`: unset).
    pub fn from_isa(v: Option<&str>) -> Result<KernelKind> {
        let v = v.map(str::trim).unwrap_or("");
        if v.is_empty() {
            return Ok(KernelKind::detect());
        }
        let kind = KernelKind::from_name(v).ok_or_else(|| {
            GemmError::new(format!(
                "{ISA_ENV}={v}: unknown tier (expected avx512, avx2, portable or cranelift)"
            ))
        })?;
        if !kind.available() {
            let have: Vec<&str> = KernelKind::ALL
                .iter()
                .filter(|k| k.available())
                .map(|k| k.name())
                .collect();
            return Err(GemmError::new(format!(
                "{ISA_ENV}={v}: this CPU cannot run the {} tier ({}); available: {}",
                kind.name(),
                kind.requirement(),
                have.join(", ")
            )));
        }
        Ok(kind)
    }

    /// The tier's name as `RXLA_ISA` spells it: `avx512`, `avx2`, `portable`, `cranelift`.
    pub fn name(self) -> &'static str {
        match self {
            KernelKind::Avx512 => "avx512",
            KernelKind::Avx2Fma => "avx2",
            KernelKind::Portable => "portable",
            KernelKind::Cranelift => "cranelift",
        }
    }

    /// The kernel `name()` names (ASCII case-insensitive; `avx2fma`/`avx512f` accepted too).
    pub fn from_name(name: &str) -> Option<KernelKind> {
        match name.to_ascii_lowercase().as_str() {
            "avx512" | "avx512f" | "avx-512" => Some(KernelKind::Avx512),
            "avx2" | "avx2fma" | "avx2+fma" => Some(KernelKind::Avx2Fma),
            "portable" => Some(KernelKind::Portable),
            "cranelift" => Some(KernelKind::Cranelift),
            _ => None,
        }
    }

    /// What the host needs for this kernel (for error messages).
    fn requirement(self) -> &'static str {
        match self {
            KernelKind::Avx512 => "x86_64 with avx512f",
            KernelKind::Avx2Fma => "x86_64 with avx2 and fma",
            KernelKind::Portable => "any CPU",
            KernelKind::Cranelift => "a host Cranelift compiles for",
        }
    }

    /// Whether this host can run the kernel.
    pub fn available(self) -> bool {
        match self {
            KernelKind::Avx512 => avx512::available(),
            KernelKind::Avx2Fma => avx2::available(),
            KernelKind::Portable => true,
            KernelKind::Cranelift => clif::available(),
        }
    }

    /// Rows of the register tile.
    pub fn mr(self) -> usize {
        self.kernel().mr
    }

    /// Columns of the register tile.
    pub fn nr(self) -> usize {
        self.kernel().nr
    }

    pub(crate) fn kernel(self) -> Kernel {
        match self {
            KernelKind::Avx512 => Kernel {
                mr: avx512::MR,
                nr: avx512::NR,
                f: avx512::kernel,
                edge4: None,
                #[cfg(target_arch = "x86_64")]
                edge: Some(avx512::edge),
                #[cfg(not(target_arch = "x86_64"))]
                edge: None,
                #[cfg(target_arch = "x86_64")]
                direct: Some((avx512::direct, avx512::direct_edge)),
                #[cfg(not(target_arch = "x86_64"))]
                direct: None,
                #[cfg(target_arch = "x86_64")]
                direct_b: Some(avx512::direct_b),
                #[cfg(not(target_arch = "x86_64"))]
                direct_b: None,
            },
            KernelKind::Avx2Fma => Kernel {
                mr: avx2::MR,
                nr: avx2::NR,
                f: avx2::kernel,
                #[cfg(target_arch = "x86_64")]
                edge4: Some(avx2::kernel4),
                #[cfg(not(target_arch = "x86_64"))]
                edge4: None,
                edge: None,
                direct: None,
                direct_b: None,
            },
            KernelKind::Portable => Kernel {
                mr: portable::MR,
                nr: portable::NR,
                f: portable::kernel,
                edge4: None,
                edge: None,
                direct: None,
                direct_b: None,
            },
            KernelKind::Cranelift => Kernel {
                mr: clif::MR,
                nr: clif::NR,
                f: clif::kernel,
                edge4: None,
                edge: None,
                direct: None,
                direct_b: None,
            },
        }
    }
}

/// A resolved micro-kernel: tile shape and entry point.
#[derive(Clone, Copy)]
pub(crate) struct Kernel {
    pub mr: usize,
    pub nr: usize,
    pub f: KernelFn,
    /// A variant for row tiles of at most 4 rows: reads the same `MR`-row
    /// packed A panel, writes 4 rows of C (the driver's last row tile when
    /// `M mod MR` is 1..4).
    pub edge4: Option<KernelFn>,
    /// A kernel for any partial tile (fewer rows and/or columns) written straight into a C with unit column
    /// stride (masked stores), instead of a tile buffer.
    pub edge: Option<EdgeFn>,
    /// Full and partial tiles reading A in place (no A packing), where the tier has them.
    pub direct: Option<(DirectFn, DirectEdgeFn)>,
    /// Any tile from a packed A panel and B read in place (no B packing), where the tier has it.
    pub direct_b: Option<DirectBFn>,
}

/// Largest `MR * NR` over all kernels (size of on-stack tile buffers).
pub(crate) const MAX_TILE: usize = avx512::MR * avx512::NR;

const _: () = assert!(
    MAX_TILE >= avx2::MR * avx2::NR
        && MAX_TILE >= portable::MR * portable::NR
        && MAX_TILE >= clif::MR * clif::NR
);
