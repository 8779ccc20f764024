//! The register micro-kernels behind one interface. A micro-kernel computes one `MR x NR` tile
//! `C = alpha * A_panel * B_panel + beta * C` from packed panels (A: `k` groups of `MR` values, B: `k` groups of
//! `NR` values); `beta == 0` means C is not read. Kernels must not allocate, branch on data, or touch memory outside
//! the tile and the panels.

mod avx2;
mod clif;
mod portable;

/// `unsafe fn(k, a_panel, b_panel, c, rsc, csc, alpha, beta)`.
pub(crate) type KernelFn =
    unsafe fn(usize, *const f32, *const f32, *mut f32, isize, isize, f32, f32);

/// Which micro-kernel computes the tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelKind {
    /// 6x16 AVX2+FMA kernel (12 YMM accumulators), Rust `std::arch` intrinsics; x86_64 with avx2+fma only.
    Avx2Fma,
    /// 6x8 portable kernel (plain Rust the compiler vectorises to 128-bit lanes), any host.
    Portable,
    /// 6x8 Cranelift-generated F32X4+FMA kernel (ISA flags from cranelift-native), compiled on first use.
    Cranelift,
}

impl KernelKind {
    /// The fastest kernel this host supports.
    pub fn detect() -> KernelKind {
        if KernelKind::Avx2Fma.available() {
            KernelKind::Avx2Fma
        } else {
            KernelKind::Portable
        }
    }

    /// Whether this host can run the kernel.
    pub fn available(self) -> bool {
        match self {
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
            KernelKind::Avx2Fma => Kernel {
                mr: avx2::MR,
                nr: avx2::NR,
                f: avx2::kernel,
                #[cfg(target_arch = "x86_64")]
                edge4: Some(avx2::kernel4),
                #[cfg(not(target_arch = "x86_64"))]
                edge4: None,
            },
            KernelKind::Portable => Kernel {
                mr: portable::MR,
                nr: portable::NR,
                f: portable::kernel,
                edge4: None,
            },
            KernelKind::Cranelift => Kernel {
                mr: clif::MR,
                nr: clif::NR,
                f: clif::kernel,
                edge4: None,
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
}

/// Largest `MR * NR` over all kernels (size of on-stack tile buffers).
pub(crate) const MAX_TILE: usize = 96;
