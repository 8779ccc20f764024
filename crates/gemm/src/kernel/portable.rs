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
    // One array per row (a 2-D array defeats the vectoriser and ends up on the stack).
    let (mut r0, mut r1, mut r2) = ([0f32; NR], [0f32; NR], [0f32; NR]);
    let (mut r3, mut r4, mut r5) = ([0f32; NR], [0f32; NR], [0f32; NR]);
    for p in 0..k {
        // SAFETY: the caller guarantees the panel lengths (k*MR and k*NR floats).
        let (ap, bp) = unsafe {
            (
                *(a.add(p * MR) as *const [f32; MR]),
                *(b.add(p * NR) as *const [f32; NR]),
            )
        };
        for j in 0..NR {
            r0[j] += ap[0] * bp[j];
            r1[j] += ap[1] * bp[j];
            r2[j] += ap[2] * bp[j];
            r3[j] += ap[3] * bp[j];
            r4[j] += ap[4] * bp[j];
            r5[j] += ap[5] * bp[j];
        }
    }
    let acc = [r0, r1, r2, r3, r4, r5];
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
