//! `DotPlan::run_i8_raw` (AVX-512 VNNI) against a plain i64 sum wrapped to
//! 32 bits: every s8/u8 operand pair, row- and column-major operands and
//! results, batches, edges around the 8×32 tile and the 1024-byte
//! contraction block, k = 0, extreme bytes (the shift corrections), one and
//! two threads. Skipped (with a note) on hosts without VNNI.

use crate::common;
use common::*;
use rxla_gemm::{DotPlan, KernelKind, TensorLayout};
use rxla_ir::DotDims;

/// One batched product `[b, m, k] · [b, k, n] → [b, m, n]`, each operand
/// and the result row-major or with its two minor dims swapped.
struct Case {
    b: usize,
    m: usize,
    n: usize,
    k: usize,
    lhs_t: bool,
    rhs_t: bool,
    out_t: bool,
}

fn layout(d0: usize, d1: usize, d2: usize, swapped: bool) -> TensorLayout {
    let m2m: &[usize] = if swapped { &[1, 2, 0] } else { &[2, 1, 0] };
    TensorLayout::with_minor_to_major(&[d0, d1, d2], m2m).unwrap()
}

fn at(l: &TensorLayout, i: [usize; 3]) -> usize {
    (0..3).map(|d| i[d] as isize * l.strides[d]).sum::<isize>() as usize
}

/// Bytes biased towards the extremes (0, ±127, -128, 255) so the wrapping
/// and the shift corrections are exercised.
fn bytes(n: usize, rng: &mut Rng) -> Vec<u8> {
    (0..n)
        .map(|_| match rng.below(6) {
            0 => 0x80,
            1 => 0x7f,
            2 => 0xff,
            3 => 0,
            _ => rng.next() as u8,
        })
        .collect()
}

fn check(c: &Case, ls: bool, rs: bool, threads: usize, rng: &mut Rng) {
    let ll = layout(c.b, c.m, c.k, c.lhs_t);
    let rl = layout(c.b, c.k, c.n, c.rhs_t);
    let ol = layout(c.b, c.m, c.n, c.out_t);
    let dims = DotDims {
        lhs_batch: vec![0],
        rhs_batch: vec![0],
        lhs_contracting: vec![2],
        rhs_contracting: vec![1],
    };
    let plan = DotPlan::new(&ll, &rl, &dims, &ol).unwrap();
    let lhs = bytes(c.b * c.m * c.k, rng);
    let rhs = bytes(c.b * c.k * c.n, rng);
    let mut out = vec![0x5a5a_5a5ai32; c.b * c.m * c.n];
    let o = opts(KernelKind::Avx512, threads);
    // SAFETY: dense buffers of the layouts' sizes; `out` is distinct.
    unsafe {
        plan.run_i8_raw(lhs.as_ptr(), ls, rhs.as_ptr(), rs, out.as_mut_ptr(), &o)
            .unwrap();
    }
    let val = |x: u8, signed: bool| {
        if signed {
            i64::from(x as i8)
        } else {
            i64::from(x)
        }
    };
    for b in 0..c.b {
        for i in 0..c.m {
            for j in 0..c.n {
                let want: i64 = (0..c.k)
                    .map(|kk| val(lhs[at(&ll, [b, i, kk])], ls) * val(rhs[at(&rl, [b, kk, j])], rs))
                    .sum();
                let got = out[at(&ol, [b, i, j])];
                assert_eq!(
                    got, want as i32,
                    "b{} m{} n{} k{} lhs_t {} rhs_t {} out_t {} s8/u8 {ls}/{rs} threads {threads}: [{b},{i},{j}]",
                    c.b, c.m, c.n, c.k, c.lhs_t, c.rhs_t, c.out_t
                );
            }
        }
    }
}

#[test]
fn int8_dots_are_the_wrapped_exact_sums() {
    if !rxla_gemm::int8_available(&opts(KernelKind::Avx512, 1)) {
        eprintln!("note: this host has no AVX-512 VNNI; the int8 engine's tests are skipped");
        return;
    }
    let mut rng = Rng::new(88);
    let shapes = [
        (1, 1, 1, 1),
        (1, 8, 32, 4),
        (1, 9, 33, 5),
        (2, 7, 31, 3),
        (1, 17, 65, 1030),
        (1, 3, 600, 70),
        (3, 20, 40, 0),
        (1, 64, 64, 2053),
    ];
    for &(b, m, n, k) in &shapes {
        for (ls, rs) in [(true, true), (false, true), (true, false), (false, false)] {
            for t in 0..8u8 {
                let c = Case {
                    b,
                    m,
                    n,
                    k,
                    lhs_t: t & 1 != 0,
                    rhs_t: t & 2 != 0,
                    out_t: t & 4 != 0,
                };
                check(&c, ls, rs, 1 + (t as usize % 2), &mut rng);
            }
        }
    }
}

#[test]
fn int8_engine_refuses_other_tiers() {
    let o = opts(KernelKind::Portable, 1);
    assert!(!rxla_gemm::int8_available(&o));
    let l = TensorLayout::row_major(&[1, 2, 2]);
    let dims = DotDims {
        lhs_batch: vec![0],
        rhs_batch: vec![0],
        lhs_contracting: vec![2],
        rhs_contracting: vec![1],
    };
    let plan = DotPlan::new(&l, &l, &dims, &l).unwrap();
    let (a, mut c) = ([1u8; 4], [0i32; 4]);
    // SAFETY: 4-element buffers as the plan's layouts need.
    let r = unsafe { plan.run_i8_raw(a.as_ptr(), true, a.as_ptr(), true, c.as_mut_ptr(), &o) };
    assert!(r.unwrap_err().to_string().contains("VNNI"));
}
