//! `bitcast-convert` at one output index, the evaluator's rule (the
//! operand's little-endian bytes in row-major order read as the result
//! type). Same width: the bits reinterpreted. To a narrower type the
//! result has an extra minor dimension of size `from/to` bytes and element
//! `k` is bits `k·w .. (k+1)·w` of the operand element; to a wider type
//! the operand's minor dimension is folded, element `k` supplying bits
//! `k·w ..`. Held values are bits except for half types (held as f32,
//! converted without touching NaN payloads) and pred (a byte read as pred
//! is `byte != 0`, as the evaluator reads it). Scalar only.

use super::emit::Emitter;
use super::repr;
use crate::error::{JitError, Result};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I8, I16, I32, I64};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Type, Value};
use rxla_ir::{ArrayShape, CompId, ElementType, InstrId};

/// The integer type of `bytes` bytes.
fn int_type(bytes: usize) -> Result<Type> {
    Ok(match bytes {
        1 => I8,
        2 => I16,
        4 => I32,
        8 => I64,
        _ => return Err(JitError::unsupported("bitcast-convert width")),
    })
}

/// A held value of type `et` as its bits (an integer of the same width).
fn to_bits(em: &mut Emitter, v: Value, et: ElementType) -> Result<Value> {
    if repr::is_half(et) {
        return repr::half_bits_raw(em, v, et);
    }
    if et.is_int_n() {
        // The narrow pattern: the low bits of the held i8.
        return Ok(em.b.ins().band_imm_s(v, (1i64 << et.bit_width()) - 1));
    }
    let it = int_type(et.byte_size())?;
    Ok(if repr::storage(et)? == it {
        v
    } else {
        em.b.ins().bitcast(it, MemFlagsData::new(), v)
    })
}

/// Bits as a held value of type `et`.
fn from_bits(em: &mut Emitter, v: Value, et: ElementType) -> Result<Value> {
    if repr::is_half(et) {
        return repr::half_from_bits(em, v, et);
    }
    if et.is_pred() {
        let nz = em.b.ins().icmp_imm_s(IntCC::NotEqual, v, 0);
        return from_bits(em, nz, ElementType::U8);
    }
    if et.is_int_n() {
        let v = if em.b.func.dfg.value_type(v) == I8 {
            v
        } else {
            em.b.ins().ireduce(I8, v)
        };
        return Ok(repr::wrap_int_n(em, v, et));
    }
    let st = repr::storage(et)?;
    Ok(if em.b.func.dfg.value_type(v) == st {
        v
    } else {
        em.b.ins().bitcast(st, MemFlagsData::new(), v)
    })
}

/// `bitcast-convert` of the held value `x` of type `from` to `to`, a type
/// of the same width.
pub fn same_width(em: &mut Emitter, x: Value, from: ElementType, to: ElementType) -> Result<Value> {
    if from.is_token() || to.is_token() {
        return Err(JitError::unsupported("bitcast-convert of tokens"));
    }
    if from.bit_width() != to.bit_width() {
        return Err(JitError::unsupported("bitcast-convert width"));
    }
    let bits = to_bits(em, x, from)?;
    from_bits(em, bits, to)
}

/// `bitcast-convert(operand)` to `out` (another element width) at `idx`.
pub fn width_changing(
    em: &mut Emitter,
    c: CompId,
    operand: InstrId,
    out: &ArrayShape,
    idx: &[Value],
) -> Result<Value> {
    let os = em.array_shape(c, operand)?;
    let (from, to) = (os.element_type, out.element_type);
    if from.is_token() || to.is_token() {
        return Err(JitError::unsupported("bitcast-convert of tokens"));
    }
    // Widths in bits (s4 is 4 bits wide in one byte of storage); held
    // bits live in the integer type of at least one byte.
    let (wi, wo) = (from.bit_width() as usize, to.bit_width() as usize);
    let holder = |bits: usize| int_type(bits.div_ceil(8).max(1));
    if wi > wo {
        // Narrower: out = operand dims + [wi / wo].
        let n = out.rank();
        if n == 0
            || os.dims[..] != out.dims[..n - 1]
            || out.dims[n - 1] != (wi / wo) as i64
            || wi % wo != 0
        {
            return Err(JitError::unsupported("bitcast-convert shapes"));
        }
        let v = em.emit(c, operand, &idx[..n - 1], None)?;
        let bits = to_bits(em, v, from)?;
        let ht = holder(wi)?;
        let k = idx[n - 1];
        let k = if ht == I64 {
            k
        } else {
            em.b.ins().ireduce(ht, k)
        };
        let shift = em.b.ins().imul_imm_s(k, wo as i64);
        let part = em.b.ins().ushr(bits, shift);
        let to_t = holder(wo)?;
        let part = if to_t == ht {
            part
        } else {
            em.b.ins().ireduce(to_t, part)
        };
        from_bits(em, part, to)
    } else {
        // Wider: operand = out dims + [wo / wi].
        let m = os.rank();
        if m == 0
            || os.dims[..m - 1] != out.dims[..]
            || os.dims[m - 1] != (wo / wi) as i64
            || wo % wi != 0
        {
            return Err(JitError::unsupported("bitcast-convert shapes"));
        }
        let wide = holder(wo)?;
        let mut acc = em.b.ins().iconst(wide, 0);
        for k in 0..wo / wi {
            let mut oi = idx.to_vec();
            oi.push(em.iconst(k as i64));
            let v = em.emit(c, operand, &oi, None)?;
            let bits = to_bits(em, v, from)?;
            let bits = if holder(wi)? == wide {
                bits
            } else {
                em.b.ins().uextend(wide, bits)
            };
            let bits = em.b.ins().ishl_imm_s(bits, (k * wi) as i64);
            acc = em.b.ins().bor(acc, bits);
        }
        from_bits(em, acc, to)
    }
}
