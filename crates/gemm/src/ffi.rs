//! C-ABI entry points for JIT-compiled code (register them with `cranelift_jit::JITBuilder::symbol` via
//! `symbols()`). Plans (`DotPlan`, `ConvPlan`) are built at compile time and passed as opaque pointers the JIT
//! embeds as constants; the caller keeps them alive. Every entry point returns 0 on success, 1 on a rejected
//! argument (message in `last_error()`), 2 if a panic was caught (no unwinding crosses the C boundary). This
//! module only converts arguments; it must not contain numeric code.

use crate::epilogue::{Bias, Epilogue};
use crate::{ConvPlan, DotPlan, MatMut, MatRef, Options, sgemm};
use std::cell::RefCell;
use std::ffi::c_void;

/// A row-segment callback: `(ctx, row, first_col, values, len)`; see `Epilogue::map`.
pub type RowCallback = unsafe extern "C" fn(*mut c_void, usize, usize, *mut f32, usize);

/// The C form of `Epilogue`. `bias_kind`: 0 none, 1 per row, 2 per column (`bias` holds `bias_len` floats).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CEpilogue {
    pub bias: *const f32,
    pub bias_len: usize,
    pub bias_kind: u32,
    /// Non-zero: apply relu after the bias.
    pub relu: u32,
    /// Optional callback applied last, with `map_ctx` as its first argument.
    pub map: Option<RowCallback>,
    pub map_ctx: *mut c_void,
}

/// The arguments of `rxla_gemm_sgemm`: `C = alpha*A*B + beta*C` with element strides (any layout).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CSgemm {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub alpha: f32,
    pub beta: f32,
    pub a: *const f32,
    pub rsa: isize,
    pub csa: isize,
    pub b: *const f32,
    pub rsb: isize,
    pub csb: isize,
    pub c: *mut f32,
    pub rsc: isize,
    pub csc: isize,
    /// 0 = the rayon pool's size.
    pub threads: usize,
}

thread_local! {
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

/// The message of the last failed entry point call on this thread.
pub fn last_error() -> String {
    LAST_ERROR.with(|e| e.borrow().clone())
}

/// Runs `f`, mapping errors and panics to return codes.
fn guard(f: impl FnOnce() -> crate::Result<()>) -> i32 {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(())) => 0,
        Ok(Err(e)) => {
            LAST_ERROR.with(|l| *l.borrow_mut() = e.0);
            1
        }
        Err(_) => {
            LAST_ERROR.with(|l| *l.borrow_mut() = "rxla-gemm: internal panic".into());
            2
        }
    }
}

/// Runs `f` with the Rust form of a C epilogue.
///
/// # Safety
/// `e` is null or valid; its bias pointer holds `bias_len` floats.
unsafe fn with_epilogue(
    e: *const CEpilogue,
    f: impl FnOnce(Option<&Epilogue>) -> crate::Result<()>,
) -> crate::Result<()> {
    // SAFETY: caller's contract.
    let Some(e) = (unsafe { e.as_ref() }) else {
        return f(None);
    };
    let bias = match e.bias_kind {
        0 => None,
        1 | 2 if !e.bias.is_null() => {
            // SAFETY: caller's contract.
            let s = unsafe { std::slice::from_raw_parts(e.bias, e.bias_len) };
            Some(if e.bias_kind == 1 {
                Bias::PerRow(s)
            } else {
                Bias::PerCol(s)
            })
        }
        k => {
            return Err(crate::GemmError::new(format!(
                "ffi epilogue: bias_kind {k} (expected 0, 1 or 2 with a non-null bias)"
            )));
        }
    };
    let ctx = CtxPtr(e.map_ctx);
    let cb = e.map;
    let call = move |row: usize, col: usize, vals: &mut [f32]| {
        let ctx = &ctx;
        if let Some(cb) = cb {
            // SAFETY: the JIT's callback contract (`vals` points at `len` floats).
            unsafe { cb(ctx.0, row, col, vals.as_mut_ptr(), vals.len()) }
        }
    };
    let epi = Epilogue {
        bias,
        relu: e.relu != 0,
        map: cb.map(|_| &call as &(dyn Fn(usize, usize, &mut [f32]) + Sync)),
    };
    f(Some(&epi))
}

/// The callback context pointer; the JIT guarantees it may be used from the worker threads.
struct CtxPtr(*mut c_void);
// SAFETY: see the type's doc.
unsafe impl Sync for CtxPtr {}
unsafe impl Send for CtxPtr {}

/// `sgemm` through the C ABI.
///
/// # Safety
/// `p` points at valid arguments whose matrices are readable/writable as described; `epi` is null or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rxla_gemm_sgemm(p: *const CSgemm, epi: *const CEpilogue) -> i32 {
    guard(|| {
        // SAFETY: caller's contract.
        let p = unsafe { p.as_ref() }
            .ok_or_else(|| crate::GemmError::new("rxla_gemm_sgemm: null arguments"))?;
        // SAFETY: caller's contract.
        let (a, b, c) = unsafe {
            (
                MatRef::from_raw(p.a, p.m, p.k, p.rsa, p.csa),
                MatRef::from_raw(p.b, p.k, p.n, p.rsb, p.csb),
                MatMut::from_raw(p.c, p.m, p.n, p.rsc, p.csc),
            )
        };
        let opts = Options::with_threads(p.threads);
        // SAFETY: caller's contract.
        unsafe { with_epilogue(epi, |e| sgemm(p.alpha, a, b, p.beta, c, e, &opts)) }
    })
}

/// `DotPlan::run_f32_raw` through the C ABI.
///
/// # Safety
/// `plan` is a live `DotPlan`; buffers hold `plan.extents()` elements; `epi` is null or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rxla_gemm_dot_f32(
    plan: *const DotPlan,
    lhs: *const f32,
    rhs: *const f32,
    out: *mut f32,
    epi: *const CEpilogue,
    threads: usize,
) -> i32 {
    guard(|| {
        // SAFETY: caller's contract.
        let plan = unsafe { plan.as_ref() }
            .ok_or_else(|| crate::GemmError::new("rxla_gemm_dot_f32: null plan"))?;
        let opts = Options::with_threads(threads);
        // SAFETY: caller's contract.
        unsafe { with_epilogue(epi, |e| plan.run_f32_raw(lhs, rhs, out, e, &opts)) }
    })
}

/// `ConvPlan::run_f32_raw` through the C ABI.
///
/// # Safety
/// `plan` is a live `ConvPlan`; buffers hold `plan.extents()` elements; `epi` is null or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rxla_gemm_conv_f32(
    plan: *const ConvPlan,
    input: *const f32,
    kernel: *const f32,
    output: *mut f32,
    epi: *const CEpilogue,
    threads: usize,
) -> i32 {
    guard(|| {
        // SAFETY: caller's contract.
        let plan = unsafe { plan.as_ref() }
            .ok_or_else(|| crate::GemmError::new("rxla_gemm_conv_f32: null plan"))?;
        let opts = Options::with_threads(threads);
        // SAFETY: caller's contract.
        unsafe { with_epilogue(epi, |e| plan.run_f32_raw(input, kernel, output, e, &opts)) }
    })
}

/// Name and address of every entry point, for `JITBuilder::symbol(name, ptr)`.
pub fn symbols() -> [(&'static str, *const u8); 3] {
    [
        ("rxla_gemm_sgemm", rxla_gemm_sgemm as *const u8),
        ("rxla_gemm_dot_f32", rxla_gemm_dot_f32 as *const u8),
        ("rxla_gemm_conv_f32", rxla_gemm_conv_f32 as *const u8),
    ]
}
