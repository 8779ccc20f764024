//! sgemm against an f64 reference: shapes incl. 0/1/3/7/17/129/1000, every transposition of A, B and C,
//! alpha/beta, epilogues, every micro-kernel tier the host has (AVX-512, AVX2, Cranelift, portable), edge
//! sizes 1..129 around every tile size, masked edge stores that must not touch C's neighbours, small cache blocks (many kc/mc/nc blocks), 1 and 2 threads.

use crate::common;
use common::*;
use rxla_gemm::{Bias, Blocking, Epilogue, KernelKind, MatMut, MatRef, Options, sgemm};

/// Element (i, j) offset for a `rows x cols` matrix stored row-major (`t == false`) or column-major.
fn strides(rows: usize, cols: usize, col_major: bool) -> (isize, isize) {
    if col_major {
        (1, rows as isize)
    } else {
        (cols as isize, 1)
    }
}

#[allow(clippy::too_many_arguments)]
fn check(
    m: usize,
    n: usize,
    k: usize,
    layout: [bool; 3],
    alpha: f32,
    beta: f32,
    epi: Option<&Epilogue>,
    opts: &Options,
    rng: &mut Rng,
) {
    let a = rng.vec(m * k);
    let b = rng.vec(k * n);
    let c0 = rng.vec(m * n);
    let (ars, acs) = strides(m, k, layout[0]);
    let (brs, bcs) = strides(k, n, layout[1]);
    let (crs, ccs) = strides(m, n, layout[2]);
    let mut c = c0.clone();
    sgemm(
        alpha,
        MatRef::new(&a, m, k, ars, acs).unwrap(),
        MatRef::new(&b, k, n, brs, bcs).unwrap(),
        beta,
        MatMut::new(&mut c, m, n, crs, ccs).unwrap(),
        epi,
        opts,
    )
    .unwrap();
    let mut want = vec![0f64; m * n];
    let mut scale = vec![0f64; m * n];
    let mut got = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let ci = (i as isize * crs + j as isize * ccs) as usize;
            let (mut s, mut sc) = (0f64, 0f64);
            for p in 0..k {
                let x = a[(i as isize * ars + p as isize * acs) as usize] as f64;
                let y = b[(p as isize * brs + j as isize * bcs) as usize] as f64;
                s += x * y;
                sc += (x * y).abs();
            }
            let mut v = alpha as f64 * s + beta as f64 * c0[ci] as f64;
            sc = alpha.abs() as f64 * sc + (beta as f64 * c0[ci] as f64).abs();
            if let Some(e) = epi {
                match e.bias {
                    Some(Bias::PerRow(bv)) => v += bv[i] as f64,
                    Some(Bias::PerCol(bv)) => v += bv[j] as f64,
                    None => {}
                }
                sc += 1.0;
                if e.relu {
                    v = v.max(0.0);
                }
            }
            want[i * n + j] = v;
            scale[i * n + j] = sc;
            got[i * n + j] = c[ci];
        }
    }
    assert_close(
        &got,
        &want,
        &scale,
        &format!("sgemm {m}x{n}x{k} layout {layout:?} alpha {alpha} beta {beta} {opts:?}"),
    );
}

const SIZES: [usize; 7] = [0, 1, 3, 7, 17, 33, 129];

#[test]
fn all_layouts_and_sizes_both_kernels() {
    let mut rng = Rng::new(1);
    for kernel in kernels() {
        for unpacked in [true, false] {
            let mut o = opts(kernel, 1);
            o.unpacked_paths = unpacked;
            // Small blocks: several kc/mc/nc blocks even for 129.
            o.blocking = Some(Blocking::new(kernel, 24, 40, 48));
            for l in 0..8 {
                let layout = [l & 1 != 0, l & 2 != 0, l & 4 != 0];
                for _ in 0..12 {
                    let (m, n, k) = (
                        SIZES[rng.below(7)],
                        SIZES[rng.below(7)],
                        SIZES[rng.below(7)],
                    );
                    check(m, n, k, layout, 1.0, 0.0, None, &o, &mut rng);
                }
            }
        }
    }
}

#[test]
fn alpha_beta_and_default_blocking() {
    let mut rng = Rng::new(2);
    for kernel in kernels() {
        for threads in [1, 2] {
            let o = opts(kernel, threads);
            for &(m, n, k) in &[
                (129, 17, 300),
                (7, 129, 129),
                (300, 300, 3),
                (1, 1000, 17),
                (1000, 1, 17),
            ] {
                check(m, n, k, [false, false, false], 0.5, 0.0, None, &o, &mut rng);
                check(m, n, k, [true, false, true], -1.5, 2.0, None, &o, &mut rng);
                check(m, n, k, [false, true, false], 1.0, 1.0, None, &o, &mut rng);
            }
        }
    }
}

#[test]
fn large_shapes_with_1000_and_threads() {
    let mut rng = Rng::new(3);
    for kernel in kernels() {
        let mut o = opts(kernel, 2);
        o.unpacked_paths = false;
        check(
            1000,
            129,
            67,
            [false, false, false],
            1.0,
            0.0,
            None,
            &o,
            &mut rng,
        );
        check(
            17,
            1000,
            300,
            [true, true, false],
            1.0,
            0.5,
            None,
            &o,
            &mut rng,
        );
        check(
            131,
            257,
            1000,
            [false, true, true],
            1.0,
            0.0,
            None,
            &o,
            &mut rng,
        );
    }
}

#[test]
fn epilogues_bias_relu_map() {
    let mut rng = Rng::new(4);
    let rowb = rng.vec(200);
    let colb = rng.vec(200);
    for kernel in kernels() {
        for threads in [1, 2] {
            let mut o = opts(kernel, threads);
            o.blocking = Some(Blocking::new(kernel, 24, 40, 48));
            for unpacked in [true, false] {
                o.unpacked_paths = unpacked;
                for &(m, n, k) in &[
                    (129, 77, 90),
                    (1, 50, 20),
                    (50, 1, 20),
                    (5, 5, 0),
                    (3, 7, 5),
                ] {
                    for l in [[false; 3], [true, true, true]] {
                        let e1 = Epilogue {
                            bias: Some(Bias::PerRow(&rowb)),
                            relu: true,
                            map: None,
                        };
                        check(m, n, k, l, 1.0, 0.0, Some(&e1), &o, &mut rng);
                        let e2 = Epilogue {
                            bias: Some(Bias::PerCol(&colb)),
                            relu: false,
                            map: None,
                        };
                        check(m, n, k, l, 2.0, 1.0, Some(&e2), &o, &mut rng);
                    }
                }
            }
        }
    }
}

#[test]
fn map_callback_sees_every_element_once_with_its_coordinates() {
    let (m, n, k) = (37, 45, 19);
    let mut rng = Rng::new(5);
    let a = rng.vec(m * k);
    let b = rng.vec(k * n);
    for kernel in kernels() {
        let f = |row: usize, col: usize, v: &mut [f32]| {
            for (t, x) in v.iter_mut().enumerate() {
                *x = (row * 1000 + col + t) as f32;
            }
        };
        let epi = Epilogue {
            bias: None,
            relu: false,
            map: Some(&f),
        };
        let mut c = vec![f32::NAN; m * n];
        let mut o = opts(kernel, 2);
        o.blocking = Some(Blocking::new(kernel, 12, 8, 32));
        sgemm(
            1.0,
            MatRef::row_major(&a, m, k).unwrap(),
            MatRef::row_major(&b, k, n).unwrap(),
            0.0,
            MatMut::new(&mut c, m, n, 1, m as isize).unwrap(),
            Some(&epi),
            &o,
        )
        .unwrap();
        for i in 0..m {
            for j in 0..n {
                assert_eq!(c[i + j * m], (i * 1000 + j) as f32, "({i},{j}) {kernel:?}");
            }
        }
    }
}

#[test]
fn bad_arguments_are_errors() {
    let a = vec![0f32; 6];
    assert!(MatRef::new(&a, 3, 3, 3, 1).is_err());
    assert!(MatRef::new(&a, 2, 3, 3, 1).is_ok());
    let mut c = vec![0f32; 4];
    assert!(MatMut::new(&mut c, 2, 2, 0, 1).is_err());
    let x = MatRef::row_major(&a, 2, 3).unwrap();
    let err = sgemm(
        1.0,
        x,
        x,
        0.0,
        MatMut::row_major(&mut c, 2, 2).unwrap(),
        None,
        &Options::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("do not chain"), "{err}");
    let bias = [1.0f32];
    let e = Epilogue {
        bias: Some(Bias::PerRow(&bias)),
        relu: false,
        map: None,
    };
    let err = sgemm(
        1.0,
        x,
        x.t(),
        0.0,
        MatMut::row_major(&mut c, 2, 2).unwrap(),
        Some(&e),
        &Options::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("bias has 1 values"), "{err}");
    for kind in KernelKind::ALL.into_iter().filter(|k| !k.available()) {
        let o = Options {
            kernel: kind,
            ..Options::default()
        };
        let err = sgemm(
            1.0,
            x,
            x.t(),
            0.0,
            MatMut::row_major(&mut c, 2, 2).unwrap(),
            None,
            &o,
        )
        .unwrap_err();
        assert!(err.to_string().contains("not supported"), "{err}");
    }
}

/// Tolerance: as every test here, `|got - want| <= 1e-5 · Σ|terms|` against an f64 reference (`check`).
const EDGE: [usize; 9] = [1, 5, 13, 31, 33, 63, 65, 127, 129];

#[test]
fn edge_sizes_on_every_tier() {
    let mut rng = Rng::new(7);
    for kernel in kernels() {
        let mut o = opts(kernel, 1);
        o.unpacked_paths = false;
        for (i, &m) in EDGE.iter().enumerate() {
            for (j, &n) in EDGE.iter().enumerate() {
                let k = EDGE[(i + 2 * j) % EDGE.len()];
                let layout = [i % 2 == 1, j % 3 == 1, (i + j) % 4 == 3];
                let beta = if (i + j) % 2 == 0 { 0.0 } else { 0.5 };
                check(m, n, k, layout, 1.0, beta, None, &o, &mut rng);
            }
        }
        // Default blocking with k above one kc block, and 2 threads.
        for &(m, n, k) in &[(65, 129, 513), (129, 63, 385), (31, 33, 1031)] {
            check(
                m,
                n,
                k,
                [false; 3],
                1.0,
                0.0,
                None,
                &opts(kernel, 2),
                &mut rng,
            );
        }
    }
}

/// Every row count of a partial tile (1..=2·MR) against column counts around the vector widths, written into a
/// sub-view of a larger C whose other elements are NaN sentinels: the edge kernels (masked stores) must write
/// exactly the view.
#[test]
fn partial_tiles_write_only_their_elements() {
    let mut rng = Rng::new(8);
    for kernel in kernels() {
        let mut o = opts(kernel, 1);
        o.unpacked_paths = false;
        let (mr, nr) = (kernel.mr(), kernel.nr());
        for m in 1..=2 * mr + 1 {
            for n in [
                1,
                7,
                8,
                9,
                15,
                16,
                17,
                31,
                32,
                33,
                nr - 1,
                nr,
                nr + 1,
                2 * nr + 3,
            ] {
                let k = 1 + rng.below(20);
                let (a, b) = (rng.vec(m * k), rng.vec(k * n));
                for beta in [0.0f32, -0.5] {
                    // C: (m + 2) x (n + 5) row-major, the view at (1, 2).
                    let (rows, cols) = (m + 2, n + 5);
                    let mut big = vec![f32::NAN; rows * cols];
                    let c0 = rng.vec(m * n);
                    for i in 0..m {
                        for j in 0..n {
                            big[(i + 1) * cols + j + 2] = c0[i * n + j];
                        }
                    }
                    let view = MatMut::new(&mut big[cols + 2..], m, n, cols as isize, 1).unwrap();
                    sgemm(
                        1.0,
                        MatRef::row_major(&a, m, k).unwrap(),
                        MatRef::row_major(&b, k, n).unwrap(),
                        beta,
                        view,
                        None,
                        &o,
                    )
                    .unwrap();
                    for r in 0..rows {
                        for q in 0..cols {
                            let x = big[r * cols + q];
                            let inside = (1..=m).contains(&r) && (2..n + 2).contains(&q);
                            if !inside {
                                assert!(x.is_nan(), "{kernel:?} {m}x{n}x{k}: ({r},{q}) written");
                                continue;
                            }
                            let (i, j) = (r - 1, q - 2);
                            let (mut s, mut sc) = (0f64, 0f64);
                            for p in 0..k {
                                let t = a[i * k + p] as f64 * b[p * n + j] as f64;
                                s += t;
                                sc += t.abs();
                            }
                            let c = beta as f64 * c0[i * n + j] as f64;
                            let err = (x as f64 - (s + c)).abs();
                            assert!(
                                err <= 1e-5 * (sc + c.abs()) + 1e-30,
                                "{kernel:?} {m}x{n}x{k} beta {beta}: ({i},{j}) got {x}, want {}",
                                s + c
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn isa_tiers_are_named_detected_and_forced() {
    let best = KernelKind::detect();
    assert!(best.available());
    assert_eq!(KernelKind::from_isa(None), Ok(best));
    assert_eq!(KernelKind::from_isa(Some("")), Ok(best));
    assert_eq!(
        KernelKind::from_isa(Some("portable")),
        Ok(KernelKind::Portable)
    );
    let err = KernelKind::from_isa(Some("sse9")).unwrap_err();
    assert!(
        err.to_string().contains("RXLA_ISA=sse9: unknown tier"),
        "{err}"
    );
    for kind in KernelKind::ALL {
        assert_eq!(KernelKind::from_name(kind.name()), Some(kind));
        let forced = KernelKind::from_isa(Some(kind.name()));
        if kind.available() {
            assert_eq!(forced, Ok(kind));
        } else {
            let err = forced.unwrap_err().to_string();
            assert!(err.contains("cannot run"), "{err}");
            eprintln!("note: {err}");
        }
    }
    // The fastest tier the host has is picked.
    let order = [
        KernelKind::Avx512,
        KernelKind::Avx2Fma,
        KernelKind::Portable,
    ];
    assert_eq!(Some(best), order.into_iter().find(|k| k.available()));
    // Unless RXLA_ISA says otherwise (the test runner normally leaves it unset).
    if std::env::var_os(rxla_gemm::ISA_ENV).is_none() {
        assert_eq!(rxla_gemm::isa_name(), Ok(best.name()));
        assert_eq!(Options::default().kernel, best);
    }
}

#[test]
#[cfg(target_arch = "x86_64")]
fn cranelift_kernel_compiles_and_matches_on_x86_64() {
    assert!(
        KernelKind::Cranelift.available(),
        "the Cranelift 6x8 kernel failed to compile"
    );
    assert_eq!(
        (KernelKind::Cranelift.mr(), KernelKind::Cranelift.nr()),
        (6, 8)
    );
    let mut rng = Rng::new(6);
    let mut o = opts(KernelKind::Cranelift, 1);
    o.unpacked_paths = false;
    check(
        65,
        67,
        300,
        [false, true, false],
        1.5,
        0.5,
        None,
        &o,
        &mut rng,
    );
}

/// The direct path (AVX-512: A read in place when it is row-major and C has few column panels) computes every
/// tile with the same multiply-adds in the same order as the packed path, so a row-major A (direct) and the same
/// values column-major (packed) give bit-identical C: full and edge tiles, several k and m blocks, alpha/beta,
/// a bias+relu epilogue, 1 and 2 threads; strides that are multiples of 4 KiB (packed there) included.
#[test]
fn direct_a_equals_packed_a_bit_for_bit() {
    if !KernelKind::Avx512.available() {
        return;
    }
    let mut rng = Rng::new(77);
    for &(m, k, n) in &[
        (1, 1, 1),
        (13, 7, 10),
        (14, 33, 32),
        (15, 300, 17),
        (100, 700, 64),
        (57, 1024, 33),
        (200, 64, 5),
        (29, 2048, 48),
    ] {
        for &(alpha, beta) in &[(1.0f32, 0.0f32), (0.5, 1.5)] {
            for threads in [1, 2] {
                let a = rng.vec(m * k);
                let mut a_cm = vec![0f32; m * k];
                for i in 0..m {
                    for p in 0..k {
                        a_cm[p * m + i] = a[i * k + p];
                    }
                }
                let b = rng.vec(k * n);
                let c0 = rng.vec(m * n);
                let bias = rng.vec(n);
                let epi = Epilogue {
                    bias: Some(Bias::PerCol(&bias)),
                    relu: true,
                    map: None,
                };
                let opts = Options {
                    threads,
                    kernel: KernelKind::Avx512,
                    blocking: Some(Blocking::new(KernelKind::Avx512, 28, 256, 64)),
                    unpacked_paths: false,
                    parallel_threshold: 0,
                };
                let run = |a: &[f32], rs: isize, cs: isize| {
                    let mut c = c0.clone();
                    sgemm(
                        alpha,
                        MatRef::new(a, m, k, rs, cs).unwrap(),
                        MatRef::row_major(&b, k, n).unwrap(),
                        beta,
                        MatMut::row_major(&mut c, m, n).unwrap(),
                        Some(&epi),
                        &opts,
                    )
                    .unwrap();
                    c
                };
                let direct = run(&a, k as isize, 1);
                let packed = run(&a_cm, 1, m as isize);
                let same = direct
                    .iter()
                    .zip(&packed)
                    .all(|(x, y)| x.to_bits() == y.to_bits());
                assert!(
                    same,
                    "m={m} k={k} n={n} alpha={alpha} beta={beta} threads={threads}"
                );
            }
        }
    }
}

/// Products with few rows read a row-major B in place (no packing) on tiers that have that kernel: B here is a
/// view of a wider matrix whose other columns are NaN (a view offset or a stride mistake would poison the
/// result). Row counts up to 3 tiles, column counts around the vector widths, k across several kc blocks, 1 and
/// 2 threads.
#[test]
fn few_rows_read_only_the_b_view() {
    let mut rng = Rng::new(9);
    for kernel in kernels() {
        for threads in [1, 2] {
            let o = opts(kernel, threads);
            let mr = kernel.mr();
            for m in [2, mr - 1, mr, mr + 1, 3 * mr] {
                for n in [1, 15, 16, 17, 33, 100] {
                    for k in [1, 9, 700] {
                        let a = rng.vec(m * k);
                        let ldb = n + 3;
                        let mut big = vec![f32::NAN; k * ldb];
                        let mut b = vec![0f32; k * n];
                        for p in 0..k {
                            for j in 0..n {
                                let v = rng.vec(1)[0];
                                big[p * ldb + j] = v;
                                b[p * n + j] = v;
                            }
                        }
                        let mut c = vec![0f32; m * n];
                        sgemm(
                            1.0,
                            MatRef::row_major(&a, m, k).unwrap(),
                            MatRef::new(&big, k, n, ldb as isize, 1).unwrap(),
                            0.0,
                            MatMut::row_major(&mut c, m, n).unwrap(),
                            None,
                            &o,
                        )
                        .unwrap();
                        for i in 0..m {
                            for j in 0..n {
                                let (mut s, mut sc) = (0f64, 0f64);
                                for p in 0..k {
                                    let t = a[i * k + p] as f64 * b[p * n + j] as f64;
                                    s += t;
                                    sc += t.abs();
                                }
                                let got = c[i * n + j] as f64;
                                assert!(
                                    (got - s).abs() <= 1e-5 * sc + 1e-30,
                                    "{kernel:?} {m}x{n}x{k} t{threads}: ({i},{j}) {got} vs {s}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

/// One thread packs B a few panels at a time right before their tiles when all rows fit one `mc` block (the
/// fused-B path), two threads pack the whole `kc x nc` block first: the same panels, kernel and order, so C is
/// bit-identical, and both match the f64 reference. B row-major, column-major, or a view of a wider matrix whose
/// other columns are NaN (an over-read poisons C); several kc and nc blocks, partial last panels and row tiles,
/// every tier this host has.
#[test]
fn fused_b_packing_equals_block_packing() {
    let mut rng = Rng::new(31);
    for kernel in kernels() {
        let (mr, nr) = (kernel.mr(), kernel.nr());
        for &(m, n, k) in &[
            (4 * mr, 3 * nr, 1),
            (4 * mr + 1, 3 * nr + 1, 17),
            (100, 5 * nr - 3, 300),
            (200, 1000, 129),
            (57, 8 * nr, 700),
        ] {
            for b_layout in 0..3 {
                for blocking in [
                    None,
                    Some(Blocking::new(kernel, 224, 64, 4 * nr)),
                    Some(Blocking::new(kernel, 224, 100, 7 * nr)),
                ] {
                    let a = rng.vec(m * k);
                    let ldb = if b_layout == 2 { n + 5 } else { n };
                    let mut b = vec![f32::NAN; k * ldb];
                    for p in 0..k {
                        for j in 0..n {
                            b[p * ldb + j] = rng.f32();
                        }
                    }
                    let b_col: Vec<f32> = (0..k * n).map(|x| b[(x % k) * ldb + x / k]).collect();
                    let c0 = rng.vec(m * n);
                    let run = |threads: usize| {
                        let mut o = opts(kernel, threads);
                        o.blocking = blocking;
                        o.unpacked_paths = false;
                        let bv = if b_layout == 1 {
                            MatRef::new(&b_col, k, n, 1, k as isize).unwrap()
                        } else {
                            MatRef::new(&b, k, n, ldb as isize, 1).unwrap()
                        };
                        let mut c = c0.clone();
                        sgemm(
                            0.75,
                            MatRef::row_major(&a, m, k).unwrap(),
                            bv,
                            0.5,
                            MatMut::row_major(&mut c, m, n).unwrap(),
                            None,
                            &o,
                        )
                        .unwrap();
                        c
                    };
                    let (one, two) = (run(1), run(2));
                    let what = format!("{kernel:?} {m}x{n}x{k} B layout {b_layout} {blocking:?}");
                    assert!(
                        one.iter()
                            .zip(&two)
                            .all(|(x, y)| x.to_bits() == y.to_bits()),
                        "{what}: 1 and 2 threads differ"
                    );
                    for i in 0..m {
                        for j in 0..n {
                            let (mut s, mut sc) = (0.5 * c0[i * n + j] as f64, 0f64);
                            sc += s.abs();
                            for p in 0..k {
                                let t = 0.75 * a[i * k + p] as f64 * b[p * ldb + j] as f64;
                                s += t;
                                sc += t.abs();
                            }
                            let got = one[i * n + j] as f64;
                            assert!(
                                (got - s).abs() <= 1e-5 * sc + 1e-30,
                                "{what}: ({i},{j}) {got} vs {s}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn matrix_vector_and_vector_matrix_products() {
    // The unpacked paths: n == 1 (rows dotted with the vector: 64-, 16- and
    // 1-wide steps; on AVX-512 groups of 8 and 4 rows, then single rows:
    // 13 = 8 + 4 + 1) and m == 1 (the vector against the rows: L1 column
    // chunks of 4096, register blocks of 256/64/16 and a scalar tail), row-
    // and column-major, against the f64 reference.
    let mut rng = Rng::new(77);
    let opts = opts(kernels()[0], 1);
    for k in [1, 15, 16, 63, 64, 65, 200, 1000] {
        for rows in [1, 13, 17, 300] {
            for layout in [[false; 3], [true, true, false]] {
                check(rows, 1, k, layout, 1.0, 0.0, None, &opts, &mut rng);
                check(1, rows, k, layout, 1.0, 0.0, None, &opts, &mut rng);
            }
        }
    }
    for n in [4096, 4096 + 256 + 64 + 16 + 3, 2 * 4096 + 5] {
        check(1, n, 37, [false; 3], 1.0, 0.0, None, &opts, &mut rng);
    }
}

/// Denormal operands count as zero and denormal results flush to zero inside the GEMM (as XLA:CPU), and the
/// caller's denormal arithmetic is gradual again afterwards (the saved control word comes back).
#[test]
fn denormals_flush_inside_and_not_after() {
    let (m, k, n) = (40, 64, 40);
    let tiny = f32::from_bits(0x0040_0000); // 2^-127, denormal
    let a = vec![tiny; m * k];
    let b = vec![1.0f32; k * n];
    let mut c = vec![7.0f32; m * n];
    sgemm(
        1.0,
        MatRef::new(&a, m, k, k as isize, 1).unwrap(),
        MatRef::new(&b, k, n, n as isize, 1).unwrap(),
        0.0,
        MatMut::new(&mut c, m, n, n as isize, 1).unwrap(),
        None,
        &Options::with_threads(1),
    )
    .unwrap();
    // Without flushing every element would be 64 * 2^-127 = 2^-121.
    assert!(c.iter().all(|&x| x == 0.0), "{:?}", &c[..4]);
    // Normal values still multiply exactly: 2^-100 * 2^-20 = 2^-120 (normal), 64 of them = 2^-114.
    let a = vec![f32::from_bits(0x0D80_0000); m * k]; // 2^-100
    let b = vec![f32::from_bits(0x3580_0000); k * n]; // 2^-20
    sgemm(
        1.0,
        MatRef::new(&a, m, k, k as isize, 1).unwrap(),
        MatRef::new(&b, k, n, n as isize, 1).unwrap(),
        0.0,
        MatMut::new(&mut c, m, n, n as isize, 1).unwrap(),
        None,
        &Options::with_threads(1),
    )
    .unwrap();
    assert!(
        c.iter().all(|&x| x == f32::from_bits(0x0680_0000)),
        "{:?}",
        &c[..4]
    );
    let half = std::hint::black_box(0.5f32);
    assert_eq!((std::hint::black_box(tiny) * half).to_bits(), 0x0020_0000);
}
