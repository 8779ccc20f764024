//! The C-ABI entry points: results equal the Rust API's, epilogue callbacks are called, errors become codes.

use crate::common;
use common::*;
use rxla_gemm::ffi::{self, CEpilogue, CSgemm};
use rxla_gemm::{ConvPlan, DotPlan, MatMut, MatRef, Options, TensorLayout, sgemm};
use rxla_ir::{ConvDims, DotDims, Window, WindowDim};
use std::ffi::c_void;

unsafe extern "C" fn add_ctx(ctx: *mut c_void, row: usize, col: usize, v: *mut f32, len: usize) {
    let k = unsafe { *(ctx as *const f32) };
    for t in 0..len {
        unsafe { *v.add(t) += k * (row * 1000 + col + t) as f32 };
    }
}

#[test]
fn sgemm_entry_point_matches_rust_api() {
    let (m, n, k) = (37, 29, 53);
    let mut rng = Rng::new(31);
    let (a, b, bias) = (rng.vec(m * k), rng.vec(k * n), rng.vec(n));
    let mut want = vec![0f32; m * n];
    sgemm(
        1.0,
        MatRef::row_major(&a, m, k).unwrap(),
        MatRef::row_major(&b, k, n).unwrap(),
        0.0,
        MatMut::row_major(&mut want, m, n).unwrap(),
        None,
        &Options::default(),
    )
    .unwrap();
    let mut c = vec![f32::NAN; m * n];
    let p = CSgemm {
        m,
        n,
        k,
        alpha: 1.0,
        beta: 0.0,
        a: a.as_ptr(),
        rsa: k as isize,
        csa: 1,
        b: b.as_ptr(),
        rsb: n as isize,
        csb: 1,
        c: c.as_mut_ptr(),
        rsc: n as isize,
        csc: 1,
        threads: 2,
    };
    let scale = 0.5f32;
    let e = CEpilogue {
        bias: bias.as_ptr(),
        bias_len: n,
        bias_kind: 2,
        relu: 1,
        map: Some(add_ctx),
        map_ctx: &scale as *const f32 as *mut c_void,
    };
    assert_eq!(
        unsafe { ffi::rxla_gemm_sgemm(&p, &e) },
        0,
        "{}",
        ffi::last_error()
    );
    for i in 0..m {
        for j in 0..n {
            let w = (want[i * n + j] + bias[j]).max(0.0) + 0.5 * (i * 1000 + j) as f32;
            assert!(
                (c[i * n + j] - w).abs() <= 1e-4 * w.abs().max(1.0),
                "({i},{j})"
            );
        }
    }
    let bad = CEpilogue { bias_kind: 7, ..e };
    assert_eq!(unsafe { ffi::rxla_gemm_sgemm(&p, &bad) }, 1);
    assert!(ffi::last_error().contains("bias_kind 7"));
}

#[test]
fn dot_and_conv_entry_points() {
    let mut rng = Rng::new(32);
    let dims = DotDims {
        lhs_batch: vec![0],
        rhs_batch: vec![0],
        lhs_contracting: vec![2],
        rhs_contracting: vec![1],
    };
    let plan = DotPlan::new(
        &TensorLayout::row_major(&[2, 5, 7]),
        &TensorLayout::row_major(&[2, 7, 3]),
        &dims,
        &TensorLayout::row_major(&[2, 5, 3]),
    )
    .unwrap();
    let (x, y) = (rng.vec(70), rng.vec(42));
    let mut want = vec![0f32; 30];
    plan.run_f32(&x, &y, &mut want, None, &Options::default())
        .unwrap();
    let mut got = vec![0f32; 30];
    let rc = unsafe {
        ffi::rxla_gemm_dot_f32(
            &plan,
            x.as_ptr(),
            y.as_ptr(),
            got.as_mut_ptr(),
            std::ptr::null(),
            1,
        )
    };
    assert_eq!(rc, 0);
    assert_eq!(got, want);
    let rc = unsafe {
        ffi::rxla_gemm_dot_f32(
            std::ptr::null(),
            x.as_ptr(),
            y.as_ptr(),
            got.as_mut_ptr(),
            std::ptr::null(),
            1,
        )
    };
    assert_eq!(rc, 1);

    let w = WindowDim {
        pad_low: 1,
        pad_high: 1,
        ..WindowDim::new(3)
    };
    let cp = ConvPlan::new(
        &TensorLayout::row_major(&[1, 2, 6, 6]),
        &TensorLayout::row_major(&[4, 2, 3, 3]),
        &TensorLayout::row_major(&[1, 4, 6, 6]),
        &Window {
            dims: vec![w.clone(), w],
        },
        &ConvDims::nchw(2),
        1,
        1,
    )
    .unwrap();
    let (xi, wk) = (rng.vec(72), rng.vec(72));
    let mut want = vec![0f32; 144];
    cp.run_f32(&xi, &wk, &mut want, None, &Options::default())
        .unwrap();
    let mut got = vec![0f32; 144];
    let rc = unsafe {
        ffi::rxla_gemm_conv_f32(
            &cp,
            xi.as_ptr(),
            wk.as_ptr(),
            got.as_mut_ptr(),
            std::ptr::null(),
            2,
        )
    };
    assert_eq!(rc, 0);
    assert_eq!(got, want);
    let names: Vec<&str> = ffi::symbols().iter().map(|s| s.0).collect();
    assert_eq!(
        names,
        ["rxla_gemm_sgemm", "rxla_gemm_dot_f32", "rxla_gemm_conv_f32"]
    );
}

#[test]
fn peak_probe_reports_a_positive_rate() {
    let g = rxla_gemm::peak::fma_peak_gflops(std::time::Duration::from_millis(20));
    assert!(g > 0.1, "{g}");
}
