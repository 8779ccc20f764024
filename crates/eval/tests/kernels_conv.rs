//! Tests of `kernels::conv::convolution`: hand-computed 1-D cases (strides, positive and negative padding, lhs and rhs
//! dilation, window reversal), and 2-D cases in NCHW and NHWC labels, feature groups and batch groups checked against
//! a naive reference written here from the definition (explicitly padded/dilated input, explicitly reversed/dilated
//! kernel, valid strided correlation, StableHLO's split-and-concatenate for groups).

use crate::kernels_support;
use kernels_support::*;
use rxla_eval::kernels::conv::convolution;
use rxla_ir::index::{IndexIter, row_major_linear};
use rxla_ir::{ConvDims, ElementType, Window, WindowDim};

/// One window dimension.
fn wd(
    size: i64,
    stride: i64,
    lo: i64,
    hi: i64,
    lhs_dil: i64,
    rhs_dil: i64,
    rev: bool,
) -> WindowDim {
    WindowDim {
        size,
        stride,
        pad_low: lo,
        pad_high: hi,
        window_dilation: rhs_dil,
        base_dilation: lhs_dil,
        window_reversal: rev,
    }
}

/// 1-D convolution of one batch, one feature, with one window dim; returns the values.
fn conv1(input: &[f32], kernel: &[f32], w: WindowDim, out_len: i64) -> Vec<f32> {
    let l = arr(&[1, 1, input.len() as i64], input.to_vec());
    let r = arr(&[1, 1, kernel.len() as i64], kernel.to_vec());
    let out = convolution(
        &l,
        &r,
        &Window { dims: vec![w] },
        &ConvDims::nchw(1),
        1,
        1,
        &shape(ElementType::F32, &[1, 1, out_len]),
    )
    .unwrap();
    vals(&out)
}

#[test]
fn one_d_hand_computed() {
    let x = [1.0f32, 2.0, 3.0, 4.0, 5.0];
    let k = [1.0f32, 0.0, -1.0];
    // Valid: x[i] - x[i+2].
    assert_eq!(
        conv1(&x, &k, wd(3, 1, 0, 0, 1, 1, false), 3),
        vec![-2.0, -2.0, -2.0]
    );
    // Stride 2.
    assert_eq!(
        conv1(&x, &k, wd(3, 2, 0, 0, 1, 1, false), 2),
        vec![-2.0, -2.0]
    );
    // Padding 1/1: [0,1,2,3,4,5,0].
    assert_eq!(
        conv1(&x, &k, wd(3, 1, 1, 1, 1, 1, false), 5),
        vec![-2.0, -2.0, -2.0, -2.0, 4.0]
    );
    // Negative low padding drops x[0]: [2,3,4,5].
    assert_eq!(
        conv1(&x, &k, wd(3, 1, -1, 0, 1, 1, false), 2),
        vec![-2.0, -2.0]
    );
    // Negative padding on both ends: [2,3,4].
    assert_eq!(conv1(&x, &k, wd(3, 1, -1, -1, 1, 1, false), 1), vec![-2.0]);
    // Window reversal: kernel [-1,0,1].
    assert_eq!(
        conv1(&x, &k, wd(3, 1, 0, 0, 1, 1, true), 3),
        vec![2.0, 2.0, 2.0]
    );
    // rhs dilation 2: kernel [1,_,0,_,-1] spans 5: x[0]-x[4].
    assert_eq!(conv1(&x, &k, wd(3, 1, 0, 0, 1, 2, false), 1), vec![-4.0]);
    // rhs dilation with a 2-tap kernel [1,1] -> [1,0,1]: x[i]+x[i+2].
    assert_eq!(
        conv1(&x, &[1.0, 1.0], wd(2, 1, 0, 0, 1, 2, false), 3),
        vec![4.0, 6.0, 8.0]
    );
    // lhs dilation 2: [1,0,2,0,3] with [1,1] -> [1,2,2,3] (transposed convolution).
    assert_eq!(
        conv1(
            &[1.0, 2.0, 3.0],
            &[1.0, 1.0],
            wd(2, 1, 0, 0, 2, 1, false),
            4
        ),
        vec![1.0, 2.0, 2.0, 3.0]
    );
    // lhs dilation with padding: [0,1,0,2,0,3,0] with [1,2] -> [2,1,4,2,6,3].
    assert_eq!(
        conv1(
            &[1.0, 2.0, 3.0],
            &[1.0, 2.0],
            wd(2, 1, 1, 1, 2, 1, false),
            6
        ),
        vec![2.0, 1.0, 4.0, 2.0, 6.0, 3.0]
    );
}

#[test]
fn two_d_hand_computed_nchw() {
    // 3x3 input, 2x2 kernel of ones: sums of 2x2 blocks.
    let l = arr(&[1, 1, 3, 3], (1..=9).map(|v| v as f32).collect());
    let r = arr(&[1, 1, 2, 2], vec![1.0f32; 4]);
    let w = window(&[2, 2], &[1, 1]);
    let out = convolution(
        &l,
        &r,
        &w,
        &ConvDims::nchw(2),
        1,
        1,
        &shape(ElementType::F32, &[1, 1, 2, 2]),
    )
    .unwrap();
    assert_eq!(vals::<f32>(&out), vec![12.0, 16.0, 24.0, 28.0]);
}

/// Parses `dim_labels` like `b01f_01io->b01f` into ConvDims.
fn labels(s: &str) -> ConvDims {
    let (ins, out) = s.split_once("->").unwrap();
    let (inp, ker) = ins.split_once('_').unwrap();
    let pos = |t: &str, c: char| t.find(c).unwrap() as i64;
    let spatial = |t: &str| -> Vec<i64> {
        let mut v: Vec<(char, i64)> = t
            .chars()
            .enumerate()
            .filter(|(_, c)| c.is_ascii_digit())
            .map(|(i, c)| (c, i as i64))
            .collect();
        v.sort();
        v.into_iter().map(|(_, i)| i).collect()
    };
    ConvDims {
        input_batch: pos(inp, 'b'),
        input_feature: pos(inp, 'f'),
        input_spatial: spatial(inp),
        kernel_input_feature: pos(ker, 'i'),
        kernel_output_feature: pos(ker, 'o'),
        kernel_spatial: spatial(ker),
        output_batch: pos(out, 'b'),
        output_feature: pos(out, 'f'),
        output_spatial: spatial(out),
    }
}

/// Canonical arrays: dims [major0, major1, spatial...] with row-major data.
#[derive(Clone)]
struct Canon {
    dims: Vec<i64>,
    data: Vec<f64>,
}

impl Canon {
    fn at(&self, idx: &[i64]) -> f64 {
        self.data[row_major_linear(&self.dims, idx)]
    }
    /// Reorders an array given the positions of (major0, major1, spatial...) in its own dims.
    fn from_labelled(dims: &[i64], data: &[f32], order: &[i64]) -> Canon {
        let cd: Vec<i64> = order.iter().map(|&d| dims[d as usize]).collect();
        let mut out = Vec::new();
        for c in IndexIter::new(&cd) {
            let mut src = vec![0i64; dims.len()];
            for (i, &d) in order.iter().enumerate() {
                src[d as usize] = c[i];
            }
            out.push(data[row_major_linear(dims, &src)] as f64);
        }
        Canon {
            dims: cd,
            data: out,
        }
    }
    /// Slice `[start, start+len)` along dim `d`.
    fn slice(&self, d: usize, start: i64, len: i64) -> Canon {
        let mut nd = self.dims.clone();
        nd[d] = len;
        let data = IndexIter::new(&nd)
            .map(|mut i| {
                i[d] += start;
                self.at(&i)
            })
            .collect();
        Canon { dims: nd, data }
    }
    fn concat(parts: &[Canon], d: usize) -> Canon {
        let mut nd = parts[0].dims.clone();
        nd[d] = parts.iter().map(|p| p.dims[d]).sum();
        let data = IndexIter::new(&nd)
            .map(|mut i| {
                for p in parts {
                    if i[d] < p.dims[d] {
                        return p.at(&i);
                    }
                    i[d] -= p.dims[d];
                }
                unreachable!()
            })
            .collect();
        Canon { dims: nd, data }
    }
}

/// Interior-pads (dilation - 1 zeros between elements) then edge-pads (negative = crop) spatial dim `d` (>= 2).
fn pad_dim(a: &Canon, d: usize, dil: i64, lo: i64, hi: i64) -> Canon {
    let n = a.dims[d];
    let dilated = if n == 0 { 0 } else { (n - 1) * dil + 1 };
    let mut nd = a.dims.clone();
    nd[d] = (dilated + lo + hi).max(0);
    let data = IndexIter::new(&nd)
        .map(|mut i| {
            let q = i[d] - lo;
            if q < 0 || q >= dilated || q % dil != 0 {
                return 0.0;
            }
            i[d] = q / dil;
            a.at(&i)
        })
        .collect();
    Canon { dims: nd, data }
}

fn reverse_dim(a: &Canon, d: usize) -> Canon {
    let data = IndexIter::new(&a.dims)
        .map(|mut i| {
            i[d] = a.dims[d] - 1 - i[d];
            a.at(&i)
        })
        .collect();
    Canon {
        dims: a.dims.clone(),
        data,
    }
}

/// Valid strided correlation, no groups: lhs [N, C, S...], rhs [O, C, K...] -> [N, O, S'...].
fn correlate(lhs: &Canon, rhs: &Canon, strides: &[i64]) -> Canon {
    let ns = strides.len();
    let mut od = vec![lhs.dims[0], rhs.dims[0]];
    for (s, &stride) in strides.iter().enumerate() {
        let (b, k) = (lhs.dims[2 + s], rhs.dims[2 + s]);
        od.push(if b < k { 0 } else { (b - k) / stride + 1 });
    }
    let kd: Vec<i64> = rhs.dims[2..].to_vec();
    let data = IndexIter::new(&od)
        .map(|o| {
            let mut sum = 0.0;
            for c in 0..lhs.dims[1] {
                for k in IndexIter::new(&kd) {
                    let mut li = vec![o[0], c];
                    let mut ri = vec![o[1], c];
                    for s in 0..ns {
                        li.push(o[2 + s] * strides[s] + k[s]);
                        ri.push(k[s]);
                    }
                    sum += lhs.at(&li) * rhs.at(&ri);
                }
            }
            sum
        })
        .collect();
    Canon { dims: od, data }
}

/// The reference convolution, result in the output's labelled order.
fn reference(
    l: (&[i64], &[f32]),
    r: (&[i64], &[f32]),
    w: &Window,
    dn: &ConvDims,
    fgc: i64,
    bgc: i64,
) -> (Vec<i64>, Vec<f32>) {
    let order =
        |a: i64, b: i64, sp: &[i64]| -> Vec<i64> { [a, b].iter().chain(sp).copied().collect() };
    let mut lhs = Canon::from_labelled(
        l.0,
        l.1,
        &order(dn.input_batch, dn.input_feature, &dn.input_spatial),
    );
    let mut rhs = Canon::from_labelled(
        r.0,
        r.1,
        &order(
            dn.kernel_output_feature,
            dn.kernel_input_feature,
            &dn.kernel_spatial,
        ),
    );
    for (s, d) in w.dims.iter().enumerate() {
        lhs = pad_dim(&lhs, 2 + s, d.base_dilation, d.pad_low, d.pad_high);
        if d.window_reversal {
            rhs = reverse_dim(&rhs, 2 + s);
        }
        rhs = pad_dim(&rhs, 2 + s, d.window_dilation, 0, 0);
    }
    let strides: Vec<i64> = w.dims.iter().map(|d| d.stride).collect();
    let grouped = |lhs: &Canon, rhs: &Canon, groups: i64, lhs_dim: usize| -> Canon {
        let lg = lhs.dims[lhs_dim] / groups;
        let og = rhs.dims[0] / groups;
        let parts: Vec<Canon> = (0..groups)
            .map(|g| {
                correlate(
                    &lhs.slice(lhs_dim, g * lg, lg),
                    &rhs.slice(0, g * og, og),
                    &strides,
                )
            })
            .collect();
        Canon::concat(&parts, 1)
    };
    let out = if fgc > 1 {
        grouped(&lhs, &rhs, fgc, 1)
    } else {
        grouped(&lhs, &rhs, bgc, 0)
    };
    // Back to the output labels.
    let mut od = vec![0i64; out.dims.len()];
    let oorder = order(dn.output_batch, dn.output_feature, &dn.output_spatial);
    for (i, &d) in oorder.iter().enumerate() {
        od[d as usize] = out.dims[i];
    }
    let data = IndexIter::new(&od)
        .map(|o| {
            let c: Vec<i64> = oorder.iter().map(|&d| o[d as usize]).collect();
            out.at(&c) as f32
        })
        .collect();
    (od, data)
}

/// Runs the kernel and the reference on deterministic data and compares them exactly (small integers).
fn check(ld: &[i64], rd: &[i64], w: &Window, label: &str, fgc: i64, bgc: i64) -> Vec<i64> {
    let dn = labels(label);
    let ln: i64 = ld.iter().product();
    let rn: i64 = rd.iter().product();
    let lv = ints(ln as usize, 11, -3, 4);
    let rv = ints(rn as usize, 12, -3, 4);
    let (od, want) = reference((ld, &lv), (rd, &rv), w, &dn, fgc, bgc);
    let got = convolution(
        &arr(ld, lv),
        &arr(rd, rv),
        w,
        &dn,
        fgc,
        bgc,
        &shape(ElementType::F32, &od),
    )
    .unwrap_or_else(|e| panic!("{label}: {e}"));
    assert_eq!(
        vals::<f32>(&got),
        want,
        "{label} ld={ld:?} rd={rd:?} w={w:?}"
    );
    od
}

#[test]
fn two_d_nchw_against_reference() {
    let od = check(
        &[2, 3, 5, 4],
        &[4, 3, 3, 2],
        &window(&[3, 2], &[1, 1]),
        "bf01_oi01->bf01",
        1,
        1,
    );
    assert_eq!(od, vec![2, 4, 3, 3]);
    check(
        &[2, 3, 6, 5],
        &[4, 3, 3, 2],
        &window(&[3, 2], &[2, 3]),
        "bf01_oi01->bf01",
        1,
        1,
    );
}

#[test]
fn two_d_nhwc_against_reference() {
    let od = check(
        &[2, 5, 4, 3],
        &[3, 2, 3, 4],
        &window(&[3, 2], &[1, 1]),
        "b01f_01io->b01f",
        1,
        1,
    );
    assert_eq!(od, vec![2, 3, 3, 4]);
}

#[test]
fn padding_dilation_reversal_against_reference() {
    let w = Window {
        dims: vec![wd(3, 2, 2, -1, 2, 1, true), wd(2, 1, -1, 3, 1, 3, false)],
    };
    check(&[1, 2, 5, 6], &[3, 2, 3, 2], &w, "bf01_oi01->bf01", 1, 1);
    check(&[2, 5, 6, 2], &[3, 2, 2, 3], &w, "b01f_01io->b01f", 1, 1);
    // Unusual label orders: feature first, spatial dims swapped; output with batch last.
    check(&[2, 5, 1, 6], &[2, 3, 3, 2], &w, "f0b1_i0o1->10fb", 1, 1);
}

#[test]
fn feature_groups_against_reference() {
    // 4 input features in 2 groups of 2; 6 output features (3 per group).
    check(
        &[1, 4, 4, 4],
        &[6, 2, 2, 2],
        &window(&[2, 2], &[1, 1]),
        "bf01_oi01->bf01",
        2,
        1,
    );
    // Depthwise: 3 groups of 1.
    check(
        &[2, 4, 4, 3],
        &[2, 2, 1, 3],
        &window(&[2, 2], &[1, 1]),
        "b01f_01io->b01f",
        3,
        1,
    );
}

#[test]
fn feature_groups_hand_computed() {
    // 1-D, two features [1,2] and [10,20], kernel per group of ones (size 1): out feature g = input feature g.
    let l = arr(&[1, 2, 2], vec![1.0f32, 2.0, 10.0, 20.0]);
    let r = arr(&[2, 1, 1], vec![1.0f32, 3.0]);
    let out = convolution(
        &l,
        &r,
        &window(&[1], &[1]),
        &ConvDims::nchw(1),
        2,
        1,
        &shape(ElementType::F32, &[1, 2, 2]),
    )
    .unwrap();
    assert_eq!(vals::<f32>(&out), vec![1.0, 2.0, 30.0, 60.0]);
}

#[test]
fn batch_groups_against_reference() {
    // Input batch 4 in 2 groups (output batch 2); 4 output features (2 per group).
    check(
        &[4, 3, 4, 4],
        &[4, 3, 2, 2],
        &window(&[2, 2], &[1, 1]),
        "bf01_oi01->bf01",
        1,
        2,
    );
    check(
        &[4, 4, 3, 2],
        &[2, 2, 2, 4],
        &window(&[2, 2], &[1, 1]),
        "b01f_01io->b01f",
        1,
        2,
    );
}

#[test]
fn batch_groups_hand_computed() {
    // Input batch 2 (one per group), one feature, 1-D [1,2] and [10,20]; 2 output features, kernel [1,1] and [1,-1].
    // Output feature 0 reads batch 0: 1+2 = 3; output feature 1 reads batch 1: 10-20 = -10.
    let l = arr(&[2, 1, 2], vec![1.0f32, 2.0, 10.0, 20.0]);
    let r = arr(&[2, 1, 2], vec![1.0f32, 1.0, 1.0, -1.0]);
    let out = convolution(
        &l,
        &r,
        &window(&[2], &[1]),
        &ConvDims::nchw(1),
        1,
        2,
        &shape(ElementType::F32, &[1, 2, 1]),
    )
    .unwrap();
    assert_eq!(vals::<f32>(&out), vec![3.0, -10.0]);
}

#[test]
fn integer_and_half_types() {
    let l = arr(&[1, 1, 3], vec![100i32, 200, 300]);
    let r = arr(&[1, 1, 2], vec![1i32, -1]);
    let out = convolution(
        &l,
        &r,
        &window(&[2], &[1]),
        &ConvDims::nchw(1),
        1,
        1,
        &shape(ElementType::S32, &[1, 1, 2]),
    )
    .unwrap();
    assert_eq!(vals::<i32>(&out), vec![-100, -100]);
    let h = |v: f32| half::bf16::from_f32(v);
    let l = arr(&[1, 1, 3], vec![h(1.0), h(2.0), h(3.0)]);
    let r = arr(&[1, 1, 2], vec![h(0.5), h(0.5)]);
    let out = convolution(
        &l,
        &r,
        &window(&[2], &[1]),
        &ConvDims::nchw(1),
        1,
        1,
        &shape(ElementType::BF16, &[1, 1, 2]),
    )
    .unwrap();
    assert_eq!(vals::<half::bf16>(&out), vec![h(1.5), h(2.5)]);
}

#[test]
fn inconsistent_shapes_are_errors() {
    let l = arr(&[1, 2, 4], vec![0.0f32; 8]);
    let r = arr(&[1, 3, 2], vec![0.0f32; 6]);
    let w = window(&[2], &[1]);
    // Kernel input features 3 != input features 2.
    assert!(
        convolution(
            &l,
            &r,
            &w,
            &ConvDims::nchw(1),
            1,
            1,
            &shape(ElementType::F32, &[1, 1, 3])
        )
        .is_err()
    );
    let r = arr(&[1, 2, 2], vec![0.0f32; 4]);
    // Window size differs from the kernel's spatial size.
    assert!(
        convolution(
            &l,
            &r,
            &window(&[3], &[1]),
            &ConvDims::nchw(1),
            1,
            1,
            &shape(ElementType::F32, &[1, 1, 2])
        )
        .is_err()
    );
    // Result feature count wrong.
    assert!(
        convolution(
            &l,
            &r,
            &w,
            &ConvDims::nchw(1),
            1,
            1,
            &shape(ElementType::F32, &[1, 2, 3])
        )
        .is_err()
    );
    // Zero stride.
    let bad = Window {
        dims: vec![wd(2, 0, 0, 0, 1, 1, false)],
    };
    assert!(
        convolution(
            &l,
            &r,
            &bad,
            &ConvDims::nchw(1),
            1,
            1,
            &shape(ElementType::F32, &[1, 1, 3])
        )
        .is_err()
    );
}

#[test]
fn moderate_nhwc_conv_is_fast() {
    // 1x32x32x16 input, 3x3x16x16 kernel, SAME-style padding: 16k outputs x 144 taps.
    let ld = [1i64, 32, 32, 16];
    let rd = [3i64, 3, 16, 16];
    let l = arr(&ld, ints(32 * 32 * 16, 5, -2, 3));
    let r = arr(&rd, ints(3 * 3 * 16 * 16, 6, -2, 3));
    let w = Window {
        dims: vec![wd(3, 1, 1, 1, 1, 1, false), wd(3, 1, 1, 1, 1, 1, false)],
    };
    let t = std::time::Instant::now();
    let out = convolution(
        &l,
        &r,
        &w,
        &labels("b01f_01io->b01f"),
        1,
        1,
        &shape(ElementType::F32, &[1, 32, 32, 16]),
    )
    .unwrap();
    eprintln!("took {:?}", t.elapsed()); // printed, not asserted: hosts vary
    assert_eq!(out.shape.dims, vec![1, 32, 32, 16]);
    // Spot-check one interior output against a direct sum.
    let (lv, rv) = (vals::<f32>(&l), vals::<f32>(&r));
    let (y, x, o) = (10usize, 20usize, 7usize);
    let mut want = 0.0f32;
    for ky in 0..3 {
        for kx in 0..3 {
            for c in 0..16 {
                let li = ((y + ky - 1) * 32 + (x + kx - 1)) * 16 + c;
                let ri = ((ky * 3 + kx) * 16 + c) * 16 + o;
                want += lv[li] * rv[ri];
            }
        }
    }
    assert_eq!(vals::<f32>(&out)[(y * 32 + x) * 16 + o], want);
}

#[test]
fn spatial_result_size_is_checked() {
    let l = arr(&[1, 1, 5], vec![0.0f32; 5]);
    let r = arr(&[1, 1, 3], vec![0.0f32; 3]);
    let w = window(&[3], &[1]);
    assert!(
        convolution(
            &l,
            &r,
            &w,
            &ConvDims::nchw(1),
            1,
            1,
            &shape(ElementType::F32, &[1, 1, 4])
        )
        .is_err()
    );
    assert!(
        convolution(
            &l,
            &r,
            &w,
            &ConvDims::nchw(1),
            1,
            1,
            &shape(ElementType::F32, &[1, 1, 3])
        )
        .is_ok()
    );
    // Extreme window attributes do not overflow: the window simply does not fit.
    let huge = Window {
        dims: vec![wd(3, 1, 0, 0, 1, i64::MAX / 2, false)],
    };
    assert!(
        convolution(
            &l,
            &r,
            &huge,
            &ConvDims::nchw(1),
            1,
            1,
            &shape(ElementType::F32, &[1, 1, 0])
        )
        .is_ok()
    );
}
