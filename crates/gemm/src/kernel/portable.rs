//! The portable 6x8 micro-kernel: plain Rust over fixed-size arrays, which the compiler turns into two 128-bit
//! vectors per row (12 accumulators, like the Cranelift F32X4 design). Separate multiply and add (no fused
//! multiply-add: `f32::mul_add` would be a libm call without the `fma` target feature). Must stay free of
//! target-specific code.

pub(crate) const MR: usize = 6;
pub(crate) const NR: usize = 8;

/// See `KernelFn`.
///
/// # Safety
/// `a` holds `k * MR` floats, `b` holds `k * NR`, and the `MR x NR` tile at `c` with strides `(rsc, csc)` is
/// writable (readable too when `beta != 0`).
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn kernel(
    k: usize,
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    rsc: isize,
    csc: isize,
    alpha: f32,
    beta: f32,
) {
    let mut acc = [[0f32; NR]; MR];
    // SAFETY: the caller guarantees the panel lengths.
    let (a, b) = unsafe {
        (
            std::slice::from_raw_parts(a, k * MR),
            std::slice::from_raw_parts(b, k * NR),
        )
    };
    for (ap, bp) in a.chunks_exact(MR).zip(b.chunks_exact(NR)) {
        let bv: [f32; NR] = bp.try_into().unwrap_or([0.0; NR]);
        for (row, &av) in acc.iter_mut().zip(ap) {
            for (x, &y) in row.iter_mut().zip(&bv) {
                *x += av * y;
            }
        }
    }
    for (i, row) in acc.iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            // SAFETY: inside the tile by the caller's contract.
            unsafe {
                let p = c.offset(i as isize * rsc + j as isize * csc);
                *p = if beta == 0.0 {
                    alpha * v
                } else {
                    alpha * v + beta * *p
                };
            }
        }
    }
}
