//! Tests of `kernels::dot`: the spec's three forms, batch dims, contracting on dim 0, several contracting/free dims
//! against a naive reference, integer wrap-around, mixed input types, f16 accumulation in f32, 0-sized dims, errors.

use crate::kernels_support;
use half::f16;
use kernels_support::*;
use rxla_eval::kernels::dot::dot;
use rxla_ir::index::IndexIter;
use rxla_ir::{DotDims, ElementType};

fn dims(lb: &[i64], lc: &[i64], rb: &[i64], rc: &[i64]) -> DotDims {
    DotDims {
        lhs_batch: lb.to_vec(),
        lhs_contracting: lc.to_vec(),
        rhs_batch: rb.to_vec(),
        rhs_contracting: rc.to_vec(),
    }
}

#[test]
fn vector_vector_is_a_scalar() {
    let l = arr(&[3], vec![1.0f32, 2.0, 3.0]);
    let r = arr(&[3], vec![4.0f32, 5.0, 6.0]);
    let out = dot(
        &l,
        &r,
        &dims(&[], &[0], &[], &[0]),
        &shape(ElementType::F32, &[]),
    )
    .unwrap();
    assert_eq!(vals::<f32>(&out), vec![32.0]);
    assert!(out.shape.dims.is_empty());
}

#[test]
fn matrix_vector() {
    let l = arr(&[3, 2], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let r = arr(&[2], vec![1.0f32, 10.0]);
    let out = dot(
        &l,
        &r,
        &dims(&[], &[1], &[], &[0]),
        &shape(ElementType::F32, &[3]),
    )
    .unwrap();
    assert_eq!(vals::<f32>(&out), vec![21.0, 43.0, 65.0]);
}

#[test]
fn matrix_matrix() {
    let l = arr(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0]);
    let r = arr(&[2, 2], vec![5.0f32, 6.0, 7.0, 8.0]);
    let out = dot(
        &l,
        &r,
        &dims(&[], &[1], &[], &[0]),
        &shape(ElementType::F32, &[2, 2]),
    )
    .unwrap();
    assert_eq!(vals::<f32>(&out), vec![19.0, 22.0, 43.0, 50.0]);
    // Non-square: [2,3] x [3,1].
    let l = arr(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let r = arr(&[3, 1], vec![1.0f32, 0.0, -1.0]);
    let out = dot(
        &l,
        &r,
        &dims(&[], &[1], &[], &[0]),
        &shape(ElementType::F32, &[2, 1]),
    )
    .unwrap();
    assert_eq!(vals::<f32>(&out), vec![-2.0, -2.0]);
}

#[test]
fn batch_dims() {
    // Two batches of [2,2] x [2,1].
    let l = arr(&[2, 2, 2], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    let r = arr(&[2, 2, 1], vec![1.0f32, 1.0, 2.0, -1.0]);
    let out = dot(
        &l,
        &r,
        &dims(&[0], &[2], &[0], &[1]),
        &shape(ElementType::F32, &[2, 2, 1]),
    )
    .unwrap();
    assert_eq!(vals::<f32>(&out), vec![3.0, 7.0, 4.0, 6.0]);
    // Batch dim in the middle of rhs and last in lhs: lhs [k=2, b=2], rhs [n=1, b=2, k=2].
    let l = arr(&[2, 2], vec![1.0f32, 10.0, 2.0, 20.0]); // l[k][b]
    let r = arr(&[1, 2, 2], vec![1.0f32, 1.0, 3.0, -1.0]); // r[0][b][k]
    let out = dot(
        &l,
        &r,
        &dims(&[1], &[0], &[1], &[2]),
        &shape(ElementType::F32, &[2, 1]),
    )
    .unwrap();
    // b=0: l[:,0]=[1,2] . r[0][0]=[1,1] = 3; b=1: [10,20] . [3,-1] = 10.
    assert_eq!(vals::<f32>(&out), vec![3.0, 10.0]);
}

#[test]
fn contracting_on_dim_zero() {
    // lhs^T . rhs with lhs [2,3], rhs [2,2].
    let l = arr(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let r = arr(&[2, 2], vec![1.0f32, 0.0, 0.0, 1.0]);
    let out = dot(
        &l,
        &r,
        &dims(&[], &[0], &[], &[0]),
        &shape(ElementType::F32, &[3, 2]),
    )
    .unwrap();
    assert_eq!(vals::<f32>(&out), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
}

/// Naive dot_general: for every result index, sum over the contracting index space.
fn naive(l: &[f32], ld: &[i64], r: &[f32], rd: &[i64], d: &DotDims) -> (Vec<i64>, Vec<f32>) {
    let free = |rank: usize, b: &[i64], c: &[i64]| -> Vec<usize> {
        (0..rank)
            .filter(|&x| !b.contains(&(x as i64)) && !c.contains(&(x as i64)))
            .collect()
    };
    let lf = free(ld.len(), &d.lhs_batch, &d.lhs_contracting);
    let rf = free(rd.len(), &d.rhs_batch, &d.rhs_contracting);
    let mut od: Vec<i64> = d.lhs_batch.iter().map(|&x| ld[x as usize]).collect();
    od.extend(lf.iter().map(|&x| ld[x]));
    od.extend(rf.iter().map(|&x| rd[x]));
    let cd: Vec<i64> = d.lhs_contracting.iter().map(|&x| ld[x as usize]).collect();
    let mut out = Vec::new();
    for o in IndexIter::new(&od) {
        let nb = d.lhs_batch.len();
        let mut sum = 0.0f32;
        for k in IndexIter::new(&cd) {
            let mut li = vec![0i64; ld.len()];
            let mut ri = vec![0i64; rd.len()];
            for (i, (&a, &b)) in d.lhs_batch.iter().zip(&d.rhs_batch).enumerate() {
                li[a as usize] = o[i];
                ri[b as usize] = o[i];
            }
            for (i, &a) in lf.iter().enumerate() {
                li[a] = o[nb + i];
            }
            for (i, &b) in rf.iter().enumerate() {
                ri[b] = o[nb + lf.len() + i];
            }
            for (i, (&a, &b)) in d.lhs_contracting.iter().zip(&d.rhs_contracting).enumerate() {
                li[a as usize] = k[i];
                ri[b as usize] = k[i];
            }
            sum += l[rxla_ir::index::row_major_linear(ld, &li)]
                * r[rxla_ir::index::row_major_linear(rd, &ri)];
        }
        out.push(sum);
    }
    (od, out)
}

#[test]
fn general_form_matches_naive_reference() {
    // lhs [c0=2, b=3, m=2, c1=3], rhs [n=2, c1=3, b=3, c0=2, n2=2].
    let ld = [2i64, 3, 2, 3];
    let rd = [2i64, 3, 3, 2, 2];
    let lv = ints(36, 1, -4, 5);
    let rv = ints(72, 2, -4, 5);
    let d = dims(&[1], &[0, 3], &[2], &[3, 1]);
    let (od, expect) = naive(&lv, &ld, &rv, &rd, &d);
    assert_eq!(od, vec![3, 2, 2, 2]);
    let out = dot(
        &arr(&ld, lv),
        &arr(&rd, rv),
        &d,
        &shape(ElementType::F32, &od),
    )
    .unwrap();
    assert_eq!(vals::<f32>(&out), expect);
}

#[test]
fn integers_wrap() {
    let l = arr(&[2], vec![i32::MAX, 1]);
    let r = arr(&[2], vec![1i32, 1]);
    let out = dot(
        &l,
        &r,
        &dims(&[], &[0], &[], &[0]),
        &shape(ElementType::S32, &[]),
    )
    .unwrap();
    assert_eq!(vals::<i32>(&out), vec![i32::MIN]);
    let l = arr(&[1], vec![65536i32]);
    let out = dot(
        &l,
        &l,
        &dims(&[], &[0], &[], &[0]),
        &shape(ElementType::S32, &[]),
    )
    .unwrap();
    assert_eq!(vals::<i32>(&out), vec![0]);
    // u8 wraps modulo 256.
    let l = arr(&[2], vec![200u8, 100]);
    let r = arr(&[2], vec![1u8, 1]);
    let out = dot(
        &l,
        &r,
        &dims(&[], &[0], &[], &[0]),
        &shape(ElementType::U8, &[]),
    )
    .unwrap();
    assert_eq!(vals::<u8>(&out), vec![44]);
}

#[test]
fn mixed_types_convert_to_the_result_type() {
    // s8 x s8 -> s32 does not wrap at 8 bits.
    let l = arr(&[2], vec![100i8, 100]);
    let r = arr(&[2], vec![100i8, 100]);
    let out = dot(
        &l,
        &r,
        &dims(&[], &[0], &[], &[0]),
        &shape(ElementType::S32, &[]),
    )
    .unwrap();
    assert_eq!(vals::<i32>(&out), vec![20000]);
    // bf16 x bf16 -> f32.
    let l = arr(
        &[2],
        vec![half::bf16::from_f32(1.5), half::bf16::from_f32(2.0)],
    );
    let out = dot(
        &l,
        &l,
        &dims(&[], &[0], &[], &[0]),
        &shape(ElementType::F32, &[]),
    )
    .unwrap();
    assert_eq!(vals::<f32>(&out), vec![6.25]);
}

#[test]
fn f16_accumulates_in_f32_and_rounds_once() {
    // In f16, 2048 + 1 rounds back to 2048 (spacing 2); in f32 the sum 2050 is exact and representable in f16.
    let l = arr(
        &[3],
        vec![
            f16::from_f32(2048.0),
            f16::from_f32(1.0),
            f16::from_f32(1.0),
        ],
    );
    let r = arr(&[3], vec![f16::from_f32(1.0); 3]);
    let out = dot(
        &l,
        &r,
        &dims(&[], &[0], &[], &[0]),
        &shape(ElementType::F16, &[]),
    )
    .unwrap();
    assert_eq!(vals::<f16>(&out), vec![f16::from_f32(2050.0)]);
}

#[test]
fn f32_accumulates_in_order() {
    // 1e8 + 1 - 1e8 in f32 order (left to right) is 0, not 1: the order is part of the semantics.
    let l = arr(&[3], vec![1e8f32, 1.0, -1e8]);
    let r = arr(&[3], vec![1.0f32; 3]);
    let out = dot(
        &l,
        &r,
        &dims(&[], &[0], &[], &[0]),
        &shape(ElementType::F32, &[]),
    )
    .unwrap();
    assert_eq!(vals::<f32>(&out), vec![0.0]);
}

#[test]
fn zero_sized_dims() {
    // Empty contraction gives zeros.
    let l = arr::<f32>(&[2, 0], vec![]);
    let r = arr::<f32>(&[0, 3], vec![]);
    let out = dot(
        &l,
        &r,
        &dims(&[], &[1], &[], &[0]),
        &shape(ElementType::F32, &[2, 3]),
    )
    .unwrap();
    assert_eq!(vals::<f32>(&out), vec![0.0; 6]);
    // Empty free dim gives an empty result.
    let l = arr::<f32>(&[0, 4], vec![]);
    let r = arr(&[4, 3], vec![1.0f32; 12]);
    let out = dot(
        &l,
        &r,
        &dims(&[], &[1], &[], &[0]),
        &shape(ElementType::F32, &[0, 3]),
    )
    .unwrap();
    assert!(vals::<f32>(&out).is_empty());
    assert_eq!(out.shape.dims, vec![0, 3]);
}

#[test]
fn result_keeps_the_requested_layout() {
    let l = arr(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0]);
    let r = arr(&[2, 2], vec![5.0f32, 6.0, 7.0, 8.0]);
    let out_shape = rxla_ir::ArrayShape::with_layout(
        ElementType::F32,
        vec![2, 2],
        rxla_ir::Layout::column_major(2),
    )
    .unwrap();
    let out = dot(&l, &r, &dims(&[], &[1], &[], &[0]), &out_shape).unwrap();
    // Data stays row-major; the layout is carried.
    assert_eq!(vals::<f32>(&out), vec![19.0, 22.0, 43.0, 50.0]);
    assert_eq!(out.shape, out_shape);
}

#[test]
fn bad_dimension_numbers_are_errors() {
    let l = arr(&[2, 3], vec![0.0f32; 6]);
    let r = arr(&[2, 3], vec![0.0f32; 6]);
    let f32s = |d: &[i64]| shape(ElementType::F32, d);
    // Contracting sizes differ (3 vs 2).
    assert!(dot(&l, &r, &dims(&[], &[1], &[], &[0]), &f32s(&[2, 3])).is_err());
    // Out of range dimension.
    assert!(dot(&l, &r, &dims(&[], &[2], &[], &[0]), &f32s(&[2, 3])).is_err());
    // Wrong result dims.
    assert!(dot(&l, &r, &dims(&[], &[1], &[], &[1]), &f32s(&[3, 3])).is_err());
    // Dimension listed twice.
    assert!(dot(&l, &r, &dims(&[0], &[0], &[0], &[1]), &f32s(&[2])).is_err());
    // Mismatched list lengths.
    assert!(dot(&l, &r, &dims(&[], &[0, 1], &[], &[0]), &f32s(&[])).is_err());
}

#[test]
fn matmul_256_is_fast() {
    let n = 256usize;
    let a: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32 - 3.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| (i % 5) as f32 - 2.0).collect();
    let l = arr(&[n as i64, n as i64], a.clone());
    let r = arr(&[n as i64, n as i64], b.clone());
    let t = std::time::Instant::now();
    let out = dot(
        &l,
        &r,
        &dims(&[], &[1], &[], &[0]),
        &shape(ElementType::F32, &[n as i64, n as i64]),
    )
    .unwrap();
    let elapsed = t.elapsed();
    // Generous bound: the test profile is barely optimised and the machine is shared.
    eprintln!("256^3 dot took {elapsed:?}"); // printed, not asserted: hosts vary
    let o = vals::<f32>(&out);
    for &(i, j) in &[(0usize, 0usize), (17, 200), (255, 255)] {
        let want: f32 = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
        assert_eq!(o[i * n + j], want);
    }
}
