//! Wide block routines: f32 transcendentals and arithmetic over a block of
//! values, in 512-bit vectors (`std::arch` AVX-512, chosen at run time),
//! called by generated kernels (`codegen/kernel.rs`, blocked rows) where
//! Cranelift's 128-bit code would be compute-bound.
//!
//! Each routine is the same algorithm, operation for operation, as the
//! inline F32X4 code in `codegen/approx/exp.rs` (same constants, the same
//! fused multiply-adds in the same order, the same per-lane choice of the
//! fast or complete path), so results are bit-identical to it and inherit
//! its error bounds against the evaluator. Must not be called unless
//! [`available`] said so; reads and writes exactly `n` values.

pub mod compile;
pub mod program;

/// Whether this host runs the wide routines (AVX-512 F); `RXLA_ISA=avx2`
/// or `portable` turns them off.
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let forced_narrow = matches!(
            std::env::var("RXLA_ISA").as_deref(),
            Ok("avx2") | Ok("portable") | Ok("cranelift")
        );
        !forced_narrow && std::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `dst[i] = exp(src[i])` for `i < n`. Registered as `rxla_block_exp`.
///
/// # Safety
/// `src` points at `n` readable f32 values and `dst` at `n` writable ones
/// (the same or disjoint); [`available`] returned true.
pub unsafe extern "C" fn block_exp(dst: *mut f32, src: *const f32, n: i64) -> i64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: forwarded contract.
    unsafe {
        avx512::run_exp(dst, src, n)
    };
    n
}

/// `dst[i] = tanh(src[i])` for `i < n`. Registered as `rxla_block_tanh`.
///
/// # Safety
/// As for [`block_exp`].
pub unsafe extern "C" fn block_tanh(dst: *mut f32, src: *const f32, n: i64) -> i64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: forwarded contract.
    unsafe {
        avx512::run_tanh(dst, src, n)
    };
    n
}

/// `dst[i] = logistic(src[i])` for `i < n`: `1 / (1 + exp(-x))` with the
/// exponential in f64 (the inline code's `approx::exp::logistic`).
/// Registered as `rxla_block_logistic`.
///
/// # Safety
/// As for [`block_exp`].
pub unsafe extern "C" fn block_logistic(dst: *mut f32, src: *const f32, n: i64) -> i64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: forwarded contract.
    unsafe {
        avx512::run_logistic(dst, src, n)
    };
    n
}

/// `dst[i] = erf(src[i])` for `i < n` (the inline code's
/// `approx::erf::erf`). Registered as `rxla_block_erf`.
///
/// # Safety
/// As for [`block_exp`].
pub unsafe extern "C" fn block_erf(dst: *mut f32, src: *const f32, n: i64) -> i64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: forwarded contract.
    unsafe {
        avx512::run_erf(dst, src, n)
    };
    n
}

/// `dst[i] = log1p(src[i])` for `i < n` (the inline code's
/// `approx::log::log1p`). Registered as `rxla_block_log1p`.
///
/// # Safety
/// As for [`block_exp`].
pub unsafe extern "C" fn block_log1p(dst: *mut f32, src: *const f32, n: i64) -> i64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: forwarded contract.
    unsafe {
        avx512::run_log1p(dst, src, n)
    };
    n
}

/// `dst[i] = expm1(src[i])` for `i < n` (the inline code's
/// `approx::exp::expm1`). Registered as `rxla_block_expm1`.
///
/// # Safety
/// As for [`block_exp`].
pub unsafe extern "C" fn block_expm1(dst: *mut f32, src: *const f32, n: i64) -> i64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: forwarded contract.
    unsafe {
        avx512::run_expm1(dst, src, n)
    };
    n
}

/// `dst[i] = cbrt(src[i])` for `i < n` (the inline code's
/// `approx::pow::cbrt`: f64 ln and exp in eight lanes, the same bits).
/// Registered as `rxla_block_cbrt`.
///
/// # Safety
/// As for [`block_exp`].
pub unsafe extern "C" fn block_cbrt(dst: *mut f32, src: *const f32, n: i64) -> i64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: forwarded contract.
    unsafe {
        avx512::run_cbrt(dst, src, n)
    };
    n
}

/// `dst[i] = ln(src[i])` for `i < n` (the inline code's
/// `approx::log::log`). Registered as `rxla_block_log`.
///
/// # Safety
/// As for [`block_exp`].
pub unsafe extern "C" fn block_log(dst: *mut f32, src: *const f32, n: i64) -> i64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: forwarded contract.
    unsafe {
        avx512::run_log(dst, src, n)
    };
    n
}

/// `dst[i] = a[f(i, sa)] ∘ b[f(i, sb)]` for `i < n`, `∘` one IEEE
/// operation (so bit-identical to the JIT's inline F32X4 code), 16 lanes at
/// a time; a step of 0 reads one value for the whole block (`f = 0`), 1
/// reads a row (`f = i`), and `p ≥ 2` repeats the first `p` values
/// (`f = i mod p`: a per-column value across a block of several short
/// rows). Division gains most: Zen 5 divides a zmm register in about the
/// time an xmm one takes. `dst` may be `a` or `b`.
///
/// # Safety
/// `a` and `b` point at `n` readable f32 values (one when their step is 0,
/// `min(n, p)` when it is `p ≥ 2`) and `dst` at `n` writable ones (each
/// either disjoint from or equal to the others); [`available`] returned
/// true.
macro_rules! binary_routine {
    ($(#[$doc:meta])* $name:ident, $run:ident) => {
        $(#[$doc])*
        /// See the safety contract of the binary routines above.
        ///
        /// # Safety
        /// As documented above.
        pub unsafe extern "C" fn $name(
            dst: *mut f32,
            a: *const f32,
            sa: i64,
            b: *const f32,
            sb: i64,
            n: i64,
        ) -> i64 {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: forwarded contract.
            unsafe {
                avx512::$run(dst, a, sa.max(0) as usize, b, sb.max(0) as usize, n)
            };
            n
        }
    };
}
binary_routine!(
    /// Registered as `rxla_block_add`.
    block_add,
    run_add
);
binary_routine!(
    /// Registered as `rxla_block_sub`.
    block_sub,
    run_sub
);
binary_routine!(
    /// Registered as `rxla_block_mul`.
    block_mul,
    run_mul
);
binary_routine!(
    /// Registered as `rxla_block_div`.
    block_div,
    run_div
);
binary_routine!(
    /// `pow(x, y)` as `approx::pow` computes it (f64 ln and exp, the IEEE
    /// special cases), eight f64 lanes at a time: the same operations in
    /// the same order, so the same bits. Registered as `rxla_block_pow`.
    block_pow,
    run_pow
);

/// Adds `p[0..n]` (`n` a multiple of 16) into the 16 partial sums
/// `acc[0..16]`, element `j` into lane `j mod 16`, in order: exactly what
/// the JIT's vectorized sum does with its four F32X4 accumulators (lane
/// `4k + l` is accumulator `k`'s lane `l`), in 512-bit loads with a
/// prefetch ahead (a row reduction streaming from memory). Registered as
/// `rxla_block_sum`.
///
/// # Safety
/// `p` points at `n` readable f32 values, `acc` at 16 writable ones;
/// [`available`] returned true.
pub unsafe extern "C" fn block_sum(p: *const f32, n: i64, acc: *mut f32) -> i64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: forwarded contract.
    unsafe {
        avx512::run_sum(p, n, acc)
    };
    n
}

/// The max (`max == 1`) or min of `p[0..n]` (`n` a multiple of 16) into the
/// 16 partial results `acc[0..16]` as the JIT's fast vectorized max/min
/// does it (lane `j mod 16`, `v > acc ? v : acc` for max, `v < acc ? v :
/// acc` for min: a NaN element is skipped), and `-1` into the four lanes
/// of `nan` when some element was NaN (the JIT then redoes the row in the
/// evaluator's order). Registered as `rxla_block_maxmin`.
///
/// # Safety
/// `p` points at `n` readable f32 values, `acc` at 16 and `nan` at 4
/// writable ones; [`available`] returned true.
pub unsafe extern "C" fn block_maxmin(
    p: *const f32,
    n: i64,
    acc: *mut f32,
    nan: *mut i32,
    max: i64,
) -> i64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: forwarded contract.
    unsafe {
        avx512::run_maxmin(p, n, acc, nan, max != 0)
    };
    n
}

#[cfg(target_arch = "x86_64")]
pub(super) mod avx512 {
    use std::arch::x86_64::*;

    use crate::codegen::approx::exp::{
        EXP_FAST_LIMIT, EXP_FAST_POLY, EXP_FULL_POLY, EXPM1_H, ROUND_MAGIC, ROUND_MAGIC_BIASED,
    };
    const LN2_HI: f32 = -0.693_359_4;
    const LN2_LO: f32 = 2.121_944_4e-4;

    /// `dst[i] = $f(src[i])` for `i < n`: whole vectors of 16, the tail
    /// masked (lanes are independent). A macro, not a function pointer, so
    /// `$f` is inlined into the loop.
    macro_rules! block_loop {
        ($name:ident, $f:ident) => {
            /// # Safety
            /// `src` holds `n` readable and `dst` `n` writable values (the
            /// same or disjoint); the host has avx512f.
            #[target_feature(enable = "avx512f")]
            pub unsafe fn $name(dst: *mut f32, src: *const f32, n: i64) {
                let n = n.max(0) as usize;
                let mut i = 0;
                // SAFETY (whole body): every access is within [0, n); the
                // tail's loads and stores are masked.
                unsafe {
                    while i + 16 <= n {
                        let x = _mm512_loadu_ps(src.add(i));
                        _mm512_storeu_ps(dst.add(i), $f(x));
                        i += 16;
                    }
                    if i < n {
                        let k: __mmask16 = ((1u32 << (n - i)) - 1) as __mmask16;
                        let x = _mm512_maskz_loadu_ps(k, src.add(i));
                        _mm512_mask_storeu_ps(dst.add(i), k, $f(x));
                    }
                }
            }
        };
    }
    block_loop!(run_exp, exp16);

    /// `dst[i] = a[i] ∘ b[i]` with step-0 operands broadcast and step-`p`
    /// ones periodic (see `block_div`); the tail masked (`1.0` in the
    /// masked-off lanes, never stored).
    macro_rules! binary_loop {
        ($name:ident, $op:ident) => {
            /// # Safety
            /// As for the binary routines (`block_div`); the host has avx512f.
            #[target_feature(enable = "avx512f")]
            pub unsafe fn $name(
                dst: *mut f32,
                a: *const f32,
                a_step: usize,
                b: *const f32,
                b_step: usize,
                n: i64,
            ) {
                let n = n.max(0) as usize;
                // SAFETY (whole body): every access is within [0, n) of the
                // arrays (element 0 of a step-0 one, [0, p) of a periodic
                // one); the tails are masked.
                unsafe {
                    // Lanes `o..o + 16` of an operand (masked by `k`),
                    // `o` its offset for output `i`.
                    let load = |p: *const f32, step: usize, o: usize, k: __mmask16| {
                        if step == 0 {
                            _mm512_set1_ps(*p)
                        } else if k == !0 {
                            _mm512_loadu_ps(p.add(o))
                        } else {
                            _mm512_mask_loadu_ps(_mm512_set1_ps(1.0), k, p.add(o))
                        }
                    };
                    let whole = |step: usize| step <= 1 || step % 16 == 0;
                    if !(whole(a_step) && whole(b_step)) {
                        // A period that splits vectors: element by element.
                        let at = |p: *const f32, step: usize, i: usize| match step {
                            0 => *p,
                            1 => *p.add(i),
                            s => *p.add(i % s),
                        };
                        for i in 0..n {
                            let x = _mm512_set1_ps(at(a, a_step, i));
                            let y = _mm512_set1_ps(at(b, b_step, i));
                            *dst.add(i) = _mm512_cvtss_f32($op(x, y));
                        }
                        return;
                    }
                    if a_step <= 1 && b_step <= 1 {
                        // Rows and single values: offsets are `i` itself.
                        let mut i = 0usize;
                        while i + 16 <= n {
                            let q = $op(load(a, a_step, i, !0), load(b, b_step, i, !0));
                            _mm512_storeu_ps(dst.add(i), q);
                            i += 16;
                        }
                        if i < n {
                            let k: __mmask16 = ((1u32 << (n - i)) - 1) as __mmask16;
                            let q = $op(load(a, a_step, i, k), load(b, b_step, i, k));
                            _mm512_mask_storeu_ps(dst.add(i), k, q);
                        }
                        return;
                    }
                    // Offsets into a periodic operand wrap at its period.
                    let next = |o: usize, step: usize| {
                        let o = o + 16;
                        if step > 1 && o == step { 0 } else { o }
                    };
                    let (mut oa, mut ob, mut i) = (0usize, 0usize, 0usize);
                    while i + 16 <= n {
                        let q = $op(load(a, a_step, oa, !0), load(b, b_step, ob, !0));
                        _mm512_storeu_ps(dst.add(i), q);
                        oa = next(oa, a_step);
                        ob = next(ob, b_step);
                        i += 16;
                    }
                    if i < n {
                        let k: __mmask16 = ((1u32 << (n - i)) - 1) as __mmask16;
                        let q = $op(load(a, a_step, oa, k), load(b, b_step, ob, k));
                        _mm512_mask_storeu_ps(dst.add(i), k, q);
                    }
                }
            }
        };
    }
    binary_loop!(run_add, _mm512_add_ps);
    binary_loop!(run_sub, _mm512_sub_ps);
    binary_loop!(run_mul, _mm512_mul_ps);
    binary_loop!(run_div, _mm512_div_ps);
    binary_loop!(run_pow, pow16);

    /// `approx::pow::ln_d` on eight f64 lanes.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn ln8(a: __m512d) -> __m512d {
        let cl = |v: u64| _mm512_set1_epi64(v as i64);
        let ib = _mm512_castpd_si512(a);
        let ix = _mm512_add_epi64(ib, cl(0x3ff0_0000_0000_0000 - 0x3fe6_a09e_667f_3bcd));
        let e = _mm512_srli_epi64::<52>(ix);
        let m = _mm512_and_si512(ix, cl(0x000f_ffff_ffff_ffff));
        let m = _mm512_castsi512_pd(_mm512_add_epi64(m, cl(0x3fe6_a09e_667f_3bcd)));
        let one = _mm512_set1_pd(1.0);
        let f = _mm512_sub_pd(m, one);
        let mp1 = _mm512_add_pd(m, one);
        let s = _mm512_div_pd(f, mp1);
        let z = _mm512_mul_pd(s, s);
        let mut p = _mm512_set1_pd(2.0 / 13.0);
        for k in [2.0 / 11.0, 2.0 / 9.0, 2.0 / 7.0, 2.0 / 5.0, 2.0 / 3.0, 2.0] {
            p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(k));
        }
        let lm = _mm512_mul_pd(s, p);
        // `small_int_to_f64`: the exponent field as an exact f64.
        let ed = _mm512_castsi512_pd(_mm512_or_si512(e, cl(0x4330_0000_0000_0000)));
        let ed = _mm512_sub_pd(ed, _mm512_set1_pd(4_503_599_627_370_496.0));
        let k = _mm512_sub_pd(ed, _mm512_set1_pd(1023.0));
        let l = _mm512_fmadd_pd(k, _mm512_set1_pd(std::f64::consts::LN_2), lm);
        let zero = _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(a, _mm512_setzero_pd());
        let l = _mm512_mask_blend_pd(zero, l, _mm512_set1_pd(f64::NEG_INFINITY));
        let inf = _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(a, _mm512_set1_pd(f64::INFINITY));
        let l = _mm512_mask_blend_pd(inf, l, _mm512_set1_pd(f64::INFINITY));
        let un = _mm512_cmp_pd_mask::<_CMP_UNORD_Q>(a, a);
        _mm512_mask_blend_pd(un, l, a)
    }

    /// 16 f32 lanes as two halves of eight f64 lanes (low, high).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn widen16(v: __m512) -> (__m512d, __m512d) {
        let lo = _mm512_castpd512_pd256(_mm512_castps_pd(v));
        let hi = _mm512_extractf64x4_pd::<1>(_mm512_castps_pd(v));
        (
            _mm512_cvtps_pd(_mm256_castpd_ps(lo)),
            _mm512_cvtps_pd(_mm256_castpd_ps(hi)),
        )
    }

    /// Two halves of eight f64 lanes, each rounded to f32 once, joined.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn narrow16(lo: __m512d, hi: __m512d) -> __m512 {
        let (a, b) = (_mm512_cvtpd_ps(lo), _mm512_cvtpd_ps(hi));
        _mm512_castpd_ps(_mm512_insertf64x4::<1>(
            _mm512_castpd256_pd512(_mm256_castps_pd(a)),
            _mm256_castps_pd(b),
        ))
    }

    /// `approx::pow::cbrt` on 16 f32 lanes.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn cbrt16(x: __m512) -> __m512 {
        let sign = _mm512_set1_epi32(i32::MIN);
        let xi = _mm512_castps_si512(x);
        let ax = _mm512_castsi512_ps(_mm512_andnot_si512(sign, xi));
        let (a0, a1) = widen16(ax);
        let third = _mm512_set1_pd(1.0 / 3.0);
        // SAFETY: avx512f (this function's own target feature).
        let r = unsafe {
            narrow16(
                exp_d8(_mm512_mul_pd(ln8(a0), third)),
                exp_d8(_mm512_mul_pd(ln8(a1), third)),
            )
        };
        let inf = _mm512_set1_ps(f32::INFINITY);
        let isinf = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(ax, inf);
        let r = _mm512_mask_blend_ps(isinf, r, inf);
        // copysign(r, x): r's magnitude bits, x's sign bit.
        let r = _mm512_or_si512(
            _mm512_andnot_si512(sign, _mm512_castps_si512(r)),
            _mm512_and_si512(xi, sign),
        );
        let r = _mm512_castsi512_ps(r);
        let n = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x);
        _mm512_mask_blend_ps(n, r, x)
    }

    /// `approx::pow::pow` (the generic path) on 16 f32 lanes.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn pow16(x: __m512, y: __m512) -> __m512 {
        let sign = _mm512_set1_epi32(i32::MIN);
        let xi = _mm512_castps_si512(x);
        let ax = _mm512_castsi512_ps(_mm512_andnot_si512(sign, xi));
        let (a0, a1) = widen16(ax);
        let (y0, y1) = widen16(y);
        // SAFETY: avx512f (this function's own target feature).
        let r = unsafe {
            narrow16(
                exp_d8(_mm512_mul_pd(y0, ln8(a0))),
                exp_d8(_mm512_mul_pd(y1, ln8(a1))),
            )
        };
        // y integral (±inf counts) and y odd.
        let ty = _mm512_roundscale_ps::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(y);
        let yint = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(ty, y);
        let ay = _mm512_castsi512_ps(_mm512_andnot_si512(sign, _mm512_castps_si512(y)));
        let ysmall = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(ay, _mm512_set1_ps(16_777_216.0));
        let yi = _mm512_cvttps_epi32(y);
        let one_i = _mm512_set1_epi32(1);
        let yodd = _mm512_cmpeq_epi32_mask(_mm512_and_si512(yi, one_i), one_i) & ysmall & yint;
        // Negative x (sign bit) with odd y: negate.
        let flip = _mm512_maskz_mov_epi32(yodd, _mm512_and_si512(xi, sign));
        let r = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(r), flip));
        // Negative finite x, non-integer y: NaN.
        let xneg = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(x, _mm512_setzero_ps());
        let xfin = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(x, _mm512_set1_ps(f32::NEG_INFINITY));
        let bad = xneg & xfin & !yint;
        let nan = _mm512_set1_ps(crate::codegen::approx::INVALID_NAN);
        let r = _mm512_mask_blend_ps(bad, r, nan);
        // pow(±1, ±inf) = 1, pow(1, y) = 1, pow(x, ±0) = 1.
        let one = _mm512_set1_ps(1.0);
        let axone = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(ax, one);
        let yinf = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(ay, _mm512_set1_ps(f32::INFINITY));
        let r = _mm512_mask_blend_ps(axone & yinf, r, one);
        let xone = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(x, one);
        let r = _mm512_mask_blend_ps(xone, r, one);
        let yz = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(y, _mm512_setzero_ps());
        _mm512_mask_blend_ps(yz, r, one)
    }

    block_loop!(run_tanh, tanh16);
    block_loop!(run_logistic, logistic16);
    block_loop!(run_erf, erf16);
    block_loop!(run_log, log16);
    block_loop!(run_cbrt, cbrt16);
    block_loop!(run_log1p, log1p16);
    block_loop!(run_expm1, expm1_16);

    /// `approx::exp::expm1`, operation for operation: x clamped to
    /// [−30, 89], r = x − n·ln2 in two FMAs, r + r²·h(r) by Horner, then
    /// 2^n·p + (2^n − 1) with one rounding (n = 128 as twice n = 127), ±0
    /// passed through.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn expm1_16(x0: __m512) -> __m512 {
        unsafe {
            let (lo, hi) = (c(-30.0), c(89.0));
            let below = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(x0, lo);
            let x = _mm512_mask_blend_ps(below, x0, lo);
            // `minmax(min, hi, x)`: hi < x ? hi : x (a NaN x passes).
            let m = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(hi, x);
            let x = _mm512_mask_blend_ps(m, x, hi);
            let t = _mm512_mul_ps(x, c(std::f32::consts::LOG2_E));
            let n = _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(t);
            let r = _mm512_fmadd_ps(n, c(LN2_HI), x);
            let r = _mm512_fmadd_ps(n, c(LN2_LO), r);
            let mut h = c(EXPM1_H[0]);
            for &k in &EXPM1_H[1..] {
                h = _mm512_fmadd_ps(h, r, c(k));
            }
            let r2 = _mm512_mul_ps(r, r);
            let p = _mm512_fmadd_ps(r2, h, r);
            // (A NaN n gives 127 here and NaN inline: the result is NaN
            // either way, p being NaN.)
            let top = c(127.0);
            let nn = _mm512_min_ps(n, top);
            let e = _mm512_add_epi32(_mm512_cvttps_epi32(nn), _mm512_set1_epi32(127));
            let s = _mm512_castsi512_ps(_mm512_slli_epi32::<23>(e));
            let y = _mm512_fmadd_ps(s, p, _mm512_sub_ps(s, c(1.0)));
            let y2 = _mm512_mul_ps(y, c(2.0));
            let big = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(n, top);
            let y = _mm512_mask_blend_ps(big, y, y2);
            let z = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(x0, c(0.0));
            _mm512_mask_blend_ps(z, y, x0)
        }
    }

    /// How far ahead (in f32 elements) the streaming row reductions
    /// prefetch: 16 KiB, one line per 64-byte step. Measured on Zen 5 for a
    /// 4096² sum along rows (one core): 256 elements ahead 1.58 ms, 1024
    /// 1.37–1.64, 4096 1.22–1.38, 8192 1.26–1.32, none 1.80 — the hardware
    /// prefetcher alone does not keep enough lines in flight from DRAM.
    const PREFETCH_AHEAD: usize = 4096;

    /// See `block_maxmin`.
    ///
    /// # Safety
    /// `p` holds `n` (a multiple of 16) readable values, `acc` 16 and `nan`
    /// 4 writable ones; the host has avx512f.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn run_maxmin(p: *const f32, n: i64, acc: *mut f32, nan: *mut i32, max: bool) {
        let n = n.max(0) as usize & !15;
        // SAFETY (whole body): every access is within p[0..n], acc[0..16]
        // or nan[0..4]; prefetches do not fault.
        unsafe {
            let mut z = _mm512_loadu_ps(acc);
            let mut bad: __mmask16 = 0;
            let mut i = 0;
            while i < n {
                _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(i + PREFETCH_AHEAD) as *const i8);
                let v = _mm512_loadu_ps(p.add(i));
                bad |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v, v);
                // `v > z ? v : z` (max) / `v < z ? v : z` (min): the
                // second operand on NaN and on equal values, as the JIT.
                z = if max {
                    _mm512_max_ps(v, z)
                } else {
                    _mm512_min_ps(v, z)
                };
                i += 16;
            }
            _mm512_storeu_ps(acc, z);
            if bad != 0 {
                for k in 0..4 {
                    *nan.add(k) = -1;
                }
            }
        }
    }

    /// See `block_sum`.
    ///
    /// # Safety
    /// `p` holds `n` (a multiple of 16) readable values, `acc` 16 writable
    /// ones; the host has avx512f.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn run_sum(p: *const f32, n: i64, acc: *mut f32) {
        let n = n.max(0) as usize & !15;
        // SAFETY (whole body): every access is within p[0..n] or acc[0..16];
        // prefetches do not fault.
        unsafe {
            let mut z = _mm512_loadu_ps(acc);
            let mut i = 0;
            while i < n {
                _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(i + PREFETCH_AHEAD) as *const i8);
                z = _mm512_add_ps(z, _mm512_loadu_ps(p.add(i)));
                i += 16;
            }
            _mm512_storeu_ps(acc, z);
        }
    }

    #[inline(always)]
    unsafe fn c(v: f32) -> __m512 {
        unsafe { _mm512_set1_ps(v) }
    }

    /// `coeffs[0]·r^(n-1) + … + coeffs[n-1]` with one FMA per step.
    #[inline(always)]
    unsafe fn horner(r: __m512, coeffs: &[f32]) -> __m512 {
        unsafe {
            let mut p = c(coeffs[0]);
            for &k in &coeffs[1..] {
                p = _mm512_fmadd_ps(p, r, c(k));
            }
            p
        }
    }

    /// Estrin's scheme for 7 coefficients, as `approx::lanes::estrin` pairs them.
    #[inline(always)]
    unsafe fn estrin7(r: __m512, r2: __m512, k: &[f32; 7]) -> __m512 {
        unsafe {
            let a = _mm512_fmadd_ps(c(k[1]), r, c(k[2]));
            let b = _mm512_fmadd_ps(c(k[3]), r, c(k[4]));
            let d = _mm512_fmadd_ps(c(k[5]), r, c(k[6]));
            let x = _mm512_fmadd_ps(c(k[0]), r2, a);
            let y = _mm512_fmadd_ps(b, r2, d);
            let r4 = _mm512_mul_ps(r2, r2);
            _mm512_fmadd_ps(x, r4, y)
        }
    }

    /// `approx::exp`: the fast path, and the complete one for lanes with
    /// |x| > 86 or NaN.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn exp16(x: __m512) -> __m512 {
        unsafe {
            let fast = exp_fast(x);
            let ax = _mm512_abs_ps(x);
            // UnorderedOrGreaterThan: NaN lanes too.
            let bad = _mm512_cmp_ps_mask::<_CMP_NLE_UQ>(ax, c(EXP_FAST_LIMIT));
            if bad == 0 {
                return fast;
            }
            // Below -104 the complete path clamps to -104, whose result
            // rounds to +0: give those lanes +0 without it (a causal
            // mask's -1e9 scores would otherwise send every vector with
            // one masked lane through it).
            let tiny = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(x, c(-104.0));
            let fast = _mm512_mask_blend_ps(tiny, fast, _mm512_setzero_ps());
            let rest = bad & !tiny;
            if rest == 0 {
                return fast;
            }
            _mm512_mask_blend_ps(rest, fast, exp_full(x))
        }
    }

    #[inline(always)]
    unsafe fn reduce_ln2_scaled(u: __m512, t: __m512, k: f32, magic: f32) -> (__m512, __m512) {
        unsafe {
            let m = c(magic);
            let tt = _mm512_fmadd_ps(u, c(k * std::f32::consts::LOG2_E), m);
            let n = _mm512_sub_ps(tt, m);
            let r = _mm512_fmadd_ps(n, c(LN2_HI), t);
            (tt, _mm512_fmadd_ps(n, c(LN2_LO), r))
        }
    }

    #[inline(always)]
    unsafe fn exp_fast(x: __m512) -> __m512 {
        unsafe {
            let (t, r) = reduce_ln2_scaled(x, x, 1.0, ROUND_MAGIC);
            let p = horner(r, &EXP_FAST_POLY);
            let n23 = _mm512_slli_epi32::<23>(_mm512_castps_si512(t));
            _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(p), n23))
        }
    }

    #[inline(always)]
    unsafe fn exp_full(x: __m512) -> __m512 {
        unsafe {
            // clamp: x < lo -> lo (NaN fails and stays); then min(hi, x) keeps NaN.
            let lo = c(-104.0);
            let below = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(x, lo);
            let x = _mm512_mask_blend_ps(below, x, lo);
            let x = _mm512_min_ps(c(89.0), x);
            let t = _mm512_mul_ps(x, c(std::f32::consts::LOG2_E));
            let n = _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(t);
            let r = _mm512_fmadd_ps(n, c(LN2_HI), x);
            let r = _mm512_fmadd_ps(n, c(LN2_LO), r);
            let p = horner(r, &EXP_FULL_POLY);
            let r2 = _mm512_mul_ps(r, r);
            let p = _mm512_fmadd_ps(p, r2, r);
            let p = _mm512_add_ps(p, c(1.0));
            let ni = _mm512_cvttps_epi32(n);
            let n1 = _mm512_srai_epi32::<1>(ni);
            let n2 = _mm512_sub_epi32(ni, n1);
            let bias = _mm512_set1_epi32(127);
            let e1 = _mm512_slli_epi32::<23>(_mm512_add_epi32(n1, bias));
            let e2 = _mm512_slli_epi32::<23>(_mm512_add_epi32(n2, bias));
            let y = _mm512_mul_ps(p, _mm512_castsi512_ps(e1));
            _mm512_mul_ps(y, _mm512_castsi512_ps(e2))
        }
    }

    /// `approx::tanh`: e/(e + 2) with e = expm1(2|x|), |x| capped at 20,
    /// the sign of x OR-ed back in.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn tanh16(x: __m512) -> __m512 {
        unsafe {
            let ax = _mm512_abs_ps(x);
            let ax = _mm512_min_ps(c(20.0), ax);
            let t = _mm512_add_ps(ax, ax);
            let (tt, r) = reduce_ln2_scaled(ax, t, 2.0, ROUND_MAGIC_BIASED);
            let r2 = _mm512_mul_ps(r, r);
            let h = estrin7(r, r2, &EXPM1_H);
            let p = _mm512_fmadd_ps(r2, h, r);
            let s = _mm512_castsi512_ps(_mm512_slli_epi32::<23>(_mm512_castps_si512(tt)));
            let one = c(1.0);
            let sm1 = _mm512_sub_ps(s, one);
            let sp1 = _mm512_add_ps(s, one);
            let e = _mm512_fmadd_ps(s, p, sm1);
            let d = _mm512_fmadd_ps(s, p, sp1);
            let q = _mm512_div_ps(e, d);
            let sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(i32::MIN));
            _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(q), sign))
        }
    }

    /// `approx::pow::exp_d` on 8 f64 lanes: clamp to [-200, 200], n =
    /// nearest(t·log2 e), r = t − n·ln 2 (one FMA), the degree-11 Taylor
    /// polynomial by Horner, times 2^n built in the exponent bits.
    #[inline(always)]
    unsafe fn exp_d8(t: __m512d) -> __m512d {
        unsafe {
            let lo = _mm512_set1_pd(-200.0);
            let hi = _mm512_set1_pd(200.0);
            let below = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(t, lo);
            let t = _mm512_mask_blend_pd(below, t, lo);
            let above = _mm512_cmp_pd_mask::<_CMP_GT_OQ>(t, hi);
            let t = _mm512_mask_blend_pd(above, t, hi);
            let u = _mm512_mul_pd(t, _mm512_set1_pd(std::f64::consts::LOG2_E));
            let n = _mm512_roundscale_pd::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(u);
            let r = _mm512_fmadd_pd(n, _mm512_set1_pd(-std::f64::consts::LN_2), t);
            let mut coeffs = [0.0f64; 12];
            let mut f = 1.0f64;
            for (i, slot) in coeffs.iter_mut().rev().enumerate() {
                if i > 0 {
                    f *= i as f64;
                }
                *slot = 1.0 / f;
            }
            let mut p = _mm512_set1_pd(coeffs[0]);
            for &k in &coeffs[1..] {
                p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(k));
            }
            let nm = _mm512_add_pd(n, _mm512_set1_pd(6_755_399_441_055_744.0));
            let eb = _mm512_add_epi64(_mm512_castpd_si512(nm), _mm512_set1_epi64(1023));
            let sc = _mm512_castsi512_pd(_mm512_slli_epi64::<52>(eb));
            _mm512_mul_pd(p, sc)
        }
    }

    /// `approx::exp::logistic`: -x widened to f64, `exp_d`, rounded to
    /// f32 once, then `1 / (1 + e)` in f32.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn logistic16(x: __m512) -> __m512 {
        unsafe {
            let sign = _mm512_set1_epi32(i32::MIN);
            let nx = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x), sign));
            let (lo, hi) = widen16(nx);
            let e = narrow16(exp_d8(lo), exp_d8(hi));
            let one = _mm512_set1_ps(1.0);
            _mm512_div_ps(one, _mm512_add_ps(one, e))
        }
    }

    /// `approx::erf::erf`: x·P(x²) below 1; 1 − exp(−x²)·g(|x|) up to
    /// 3.92 (g in two pieces chosen per lane, exp(−x²) corrected by the
    /// FMA-exact low part of x²), ±1 beyond; NaN stays NaN.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn erf16(x: __m512) -> __m512 {
        use crate::codegen::approx::erf::{G1, G2, SMALL};
        unsafe {
            let sign = _mm512_set1_epi32(i32::MIN);
            let ax = _mm512_abs_ps(x);
            let z = _mm512_mul_ps(x, x);
            let small = _mm512_mul_ps(x, horner(z, &SMALL));
            let second = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(ax, c(2.0));
            let ctr = _mm512_mask_blend_ps(second, c(1.5), c(2.96));
            let t = _mm512_sub_ps(ax, ctr);
            let mut g = _mm512_mask_blend_ps(second, c(G1[0]), c(G2[0]));
            for i in 1..9 {
                let k = _mm512_mask_blend_ps(second, c(G1[i]), c(G2[i]));
                g = _mm512_fmadd_ps(g, t, k);
            }
            let hi = _mm512_mul_ps(ax, ax);
            let nhi = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(hi), sign));
            let lo = _mm512_fmadd_ps(ax, ax, nhi);
            let e = exp16(nhi);
            let e = _mm512_sub_ps(e, _mm512_mul_ps(e, lo));
            let one = c(1.0);
            let big = _mm512_sub_ps(one, _mm512_mul_ps(e, g));
            let sat = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(ax, c(3.92));
            let big = _mm512_mask_blend_ps(sat, big, one);
            // copysign(big, x): big's magnitude, x's sign.
            let mag = _mm512_andnot_si512(sign, _mm512_castps_si512(big));
            let sx = _mm512_and_si512(_mm512_castps_si512(x), sign);
            let big = _mm512_castsi512_ps(_mm512_or_si512(mag, sx));
            let m = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(ax, one);
            let r = _mm512_mask_blend_ps(m, big, small);
            let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x);
            _mm512_mask_blend_ps(nan, r, x)
        }
    }

    /// `approx::log::log1p`: ln(u) for u = 1 + x with the rounding error
    /// of 1 + x (Fast2Sum) divided by u added as a correction, then log's
    /// special values of u, ±0 and inf passed through; operation for
    /// operation the inline code.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn log1p16(x: __m512) -> __m512 {
        unsafe {
            let one = c(1.0);
            let u = _mm512_add_ps(one, x);
            let xbig = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(_mm512_abs_ps(x), one);
            let e_small = _mm512_sub_ps(x, _mm512_sub_ps(u, one));
            let e_big = _mm512_sub_ps(one, _mm512_sub_ps(u, x));
            let e = _mm512_mask_blend_ps(xbig, e_small, e_big);
            let corr = _mm512_div_ps(e, u);
            let y = log_specials16(u, log_core16(u, _mm512_set1_epi32(0), Some(corr)));
            // log1p(±0) = ±0, log1p(inf) = inf.
            let xz = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(x, c(0.0));
            let y = _mm512_mask_blend_ps(xz, y, x);
            let xinf = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(x, c(f32::INFINITY));
            _mm512_mask_blend_ps(xinf, y, c(f32::INFINITY))
        }
    }

    /// `approx::log::log`: fdlibm's method (x = 2^k·m, m in [√½, √2),
    /// s = f/(2+f), degree-4 R), denormals scaled by 2^23 first, special
    /// values selected at the end.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn log16(x: __m512) -> __m512 {
        unsafe {
            let tiny = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(x, c(f32::MIN_POSITIVE));
            let xa = _mm512_mask_blend_ps(tiny, x, _mm512_mul_ps(x, c(8_388_608.0)));
            let kadj = _mm512_mask_blend_epi32(tiny, _mm512_set1_epi32(0), _mm512_set1_epi32(-23));
            log_specials16(x, log_core16(xa, kadj, None))
        }
    }

    /// `approx::log::core`: ln of `xa` (exponent adjusted by `kadj`),
    /// plus `corr` (log1p's rounding correction) with the small term.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn log_core16(xa: __m512, kadj: __m512i, corr: Option<__m512>) -> __m512 {
        use crate::codegen::approx::log::{LN2_HI, LN2_LO};
        unsafe {
            let ix = _mm512_add_epi32(
                _mm512_castps_si512(xa),
                _mm512_set1_epi32(0x3f80_0000 - 0x3f35_04f3),
            );
            let k = _mm512_sub_epi32(_mm512_srai_epi32::<23>(ix), _mm512_set1_epi32(127));
            let k = _mm512_add_epi32(k, kadj);
            let m = _mm512_and_si512(ix, _mm512_set1_epi32(0x007f_ffff));
            let m = _mm512_castsi512_ps(_mm512_add_epi32(m, _mm512_set1_epi32(0x3f35_04f3)));
            let f = _mm512_sub_ps(m, c(1.0));
            let s = _mm512_div_ps(f, _mm512_add_ps(f, c(2.0)));
            let z = _mm512_mul_ps(s, s);
            let w = _mm512_mul_ps(z, z);
            let t1 = _mm512_mul_ps(w, _mm512_fmadd_ps(w, c(0.242_790_79), c(0.400_009_72)));
            let t2 = _mm512_fmadd_ps(w, c(0.284_987_87), c(f32::from_bits(0x3f2a_aaaa)));
            let r = _mm512_fmadd_ps(z, t2, t1);
            let hfsq = _mm512_mul_ps(_mm512_mul_ps(c(0.5), f), f);
            let dk = _mm512_cvtepi32_ps(k);
            let small = _mm512_mul_ps(dk, c(LN2_LO));
            let small = match corr {
                Some(cv) => _mm512_add_ps(small, cv),
                None => small,
            };
            let a = _mm512_fmadd_ps(s, _mm512_add_ps(hfsq, r), small);
            let a = _mm512_add_ps(_mm512_sub_ps(a, hfsq), f);
            _mm512_fmadd_ps(dk, c(LN2_HI), a)
        }
    }

    /// `approx::log::specials`: inf, -inf at 0, NaN below 0 and for NaN
    /// arguments `arg` of the logarithm.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn log_specials16(arg: __m512, y: __m512) -> __m512 {
        use crate::codegen::approx::INVALID_NAN;
        unsafe {
            let isinf = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(arg, c(f32::INFINITY));
            let y = _mm512_mask_blend_ps(isinf, y, c(f32::INFINITY));
            let isz = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(arg, c(0.0));
            let y = _mm512_mask_blend_ps(isz, y, c(f32::NEG_INFINITY));
            let neg = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(arg, c(0.0));
            let y = _mm512_mask_blend_ps(neg, y, c(INVALID_NAN));
            let un = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(arg, arg);
            _mm512_mask_blend_ps(un, y, arg)
        }
    }
}
