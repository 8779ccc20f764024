//! sgemm against an f64 reference: shapes incl. 0/1/3/7/17/129/1000, every transposition of A, B and C,
//! alpha/beta, epilogues, both micro-kernels, small cache blocks (many kc/mc/nc blocks), 1 and 2 threads.

mod common;
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
    if !KernelKind::Avx2Fma.available() {
        let o = Options {
            kernel: KernelKind::Avx2Fma,
            ..Options::default()
        };
        assert!(
            sgemm(
                1.0,
                x,
                x.t(),
                0.0,
                MatMut::row_major(&mut c, 2, 2).unwrap(),
                None,
                &o
            )
            .is_err()
        );
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
