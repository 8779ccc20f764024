//! Tests of `kernels::custom_call`: the spec's `myfunc` example (f32[2] and f32[2x3] in, f32[3x3] out), missing
//! targets named in the error, arguments marshalled in their physical layout, tuple results through a pointer table.

use crate::kernels_support;
use kernels_support::*;
use rxla_eval::kernels::custom_call::{CustomCallRegistry, call};
use rxla_ir::{ArrayShape, ElementType, Layout, Literal, Shape};

/// The spec's `myfunc`: x = f32[2], y = f32[2][3], z = f32[3][3] with z[0][0] = x[1] + y[1][0]; the remaining
/// elements follow the same pattern, z[i][j] = x[(i+1) % 2] + y[(i+1) % 2][j].
extern "C" fn myfunc(out: *mut u8, ins: *const *const u8) {
    // SAFETY: the evaluator passes two argument buffers (f32[2], f32[2x3], 8-byte aligned) and an f32[3x3] result.
    unsafe {
        let x = std::slice::from_raw_parts(*ins as *const f32, 2);
        let y = std::slice::from_raw_parts(*ins.add(1) as *const f32, 6);
        let z = std::slice::from_raw_parts_mut(out as *mut f32, 9);
        for i in 0..3 {
            for j in 0..3 {
                let r = (i + 1) % 2;
                z[i * 3 + j] = x[r] + y[r * 3 + j];
            }
        }
    }
}

/// Copies its single argument's first 6 f32 values verbatim (to observe the physical layout).
extern "C" fn copy6(out: *mut u8, ins: *const *const u8) {
    // SAFETY: one f32 argument of 6 elements and an f32[6] result.
    unsafe {
        std::ptr::copy_nonoverlapping(*ins, out, 24);
    }
}

/// Writes a tuple (s32[2], f32[]) through the pointer table XLA passes for tuple results.
extern "C" fn make_pair(out: *mut u8, _ins: *const *const u8) {
    // SAFETY: `out` is a table of two pointers: s32[2] then f32[].
    unsafe {
        let table = out as *const *mut u8;
        let a = *table as *mut i32;
        *a = 7;
        *a.add(1) = -7;
        *(*table.add(1) as *mut f32) = 0.5;
    }
}

#[test]
fn spec_myfunc() {
    let mut reg = CustomCallRegistry::default();
    reg.register("myfunc", myfunc);
    assert!(reg.contains("myfunc"));
    let x = arr(&[2], vec![1.0f32, 2.0]);
    let y = arr(&[2, 3], vec![10.0f32, 20.0, 30.0, 40.0, 50.0, 60.0]);
    let out = call(
        &reg,
        "myfunc",
        &[&x, &y],
        &Shape::Array(shape(ElementType::F32, &[3, 3])),
    )
    .unwrap();
    let z = lit_vals::<f32>(&out);
    assert_eq!(z[0], 42.0); // x[1] + y[1][0]
    assert_eq!(
        z,
        vec![42.0, 52.0, 62.0, 11.0, 21.0, 31.0, 42.0, 52.0, 62.0]
    );
}

#[test]
fn missing_target_is_named() {
    let reg = CustomCallRegistry::default();
    let e = call(
        &reg,
        "nope",
        &[],
        &Shape::Array(shape(ElementType::F32, &[])),
    )
    .unwrap_err();
    assert!(e.to_string().contains("nope"), "{e}");
}

#[test]
fn arguments_and_results_use_physical_layouts() {
    let mut reg = CustomCallRegistry::default();
    reg.register("copy6", copy6);
    // {{1,2,3},{4,5,6}} column-major is stored 1 4 2 5 3 6.
    let y = arr(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])
        .relayout(Layout::column_major(2))
        .unwrap();
    let out = call(
        &reg,
        "copy6",
        &[&y],
        &Shape::Array(shape(ElementType::F32, &[6])),
    )
    .unwrap();
    assert_eq!(lit_vals::<f32>(&out), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    // A column-major result shape: the physical buffer 1 2 3 4 5 6 reads back as {{1,3,5},{2,4,6}}.
    let x = arr(&[6], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let cm =
        ArrayShape::with_layout(ElementType::F32, vec![2, 3], Layout::column_major(2)).unwrap();
    let out = call(&reg, "copy6", &[&x], &Shape::Array(cm.clone())).unwrap();
    assert_eq!(lit_vals::<f32>(&out), vec![1.0, 3.0, 5.0, 2.0, 4.0, 6.0]);
    assert_eq!(out.shape(), Shape::Array(cm));
}

#[test]
fn tuple_results_via_pointer_table() {
    let mut reg = CustomCallRegistry::default();
    reg.register("make_pair", make_pair);
    let out_shape = Shape::Tuple(vec![
        Shape::Array(shape(ElementType::S32, &[2])),
        Shape::Array(shape(ElementType::F32, &[])),
    ]);
    let out = call(&reg, "make_pair", &[], &out_shape).unwrap();
    let Literal::Tuple(p) = out else {
        panic!("expected a tuple")
    };
    assert_eq!(lit_vals::<i32>(&p[0]), vec![7, -7]);
    assert_eq!(lit_vals::<f32>(&p[1]), vec![0.5]);
}

#[test]
fn registry_is_cloneable_and_replaceable() {
    let mut reg = CustomCallRegistry::default();
    reg.register("f", myfunc);
    let copy = reg.clone();
    reg.register("f", copy6);
    assert!(copy.get("f").is_some() && reg.get("f").is_some());
    assert!(copy.get("g").is_none());
}
