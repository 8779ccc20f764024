//! `reduce-precision` as integer operations on the element's bits, exactly
//! the evaluator's `reduce_precision_bits` (crates/eval/src/elementwise.rs):
//! round the mantissa to nearest even by adding a bias and truncating,
//! then flush exponents above the reduced range to ±inf and at or below
//! its smallest normal to ±0, NaN kept (or made quiet when no mantissa bit
//! is left). Scalar f16/bf16/f32/f64 and F32X4 lanes. Emits code only; no
//! other semantics live here.

use super::emit::Emitter;
use super::repr;
use crate::error::{JitError, Result};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{F32, F32X4, F64, I32, I32X4, I64};
use cranelift_codegen::ir::{Endianness, InstBuilder, MemFlagsData, Type, Value};
use rxla_ir::ElementType;

/// Integer ops on scalars (`I32`/`I64`) or lanes (`I32X4`), with
/// constants of the element width and lane masks for conditions.
struct Bits<'e, 'a, 'f> {
    em: &'e mut Emitter<'a, 'f>,
    ty: Type,
}

impl Bits<'_, '_, '_> {
    fn vector(&self) -> bool {
        self.ty == I32X4
    }
    fn k(&mut self, v: u64) -> Value {
        if self.vector() {
            let s = self.em.b.ins().iconst(I32, v as u32 as i64);
            self.em.b.ins().splat(I32X4, s)
        } else if self.ty == I32 {
            self.em.b.ins().iconst(I32, v as u32 as i64)
        } else {
            self.em.b.ins().iconst(I64, v as i64)
        }
    }
    fn and(&mut self, a: Value, b: u64) -> Value {
        let k = self.k(b);
        self.em.b.ins().band(a, k)
    }
    fn cmp(&mut self, cc: IntCC, a: Value, b: u64) -> Value {
        let k = self.k(b);
        self.em.b.ins().icmp(cc, a, k)
    }
    /// `c ? t : f` with `c` from `cmp`.
    fn pick(&mut self, c: Value, t: Value, f: Value) -> Value {
        if self.vector() {
            self.em.b.ins().bitselect(c, t, f)
        } else {
            self.em.b.ins().select(c, t, f)
        }
    }
}

fn le() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// `reduce-precision(x)` for element type `et`; `x` is the held value
/// (half types as their exact f32, vectors as F32X4).
pub fn emit(
    em: &mut Emitter,
    x: Value,
    et: ElementType,
    exponent_bits: i64,
    mantissa_bits: i64,
) -> Result<Value> {
    if exponent_bits < 1 || mantissa_bits < 0 {
        return Err(JitError::unsupported("reduce-precision widths"));
    }
    let (e, m) = (exponent_bits.min(64), mantissa_bits.min(64));
    let (src_e, src_m): (i64, i64) = match et {
        ElementType::F16 => (5, 10),
        ElementType::BF16 => (8, 7),
        ElementType::F32 => (8, 23),
        ElementType::F64 => (11, 52),
        other => {
            return Err(JitError::unsupported(format!(
                "reduce-precision of {other}"
            )));
        }
    };
    let vector = em.b.func.dfg.value_type(x) == F32X4;
    // The element's bits as an integer of the register width.
    let (ty, bits) = if vector {
        (I32X4, em.b.ins().bitcast(I32X4, le(), x))
    } else if et == ElementType::F64 {
        (I64, em.b.ins().bitcast(I64, MemFlagsData::new(), x))
    } else if repr::is_half(et) {
        let h = repr::half_bits_raw(em, x, et)?;
        (I32, em.b.ins().uextend(I32, h))
    } else {
        (I32, em.b.ins().bitcast(I32, MemFlagsData::new(), x))
    };
    let mut o = Bits { em, ty };
    let total = 1 + src_e + src_m;
    let sign_mask = 1u64 << (total - 1);
    let exp_mask = ((1u64 << src_e) - 1) << src_m;
    let man_mask = (1u64 << src_m) - 1;
    let xe = o.and(bits, exp_mask);
    let exp_all = o.cmp(IntCC::Equal, xe, exp_mask);
    let xm = o.and(bits, man_mask);
    let man_nz = o.cmp(IntCC::NotEqual, xm, 0);
    let is_nan = o.em.b.ins().band(exp_all, man_nz);
    let mut v = bits;
    if m < src_m {
        let shift = src_m - m.max(0);
        let last_bit_mask = 1u64 << shift;
        let base_bias = (last_bit_mask >> 1).wrapping_sub(1);
        let lb = o.and(v, last_bit_mask);
        let last_bit = o.em.b.ins().ushr_imm_s(lb, shift);
        let bias = o.k(base_bias);
        let t = o.em.b.ins().iadd(v, last_bit);
        let t = o.em.b.ins().iadd(t, bias);
        let truncation = !(last_bit_mask - 1) & (u64::MAX >> (64 - total));
        v = o.and(t, truncation);
    }
    if e < src_e {
        let src_bias = (1u64 << (src_e - 1)) - 1;
        let reduced_bias = (1u64 << (e - 1)) - 1;
        let max_exp = src_bias + reduced_bias;
        let min_exp = src_bias - reduced_bias;
        let x_exp = o.and(v, exp_mask);
        let signed_zero = o.and(v, sign_mask);
        let inf_k = o.k(exp_mask);
        let inf = o.em.b.ins().bor(signed_zero, inf_k);
        let small = o.cmp(IntCC::UnsignedLessThanOrEqual, x_exp, min_exp << src_m);
        v = o.pick(small, signed_zero, v);
        let big = o.cmp(IntCC::UnsignedGreaterThan, x_exp, max_exp << src_m);
        v = o.pick(big, inf, v);
    }
    let nan = if m > 0 {
        bits
    } else {
        let s = o.and(bits, sign_mask);
        let q = o.k(exp_mask | (1u64 << (src_m - 1)));
        o.em.b.ins().bor(s, q)
    };
    let r = o.pick(is_nan, nan, v);
    Ok(if vector {
        em.b.ins().bitcast(F32X4, le(), r)
    } else if et == ElementType::F64 {
        em.b.ins().bitcast(F64, MemFlagsData::new(), r)
    } else if repr::is_half(et) {
        let h = em.b.ins().ireduce(cranelift_codegen::ir::types::I16, r);
        repr::half_from_bits(em, h, et)?
    } else {
        em.b.ins().bitcast(F32, MemFlagsData::new(), r)
    })
}
