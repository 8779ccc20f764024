//! rxla's Dot/Conv engine: a BLIS-style f32 GEMM (packed A/B panels, cache blocking, register micro-kernels,
//! fused epilogues, rayon threads), `dot_general` on top of it (`DotPlan`), convolution as implicit GEMM with the
//! im2col gather fused into B packing (`ConvPlan`), f16/bf16 dots converted inside the packing
//! (`DotPlan::run_mixed_raw`), 8-bit integer dots on AVX-512 VNNI (`DotPlan::run_i8_raw`), simple correct f64/integer dots (`dot_generic`), C-ABI entry
//! points for JIT-compiled code (`ffi`), an FMA-peak probe (`peak`) and the synthetic workloads benches use
//! (`workload`).
//!
//! Entry points validate their arguments and return `GemmError`; nothing here panics on bad input.
//! See docs/ARCHITECTURE.md ("Dot/Conv engine") for the design and docs/PERFORMANCE.md for the figures.

mod batch_minor;
mod blocking;
pub mod conv;
pub mod dot;
mod driver;
mod epilogue;
mod error;
pub mod ffi;
mod gather;
mod int8;
mod kernel;
mod mat;
mod mixed;
mod nhwc;
mod pack;
pub mod peak;
mod scratch;
mod small;
pub mod workload;

pub use blocking::{Blocking, CacheSizes};

pub use conv::ConvPlan;
pub use dot::{DotPlan, Scalar, TensorLayout, dot_generic};
pub use epilogue::{Bias, Epilogue, RowFn};
pub use error::{GemmError, Result};
pub use int8::available as int8_available;
pub use kernel::{ISA_ENV, KernelKind};
pub use mixed::ElemKind;

/// The micro-kernel tier the engine runs by default in this process (`RXLA_ISA` or the host's best), by name:
/// `avx512`, `avx2`, `portable` or `cranelift`; an error when `RXLA_ISA` is invalid for this host.
pub fn isa_name() -> Result<&'static str> {
    KernelKind::from_env().map(KernelKind::name)
}

#[cfg(target_arch = "x86_64")]
#[doc(hidden)]
pub use kernel::explore_shapes;
pub use mat::{MatMut, MatRef, Offsets};

use driver::{CTarget, Gemm};
use pack::Operand;

/// How a product is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Worker threads (rayon); 0 = the current rayon pool's size, 1 = the calling thread only.
    pub threads: usize,
    /// The micro-kernel (must be `available()` on this host).
    pub kernel: KernelKind,
    /// Loop sizes; `None` = derived from the kernel's target caches (`CacheSizes::for_kernel`).
    pub blocking: Option<Blocking>,
    /// Allow the unpacked matrix-vector / tiny paths (tests turn this off to exercise the packed driver).
    pub unpacked_paths: bool,
    /// Products with fewer multiply-adds run on one thread (a fork/join costs more than a second core gains
    /// below about 160^3); tests set 0 to exercise the threaded driver on small shapes.
    pub parallel_threshold: usize,
}

impl Default for Options {
    /// One thread, the kernel `RXLA_ISA` selects (else the best of this host, `KernelKind::from_env`; an invalid
    /// `RXLA_ISA` makes every run an error, see `resolve`), cache-derived blocking.
    fn default() -> Self {
        Options {
            threads: 1,
            kernel: KernelKind::from_env().unwrap_or_else(|_| KernelKind::detect()),
            blocking: None,
            unpacked_paths: true,
            parallel_threshold: 1 << 22,
        }
    }
}

impl Options {
    /// `Options::default()` with `threads` threads.
    pub fn with_threads(threads: usize) -> Options {
        Options {
            threads,
            ..Options::default()
        }
    }

    pub(crate) fn resolve(&self, what: &str) -> Result<(kernel::Kernel, Blocking, usize)> {
        // A process whose RXLA_ISA names no tier, or one the CPU lacks, runs nothing (no silent downgrade).
        KernelKind::from_env().map_err(|e| GemmError::new(format!("{what}: {e}")))?;
        if !self.kernel.available() {
            return Err(GemmError::new(format!(
                "{what}: the {:?} micro-kernel is not supported by this CPU",
                self.kernel
            )));
        }
        let blk = self
            .blocking
            .map(|b| Blocking::new(self.kernel, b.mc, b.kc, b.nc))
            .unwrap_or_else(|| {
                Blocking::from_caches(self.kernel, CacheSizes::for_kernel(self.kernel))
            });
        let threads = if self.threads == 0 {
            rayon::current_num_threads()
        } else {
            self.threads
        };
        Ok((self.kernel.kernel(), blk, threads))
    }
}

/// `C = alpha * A * B + beta * C`, then `epi`, for f32 strided views (`beta == 0` does not read C, so C may hold
/// garbage/NaN). Epilogue rows/columns are C's. `A` is `m x k`, `B` is `k x n`, `C` is `m x n`.
pub fn sgemm(
    alpha: f32,
    a: MatRef,
    b: MatRef,
    beta: f32,
    c: MatMut,
    epi: Option<&Epilogue>,
    opts: &Options,
) -> Result<()> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    if b.rows != k || c.rows != m || c.cols != n {
        return Err(GemmError::new(format!(
            "sgemm: shapes do not chain: A {}x{}, B {}x{}, C {}x{}",
            a.rows, a.cols, b.rows, b.cols, c.rows, c.cols
        )));
    }
    if let Some(e) = epi {
        e.check(m, n, "sgemm")?;
    }
    let ao = Operand {
        ptr: a.ptr,
        rows: Offsets::Strided(a.rs),
        cols: Offsets::Strided(a.cs),
    };
    let bo = Operand {
        ptr: b.ptr,
        rows: Offsets::Strided(b.rs),
        cols: Offsets::Strided(b.cs),
    };
    let (rows, cols) = (Offsets::Strided(c.rs), Offsets::Strided(c.cs));
    let g = Gemm {
        m,
        n,
        k,
        a: &ao,
        b: &bo,
        c: CTarget {
            ptr: c.ptr,
            rows: &rows,
            cols: &cols,
        },
        alpha,
        beta,
        epi,
        row_base: 0,
        bias_row_base: 0,
        col_base: 0,
    };
    run_operands(&g, opts, "sgemm")
}

/// Runs a validated operand GEMM: unpacked paths when they apply, else the packed driver.
pub(crate) fn run_operands(g: &Gemm<Operand, Operand>, opts: &Options, what: &str) -> Result<()> {
    let (kernel, blk, threads) = opts.resolve(what)?;
    if opts.unpacked_paths && small::try_unpacked(g) {
        return Ok(());
    }
    driver::run(g, kernel, blk, threads, opts.parallel_threshold);
    Ok(())
}
