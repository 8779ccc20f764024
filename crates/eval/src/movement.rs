//! Data-movement ops over array literals: iota, broadcast, transpose,
//! slice, dynamic-slice, dynamic-update-slice, concatenate, pad, reverse,
//! bitcast, select and clamp. Each takes operand literals and the result
//! shape and returns the result; none of them looks at instructions.
//! Results carry the result shape's layout (data stays row-major).

use crate::data::{self, row_major_strides, strided_map};
use crate::elementwise;
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayData, ArrayLiteral, ArrayShape, BinaryOp, ElementType, Literal, PadDim};

fn check_rank(what: &str, got: usize, want: usize) -> Result<()> {
    if got != want {
        return Err(EvalError::new(format!(
            "{what}: expected {want} entries (one per dimension), got {got}"
        )));
    }
    Ok(())
}

/// `iota`: values count along `dimension`.
pub fn iota(out: &ArrayShape, dimension: i64) -> Result<ArrayLiteral> {
    let d = out.resolve_dim(dimension)?;
    let strides = row_major_strides(&out.dims);
    let n = data::count(out)?;
    let size = out.dims[d].max(1) as usize;
    let vals: Vec<i64> = (0..n)
        .map(|i| ((i / strides[d] as usize) % size) as i64)
        .collect();
    data::array(
        out,
        elementwise::convert(&ArrayData::S64(vals), out.element_type)?,
    )
}

/// `broadcast`: operand dim i maps to output dim `dims[i]`.
pub fn broadcast(x: &ArrayLiteral, dims: &[i64], out: &ArrayShape) -> Result<ArrayLiteral> {
    check_rank("broadcast dimensions", dims.len(), x.shape.rank())?;
    let src = row_major_strides(&x.shape.dims);
    let mut strides = vec![0isize; out.rank()];
    for (i, &d) in dims.iter().enumerate() {
        let d = out.resolve_dim(d)?;
        let (sz, od) = (x.shape.dims[i], out.dims[d]);
        if sz != od && sz != 1 {
            return Err(EvalError::new(format!(
                "broadcast: operand dimension {i} (size {sz}) does not match output dimension {d} (size {od})"
            )));
        }
        strides[d] = if sz == 1 { 0 } else { src[i] };
    }
    if x.data.len() == 1 {
        return data::array(out, data::splat(&x.data, data::count(out)?));
    }
    data::array(out, x.data.take(&strided_map(&out.dims, &strides, 0)))
}

/// `transpose`: output dim i is operand dim `perm[i]`.
pub fn transpose(x: &ArrayLiteral, perm: &[i64], out: &ArrayShape) -> Result<ArrayLiteral> {
    check_rank("transpose permutation", perm.len(), x.shape.rank())?;
    check_rank("transpose result", out.rank(), x.shape.rank())?;
    let src = row_major_strides(&x.shape.dims);
    let mut strides = Vec::with_capacity(perm.len());
    let mut seen = vec![false; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        let d = x.shape.resolve_dim(p)?;
        if std::mem::replace(&mut seen[d], true) || out.dims[i] != x.shape.dims[d] {
            return Err(EvalError::new(format!(
                "transpose: permutation {perm:?} does not map {} to {out}",
                x.shape
            )));
        }
        strides.push(src[d]);
    }
    data::array(out, x.data.take(&strided_map(&out.dims, &strides, 0)))
}

/// Strided `slice`.
pub fn slice(
    x: &ArrayLiteral,
    starts: &[i64],
    strides: &[i64],
    out: &ArrayShape,
) -> Result<ArrayLiteral> {
    check_rank("slice starts", starts.len(), x.shape.rank())?;
    check_rank("slice strides", strides.len(), x.shape.rank())?;
    check_rank("slice result", out.rank(), x.shape.rank())?;
    if let Some(d) = strides.iter().position(|&s| s < 1) {
        return Err(EvalError::new(format!(
            "slice: stride {} of dimension {d} must be at least 1",
            strides[d]
        )));
    }
    let src = row_major_strides(&x.shape.dims);
    let mut base = 0isize;
    let mut st = Vec::with_capacity(starts.len());
    for d in 0..starts.len() {
        let last = starts[d] + (out.dims[d] - 1).max(0) * strides[d];
        if out.dims[d] > 0 && (starts[d] < 0 || last >= x.shape.dims[d]) {
            return Err(EvalError::new(format!(
                "slice: dimension {d} reads [{}..{}] outside size {}",
                starts[d], last, x.shape.dims[d]
            )));
        }
        base += starts[d] as isize * src[d];
        st.push(strides[d] as isize * src[d]);
    }
    data::array(out, x.data.take(&strided_map(&out.dims, &st, base)))
}

/// Clamps runtime start indices so the window `sizes` fits in `dims`.
pub fn clamp_starts(starts: &[&ArrayLiteral], dims: &[i64], sizes: &[i64]) -> Result<Vec<i64>> {
    check_rank("dynamic start indices", starts.len(), dims.len())?;
    starts
        .iter()
        .enumerate()
        .map(|(d, s)| {
            let v = data::int_scalar(s, "start index")?;
            Ok(v.clamp(0, (dims[d] - sizes[d]).max(0)))
        })
        .collect()
}

/// `dynamic-slice` with clamped starts.
pub fn dynamic_slice(
    x: &ArrayLiteral,
    starts: &[&ArrayLiteral],
    out: &ArrayShape,
) -> Result<ArrayLiteral> {
    let s = clamp_starts(starts, &x.shape.dims, &out.dims)?;
    slice(x, &s, &vec![1; s.len()], out)
}

/// `dynamic-update-slice` with clamped starts.
pub fn dynamic_update_slice(
    x: &ArrayLiteral,
    update: &ArrayLiteral,
    starts: &[&ArrayLiteral],
    out: &ArrayShape,
) -> Result<ArrayLiteral> {
    check_rank("update rank", update.shape.rank(), x.shape.rank())?;
    if let Some(d) = (0..x.shape.rank()).find(|&d| update.shape.dims[d] > x.shape.dims[d]) {
        return Err(EvalError::new(format!(
            "dynamic-update-slice: update dimension {d} ({}) is larger than the operand's ({})",
            update.shape.dims[d], x.shape.dims[d]
        )));
    }
    let s = clamp_starts(starts, &x.shape.dims, &update.shape.dims)?;
    let dst = row_major_strides(&x.shape.dims);
    let base: isize = s.iter().zip(&dst).map(|(&a, &b)| a as isize * b).sum();
    let pos = strided_map(&update.shape.dims, &dst, base);
    let mut d = x.data.clone();
    data::assign(&mut d, &pos, &update.data)?;
    data::array(out, d)
}

/// `concatenate` along `dimension`.
pub fn concatenate(xs: &[&ArrayLiteral], dimension: i64, out: &ArrayShape) -> Result<ArrayLiteral> {
    let d = out.resolve_dim(dimension)?;
    let mut total = 0;
    for x in xs {
        let ok = x.shape.rank() == out.rank()
            && (0..out.rank()).all(|k| k == d || x.shape.dims[k] == out.dims[k]);
        if !ok {
            return Err(EvalError::new(format!(
                "concatenate: operand {} does not fit the result {out} along dimension {d}",
                x.shape
            )));
        }
        total += x.shape.dims[d];
    }
    if total != out.dims[d] {
        return Err(EvalError::new(format!(
            "concatenate: operand sizes along dimension {d} sum to {total}, the result has {}",
            out.dims[d]
        )));
    }
    let outer: usize = out.dims[..d].iter().product::<i64>() as usize;
    let inner: usize = out.dims[d + 1..].iter().product::<i64>() as usize;
    let flat = data::concat_data(&xs.iter().map(|x| &x.data).collect::<Vec<_>>())?;
    let mut idx = Vec::with_capacity(flat.len());
    for o in 0..outer {
        let mut base = 0usize;
        for x in xs {
            let chunk = x.shape.dims.get(d).copied().unwrap_or(0) as usize * inner;
            let start = base + o * chunk;
            idx.extend(start..start + chunk);
            base += x.data.len();
        }
    }
    data::array(out, flat.take(&idx))
}

/// `pad` with low/high (possibly negative) edges and interior padding.
pub fn pad(
    x: &ArrayLiteral,
    value: &ArrayLiteral,
    config: &[PadDim],
    out: &ArrayShape,
) -> Result<ArrayLiteral> {
    check_rank("padding config", config.len(), x.shape.rank())?;
    check_rank("pad result", out.rank(), x.shape.rank())?;
    if value.data.element_type() != x.data.element_type() || value.data.len() != 1 {
        return Err(EvalError::new(format!(
            "pad: padding value {} must be a scalar of the operand's type {}",
            value.shape, x.shape.element_type
        )));
    }
    let n = data::count(out)?;
    let mut idx: Vec<Option<usize>> = vec![None; n];
    let ost = row_major_strides(&out.dims);
    let rank = x.shape.rank();
    // Walk the operand; place each element at low + i*(interior+1) when inside.
    let mut index = vec![0i64; rank];
    for k in 0..x.data.len() {
        let mut pos = 0isize;
        let mut inside = true;
        for d in 0..rank {
            let p = config[d].low + index[d] * (config[d].interior + 1);
            if p < 0 || p >= out.dims[d] {
                inside = false;
                break;
            }
            pos += p as isize * ost[d];
        }
        if inside {
            idx[pos as usize] = Some(k);
        }
        rxla_ir::index::increment(&mut index, &x.shape.dims);
    }
    data::array(out, x.data.take_or(&idx, &value.data))
}

/// `reverse` of the listed dimensions.
pub fn reverse(x: &ArrayLiteral, dims: &[i64], out: &ArrayShape) -> Result<ArrayLiteral> {
    if !x.shape.compatible(out) {
        return Err(EvalError::new(format!("reverse of {} into {out}", x.shape)));
    }
    let mut strides = row_major_strides(&x.shape.dims);
    let mut base = 0isize;
    let mut flip = vec![false; x.shape.rank()];
    for &d in dims {
        flip[x.shape.resolve_dim(d)?] = true;
    }
    for d in (0..flip.len()).filter(|&d| flip[d]) {
        base += (x.shape.dims[d] - 1).max(0) as isize * strides[d];
        strides[d] = -strides[d];
    }
    data::array(
        out,
        x.data.take(&strided_map(&x.shape.dims, &strides, base)),
    )
}

/// `bitcast`: the operand's physical buffer read back under `out`'s shape
/// and layout.
pub fn bitcast(x: &ArrayLiteral, out: &ArrayShape) -> Result<ArrayLiteral> {
    let bytes = x.to_physical_bytes()?;
    if bytes.len() != out.byte_size()? {
        return Err(EvalError::new(format!(
            "bitcast from {} ({} bytes) to {out} ({} bytes)",
            x.shape,
            bytes.len(),
            out.byte_size()?
        )));
    }
    Ok(ArrayLiteral::from_physical_bytes(out.clone(), &bytes)?)
}

/// `select(pred, on_true, on_false)`: array or scalar pred; with a scalar
/// pred the operands may be tuples (the whole value is chosen).
pub fn select(p: &Literal, t: &Literal, f: &Literal) -> Result<Literal> {
    let p = p.as_array()?;
    if p.shape.element_type != ElementType::Pred {
        return Err(EvalError::new(format!(
            "select: predicate must be pred, got {}",
            p.shape
        )));
    }
    if p.shape.is_scalar() {
        let take_true = data::pred_scalar(p, "select predicate")?;
        return Ok(if take_true { t.clone() } else { f.clone() });
    }
    let (t, f) = (t.as_array()?, f.as_array()?);
    let ArrayData::Pred(pv) = &p.data else {
        unreachable!("checked pred above")
    };
    if pv.len() != t.data.len() || pv.len() != f.data.len() {
        return Err(EvalError::new(format!(
            "select: predicate {} does not match operands {} / {}",
            p.shape, t.shape, f.shape
        )));
    }
    let n = pv.len();
    let idx: Vec<usize> = pv
        .iter()
        .enumerate()
        .map(|(i, &b)| if b { i } else { n + i })
        .collect();
    let flat = data::concat_data(&[&t.data, &f.data])?;
    Ok(Literal::Array(data::array(&t.shape, flat.take(&idx))?))
}

/// `clamp(lo, x, hi)` = min(max(x, lo), hi) with the max/min semantics of
/// `elementwise`; lo and hi may be scalars.
pub fn clamp(
    lo: &ArrayLiteral,
    x: &ArrayLiteral,
    hi: &ArrayLiteral,
    out: &ArrayShape,
) -> Result<ArrayLiteral> {
    let m = elementwise::binary(BinaryOp::Maximum, &x.data, &lo.data)?;
    let r = elementwise::binary(BinaryOp::Minimum, &m, &hi.data)?;
    data::array(out, r)
}
