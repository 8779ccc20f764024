//! Complex (c64, c128) element arithmetic: the unary and binary ops XLA
//! defines on complex numbers, EQ/NE comparison, conversions into and
//! between complex types, `complex(re, im)`, `real`/`imag` (also on
//! floats) and complex reductions. c64 computes in f32, c128 in f64
//! (never widened), with `num-complex` for the transcendental functions.
//! The choices are listed in `docs/SEMANTICS.md`. This module must not
//! accept ops XLA leaves undefined on complex (ordering, remainder,
//! max/min, rounding): those are errors, not guesses.

use crate::error::{EvalError, Result};
use num_complex::Complex;
use num_traits::Float;
use rxla_ir::{
    ArrayData, BinaryOp, ComparisonDirection, Complex32, Complex64, ElementType, UnaryOp,
};

/// The float parts of a complex type (f32 for c64, f64 for c128).
pub trait Part: Float + Default + Send + Sync + 'static {}
impl Part for f32 {}
impl Part for f64 {}

/// Complex division by Smith's algorithm (scaling by the larger part of
/// the divisor, as XLA's CPU emitter and numpy do), so quotients of large
/// or small numbers do not overflow or underflow in `c² + d²`.
pub fn div<T: Part>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    let (c, d) = (b.re, b.im);
    if c.abs() >= d.abs() {
        if c == T::zero() && d == T::zero() {
            // x / 0: each part divided by a real zero (inf or NaN).
            return Complex::new(a.re / c, a.im / c);
        }
        let r = d / c;
        let den = c + d * r;
        Complex::new((a.re + a.im * r) / den, (a.im - a.re * r) / den)
    } else if d.abs() > c.abs() {
        let r = c / d;
        let den = c * r + d;
        Complex::new((a.re * r + a.im) / den, (a.im * r - a.re) / den)
    } else {
        // A NaN part in the divisor.
        let nan = c + d;
        Complex::new(nan, nan)
    }
}

/// |z| = hypot(re, im) (no overflow for large parts).
pub fn abs<T: Part>(z: Complex<T>) -> T {
    z.re.hypot(z.im)
}

/// |z| of a c64: the f64 square root of the exact f64 sum of squares,
/// rounded to f32 (glibc's `hypotf`, spelled out so every platform and
/// the JIT's vector loop agree bit for bit): +inf when a part is
/// infinite, else `re + im` (a NaN) when a part is NaN.
#[inline]
pub fn abs_c64(z: Complex<f32>) -> f32 {
    let (x, y) = (z.re, z.im);
    let (a, b) = (x as f64, y as f64);
    let r = (a * a + b * b).sqrt() as f32;
    let r = if x.is_nan() || y.is_nan() { x + y } else { r };
    if x.is_infinite() || y.is_infinite() {
        f32::INFINITY
    } else {
        r
    }
}

/// z^w: 1 for w = 0 (any z, as XLA and numpy), 0 for z = 0 with
/// Re(w) > 0, else exp(w·ln z).
pub fn pow<T: Part>(z: Complex<T>, w: Complex<T>) -> Complex<T> {
    let zero = Complex::new(T::zero(), T::zero());
    if w == zero {
        return Complex::new(T::one(), T::zero());
    }
    if z == zero && w.re > T::zero() {
        return zero;
    }
    (w * z.ln()).exp()
}

fn expm1<T: Part>(z: Complex<T>) -> Complex<T> {
    // exp(a)·cos(b) − 1 = expm1(a)·cos(b) + (cos(b) − 1), with
    // cos(b) − 1 = −2·sin²(b/2): accurate near 0.
    let (a, b) = (z.re, z.im);
    let s = (b * (T::one() / (T::one() + T::one()))).sin();
    let re = a.exp_m1() * b.cos() - (T::one() + T::one()) * s * s;
    let im = a.exp() * b.sin();
    Complex::new(re, im)
}

fn log1p<T: Part>(z: Complex<T>) -> Complex<T> {
    // |1 + z|² − 1 = a·(a + 2) + b², accurate near 0.
    let (a, b) = (z.re, z.im);
    if !(a.is_finite() && b.is_finite()) {
        return (Complex::new(T::one(), T::zero()) + z).ln();
    }
    let half = T::one() / (T::one() + T::one());
    let s = a * (a + (T::one() + T::one())) + b * b;
    // Where |1 + z| is far from 1 the expanded square cancels (a near -1:
    // a·(a + 2) rounds to -1 and ln_1p gives -inf); there 1 + a is exact
    // (Sterbenz) or well conditioned, and ln|1 + z| is taken directly.
    let re = if s.abs() < half {
        s.ln_1p() * half
    } else {
        (T::one() + a).hypot(b).ln()
    };
    let im = b.atan2(T::one() + a);
    Complex::new(re, im)
}

/// sign(z) = z / |z|; 0 stays 0 and a NaN part gives NaN.
fn sign<T: Part>(z: Complex<T>) -> Complex<T> {
    let m = abs(z);
    if m == T::zero() {
        z
    } else if m.is_nan() {
        Complex::new(m, m)
    } else {
        Complex::new(z.re / m, z.im / m)
    }
}

/// The complex-valued unary ops (real, imag and abs are handled by the
/// caller because they change the type).
pub fn unary_fn<T: Part>(op: UnaryOp) -> Option<fn(Complex<T>) -> Complex<T>> {
    Some(match op {
        UnaryOp::Negate => |z: Complex<T>| -z,
        UnaryOp::Sign => sign,
        UnaryOp::Sqrt => |z: Complex<T>| z.sqrt(),
        UnaryOp::Rsqrt => |z: Complex<T>| div(Complex::new(T::one(), T::zero()), z.sqrt()),
        UnaryOp::Exp => |z: Complex<T>| z.exp(),
        UnaryOp::Expm1 => expm1,
        UnaryOp::Log => |z: Complex<T>| z.ln(),
        UnaryOp::Log1p => log1p,
        UnaryOp::Tanh => |z: Complex<T>| z.tanh(),
        UnaryOp::Sin => |z: Complex<T>| z.sin(),
        UnaryOp::Cos => |z: Complex<T>| z.cos(),
        UnaryOp::Tan => |z: Complex<T>| z.tan(),
        _ => return None,
    })
}

/// A complex binary function.
pub type BinaryFn<T> = fn(Complex<T>, Complex<T>) -> Complex<T>;

/// The complex binary ops (add, subtract, multiply, divide, power).
pub fn binary_fn<T: Part>(op: BinaryOp) -> Option<BinaryFn<T>> {
    Some(match op {
        BinaryOp::Add => |a: Complex<T>, b: Complex<T>| a + b,
        BinaryOp::Subtract => |a: Complex<T>, b: Complex<T>| a - b,
        BinaryOp::Multiply => |a: Complex<T>, b: Complex<T>| a * b,
        BinaryOp::Divide => div,
        BinaryOp::Power => pow,
        _ => return None,
    })
}

fn undefined(op: &str, ty: ElementType) -> EvalError {
    EvalError::new(format!("{op} is not defined for {ty}"))
}

fn map1<T: Copy, U>(v: &[T], f: impl Fn(T) -> U) -> Vec<U> {
    v.iter().map(|&x| f(x)).collect()
}

fn map2<T: Copy, U>(a: &[T], b: &[T], f: impl Fn(T, T) -> U) -> Result<Vec<U>> {
    match (a.len(), b.len()) {
        (x, y) if x == y => Ok(a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect()),
        (1, _) => Ok(b.iter().map(|&y| f(a[0], y)).collect()),
        (_, 1) => Ok(a.iter().map(|&x| f(x, b[0])).collect()),
        (x, y) => Err(EvalError::new(format!(
            "elementwise operands have {x} and {y} elements"
        ))),
    }
}

/// True when `unary` below handles `op` on data of type `ty`: any op on
/// complex data, and real/imag on floats.
pub fn handles_unary(op: UnaryOp, ty: ElementType) -> bool {
    ty.is_complex() || matches!(op, UnaryOp::Real | UnaryOp::Imag)
}

/// A unary op on complex data, or real/imag on float data (real(x) = x,
/// imag(x) = +0).
pub fn unary(op: UnaryOp, x: &ArrayData) -> Result<ArrayData> {
    let ty = x.element_type();
    let err = || undefined(op.name(), ty);
    Ok(match (op, x) {
        (UnaryOp::Real, ArrayData::C64(v)) => ArrayData::F32(map1(v, |z| z.re)),
        (UnaryOp::Real, ArrayData::C128(v)) => ArrayData::F64(map1(v, |z| z.re)),
        (UnaryOp::Imag, ArrayData::C64(v)) => ArrayData::F32(map1(v, |z| z.im)),
        (UnaryOp::Imag, ArrayData::C128(v)) => ArrayData::F64(map1(v, |z| z.im)),
        (UnaryOp::Abs, ArrayData::C64(v)) => ArrayData::F32(map1(v, abs_c64)),
        (UnaryOp::Abs, ArrayData::C128(v)) => ArrayData::F64(map1(v, abs)),
        (UnaryOp::Real, d) if ty.is_float() => d.clone(),
        (UnaryOp::Imag, d) if ty.is_float() => ArrayData::zeros(ty, d.len()),
        (_, ArrayData::C64(v)) => ArrayData::C64(map1(v, unary_fn::<f32>(op).ok_or_else(err)?)),
        (_, ArrayData::C128(v)) => ArrayData::C128(map1(v, unary_fn::<f64>(op).ok_or_else(err)?)),
        _ => return Err(err()),
    })
}

/// A binary op on two complex arrays of one type (either may hold a single
/// element: scalar broadcast).
pub fn binary(op: BinaryOp, a: &ArrayData, b: &ArrayData) -> Result<ArrayData> {
    let ty = a.element_type();
    let err = || undefined(op.name(), ty);
    Ok(match (a, b) {
        (ArrayData::C64(x), ArrayData::C64(y)) => {
            ArrayData::C64(map2(x, y, binary_fn::<f32>(op).ok_or_else(err)?)?)
        }
        (ArrayData::C128(x), ArrayData::C128(y)) => {
            ArrayData::C128(map2(x, y, binary_fn::<f64>(op).ok_or_else(err)?)?)
        }
        _ => {
            return Err(EvalError::new(format!(
                "binary op {} on mismatched types {} and {}",
                op.name(),
                a.element_type(),
                b.element_type()
            )));
        }
    })
}

/// `complex(re, im)`: f32 parts give c64, f64 parts c128.
pub fn make(re: &ArrayData, im: &ArrayData) -> Result<ArrayData> {
    Ok(match (re, im) {
        (ArrayData::F32(x), ArrayData::F32(y)) => ArrayData::C64(map2(x, y, Complex32::new)?),
        (ArrayData::F64(x), ArrayData::F64(y)) => ArrayData::C128(map2(x, y, Complex64::new)?),
        _ => {
            return Err(EvalError::new(format!(
                "complex needs two f32 or two f64 operands, got {} and {}",
                re.element_type(),
                im.element_type()
            )));
        }
    })
}

/// EQ/NE of complex values: equal when both parts are equal (IEEE: a NaN
/// part makes EQ false and NE true). Other directions are errors.
pub fn compare(dir: ComparisonDirection, a: &ArrayData, b: &ArrayData) -> Result<ArrayData> {
    let ne = match dir {
        ComparisonDirection::Eq => false,
        ComparisonDirection::Ne => true,
        d => {
            return Err(EvalError::new(format!(
                "compare direction {} is not defined for {} (only EQ and NE)",
                d.name(),
                a.element_type()
            )));
        }
    };
    Ok(ArrayData::Pred(match (a, b) {
        (ArrayData::C64(x), ArrayData::C64(y)) => map2(x, y, |p, q| (p == q) != ne)?,
        (ArrayData::C128(x), ArrayData::C128(y)) => map2(x, y, |p, q| (p == q) != ne)?,
        _ => {
            return Err(EvalError::new(format!(
                "compare of {} with {}",
                a.element_type(),
                b.element_type()
            )));
        }
    }))
}

/// `convert` into a complex type: real values become the real part (by
/// the real conversion to the component type, so s32 → c64 rounds like
/// s32 → f32) with a +0 imaginary part; complex → complex converts each
/// part. Complex → real is an error (XLA rejects it; use real/imag/abs).
pub fn convert(src: &ArrayData, to: ElementType) -> Result<ArrayData> {
    let from = src.element_type();
    let Some(part) = to.complex_component() else {
        return Err(EvalError::new(format!(
            "cannot convert {from} to the real type {to} (use real, imag or abs)"
        )));
    };
    let parts: (Vec<f64>, Vec<f64>) = match src {
        ArrayData::C64(v) => (map1(v, |z| z.re as f64), map1(v, |z| z.im as f64)),
        ArrayData::C128(v) => (map1(v, |z| z.re), map1(v, |z| z.im)),
        other => {
            // The real conversion to the component type, then widened
            // exactly to f64 for the assembly below.
            let re = crate::elementwise::convert(other, part)?;
            let re: Vec<f64> = match re {
                ArrayData::F32(v) => map1(&v, |x| x as f64),
                ArrayData::F64(v) => v,
                _ => return Err(EvalError::new("complex component is not f32/f64")),
            };
            let n = re.len();
            (re, vec![0.0; n])
        }
    };
    let (re, im) = parts;
    Ok(match to {
        ElementType::C64 => ArrayData::C64(
            re.iter()
                .zip(&im)
                .map(|(&a, &b)| Complex32::new(a as f32, b as f32))
                .collect(),
        ),
        _ => ArrayData::C128(
            re.iter()
                .zip(&im)
                .map(|(&a, &b)| Complex64::new(a, b))
                .collect(),
        ),
    })
}

/// `acc[out[k]] = op(acc[out[k]], x[k])` over the walk, for complex data.
pub fn reduce_into(
    op: BinaryOp,
    acc: &mut ArrayData,
    x: &ArrayData,
    for_each: &crate::elementwise::Walk<'_>,
) -> Result<()> {
    let ty = x.element_type();
    let err = || undefined(op.name(), ty);
    match (acc, x) {
        (ArrayData::C64(a), ArrayData::C64(v)) => {
            let f = binary_fn::<f32>(op).ok_or_else(err)?;
            for_each(&mut |k, o| a[o] = f(a[o], v[k]));
        }
        (ArrayData::C128(a), ArrayData::C128(v)) => {
            let f = binary_fn::<f64>(op).ok_or_else(err)?;
            for_each(&mut |k, o| a[o] = f(a[o], v[k]));
        }
        (a, v) => {
            return Err(EvalError::new(format!(
                "reduce with {} on mismatched types {} and {}",
                op.name(),
                a.element_type(),
                v.element_type()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_and_special_values() {
        let q = div(Complex64::new(1.0, 2.0), Complex64::new(3.0, -4.0));
        assert!((q.re - -0.2).abs() < 1e-15 && (q.im - 0.4).abs() < 1e-15);
        // No overflow in c² + d².
        let big = div(Complex64::new(1e300, 1e300), Complex64::new(1e300, 1e300));
        assert_eq!(big, Complex64::new(1.0, 0.0));
        assert_eq!(
            pow(Complex64::new(0.0, 0.0), Complex64::new(0.0, 0.0)),
            Complex64::new(1.0, 0.0)
        );
        assert_eq!(abs(Complex32::new(3.0, 4.0)), 5.0);
        let a = |re: f32, im: f32| abs_c64(Complex32::new(re, im));
        assert_eq!(a(3.0, -4.0), 5.0);
        assert_eq!(a(f32::INFINITY, f32::NAN), f32::INFINITY);
        assert_eq!(a(f32::NAN, f32::NEG_INFINITY), f32::INFINITY);
        assert!(a(f32::NAN, 1.0).is_nan() && a(1.0, f32::NAN).is_nan());
        assert_eq!(a(1e30, 1e30), 1.4142135e30);
        assert_eq!(a(-0.0, 0.0).to_bits(), 0);
        assert_eq!(a(1e-45, 0.0), 1e-45);
        assert_eq!(sign(Complex64::new(0.0, 0.0)), Complex64::new(0.0, 0.0));
        let e = expm1(Complex64::new(1e-10, 0.0));
        assert!((e.re - 1.00000000005e-10).abs() < 1e-24);
        let l = log1p(Complex64::new(1e-10, 0.0));
        assert!((l.re - 9.9999999995e-11).abs() < 1e-24);
        // Near -1 the expanded |1 + z|² − 1 cancels: ln|1 + z| directly
        // (f32 -0.9998623: 1 + a = 1.3768673e-4 exactly; it was -inf).
        let l = log1p(Complex32::new(-0.9998623, 0.0));
        assert!((l.re - (1.3768673e-4f64).ln() as f32).abs() < 1e-5, "{l}");
        let l = log1p(Complex32::new(-0.5, 0.25));
        let want = (0.5f64.hypot(0.25)).ln() as f32;
        assert!((l.re - want).abs() < 1e-6, "{l}");
    }

    #[test]
    fn convert_and_compare() {
        let c = convert(&ArrayData::S32(vec![16777217]), ElementType::C64).unwrap();
        assert_eq!(c, ArrayData::C64(vec![Complex32::new(16777216.0, 0.0)]));
        assert!(convert(&c, ElementType::F32).is_err());
        let w = convert(&c, ElementType::C128).unwrap();
        assert_eq!(w, ArrayData::C128(vec![Complex64::new(16777216.0, 0.0)]));
        let nan = ArrayData::C64(vec![Complex32::new(f32::NAN, 0.0)]);
        assert_eq!(
            compare(ComparisonDirection::Ne, &nan, &nan).unwrap(),
            ArrayData::Pred(vec![true])
        );
        assert!(compare(ComparisonDirection::Lt, &nan, &nan).is_err());
    }
}
