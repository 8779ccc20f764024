//! Compile-time bounds of the kernel's scalar integer values, read off the
//! Cranelift IR built so far: constants, loop counters with constant
//! bounds (`Emitter::counters`), and what add/sub/mul, masks, shifts,
//! extensions, min/max, selects and compares make of them. The kernels
//! run with Cranelift's mid-end optimizer off (`jit.rs`), so the lowerings
//! fold what these bounds decide themselves: jax's `x % n` and negative
//! index wrapping of `iota`-derived indices (`select(r < 0, r + n, r)`,
//! `compare(lt, false)`), remainders of non-negative values by powers of
//! two as masks, scatter bounds checks that cannot fail.
//!
//! A bound is of the value's bits read as a signed integer of its type,
//! and only given when no operation on the way can wrap. Must not emit any
//! instruction.

use super::emit::Emitter;
use cranelift_codegen::ir::{InstructionData, Opcode, Value, ValueDef};

/// How deep an expression is followed.
const DEPTH: u32 = 12;

/// `[lo, hi]` that every value of `v` lies in, when known.
pub fn range(em: &Emitter, v: Value) -> Option<(i64, i64)> {
    walk(em, v, DEPTH)
}

/// Whether `v` is known to lie in `[lo, hi]`.
pub fn within(em: &Emitter, v: Value, lo: i64, hi: i64) -> bool {
    range(em, v).is_some_and(|(a, b)| a >= lo && b <= hi)
}

fn walk(em: &Emitter, v: Value, depth: u32) -> Option<(i64, i64)> {
    if let Some(&r) = em.counters.get(&v) {
        return Some(r);
    }
    if let Some(c) = em.known_int(v) {
        return Some((c, c));
    }
    let dfg = &em.b.func.dfg;
    let ty = dfg.value_type(v);
    if depth == 0 || !ty.is_int() || ty.bits() > 64 {
        return None;
    }
    let ValueDef::Result(inst, 0) = dfg.value_def(v) else {
        return None;
    };
    let args = dfg.inst_args(inst);
    let arg = |k: usize| -> Option<(i64, i64)> { walk(em, *args.get(k)?, depth - 1) };
    let bits = ty.bits();
    // A shift amount known at compile time, below the width.
    let amount = || {
        let k = em.known_int(*args.get(1)?)?;
        (0..bits as i64).contains(&k).then_some(k)
    };
    let wide = |lo: i128, hi: i128| Some((lo, hi));
    let r: Option<(i128, i128)> = match dfg.insts[inst].opcode() {
        Opcode::Iadd => {
            let (a, b) = (arg(0)?, arg(1)?);
            wide(a.0 as i128 + b.0 as i128, a.1 as i128 + b.1 as i128)
        }
        Opcode::Isub => {
            let (a, b) = (arg(0)?, arg(1)?);
            wide(a.0 as i128 - b.1 as i128, a.1 as i128 - b.0 as i128)
        }
        Opcode::Imul => {
            let (a, b) = (arg(0)?, arg(1)?);
            products(a, (b.0 as i128, b.1 as i128))
        }
        Opcode::Band => {
            // Non-negative when either side is: at most that side.
            let (a, b) = (arg(0), arg(1));
            let hi = [a, b]
                .into_iter()
                .flatten()
                .filter(|r| r.0 >= 0)
                .map(|r| r.1)
                .min()?;
            wide(0, hi as i128)
        }
        Opcode::Sshr | Opcode::Ushr => {
            let (a, k) = (arg(0)?, amount()?);
            if dfg.insts[inst].opcode() == Opcode::Ushr && a.0 < 0 {
                None
            } else {
                wide((a.0 >> k) as i128, (a.1 >> k) as i128)
            }
        }
        Opcode::Ishl => {
            let (a, k) = (arg(0)?, amount()?);
            wide((a.0 as i128) << k, (a.1 as i128) << k)
        }
        Opcode::Sextend => arg(0).map(|a| (a.0 as i128, a.1 as i128)),
        Opcode::Uextend => arg(0)
            .filter(|a| a.0 >= 0)
            .map(|a| (a.0 as i128, a.1 as i128)),
        Opcode::Ireduce => arg(0).map(|a| (a.0 as i128, a.1 as i128)),
        Opcode::Smin => {
            let (a, b) = (arg(0)?, arg(1)?);
            wide(a.0.min(b.0) as i128, a.1.min(b.1) as i128)
        }
        Opcode::Smax => {
            let (a, b) = (arg(0)?, arg(1)?);
            wide(a.0.max(b.0) as i128, a.1.max(b.1) as i128)
        }
        Opcode::Select => {
            let (a, b) = (arg(1)?, arg(2)?);
            wide(a.0.min(b.0) as i128, a.1.max(b.1) as i128)
        }
        Opcode::Icmp | Opcode::Fcmp => wide(0, 1),
        // A saturating float → int convert of a value that is never below
        // -0 (NaN converts to 0): jax's `(abs(p) * k).astype(int)`.
        Opcode::FcvtToSintSat if not_negative(em, args[0], depth - 1) => {
            wide(0, (1i128 << (bits - 1)) - 1)
        }
        _ => None,
    };
    let (lo, hi) = r?;
    let (min, max) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
    (lo <= hi && lo >= min && hi <= max).then_some((lo as i64, hi as i64))
}

/// Whether float `v` is never below -0 (NaN allowed): `fabs`, non-negative
/// constants (-0 included: it converts to 0), and sums, products, minima
/// and maxima of such values.
fn not_negative(em: &Emitter, v: Value, depth: u32) -> bool {
    let dfg = &em.b.func.dfg;
    if depth == 0 {
        return false;
    }
    let ValueDef::Result(inst, 0) = dfg.value_def(v) else {
        return false;
    };
    let args = dfg.inst_args(inst);
    let all = |em: &Emitter| args.iter().all(|&a| not_negative(em, a, depth - 1));
    match dfg.insts[inst] {
        InstructionData::UnaryIeee32 { imm, .. } => f32::from_bits(imm.bits()) >= 0.0,
        InstructionData::UnaryIeee64 { imm, .. } => f64::from_bits(imm.bits()) >= 0.0,
        _ => match dfg.insts[inst].opcode() {
            Opcode::Fabs => true,
            // Not fdiv: x / -0 is -inf.
            Opcode::Fadd | Opcode::Fmul | Opcode::Fmin | Opcode::Fmax => all(em),
            _ => false,
        },
    }
}

/// The bounds of `a · b` over both ranges' corners.
fn products(a: (i64, i64), b: (i128, i128)) -> Option<(i128, i128)> {
    let c = [
        a.0 as i128 * b.0,
        a.0 as i128 * b.1,
        a.1 as i128 * b.0,
        a.1 as i128 * b.1,
    ];
    Some((*c.iter().min()?, *c.iter().max()?))
}
