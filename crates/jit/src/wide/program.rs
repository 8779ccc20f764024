//! Wide programs: a straight-line f32 elementwise expression (the dense
//! part of a fused kernel, such as the rational approximations JAX lowers
//! `erf`, `gelu` or `lgamma` into) run by one routine in 512-bit vectors,
//! 128 lanes at a time, with the running value held in eight zmm
//! registers (an accumulator machine: each instruction combines the
//! accumulator with one source).
//!
//! [`encode`] turns a list of [`Ins`] into the words the generated kernel
//! passes to [`block_program`]; `codegen/program.rs` builds that list from
//! the IR. Every instruction computes exactly what the JIT's inline F32X4
//! code computes for the same op (IEEE add/sub/mul/div/sqrt, the
//! evaluator's max/min NaN and ±0 rules, the same transcendental
//! algorithms as `crate::wide`), so a program changes where the work runs,
//! never a value. This module must not decide what goes into a program and
//! trusts the encoder's invariants (every slot is stored before it is
//! read, indices are in range; [`validate`] checks them once per program).

/// Lanes per pass over the instruction list (eight zmm registers: sixteen
/// spill in the select and transcendental paths, 14 vs 9 ms on exact GELU).
pub const GROUP: usize = 128;
/// Scratch slots (each one group of lanes) a program may use.
pub const MAX_SLOTS: usize = 48;
/// Inputs (row or one-value leaves) a program may read.
pub const MAX_LEAVES: usize = 32;

/// Where an instruction's second value comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Src {
    /// The same value in every lane.
    Const(f32),
    /// Leaf `i`: a row of the block's values (`leaves[i][j]`).
    Row(u32),
    /// Leaf `i`: one value for the whole block (`leaves[i][0]`).
    Scalar(u32),
    /// A scratch slot written by an earlier [`Op::Store`].
    Slot(u32),
    /// No source (unary instructions).
    None,
}

/// What an instruction does with the accumulator `a` and its source `s`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(u8)]
pub enum Op {
    /// `a = s`
    Load = 0,
    Add,
    /// `a = a - s`
    Sub,
    /// `a = s - a`
    RSub,
    Mul,
    /// `a = a / s`
    Div,
    /// `a = s / a`
    RDiv,
    /// `a = max(a, s)` (the evaluator's rule: NaN `a` kept, ±0 → +0)
    Max,
    /// `a = max(s, a)`
    RMax,
    Min,
    RMin,
    Neg,
    Abs,
    Sqrt,
    Exp,
    Tanh,
    Logistic,
    Log,
    Erf,
    /// `a = (a cmp s)` as a lane mask (all ones / zero); `aux` is the
    /// direction: 0 EQ, 1 NE, 2 LT, 3 LE, 4 GT, 5 GE.
    Cmp,
    /// `a = mask ? a : s` with `mask` the slot in `aux`.
    SelectKeepTrue,
    /// `a = mask ? s : a` with `mask` the slot in `aux`.
    SelectKeepFalse,
    /// `slot[s] = a` (the source must be a [`Src::Slot`]).
    Store,
    /// `a = a * s + c` with `c = f32::from_bits(aux)`, rounded after the
    /// multiply and after the add (not fused): a Horner step in one
    /// dispatch.
    MulAdd,
    // 32-bit integer lanes (an integer program: s32/u32 values, the
    // f32 constants' bits are the integers' bits), wrapping:
    /// `a = a + s`
    IAdd,
    /// `a = a - s`
    ISub,
    /// `a = s - a`
    IRSub,
    /// `a = a * s` (the low 32 bits)
    IMul,
    And,
    Or,
    Xor,
    /// `a = !a`
    Not,
    /// `a = a << s`, 0 where `s` (unsigned) is 32 or more
    Shl,
    /// `a = a >> s` (logical), 0 where `s` is 32 or more
    Shr,
    /// `a = a >> s` (arithmetic), the sign where `s` is 32 or more
    Sar,
    /// `a = ln(1 + a)`
    Log1p,
}

const OPS: [Op; 36] = [
    Op::Load,
    Op::Add,
    Op::Sub,
    Op::RSub,
    Op::Mul,
    Op::Div,
    Op::RDiv,
    Op::Max,
    Op::RMax,
    Op::Min,
    Op::RMin,
    Op::Neg,
    Op::Abs,
    Op::Sqrt,
    Op::Exp,
    Op::Tanh,
    Op::Logistic,
    Op::Log,
    Op::Erf,
    Op::Cmp,
    Op::SelectKeepTrue,
    Op::SelectKeepFalse,
    Op::Store,
    Op::MulAdd,
    Op::IAdd,
    Op::ISub,
    Op::IRSub,
    Op::IMul,
    Op::And,
    Op::Or,
    Op::Xor,
    Op::Not,
    Op::Shl,
    Op::Shr,
    Op::Sar,
    Op::Log1p,
];

/// Whether `op` reads no source (it works on the accumulator alone).
pub fn unary(op: Op) -> bool {
    matches!(
        op,
        Op::Neg
            | Op::Abs
            | Op::Sqrt
            | Op::Exp
            | Op::Tanh
            | Op::Logistic
            | Op::Log
            | Op::Erf
            | Op::Log1p
            | Op::Not
    )
}

/// One instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ins {
    pub op: Op,
    pub src: Src,
    /// Compare direction ([`Op::Cmp`]) or mask slot (selects).
    pub aux: u32,
}

/// The words of a program: `[count, slots, (w0, w1) per instruction]`,
/// w0 = op | kind << 8 | index << 32, w1 = aux | const bits << 32.
pub fn encode(code: &[Ins], slots: usize) -> Vec<u64> {
    let mut words = vec![code.len() as u64, slots as u64];
    for ins in code {
        let (kind, index, bits) = match ins.src {
            Src::Const(c) => (0u64, 0u64, c.to_bits() as u64),
            Src::Row(i) => (1, i as u64, 0),
            Src::Scalar(i) => (2, i as u64, 0),
            Src::Slot(i) => (3, i as u64, 0),
            Src::None => (4, 0, 0),
        };
        words.push(ins.op as u64 | kind << 8 | index << 32);
        words.push(ins.aux as u64 | bits << 32);
    }
    words
}

/// The instructions and slot count of [`encode`]'s words (`None` for
/// words it cannot have made).
pub fn decode(words: &[u64]) -> Option<(Vec<Ins>, usize)> {
    let (&count, rest) = words.split_first()?;
    let (&slots, body) = rest.split_first()?;
    if body.len() != 2 * usize::try_from(count).ok()? {
        return None;
    }
    let code = body
        .chunks_exact(2)
        .map(|w| {
            let op = *OPS.get(w[0] as u8 as usize)?;
            let index = (w[0] >> 32) as u32;
            let bits = (w[1] >> 32) as u32;
            let src = match (w[0] >> 8) & 0xff {
                0 => Src::Const(f32::from_bits(bits)),
                1 => Src::Row(index),
                2 => Src::Scalar(index),
                3 => Src::Slot(index),
                4 => Src::None,
                _ => return None,
            };
            Some(Ins {
                op,
                src,
                aux: w[1] as u32,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some((code, usize::try_from(slots).ok()?))
}

/// Checks what the interpreter trusts: every slot index below `slots` ≤
/// [`MAX_SLOTS`], every slot read after a store to it, leaf indices below
/// `leaves` ≤ [`MAX_LEAVES`], compare directions in range.
pub fn validate(code: &[Ins], slots: usize, leaves: usize) -> bool {
    if slots > MAX_SLOTS || leaves > MAX_LEAVES {
        return false;
    }
    let mut stored = vec![false; slots];
    let slot_ok = |i: u32, stored: &[bool]| stored.get(i as usize).copied().unwrap_or(false);
    for ins in code {
        let src_ok = match ins.src {
            _ if unary(ins.op) => ins.src == Src::None,
            Src::Row(i) | Src::Scalar(i) => (i as usize) < leaves,
            Src::Slot(i) if ins.op == Op::Store => (i as usize) < slots,
            Src::Slot(i) => slot_ok(i, &stored),
            Src::Const(_) => ins.op != Op::Store && !unary(ins.op),
            Src::None => unary(ins.op),
        };
        let aux_ok = match ins.op {
            Op::Cmp => ins.aux < 6,
            Op::SelectKeepTrue | Op::SelectKeepFalse => slot_ok(ins.aux, &stored),
            _ => true,
        };
        if !src_ok || !aux_ok {
            return false;
        }
        if let (Op::Store, Src::Slot(i)) = (ins.op, ins.src) {
            stored[i as usize] = true;
        }
    }
    true
}

/// Runs the program `prog` (words from [`encode`]) over `n` lanes and
/// writes the final accumulator to `dst[0..n]`; `leaves[i]` points at leaf
/// `i`'s `n` values (one for a one-value leaf). Registered as
/// `rxla_block_program`.
///
/// # Safety
/// `prog` is the output of [`encode`] for code that [`validate`] accepted
/// with this many leaves; `dst` points at `n` writable f32 values, each
/// `leaves[i]` at `n` readable ones (one for a [`Src::Scalar`] leaf); the
/// host has AVX-512 F (`crate::wide::available`).
pub unsafe extern "C" fn block_program(
    prog: *const u64,
    dst: *mut f32,
    leaves: *const *const f32,
    n: i64,
) -> i64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: forwarded contract.
    unsafe {
        interp::run(prog, dst, leaves, n, 0)
    };
    n
}

/// [`block_program`] for lanes `start..n` only: the tail a compiled
/// program (`super::compile`) leaves after its full groups.
///
/// # Safety
/// As for [`block_program`].
pub unsafe extern "C" fn program_tail(
    prog: *const u64,
    dst: *mut f32,
    leaves: *const *const f32,
    n: i64,
    start: i64,
) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: forwarded contract.
    unsafe {
        interp::run(prog, dst, leaves, n, start.max(0) as usize)
    };
}

/// Applies transcendental `op` (exp, tanh, logistic, log, erf) in place to
/// one group of [`GROUP`] values: what a compiled program calls.
///
/// # Safety
/// `p` points at [`GROUP`] writable f32 values, 64-byte aligned; the host
/// has AVX-512 F.
#[cfg(target_arch = "x86_64")]
pub(super) unsafe fn transcendental_in_place(p: *mut f32, op: Op) {
    // SAFETY: forwarded contract.
    unsafe { interp::in_place(p, op) }
}

#[cfg(target_arch = "x86_64")]
mod interp {
    use super::super::avx512::{erf16, exp16, log1p16, log16, logistic16, tanh16};
    use super::{GROUP, MAX_SLOTS, OPS, Op};
    use std::arch::x86_64::*;
    use std::mem::MaybeUninit;

    /// Vectors per group.
    const R: usize = GROUP / 16;
    type Acc = [__m512; R];

    /// One group's view of the sources.
    struct Ctx {
        leaves: *const *const f32,
        slots: *mut __m512,
        /// Offset of the group in the block.
        o: usize,
        /// Per-register lane masks (all ones in a full group).
        m: [__mmask16; R],
        full: bool,
    }

    /// `a[k] = f(a[k], s[k])` for the source of kind `kind`, each vector
    /// of the source loaded (or broadcast) right where it is used, so the
    /// load folds into the arithmetic instruction and only the
    /// accumulator occupies registers.
    macro_rules! combine {
        ($a:ident, $cx:ident, $kind:expr, $index:expr, $bits:expr, |$x:ident, $y:ident| $e:expr) => {{
            let f = |$x: __m512, $y: __m512| $e;
            match $kind {
                0 => {
                    let c = _mm512_set1_ps(f32::from_bits($bits));
                    for k in 0..R {
                        $a[k] = f($a[k], c);
                    }
                }
                1 => {
                    let p = (*$cx.leaves.add($index)).wrapping_add($cx.o);
                    if $cx.full {
                        for k in 0..R {
                            $a[k] = f($a[k], _mm512_loadu_ps(p.wrapping_add(16 * k)));
                        }
                    } else {
                        for k in 0..R {
                            let v = _mm512_maskz_loadu_ps($cx.m[k], p.wrapping_add(16 * k));
                            $a[k] = f($a[k], v);
                        }
                    }
                }
                2 => {
                    let c = _mm512_set1_ps(**$cx.leaves.add($index));
                    for k in 0..R {
                        $a[k] = f($a[k], c);
                    }
                }
                _ => {
                    let p = $cx.slots.add(R * $index);
                    for k in 0..R {
                        $a[k] = f($a[k], p.add(k).read());
                    }
                }
            }
        }};
    }

    /// The evaluator's max (`max`) or min of `x` and `y`: `x` if it wins,
    /// else `y`; equal values combine their bits (max(-0, +0) = +0); a NaN
    /// `x` is kept, a NaN `y` comes out.
    #[inline(always)]
    unsafe fn minmax(x: __m512, y: __m512, max: bool) -> __m512 {
        unsafe {
            let wins = if max {
                _mm512_cmp_ps_mask::<_CMP_GT_OQ>(x, y)
            } else {
                _mm512_cmp_ps_mask::<_CMP_LT_OQ>(x, y)
            };
            let m = _mm512_mask_blend_ps(wins, y, x);
            let eq = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(x, y);
            let (xi, yi) = (_mm512_castps_si512(x), _mm512_castps_si512(y));
            let both = _mm512_castsi512_ps(if max {
                _mm512_and_si512(xi, yi)
            } else {
                _mm512_or_si512(xi, yi)
            });
            let m = _mm512_mask_blend_ps(eq, m, both);
            let xn = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x);
            _mm512_mask_blend_ps(xn, m, x)
        }
    }

    /// An integer op on the lanes' bits.
    #[inline(always)]
    unsafe fn int(x: __m512, y: __m512, f: unsafe fn(__m512i, __m512i) -> __m512i) -> __m512 {
        unsafe { _mm512_castsi512_ps(f(_mm512_castps_si512(x), _mm512_castps_si512(y))) }
    }

    #[inline(always)]
    unsafe fn cmp(x: __m512, y: __m512, dir: u64) -> __m512 {
        unsafe {
            let k = match dir {
                0 => _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(x, y),
                1 => _mm512_cmp_ps_mask::<_CMP_NEQ_UQ>(x, y),
                2 => _mm512_cmp_ps_mask::<_CMP_LT_OQ>(x, y),
                3 => _mm512_cmp_ps_mask::<_CMP_LE_OQ>(x, y),
                4 => _mm512_cmp_ps_mask::<_CMP_GT_OQ>(x, y),
                _ => _mm512_cmp_ps_mask::<_CMP_GE_OQ>(x, y),
            };
            _mm512_castsi512_ps(_mm512_maskz_mov_epi32(k, _mm512_set1_epi32(-1)))
        }
    }

    /// A transcendental over the accumulator, out of line (the call costs
    /// little next to the function; inlining copies would not).
    #[target_feature(enable = "avx512f")]
    #[inline(never)]
    unsafe fn transcendental(mut a: Acc, op: Op) -> Acc {
        // SAFETY: the host has avx512f (caller's contract).
        unsafe {
            for v in a.iter_mut() {
                *v = match op {
                    Op::Exp => exp16(*v),
                    Op::Tanh => tanh16(*v),
                    Op::Logistic => logistic16(*v),
                    Op::Log => log16(*v),
                    Op::Log1p => log1p16(*v),
                    _ => erf16(*v),
                };
            }
        }
        a
    }

    /// `p[0..GROUP] = op(p[0..GROUP])` for a transcendental `op`: each
    /// vector loaded, computed and stored in place, the op chosen once (the
    /// same functions as [`transcendental`], so the same values; passing
    /// the group by value copied its 512 bytes twice per call, a third of
    /// the time compiled exact GELU spends outside its own code).
    ///
    /// # Safety
    /// See [`super::transcendental_in_place`].
    #[target_feature(enable = "avx512f")]
    pub unsafe fn in_place(p: *mut f32, op: Op) {
        macro_rules! each {
            ($f:ident) => {
                for k in 0..R {
                    let v = _mm512_load_ps(p.add(16 * k));
                    _mm512_store_ps(p.add(16 * k), $f(v));
                }
            };
        }
        // SAFETY: the caller's contract: GROUP 64-byte aligned values, and
        // the host has avx512f.
        unsafe {
            match op {
                Op::Exp => each!(exp16),
                Op::Tanh => each!(tanh16),
                Op::Logistic => each!(logistic16),
                Op::Log => each!(log16),
                Op::Log1p => each!(log1p16),
                _ => each!(erf16),
            }
        }
    }

    /// # Safety
    /// See [`super::block_program`].
    #[target_feature(enable = "avx512f")]
    pub unsafe fn run(
        prog: *const u64,
        dst: *mut f32,
        leaves: *const *const f32,
        n: i64,
        start: usize,
    ) {
        let n = n.max(0) as usize;
        let mut slots: MaybeUninit<[Acc; MAX_SLOTS]> = MaybeUninit::uninit();
        // SAFETY (whole body): see the function's contract; slots are
        // written by Store before any read (validated); row accesses stay
        // within the block's `n` values (masked in a partial group).
        unsafe {
            let count = *prog as usize;
            let code = prog.add(2);
            let mut cx = Ctx {
                leaves,
                slots: slots.as_mut_ptr().cast::<__m512>(),
                o: start,
                m: [0; R],
                full: true,
            };
            while cx.o < n {
                let len = (n - cx.o).min(GROUP);
                cx.full = len == GROUP;
                for k in 0..R {
                    let l = len.saturating_sub(16 * k).min(16);
                    cx.m[k] = ((1u32 << l) - 1) as __mmask16;
                }
                let mut a: Acc = [_mm512_setzero_ps(); R];
                for i in 0..count {
                    let w0 = *code.add(2 * i);
                    let w1 = *code.add(2 * i + 1);
                    let Some(&op) = OPS.get(w0 as u8 as usize) else {
                        continue;
                    };
                    let kind = (w0 >> 8) & 0xff;
                    let index = (w0 >> 32) as usize;
                    let aux = w1 & 0xffff_ffff;
                    let bits = (w1 >> 32) as u32;
                    match op {
                        Op::Load => combine!(a, cx, kind, index, bits, |_x, y| y),
                        Op::Add => combine!(a, cx, kind, index, bits, |x, y| _mm512_add_ps(x, y)),
                        Op::Sub => combine!(a, cx, kind, index, bits, |x, y| _mm512_sub_ps(x, y)),
                        Op::RSub => combine!(a, cx, kind, index, bits, |x, y| _mm512_sub_ps(y, x)),
                        Op::Mul => combine!(a, cx, kind, index, bits, |x, y| _mm512_mul_ps(x, y)),
                        Op::Div => combine!(a, cx, kind, index, bits, |x, y| _mm512_div_ps(x, y)),
                        Op::RDiv => combine!(a, cx, kind, index, bits, |x, y| _mm512_div_ps(y, x)),
                        Op::Max => combine!(a, cx, kind, index, bits, |x, y| minmax(x, y, true)),
                        Op::RMax => combine!(a, cx, kind, index, bits, |x, y| minmax(y, x, true)),
                        Op::Min => combine!(a, cx, kind, index, bits, |x, y| minmax(x, y, false)),
                        Op::RMin => combine!(a, cx, kind, index, bits, |x, y| minmax(y, x, false)),
                        Op::Cmp => combine!(a, cx, kind, index, bits, |x, y| cmp(x, y, aux)),
                        Op::MulAdd => {
                            let c = _mm512_set1_ps(f32::from_bits(aux as u32));
                            combine!(a, cx, kind, index, bits, |x, y| _mm512_add_ps(
                                _mm512_mul_ps(x, y),
                                c
                            ))
                        }
                        Op::IAdd => {
                            combine!(a, cx, kind, index, bits, |x, y| int(x, y, _mm512_add_epi32))
                        }
                        Op::ISub => {
                            combine!(a, cx, kind, index, bits, |x, y| int(x, y, _mm512_sub_epi32))
                        }
                        Op::IRSub => {
                            combine!(a, cx, kind, index, bits, |x, y| int(y, x, _mm512_sub_epi32))
                        }
                        Op::IMul => combine!(a, cx, kind, index, bits, |x, y| int(
                            x,
                            y,
                            _mm512_mullo_epi32
                        )),
                        Op::And => {
                            combine!(a, cx, kind, index, bits, |x, y| int(x, y, _mm512_and_si512))
                        }
                        Op::Or => {
                            combine!(a, cx, kind, index, bits, |x, y| int(x, y, _mm512_or_si512))
                        }
                        Op::Xor => {
                            combine!(a, cx, kind, index, bits, |x, y| int(x, y, _mm512_xor_si512))
                        }
                        Op::Shl => combine!(a, cx, kind, index, bits, |x, y| int(
                            x,
                            y,
                            _mm512_sllv_epi32
                        )),
                        Op::Shr => combine!(a, cx, kind, index, bits, |x, y| int(
                            x,
                            y,
                            _mm512_srlv_epi32
                        )),
                        Op::Sar => combine!(a, cx, kind, index, bits, |x, y| int(
                            x,
                            y,
                            _mm512_srav_epi32
                        )),
                        Op::Not => {
                            let ones = _mm512_set1_epi32(-1);
                            for v in a.iter_mut() {
                                *v = _mm512_castsi512_ps(_mm512_xor_si512(
                                    _mm512_castps_si512(*v),
                                    ones,
                                ));
                            }
                        }
                        Op::Neg => {
                            let sign = _mm512_set1_epi32(i32::MIN);
                            for v in a.iter_mut() {
                                *v = _mm512_castsi512_ps(_mm512_xor_si512(
                                    _mm512_castps_si512(*v),
                                    sign,
                                ));
                            }
                        }
                        Op::Abs => {
                            for v in a.iter_mut() {
                                *v = _mm512_abs_ps(*v);
                            }
                        }
                        Op::Sqrt => {
                            for v in a.iter_mut() {
                                *v = _mm512_sqrt_ps(*v);
                            }
                        }
                        Op::Exp | Op::Tanh | Op::Logistic | Op::Log | Op::Erf | Op::Log1p => {
                            a = transcendental(a, op)
                        }
                        Op::SelectKeepTrue | Op::SelectKeepFalse => {
                            // The other value into `t`, then a blend under
                            // the mask slot's lanes.
                            let mut t: Acc = a;
                            combine!(t, cx, kind, index, bits, |_x, y| y);
                            let m = cx.slots.add(R * aux as usize);
                            let keep_true = op == Op::SelectKeepTrue;
                            for k in 0..R {
                                let mi = _mm512_castps_si512(m.add(k).read());
                                let on = _mm512_test_epi32_mask(mi, mi);
                                a[k] = if keep_true {
                                    _mm512_mask_blend_ps(on, t[k], a[k])
                                } else {
                                    _mm512_mask_blend_ps(on, a[k], t[k])
                                };
                            }
                        }
                        Op::Store => {
                            let p = cx.slots.add(R * index);
                            for (k, v) in a.iter().enumerate() {
                                p.add(k).write(*v);
                            }
                        }
                    }
                }
                let out = dst.wrapping_add(cx.o);
                for (k, v) in a.iter().enumerate() {
                    let q = out.wrapping_add(16 * k);
                    if cx.full {
                        _mm512_storeu_ps(q, *v);
                    } else {
                        _mm512_mask_storeu_ps(q, cx.m[k], *v);
                    }
                }
                cx.o += GROUP;
            }
        }
    }
}
