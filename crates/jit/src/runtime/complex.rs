//! Complex elementwise instructions as a host step on the runtime's
//! buffers: unary ops on c64/c128 (negate inline, the others through the
//! evaluator's own scalar functions), `real`, `imag`, `abs`, binary add,
//! subtract, multiply (inline, the evaluator's `num-complex` formulas),
//! divide and power (the evaluator's functions), `complex(re, im)` and
//! the exact conversions into and between complex types. Every operand
//! and the result have the same dims and the same unpadded layout, so
//! element k of each buffer is the same logical element; results are the
//! evaluator's bit for bit (same scalar code, one element at a time).
//! Nothing else (no broadcasting, no movement, no reductions) lives here.

use crate::error::{JitError, Result};
use rxla_eval::complex::{abs, abs_c64, binary_fn, unary_fn};
use rxla_ir::{ArrayShape, BinaryOp, Complex32, Complex64, ElementType, Op, UnaryOp};

/// What the step computes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ComplexOp {
    Unary(UnaryOp),
    Binary(BinaryOp),
    /// `complex(re, im)`.
    Make,
    Convert,
}

/// One planned complex elementwise instruction.
#[derive(Debug)]
pub struct ComplexStep {
    pub op: ComplexOp,
    /// Operand element types.
    pub from: Vec<ElementType>,
    pub to: ElementType,
    /// Elements of every operand and of the result.
    pub elements: usize,
}

impl ComplexStep {
    /// The step for `op` on `operands` into `out`, when it is one this
    /// module runs (same dims and unpadded layout everywhere, a complex
    /// operand or result, a supported op and type combination).
    pub fn plan(op: &Op, operands: &[&ArrayShape], out: &ArrayShape) -> Option<ComplexStep> {
        use ElementType::*;
        let plain = |s: &ArrayShape| {
            !s.layout.is_padded()
                && s.layout.extras.is_empty()
                && s.dynamic.is_static()
                && s.dims == out.dims
                && s.layout.minor_to_major == out.layout.minor_to_major
        };
        if !plain(out) || !operands.iter().all(|s| plain(s)) {
            return None;
        }
        let from: Vec<ElementType> = operands.iter().map(|s| s.element_type).collect();
        let to = out.element_type;
        let op = match (op, from.as_slice(), to) {
            (Op::Unary(u), [C64], C64) | (Op::Unary(u), [C128], C128) => {
                (*u == UnaryOp::Negate || unary_fn::<f32>(*u).is_some()).then_some(())?;
                ComplexOp::Unary(*u)
            }
            (Op::Unary(u @ (UnaryOp::Real | UnaryOp::Imag | UnaryOp::Abs)), [C64], F32)
            | (Op::Unary(u @ (UnaryOp::Real | UnaryOp::Imag | UnaryOp::Abs)), [C128], F64) => {
                ComplexOp::Unary(*u)
            }
            (Op::Binary(b), [C64, C64], C64) | (Op::Binary(b), [C128, C128], C128) => {
                binary_fn::<f32>(*b).is_some().then_some(())?;
                ComplexOp::Binary(*b)
            }
            (Op::Complex, [F32, F32], C64) | (Op::Complex, [F64, F64], C128) => ComplexOp::Make,
            (Op::Convert, [F32 | C64], C64 | C128) | (Op::Convert, [F64 | C128], C128 | C64)
                if !(from[0] == F64 && to == C64) =>
            {
                ComplexOp::Convert
            }
            _ => return None,
        };
        Some(ComplexStep {
            op,
            from,
            to,
            elements: out.element_count().ok()?,
        })
    }
}

fn cast<U>(bytes: &[u8], n: usize) -> Result<&[U]> {
    // SAFETY: only f32, f64 and complex-of-float types are asked for
    // (every bit pattern valid); the middle part is aligned.
    let (pre, mid, post) = unsafe { bytes.align_to::<U>() };
    if pre.is_empty() && post.is_empty() && mid.len() == n {
        Ok(mid)
    } else {
        Err(JitError::input(
            "complex step operand buffer size or alignment",
        ))
    }
}

fn cast_mut<U>(bytes: &mut [u8], n: usize) -> Result<&mut [U]> {
    // SAFETY: as `cast`.
    let (pre, mid, post) = unsafe { bytes.align_to_mut::<U>() };
    if pre.is_empty() && post.is_empty() && mid.len() == n {
        Ok(mid)
    } else {
        Err(JitError::input(
            "complex step result buffer size or alignment",
        ))
    }
}

#[inline(always)]
fn map1<A: Copy, B>(x: &[A], o: &mut [B], f: impl Fn(A) -> B) {
    for (o, &x) in o.iter_mut().zip(x) {
        *o = f(x);
    }
}

#[inline(always)]
fn map2<A: Copy, B: Copy, C>(x: &[A], y: &[B], o: &mut [C], f: impl Fn(A, B) -> C) {
    for ((o, &x), &y) in o.iter_mut().zip(x).zip(y) {
        *o = f(x, y);
    }
}

/// `o[i] = |x[i]|` (`abs_c64`), compiled for 512-bit vectors where the
/// host has them (the same operations per element, so the same bits:
/// `abs(rfft(x))` spends a quarter of its time here).
fn abs_c64_all(x: &[Complex32], o: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        #[target_feature(enable = "avx512f")]
        fn wide(x: &[Complex32], o: &mut [f32]) {
            map1(x, o, abs_c64);
        }
        // SAFETY: AVX-512F checked above.
        unsafe { wide(x, o) };
        return;
    }
    map1(x, o, abs_c64);
}

/// Runs the step on its operands' buffers into the result's.
pub fn run(step: &ComplexStep, ops: &[&[u8]], out: &mut [u8]) -> Result<()> {
    use ElementType::*;
    let n = step.elements;
    let bad = || JitError::input("complex step operands");
    let a = *ops.first().ok_or_else(bad)?;
    match (step.op, step.from.as_slice(), step.to) {
        (ComplexOp::Unary(u), [C64], C64) => {
            let (x, o) = (cast::<Complex32>(a, n)?, cast_mut::<Complex32>(out, n)?);
            if u == UnaryOp::Negate {
                map1(x, o, |z| -z);
            } else {
                map1(x, o, unary_fn::<f32>(u).ok_or_else(bad)?);
            }
        }
        (ComplexOp::Unary(u), [C128], C128) => {
            let (x, o) = (cast::<Complex64>(a, n)?, cast_mut::<Complex64>(out, n)?);
            if u == UnaryOp::Negate {
                map1(x, o, |z| -z);
            } else {
                map1(x, o, unary_fn::<f64>(u).ok_or_else(bad)?);
            }
        }
        (ComplexOp::Unary(u), [C64], F32) => {
            let (x, o) = (cast::<Complex32>(a, n)?, cast_mut::<f32>(out, n)?);
            match u {
                UnaryOp::Real => map1(x, o, |z| z.re),
                UnaryOp::Imag => map1(x, o, |z| z.im),
                UnaryOp::Abs => abs_c64_all(x, o),
                _ => return Err(bad()),
            }
        }
        (ComplexOp::Unary(u), [C128], F64) => {
            let (x, o) = (cast::<Complex64>(a, n)?, cast_mut::<f64>(out, n)?);
            match u {
                UnaryOp::Real => map1(x, o, |z| z.re),
                UnaryOp::Imag => map1(x, o, |z| z.im),
                UnaryOp::Abs => map1(x, o, abs::<f64>),
                _ => return Err(bad()),
            }
        }
        (ComplexOp::Binary(b), [C64, C64], C64) => {
            let y = cast::<Complex32>(ops.get(1).ok_or_else(bad)?, n)?;
            let (x, o) = (cast::<Complex32>(a, n)?, cast_mut::<Complex32>(out, n)?);
            match b {
                BinaryOp::Add => map2(x, y, o, |p, q| p + q),
                BinaryOp::Subtract => map2(x, y, o, |p, q| p - q),
                BinaryOp::Multiply => map2(x, y, o, |p, q| p * q),
                _ => map2(x, y, o, binary_fn::<f32>(b).ok_or_else(bad)?),
            }
        }
        (ComplexOp::Binary(b), [C128, C128], C128) => {
            let y = cast::<Complex64>(ops.get(1).ok_or_else(bad)?, n)?;
            let (x, o) = (cast::<Complex64>(a, n)?, cast_mut::<Complex64>(out, n)?);
            match b {
                BinaryOp::Add => map2(x, y, o, |p, q| p + q),
                BinaryOp::Subtract => map2(x, y, o, |p, q| p - q),
                BinaryOp::Multiply => map2(x, y, o, |p, q| p * q),
                _ => map2(x, y, o, binary_fn::<f64>(b).ok_or_else(bad)?),
            }
        }
        (ComplexOp::Make, [F32, F32], C64) => {
            let y = cast::<f32>(ops.get(1).ok_or_else(bad)?, n)?;
            let (x, o) = (cast::<f32>(a, n)?, cast_mut::<Complex32>(out, n)?);
            map2(x, y, o, Complex32::new);
        }
        (ComplexOp::Make, [F64, F64], C128) => {
            let y = cast::<f64>(ops.get(1).ok_or_else(bad)?, n)?;
            let (x, o) = (cast::<f64>(a, n)?, cast_mut::<Complex64>(out, n)?);
            map2(x, y, o, Complex64::new);
        }
        (ComplexOp::Convert, [F32], C64) => {
            let (x, o) = (cast::<f32>(a, n)?, cast_mut::<Complex32>(out, n)?);
            map1(x, o, |v| Complex32::new(v, 0.0));
        }
        (ComplexOp::Convert, [F32], C128) => {
            let (x, o) = (cast::<f32>(a, n)?, cast_mut::<Complex64>(out, n)?);
            map1(x, o, |v| Complex64::new(v as f64, 0.0));
        }
        (ComplexOp::Convert, [F64], C128) => {
            let (x, o) = (cast::<f64>(a, n)?, cast_mut::<Complex64>(out, n)?);
            map1(x, o, |v| Complex64::new(v, 0.0));
        }
        (ComplexOp::Convert, [C64], C64) | (ComplexOp::Convert, [C128], C128) => {
            if a.len() != out.len() {
                return Err(bad());
            }
            out.copy_from_slice(a);
        }
        (ComplexOp::Convert, [C64], C128) => {
            let (x, o) = (cast::<Complex32>(a, n)?, cast_mut::<Complex64>(out, n)?);
            map1(x, o, |z| Complex64::new(z.re as f64, z.im as f64));
        }
        (ComplexOp::Convert, [C128], C64) => {
            let (x, o) = (cast::<Complex64>(a, n)?, cast_mut::<Complex32>(out, n)?);
            map1(x, o, |z| Complex32::new(z.re as f32, z.im as f32));
        }
        _ => return Err(bad()),
    }
    Ok(())
}
