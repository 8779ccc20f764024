//! The portable 6x8 micro-kernel: plain Rust over `[f32; 4]` lane groups, which the compiler keeps in 128-bit
//! registers (12 accumulators, two B vectors, one broadcast A value per row, like the Cranelift F32X4 design). Separate multiply and add (no fused
//! multiply-add: `f32::mul_add` would be a libm call without the `fma` target feature). Must stay free of
//! target-specific code.

pub(crate) const MR: usize = 6;
pub(crate) const NR: usize = 8;

/// Four lanes; LLVM keeps each one in an xmm register (SSE2 baseline).
type V = [f32; 4];

/// `acc + x * b` lane-wise (a multiply and an add: no FMA in the baseline).
#[inline(always)]
fn madd(acc: V, x: f32, b: V) -> V {
    [
        acc[0] + x * b[0],
        acc[1] + x * b[1],
        acc[2] + x * b[2],
        acc[3] + x * b[3],
    ]
}

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
    // Twelve named accumulators (an array of them is kept in memory by LLVM, a 2-D array is not vectorised).
    let z = [0f32; 4];
    let (mut c00, mut c01, mut c10, mut c11, mut c20, mut c21) = (z, z, z, z, z, z);
    let (mut c30, mut c31, mut c40, mut c41, mut c50, mut c51) = (z, z, z, z, z, z);
    for p in 0..k {
        // SAFETY: the caller guarantees the panel lengths (k*MR and k*NR floats).
        let (ap, b0, b1) = unsafe {
            (
                *(a.add(p * MR) as *const [f32; MR]),
                *(b.add(p * NR) as *const V),
                *(b.add(p * NR + 4) as *const V),
            )
        };
        c00 = madd(c00, ap[0], b0);
        c01 = madd(c01, ap[0], b1);
        c10 = madd(c10, ap[1], b0);
        c11 = madd(c11, ap[1], b1);
        c20 = madd(c20, ap[2], b0);
        c21 = madd(c21, ap[2], b1);
        c30 = madd(c30, ap[3], b0);
        c31 = madd(c31, ap[3], b1);
        c40 = madd(c40, ap[4], b0);
        c41 = madd(c41, ap[4], b1);
        c50 = madd(c50, ap[5], b0);
        c51 = madd(c51, ap[5], b1);
    }
    let rows = [
        (c00, c01),
        (c10, c11),
        (c20, c21),
        (c30, c31),
        (c40, c41),
        (c50, c51),
    ];
    for (i, (lo, hi)) in rows.iter().enumerate() {
        let mut v = [0f32; NR];
        v[..4].copy_from_slice(lo);
        v[4..].copy_from_slice(hi);
        if csc == 1 {
            // SAFETY: the tile row is NR contiguous floats inside C (caller's contract).
            let row = unsafe { std::slice::from_raw_parts_mut(c.offset(i as isize * rsc), NR) };
            if beta == 0.0 {
                row.iter_mut().zip(v).for_each(|(o, x)| *o = alpha * x);
            } else {
                row.iter_mut()
                    .zip(v)
                    .for_each(|(o, x)| *o = alpha * x + beta * *o);
            }
            continue;
        }
        for (j, &x) in v.iter().enumerate() {
            // SAFETY: inside the tile by the caller's contract.
            unsafe {
                let p = c.offset(i as isize * rsc + j as isize * csc);
                *p = if beta == 0.0 {
                    alpha * x
                } else {
                    alpha * x + beta * *p
                };
            }
        }
    }
}
