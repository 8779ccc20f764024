//! Cache blocking: the BLIS loop sizes `kc`, `mc`, `nc` derived from the cache sizes and the micro-kernel's tile.
//! Pure arithmetic; must not probe the hardware. The caches assumed are the target machine's per tier
//! (`CacheSizes::for_kernel`): AMD Zen 5 (48 KiB L1d, 1 MiB L2) for the AVX-512 kernel, Zen 3 (32 KiB, 512 KiB)
//! for the others, whose figures were tuned there.
//!
//! - `kc`: one `kc x NR` B micro-panel plus one `MR x kc` A micro-panel stay in L1 (half of L1 for B, the rest for
//!   A and C): `kc = L1 / 2 / (NR * 4)` → 256 for the 6x16 kernel with a 32 KiB L1.
//! - `mc`: the packed `mc x kc` A block fills half of L2 (the other half streams B panels and C):
//!   `mc = L2 / 2 / (kc * 4)` rounded down to a multiple of `MR` → 252 with a 512 KiB L2.
//! - `nc`: the packed `kc x nc` B block takes a quarter of L3 (shared by the cores), capped at 4080 and rounded
//!   down to a multiple of `NR` → 4080 with a 32 MiB L3.
//!
//! The 14x32 AVX-512 kernel on Zen 5: `kc = 48 KiB / 2 / 128` = 192, `mc = 512 KiB / 768` → 672 (48 tiles),
//! `nc` → 4064.

use crate::kernel::KernelKind;

/// Data-cache sizes in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheSizes {
    pub l1d: usize,
    pub l2: usize,
    pub l3: usize,
}

impl CacheSizes {
    /// AMD Zen 5: 48 KiB L1d, 1 MiB L2 per core, 32 MiB L3.
    pub fn zen5() -> CacheSizes {
        CacheSizes {
            l1d: 48 << 10,
            l2: 1 << 20,
            l3: 32 << 20,
        }
    }

    /// The caches the default blocking of `kernel` is derived from: Zen 5 for `Avx512`, else `default()` (Zen 3).
    pub fn for_kernel(kernel: KernelKind) -> CacheSizes {
        match kernel {
            KernelKind::Avx512 => CacheSizes::zen5(),
            _ => CacheSizes::default(),
        }
    }
}

impl Default for CacheSizes {
    /// AMD Zen 3: 32 KiB L1d, 512 KiB L2 per core, 32 MiB L3.
    fn default() -> Self {
        CacheSizes {
            l1d: 32 << 10,
            l2: 512 << 10,
            l3: 32 << 20,
        }
    }
}

/// BLIS loop sizes. Invariants (enforced by `Blocking::new`): all positive, `mc % MR == 0`, `nc % NR == 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blocking {
    pub mc: usize,
    pub kc: usize,
    pub nc: usize,
}

impl Blocking {
    /// Explicit sizes, rounded to the kernel's tile (at least one tile each).
    pub fn new(kernel: KernelKind, mc: usize, kc: usize, nc: usize) -> Blocking {
        let (mr, nr) = (kernel.mr(), kernel.nr());
        Blocking {
            mc: (mc / mr).max(1) * mr,
            kc: kc.max(1),
            nc: (nc / nr).max(1) * nr,
        }
    }

    /// The sizes derived from `caches` for `kernel` (see the module doc).
    pub fn from_caches(kernel: KernelKind, caches: CacheSizes) -> Blocking {
        let (mr, nr) = (kernel.mr(), kernel.nr());
        let kc = (caches.l1d / 2 / (nr * 4)).clamp(16, 1024);
        let mc = (caches.l2 / 2 / (kc * 4)).clamp(mr, 1 << 12);
        let nc = (caches.l3 / 4 / (kc * 4)).clamp(nr, 4080);
        Blocking::new(kernel, mc, kc, nc)
    }
}
