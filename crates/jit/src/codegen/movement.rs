//! Data movement: the ops that only move elements, lowered by mapping
//! the output index to an operand index (and the lanes' coefficients with
//! it) — broadcast, reshape, layout bitcast, transpose, copy, slice,
//! reverse, pad, concatenate, dynamic-slice, dynamic-update-slice — and
//! the index sources iota and constant. Every index that reaches a load
//! is clamped into range. Must not compute element arithmetic (beyond
//! index arithmetic and the select of pad/concatenate/update-slice) nor
//! depend on another lowering family.

use super::emit::{At, Emitter, Sym};
use super::repr;
use super::scalar;
use super::vector;
use crate::error::{JitError, Result};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I8, I32X4};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value};
use rxla_ir::index::row_major_strides;
use rxla_ir::{ArrayShape, CompId, InstrId, Literal, PadDim};

/// `iota`: the index along `dimension`, converted to the element type.
pub fn iota(em: &mut Emitter, at: &At, dimension: i64) -> Result<Value> {
    let (idx, lanes, shape, et) = (at.idx, at.lanes, &at.shape, at.et());
    let d = dimension as usize;
    let i = *idx
        .get(d)
        .ok_or_else(|| JitError::unsupported("iota dimension"))?;
    if let Some(s) = lanes {
        let step = s.dims(shape.rank())?[d];
        let v = scalar::from_i64(em, i, et)?;
        if step == 0 {
            return vector::splat(em, v, et);
        }
        if !super::ivector::is_int_lane(et) {
            return Err(JitError::unsupported("lane-varying iota"));
        }
        // [i, i + step, i + 2·step, i + 3·step] (wrapping like the
        // scalar conversion of the index).
        let base = vector::splat(em, v, et)?;
        let bits: u128 = (0..4u128)
            .map(|k| ((k as i64 * step) as u32 as u128) << (32 * k))
            .sum();
        let offs = match em.pooled(I32X4, bits) {
            Some(o) => o,
            None => return Err(JitError::unsupported("constant pool full")),
        };
        let v = em.b.ins().iadd(base, offs);
        return Ok(super::ivector::canonical(em, et, v));
    }
    scalar::from_i64(em, i, et)
}

/// `constant`: a scalar literal as an immediate (splat in vector mode),
/// an array literal loaded from a copy baked into the kernel.
pub fn constant(em: &mut Emitter, at: &At, lit: &Literal) -> Result<Value> {
    let (shape, idx, lanes) = (&at.shape, at.idx, at.lanes);
    let arr = lit.as_array()?;
    if arr.data.len() == 1 {
        let v = scalar::literal_value(em, &arr.data, 0)?;
        return match lanes {
            Some(_) => vector::splat(em, v, shape.element_type),
            None => Ok(v),
        };
    }
    let bytes = arr.to_physical_bytes()?;
    let mut words = vec![0u64; bytes.len().div_ceil(8).max(1)].into_boxed_slice();
    for (i, ch) in bytes.chunks(8).enumerate() {
        let mut w = [0u8; 8];
        w[..ch.len()].copy_from_slice(ch);
        words[i] = u64::from_le_bytes(w);
    }
    let addr = words.as_ptr() as i64;
    em.consts.push(words);
    let base = em.iconst(addr);
    em.load(base, &arr.shape, idx, lanes)
}

/// `broadcast`: the operand at the output index's mapped dims.
pub fn broadcast(em: &mut Emitter, at: &At, dimensions: &[i64]) -> Result<Value> {
    let (c, idx, lanes, shape) = (at.c, at.idx, at.lanes, &at.shape);
    // The operand must be an array (a tuple operand is unsupported).
    let os = at.operand_shape(em, 0)?;
    let oi: Vec<Value> = dimensions.iter().map(|&d| idx[d as usize]).collect();
    let sym = match lanes {
        Some(s) => {
            let cs = s.dims(shape.rank())?;
            Some(Sym::Dims(
                dimensions.iter().map(|&d| cs[d as usize]).collect(),
            ))
        }
        None => None,
    };
    let v = em.emit(c, at.instr.operands[0], &oi, sym.as_ref())?;
    if lanes.is_some() && os.rank() == 0 {
        // One value in every lane (`ivector` shifts by it as by a scalar).
        em.uniform.insert(v);
    }
    Ok(v)
}

/// `bitcast`: same dims and layout (the operand itself), another
/// element type of the same width (the bits reinterpreted, scalar only),
/// or a row-major reshape.
pub fn bitcast(em: &mut Emitter, at: &At) -> Result<Value> {
    let (c, idx, lanes, shape, et) = (at.c, at.idx, at.lanes, &at.shape, at.et());
    let ops = &at.instr.operands;
    let os = at.operand_shape(em, 0)?;
    if os.element_type != et {
        // Same dims and width, another element type: the bits
        // reinterpreted (scalar only), as bitcast-convert.
        let from = os.element_type;
        if lanes.is_some()
            || os.dims != shape.dims
            || os.layout.minor_to_major != shape.layout.minor_to_major
            || from.byte_size() != et.byte_size()
            || repr::is_half(from)
            || repr::is_half(et)
            || from.is_int_n()
            || et.is_int_n()
        {
            return Err(JitError::unsupported("element-type-changing bitcast"));
        }
        let x = em.emit(c, ops[0], idx, None)?;
        let to = repr::storage(et)?;
        return Ok(if repr::storage(from)? == to {
            x
        } else {
            em.b.ins().bitcast(to, MemFlagsData::new(), x)
        });
    }
    if os.dims == shape.dims
        && os.layout.minor_to_major == shape.layout.minor_to_major
        && os.layout.padded_dimensions == shape.layout.padded_dimensions
    {
        em.emit(c, ops[0], idx, lanes)
    } else if os.layout.is_default() && shape.layout.is_default() {
        reshape(em, at, &os)
    } else {
        Err(JitError::unsupported("bitcast between layouts"))
    }
}

/// `transpose`: the output index permuted back.
pub fn transpose(em: &mut Emitter, at: &At, permutation: &[i64]) -> Result<Value> {
    let (c, idx, lanes, shape) = (at.c, at.idx, at.lanes, &at.shape);
    let mut oi = idx.to_vec();
    for (i, &p) in permutation.iter().enumerate() {
        oi[p as usize] = idx[i];
    }
    let sym = match lanes {
        Some(s) => {
            let cs = s.dims(shape.rank())?;
            let mut o = cs.clone();
            for (i, &p) in permutation.iter().enumerate() {
                o[p as usize] = cs[i];
            }
            Some(Sym::Dims(o))
        }
        None => None,
    };
    em.emit(c, at.instr.operands[0], &oi, sym.as_ref())
}

/// `slice`: `start + index · stride` per dim.
pub fn slice(em: &mut Emitter, at: &At, starts: &[i64], strides: &[i64]) -> Result<Value> {
    let (c, idx, lanes, shape) = (at.c, at.idx, at.lanes, &at.shape);
    let mut oi = Vec::with_capacity(idx.len());
    for d in 0..idx.len() {
        let m = em.b.ins().imul_imm_s(idx[d], strides[d]);
        oi.push(em.b.ins().iadd_imm_s(m, starts[d]));
    }
    let sym = match lanes {
        Some(s) => Some(Sym::Dims(
            s.dims(shape.rank())?
                .iter()
                .zip(strides)
                .map(|(c, s)| c * s)
                .collect(),
        )),
        None => None,
    };
    em.emit(c, at.instr.operands[0], &oi, sym.as_ref())
}

/// `reverse`: `n − 1 − index` along the reversed dims.
pub fn reverse(em: &mut Emitter, at: &At, dimensions: &[i64]) -> Result<Value> {
    let (c, idx, lanes, shape) = (at.c, at.idx, at.lanes, &at.shape);
    let os = at.operand_shape(em, 0)?;
    let mut oi = idx.to_vec();
    let mut cs = match lanes {
        Some(s) => s.dims(shape.rank())?,
        None => vec![0; shape.rank()],
    };
    for &d in dimensions {
        let d = d as usize;
        let n = em.iconst(os.dims[d] - 1);
        oi[d] = em.b.ins().isub(n, idx[d]);
        cs[d] = -cs[d];
    }
    let sym = lanes.map(|_| Sym::Dims(cs));
    em.emit(c, at.instr.operands[0], &oi, sym.as_ref())
}

/// `dynamic-slice`: the clamped starts added to the output index.
pub fn dynamic_slice(em: &mut Emitter, at: &At, sizes: &[i64]) -> Result<Value> {
    let (c, idx, lanes, shape) = (at.c, at.idx, at.lanes, &at.shape);
    let ops = &at.instr.operands;
    // Starts are lane-invariant: the lanes move like the output.
    let os = at.operand_shape(em, 0)?;
    let mut oi = Vec::with_capacity(idx.len());
    for d in 0..idx.len() {
        let s = start_index(em, c, ops[1 + d], os.dims[d] - sizes[d])?;
        oi.push(em.b.ins().iadd(s, idx[d]));
    }
    let sym = match lanes {
        Some(s) => Some(Sym::Dims(s.dims(shape.rank())?)),
        None => None,
    };
    em.emit(c, ops[0], &oi, sym.as_ref())
}

/// `dynamic-update-slice` (scalar): the update where the index falls in
/// its clamped window, else the operand.
pub fn dynamic_update_slice(em: &mut Emitter, at: &At) -> Result<Value> {
    let (c, idx, lanes, shape) = (at.c, at.idx, at.lanes, &at.shape);
    let ops = &at.instr.operands;
    if lanes.is_some() {
        return Err(JitError::unsupported("vector dynamic-update-slice"));
    }
    let us = at.operand_shape(em, 1)?;
    let mut inside = em.b.ins().iconst(I8, 1);
    let mut ui = Vec::with_capacity(idx.len());
    for d in 0..idx.len() {
        let s = start_index(em, c, ops[2 + d], shape.dims[d] - us.dims[d])?;
        let t = em.b.ins().isub(idx[d], s);
        let lo = em.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, t, 0);
        let hi = em.b.ins().icmp_imm_s(IntCC::SignedLessThan, t, us.dims[d]);
        let both = em.b.ins().band(lo, hi);
        inside = em.b.ins().band(inside, both);
        ui.push(em.clamp_idx(t, 0, us.dims[d] - 1));
    }
    let base = em.emit(c, ops[0], idx, None)?;
    if us.dims.contains(&0) {
        return Ok(base);
    }
    let upd = em.emit(c, ops[1], &ui, None)?;
    Ok(em.b.ins().select(inside, upd, base))
}

/// `reshape` (and a row-major bitcast) from operand shape `os`: a
/// renaming of dims when only size-1 dims differ, else the row-major
/// position regrouped ([`reshape_index`]).
pub fn reshape(em: &mut Emitter, at: &At, os: &ArrayShape) -> Result<Value> {
    let (c, o, out, idx, lanes) = (at.c, at.instr.operands[0], &at.shape, at.idx, at.lanes);
    let nz_in: Vec<usize> = (0..os.rank()).filter(|&d| os.dims[d] != 1).collect();
    let nz_out: Vec<usize> = (0..out.rank()).filter(|&d| out.dims[d] != 1).collect();
    let trivial = nz_in.len() == nz_out.len()
        && nz_in
            .iter()
            .zip(&nz_out)
            .all(|(&a, &b)| os.dims[a] == out.dims[b]);
    if trivial {
        let zero = em.iconst(0);
        let mut oi = vec![zero; os.rank()];
        for (&a, &b) in nz_in.iter().zip(&nz_out) {
            oi[a] = idx[b];
        }
        let sym = match lanes {
            Some(Sym::RowMajor(k)) => Some(Sym::RowMajor(*k)),
            Some(s) => {
                let cs = s.dims(out.rank())?;
                let mut o = vec![0; os.rank()];
                for (&a, &b) in nz_in.iter().zip(&nz_out) {
                    o[a] = cs[b];
                }
                Some(Sym::Dims(o))
            }
            None => None,
        };
        return em.emit(c, o, &oi, sym.as_ref());
    }
    let rs_out = row_major_strides(&out.dims);
    let oi = reshape_index(em, &os.dims, &out.dims, idx);
    let sym = match lanes {
        Some(Sym::RowMajor(k)) => Some(Sym::RowMajor(*k)),
        Some(s) => {
            let cs = s.dims(out.rank())?;
            Some(Sym::RowMajor(
                cs.iter().zip(&rs_out).map(|(c, s)| c * *s as i64).sum(),
            ))
        }
        None => None,
    };
    em.emit(c, o, &oi, sym.as_ref())
}

/// The operand index of a reshape from `in_dims` to `out_dims` at
/// output `idx`: dims are matched in groups of equal element counts
/// (a split or a merge), each group's row-major position computed
/// from its own dims only, divisions by powers of two as shifts and
/// none for a group's outermost dim.
fn reshape_index(em: &mut Emitter, in_dims: &[i64], out_dims: &[i64], idx: &[Value]) -> Vec<Value> {
    let zero = em.iconst(0);
    let mut oi = vec![zero; in_dims.len()];
    if in_dims.contains(&0) || out_dims.contains(&0) {
        return oi;
    }
    // Size-1 dims index 0; the others form groups of equal products.
    let nz_in: Vec<usize> = (0..in_dims.len()).filter(|&d| in_dims[d] != 1).collect();
    let nz_out: Vec<usize> = (0..out_dims.len()).filter(|&d| out_dims[d] != 1).collect();
    let mut groups: Vec<(&[usize], &[usize])> = Vec::new();
    let (mut a, mut b) = (0usize, 0usize);
    while a < nz_in.len() && b < nz_out.len() {
        let (a0, b0) = (a, b);
        let mut pi = in_dims[nz_in[a]];
        let mut po = out_dims[nz_out[b]];
        a += 1;
        b += 1;
        while pi != po {
            if pi < po && a < nz_in.len() {
                pi = pi.saturating_mul(in_dims[nz_in[a]]);
                a += 1;
            } else if po < pi && b < nz_out.len() {
                po = po.saturating_mul(out_dims[nz_out[b]]);
                b += 1;
            } else {
                // Counts that do not match (not a valid reshape): one group.
                a = nz_in.len();
                b = nz_out.len();
                break;
            }
        }
        groups.push((&nz_in[a0..a], &nz_out[b0..b]));
    }
    for (ins, outs) in groups {
        // The group's row-major position from its output dims.
        let mut lin: Option<Value> = None;
        let mut stride = 1i64;
        for &d in outs.iter().rev() {
            let m = em.b.ins().imul_imm_s(idx[d], stride);
            lin = Some(match lin {
                Some(l) => em.b.ins().iadd(l, m),
                None => m,
            });
            stride = stride.saturating_mul(out_dims[d]);
        }
        let lin = lin.unwrap_or(zero);
        // Split over the group's input dims (no remainder for the outermost).
        let mut stride = 1i64;
        for (k, &d) in ins.iter().enumerate().rev() {
            let q = udiv_const(em, lin, stride);
            oi[d] = if k == 0 {
                q
            } else {
                urem_const(em, q, in_dims[d])
            };
            stride = stride.saturating_mul(in_dims[d]);
        }
    }
    oi
}

/// `v / k` for a non-negative `v`: nothing for 1, a shift for a power of two.
fn udiv_const(em: &mut Emitter, v: Value, k: i64) -> Value {
    match k {
        1 => v,
        k if k > 0 && k & (k - 1) == 0 => em.b.ins().ushr_imm_u(v, k.trailing_zeros() as i64),
        k => em.b.ins().udiv_imm_u(v, k),
    }
}

/// `v % k` for a non-negative `v`: a mask for a power of two.
fn urem_const(em: &mut Emitter, v: Value, k: i64) -> Value {
    match k {
        k if k > 0 && k & (k - 1) == 0 => em.b.ins().band_imm_u(v, k - 1),
        k => em.b.ins().urem_imm_u(v, k),
    }
}

/// `pad`: the operand where the index maps onto one of its elements
/// (not low/high padding, not an interior hole), else the pad value.
pub fn pad(em: &mut Emitter, at: &At, config: &[PadDim]) -> Result<Value> {
    let (c, id, out, idx, lanes) = (at.c, at.id, &at.shape, at.idx, at.lanes);
    let os = &at.operand_shape(em, 0)?;
    let (o, pv) = {
        let ops = &at.instr.operands;
        (ops[0], ops[1])
    };
    let pad_value = {
        let v = em.emit(c, pv, &[], None)?;
        match lanes {
            Some(_) => vector::splat(em, v, out.element_type)?,
            None => v,
        }
    };
    if os.dims.contains(&0) {
        return Ok(pad_value);
    }
    let cs = match lanes {
        Some(s) => Some(s.dims(out.rank())?),
        None => None,
    };
    let mut valid = em.b.ins().iconst(I8, 1);
    let mut oi = Vec::with_capacity(idx.len());
    for (d, p) in config.iter().enumerate() {
        let n = os.dims[d];
        if p.low == 0 && p.high == 0 && p.interior == 0 {
            oi.push(idx[d]);
            continue;
        }
        if p.interior == 0 && em.interior.contains(&(c, id, d)) {
            // The kernel's interior section: every lane is inside the operand.
            oi.push(em.b.ins().iadd_imm_s(idx[d], -p.low));
            continue;
        }
        if cs.as_ref().is_some_and(|cs| cs[d] != 0) {
            return Err(JitError::unsupported("vector lanes across padding"));
        }
        let t = em.b.ins().iadd_imm_s(idx[d], -p.low);
        let ge = em.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, t, 0);
        let zero = em.iconst(0);
        let tp = em.b.ins().smax(t, zero);
        let (q, ok) = if p.interior == 0 {
            (tp, ge)
        } else {
            let q = em.b.ins().udiv_imm_u(tp, p.interior + 1);
            let r = em.b.ins().urem_imm_u(tp, p.interior + 1);
            let r0 = em.b.ins().icmp_imm_s(IntCC::Equal, r, 0);
            (q, em.b.ins().band(ge, r0))
        };
        let lt = em.b.ins().icmp_imm_s(IntCC::SignedLessThan, q, n);
        let ok = em.b.ins().band(ok, lt);
        valid = em.b.ins().band(valid, ok);
        oi.push(em.clamp_idx(q, 0, n - 1));
    }
    let sym = cs.map(Sym::Dims);
    let v = em.emit(c, o, &oi, sym.as_ref())?;
    Ok(em.b.ins().select(valid, v, pad_value))
}

/// `concatenate` along `dim`: each operand read at the index shifted by
/// its offset (clamped), the one whose range holds the index selected.
pub fn concatenate(em: &mut Emitter, at: &At, dim: usize) -> Result<Value> {
    let (c, ops, out, idx, lanes) = (at.c, &at.instr.operands, &at.shape, at.idx, at.lanes);
    if let Some(s) = lanes
        && s.dims(out.rank())?[dim] != 0
    {
        return Err(JitError::unsupported("vector lanes across a concatenation"));
    }
    // A known index along the concatenated dim: the one operand holding it
    // (the small-minor loops of `kernel.rs` emit each minor index apart).
    if let Some(k) = em.known_int(idx[dim]) {
        let mut off = 0i64;
        for &o in ops {
            let n = em.array_shape(c, o)?.dims[dim];
            if (off..off + n).contains(&k) {
                let mut oi = idx.to_vec();
                oi[dim] = em.iconst(k - off);
                return em.emit(c, o, &oi, lanes);
            }
            off += n;
        }
    }
    let mut result: Option<Value> = None;
    let mut off = 0i64;
    for &o in ops {
        let n = em.array_shape(c, o)?.dims[dim];
        if n == 0 {
            continue;
        }
        let mut oi = idx.to_vec();
        let t = em.b.ins().iadd_imm_s(idx[dim], -off);
        oi[dim] = em.clamp_idx(t, 0, n - 1);
        let v = em.emit(c, o, &oi, lanes)?;
        result = Some(match result {
            None => v,
            Some(prev) => {
                let cond =
                    em.b.ins()
                        .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, idx[dim], off);
                em.b.ins().select(cond, v, prev)
            }
        });
        off += n;
    }
    result.ok_or_else(|| JitError::unsupported("empty concatenation"))
}

/// A dynamic start index: the scalar operand read as i64 (signed or
/// unsigned by type) and clamped to `[0, max_start]`.
fn start_index(em: &mut Emitter, c: CompId, o: InstrId, max_start: i64) -> Result<Value> {
    let ty = em.array_shape(c, o)?.element_type;
    let v = em.emit(c, o, &[], None)?;
    let w = scalar::to_i64(em, v, ty)?;
    Ok(em.clamp_start(w, ty, max_start))
}
