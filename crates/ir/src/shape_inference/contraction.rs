//! Shape rules of contractions: dot (general dimension numbers) and
//! convolution (XLA's general convolution with window padding, strides,
//! dilations, feature and batch groups, dim_labels). Shapes only: no
//! arithmetic, no layout choice.

use super::{array, ash, err, expect_count, make, window_output_dim};
use crate::element_type::ElementType;
use crate::error::Result;
use crate::ops::{ConvDims, DotDims, FftType, Window};
use crate::shape::{ArrayShape, Shape};

/// The result element type: the declared (preferred) type when given,
/// else the operands' common type.
fn result_type(
    lhs: &ArrayShape,
    rhs: &ArrayShape,
    declared: Option<&Shape>,
    complex_ok: bool,
) -> Result<ElementType> {
    let declared_ty = match declared {
        Some(Shape::Array(d)) => Some(d.element_type),
        _ => None,
    };
    let any_complex = lhs.element_type.is_complex()
        || rhs.element_type.is_complex()
        || declared_ty.is_some_and(|t| t.is_complex());
    if any_complex {
        if !complex_ok {
            return err(format!(
                "is not defined on complex operands, got {} and {}",
                ash(lhs),
                ash(rhs)
            ));
        }
        // No mixed real/complex contractions: operands and result share
        // one complex type.
        let t = lhs.element_type;
        if rhs.element_type != t || declared_ty.is_some_and(|d| d != t) {
            return err(format!(
                "complex operands and result must have one type, got {} and {}{}",
                ash(lhs),
                ash(rhs),
                declared_ty.map_or(String::new(), |d| format!(" giving {d}"))
            ));
        }
        return Ok(t);
    }
    match declared {
        Some(Shape::Array(d)) if d.element_type != ElementType::Token => Ok(d.element_type),
        _ if lhs.element_type == rhs.element_type => Ok(lhs.element_type),
        _ => err(format!(
            "operands have different element types {} and {} and no result type was declared",
            ash(lhs),
            ash(rhs)
        )),
    }
}

/// Checks a list of dims is in range and disjoint from `used`, marking
/// them.
fn mark(dims: &[i64], used: &mut [bool], side: &str, what: &str) -> Result<()> {
    for &d in dims {
        if d < 0 || d as usize >= used.len() {
            return err(format!(
                "{side} {what} dimension {d} is out of range for rank {}",
                used.len()
            ));
        }
        if used[d as usize] {
            return err(format!(
                "{side} dimension {d} is used twice in the dimension numbers"
            ));
        }
        used[d as usize] = true;
    }
    Ok(())
}

/// Dot: batch dims first, then lhs free dims, then rhs free dims.
pub(super) fn dot(ops: &[&Shape], dims: &DotDims, declared: Option<&Shape>) -> Result<Shape> {
    expect_count(ops, 2)?;
    let l = array(ops[0], "lhs")?;
    let r = array(ops[1], "rhs")?;
    if dims.lhs_batch.len() != dims.rhs_batch.len() {
        return err(format!(
            "lhs_batch_dims {:?} and rhs_batch_dims {:?} have different lengths",
            dims.lhs_batch, dims.rhs_batch
        ));
    }
    if dims.lhs_contracting.len() != dims.rhs_contracting.len() {
        return err(format!(
            "lhs_contracting_dims {:?} and rhs_contracting_dims {:?} have different lengths",
            dims.lhs_contracting, dims.rhs_contracting
        ));
    }
    let mut lu = vec![false; l.rank()];
    let mut ru = vec![false; r.rank()];
    mark(&dims.lhs_batch, &mut lu, "lhs", "batch")?;
    mark(&dims.lhs_contracting, &mut lu, "lhs", "contracting")?;
    mark(&dims.rhs_batch, &mut ru, "rhs", "batch")?;
    mark(&dims.rhs_contracting, &mut ru, "rhs", "contracting")?;
    for (&a, &b) in dims.lhs_batch.iter().zip(&dims.rhs_batch) {
        if l.dims[a as usize] != r.dims[b as usize] {
            return err(format!(
                "batch dimension sizes differ: lhs {} dimension {a} vs rhs {} dimension {b}",
                ash(l),
                ash(r)
            ));
        }
    }
    for (&a, &b) in dims.lhs_contracting.iter().zip(&dims.rhs_contracting) {
        if l.dims[a as usize] != r.dims[b as usize] {
            return err(format!(
                "contracting dimension sizes differ: lhs {} dimension {a} vs rhs {} dimension {b}",
                ash(l),
                ash(r)
            ));
        }
    }
    let ty = result_type(l, r, declared, true)?;
    let mut out: Vec<i64> = dims.lhs_batch.iter().map(|&d| l.dims[d as usize]).collect();
    out.extend((0..l.rank()).filter(|&i| !lu[i]).map(|i| l.dims[i]));
    out.extend((0..r.rank()).filter(|&i| !ru[i]).map(|i| r.dims[i]));
    make(ty, out)
}

/// Checks one side's dimension numbers cover `0..rank` exactly once.
fn check_labels(dims: &[i64], rank: usize, side: &str) -> Result<()> {
    let mut used = vec![false; rank];
    mark(dims, &mut used, side, "convolution")?;
    if used.iter().any(|u| !u) || dims.len() != rank {
        return err(format!(
            "{side} dimension numbers {dims:?} must name each of the {rank} dimensions once"
        ));
    }
    Ok(())
}

/// General convolution.
pub(super) fn convolution(
    ops: &[&Shape],
    window: &Window,
    dn: &ConvDims,
    feature_group_count: i64,
    batch_group_count: i64,
    declared: Option<&Shape>,
) -> Result<Shape> {
    expect_count(ops, 2)?;
    let l = array(ops[0], "lhs")?;
    let r = array(ops[1], "rhs")?;
    if l.rank() != r.rank() || l.rank() < 2 {
        return err(format!(
            "lhs {} and rhs {} must have the same rank >= 2",
            ash(l),
            ash(r)
        ));
    }
    let ns = l.rank() - 2;
    if dn.input_spatial.len() != ns
        || dn.kernel_spatial.len() != ns
        || dn.output_spatial.len() != ns
    {
        return err(format!(
            "dimension numbers must list {ns} spatial dimensions for each of input, kernel and output"
        ));
    }
    if window.dims.len() != ns {
        return err(format!(
            "the window has {} dimensions but there are {ns} spatial dimensions",
            window.dims.len()
        ));
    }
    let mut inp = vec![dn.input_batch, dn.input_feature];
    inp.extend(&dn.input_spatial);
    check_labels(&inp, l.rank(), "input")?;
    let mut ker = vec![dn.kernel_input_feature, dn.kernel_output_feature];
    ker.extend(&dn.kernel_spatial);
    check_labels(&ker, r.rank(), "kernel")?;
    let mut outl = vec![dn.output_batch, dn.output_feature];
    outl.extend(&dn.output_spatial);
    check_labels(&outl, l.rank(), "output")?;
    if feature_group_count < 1 || batch_group_count < 1 {
        return err(format!(
            "feature_group_count {feature_group_count} and batch_group_count {batch_group_count} must be >= 1"
        ));
    }
    if feature_group_count > 1 && batch_group_count > 1 {
        return err("feature_group_count and batch_group_count cannot both be > 1");
    }
    let batch = l.dims[dn.input_batch as usize];
    let in_feat = l.dims[dn.input_feature as usize];
    let k_in = r.dims[dn.kernel_input_feature as usize];
    let k_out = r.dims[dn.kernel_output_feature as usize];
    if batch % batch_group_count != 0 {
        return err(format!(
            "batch size {batch} is not a multiple of batch_group_count {batch_group_count}"
        ));
    }
    if in_feat % feature_group_count != 0 || in_feat / feature_group_count != k_in {
        return err(format!(
            "input features {in_feat} / feature_group_count {feature_group_count} must equal the kernel's input features {k_in} (lhs {}, rhs {})",
            ash(l),
            ash(r)
        ));
    }
    if k_out % feature_group_count != 0 {
        return err(format!(
            "kernel output features {k_out} are not a multiple of feature_group_count {feature_group_count}"
        ));
    }
    if k_out % batch_group_count != 0 {
        return err(format!(
            "kernel output features {k_out} are not a multiple of batch_group_count {batch_group_count}"
        ));
    }
    let ty = result_type(l, r, declared, false)?;
    let mut out = vec![0i64; l.rank()];
    out[dn.output_batch as usize] = batch / batch_group_count;
    out[dn.output_feature as usize] = k_out;
    for (i, w) in window.dims.iter().enumerate() {
        let ks = r.dims[dn.kernel_spatial[i] as usize];
        if w.size != ks {
            return err(format!(
                "window dimension {i} has size {} but the kernel {} has {ks} there",
                w.size,
                ash(r)
            ));
        }
        let input = l.dims[dn.input_spatial[i] as usize];
        out[dn.output_spatial[i] as usize] = window_output_dim(input, w, i)?;
    }
    make(ty, out)
}

/// fft: `fft_length` (1 to 3 values) describes the trailing dims of the
/// transform. FFT/IFFT: complex → same shape, the trailing dims equal to
/// `fft_length`. RFFT: f32/f64 → c64/c128 whose last dim is
/// `fft_length[-1]/2 + 1`. IRFFT: c64/c128 with that last dim → f32/f64
/// whose last dim is `fft_length[-1]`. The other trailing dims equal
/// `fft_length` (XLA's rules).
pub(super) fn fft(ops: &[&Shape], fft_type: FftType, fft_length: &[i64]) -> Result<Shape> {
    expect_count(ops, 1)?;
    let a = array(ops[0], "the operand")?;
    let n = fft_length.len();
    if !(1..=3).contains(&n) {
        return err(format!(
            "fft_length must have 1 to 3 values, got {fft_length:?}"
        ));
    }
    if a.rank() < n {
        return err(format!(
            "fft_length {fft_length:?} transforms {n} dims but the operand {} has rank {}",
            ash(a),
            a.rank()
        ));
    }
    if let Some(&bad) = fft_length.iter().find(|&&x| x < 0) {
        return err(format!(
            "fft_length {fft_length:?} has a negative size {bad}"
        ));
    }
    let t = a.element_type;
    let lead = a.rank() - n;
    let trailing = &a.dims[lead..];
    let last = fft_length[n - 1];
    let half = if last == 0 { 0 } else { last / 2 + 1 };
    let mut dims = a.dims.clone();
    let check = |want: &[i64], what: &str| -> Result<()> {
        if trailing != want {
            return err(format!(
                "{} {} needs trailing dims {want:?} for fft_length {fft_length:?}{what}, got {trailing:?}",
                fft_type.name(),
                ash(a)
            ));
        }
        Ok(())
    };
    let ty = match fft_type {
        FftType::Fft | FftType::Ifft => {
            if !t.is_complex() {
                return err(format!(
                    "{} expects a c64 or c128 operand, got {}",
                    fft_type.name(),
                    ash(a)
                ));
            }
            check(fft_length, "")?;
            t
        }
        FftType::Rfft => {
            let Some(c) = t.complex_of() else {
                return err(format!(
                    "RFFT expects an f32 or f64 operand, got {}",
                    ash(a)
                ));
            };
            check(fft_length, "")?;
            dims[a.rank() - 1] = half;
            c
        }
        FftType::Irfft => {
            let Some(r) = t.complex_component() else {
                return err(format!(
                    "IRFFT expects a c64 or c128 operand, got {}",
                    ash(a)
                ));
            };
            let mut want = fft_length.to_vec();
            want[n - 1] = half;
            check(&want, " (last dim fft_length/2+1)")?;
            dims[a.rank() - 1] = last;
            r
        }
    };
    make(ty, dims)
}
