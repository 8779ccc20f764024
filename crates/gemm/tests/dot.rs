//! DotPlan against rxla_eval's dot: random batch/contracting/free dimension assignments, every operand and
//! result layout, sizes incl. 0/1/3/7/17/129/1000, every micro-kernel tier the host has, threads, epilogue row numbering; the
//! generic path for f64 and wrapping integers.

use crate::common;
use common::*;
use rxla_gemm::{DotPlan, Epilogue, TensorLayout, dot_generic};
use rxla_ir::{ArrayShape, DotDims, ElementType, Literal};

struct Case {
    ld: Vec<usize>,
    rd: Vec<usize>,
    od: Vec<usize>,
    dims: DotDims,
}

/// Batch sizes `bs`, lhs free `ms`, rhs free `ns`, contracting `ks`, dims shuffled in each operand.
fn case(bs: &[usize], ms: &[usize], ns: &[usize], ks: &[usize], rng: &mut Rng) -> Case {
    let shuffle = |n: usize, rng: &mut Rng| {
        let mut p: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            p.swap(i, rng.below(i + 1));
        }
        p
    };
    let lr = bs.len() + ms.len() + ks.len();
    let rr = bs.len() + ns.len() + ks.len();
    let (lp, rp) = (shuffle(lr, rng), shuffle(rr, rng));
    let mut ld = vec![0; lr];
    let mut rd = vec![0; rr];
    // Logical roles in order: batch, free, contracting; lp[role index] = position in the operand.
    let lvals: Vec<usize> = bs.iter().chain(ms).chain(ks).copied().collect();
    let rvals: Vec<usize> = bs.iter().chain(ns).chain(ks).copied().collect();
    for (i, &v) in lvals.iter().enumerate() {
        ld[lp[i]] = v;
    }
    for (i, &v) in rvals.iter().enumerate() {
        rd[rp[i]] = v;
    }
    let nb = bs.len();
    let dims = DotDims {
        lhs_batch: lp[..nb].iter().map(|&x| x as i64).collect(),
        rhs_batch: rp[..nb].iter().map(|&x| x as i64).collect(),
        lhs_contracting: lp[nb + ms.len()..].iter().map(|&x| x as i64).collect(),
        rhs_contracting: rp[nb + ns.len()..].iter().map(|&x| x as i64).collect(),
    };
    // Free dims appear in the result in operand order, not role order.
    let mut lfree: Vec<usize> = lp[nb..nb + ms.len()].to_vec();
    lfree.sort();
    let mut rfree: Vec<usize> = rp[nb..nb + ns.len()].to_vec();
    rfree.sort();
    let od = bs
        .iter()
        .copied()
        .chain(lfree.iter().map(|&d| ld[d]))
        .chain(rfree.iter().map(|&d| rd[d]))
        .collect();
    Case { ld, rd, od, dims }
}

/// Operand layouts of a `check`.
enum Layouts {
    RowMajor,
    Random,
    /// lhs and rhs layouts (result row-major).
    Given(TensorLayout, TensorLayout),
}

impl From<bool> for Layouts {
    fn from(random: bool) -> Layouts {
        if random {
            Layouts::Random
        } else {
            Layouts::RowMajor
        }
    }
}

fn check(c: &Case, o: &rxla_gemm::Options, rng: &mut Rng, layouts: impl Into<Layouts>) {
    let layouts = layouts.into();
    let x = rng.vec(c.ld.iter().product());
    let y = rng.vec(c.rd.iter().product());
    let out_shape = ArrayShape::new(
        ElementType::F32,
        c.od.iter().map(|&d| d as i64).collect::<Vec<_>>(),
    )
    .unwrap();
    let eval = |x: &[f32], y: &[f32]| {
        f32s(
            &rxla_eval::kernels::dot::dot(
                &lit(&c.ld, x.to_vec()),
                &lit(&c.rd, y.to_vec()),
                &c.dims,
                &out_shape,
            )
            .unwrap(),
        )
    };
    let want: Vec<f64> = eval(&x, &y).iter().map(|&v| v as f64).collect();
    let abs = |v: &[f32]| v.iter().map(|a| a.abs()).collect::<Vec<_>>();
    let scale: Vec<f64> = eval(&abs(&x), &abs(&y)).iter().map(|&v| v as f64).collect();
    let (ll, rl, ol) = match layouts {
        Layouts::Random => (
            random_layout(&c.ld, rng),
            random_layout(&c.rd, rng),
            random_layout(&c.od, rng),
        ),
        Layouts::RowMajor => (
            TensorLayout::row_major(&c.ld),
            TensorLayout::row_major(&c.rd),
            TensorLayout::row_major(&c.od),
        ),
        Layouts::Given(l, r) => (l, r, TensorLayout::row_major(&c.od)),
    };
    let plan = DotPlan::new(&ll, &rl, &c.dims, &ol).unwrap();
    let mut out = vec![f32::NAN; ol.count()];
    plan.run_f32(
        &to_physical(&x, &ll),
        &to_physical(&y, &rl),
        &mut out,
        None,
        o,
    )
    .unwrap();
    assert_close(
        &from_physical(&out, &ol),
        &want,
        &scale,
        &format!(
            "dot {:?} x {:?} -> {:?} {:?} {o:?}",
            c.ld, c.rd, c.od, c.dims
        ),
    );
}

const SIZES: [usize; 6] = [0, 1, 3, 7, 17, 129];

#[test]
fn random_dot_generals_match_the_evaluator() {
    let mut rng = Rng::new(21);
    for kernel in kernels() {
        for threads in [1, 2] {
            let o = opts(kernel, threads);
            for i in 0..120 {
                let pick = |n: usize, rng: &mut Rng| -> Vec<usize> {
                    (0..n)
                        .map(|_| {
                            if rng.below(3) == 0 {
                                SIZES[rng.below(6)]
                            } else {
                                1 + rng.below(9)
                            }
                        })
                        .collect()
                };
                let nb = rng.below(3);
                let (bs, ms, ns, ks) = (
                    pick(nb, &mut rng),
                    pick(rng.below(3), &mut rng),
                    pick(rng.below(3), &mut rng),
                    pick(rng.below(3), &mut rng),
                );
                if bs
                    .iter()
                    .chain(&ms)
                    .chain(&ns)
                    .chain(&ks)
                    .product::<usize>()
                    > 200_000
                {
                    continue;
                }
                let c = case(&bs, &ms, &ns, &ks, &mut rng);
                check(&c, &o, &mut rng, i % 2 == 0);
            }
        }
    }
}

#[test]
fn plain_matmuls_incl_1000_every_layout() {
    let mut rng = Rng::new(22);
    for kernel in kernels() {
        let o = opts(kernel, 2);
        for &(m, n, k) in &[
            (1000, 3, 17),
            (17, 1000, 7),
            (33, 65, 1000),
            (129, 129, 129),
            (1, 1000, 129),
        ] {
            for layouts in [false, true] {
                let c = case(&[], &[m], &[n], &[k], &mut rng);
                check(&c, &o, &mut rng, layouts);
            }
        }
        // Batched matmul: batch parallelism.
        let c = case(&[6], &[40], &[50], &[60], &mut rng);
        check(&c, &o, &mut rng, false);
    }
}

/// Transposed operands on every tier: B column-major (attention's q.kT, `rhs_contracting_dims={2}`), A
/// column-major, and operands whose free dimensions do not merge (offset tables) with a unit contracting stride
/// (B) or a unit row stride (A); edge sizes around the tiles (14x32, 6x16, 6x8) and k around the vector widths.
#[test]
fn transposed_operands_and_offset_tables() {
    let mut rng = Rng::new(23);
    let dims = |lc: i64, rc: i64, nb: usize| DotDims {
        lhs_batch: (0..nb as i64).collect(),
        rhs_batch: (0..nb as i64).collect(),
        lhs_contracting: vec![lc],
        rhs_contracting: vec![rc],
    };
    for kernel in kernels() {
        for threads in [1, 2] {
            let o = opts(kernel, threads);
            for &(m, n, k) in &[
                (14, 32, 16),
                (15, 33, 17),
                (6, 16, 8),
                (5, 47, 200),
                (29, 31, 9),
                (1, 3, 1),
                (40, 70, 300),
            ] {
                // q.kT: [2, m, k] x [2, n, k] -> [2, m, n].
                let c = Case {
                    ld: vec![2, m, k],
                    rd: vec![2, n, k],
                    od: vec![2, m, n],
                    dims: dims(2, 2, 1),
                };
                check(&c, &o, &mut rng, false);
                // A column-major: [k, m] x [k, n].
                let c = Case {
                    ld: vec![k, m],
                    rd: vec![k, n],
                    od: vec![m, n],
                    dims: dims(0, 0, 0),
                };
                check(&c, &o, &mut rng, false);
                // Free dims that do not merge, contracting dim minor: rhs [2, n2, k] with minor_to_major [2, 0, 1]
                // (free offsets (a, b) -> a*k + b*2k: a table; unit row stride), lhs [m1, 3, k] likewise.
                let (m1, n2) = (m.div_ceil(2), n.div_ceil(2));
                let c = Case {
                    ld: vec![m1, 3, k],
                    rd: vec![2, n2, k],
                    od: vec![m1, 3, 2, n2],
                    dims: dims(2, 2, 0),
                };
                let ll = TensorLayout::with_minor_to_major(&c.ld, &[2, 0, 1]).unwrap();
                let rl = TensorLayout::with_minor_to_major(&c.rd, &[2, 0, 1]).unwrap();
                check(&c, &o, &mut rng, Layouts::Given(ll, rl));
                // B: contracting dim major and free dims that do not merge (rows strided, columns a table); A as above.
                let c = Case {
                    ld: vec![m1, 3, k],
                    rd: vec![k, 2, n2],
                    od: vec![m1, 3, 2, n2],
                    dims: dims(2, 0, 0),
                };
                let ll = TensorLayout::with_minor_to_major(&c.ld, &[2, 0, 1]).unwrap();
                let rl = TensorLayout::with_minor_to_major(&c.rd, &[2, 0, 1]).unwrap();
                check(&c, &o, &mut rng, Layouts::Given(ll, rl));
            }
        }
    }
}

#[test]
fn epilogue_rows_are_batch_major() {
    let c = {
        let mut rng = Rng::new(23);
        case(&[3], &[4], &[5], &[6], &mut rng)
    };
    let (ll, rl, ol) = (
        TensorLayout::row_major(&c.ld),
        TensorLayout::row_major(&c.rd),
        TensorLayout::row_major(&c.od),
    );
    let plan = DotPlan::new(&ll, &rl, &c.dims, &ol).unwrap();
    let f = |row: usize, col: usize, v: &mut [f32]| {
        for (t, x) in v.iter_mut().enumerate() {
            *x = (row * 100 + col + t) as f32;
        }
    };
    let epi = Epilogue {
        bias: None,
        relu: false,
        map: Some(&f),
    };
    let mut out = vec![0f32; 60];
    plan.run_f32(
        &vec![1.0; 72],
        &vec![1.0; 90],
        &mut out,
        Some(&epi),
        &opts(rxla_gemm::KernelKind::detect(), 2),
    )
    .unwrap();
    for (i, &v) in out.iter().enumerate() {
        assert_eq!(v, ((i / 5) * 100 + i % 5) as f32);
    }
}

#[test]
fn generic_path_f64_and_wrapping_integers() {
    let dims = DotDims {
        lhs_batch: vec![],
        rhs_batch: vec![],
        lhs_contracting: vec![1],
        rhs_contracting: vec![0],
    };
    let a = [1i32, 2, 3, 4, 5, 6];
    let b = [7i32, 8, 9, 10, 11, 12];
    let mut out = [0i32; 4];
    dot_generic((&a, &[2, 3]), (&b, &[3, 2]), &dims, (&mut out, &[2, 2])).unwrap();
    assert_eq!(out, [58, 64, 139, 154]);
    let mut o8 = [0i8; 1];
    dot_generic(
        (&[100i8, 100], &[1, 2]),
        (&[2i8, 1], &[2, 1]),
        &dims,
        (&mut o8, &[1, 1]),
    )
    .unwrap();
    assert_eq!(o8[0], 300i32 as i8, "i8 wraps");
    let x: Vec<f64> = (0..12).map(|i| i as f64 * 0.5).collect();
    let y: Vec<f64> = (0..12).map(|i| 1.0 - i as f64 * 0.25).collect();
    let mut z = vec![0f64; 9];
    dot_generic((&x, &[3, 4]), (&y, &[4, 3]), &dims, (&mut z, &[3, 3])).unwrap();
    let want = rxla_eval::kernels::dot::dot(
        &Literal::from_vec(&[3, 4], x).unwrap().into_array().unwrap(),
        &Literal::from_vec(&[4, 3], y).unwrap().into_array().unwrap(),
        &dims,
        &ArrayShape::new(ElementType::F64, vec![3i64, 3]).unwrap(),
    )
    .unwrap();
    assert_eq!(
        z,
        want.as_slice::<f64>().unwrap(),
        "f64 path is bit-exact with the evaluator"
    );
    let err = dot_generic((&a, &[2, 3]), (&b, &[2, 3]), &dims, (&mut out, &[2, 2])).unwrap_err();
    assert!(err.to_string().contains("is paired with"), "{err}");
}

#[test]
fn a_column_major_result_is_the_row_major_one_transposed_bit_for_bit() {
    // A `{0,1}` result runs as Cᵀ = Bᵀ·Aᵀ written row-major: every element
    // is the same chain of products, so the bits are the row-major plan's.
    let mut rng = Rng::new(91);
    for (m, n, k) in [(2, 3, 5), (17, 33, 129), (128, 96, 300), (300, 40, 64)] {
        let dims = DotDims {
            lhs_batch: vec![],
            rhs_batch: vec![],
            lhs_contracting: vec![1],
            rhs_contracting: vec![0],
        };
        let a = rng.vec(m * k);
        let b = rng.vec(k * n);
        let lhs = TensorLayout::row_major(&[m, k]);
        let rhs = TensorLayout::row_major(&[k, n]);
        let row = DotPlan::new(&lhs, &rhs, &dims, &TensorLayout::row_major(&[m, n])).unwrap();
        let col_layout = TensorLayout::with_minor_to_major(&[m, n], &[0, 1]).unwrap();
        let col = DotPlan::new(&lhs, &rhs, &dims, &col_layout).unwrap();
        for kernel in kernels() {
            let o = opts(kernel, 1);
            let mut r = vec![0f32; m * n];
            let mut c = vec![0f32; m * n];
            row.run_f32(&a, &b, &mut r, None, &o).unwrap();
            col.run_f32(&a, &b, &mut c, None, &o).unwrap();
            for i in 0..m {
                for j in 0..n {
                    assert_eq!(
                        r[i * n + j].to_bits(),
                        c[j * m + i].to_bits(),
                        "{m}x{n}x{k} ({i}, {j}) {kernel:?}"
                    );
                }
            }
        }
    }
}
