//! How each element type is held: its Cranelift type in a register
//! ([`storage`]) and in memory ([`memory`]), the conversions between the
//! two (half and f8 types held as the f32 of their value, through host
//! functions; s2/s4/u2/u4 as a wrapped `i8`), and the element loads and
//! stores of the emitter ([`Emitter::load`], [`Emitter::store_elem`]),
//! scalar and F32X4. Must not compute element arithmetic (that is
//! `scalar`'s and `vector`'s) nor know any op.

use super::emit::{Emitter, Sym, le};
use crate::error::{JitError, Result};
use cranelift_codegen::ir::types::{F32, F32X4, F64, I8, I8X16, I16, I32, I32X4, I64};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Type, Value};
use rxla_ir::index::physical_strides;
use rxla_ir::{ArrayShape, ElementType};

/// The Cranelift type holding one element of `et` in a register. Half
/// types (f16, bf16) are held as the f32 of their value (exact) and
/// rounded back after every arithmetic op, as the evaluator computes them.
pub fn storage(et: ElementType) -> Result<Type> {
    Ok(match et {
        ElementType::F16 | ElementType::BF16 => F32,
        t if t.is_f8() => F32,
        t if t.is_int_n() => I8,
        ElementType::Pred | ElementType::S8 | ElementType::U8 => I8,
        ElementType::S16 | ElementType::U16 => I16,
        ElementType::S32 | ElementType::U32 => I32,
        ElementType::S64 | ElementType::U64 => I64,
        ElementType::F32 => F32,
        ElementType::F64 => F64,
        other => return Err(JitError::unsupported(format!("element type {other}"))),
    })
}

/// Types held as the f32 of their value and rounded after every op: the
/// halves (f16, bf16) and the f8 types.
pub fn is_half(et: ElementType) -> bool {
    matches!(et, ElementType::F16 | ElementType::BF16) || et.is_f8()
}

/// The type of one element in memory (half types are 16-bit patterns,
/// f8 and the 2/4-bit integers one byte).
pub fn memory(et: ElementType) -> Result<Type> {
    if et.is_narrow() {
        Ok(I8)
    } else if is_half(et) {
        Ok(I16)
    } else {
        storage(et)
    }
}

/// An `i8` holding an s8/u8 result wrapped to the 2/4-bit integer `et`
/// (sign- or zero-extended from its width, as the evaluator wraps).
pub fn wrap_int_n(em: &mut Emitter, v: Value, et: ElementType) -> Value {
    let w = et.bit_width() as i64;
    if et.is_signed_int() {
        let t = em.b.ins().ishl_imm_s(v, 8 - w);
        em.b.ins().sshr_imm_s(t, 8 - w)
    } else {
        em.b.ins().band_imm_s(v, (1 << w) - 1)
    }
}

/// A loaded element (memory type) as the value a kernel holds.
pub fn from_memory(em: &mut Emitter, v: Value, et: ElementType) -> Result<Value> {
    if is_half(et) {
        half_from_bits(em, v, et)
    } else if et.is_int_n() {
        Ok(wrap_int_n(em, v, et))
    } else {
        Ok(v)
    }
}

/// The host function names of f8 type `et`.
pub fn f8(et: ElementType) -> Result<[&'static str; 4]> {
    super::libcalls::f8_names(et).ok_or_else(|| JitError::codegen(format!("{et} is not f8")))
}

/// Calls the half-conversion helper `[bf16, f16]` for `et` on `v`.
fn half_call(
    em: &mut Emitter,
    names: [&'static str; 2],
    v: Value,
    et: ElementType,
) -> Result<Value> {
    let name = if et == ElementType::BF16 {
        names[0]
    } else {
        names[1]
    };
    em.call(name, &[v])
}

/// A half value's f32 from its bits (every pattern kept: a signalling
/// NaN stays signalling, see `libcalls`).
pub fn half_from_bits(em: &mut Emitter, bits: Value, et: ElementType) -> Result<Value> {
    if et.is_f8() {
        return em.call(f8(et)?[0], &[bits]);
    }
    if et == ElementType::BF16 {
        // The top half of an f32: a shift, inline.
        let w = em.b.ins().uextend(I32, bits);
        let w = em.b.ins().ishl_imm_s(w, 16);
        let f = em.b.ins().bitcast(F32, MemFlagsData::new(), w);
        em.bf16_bits.insert(f, bits);
        return Ok(f);
    }
    half_call(em, ["rx_bf16_to_f32", "rx_f16_to_f32"], bits, et)
}

/// The bf16 bits of the f32 `v`, inline (the libcalls' `half::bf16` and
/// `f32_to_bf16_bits_raw` rules exactly): round to nearest even (round
/// bit set and a sticky bit or the kept lowest bit set), a NaN's top half
/// with the quiet bit set — always (`raw == false`, a conversion) or only
/// where no payload bit would be left (`raw`, a store of a held value).
fn bf16_bits_inline(em: &mut Emitter, v: Value, raw: bool) -> Value {
    use cranelift_codegen::ir::condcodes::IntCC;
    let x = em.b.ins().bitcast(I32, MemFlagsData::new(), v);
    let hi = em.b.ins().ushr_imm_s(x, 16);
    let rb = em.b.ins().band_imm_s(x, 0x8000);
    let rb = em.b.ins().icmp_imm_s(IntCC::NotEqual, rb, 0);
    let st = em.b.ins().band_imm_s(x, 0x1_7fff);
    let st = em.b.ins().icmp_imm_s(IntCC::NotEqual, st, 0);
    let up = em.b.ins().band(rb, st);
    let up = em.b.ins().uextend(I32, up);
    let rounded = em.b.ins().iadd(hi, up);
    let quiet = em.b.ins().bor_imm_s(hi, 0x40);
    let nan_bits = if raw {
        let payload = em.b.ins().band_imm_s(hi, 0x7f);
        let empty = em.b.ins().icmp_imm_s(IntCC::Equal, payload, 0);
        em.b.ins().select(empty, quiet, hi)
    } else {
        quiet
    };
    let abs = em.b.ins().band_imm_s(x, 0x7fff_ffff);
    let nan =
        em.b.ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThan, abs, 0x7f80_0000);
    let r = em.b.ins().select(nan, nan_bits, rounded);
    em.b.ins().ireduce(I16, r)
}

/// The bits of a held half value (the inverse of [`half_from_bits`]):
/// for stores and bitcasts, where the evaluator moves bits unchanged.
pub fn half_bits_raw(em: &mut Emitter, v: Value, et: ElementType) -> Result<Value> {
    if et.is_f8() {
        return em.call(f8(et)?[1], &[v]);
    }
    if et == ElementType::BF16 {
        // An f32 widened from bf16 bits stores those bits (exact: a bf16
        // NaN keeps a payload bit in its top half, other values round to
        // themselves).
        if let Some(&bits) = em.bf16_bits.get(&v) {
            return Ok(bits);
        }
        return Ok(bf16_bits_inline(em, v, true));
    }
    half_call(em, ["rx_bf16_bits_raw", "rx_f16_bits_raw"], v, et)
}

/// The bits of the half nearest to an f32 (the evaluator's conversion:
/// NaNs come out quiet).
pub fn half_to_bits(em: &mut Emitter, v: Value, et: ElementType) -> Result<Value> {
    if et == ElementType::BF16 {
        return Ok(bf16_bits_inline(em, v, false));
    }
    half_call(em, ["rx_f32_to_bf16", "rx_f32_to_f16"], v, et)
}

/// Rounds an f32 to the nearest value of half type `et` (held as f32).
pub fn round_half(em: &mut Emitter, v: Value, et: ElementType) -> Result<Value> {
    if et.is_f8() {
        // An f8 arithmetic result: through f16 (the evaluator, XLA CPU).
        return em.call(f8(et)?[2], &[v]);
    }
    let b = half_to_bits(em, v, et)?;
    half_from_bits(em, b, et)
}

impl Emitter<'_, '_> {
    /// Stores one element of type `et` (half types as their bits).
    pub fn store_elem(&mut self, v: Value, addr: Value, et: ElementType) -> Result<()> {
        let v = if is_half(et) && self.b.func.dfg.value_type(v) == F32 {
            half_bits_raw(self, v, et)?
        } else if et.is_int_n() {
            self.b.ins().band_imm_s(v, (1i64 << et.bit_width()) - 1)
        } else {
            v
        };
        self.b
            .ins()
            .store(MemFlagsData::new().with_notrap(), v, addr, 0);
        Ok(())
    }

    /// Loads the element of `shape` at `idx` from the buffer at `base`:
    /// scalar, or an F32X4 whose lanes move by `lanes`.
    pub fn load(
        &mut self,
        base: Value,
        shape: &ArrayShape,
        idx: &[Value],
        lanes: Option<&Sym>,
    ) -> Result<Value> {
        let et = shape.element_type;
        let ty = memory(et)?;
        let addr = self.address(base, shape, idx)?;
        // Inputs are never written while a kernel runs (outputs are distinct
        // buffers), so loads may be hoisted out of loops (broadcast operands).
        let flags = MemFlagsData::new()
            .with_notrap()
            .with_readonly()
            .with_can_move();
        let Some(sym) = lanes else {
            let v = self.b.ins().load(ty, flags, addr, 0);
            return from_memory(self, v, et);
        };
        let int_lanes = matches!(et, ElementType::S32 | ElementType::U32);
        if et != ElementType::F32 && !int_lanes {
            return Err(JitError::unsupported("vector loads of non-f32 data"));
        }
        let pst = physical_strides(shape);
        let stride: i64 = match sym {
            Sym::Dims(c) => c.iter().zip(&pst).map(|(&c, &s)| c * s as i64).sum(),
            Sym::RowMajor(c) if shape.layout.is_default() => *c,
            Sym::RowMajor(_) => {
                return Err(JitError::unsupported("reshape of a non-row-major buffer"));
            }
        };
        if int_lanes {
            // s32/u32 lanes (`ivector`): contiguous or one value for all.
            return match stride {
                0 => {
                    let s = self.b.ins().load(I32, flags, addr, 0);
                    Ok(self.b.ins().splat(I32X4, s))
                }
                1 => Ok(self.b.ins().load(I32X4, flags, addr, 0)),
                _ => Err(JitError::unsupported("strided integer vector load")),
            };
        }
        match stride {
            0 => {
                let s = self.b.ins().load(F32, flags, addr, 0);
                Ok(self.b.ins().splat(F32X4, s))
            }
            1 => Ok(self.b.ins().load(F32X4, flags, addr, 0)),
            _ if !self.allow_strided => Err(JitError::unsupported("strided vector load")),
            2 => {
                self.strided_loads = true;
                // Elements 0..3 and 3..6 (never past the last lane's element
                // 6), the even ones picked: [a0, a2, b1, b3].
                let a = self.b.ins().load(F32X4, flags, addr, 0);
                let b = self.b.ins().load(F32X4, flags, addr, 12);
                let bytes: Vec<u8> = [0u8, 2, 5, 7]
                    .iter()
                    .flat_map(|&l| (0..4).map(move |k| 4 * l + k))
                    .collect();
                let mask = self.b.func.dfg.immediates.push(bytes.into());
                let (ai, bi) = (
                    self.b.ins().bitcast(I8X16, le(), a),
                    self.b.ins().bitcast(I8X16, le(), b),
                );
                let r = self.b.ins().shuffle(ai, bi, mask);
                Ok(self.b.ins().bitcast(F32X4, le(), r))
            }
            s => {
                // Any other stride (transposed or reversed reads): four
                // scalar loads, lane k at element k·s (each lane's index is
                // an in-bounds position, as for the unit-stride load).
                self.strided_loads = true;
                let x0 = self.b.ins().load(F32, flags, addr, 0);
                let mut v = self.b.ins().scalar_to_vector(F32X4, x0);
                for k in 1..4u8 {
                    let off = i32::try_from(4 * s * k as i64)
                        .map_err(|_| JitError::unsupported("vector load stride"))?;
                    let x = self.b.ins().load(F32, flags, addr, off);
                    v = self.b.ins().insertlane(v, x, k);
                }
                Ok(v)
            }
        }
    }
}
