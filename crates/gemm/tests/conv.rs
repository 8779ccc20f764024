//! ConvPlan against rxla_eval's convolution: strides, padding incl. negative, lhs/rhs dilation, reversal,
//! feature/batch groups, every dim_labels permutation (NCHW, NHWC, ...), 0-3 spatial dims, random physical
//! layouts, every micro-kernel tier the host has, 1 and 2 threads, small cache blocks, the 1x1 GEMM path and epilogues.

use crate::common;
use common::*;
use rxla_gemm::{Bias, Blocking, ConvPlan, Epilogue, KernelKind, Options, TensorLayout};
use rxla_ir::{ArrayShape, ConvDims, ElementType, Window, WindowDim};

struct Case {
    window: Window,
    dims: ConvDims,
    fgc: usize,
    bgc: usize,
    in_dims: Vec<usize>,
    k_dims: Vec<usize>,
    out_dims: Vec<usize>,
}

use rxla_ir::geometry::window_output_size as out_size;

fn shuffled(n: usize, rng: &mut Rng) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        p.swap(i, rng.below(i + 1));
    }
    p
}

/// A random valid convolution.
fn random_case(rng: &mut Rng, ns: usize) -> Case {
    let (fgc, bgc) = match rng.below(4) {
        0 => (1 + rng.below(3), 1),
        1 => (1, 1 + rng.below(3)),
        _ => (1, 1),
    };
    let cg = 1 + rng.below(4);
    let c_in = cg * fgc;
    let c_out = fgc * bgc * (1 + rng.below(4));
    let batch_out = 1 + rng.below(3);
    let mut wdims = Vec::new();
    let mut in_sp = Vec::new();
    let mut out_sp = Vec::new();
    for _ in 0..ns {
        loop {
            let w = WindowDim {
                size: 1 + rng.below(3) as i64,
                stride: 1 + rng.below(3) as i64,
                pad_low: rng.below(4) as i64 - 1,
                pad_high: rng.below(4) as i64 - 1,
                window_dilation: 1 + rng.below(2) as i64,
                base_dilation: 1 + rng.below(2) as i64,
                window_reversal: rng.below(4) == 0,
            };
            let base = rng.below(9) as i64;
            let o = out_size(base, &w);
            if o >= 0 && (o > 0 || rng.below(4) == 0) {
                wdims.push(w);
                in_sp.push(base as usize);
                out_sp.push(o as usize);
                break;
            }
        }
    }
    // Random dim_labels: positions of batch/feature/spatial in each operand.
    let r = ns + 2;
    let (pi, pk, po) = (shuffled(r, rng), shuffled(r, rng), shuffled(r, rng));
    let dims = ConvDims {
        input_batch: pi[0] as i64,
        input_feature: pi[1] as i64,
        input_spatial: pi[2..].iter().map(|&x| x as i64).collect(),
        kernel_input_feature: pk[0] as i64,
        kernel_output_feature: pk[1] as i64,
        kernel_spatial: pk[2..].iter().map(|&x| x as i64).collect(),
        output_batch: po[0] as i64,
        output_feature: po[1] as i64,
        output_spatial: po[2..].iter().map(|&x| x as i64).collect(),
    };
    let place = |perm: &[usize], vals: Vec<usize>| {
        let mut d = vec![0; r];
        for (&p, v) in perm.iter().zip(vals) {
            d[p] = v;
        }
        d
    };
    let in_dims = place(
        &pi,
        [batch_out * bgc, c_in].into_iter().chain(in_sp).collect(),
    );
    let k_dims = place(
        &pk,
        [cg, c_out]
            .into_iter()
            .chain(wdims.iter().map(|w| w.size as usize))
            .collect(),
    );
    let out_dims = place(&po, [batch_out, c_out].into_iter().chain(out_sp).collect());
    Case {
        window: Window { dims: wdims },
        dims,
        fgc,
        bgc,
        in_dims,
        k_dims,
        out_dims,
    }
}

/// Runs the case through the evaluator (values and magnitudes) and ConvPlan; compares.
fn check(case: &Case, opts: &Options, rng: &mut Rng, layouts: bool, epi_bias: Option<&[f32]>) {
    let ni: usize = case.in_dims.iter().product();
    let nk: usize = case.k_dims.iter().product();
    let x = rng.vec(ni);
    let w = rng.vec(nk);
    let out_shape = ArrayShape::new(
        ElementType::F32,
        case.out_dims.iter().map(|&d| d as i64).collect::<Vec<_>>(),
    )
    .unwrap();
    let eval = |x: &[f32], w: &[f32]| {
        f32s(
            &rxla_eval::kernels::conv::convolution(
                &lit(&case.in_dims, x.to_vec()),
                &lit(&case.k_dims, w.to_vec()),
                &case.window,
                &case.dims,
                case.fgc as i64,
                case.bgc as i64,
                &out_shape,
            )
            .unwrap(),
        )
    };
    let want = eval(&x, &w);
    let abs = |v: &[f32]| v.iter().map(|a| a.abs()).collect::<Vec<_>>();
    let mut scale: Vec<f64> = eval(&abs(&x), &abs(&w)).iter().map(|&s| s as f64).collect();
    let (li, lk, lo) = if layouts {
        (
            random_layout(&case.in_dims, rng),
            random_layout(&case.k_dims, rng),
            random_layout(&case.out_dims, rng),
        )
    } else {
        (
            TensorLayout::row_major(&case.in_dims),
            TensorLayout::row_major(&case.k_dims),
            TensorLayout::row_major(&case.out_dims),
        )
    };
    let plan = ConvPlan::new(
        &li,
        &lk,
        &lo,
        &case.window,
        &case.dims,
        case.fgc as i64,
        case.bgc as i64,
    )
    .unwrap();
    let mut out = vec![f32::NAN; lo.count()];
    let epi = epi_bias.map(|b| Epilogue {
        bias: Some(Bias::PerRow(b)),
        relu: true,
        map: None,
    });
    plan.run_f32(
        &to_physical(&x, &li),
        &to_physical(&w, &lk),
        &mut out,
        epi.as_ref(),
        opts,
    )
    .unwrap();
    let got = from_physical(&out, &lo);
    let mut want: Vec<f64> = want.iter().map(|&v| v as f64).collect();
    if let Some(b) = epi_bias {
        // Output feature of each row-major output element.
        let of = case.dims.output_feature as usize;
        let inner: usize = case.out_dims[of + 1..].iter().product();
        for (i, v) in want.iter_mut().enumerate() {
            let f = (i / inner) % case.out_dims[of];
            *v = (*v + b[f] as f64).max(0.0);
            scale[i] += 1.0;
        }
    }
    assert_close(
        &got,
        &want,
        &scale,
        &format!(
            "conv in {:?} k {:?} out {:?} {:?} {:?} fgc {} bgc {} {opts:?}",
            case.in_dims, case.k_dims, case.out_dims, case.window, case.dims, case.fgc, case.bgc
        ),
    );
}

#[test]
fn random_convolutions_match_the_evaluator() {
    let mut rng = Rng::new(11);
    for kernel in kernels() {
        for threads in [1, 2] {
            let mut o = opts(kernel, threads);
            o.blocking = Some(Blocking::new(kernel, 12, 5, 32));
            for i in 0..150 {
                let ns = [0, 1, 2, 2, 2, 3][i % 6];
                let case = random_case(&mut rng, ns);
                check(&case, &o, &mut rng, i % 2 == 1, None);
            }
        }
    }
}

#[test]
fn epilogue_bias_relu_per_output_feature() {
    let mut rng = Rng::new(12);
    let bias = rng.vec(64);
    for kernel in kernels() {
        let o = opts(kernel, 2);
        for i in 0..40 {
            let case = random_case(&mut rng, 2);
            check(&case, &o, &mut rng, i % 2 == 0, Some(&bias));
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn nchw_case(
    b: usize,
    c: usize,
    hw: usize,
    o: usize,
    k: usize,
    stride: i64,
    pad: i64,
    nhwc: bool,
) -> Case {
    let wd = WindowDim {
        size: k as i64,
        stride,
        pad_low: pad,
        pad_high: pad,
        ..WindowDim::new(k as i64)
    };
    let out = out_size(hw as i64, &wd) as usize;
    let dims = if nhwc {
        // b01f_01io->b01f
        ConvDims::nhwc(2)
    } else {
        ConvDims::nchw(2)
    };
    let (in_dims, k_dims, out_dims) = if nhwc {
        (vec![b, hw, hw, c], vec![k, k, c, o], vec![b, out, out, o])
    } else {
        (vec![b, c, hw, hw], vec![o, c, k, k], vec![b, o, out, out])
    };
    Case {
        window: Window {
            dims: vec![wd.clone(), wd],
        },
        dims,
        fgc: 1,
        bgc: 1,
        in_dims,
        k_dims,
        out_dims,
    }
}

#[test]
fn nchw_nhwc_resnet_like_shapes_and_1x1() {
    let mut rng = Rng::new(13);
    for kernel in kernels() {
        let o = opts(kernel, 2);
        for nhwc in [false, true] {
            check(
                &nchw_case(2, 16, 17, 24, 3, 1, 1, nhwc),
                &o,
                &mut rng,
                false,
                None,
            );
            check(
                &nchw_case(1, 3, 30, 16, 7, 2, 3, nhwc),
                &o,
                &mut rng,
                false,
                None,
            );
            check(
                &nchw_case(2, 32, 9, 40, 1, 1, 0, nhwc),
                &o,
                &mut rng,
                false,
                None,
            );
            check(
                &nchw_case(1, 8, 12, 8, 1, 2, 0, nhwc),
                &o,
                &mut rng,
                false,
                None,
            );
            check(
                &nchw_case(3, 5, 7, 6, 3, 1, -1, nhwc),
                &o,
                &mut rng,
                false,
                None,
            );
        }
    }
}

#[test]
fn bad_convolutions_are_errors() {
    let case = nchw_case(1, 4, 8, 4, 3, 1, 1, false);
    let l = |d: &[usize]| TensorLayout::row_major(d);
    let mut wrong_out = case.out_dims.clone();
    wrong_out[2] += 1;
    let err = ConvPlan::new(
        &l(&case.in_dims),
        &l(&case.k_dims),
        &l(&wrong_out),
        &case.window,
        &case.dims,
        1,
        1,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "convolution: result spatial sizes [9, 8] differ from the window positions [8, 8]"
    );
    let err = ConvPlan::new(
        &l(&case.in_dims),
        &l(&case.k_dims),
        &l(&case.out_dims),
        &case.window,
        &case.dims,
        3,
        1,
    )
    .unwrap_err();
    assert!(err.to_string().contains("feature_group_count"), "{err}");
    let plan = ConvPlan::new(
        &l(&case.in_dims),
        &l(&case.k_dims),
        &l(&case.out_dims),
        &case.window,
        &case.dims,
        1,
        1,
    )
    .unwrap();
    let mut out = vec![0f32; 3];
    let err = plan
        .run_f32(&[0.0; 4], &[0.0; 4], &mut out, None, &Options::default())
        .unwrap_err();
    assert!(err.to_string().contains("the layouts need"), "{err}");
    let _ = KernelKind::detect();
}

/// A window dimension: size, stride, padding (low, high), window dilation, reversal.
fn window_dim(size: i64, stride: i64, lo: i64, hi: i64, dil: i64, rev: bool) -> WindowDim {
    WindowDim {
        size,
        stride,
        pad_low: lo,
        pad_high: hi,
        window_dilation: dil,
        window_reversal: rev,
        ..WindowDim::new(size)
    }
}

/// An NCHW 2-D convolution: (batch, channels, h, w, out features,
/// [row window, column window], feature groups).
type Nchw2d = (usize, usize, usize, usize, usize, [WindowDim; 2], usize);

/// Checks NCHW 2-D convolutions on every kernel, 1 and 2 threads.
fn check_nchw_2d(seed: u64, cases: &[Nchw2d]) {
    let mut rng = Rng::new(seed);
    for kernel in kernels() {
        for threads in [1, 2] {
            let o = opts(kernel, threads);
            for (b, c, h, w, f, win, fgc) in cases.iter().cloned() {
                let (kh, kw) = (win[0].size as usize, win[1].size as usize);
                let ho = out_size(h as i64, &win[0]) as usize;
                let wo = out_size(w as i64, &win[1]) as usize;
                let case = Case {
                    window: Window { dims: win.to_vec() },
                    dims: ConvDims::nchw(2),
                    fgc,
                    bgc: 1,
                    in_dims: vec![b, c, h, w],
                    k_dims: vec![f, c / fgc, kh, kw],
                    out_dims: vec![b, f, ho, wo],
                };
                check(&case, &o, &mut rng, false, None);
            }
        }
    }
}

/// Same-size, unit-stride 2-D convolutions on row-major planes take the
/// plane packing (one masked 16-float load pair per contraction index)
/// when the host has AVX2: narrow planes (a panel spans rows), asymmetric
/// and window-dilated padding, reversal, feature groups, images whose
/// plane is not a multiple of the panel width (panels across two images
/// fall back).
#[test]
fn same_size_unit_stride_planes() {
    let wd = |size, lo, hi, dil, rev| window_dim(size, 1, lo, hi, dil, rev);
    check_nchw_2d(
        14,
        &[
            (
                2,
                4,
                8,
                8,
                6,
                [wd(3, 1, 1, 1, false), wd(3, 1, 1, 1, false)],
                1,
            ),
            (
                1,
                3,
                20,
                20,
                5,
                [wd(5, 2, 2, 1, false), wd(5, 2, 2, 1, true)],
                1,
            ),
            (
                2,
                2,
                12,
                12,
                7,
                [wd(3, 0, 2, 1, false), wd(3, 2, 0, 1, false)],
                1,
            ),
            (
                1,
                2,
                16,
                16,
                4,
                [wd(3, 2, 2, 2, false), wd(3, 2, 2, 2, false)],
                1,
            ),
            (
                3,
                4,
                7,
                9,
                8,
                [wd(3, 1, 1, 1, false), wd(1, 0, 0, 1, false)],
                2,
            ),
            (
                2,
                5,
                4,
                4,
                3,
                [wd(3, 1, 1, 1, true), wd(3, 1, 1, 1, false)],
                1,
            ),
        ],
    );
}

/// Column-stride-2 2-D convolutions on unit-stride rows (the ResNet stem)
/// take the deinterleaved packing when the host has AVX2: even and odd
/// input widths, output rows that are and are not a multiple of the panel
/// (panels across two output rows fall back), row strides 1 and 2,
/// asymmetric and window-dilated padding, reversal, several batches.
#[test]
fn column_stride_two_planes() {
    let wd = window_dim;
    check_nchw_2d(
        15,
        &[
            (
                1,
                3,
                64,
                64,
                8,
                [wd(7, 2, 3, 3, 1, false), wd(7, 2, 3, 3, 1, false)],
                1,
            ),
            (
                2,
                3,
                30,
                31,
                5,
                [wd(7, 2, 3, 2, 1, false), wd(7, 2, 3, 2, 1, true)],
                1,
            ),
            (
                2,
                2,
                9,
                65,
                4,
                [wd(3, 1, 1, 1, 1, false), wd(3, 2, 1, 1, 1, false)],
                1,
            ),
            (
                1,
                4,
                12,
                66,
                6,
                [wd(3, 2, 0, 2, 2, false), wd(3, 2, 2, 0, 2, false)],
                1,
            ),
            (
                3,
                2,
                5,
                33,
                3,
                [wd(1, 1, 0, 0, 1, false), wd(4, 2, 1, 2, 1, false)],
                1,
            ),
        ],
    );
}

/// An NHWC 2-D convolution (`b01f_01io->b01f`): (batch, h, w, input features, output features,
/// [row window, column window], feature groups, batch groups).
type Nhwc2d = (
    usize,
    usize,
    usize,
    usize,
    usize,
    [WindowDim; 2],
    usize,
    usize,
);

fn nhwc_2d(case: &Nhwc2d) -> Case {
    let (b, h, w, c, f, win, fgc, bgc) = case.clone();
    let (kh, kw) = (win[0].size as usize, win[1].size as usize);
    let ho = out_size(h as i64, &win[0]) as usize;
    let wo = out_size(w as i64, &win[1]) as usize;
    Case {
        window: Window { dims: win.to_vec() },
        dims: ConvDims::nhwc(2),
        fgc,
        bgc,
        in_dims: vec![b, h, w, c],
        k_dims: vec![kh, kw, c / fgc, f],
        out_dims: vec![b / bgc, ho, wo, f],
    }
}

/// Feature-minor (NHWC) convolutions take the position-major GEMM (rows = output positions, the input gathered
/// per window position as A): 1x1 (the plain-GEMM case), 3x3 pad 1, stride 2, window dilation and reversal,
/// negative padding, feature and batch groups, odd sizes, output features that do not fill a column panel, small
/// cache blocks (k blocks that start and end inside a window position's features), 1 and 2 threads, every tier.
#[test]
fn nhwc_position_major() {
    let wd = window_dim;
    let cases: Vec<Nhwc2d> = vec![
        (
            2,
            7,
            9,
            24,
            40,
            [wd(1, 1, 0, 0, 1, false), wd(1, 1, 0, 0, 1, false)],
            1,
            1,
        ),
        (
            2,
            9,
            8,
            16,
            33,
            [wd(3, 1, 1, 1, 1, false), wd(3, 1, 1, 1, 1, false)],
            1,
            1,
        ),
        (
            1,
            11,
            13,
            5,
            17,
            [wd(3, 2, 1, 1, 1, false), wd(3, 2, 1, 1, 1, false)],
            1,
            1,
        ),
        (
            3,
            6,
            5,
            12,
            9,
            [wd(3, 1, 2, 2, 2, true), wd(2, 1, 0, 1, 1, false)],
            1,
            1,
        ),
        (
            1,
            8,
            8,
            12,
            16,
            [wd(3, 1, -1, 1, 1, false), wd(3, 2, 1, -1, 1, false)],
            1,
            1,
        ),
        (
            2,
            7,
            7,
            16,
            32,
            [wd(3, 1, 1, 1, 1, false), wd(3, 1, 1, 1, 1, false)],
            2,
            1,
        ),
        (
            4,
            5,
            6,
            6,
            24,
            [wd(1, 1, 0, 0, 1, false), wd(3, 1, 1, 1, 1, false)],
            1,
            2,
        ),
        (
            2,
            6,
            6,
            9,
            8,
            [wd(1, 2, 0, 0, 1, false), wd(1, 2, 0, 0, 1, false)],
            1,
            1,
        ),
        (
            1,
            1,
            1,
            7,
            8,
            [wd(1, 1, 0, 0, 1, false), wd(1, 1, 0, 0, 1, false)],
            1,
            1,
        ),
    ];
    let mut rng = Rng::new(16);
    for kernel in kernels() {
        for threads in [1, 2] {
            for small in [false, true] {
                let mut o = opts(kernel, threads);
                if small {
                    o.blocking = Some(Blocking::new(kernel, 12, 5, 32));
                }
                for case in &cases {
                    check(&nhwc_2d(case), &o, &mut rng, false, None);
                }
            }
        }
    }
}

/// A window position's features longer than the zero buffer of the NHWC packing (1024 floats) with padding
/// rows: the checked per-element packing.
#[test]
fn nhwc_wide_features_with_padding() {
    let wd = window_dim(3, 1, 1, 1, 1, false);
    let case = nhwc_2d(&(1, 3, 4, 1030, 8, [wd.clone(), wd], 1, 1));
    let mut rng = Rng::new(17);
    for kernel in kernels() {
        let mut o = opts(kernel, 1);
        o.blocking = Some(Blocking::new(kernel, 64, 1100, 64));
        check(&case, &o, &mut rng, false, None);
    }
}

/// The epilogue numbering of convolutions is rows = output features, columns = output positions on the NHWC path
/// too: a per-feature and a per-position bias, relu, and a `map` callback (which keeps the feature-major GEMM).
#[test]
fn nhwc_epilogue_numbering() {
    let wd = window_dim(3, 1, 1, 1, 1, false);
    let case = nhwc_2d(&(2, 5, 6, 8, 20, [wd.clone(), wd], 1, 1));
    let one = window_dim(1, 1, 0, 0, 1, false);
    let case1 = nhwc_2d(&(2, 5, 6, 8, 20, [one.clone(), one], 1, 1));
    let mut rng = Rng::new(18);
    for kernel in kernels() {
        for case in [&case, &case1] {
            let lay = |d: &[usize]| TensorLayout::row_major(d);
            let (li, lk, lo) = (lay(&case.in_dims), lay(&case.k_dims), lay(&case.out_dims));
            let plan = ConvPlan::new(&li, &lk, &lo, &case.window, &case.dims, 1, 1).unwrap();
            let (x, w) = (rng.vec(li.count()), rng.vec(lk.count()));
            let f = case.out_dims[3];
            let n = lo.count() / f;
            let (bf, bp) = (rng.vec(f), rng.vec(n));
            let o = opts(kernel, 2);
            let mut plain = vec![0f32; lo.count()];
            plan.run_f32(&x, &w, &mut plain, None, &o).unwrap();
            // NHWC output element q is feature q % f of position q / f.
            let expect = |g: &dyn Fn(usize, usize, f32) -> f32| -> Vec<f32> {
                plain
                    .iter()
                    .enumerate()
                    .map(|(q, &v)| g(q % f, q / f, v))
                    .collect()
            };
            let run = |e: &Epilogue| {
                let mut y = vec![f32::NAN; lo.count()];
                plan.run_f32(&x, &w, &mut y, Some(e), &o).unwrap();
                y
            };
            let close = |got: &[f32], want: &[f32], what: &str| {
                for (q, (a, b)) in got.iter().zip(want).enumerate() {
                    assert!(
                        (a - b).abs() <= 1e-5 * (1.0 + b.abs()),
                        "{what} {kernel:?} element {q}: {a} vs {b}"
                    );
                }
            };
            let per_row = Epilogue {
                bias: Some(Bias::PerRow(&bf)),
                relu: true,
                map: None,
            };
            close(
                &run(&per_row),
                &expect(&|r, _, v| (v + bf[r]).max(0.0)),
                "per-feature bias",
            );
            let per_col = Epilogue {
                bias: Some(Bias::PerCol(&bp)),
                relu: false,
                map: None,
            };
            close(
                &run(&per_col),
                &expect(&|_, c, v| v + bp[c]),
                "per-position bias",
            );
            let map = |row: usize, col: usize, vals: &mut [f32]| {
                for (t, v) in vals.iter_mut().enumerate() {
                    *v = 2.0 * *v + row as f32 + 0.001 * (col + t) as f32;
                }
            };
            let mapped = Epilogue {
                bias: Some(Bias::PerRow(&bf)),
                relu: false,
                map: Some(&map),
            };
            close(
                &run(&mapped),
                &expect(&|r, c, v| 2.0 * (v + bf[r]) + r as f32 + 0.001 * c as f32),
                "map",
            );
        }
    }
}

/// `run_f32_raw_any_order`: a `map` callback runs on the position-major NHWC GEMM and sees every output element
/// exactly once, inside the output buffer (1×1, 3×3 padded, strided, dilated, grouped; odd sizes; two threads).
#[test]
fn nhwc_map_any_order_covers_each_element_once() {
    let wd = window_dim(3, 1, 1, 1, 1, false);
    let one = window_dim(1, 1, 0, 0, 1, false);
    let s2 = window_dim(3, 2, 1, 0, 1, false);
    let dil = window_dim(3, 1, 2, 1, 2, false);
    let cases = [
        nhwc_2d(&(2, 5, 6, 8, 20, [wd.clone(), wd.clone()], 1, 1)),
        nhwc_2d(&(3, 7, 5, 13, 33, [one.clone(), one], 1, 1)),
        nhwc_2d(&(1, 9, 11, 6, 17, [s2.clone(), s2], 1, 1)),
        nhwc_2d(&(2, 8, 7, 5, 9, [dil.clone(), wd], 1, 1)),
        nhwc_2d(&(1, 6, 6, 16, 32, [dil.clone(), dil], 2, 1)),
    ];
    let mut rng = Rng::new(19);
    for kernel in kernels() {
        for (ci, case) in cases.iter().enumerate() {
            let lay = |d: &[usize]| TensorLayout::row_major(d);
            let (li, lk, lo) = (lay(&case.in_dims), lay(&case.k_dims), lay(&case.out_dims));
            let plan = ConvPlan::new(
                &li,
                &lk,
                &lo,
                &case.window,
                &case.dims,
                case.fgc as i64,
                case.bgc as i64,
            )
            .unwrap();
            let (x, w) = (rng.vec(li.count()), rng.vec(lk.count()));
            let o = opts(kernel, 2);
            let mut plain = vec![0f32; lo.count()];
            plan.run_f32(&x, &w, &mut plain, None, &o).unwrap();
            let mut y = vec![f32::NAN; lo.count()];
            let (base, len) = (y.as_ptr() as usize, y.len());
            let seen = std::sync::Mutex::new(vec![0u8; len]);
            let map = |_: usize, _: usize, vals: &mut [f32]| {
                let off = (vals.as_ptr() as usize).wrapping_sub(base) / 4;
                assert!(off + vals.len() <= len, "segment outside the output");
                let mut s = seen.lock().unwrap();
                for (t, v) in vals.iter_mut().enumerate() {
                    s[off + t] += 1;
                    *v = 2.0 * *v + 1.0;
                }
            };
            let e = Epilogue {
                bias: None,
                relu: false,
                map: Some(&map),
            };
            // SAFETY: the buffers hold the plan's extents.
            unsafe {
                plan.run_f32_raw_any_order(x.as_ptr(), w.as_ptr(), y.as_mut_ptr(), Some(&e), &o)
            }
            .unwrap();
            assert!(
                seen.lock().unwrap().iter().all(|&c| c == 1),
                "case {ci} {kernel:?}"
            );
            for (q, (a, b)) in y.iter().zip(&plain).enumerate() {
                let want = 2.0 * b + 1.0;
                assert!(
                    (a - want).abs() <= 1e-5 * (1.0 + want.abs()),
                    "case {ci} {kernel:?} element {q}: {a} vs {want}"
                );
            }
        }
    }
}

/// The weight gradient of an NHWC convolution as JAX lowers it (`f01b_i01o->01bf` in 2-D): the input's batch
/// dim is the forward channels (unit stride), the window is the forward output, the output is the kernel-sized
/// gradient. `spatial` = input sizes, `win` = windows (sizes = the gradient's spatial sizes).
fn weight_gradient_case(
    n: usize,
    spatial: &[usize],
    c: usize,
    f: usize,
    win: Vec<WindowDim>,
) -> Case {
    let ns = spatial.len();
    let sp = |from: usize| (from..from + ns).map(|d| d as i64).collect::<Vec<_>>();
    let out_sp: Vec<usize> = spatial
        .iter()
        .zip(&win)
        .map(|(&s, w)| out_size(s as i64, w) as usize)
        .collect();
    let with = |first: Vec<usize>, mid: Vec<usize>, last: Vec<usize>| {
        first.into_iter().chain(mid).chain(last).collect::<Vec<_>>()
    };
    Case {
        dims: ConvDims {
            input_batch: ns as i64 + 1,
            input_feature: 0,
            input_spatial: sp(1),
            kernel_input_feature: 0,
            kernel_output_feature: ns as i64 + 1,
            kernel_spatial: sp(1),
            output_batch: ns as i64,
            output_feature: ns as i64 + 1,
            output_spatial: sp(0),
        },
        in_dims: with(vec![n], spatial.to_vec(), vec![c]),
        k_dims: with(
            vec![n],
            win.iter().map(|w| w.size as usize).collect(),
            vec![f],
        ),
        out_dims: with(out_sp, vec![c], vec![f]),
        window: Window { dims: win },
        fgc: 1,
        bgc: 1,
    }
}

/// Batch-minor inputs take the batch-innermost position-major GEMM (`batch_minor.rs`): weight gradients of 3x3
/// SAME, strided (window dilation), dilated, negatively padded and reversed convolutions in 1-3 spatial dims, batch
/// counts that split micro-panels across output positions (8, 14, 20, 37, 64 against MR 6/14/16), output features
/// that do not fill a column panel, the bias+ReLU epilogue, small cache blocks, 1 and 2 threads, every tier.
#[test]
fn batch_minor_weight_gradients() {
    let wd = window_dim;
    let cases = [
        weight_gradient_case(4, &[8, 8], 64, 16, vec![wd(8, 1, 1, 1, 1, false); 2]),
        weight_gradient_case(
            3,
            &[9, 7],
            37,
            9,
            vec![wd(9, 1, 1, 1, 1, false), wd(7, 1, 1, 1, 1, false)],
        ),
        weight_gradient_case(2, &[9, 9], 20, 33, vec![wd(5, 1, 1, 1, 2, false); 2]),
        weight_gradient_case(
            2,
            &[10, 6],
            14,
            8,
            vec![wd(4, 1, -1, 2, 2, true), wd(3, 2, 0, 1, 1, false)],
        ),
        weight_gradient_case(5, &[12], 8, 12, vec![wd(10, 1, 2, 2, 1, false)]),
        weight_gradient_case(
            2,
            &[4, 5, 3],
            16,
            10,
            vec![
                wd(4, 1, 1, 1, 1, false),
                wd(5, 1, 1, 0, 1, false),
                wd(3, 1, 1, 1, 1, true),
            ],
        ),
    ];
    let mut rng = Rng::new(23);
    let bias = rng.vec(64);
    for kernel in kernels() {
        for threads in [1, 2] {
            for (i, case) in cases.iter().enumerate() {
                let mut o = opts(kernel, threads);
                if i % 2 == 1 {
                    o.blocking = Some(Blocking::new(kernel, 12, 5, 32));
                }
                check(case, &o, &mut rng, false, None);
                check(case, &o, &mut rng, false, Some(&bias));
            }
        }
    }
}
