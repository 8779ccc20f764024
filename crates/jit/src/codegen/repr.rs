//! How each element type is held: its Cranelift type in a register
//! ([`storage`]) and in memory ([`memory`]), the conversions between the
//! two (half and f8 types held as the f32 of their value, through host
//! functions; s2/s4/u2/u4 as a wrapped `i8`), and the element loads and
//! stores of the emitter ([`Emitter::load`], [`Emitter::store_elem`]),
//! scalar and F32X4 (f32, and f16/bf16 held as F32X4 of their values:
//! four 16-bit patterns widened on load, rounded and narrowed on store;
//! [`vround_half`] is the lane form of [`round_half`]). Must not compute
//! element arithmetic (that is `scalar`'s and `vector`'s) nor know any op.

use super::emit::{Emitter, Sym, le};
use crate::error::{JitError, Result};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{F32, F32X4, F64, I8, I8X16, I16, I32, I32X4, I64, I64X2};
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

// Lane forms (F32X4 held values, I32X4 bit patterns zero-extended from
// 16 bits). Each is the scalar rule above lane by lane, bit for bit:
// bf16 `bf16_bits_inline`; f16 `half::f16::from_f32` (round to nearest
// even, overflow to inf, NaN quieted keeping its top payload bits),
// `f16_bits_to_f32_raw` and `f32_to_f16_bits_raw` of `libcalls`. A held
// F32X4 made from bits (a load, a rounding) remembers them in
// `Emitter::bf16_bits` (keyed by the vector value), so storing it again
// costs no rounding.

/// `c` in every I32X4 lane: a pool load at its (single) use, which x64
/// folds into the instruction as a memory operand.
fn vi32(em: &mut Emitter, c: u32) -> Value {
    let bits = u128::from(c) * 0x0000_0001_0000_0001_0000_0001_0000_0001;
    match em.pooled(I32X4, bits) {
        Some(v) => v,
        None => {
            let f = em.vconst(f32::from_bits(c));
            em.b.ins().bitcast(I32X4, le(), f)
        }
    }
}

fn vshr(em: &mut Emitter, x: Value, n: i64) -> Value {
    let n = em.b.ins().iconst(I32, n);
    em.b.ins().ushr(x, n)
}

fn vshl(em: &mut Emitter, x: Value, n: i64) -> Value {
    let n = em.b.ins().iconst(I32, n);
    em.b.ins().ishl(x, n)
}

fn vand(em: &mut Emitter, x: Value, c: u32) -> Value {
    let c = vi32(em, c);
    em.b.ins().band(x, c)
}

fn vor(em: &mut Emitter, x: Value, c: u32) -> Value {
    let c = vi32(em, c);
    em.b.ins().bor(x, c)
}

fn vadd(em: &mut Emitter, x: Value, c: u32) -> Value {
    let c = vi32(em, c);
    em.b.ins().iadd(x, c)
}

/// Lane mask: `x > c` as signed lanes (`x` and `c` below 2^31 here).
fn vgt(em: &mut Emitter, x: Value, c: u32) -> Value {
    let c = vi32(em, c);
    em.b.ins().icmp(IntCC::SignedGreaterThan, x, c)
}

/// Lane mask: `x < c` as signed lanes (`x` and `c` below 2^31 here).
fn vlt(em: &mut Emitter, x: Value, c: u32) -> Value {
    let c = vi32(em, c);
    em.b.ins().icmp(IntCC::SignedGreaterThan, c, x)
}

fn vsel(em: &mut Emitter, m: Value, t: Value, f: Value) -> Value {
    em.b.ins().bitselect(m, t, f)
}

fn as_bits(em: &mut Emitter, v: Value) -> Value {
    em.b.ins().bitcast(I32X4, le(), v)
}

fn as_f32(em: &mut Emitter, v: Value) -> Value {
    em.b.ins().bitcast(F32X4, le(), v)
}

/// Lane mask of the NaN lanes of F32X4 `v`.
fn vnan(em: &mut Emitter, v: Value) -> Value {
    use cranelift_codegen::ir::condcodes::FloatCC;
    let m = em.b.ins().fcmp(FloatCC::Unordered, v, v);
    em.b.ins().bitcast(I32X4, le(), m)
}

/// `f + 0.5` on the lanes `a` (non-negative f32 bits): adding 0.5 rounds
/// a value below 2^-14 to a multiple of 2^-24 (ulp(0.5)), nearest even.
fn vplus_half(em: &mut Emitter, a: Value) -> Value {
    let f = as_f32(em, a);
    let h = vi32(em, 0.5f32.to_bits());
    let h = as_f32(em, h);
    em.b.ins().fadd(f, h)
}

/// F32X4 lanes rounded to the half type `et` (held as f32): the lane
/// form of [`round_half`] (NaNs quieted, as the evaluator's conversion).
pub fn vround_half(em: &mut Emitter, v: Value, et: ElementType) -> Result<Value> {
    match et {
        ElementType::BF16 => {
            let b = vhalf_bits(em, v, et, false)?;
            vhalf_from_bits(em, b, et)
        }
        ElementType::F16 => {
            let x = as_bits(em, v);
            let a = vand(em, x, 0x7fff_ffff);
            // Normal halves: 13 bits dropped, to nearest even.
            let lsb = vshr(em, a, 13);
            let lsb = vand(em, lsb, 1);
            let n = vadd(em, a, 0x0fff);
            let n = em.b.ins().iadd(n, lsb);
            let n = vand(em, n, 0xffff_e000);
            // Subnormal halves (below 2^-14): multiples of 2^-24.
            let s = vplus_half(em, a);
            let h = vi32(em, 0.5f32.to_bits());
            let h = as_f32(em, h);
            let s = em.b.ins().fsub(s, h);
            let s = as_bits(em, s);
            let tiny = vlt(em, a, 0x3880_0000);
            let r = vsel(em, tiny, s, n);
            // At or above 65520 (and inf): inf.
            let big = vgt(em, a, 0x477f_efff);
            let inf = vi32(em, 0x7f80_0000);
            let r = vsel(em, big, inf, r);
            let nan = vnan(em, v);
            let q = vor(em, a, 0x0040_0000);
            let q = vand(em, q, 0xffff_e000);
            let r = vsel(em, nan, q, r);
            let sign = vand(em, x, 0x8000_0000);
            let r = em.b.ins().bor(r, sign);
            Ok(as_f32(em, r))
        }
        other => Err(JitError::unsupported(format!("vector {other}"))),
    }
}

/// The half bit patterns (I32X4, zero-extended) of F32X4 lanes: the
/// nearest half, a NaN's top payload bits quieted always (`raw == false`,
/// a conversion) or only where none is left (`raw`, a store of a held
/// value) — [`half_to_bits`] and [`half_bits_raw`] lane by lane.
fn vhalf_bits(em: &mut Emitter, v: Value, et: ElementType, raw: bool) -> Result<Value> {
    if raw && let Some(&b) = em.bf16_bits.get(&v) {
        return Ok(b);
    }
    let x = as_bits(em, v);
    let nan = vnan(em, v);
    match et {
        ElementType::BF16 => {
            // (x + 0x7fff + lsb) >> 16; a NaN's top half, quiet.
            let lsb = vshr(em, x, 16);
            let lsb = vand(em, lsb, 1);
            let r = vadd(em, x, 0x7fff);
            let r = em.b.ins().iadd(r, lsb);
            let q = if raw {
                // Quiet bit only where the top payload is empty.
                let p = vand(em, x, 0x007f_0000);
                let z = vi32(em, 0);
                let empty = em.b.ins().icmp(IntCC::Equal, p, z);
                let qb = vand(em, empty, 0x0040_0000);
                em.b.ins().bor(x, qb)
            } else {
                vor(em, x, 0x0040_0000)
            };
            let r = vsel(em, nan, q, r);
            Ok(vshr(em, r, 16))
        }
        ElementType::F16 => {
            let a = vand(em, x, 0x7fff_ffff);
            let lsb = vshr(em, a, 13);
            let lsb = vand(em, lsb, 1);
            let n = vadd(em, a, 0x0fff_u32.wrapping_sub(0x3800_0000));
            let n = em.b.ins().iadd(n, lsb);
            let n = vshr(em, n, 13);
            let s = vplus_half(em, a);
            let s = as_bits(em, s);
            let s = vadd(em, s, 0u32.wrapping_sub(0x3f00_0000));
            let tiny = vlt(em, a, 0x3880_0000);
            let r = vsel(em, tiny, s, n);
            let big = vgt(em, a, 0x477f_efff);
            let inf = vi32(em, 0x7c00);
            let r = vsel(em, big, inf, r);
            let man = vshr(em, a, 13);
            let man = vand(em, man, 0x03ff);
            let q = if raw {
                let z = vi32(em, 0);
                let empty = em.b.ins().icmp(IntCC::Equal, man, z);
                let qb = vand(em, empty, 0x0200);
                em.b.ins().bor(man, qb)
            } else {
                vor(em, man, 0x0200)
            };
            let q = vor(em, q, 0x7c00);
            let r = vsel(em, nan, q, r);
            let sign = vshr(em, x, 16);
            let sign = vand(em, sign, 0x8000);
            Ok(em.b.ins().bor(r, sign))
        }
        other => Err(JitError::unsupported(format!("vector {other}"))),
    }
}

/// Held F32X4 lanes from half bit patterns (I32X4, zero-extended): the
/// lane form of [`half_from_bits`] (every pattern kept).
fn vhalf_from_bits(em: &mut Emitter, b: Value, et: ElementType) -> Result<Value> {
    let r = match et {
        ElementType::BF16 => vshl(em, b, 16),
        ElementType::F16 => {
            let sign = vand(em, b, 0x8000);
            let sign = vshl(em, sign, 16);
            let m = vand(em, b, 0x03ff);
            let e = vand(em, b, 0x7c00);
            // Normal: exponent rebased by 112.
            let n = vand(em, b, 0x7fff);
            let n = vshl(em, n, 13);
            let n = vadd(em, n, 0x3800_0000);
            // Inf and NaN: payload moved up, a signalling NaN kept.
            let mh = vshl(em, m, 13);
            let special = vor(em, mh, 0x7f80_0000);
            let is_special = vgt(em, e, 0x7bff);
            let r = vsel(em, is_special, special, n);
            // Zero and subnormal: m · 2^-24, as (0.5 + m·2^-24) - 0.5.
            let s = vadd(em, m, 0x3f00_0000);
            let s = as_f32(em, s);
            let h = vi32(em, 0.5f32.to_bits());
            let h = as_f32(em, h);
            let s = em.b.ins().fsub(s, h);
            let s = as_bits(em, s);
            let tiny = vlt(em, e, 0x0400);
            let r = vsel(em, tiny, s, r);
            em.b.ins().bor(r, sign)
        }
        other => return Err(JitError::unsupported(format!("vector {other}"))),
    };
    let f = as_f32(em, r);
    em.bf16_bits.insert(f, b);
    Ok(f)
}

/// Four half patterns loaded lane by lane (`step` bytes apart, lane 0
/// at `addr`), zero-extended into an I32X4.
fn vload_half_lanes(
    em: &mut Emitter,
    addr: Value,
    step: i64,
    flags: MemFlagsData,
) -> Result<Value> {
    let mut v = None;
    for k in 0..4u8 {
        let off = i32::try_from(step * k as i64)
            .map_err(|_| JitError::unsupported("vector load stride"))?;
        let x = em.b.ins().uload16(I32, flags, addr, off);
        v = Some(match v {
            None => em.b.ins().scalar_to_vector(I32X4, x),
            Some(v) => em.b.ins().insertlane(v, x, k),
        });
    }
    v.ok_or_else(|| JitError::codegen("no lanes"))
}

impl Emitter<'_, '_> {
    /// Stores one element of type `et` (half types as their bits).
    /// Four pred bytes (contiguous, or one for all lanes) as an I32X4
    /// lane mask (all ones where true).
    fn load_pred_lanes(
        &mut self,
        shape: &ArrayShape,
        addr: Value,
        sym: &Sym,
        flags: MemFlagsData,
    ) -> Result<Value> {
        let stride = lane_stride(shape, sym)?;
        match stride {
            0 => {
                let b = self.b.ins().load(I8, flags, addr, 0);
                let b = from_memory(self, b, ElementType::Pred)?;
                super::vector::splat(self, b, ElementType::Pred)
            }
            1 => {
                // The four bytes widened to i32 lanes (0 or 1), negated.
                let v = self.load_four_bytes(addr, flags, false);
                let zero = self.b.ins().iconst(I32, 0);
                let zero = self.b.ins().splat(I32X4, zero);
                // A pred byte is 0 or 1 (every writer stores those).
                Ok(self.b.ins().isub(zero, v))
            }
            _ => Err(JitError::unsupported("strided pred vector load")),
        }
    }

    /// The four bytes at `addr` (exactly those) as I32X4 lanes, sign- or
    /// zero-extended.
    fn load_four_bytes(&mut self, addr: Value, flags: MemFlagsData, signed: bool) -> Value {
        let w = self.b.ins().load(I32, flags, addr, 0);
        let v = self.b.ins().scalar_to_vector(I32X4, w);
        let v = self.b.ins().bitcast(I8X16, le(), v);
        if signed {
            let h = self.b.ins().swiden_low(v);
            self.b.ins().swiden_low(h)
        } else {
            let h = self.b.ins().uwiden_low(v);
            self.b.ins().uwiden_low(h)
        }
    }

    /// Four s8/u8/s16/u16 values (contiguous, or one for all lanes) as
    /// I32X4 lanes extended by their signedness (`ivector::canonical`).
    /// Reads exactly the four elements.
    fn load_narrow_lanes(
        &mut self,
        shape: &ArrayShape,
        addr: Value,
        sym: &Sym,
        flags: MemFlagsData,
    ) -> Result<Value> {
        let et = shape.element_type;
        let signed = et.is_signed_int();
        match lane_stride(shape, sym)? {
            0 => {
                let s = self.b.ins().load(memory(et)?, flags, addr, 0);
                super::vector::splat(self, s, et)
            }
            1 if et.bit_width() == 8 => Ok(self.load_four_bytes(addr, flags, signed)),
            1 => Ok(if signed {
                self.b.ins().sload16x4(flags, addr, 0)
            } else {
                self.b.ins().uload16x4(flags, addr, 0)
            }),
            _ => Err(JitError::unsupported("strided narrow integer vector load")),
        }
    }

    pub fn store_elem(&mut self, v: Value, addr: Value, et: ElementType) -> Result<()> {
        if super::ivector::is_int_lane(et)
            && et.bit_width() < 32
            && self.b.func.dfg.value_type(v) == I32X4
        {
            // The low byte (or two) of each lane gathered into the low
            // 4 (8) bytes and stored as one word: exactly the four elements.
            let w = (et.bit_width() / 8) as u8;
            let bytes: Vec<u8> = (0..16u8)
                .map(|i| if i < 4 * w { 4 * (i / w) + i % w } else { 0 })
                .collect();
            let mask = self.b.func.dfg.immediates.push(bytes.into());
            let b = self.b.ins().bitcast(I8X16, le(), v);
            let p = self.b.ins().shuffle(b, b, mask);
            let f = MemFlagsData::new().with_notrap();
            if w == 1 {
                let x = self.b.ins().bitcast(I32X4, le(), p);
                let x = self.b.ins().extractlane(x, 0);
                self.b.ins().store(f, x, addr, 0);
            } else {
                let x = self.b.ins().bitcast(I64X2, le(), p);
                let x = self.b.ins().extractlane(x, 0);
                self.b.ins().store(f, x, addr, 0);
            }
            return Ok(());
        }
        if et == ElementType::Pred && self.b.func.dfg.value_type(v) == I32X4 {
            // A lane mask (0 or all ones) to four bytes 0 or 1.
            let zero = self.b.ins().iconst(I32, 0);
            let zero = self.b.ins().splat(I32X4, zero);
            let ones = self.b.ins().isub(zero, v);
            let h = self.b.ins().snarrow(ones, ones);
            let b = self.b.ins().unarrow(h, h);
            let w = self.b.ins().bitcast(I32X4, le(), b);
            let w = self.b.ins().extractlane(w, 0);
            self.b
                .ins()
                .store(MemFlagsData::new().with_notrap(), w, addr, 0);
            return Ok(());
        }
        if is_half(et) && self.b.func.dfg.value_type(v) == F32X4 {
            // Four patterns narrowed (each below 2^16: no saturation) and
            // stored as one 64-bit word.
            let bits = vhalf_bits(self, v, et, true)?;
            let n = self.b.ins().unarrow(bits, bits);
            let w = self.b.ins().bitcast(I64X2, le(), n);
            let w = self.b.ins().extractlane(w, 0);
            self.b
                .ins()
                .store(MemFlagsData::new().with_notrap(), w, addr, 0);
            return Ok(());
        }
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
        if et == ElementType::Pred {
            return self.load_pred_lanes(shape, addr, sym, flags);
        }
        if super::ivector::is_int_lane(et) && !int_lanes {
            return self.load_narrow_lanes(shape, addr, sym, flags);
        }
        if et != ElementType::F32
            && !int_lanes
            && !matches!(et, ElementType::BF16 | ElementType::F16)
        {
            return Err(JitError::unsupported("vector loads of non-f32 data"));
        }
        let stride = lane_stride(shape, sym)?;
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
        if et != ElementType::F32 {
            // f16/bf16: the patterns widened to I32X4, then held as f32.
            let bits = match stride {
                0 => {
                    let s = self.b.ins().load(ty, flags, addr, 0);
                    let s = from_memory(self, s, et)?;
                    return Ok(self.b.ins().splat(F32X4, s));
                }
                1 => self.b.ins().uload16x4(flags, addr, 0),
                _ if !self.allow_strided => {
                    return Err(JitError::unsupported("strided vector load"));
                }
                s => {
                    self.strided_loads = true;
                    vload_half_lanes(self, addr, 2 * s, flags)?
                }
            };
            return vhalf_from_bits(self, bits, et);
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

/// How far (in elements of the buffer) one lane moves along `sym`.
fn lane_stride(shape: &ArrayShape, sym: &Sym) -> Result<i64> {
    let pst = physical_strides(shape);
    match sym {
        Sym::Dims(c) => Ok(c.iter().zip(&pst).map(|(&c, &s)| c * s as i64).sum()),
        Sym::RowMajor(c) if shape.layout.is_default() => Ok(*c),
        Sym::RowMajor(_) => Err(JitError::unsupported("reshape of a non-row-major buffer")),
    }
}
