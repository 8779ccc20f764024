//! `DotPlan::run_mixed_raw` (f16/bf16 operands converted inside the packing, one rounding of the f32 result) on
//! every tier the host has: bit-identical to widening the operands with `half`, `run_f32` and rounding its result
//! with `half`, for every combination of F32/F16/BF16 operands and result, edge sizes (unpacked matrix-vector and
//! tiny paths too), transposed operands, offset tables, a column-major result, threads, and NaN/inf inputs; and close
//! to an f64 reference (the f32 tolerance, plus one rounding of the result).

use crate::common;
use common::*;
use rxla_gemm::{DotPlan, ElemKind, Options, TensorLayout};
use rxla_ir::DotDims;

/// A buffer of one element kind.
enum Buf {
    F32(Vec<f32>),
    H(Vec<u16>),
}

impl Buf {
    fn ptr(&self) -> *const u8 {
        match self {
            Buf::F32(v) => v.as_ptr() as *const u8,
            Buf::H(v) => v.as_ptr() as *const u8,
        }
    }
    fn ptr_mut(&mut self) -> *mut u8 {
        match self {
            Buf::F32(v) => v.as_mut_ptr() as *mut u8,
            Buf::H(v) => v.as_mut_ptr() as *mut u8,
        }
    }
    fn bits(&self) -> Vec<u32> {
        match self {
            Buf::F32(v) => v.iter().map(|x| x.to_bits()).collect(),
            Buf::H(v) => v.iter().map(|&x| x as u32).collect(),
        }
    }
}

fn to_bits(t: ElemKind, v: f32) -> u16 {
    match t {
        ElemKind::F16 => half::f16::from_f32(v).to_bits(),
        _ => half::bf16::from_f32(v).to_bits(),
    }
}

fn to_f32(t: ElemKind, b: u16) -> f32 {
    match t {
        ElemKind::F16 => half::f16::from_bits(b).to_f32(),
        _ => half::bf16::from_bits(b).to_f32(),
    }
}

/// `vals` (physical order) stored as kind `t`.
fn store(t: ElemKind, vals: &[f32]) -> Buf {
    match t {
        ElemKind::F32 => Buf::F32(vals.to_vec()),
        _ => Buf::H(vals.iter().map(|&v| to_bits(t, v)).collect()),
    }
}

/// The buffer's values widened with `half`.
fn widen(b: &Buf, t: ElemKind) -> Vec<f32> {
    match b {
        Buf::F32(v) => v.clone(),
        Buf::H(v) => v.iter().map(|&x| to_f32(t, x)).collect(),
    }
}

struct Case {
    batch: usize,
    m: usize,
    n: usize,
    k: usize,
    /// lhs [b, k, m] instead of [b, m, k]; rhs [b, n, k] instead of [b, k, n].
    a_t: bool,
    b_t: bool,
    /// Result column-major within a batch.
    c_t: bool,
    /// Operand layouts with the batch dimension minor (no unit stride: the per-element packing).
    batch_minor: bool,
}

fn layout(dims: &[usize], batch_minor: bool) -> TensorLayout {
    if batch_minor {
        TensorLayout::with_minor_to_major(dims, &[0, 2, 1]).unwrap()
    } else {
        TensorLayout::row_major(dims)
    }
}

/// Runs one case for one type triple; `special` puts NaN/inf/signalling-NaN patterns into the inputs.
fn run_case(c: &Case, tys: [ElemKind; 3], o: &Options, rng: &mut Rng, special: bool) {
    let (b, m, n, k) = (c.batch, c.m, c.n, c.k);
    let ld = if c.a_t { [b, k, m] } else { [b, m, k] };
    let rd = if c.b_t { [b, n, k] } else { [b, k, n] };
    let od = [b, m, n];
    let dims = DotDims {
        lhs_batch: vec![0],
        rhs_batch: vec![0],
        lhs_contracting: vec![if c.a_t { 1 } else { 2 }],
        rhs_contracting: vec![if c.b_t { 2 } else { 1 }],
    };
    let (ll, rl) = (layout(&ld, c.batch_minor), layout(&rd, c.batch_minor));
    let ol = if c.c_t {
        TensorLayout::with_minor_to_major(&od, &[1, 2, 0]).unwrap()
    } else {
        TensorLayout::row_major(&od)
    };
    let plan = DotPlan::new(&ll, &rl, &dims, &ol).unwrap();
    let [el, er, eo] = plan.extents();
    let mut lv = rng.vec(el);
    let mut rv = rng.vec(er);
    if special && el > 2 && er > 2 {
        lv[rng.below(el)] = f32::NAN;
        lv[rng.below(el)] = f32::INFINITY;
        rv[rng.below(er)] = f32::NEG_INFINITY;
        rv[rng.below(er)] = f32::from_bits(0x7f81_0000); // a signalling NaN in every format
    }
    let (lb, rb) = (store(tys[0], &lv), store(tys[1], &rv));
    let (lw, rw) = (widen(&lb, tys[0]), widen(&rb, tys[1]));

    // Reference: widened copies, run_f32, one `half` rounding.
    let mut acc = vec![0f32; eo];
    plan.run_f32(&lw, &rw, &mut acc, None, o).unwrap();
    let want = store(tys[2], &acc).bits();

    let mut got = match tys[2] {
        ElemKind::F32 => Buf::F32(vec![0f32; eo]),
        _ => Buf::H(vec![0u16; eo]),
    };
    // SAFETY: buffers of the plan's extents in their kinds; the output is distinct.
    unsafe {
        plan.run_mixed_raw(
            lb.ptr(),
            tys[0],
            rb.ptr(),
            tys[1],
            got.ptr_mut(),
            tys[2],
            None,
            o,
        )
    }
    .unwrap();
    let what = format!(
        "{tys:?} b{b} m{m} n{n} k{k} a_t {} b_t {} c_t {} batch_minor {} special {special} {o:?}",
        c.a_t, c.b_t, c.c_t, c.batch_minor
    );
    let gb = got.bits();
    for (i, (g, w)) in gb.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "{what}: element {i}: {g:#x} vs {w:#x}");
    }
    if special {
        return;
    }
    // f64 reference on the widened values (the same inputs the GEMM saw).
    let (sl, sr, so) = (&ll.strides, &rl.strides, &ol.strides);
    let got_f: Vec<f32> = match &got {
        Buf::F32(v) => v.clone(),
        Buf::H(v) => v.iter().map(|&x| to_f32(tys[2], x)).collect(),
    };
    let mut g = Vec::new();
    let mut want64 = Vec::new();
    let mut scale = Vec::new();
    for bb in 0..b {
        for i in 0..m {
            for j in 0..n {
                let (mut s, mut a) = (0f64, 0f64);
                for p in 0..k {
                    let lo = if c.a_t { [bb, p, i] } else { [bb, i, p] };
                    let ro = if c.b_t { [bb, j, p] } else { [bb, p, j] };
                    let off = |ix: [usize; 3], st: &[isize]| {
                        ix.iter()
                            .zip(st)
                            .map(|(&x, &s)| x as isize * s)
                            .sum::<isize>() as usize
                    };
                    let x = lw[off(lo, sl)] as f64 * rw[off(ro, sr)] as f64;
                    s += x;
                    a += x.abs();
                }
                let oo = (bb as isize * so[0] + i as isize * so[1] + j as isize * so[2]) as usize;
                g.push(got_f[oo]);
                want64.push(s);
                // One rounding of the result: half an ulp of the 16-bit format, relative.
                let r = match tys[2] {
                    ElemKind::F32 => 0.0,
                    ElemKind::F16 => 2f64.powi(-11),
                    ElemKind::BF16 => 2f64.powi(-8),
                };
                scale.push(a + r * s.abs() / 1e-5);
            }
        }
    }
    assert_close(&g, &want64, &scale, &what);
}

const KINDS: [ElemKind; 3] = [ElemKind::F32, ElemKind::F16, ElemKind::BF16];

#[test]
fn mixed_dots_equal_widen_run_f32_round_on_every_tier() {
    let mut rng = Rng::new(31);
    let shapes: &[(usize, usize, usize, usize)] = &[
        (1, 1, 1, 1),
        (1, 1, 37, 20),
        (1, 29, 1, 20),
        (1, 2, 3, 4),
        (2, 14, 32, 16),
        (1, 15, 33, 17),
        (1, 6, 16, 8),
        (3, 29, 47, 9),
        (1, 40, 70, 300),
        (2, 33, 65, 129),
    ];
    for kernel in kernels() {
        for threads in [1, 2] {
            let o = opts(kernel, threads);
            for &(batch, m, n, k) in shapes {
                for flags in 0..16u32 {
                    if threads == 2 && flags % 4 != 0 {
                        continue;
                    }
                    let c = Case {
                        batch,
                        m,
                        n,
                        k,
                        a_t: flags & 1 != 0,
                        b_t: flags & 2 != 0,
                        c_t: flags & 4 != 0,
                        batch_minor: flags & 8 != 0,
                    };
                    // Every type triple on a few layouts, the common ones on all.
                    for lt in KINDS {
                        for rt in KINDS {
                            for ot in KINDS {
                                let tys = [lt, rt, ot];
                                if tys == [ElemKind::F32; 3] {
                                    continue;
                                }
                                let common = lt == rt && rt == ot;
                                if !common && flags % 5 != 0 {
                                    continue;
                                }
                                run_case(&c, tys, &o, &mut rng, false);
                                if common {
                                    run_case(&c, tys, &o, &mut rng, true);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Larger shapes (several k blocks, many panels) for the two half formats, on the default tier.
#[test]
fn mixed_dots_large() {
    let mut rng = Rng::new(32);
    for kernel in kernels() {
        let o = opts(kernel, 2);
        for (m, n, k) in [(200, 300, 700), (64, 256, 256)] {
            for t in [ElemKind::F16, ElemKind::BF16] {
                for b_t in [false, true] {
                    let c = Case {
                        batch: 1,
                        m,
                        n,
                        k,
                        a_t: false,
                        b_t,
                        c_t: false,
                        batch_minor: false,
                    };
                    run_case(&c, [t; 3], &o, &mut rng, false);
                }
            }
        }
    }
}
