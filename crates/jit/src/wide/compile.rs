//! Wide programs as machine code: turns a program's instructions
//! (`super::program::Ins`) into one x86-64 AVX-512 function with the
//! interpreter's signature (`block_program(prog, dst, leaves, n)`), so the
//! per-instruction dispatch of `super::program`'s interpreter goes away
//! (straight-line zmm code per group of 128 lanes, the accumulator in
//! zmm0–7).
//!
//! Every instruction computes exactly what the interpreter computes (the
//! same vector operations, the same order, the same transcendental
//! routines, called out of line), so a compiled program is bit-identical
//! to the interpreted one; `wide::tests` checks that for every op and
//! source kind. Only full groups run here; the rest of a block (fewer
//! than 128 lanes) goes to `program::program_tail`. The code reads row
//! leaves at lanes `o..o+128` with `o + 128 <= n`, scalar leaves at their
//! first value and its own stack slots; it writes `dst` at those lanes
//! only. This module must not decide what a program contains (that is
//! `codegen/program.rs`) and emits nothing for programs
//! `program::validate` rejects.

use super::program::{GROUP, Ins, MAX_LEAVES, MAX_SLOTS, Op, Src, validate};

/// Vectors per group.
const R: usize = GROUP / 16;

// General registers.
const RAX: u8 = 0;
const RCX: u8 = 1;
const RDX: u8 = 2;
const RBX: u8 = 3;
const RSP: u8 = 4;
const RBP: u8 = 5;
const RSI: u8 = 6;
const RDI: u8 = 7;
const R8: u8 = 8;
const R12: u8 = 12;
const R13: u8 = 13;
const R14: u8 = 14;
const R15: u8 = 15;

// Register roles: rbx = prog, r12 = dst, r13 = n, r14 = o (lane offset of
// the group), r15 = leaves; zmm0–7 the accumulator, zmm8–10 temporaries.
const PROG: u8 = RBX;
const DST: u8 = R12;
const N: u8 = R13;
const OFF: u8 = R14;
const LEAVES: u8 = R15;
const T0: u8 = 8;
const T1: u8 = 9;
const T2: u8 = 10;

/// Bytes of the stack area where a transcendental's group is passed.
const TMP: i32 = (GROUP * 4) as i32;

/// The second operand of an EVEX instruction.
#[derive(Clone, Copy)]
enum Rm {
    Reg(u8),
    /// `[base + index * 2^scale + disp]`.
    Mem {
        base: u8,
        index: Option<(u8, u8)>,
        disp: i32,
    },
    /// A constant of the pool (`[rip + disp]`).
    Const(usize),
}

/// An EVEX-encoded AVX-512 instruction's fields.
struct Evex {
    /// 1: 0F, 2: 0F38, 3: 0F3A.
    map: u8,
    /// 0: none, 1: 66, 2: F3, 3: F2.
    pp: u8,
    op: u8,
    reg: u8,
    vvvv: u8,
    rm: Rm,
    /// Opmask register (0: none).
    mask: u8,
    zero: bool,
    /// A memory operand broadcast from one f32.
    bcst: bool,
    imm: Option<u8>,
}

struct Asm {
    code: Vec<u8>,
    consts: Vec<u32>,
    /// (position of a rip displacement, end of its instruction, constant).
    fixups: Vec<(usize, usize, usize)>,
}

impl Asm {
    fn bytes(&mut self, b: &[u8]) {
        self.code.extend_from_slice(b);
    }

    fn constant(&mut self, bits: u32) -> usize {
        match self.consts.iter().position(|&c| c == bits) {
            Some(i) => i,
            None => {
                self.consts.push(bits);
                self.consts.len() - 1
            }
        }
    }

    fn evex(&mut self, e: Evex) {
        let (x, b) = match e.rm {
            Rm::Reg(r) => ((r >> 4) & 1, (r >> 3) & 1),
            Rm::Mem { base, index, .. } => {
                (index.map_or(0, |(i, _)| (i >> 3) & 1), (base >> 3) & 1)
            }
            Rm::Const(_) => (0, 0),
        };
        let r = (e.reg >> 3) & 1;
        let r2 = (e.reg >> 4) & 1;
        let p0 = ((r ^ 1) << 7) | ((x ^ 1) << 6) | ((b ^ 1) << 5) | ((r2 ^ 1) << 4) | e.map;
        let p1 = (((!e.vvvv) & 0xf) << 3) | 0x04 | e.pp;
        let v2 = ((e.vvvv >> 4) & 1) ^ 1;
        let p2 = ((e.zero as u8) << 7) | (0b10 << 5) | ((e.bcst as u8) << 4) | (v2 << 3) | e.mask;
        self.bytes(&[0x62, p0, p1, p2, e.op]);
        self.modrm(e.reg, e.rm, e.imm.map_or(0, |_| 1));
        if let Some(i) = e.imm {
            self.code.push(i);
        }
    }

    /// ModRM (and SIB, displacement) for register field `reg` and `rm`;
    /// `trailing`: immediate bytes after the displacement.
    fn modrm(&mut self, reg: u8, rm: Rm, trailing: usize) {
        let reg = (reg & 7) << 3;
        match rm {
            Rm::Reg(r) => self.code.push(0xc0 | reg | (r & 7)),
            Rm::Mem { base, index, disp } => {
                match index {
                    Some((i, scale)) => {
                        self.code.push(0x80 | reg | 4);
                        self.code.push((scale << 6) | ((i & 7) << 3) | (base & 7));
                    }
                    None if base & 7 == 4 => {
                        self.code.push(0x80 | reg | 4);
                        self.code.push(0x24);
                    }
                    None => self.code.push(0x80 | reg | (base & 7)),
                }
                self.bytes(&disp.to_le_bytes());
            }
            Rm::Const(c) => {
                self.code.push(reg | 5);
                let at = self.code.len();
                self.bytes(&[0; 4]);
                self.fixups.push((at, at + 4 + trailing, c));
            }
        }
    }

    /// A REX.W instruction `op` with ModRM (`reg`, `rm`).
    fn rex_w(&mut self, op: &[u8], reg: u8, rm: Rm) {
        let (x, b) = match rm {
            Rm::Reg(r) => (0, (r >> 3) & 1),
            Rm::Mem { base, index, .. } => {
                (index.map_or(0, |(i, _)| (i >> 3) & 1), (base >> 3) & 1)
            }
            Rm::Const(_) => (0, 0),
        };
        self.code
            .push(0x48 | (((reg >> 3) & 1) << 2) | (x << 1) | b);
        self.bytes(op);
        self.modrm(reg, rm, 0);
    }

    /// `mov dst, src` (64-bit registers).
    fn mov(&mut self, dst: u8, src: u8) {
        self.rex_w(&[0x89], src, Rm::Reg(dst));
    }

    /// `mov dst, [base + disp]`.
    fn load64(&mut self, dst: u8, base: u8, disp: i32) {
        self.rex_w(
            &[0x8b],
            dst,
            Rm::Mem {
                base,
                index: None,
                disp,
            },
        );
    }

    fn push(&mut self, r: u8) {
        if r >= 8 {
            self.code.push(0x41);
        }
        self.code.push(0x50 | (r & 7));
    }

    fn pop(&mut self, r: u8) {
        if r >= 8 {
            self.code.push(0x41);
        }
        self.code.push(0x58 | (r & 7));
    }

    /// `mov rax, imm64; call rax`.
    fn call_abs(&mut self, f: u64) {
        self.bytes(&[0x48, 0xb8]);
        self.bytes(&f.to_le_bytes());
        self.bytes(&[0xff, 0xd0]);
    }

    /// A `jcc rel32` (`cc` the second opcode byte, 0 for `jmp`) to be
    /// patched; returns the displacement's position.
    fn jump(&mut self, cc: u8) -> usize {
        if cc == 0 {
            self.code.push(0xe9);
        } else {
            self.bytes(&[0x0f, cc]);
        }
        self.bytes(&[0; 4]);
        self.code.len() - 4
    }

    fn patch(&mut self, at: usize, target: usize) {
        let rel = target as i64 - (at as i64 + 4);
        self.code[at..at + 4].copy_from_slice(&(rel as i32).to_le_bytes());
    }
}

/// A plain zmm instruction `reg = op(vvvv, rm)` in map 0F without prefix
/// (vaddps and friends).
fn ps(op: u8, reg: u8, vvvv: u8, rm: Rm, bcst: bool) -> Evex {
    Evex {
        map: 1,
        pp: 0,
        op,
        reg,
        vvvv,
        rm,
        mask: 0,
        zero: false,
        bcst,
        imm: None,
    }
}

/// The stack address of vector `k` of slot `s` (slots follow the
/// transcendental area).
fn slot(s: u32, k: usize) -> Rm {
    Rm::Mem {
        base: RSP,
        index: None,
        disp: TMP + ((s as usize * R + k) * 64) as i32,
    }
}

/// Compiles a program (`slots` scratch slots, `leaves` leaves) into the
/// bytes of a function `(prog, dst, leaves, n) -> n`, or `None` when
/// `validate` rejects it. `transcendental(op)` is the address of a
/// function applying `op` in place to 128 f32 values at its argument
/// (64-byte aligned); `tail` the address of `program_tail`.
pub fn compile(
    code: &[Ins],
    slots: usize,
    leaves: usize,
    transcendental: &dyn Fn(Op) -> u64,
    tail: u64,
) -> Option<Vec<u8>> {
    if !validate(code, slots, leaves) || slots > MAX_SLOTS || leaves > MAX_LEAVES {
        return None;
    }
    let mut a = Asm {
        code: Vec::with_capacity(64 * code.len() * R),
        consts: Vec::new(),
        fixups: Vec::new(),
    };
    // Prologue: a frame, the callee-saved registers, the arguments moved
    // into them, and a 64-byte aligned area of TMP + slots·512 bytes,
    // touched page by page (stack probes).
    a.push(RBP);
    a.mov(RBP, RSP);
    for r in [RBX, R12, R13, R14, R15] {
        a.push(r);
    }
    a.mov(PROG, RDI);
    a.mov(DST, RSI);
    a.mov(LEAVES, RDX);
    a.mov(N, RCX);
    let frame = TMP as usize + slots * GROUP * 4 + 64;
    let mut left = frame;
    while left > 0 {
        let step = left.min(4096);
        // sub rsp, step; or qword [rsp], 0
        a.rex_w(&[0x81], 5, Rm::Reg(RSP));
        a.bytes(&(step as u32).to_le_bytes());
        a.bytes(&[0x48, 0x83, 0x0c, 0x24, 0x00]);
        left -= step;
    }
    a.bytes(&[0x48, 0x83, 0xe4, 0xc0]); // and rsp, -64
    a.bytes(&[0x45, 0x31, 0xf6]); // xor r14d, r14d
    // Group loop: while o + 128 <= n.
    let head = a.code.len();
    // lea rax, [r14 + GROUP]; cmp rax, r13; jg tail
    a.rex_w(
        &[0x8d],
        RAX,
        Rm::Mem {
            base: OFF,
            index: None,
            disp: GROUP as i32,
        },
    );
    a.rex_w(&[0x39], N, Rm::Reg(RAX));
    let to_tail = a.jump(0x8f);
    for ins in code {
        body(&mut a, ins, transcendental)?;
    }
    for k in 0..R {
        // vmovups [r12 + r14*4 + 64k], zmm_k
        a.evex(ps(
            0x11,
            k as u8,
            0,
            Rm::Mem {
                base: DST,
                index: Some((OFF, 2)),
                disp: 64 * k as i32,
            },
            false,
        ));
    }
    // add r14, GROUP; jmp head
    a.rex_w(&[0x81], 0, Rm::Reg(OFF));
    a.bytes(&(GROUP as u32).to_le_bytes());
    let back = a.jump(0);
    a.patch(back, head);
    // Tail: if o < n, program_tail(prog, dst, leaves, n, o).
    let t = a.code.len();
    a.patch(to_tail, t);
    a.rex_w(&[0x39], N, Rm::Reg(OFF)); // cmp r14, r13
    let to_done = a.jump(0x8d); // jge done
    a.mov(RDI, PROG);
    a.mov(RSI, DST);
    a.mov(RDX, LEAVES);
    a.mov(RCX, N);
    a.mov(R8, OFF);
    a.call_abs(tail);
    let done = a.code.len();
    a.patch(to_done, done);
    a.bytes(&[0xc5, 0xf8, 0x77]); // vzeroupper
    a.mov(RAX, N);
    // lea rsp, [rbp - 40]
    a.rex_w(
        &[0x8d],
        RSP,
        Rm::Mem {
            base: RBP,
            index: None,
            disp: -40,
        },
    );
    for r in [R15, R14, R13, R12, RBX] {
        a.pop(r);
    }
    a.pop(RBP);
    a.code.push(0xc3);
    // The constant pool, 4-byte aligned, and the rip displacements.
    while !a.code.len().is_multiple_of(4) {
        a.code.push(0xcc);
    }
    let pool = a.code.len();
    let consts = std::mem::take(&mut a.consts);
    for c in consts {
        a.bytes(&c.to_le_bytes());
    }
    for (at, end, c) in std::mem::take(&mut a.fixups) {
        let rel = (pool + 4 * c) as i64 - end as i64;
        a.code[at..at + 4].copy_from_slice(&(rel as i32).to_le_bytes());
    }
    Some(a.code)
}

/// The source of an instruction for vector `k`: the operand and whether
/// it is one f32 broadcast; `rax` holds the leaf's address (see
/// `leaf_address`).
fn source(a: &mut Asm, src: Src, k: usize) -> Option<(Rm, bool)> {
    Some(match src {
        Src::Const(c) => (Rm::Const(a.constant(c.to_bits())), true),
        Src::Row(_) => (
            Rm::Mem {
                base: RAX,
                index: Some((OFF, 2)),
                disp: 64 * k as i32,
            },
            false,
        ),
        Src::Scalar(_) => (
            Rm::Mem {
                base: RAX,
                index: None,
                disp: 0,
            },
            true,
        ),
        Src::Slot(s) => (slot(s, k), false),
        Src::None => return None,
    })
}

/// `mov rax, leaves[i]` for a leaf source.
fn leaf_address(a: &mut Asm, src: Src) {
    if let Src::Row(i) | Src::Scalar(i) = src {
        a.load64(RAX, LEAVES, 8 * i as i32);
    }
}

/// `dst = source` (a load or a broadcast).
fn load_source(a: &mut Asm, dst: u8, src: Src, k: usize) -> Option<()> {
    let (rm, bcst) = source(a, src, k)?;
    a.evex(if bcst {
        // vbroadcastss zmm, m32
        Evex {
            map: 2,
            pp: 1,
            op: 0x18,
            ..ps(0, dst, 0, rm, false)
        }
    } else {
        ps(0x10, dst, 0, rm, false)
    });
    Some(())
}

/// The evaluator's max/min of `x` and `y` into `dst` (may be `x` or `y`),
/// as `program::interp::minmax`: `x` if it wins, the bits of both
/// combined when equal, `x` when it is NaN, else `y`. Uses k1–k3, T1, T2.
fn minmax(a: &mut Asm, dst: u8, x: u8, y: u8, max: bool) {
    let cmp = |k: u8, p: u8, v: u8, r: u8| Evex {
        imm: Some(p),
        ..ps(0xc2, k, v, Rm::Reg(r), false)
    };
    let blend = |d: u8, m: u8, v: u8, r: u8| Evex {
        map: 2,
        pp: 1,
        mask: m,
        ..ps(0x65, d, v, Rm::Reg(r), false)
    };
    // k1 = x wins; T1 = k1 ? x : y
    a.evex(cmp(1, if max { 0x1e } else { 0x11 }, x, y));
    a.evex(blend(T1, 1, y, x));
    // k2 = x == y; T2 = x & y (max) or x | y (min); T1 = k2 ? T2 : T1
    a.evex(cmp(2, 0x00, x, y));
    a.evex(Evex {
        pp: 1,
        ..ps(if max { 0xdb } else { 0xeb }, T2, x, Rm::Reg(y), false)
    });
    a.evex(blend(T1, 2, T1, T2));
    // k3 = x is NaN; dst = k3 ? x : T1
    a.evex(cmp(3, 0x03, x, x));
    a.evex(blend(dst, 3, T1, x));
}

/// The code of one instruction over the eight vectors.
fn body(a: &mut Asm, ins: &Ins, transcendental: &dyn Fn(Op) -> u64) -> Option<()> {
    leaf_address(a, ins.src);
    let arith = |op: Op| -> Option<u8> {
        Some(match op {
            Op::Add => 0x58,
            Op::Mul => 0x59,
            Op::Sub => 0x5c,
            Op::Div => 0x5e,
            _ => return None,
        })
    };
    match ins.op {
        Op::Load => {
            for k in 0..R {
                load_source(a, k as u8, ins.src, k)?;
            }
        }
        Op::Add | Op::Mul | Op::Sub | Op::Div => {
            let op = arith(ins.op)?;
            for k in 0..R {
                let (rm, bcst) = source(a, ins.src, k)?;
                a.evex(ps(op, k as u8, k as u8, rm, bcst));
            }
        }
        Op::RSub | Op::RDiv => {
            let op = if ins.op == Op::RSub { 0x5c } else { 0x5e };
            for k in 0..R {
                load_source(a, T0, ins.src, k)?;
                a.evex(ps(op, k as u8, T0, Rm::Reg(k as u8), false));
            }
        }
        Op::Max | Op::RMax | Op::Min | Op::RMin => {
            let max = matches!(ins.op, Op::Max | Op::RMax);
            let swap = matches!(ins.op, Op::RMax | Op::RMin);
            for k in 0..R {
                load_source(a, T0, ins.src, k)?;
                let (x, y) = if swap { (T0, k as u8) } else { (k as u8, T0) };
                minmax(a, k as u8, x, y, max);
            }
        }
        Op::Cmp => {
            let p =
                [0x00, 0x04, 0x11, 0x12, 0x1e, 0x1d][*[0, 1, 2, 3, 4, 5].get(ins.aux as usize)?];
            for k in 0..R {
                let (rm, bcst) = source(a, ins.src, k)?;
                // vcmpps k1, zmm_k, src, p
                a.evex(Evex {
                    imm: Some(p),
                    ..ps(0xc2, 1, k as u8, rm, bcst)
                });
                // vpternlogd zmm_k{k1}{z}, zmm_k, zmm_k, 0xff: all ones under k1
                a.evex(Evex {
                    map: 3,
                    pp: 1,
                    mask: 1,
                    zero: true,
                    imm: Some(0xff),
                    ..ps(0x25, k as u8, k as u8, Rm::Reg(k as u8), false)
                });
            }
        }
        Op::MulAdd => {
            let c = a.constant(ins.aux);
            for k in 0..R {
                let (rm, bcst) = source(a, ins.src, k)?;
                a.evex(ps(0x59, k as u8, k as u8, rm, bcst));
                a.evex(ps(0x58, k as u8, k as u8, Rm::Const(c), true));
            }
        }
        Op::Neg | Op::Abs => {
            let (op, bits) = if ins.op == Op::Neg {
                (0xef, 0x8000_0000) // vpxord
            } else {
                (0xdb, 0x7fff_ffff) // vpandd
            };
            let c = a.constant(bits);
            for k in 0..R {
                a.evex(Evex {
                    pp: 1,
                    ..ps(op, k as u8, k as u8, Rm::Const(c), true)
                });
            }
        }
        Op::Sqrt => {
            for k in 0..R {
                a.evex(ps(0x51, k as u8, 0, Rm::Reg(k as u8), false));
            }
        }
        Op::Exp | Op::Tanh | Op::Logistic | Op::Log | Op::Erf | Op::Log1p => {
            // The group to the stack area, the routine, and back.
            let at = |k: usize| Rm::Mem {
                base: RSP,
                index: None,
                disp: 64 * k as i32,
            };
            for k in 0..R {
                a.evex(ps(0x11, k as u8, 0, at(k), false));
            }
            a.mov(RDI, RSP);
            a.call_abs(transcendental(ins.op));
            for k in 0..R {
                a.evex(ps(0x10, k as u8, 0, at(k), false));
            }
        }
        Op::SelectKeepTrue | Op::SelectKeepFalse => {
            let keep_true = ins.op == Op::SelectKeepTrue;
            for k in 0..R {
                load_source(a, T0, ins.src, k)?;
                // T1 = mask slot; k1 = T1 != 0 (vptestmd k1, T1, T1)
                a.evex(ps(0x10, T1, 0, slot(ins.aux, k), false));
                a.evex(Evex {
                    map: 2,
                    pp: 1,
                    ..ps(0x27, 1, T1, Rm::Reg(T1), false)
                });
                // vblendmps zmm_k{k1}: on ? a : t (keep true) or on ? t : a
                let (v, r) = if keep_true {
                    (T0, k as u8)
                } else {
                    (k as u8, T0)
                };
                a.evex(Evex {
                    map: 2,
                    pp: 1,
                    mask: 1,
                    ..ps(0x65, k as u8, v, Rm::Reg(r), false)
                });
            }
        }
        Op::IAdd
        | Op::ISub
        | Op::IMul
        | Op::And
        | Op::Or
        | Op::Xor
        | Op::Shl
        | Op::Shr
        | Op::Sar => {
            // (map, opcode) of vpaddd, vpsubd, vpmulld, vpandd, vpord,
            // vpxord, vpsllvd, vpsrlvd, vpsravd (all EVEX.512.66.W0; the
            // variable shifts give 0, or the sign, from a count of 32 on).
            let (map, opc) = match ins.op {
                Op::IAdd => (1, 0xfe),
                Op::ISub => (1, 0xfa),
                Op::IMul => (2, 0x40),
                Op::And => (1, 0xdb),
                Op::Or => (1, 0xeb),
                Op::Xor => (1, 0xef),
                Op::Shl => (2, 0x47),
                Op::Shr => (2, 0x45),
                _ => (2, 0x46),
            };
            for k in 0..R {
                let (rm, bcst) = source(a, ins.src, k)?;
                a.evex(Evex {
                    map,
                    pp: 1,
                    ..ps(opc, k as u8, k as u8, rm, bcst)
                });
            }
        }
        Op::IRSub => {
            for k in 0..R {
                load_source(a, T0, ins.src, k)?;
                a.evex(Evex {
                    pp: 1,
                    ..ps(0xfa, k as u8, T0, Rm::Reg(k as u8), false)
                });
            }
        }
        Op::Not => {
            for k in 0..R {
                // vpternlogd zmm_k, zmm_k, zmm_k, 0x55: !zmm_k
                a.evex(Evex {
                    map: 3,
                    pp: 1,
                    imm: Some(0x55),
                    ..ps(0x25, k as u8, k as u8, Rm::Reg(k as u8), false)
                });
            }
        }
        Op::Store => {
            let Src::Slot(s) = ins.src else { return None };
            for k in 0..R {
                a.evex(ps(0x11, k as u8, 0, slot(s, k), false));
            }
        }
    }
    Some(())
}

/// The machine code of the program in `words` (from `program::encode`)
/// reading `leaves` leaves, for this process (the addresses of the
/// transcendental routines and of `program_tail` are built in), or `None`.
#[cfg(target_arch = "x86_64")]
pub fn compile_words(words: &[u64], leaves: usize) -> Option<Vec<u8>> {
    use super::program::{program_tail, transcendental_in_place};
    macro_rules! in_place {
        ($name:ident, $op:expr) => {
            /// A transcendental over one group in place (called by
            /// compiled programs).
            unsafe extern "C" fn $name(p: *mut f32) {
                // SAFETY: compiled programs pass their 64-byte aligned
                // group area; they exist only where AVX-512 F does.
                unsafe { transcendental_in_place(p, $op) }
            }
        };
    }
    in_place!(exp, Op::Exp);
    in_place!(tanh, Op::Tanh);
    in_place!(logistic, Op::Logistic);
    in_place!(log, Op::Log);
    in_place!(erf, Op::Erf);
    in_place!(log1p, Op::Log1p);
    let routine = |op: Op| -> u64 {
        let f: unsafe extern "C" fn(*mut f32) = match op {
            Op::Exp => exp,
            Op::Tanh => tanh,
            Op::Logistic => logistic,
            Op::Log => log,
            Op::Log1p => log1p,
            _ => erf,
        };
        f as usize as u64
    };
    let tail: unsafe extern "C" fn(*const u64, *mut f32, *const *const f32, i64, i64) =
        program_tail;
    let (code, slots) = super::program::decode(words)?;
    compile(&code, slots, leaves, &routine, tail as usize as u64)
}

/// No machine code off x86-64 (the interpreter does not exist there
/// either).
#[cfg(not(target_arch = "x86_64"))]
pub fn compile_words(_words: &[u64], _leaves: usize) -> Option<Vec<u8>> {
    None
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    //! Random programs over every op and source kind, compiled and
    //! interpreted on the same leaves (NaN payloads, ±0, ±inf, denormals,
    //! ties, a tail of 37 lanes): the results must be bit-identical.
    use super::super::program::{Ins, Op, Src, block_program, encode};
    use super::compile_words;
    use cranelift_codegen::ir::{AbiParam, types::I64};
    use cranelift_codegen::settings::{self, Configurable};
    use cranelift_jit::{JITBuilder, JITModule};
    use cranelift_module::Module;

    type ProgramFn = unsafe extern "C" fn(*const u64, *mut f32, *const *const f32, i64) -> i64;

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    const SPECIAL: [u32; 12] = [
        0x7fc0_0000, // NaN
        0xffc0_1234, // -NaN with a payload
        0x7f80_0000, // inf
        0xff80_0000, // -inf
        0x0000_0000, // +0
        0x8000_0000, // -0
        0x0000_0001, // smallest denormal
        0x807f_ffff, // largest negative denormal
        0x3f80_0000, // 1
        0xbf80_0000, // -1
        0x4120_0000, // 10
        0x42c8_0000, // 100
    ];

    fn value(rng: &mut Rng) -> f32 {
        match rng.below(5) {
            0 => f32::from_bits(SPECIAL[rng.below(SPECIAL.len() as u64) as usize]),
            1 => (rng.below(9) as f32 - 4.0) * 0.5,
            // Small integers' bits (shift counts below and above 32).
            2 => f32::from_bits(rng.below(40) as u32),
            _ => (rng.below(1 << 20) as f32 / (1 << 16) as f32 - 8.0) * 1.5,
        }
    }

    fn program(rng: &mut Rng, rows: u32, scalars: u32) -> (Vec<Ins>, usize) {
        let mut code = vec![Ins {
            op: Op::Load,
            src: Src::Row(0),
            aux: 0,
        }];
        let mut stored: Vec<u32> = Vec::new();
        let mut masks: Vec<u32> = Vec::new();
        let slots = 6u32;
        let source = |rng: &mut Rng, stored: &[u32]| match rng.below(4) {
            0 => Src::Const(value(rng)),
            1 => Src::Row(rng.below(rows as u64) as u32),
            2 => Src::Scalar(rows + rng.below(scalars as u64) as u32),
            _ if !stored.is_empty() => Src::Slot(stored[rng.below(stored.len() as u64) as usize]),
            _ => Src::Row(0),
        };
        // A program is float or integer (the builder never mixes them:
        // integer ops on a float NaN would expose its payload).
        let int = rng.below(2) == 0;
        for _ in 0..40 {
            let pick = if int {
                [0, 17, 18, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34][rng.below(14) as usize]
            } else {
                rng.below(24)
            };
            let op = match pick {
                0 => Op::Load,
                1 => Op::Add,
                2 => Op::Sub,
                3 => Op::RSub,
                4 => Op::Mul,
                5 => Op::Div,
                6 => Op::RDiv,
                7 => Op::Max,
                8 => Op::RMax,
                9 => Op::Min,
                10 => Op::RMin,
                11 => Op::Neg,
                12 => Op::Abs,
                13 => Op::Sqrt,
                14 => [Op::Exp, Op::Tanh, Op::Logistic, Op::Log, Op::Erf, Op::Log1p]
                    [rng.below(6) as usize],
                15 | 16 => Op::Cmp,
                17 | 18 => Op::Store,
                19 | 20 => Op::MulAdd,
                21..=23 => [Op::SelectKeepTrue, Op::SelectKeepFalse][rng.below(2) as usize],
                k => [
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
                ][(k - 24) as usize],
            };
            match op {
                Op::Neg
                | Op::Abs
                | Op::Sqrt
                | Op::Exp
                | Op::Tanh
                | Op::Logistic
                | Op::Log
                | Op::Erf
                | Op::Log1p
                | Op::Not => code.push(Ins {
                    op,
                    src: Src::None,
                    aux: 0,
                }),
                Op::Store => {
                    let s = rng.below(slots as u64) as u32;
                    code.push(Ins {
                        op,
                        src: Src::Slot(s),
                        aux: 0,
                    });
                    stored.push(s);
                    masks.retain(|&m| m != s);
                }
                Op::Cmp => {
                    let src = source(rng, &stored);
                    let s = rng.below(slots as u64) as u32;
                    code.push(Ins {
                        op,
                        src,
                        aux: rng.below(6) as u32,
                    });
                    code.push(Ins {
                        op: Op::Store,
                        src: Src::Slot(s),
                        aux: 0,
                    });
                    stored.push(s);
                    masks.push(s);
                    code.push(Ins {
                        op: Op::Load,
                        src: source(rng, &stored),
                        aux: 0,
                    });
                }
                Op::SelectKeepTrue | Op::SelectKeepFalse if !masks.is_empty() => {
                    let m = masks[rng.below(masks.len() as u64) as usize];
                    code.push(Ins {
                        op,
                        src: source(rng, &stored),
                        aux: m,
                    });
                }
                Op::SelectKeepTrue | Op::SelectKeepFalse => {}
                Op::MulAdd => code.push(Ins {
                    op,
                    src: source(rng, &stored),
                    aux: value(rng).to_bits(),
                }),
                _ => code.push(Ins {
                    op,
                    src: source(rng, &stored),
                    aux: 0,
                }),
            }
        }
        (code, slots as usize)
    }

    #[test]
    fn compiled_programs_match_the_interpreter_bit_for_bit() {
        if !std::is_x86_feature_detected!("avx512f") {
            return; // neither form runs on this host
        }
        let mut flags = settings::builder();
        flags.set("opt_level", "none").unwrap();
        let isa = cranelift_native::builder()
            .unwrap()
            .finish(settings::Flags::new(flags))
            .unwrap();
        let mut jm = JITModule::new(JITBuilder::with_isa(
            isa,
            cranelift_module::default_libcall_names(),
        ));
        let mut sig = jm.make_signature();
        sig.params = vec![AbiParam::new(I64); 4];
        sig.returns = vec![AbiParam::new(I64)];
        let (rows, scalars) = (3u32, 2u32);
        let n = 3 * 128 + 37;
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut cases = Vec::new();
        for _ in 0..300 {
            let (code, slots) = program(&mut rng, rows, scalars);
            let words = encode(&code, slots);
            let bytes =
                compile_words(&words, (rows + scalars) as usize).expect("a valid program compiles");
            let id = jm.declare_anonymous_function(&sig).unwrap();
            jm.define_function_bytes(id, 64, &bytes, &[]).unwrap();
            cases.push((code, words, id));
        }
        jm.finalize_definitions().unwrap();
        let leaves: Vec<Vec<f32>> = (0..rows + scalars)
            .map(|_| (0..n).map(|_| value(&mut rng)).collect())
            .collect();
        let table: Vec<*const f32> = leaves.iter().map(|l| l.as_ptr()).collect();
        for (code, words, id) in &cases {
            // SAFETY: the bytes are a function of ProgramFn's signature.
            let f: ProgramFn = unsafe { std::mem::transmute(jm.get_finalized_function(*id)) };
            let mut want = vec![0f32; n];
            let mut got = vec![0f32; n];
            // SAFETY: words from `encode`, leaves of n values, AVX-512 F.
            unsafe {
                block_program(words.as_ptr(), want.as_mut_ptr(), table.as_ptr(), n as i64);
                f(words.as_ptr(), got.as_mut_ptr(), table.as_ptr(), n as i64);
            }
            for i in 0..n {
                // NaN payloads may differ (the interpreter's commutative ops
                // are LLVM's to swap): NaN == NaN, as in the fuzz oracles.
                let same =
                    got[i].to_bits() == want[i].to_bits() || (got[i].is_nan() && want[i].is_nan());
                assert!(
                    same,
                    "lane {i}: compiled {:x} vs interpreted {:x} in {code:?} leaves {:x?}",
                    got[i].to_bits(),
                    want[i].to_bits(),
                    leaves.iter().map(|l| l[i].to_bits()).collect::<Vec<_>>()
                );
            }
        }
        // SAFETY: no function pointer of `jm` is used after this.
        unsafe { jm.free_memory() };
    }
}
