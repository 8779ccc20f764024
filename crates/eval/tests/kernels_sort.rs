//! Tests of `kernels::sort::sort`: 1-D, 2-D along each dimension (and -1), multi-operand (keys carry values),
//! stability on ties, NaN keys with a total-order comparator, descending order, comparators that are not strict weak
//! orders (no panic, a permutation), comparator errors, empty and scalar inputs.

use crate::kernels_support;
use kernels_support::*;
use rxla_eval::kernels::sort::sort;
use rxla_ir::{ElementType, Literal, Shape};

fn sort1(x: Vec<f32>, cmp: &mut dyn FnMut(&[Literal]) -> rxla_eval::Result<Literal>) -> Vec<f32> {
    let a = arr(&[x.len() as i64], x);
    let out = sort(&[&a], 0, false, cmp, &Shape::Array(a.shape.clone())).unwrap();
    lit_vals(&out)
}

#[test]
fn one_d_ascending() {
    assert_eq!(
        sort1(vec![3.0, 1.0, 2.0, -5.0, 0.5], &mut lt),
        vec![-5.0, 0.5, 1.0, 2.0, 3.0]
    );
    assert_eq!(sort1(vec![], &mut lt), Vec::<f32>::new());
    assert_eq!(sort1(vec![4.0], &mut lt), vec![4.0]);
    // Already sorted and reversed inputs of odd lengths.
    let up: Vec<f32> = (0..37).map(|v| v as f32).collect();
    assert_eq!(sort1(up.clone(), &mut lt), up);
    assert_eq!(sort1(up.iter().rev().copied().collect(), &mut lt), up);
}

#[test]
fn descending_with_gt() {
    let mut gt = |a: &[Literal]| Ok(Literal::scalar(as_f64(&a[0]) > as_f64(&a[1])));
    assert_eq!(sort1(vec![3.0, 1.0, 2.0], &mut gt), vec![3.0, 2.0, 1.0]);
}

#[test]
fn two_d_along_each_dimension() {
    let a = arr(&[2, 3], vec![3i32, 1, 2, 0, 5, 4]);
    let s = Shape::Array(a.shape.clone());
    let along1 = sort(&[&a], 1, false, &mut lt, &s).unwrap();
    assert_eq!(lit_vals::<i32>(&along1), vec![1, 2, 3, 0, 4, 5]);
    let along_last = sort(&[&a], -1, false, &mut lt, &s).unwrap();
    assert_eq!(along_last, along1);
    let along0 = sort(&[&a], 0, false, &mut lt, &s).unwrap();
    assert_eq!(lit_vals::<i32>(&along0), vec![0, 1, 2, 3, 5, 4]);
    // 3-D, middle dimension.
    let b = arr(&[2, 3, 2], vec![5i32, 0, 3, 1, 4, 2, 9, 6, 7, 8, 8, 7]);
    let out = sort(&[&b], 1, false, &mut lt, &Shape::Array(b.shape.clone())).unwrap();
    assert_eq!(
        lit_vals::<i32>(&out),
        vec![3, 0, 4, 1, 5, 2, 7, 6, 8, 7, 9, 8]
    );
    // Out-of-range dimension.
    assert!(sort(&[&a], 2, false, &mut lt, &s).is_err());
}

#[test]
fn multi_operand_sorts_keys_and_carries_values() {
    let k = arr(&[4], vec![3.0f32, 1.0, 2.0, 0.0]);
    let v = arr(&[4], vec![30i32, 10, 20, 0]);
    let out_shape = Shape::Tuple(vec![
        Shape::Array(k.shape.clone()),
        Shape::Array(v.shape.clone()),
    ]);
    let mut seen_arity = 0;
    let mut cmp = |a: &[Literal]| {
        seen_arity = a.len();
        lt(a)
    };
    let out = sort(&[&k, &v], 0, true, &mut cmp, &out_shape).unwrap();
    assert_eq!(seen_arity, 4);
    let Literal::Tuple(p) = out else {
        panic!("expected a tuple")
    };
    assert_eq!(lit_vals::<f32>(&p[0]), vec![0.0, 1.0, 2.0, 3.0]);
    assert_eq!(lit_vals::<i32>(&p[1]), vec![0, 10, 20, 30]);
}

#[test]
fn comparator_sees_lhs_rhs_pairs_per_operand() {
    // Sort by operand 1 (args 2 and 3), descending; operand 0 follows.
    let a = arr(&[3], vec![1i32, 2, 3]);
    let b = arr(&[3], vec![5.0f32, 9.0, 7.0]);
    let mut by_second_desc = |x: &[Literal]| Ok(Literal::scalar(as_f64(&x[2]) > as_f64(&x[3])));
    let out_shape = Shape::Tuple(vec![
        Shape::Array(a.shape.clone()),
        Shape::Array(b.shape.clone()),
    ]);
    let out = sort(&[&a, &b], 0, false, &mut by_second_desc, &out_shape).unwrap();
    let Literal::Tuple(p) = out else {
        panic!("expected a tuple")
    };
    assert_eq!(lit_vals::<i32>(&p[0]), vec![2, 3, 1]);
    assert_eq!(lit_vals::<f32>(&p[1]), vec![9.0, 7.0, 5.0]);
}

#[test]
fn stable_on_ties() {
    let k = arr(&[8], vec![1i32, 0, 1, 0, 2, 1, 0, 2]);
    let v = arr(&[8], (0..8).collect::<Vec<i32>>());
    let out_shape = Shape::Tuple(vec![
        Shape::Array(k.shape.clone()),
        Shape::Array(v.shape.clone()),
    ]);
    for is_stable in [true, false] {
        let out = sort(&[&k, &v], 0, is_stable, &mut lt, &out_shape).unwrap();
        let Literal::Tuple(p) = out else {
            panic!("expected a tuple")
        };
        assert_eq!(lit_vals::<i32>(&p[0]), vec![0, 0, 0, 1, 1, 1, 2, 2]);
        assert_eq!(lit_vals::<i32>(&p[1]), vec![1, 3, 6, 0, 2, 5, 4, 7]);
    }
}

fn f32_of(l: &Literal) -> f32 {
    l.as_slice::<f32>().unwrap()[0]
}

#[test]
fn nan_keys_with_total_order_comparator() {
    let x = vec![
        3.0f32,
        f32::NAN,
        -1.0,
        -f32::NAN,
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    let mut total = |a: &[Literal]| {
        Ok(Literal::scalar(
            f32_of(&a[0]).total_cmp(&f32_of(&a[1])).is_lt(),
        ))
    };
    let got = sort1(x, &mut total);
    let bits: Vec<u32> = got.iter().map(|v| v.to_bits()).collect();
    let want: Vec<u32> = [
        -f32::NAN,
        f32::NEG_INFINITY,
        -1.0,
        -0.0,
        0.0,
        3.0,
        f32::INFINITY,
        f32::NAN,
    ]
    .iter()
    .map(|v| v.to_bits())
    .collect();
    assert_eq!(bits, want);
    // A plain IEEE `<` with NaNs is not a strict weak order: no panic, and the result is a permutation.
    let x = vec![f32::NAN, 2.0, f32::NAN, 1.0, 0.0, f32::NAN, -3.0];
    let got = sort1(x.clone(), &mut lt);
    assert_eq!(got.iter().filter(|v| v.is_nan()).count(), 3);
    let mut finite: Vec<f32> = got.into_iter().filter(|v| !v.is_nan()).collect();
    finite.sort_by(f32::total_cmp);
    assert_eq!(finite, vec![-3.0, 0.0, 1.0, 2.0]);
}

#[test]
fn inconsistent_comparators_do_not_panic() {
    let x: Vec<f32> = (0..50).map(|v| ((v * 37) % 50) as f32).collect();
    let mut always = |_: &[Literal]| Ok(Literal::scalar(true));
    let mut got = sort1(x.clone(), &mut always);
    let mut n = 0u64;
    let mut chaotic = |_: &[Literal]| {
        n = n
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        Ok(Literal::scalar(n >> 63 == 1))
    };
    let mut got2 = sort1(x.clone(), &mut chaotic);
    let mut want = x;
    want.sort_by(f32::total_cmp);
    got.sort_by(f32::total_cmp);
    got2.sort_by(f32::total_cmp);
    assert_eq!(got, want);
    assert_eq!(got2, want);
}

#[test]
fn comparator_errors_propagate() {
    let a = arr(&[3], vec![1.0f32, 2.0, 0.0]);
    let s = Shape::Array(a.shape.clone());
    let mut fail = |_: &[Literal]| Err(rxla_eval::EvalError::new("comparator failed"));
    assert!(
        sort(&[&a], 0, false, &mut fail, &s)
            .unwrap_err()
            .to_string()
            .contains("comparator failed")
    );
    // A comparator returning a non-pred value.
    let mut not_pred = |_: &[Literal]| Ok(Literal::scalar(1.0f32));
    assert!(sort(&[&a], 0, false, &mut not_pred, &s).is_err());
    // Operands of different shapes.
    let b = arr(&[2], vec![1.0f32, 2.0]);
    let t = Shape::Tuple(vec![s.clone(), Shape::Array(b.shape.clone())]);
    assert!(sort(&[&a, &b], 0, false, &mut lt, &t).is_err());
    // Wrong result shape kind.
    assert!(
        sort(
            &[&a],
            0,
            false,
            &mut lt,
            &Shape::Array(shape(ElementType::S32, &[3]))
        )
        .is_err()
    );
}

#[test]
fn sort_65536_with_a_closure_comparator_is_fast() {
    let n = 1usize << 16;
    let x: Vec<f32> = (0..n).map(|i| ((i * 7919) % n) as f32).collect();
    let mut calls = 0usize;
    let mut cmp = |a: &[Literal]| {
        calls += 1;
        Ok(Literal::scalar(f32_of(&a[0]) < f32_of(&a[1])))
    };
    let t = std::time::Instant::now();
    let got = sort1(x, &mut cmp);
    let dt = t.elapsed();
    println!("sort of {n}: {dt:?}, {calls} comparator calls");
    eprintln!("took {dt:?}"); // printed, not asserted: hosts vary
    assert!(calls <= n * 16, "{calls} comparator calls");
    assert_eq!(got, (0..n).map(|i| i as f32).collect::<Vec<_>>());
}
