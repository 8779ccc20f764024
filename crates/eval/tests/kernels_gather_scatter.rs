//! Tests of `kernels::gather` and `kernels::scatter`: JAX-style `take`, row gathers, index clamping, multi-element
//! index vectors, index_vector_dim in front and implicit, batching dims; scatter-add with duplicates, application
//! order, out-of-bounds windows skipped, variadic scatter, batching dims, bad dimension numbers.

use crate::kernels_support;
use kernels_support::*;
use rxla_eval::kernels::gather::gather;
use rxla_eval::kernels::scatter::scatter;
use rxla_ir::{ElementType, GatherDims, Literal, ScatterDims, Shape};

fn gdims(offset: &[i64], collapsed: &[i64], start_map: &[i64], ivd: i64) -> GatherDims {
    GatherDims {
        offset_dims: offset.to_vec(),
        collapsed_slice_dims: collapsed.to_vec(),
        start_index_map: start_map.to_vec(),
        index_vector_dim: ivd,
        ..Default::default()
    }
}

fn sdims(window: &[i64], inserted: &[i64], to_operand: &[i64], ivd: i64) -> ScatterDims {
    ScatterDims {
        update_window_dims: window.to_vec(),
        inserted_window_dims: inserted.to_vec(),
        scatter_dims_to_operand_dims: to_operand.to_vec(),
        index_vector_dim: ivd,
        ..Default::default()
    }
}

#[test]
fn gather_take_1d() {
    // jnp.take(x, [4, 0, 2]) with an implicit index vector (index_vector_dim == rank of indices).
    let x = arr(&[5], vec![10.0f32, 20.0, 30.0, 40.0, 50.0]);
    let i = arr(&[3], vec![4i32, 0, 2]);
    let out = gather(
        &x,
        &i,
        &gdims(&[], &[0], &[0], 1),
        &[1],
        &shape(ElementType::F32, &[3]),
    )
    .unwrap();
    assert_eq!(vals::<f32>(&out), vec![50.0, 10.0, 30.0]);
    // Same with an explicit trailing index vector dim of size 1 and s64 indices.
    let i = arr(&[3, 1], vec![4i64, 0, 2]);
    let out = gather(
        &x,
        &i,
        &gdims(&[], &[0], &[0], 1),
        &[1],
        &shape(ElementType::F32, &[3]),
    )
    .unwrap();
    assert_eq!(vals::<f32>(&out), vec![50.0, 10.0, 30.0]);
}

#[test]
fn gather_rows() {
    let x = arr(&[3, 2], vec![1i32, 2, 3, 4, 5, 6]);
    let i = arr(&[2, 1], vec![2i32, 0]);
    let out = gather(
        &x,
        &i,
        &gdims(&[1], &[0], &[0], 1),
        &[1, 2],
        &shape(ElementType::S32, &[2, 2]),
    )
    .unwrap();
    assert_eq!(vals::<i32>(&out), vec![5, 6, 1, 2]);
    // Columns: x[:, [1, 0, 1]] -> result [3 rows, 3 picks] with offset dim 0.
    let i = arr(&[3], vec![1i32, 0, 1]);
    let out = gather(
        &x,
        &i,
        &gdims(&[0], &[1], &[1], 1),
        &[3, 1],
        &shape(ElementType::S32, &[3, 3]),
    )
    .unwrap();
    assert_eq!(vals::<i32>(&out), vec![2, 1, 2, 4, 3, 4, 6, 5, 6]);
}

#[test]
fn gather_clamps_start_indices() {
    // Slices of size 3 from a length-5 vector: starts -2 and 4 clamp to 0 and 2; 1 stays.
    let x = arr(&[5], vec![10.0f32, 20.0, 30.0, 40.0, 50.0]);
    let i = arr(&[3, 1], vec![-2i32, 4, 1]);
    let out = gather(
        &x,
        &i,
        &gdims(&[1], &[], &[0], 1),
        &[3],
        &shape(ElementType::F32, &[3, 3]),
    )
    .unwrap();
    assert_eq!(
        vals::<f32>(&out),
        vec![10.0, 20.0, 30.0, 30.0, 40.0, 50.0, 20.0, 30.0, 40.0]
    );
    // A huge u64 index clamps too.
    let i = arr(&[1], vec![u64::MAX]);
    let out = gather(
        &x,
        &i,
        &gdims(&[], &[0], &[0], 1),
        &[1],
        &shape(ElementType::F32, &[1]),
    )
    .unwrap();
    assert_eq!(vals::<f32>(&out), vec![50.0]);
}

#[test]
fn gather_point_indices_and_leading_index_vector_dim() {
    let x = arr(&[3, 3], (0..9).collect::<Vec<i32>>());
    // Index vectors (row, col) along the last dim: [[0,1],[2,2],[1,0]].
    let i = arr(&[3, 2], vec![0i32, 1, 2, 2, 1, 0]);
    let out = gather(
        &x,
        &i,
        &gdims(&[], &[0, 1], &[0, 1], 1),
        &[1, 1],
        &shape(ElementType::S32, &[3]),
    )
    .unwrap();
    assert_eq!(vals::<i32>(&out), vec![1, 8, 3]);
    // The same vectors stored along dim 0 (index_vector_dim = 0): shape [2, 3].
    let i = arr(&[2, 3], vec![0i32, 2, 1, 1, 2, 0]);
    let out = gather(
        &x,
        &i,
        &gdims(&[], &[0, 1], &[0, 1], 0),
        &[1, 1],
        &shape(ElementType::S32, &[3]),
    )
    .unwrap();
    assert_eq!(vals::<i32>(&out), vec![1, 8, 3]);
    // start_index_map reversed: vectors are (col, row).
    let i = arr(&[3, 2], vec![1i32, 0, 2, 2, 0, 1]);
    let out = gather(
        &x,
        &i,
        &gdims(&[], &[0, 1], &[1, 0], 1),
        &[1, 1],
        &shape(ElementType::S32, &[3]),
    )
    .unwrap();
    assert_eq!(vals::<i32>(&out), vec![1, 8, 3]);
    // 2x2 windows at (1,1) and (0,1), offset dims after the batch dim.
    let i = arr(&[2, 2], vec![1i32, 1, 0, 1]);
    let out = gather(
        &x,
        &i,
        &gdims(&[1, 2], &[], &[0, 1], 1),
        &[2, 2],
        &shape(ElementType::S32, &[2, 2, 2]),
    )
    .unwrap();
    assert_eq!(vals::<i32>(&out), vec![4, 5, 7, 8, 1, 2, 4, 5]);
}

#[test]
fn gather_batching_dims() {
    // out[b] = x[b, idx[b]] (jnp.take_along_axis style with batching dims).
    let x = arr(&[2, 3], vec![1i32, 2, 3, 4, 5, 6]);
    let i = arr(&[2], vec![2i32, 0]);
    let d = GatherDims {
        offset_dims: vec![],
        collapsed_slice_dims: vec![1],
        start_index_map: vec![1],
        index_vector_dim: 1,
        operand_batching_dims: vec![0],
        start_indices_batching_dims: vec![0],
    };
    let out = gather(&x, &i, &d, &[1, 1], &shape(ElementType::S32, &[2])).unwrap();
    assert_eq!(vals::<i32>(&out), vec![3, 4]);
    // Two picks per batch: indices [2 batches, 2 picks] -> out[b, j] = x[b, idx[b, j]].
    let i = arr(&[2, 2], vec![1i32, 1, 0, 2]);
    let d2 = GatherDims {
        index_vector_dim: 2,
        ..d.clone()
    };
    let out = gather(&x, &i, &d2, &[1, 1], &shape(ElementType::S32, &[2, 2])).unwrap();
    assert_eq!(vals::<i32>(&out), vec![2, 2, 4, 6]);
    // Batching dim of the indices is dim 1 (picks first): indices [2 picks, 2 batches].
    let i = arr(&[2, 2], vec![1i32, 0, 1, 2]);
    let d3 = GatherDims {
        start_indices_batching_dims: vec![1],
        ..d2
    };
    let out = gather(&x, &i, &d3, &[1, 1], &shape(ElementType::S32, &[2, 2])).unwrap();
    // out[j, b] = x[b, idx[j, b]]: [[x[0,1], x[1,0]], [x[0,1], x[1,2]]].
    assert_eq!(vals::<i32>(&out), vec![2, 4, 2, 6]);
}

#[test]
fn gather_errors() {
    let x = arr(&[5], vec![0.0f32; 5]);
    let i = arr(&[2], vec![0i32, 1]);
    // Slice larger than the operand.
    assert!(
        gather(
            &x,
            &i,
            &gdims(&[1], &[], &[0], 1),
            &[6],
            &shape(ElementType::F32, &[2, 6])
        )
        .is_err()
    );
    // Float indices.
    let fi = arr(&[2], vec![0.0f32, 1.0]);
    assert!(
        gather(
            &x,
            &fi,
            &gdims(&[], &[0], &[0], 1),
            &[1],
            &shape(ElementType::F32, &[2])
        )
        .is_err()
    );
    // index_vector_dim out of range.
    assert!(
        gather(
            &x,
            &i,
            &gdims(&[], &[0], &[0], 3),
            &[1],
            &shape(ElementType::F32, &[2])
        )
        .is_err()
    );
    // Wrong result shape.
    assert!(
        gather(
            &x,
            &i,
            &gdims(&[], &[0], &[0], 1),
            &[1],
            &shape(ElementType::F32, &[3])
        )
        .is_err()
    );
}

fn replace(args: &[Literal]) -> rxla_eval::Result<Literal> {
    Ok(args[1].clone())
}

#[test]
fn scatter_add_with_duplicates() {
    let x = arr(&[5], vec![0.0f32; 5]);
    let i = arr(&[3, 1], vec![1i32, 3, 1]);
    let u = arr(&[3], vec![10.0f32, 20.0, 30.0]);
    let out = scatter(
        &[&x],
        &i,
        &[&u],
        &sdims(&[], &[0], &[0], 1),
        &mut add,
        &Shape::Array(x.shape.clone()),
    )
    .unwrap();
    assert_eq!(lit_vals::<f32>(&out), vec![0.0, 40.0, 0.0, 20.0, 0.0]);
}

#[test]
fn scatter_applies_in_row_major_order_of_updates() {
    // With "replace", the last update to a position wins; the order is the row-major order of scatter indices.
    let x = arr(&[3], vec![0i32; 3]);
    let i = arr(&[2, 2], vec![0i32, 2, 0, 1]);
    let u = arr(&[2, 2], vec![1i32, 2, 3, 4]);
    let out = scatter(
        &[&x],
        &i,
        &[&u],
        &sdims(&[], &[0], &[0], 2),
        &mut replace,
        &Shape::Array(x.shape.clone()),
    )
    .unwrap();
    assert_eq!(lit_vals::<i32>(&out), vec![3, 4, 2]);
    // And the computation sees (current, update) in that order: a non-commutative "2*cur + upd".
    let mut f = |a: &[Literal]| Ok(same_type(&a[0], 2.0 * as_f64(&a[0]) + as_f64(&a[1])));
    let i = arr(&[3], vec![0i32, 0, 0]);
    let u = arr(&[3], vec![1i32, 2, 3]);
    let out = scatter(
        &[&x],
        &i,
        &[&u],
        &sdims(&[], &[0], &[0], 1),
        &mut f,
        &Shape::Array(x.shape.clone()),
    )
    .unwrap();
    // ((0*2+1)*2+2)*2+3 = 11.
    assert_eq!(lit_vals::<i32>(&out), vec![11, 0, 0]);
}

#[test]
fn scatter_skips_out_of_bounds_windows() {
    let x = arr(&[5], vec![0.0f32; 5]);
    // Point updates: -1 and 5 are out of bounds, 2 is applied.
    let i = arr(&[3, 1], vec![-1i32, 5, 2]);
    let u = arr(&[3], vec![1.0f32, 2.0, 3.0]);
    let out = scatter(
        &[&x],
        &i,
        &[&u],
        &sdims(&[], &[0], &[0], 1),
        &mut add,
        &Shape::Array(x.shape.clone()),
    )
    .unwrap();
    assert_eq!(lit_vals::<f32>(&out), vec![0.0, 0.0, 3.0, 0.0, 0.0]);
    // Windows of 2: start 3 fits (3, 4), start 4 would spill past the end so the WHOLE window is skipped (even
    // position 4), start -1 likewise.
    let i = arr(&[3, 1], vec![3i32, 4, -1]);
    let u = arr(&[3, 2], vec![1.0f32, 2.0, 10.0, 20.0, 100.0, 200.0]);
    let out = scatter(
        &[&x],
        &i,
        &[&u],
        &sdims(&[1], &[], &[0], 1),
        &mut add,
        &Shape::Array(x.shape.clone()),
    )
    .unwrap();
    assert_eq!(lit_vals::<f32>(&out), vec![0.0, 0.0, 0.0, 1.0, 2.0]);
}

#[test]
fn scatter_rows_into_a_matrix() {
    let x = arr(&[3, 2], vec![0i32; 6]);
    let i = arr(&[2], vec![2i32, 0]);
    let u = arr(&[2, 2], vec![1i32, 2, 3, 4]);
    let out = scatter(
        &[&x],
        &i,
        &[&u],
        &sdims(&[1], &[0], &[0], 1),
        &mut replace,
        &Shape::Array(x.shape.clone()),
    )
    .unwrap();
    assert_eq!(lit_vals::<i32>(&out), vec![3, 4, 0, 0, 1, 2]);
}

#[test]
fn scatter_variadic_returns_a_tuple() {
    let x = arr(&[3], vec![0.0f32; 3]);
    let y = arr(&[3], vec![0i32; 3]);
    let i = arr(&[3], vec![0i32, 2, 0]);
    let ux = arr(&[3], vec![1.0f32, 2.0, 3.0]);
    let uy = arr(&[3], vec![5i32, 7, 4]);
    // (sum, max) of (operand 0, operand 1): args are (cur_x, cur_y, upd_x, upd_y).
    let mut f = |a: &[Literal]| {
        Ok(Literal::Tuple(vec![
            same_type(&a[0], as_f64(&a[0]) + as_f64(&a[2])),
            same_type(&a[1], as_f64(&a[1]).max(as_f64(&a[3]))),
        ]))
    };
    let out_shape = Shape::Tuple(vec![
        Shape::Array(x.shape.clone()),
        Shape::Array(y.shape.clone()),
    ]);
    let out = scatter(
        &[&x, &y],
        &i,
        &[&ux, &uy],
        &sdims(&[], &[0], &[0], 1),
        &mut f,
        &out_shape,
    )
    .unwrap();
    let Literal::Tuple(parts) = out else {
        panic!("expected a tuple")
    };
    assert_eq!(lit_vals::<f32>(&parts[0]), vec![4.0, 0.0, 2.0]);
    assert_eq!(lit_vals::<i32>(&parts[1]), vec![5, 0, 7]);
}

#[test]
fn scatter_batching_dims() {
    // x[b, idx[b]] += u[b].
    let x = arr(&[2, 3], vec![0i32; 6]);
    let i = arr(&[2], vec![2i32, 0]);
    let u = arr(&[2], vec![5i32, 7]);
    let d = ScatterDims {
        update_window_dims: vec![],
        inserted_window_dims: vec![1],
        scatter_dims_to_operand_dims: vec![1],
        index_vector_dim: 1,
        input_batching_dims: vec![0],
        scatter_indices_batching_dims: vec![0],
    };
    let out = scatter(
        &[&x],
        &i,
        &[&u],
        &d,
        &mut add,
        &Shape::Array(x.shape.clone()),
    )
    .unwrap();
    assert_eq!(lit_vals::<i32>(&out), vec![0, 0, 5, 7, 0, 0]);
}

#[test]
fn scatter_errors() {
    let x = arr(&[5], vec![0.0f32; 5]);
    let i = arr(&[2], vec![0i32, 1]);
    let u = arr(&[3], vec![0.0f32; 3]);
    // Update scatter dim size 3 != 2 indices.
    assert!(
        scatter(
            &[&x],
            &i,
            &[&u],
            &sdims(&[], &[0], &[0], 1),
            &mut add,
            &Shape::Array(x.shape.clone())
        )
        .is_err()
    );
    // Operands and updates counts differ.
    let u = arr(&[2], vec![0.0f32; 2]);
    assert!(
        scatter(
            &[&x],
            &i,
            &[],
            &sdims(&[], &[0], &[0], 1),
            &mut add,
            &Shape::Array(x.shape.clone())
        )
        .is_err()
    );
    // The computation's error propagates.
    let mut fail = |_: &[Literal]| Err(rxla_eval::EvalError::new("boom"));
    let e = scatter(
        &[&x],
        &i,
        &[&u],
        &sdims(&[], &[0], &[0], 1),
        &mut fail,
        &Shape::Array(x.shape.clone()),
    );
    assert!(e.unwrap_err().to_string().contains("boom"));
    // A computation returning the wrong type is an error, not a panic.
    let mut wrong = |_: &[Literal]| Ok(Literal::scalar(1i32));
    assert!(
        scatter(
            &[&x],
            &i,
            &[&u],
            &sdims(&[], &[0], &[0], 1),
            &mut wrong,
            &Shape::Array(x.shape.clone())
        )
        .is_err()
    );
}
