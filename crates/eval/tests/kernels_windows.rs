//! Tests of `kernels::reduce_window` and `kernels::select_and_scatter`: the spec's 4x6 max-pool example, padding
//! (skipped, so the init value contributes exactly once), base and window dilation, negative padding, variadic
//! argmax, and the spec's select-and-scatter examples (non-overlapping and OVERLAPPING windows), XLA's 1-D
//! overlapping case and its tie-breaking case with SAME padding.

use crate::kernels_support;
use kernels_support::*;
use rxla_eval::kernels::reduce_window::reduce_window;
use rxla_eval::kernels::select_and_scatter::select_and_scatter;
use rxla_ir::{ElementType, Literal, Shape, Window, WindowDim};

fn wd(size: i64, stride: i64, lo: i64, hi: i64, base_dil: i64, win_dil: i64) -> WindowDim {
    WindowDim {
        size,
        stride,
        pad_low: lo,
        pad_high: hi,
        window_dilation: win_dil,
        base_dilation: base_dil,
        window_reversal: false,
    }
}

fn rw1(x: &[f32], init: f32, w: WindowDim, out_len: i64) -> Vec<f32> {
    let a = arr(&[x.len() as i64], x.to_vec());
    let out = reduce_window(
        &[&a],
        &[&scalar(init)],
        &Window { dims: vec![w] },
        &mut add,
        &Shape::Array(shape(ElementType::F32, &[out_len])),
    )
    .unwrap();
    lit_vals(&out)
}

/// The spec's 4x6 input.
fn spec_operand_4x6() -> Vec<f32> {
    vec![
        7.0, 2.0, 5.0, 3.0, 10.0, 2.0, //
        3.0, 8.0, 9.0, 3.0, 4.0, 2.0, //
        1.0, 5.0, 7.0, 5.0, 6.0, 1.0, //
        0.0, 6.0, 2.0, 7.0, 2.0, 8.0,
    ]
}

#[test]
fn spec_max_pool_4x6_window_2x3() {
    let a = arr(&[4, 6], spec_operand_4x6());
    let out = reduce_window(
        &[&a],
        &[&scalar(f32::MIN)],
        &window(&[2, 3], &[2, 3]),
        &mut max,
        &Shape::Array(shape(ElementType::F32, &[2, 2])),
    )
    .unwrap();
    assert_eq!(lit_vals::<f32>(&out), vec![9.0, 10.0, 7.0, 8.0]);
    // Stride 1 in both dims: 3x4 windows.
    let out = reduce_window(
        &[&a],
        &[&scalar(f32::NEG_INFINITY)],
        &window(&[2, 3], &[1, 1]),
        &mut max,
        &Shape::Array(shape(ElementType::F32, &[3, 4])),
    )
    .unwrap();
    assert_eq!(
        lit_vals::<f32>(&out),
        vec![9.0, 9.0, 10.0, 10.0, 9.0, 9.0, 9.0, 6.0, 7.0, 7.0, 7.0, 8.0]
    );
}

#[test]
fn padding_is_skipped_and_init_counts_once() {
    let x = [1.0f32, 2.0, 3.0, 4.0];
    // Window 2, pad 1/1, init 0: [1, 3, 5, 7, 4].
    assert_eq!(
        rw1(&x, 0.0, wd(2, 1, 1, 1, 1, 1), 5),
        vec![1.0, 3.0, 5.0, 7.0, 4.0]
    );
    // Init 10 is added once per window, padded positions contribute nothing.
    assert_eq!(
        rw1(&x, 10.0, wd(2, 1, 1, 1, 1, 1), 5),
        vec![11.0, 13.0, 15.0, 17.0, 14.0]
    );
    // Windows entirely in the padding give the init value.
    assert_eq!(
        rw1(&[1.0, 2.0], 100.0, wd(2, 1, 3, 0, 1, 1), 4),
        vec![100.0, 100.0, 101.0, 103.0]
    );
    // Negative padding crops: [2, 3] remain.
    assert_eq!(rw1(&x, 0.0, wd(2, 1, -1, -1, 1, 1), 1), vec![5.0]);
}

#[test]
fn base_and_window_dilation() {
    // Base dilation 2: [1,_,2,_,3], window 2: [1, 2, 2, 3] (holes are skipped).
    assert_eq!(
        rw1(&[1.0, 2.0, 3.0], 0.0, wd(2, 1, 0, 0, 2, 1), 4),
        vec![1.0, 2.0, 2.0, 3.0]
    );
    // Window dilation 2: x[i] + x[i+2].
    assert_eq!(
        rw1(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.0, wd(2, 1, 0, 0, 1, 2), 3),
        vec![4.0, 6.0, 8.0]
    );
    // Both, with padding: padded base [p,1,h,2,h,3,p] (pad 1/1, h = hole), window 2 dilated by 2 reads {i, i+2}:
    // {p,h} {1,2} {h,h} {2,3} {h,p} -> [0, 3, 0, 5, 0].
    assert_eq!(
        rw1(&[1.0, 2.0, 3.0], 0.0, wd(2, 1, 1, 1, 2, 2), 5),
        vec![0.0, 3.0, 0.0, 5.0, 0.0]
    );
    // With stride 2 every window lands on padding or holes only: the init value.
    assert_eq!(
        rw1(&[1.0, 2.0, 3.0], 7.0, wd(2, 2, 1, 1, 2, 2), 3),
        vec![7.0, 7.0, 7.0]
    );
}

#[test]
fn variadic_argmax() {
    // Max value and its index; ties keep the earlier index.
    let v = arr(&[6], vec![3.0f32, 9.0, 1.0, 9.0, 4.0, 4.0]);
    let idx = arr(&[6], (0..6).collect::<Vec<i32>>());
    let mut argmax = |a: &[Literal]| {
        let (av, ai, bv, bi) = (as_f64(&a[0]), as_f64(&a[1]), as_f64(&a[2]), as_f64(&a[3]));
        let take_b = bv > av || (bv == av && bi < ai);
        Ok(Literal::Tuple(if take_b {
            vec![a[2].clone(), a[3].clone()]
        } else {
            vec![a[0].clone(), a[1].clone()]
        }))
    };
    let out_shape = Shape::Tuple(vec![
        Shape::Array(shape(ElementType::F32, &[3])),
        Shape::Array(shape(ElementType::S32, &[3])),
    ]);
    let out = reduce_window(
        &[&v, &idx],
        &[&scalar(f32::NEG_INFINITY), &scalar(-1i32)],
        &window(&[2], &[2]),
        &mut argmax,
        &out_shape,
    )
    .unwrap();
    let Literal::Tuple(p) = out else {
        panic!("expected a tuple")
    };
    assert_eq!(lit_vals::<f32>(&p[0]), vec![9.0, 9.0, 4.0]);
    assert_eq!(lit_vals::<i32>(&p[1]), vec![1, 3, 4]);
}

#[test]
fn reduce_window_visits_in_row_major_order() {
    // A non-commutative computation (acc*10 + x) reveals the visiting order: row-major within the window.
    let a = arr(&[2, 2], vec![1i32, 2, 3, 4]);
    let mut f = |x: &[Literal]| Ok(same_type(&x[0], as_f64(&x[0]) * 10.0 + as_f64(&x[1])));
    let out = reduce_window(
        &[&a],
        &[&scalar(0i32)],
        &window(&[2, 2], &[1, 1]),
        &mut f,
        &Shape::Array(shape(ElementType::S32, &[1, 1])),
    )
    .unwrap();
    assert_eq!(lit_vals::<i32>(&out), vec![1234]);
}

#[test]
fn reduce_window_errors() {
    let a = arr(&[4], vec![0.0f32; 4]);
    // Init not a scalar.
    let bad_init = arr(&[1], vec![0.0f32]);
    assert!(
        reduce_window(
            &[&a],
            &[&bad_init],
            &window(&[2], &[1]),
            &mut add,
            &Shape::Array(shape(ElementType::F32, &[3]))
        )
        .is_err()
    );
    // Window rank mismatch.
    assert!(
        reduce_window(
            &[&a],
            &[&scalar(0.0f32)],
            &window(&[2, 2], &[1, 1]),
            &mut add,
            &Shape::Array(shape(ElementType::F32, &[3]))
        )
        .is_err()
    );
    // Tuple result for a single operand with two elements.
    let t = Shape::Tuple(vec![Shape::Array(shape(ElementType::F32, &[3])); 2]);
    assert!(reduce_window(&[&a], &[&scalar(0.0f32)], &window(&[2], &[1]), &mut add, &t).is_err());
}

fn sas(operand: ArrayLiteralArgs, source: ArrayLiteralArgs, w: &Window) -> Vec<f32> {
    let o = arr(operand.0, operand.1.to_vec());
    let s = arr(source.0, source.1.to_vec());
    let out = select_and_scatter(
        &o,
        &s,
        &scalar(0.0f32),
        w,
        &mut ge,
        &mut add,
        &o.shape.clone(),
    )
    .unwrap();
    vals(&out)
}

type ArrayLiteralArgs<'a> = (&'a [i64], &'a [f32]);

#[test]
fn spec_select_and_scatter_non_overlapping() {
    let expect = vec![
        0.0, 0.0, 0.0, 0.0, 6.0, 0.0, //
        0.0, 0.0, 2.0, 0.0, 0.0, 0.0, //
        0.0, 0.0, 3.0, 0.0, 0.0, 0.0, //
        0.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ];
    let got = sas(
        (&[4, 6], &spec_operand_4x6()),
        (&[2, 2], &[2.0, 6.0, 3.0, 1.0]),
        &window(&[2, 3], &[2, 3]),
    );
    assert_eq!(got, expect);
}

#[test]
fn spec_select_and_scatter_overlapping() {
    // The spec's figure (2): 9 is selected by both top windows, so it receives 2 + 6 = 8.
    let operand = [
        7.0, 2.0, 5.0, 3.0, 8.0, //
        3.0, 8.0, 9.0, 3.0, 4.0, //
        1.0, 5.0, 7.0, 5.0, 6.0, //
        0.0, 6.0, 2.0, 10.0, 2.0,
    ];
    let expect = vec![
        0.0, 0.0, 0.0, 0.0, 0.0, //
        0.0, 0.0, 8.0, 0.0, 0.0, //
        0.0, 0.0, 3.0, 0.0, 0.0, //
        0.0, 0.0, 0.0, 1.0, 0.0,
    ];
    let got = sas(
        (&[4, 5], &operand),
        (&[2, 2], &[2.0, 6.0, 3.0, 1.0]),
        &window(&[2, 3], &[2, 2]),
    );
    assert_eq!(got, expect);
}

#[test]
fn select_and_scatter_1d_overlapping_s32() {
    let o = arr(&[6], vec![1i32, 9, 3, 7, 5, 6]);
    let s = arr(&[4], vec![34i32, 42, 53, 19]);
    let out = select_and_scatter(
        &o,
        &s,
        &scalar(0i32),
        &window(&[3], &[1]),
        &mut ge,
        &mut add,
        &o.shape,
    )
    .unwrap();
    assert_eq!(vals::<i32>(&out), vec![0, 76, 0, 72, 0, 0]);
    // Init value 1 is the starting value of every output element.
    let o = arr(&[6], vec![-1i32, 0, 6, 4, -4, 10]);
    let s = arr(&[2], vec![-10i32, 20]);
    let out = select_and_scatter(
        &o,
        &s,
        &scalar(1i32),
        &window(&[3], &[3]),
        &mut ge,
        &mut add,
        &o.shape,
    )
    .unwrap();
    assert_eq!(vals::<i32>(&out), vec![1, 1, -9, 1, 1, 21]);
}

#[test]
fn select_and_scatter_ties_and_padding() {
    // All-zero operand, 3x3 windows with SAME padding: padding is never selected and ties keep the first element.
    let w = Window {
        dims: vec![wd(3, 1, 1, 1, 1, 1), wd(3, 1, 1, 1, 1, 1)],
    };
    let got = sas(
        (&[3, 3], &[0.0; 9]),
        (&[3, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]),
        &w,
    );
    assert_eq!(got, vec![12.0, 9.0, 0.0, 15.0, 9.0, 0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn select_and_scatter_negative_padding() {
    // XLA's R4NegativePaddingOnBothEnds (2-D slice): columns padded -1/-1, window 2x2 stride 2x2.
    let operand = [
        7.0, 2.0, 5.0, 3.0, 10.0, 3.0, //
        3.0, 8.0, 9.0, 3.0, 4.0, 2.0, //
        1.0, 5.0, 7.0, 5.0, 6.0, 1.0, //
        0.0, 6.0, 2.0, 7.0, 2.0, 8.0,
    ];
    let w = Window {
        dims: vec![wd(2, 2, 0, 0, 1, 1), wd(2, 2, -1, -1, 1, 1)],
    };
    let got = sas((&[4, 6], &operand), (&[2, 2], &[2.0, 6.0, 3.0, 1.0]), &w);
    let expect = vec![
        0.0, 0.0, 0.0, 0.0, 6.0, 0.0, //
        0.0, 0.0, 2.0, 0.0, 0.0, 0.0, //
        0.0, 0.0, 3.0, 0.0, 0.0, 0.0, //
        0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
    ];
    assert_eq!(got, expect);
}

#[test]
fn select_and_scatter_errors() {
    let o = arr(&[4], vec![0.0f32; 4]);
    // Source shape does not match the window positions (3 expected).
    let s = arr(&[2], vec![0.0f32; 2]);
    assert!(
        select_and_scatter(
            &o,
            &s,
            &scalar(0.0f32),
            &window(&[2], &[1]),
            &mut ge,
            &mut add,
            &o.shape
        )
        .is_err()
    );
    // A select that does not return pred.
    let s = arr(&[3], vec![0.0f32; 3]);
    assert!(
        select_and_scatter(
            &o,
            &s,
            &scalar(0.0f32),
            &window(&[2], &[1]),
            &mut add,
            &mut add,
            &o.shape
        )
        .is_err()
    );
}
