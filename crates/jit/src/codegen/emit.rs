//! The emitter core: the state of one kernel function under construction
//! and the services every lowering uses. It holds the Cranelift function
//! builder, the per-scope caches (computed values, i64 and F32X4
//! constants, address prefixes, window positions), the kernel's pool of
//! 128-bit constants, the bound reducer parameters, the host-function
//! (libcall) table, and the loop, index and address helpers.
//!
//! The value of an instruction at an index is [`Emitter::emit`]
//! (`dispatch.rs`), which picks the lowering family of the op; the
//! families (`elementwise`, `movement`, `reduce`, `window`, `dot`,
//! `gather`, `conv`, `bitcast`, `reduce_precision`) and the element
//! arithmetic (`scalar`, `vector`, `approx`) build on this file. This file
//! must not lower any op nor compute on elements (no element type's
//! representation either: that is `repr`'s), and must not `use` another
//! codegen module but `libcalls` and `rowcheck`.

use super::rowcheck::RowCheck;
use crate::error::{JitError, Result};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{F32X4, I64};
use cranelift_codegen::ir::{
    Endianness, FuncRef, InstBuilder, InstructionData, MemFlagsData, Opcode, Type, Value, ValueDef,
};
use cranelift_frontend::{FunctionBuilder, Variable};
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module as _};
use rxla_ir::index::physical_strides;
use rxla_ir::{ArrayShape, CompId, ElementType, InstrId, Instruction, Module};
use std::collections::HashMap;

/// Flags of a lane-reinterpreting bitcast between vector types.
pub fn le() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// How the lanes of a vector move through an instruction's index space:
/// per-dimension coefficients (lane k reads index + k·coef), or a
/// coefficient on the row-major linear index (after a reshape).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Sym {
    Dims(Vec<i64>),
    RowMajor(i64),
}

impl Sym {
    pub fn dims(&self, rank: usize) -> Result<Vec<i64>> {
        match self {
            Sym::Dims(v) => Ok(v.clone()),
            Sym::RowMajor(0) => Ok(vec![0; rank]),
            Sym::RowMajor(_) => Err(JitError::unsupported("lanes cross a reshape")),
        }
    }
    pub fn is_zero(&self) -> bool {
        match self {
            Sym::Dims(v) => v.iter().all(|&c| c == 0),
            Sym::RowMajor(c) => *c == 0,
        }
    }
}

pub(super) type MemoKey = (CompId, InstrId, Vec<Value>, Option<Sym>);

/// One instruction lowered at one index: what the dispatch hands to a
/// lowering family.
pub struct At<'x> {
    pub c: CompId,
    pub id: InstrId,
    pub instr: &'x Instruction,
    /// The instruction's array shape.
    pub shape: ArrayShape,
    /// One `i64` per logical dimension of the output.
    pub idx: &'x [Value],
    /// `Some` in vector mode: how the F32X4 lanes move through the index.
    pub lanes: Option<&'x Sym>,
}

impl At<'_> {
    /// Operand `k`, or `Unsupported` when the instruction lacks it.
    pub fn operand(&self, k: usize) -> Result<InstrId> {
        self.instr
            .operands
            .get(k)
            .copied()
            .ok_or_else(|| JitError::unsupported(format!("{} lacks operand {k}", self.instr.name)))
    }

    /// The array shape of operand `k`.
    pub fn operand_shape(&self, em: &Emitter, k: usize) -> Result<ArrayShape> {
        em.array_shape(self.c, self.operand(k)?)
    }

    /// The output element type.
    pub fn et(&self) -> ElementType {
        self.shape.element_type
    }

    /// The output index of lane `k` when lanes move by `coef`.
    pub fn lane_index(&self, em: &mut Emitter, coef: &[i64], k: i64) -> Vec<Value> {
        self.idx
            .iter()
            .zip(coef)
            .map(|(&i, &c)| match c * k {
                0 => i,
                s => em.b.ins().iadd_imm_s(i, s),
            })
            .collect()
    }

    /// This instruction at the scalar index `idx` (one lane of a vector
    /// step).
    pub fn scalar_at<'y>(&'y self, idx: &'y [Value]) -> At<'y> {
        At {
            c: self.c,
            id: self.id,
            instr: self.instr,
            shape: self.shape.clone(),
            idx,
            lanes: None,
        }
    }
}

/// A buffer base and the major `(index, byte stride)` terms of an address.
type AddrPrefix = (Value, Vec<(Value, i64)>);

/// State of one kernel function under construction.
pub struct Emitter<'a, 'f> {
    pub b: FunctionBuilder<'f>,
    pub jm: &'a mut JITModule,
    pub module: &'a Module,
    /// Instructions read from input buffers: base pointer and buffer shape.
    pub inputs: HashMap<(CompId, InstrId), (Value, ArrayShape)>,
    /// Reducer parameters bound while a reducer is inlined.
    pub(super) bound: HashMap<(CompId, InstrId), Value>,
    /// Values computed per scope, by (computation, instruction, index,
    /// lanes): `Emitter::emit` computes each once per scope.
    pub(super) memo: Vec<HashMap<MemoKey, Value>>,
    /// Constants per scope (i64 by value, F32X4 splats by bits), so values
    /// made before a loop are reused inside it.
    consts_i: Vec<HashMap<i64, Value>>,
    consts_v: Vec<HashMap<u32, Value>>,
    /// The kernel's 128-bit constants, loaded where they are used.
    pool: VecPool,
    /// Per scope: address prefixes `(base, major terms) → address`.
    addr_prefix: Vec<HashMap<AddrPrefix, Value>>,
    libs: HashMap<&'static str, FuncRef>,
    /// Constant arrays baked into the kernel (kept alive by the executable).
    pub consts: &'a mut Vec<Box<[u64]>>,
    /// Vectorize reductions along their contiguous dimension.
    pub vec_reduce: bool,
    /// Set by `approx::warm`: emit constants, no branches.
    pub warming: bool,
    /// While `approx::warm` runs its approximations the first time: every
    /// F32X4 splat constant asked of [`Emitter::vconst`], in order.
    pub(super) warm_log: Option<Vec<u32>>,
    /// Vector values with the same value in every lane (emitted with a
    /// lane step of zero): `ivector` shifts by them as by a scalar.
    pub uniform: std::collections::HashSet<Value>,
    /// Per scope: a uniform shift amount's scalar, its "below 32" lane
    /// mask and its arithmetic-shift clamp (`ivector::amount`).
    pub(super) shift_amounts: Vec<HashMap<Value, [Value; 3]>>,
    /// Set while a kernel's vector loops are emitted the optimistic way
    /// (see `rowcheck`); `None` elsewhere and in the exact redo.
    pub row_check: Option<RowCheck>,
    /// Set when a vector load with a lane stride other than 0 or 1 was
    /// emitted (transposed or strided reads): the kernel is worth tiling.
    pub strided_loads: bool,
    /// Whether vector loads may have lane strides other than 0 or 1
    /// (kernels without reductions only: a reduction's vector forms are
    /// chosen by which loads fail).
    pub allow_strided: bool,
    /// (reduce-window, dim) pairs whose window positions along that dim
    /// never touch padding in the current loop (the kernel's interior
    /// section, `kernel.rs`): no bounds checks needed there.
    pub interior: Vec<(CompId, InstrId, usize)>,
    /// Instructions whose values for the current row block were computed
    /// by a wide block routine (`kernel.rs`, blocked rows): (scratch base
    /// shifted back by the block's first index, the contiguous dim).
    pub blocked: HashMap<(CompId, InstrId), (Value, usize)>,
    /// The bf16 bits each f32 made from bf16 bits came from
    /// (`repr::half_from_bits`), so storing it stores those bits again
    /// instead of rounding an exact value back (`repr::half_bits_raw`).
    pub bf16_bits: HashMap<Value, Value>,
    /// Exp/tanh under a vectorized reduction may run in wide block
    /// routines (`crate::wide`; the host has them and the options allow).
    pub wide_reduce: bool,
    /// Per scope: positions of unrolled windows (the clamped index and its
    /// in-bounds flag), so a row's window steps, hoisted before its loop,
    /// are computed once per row and not per element.
    pub(super) win_pos: Vec<HashMap<WinKey, (Value, Option<Value>)>>,
    /// Per scope: a gather's clamped start indices at the index values of
    /// its batch dims (`gather.rs`), hoisted before a row's loop when the
    /// lanes move along offset dims only.
    pub(super) gather_starts: Vec<HashMap<MemoKey, Vec<Value>>>,
    /// Known bounds `[lo, hi]` of loop counters (`for_range` with constant
    /// bounds), the roots of `ranges::range`.
    pub counters: HashMap<Value, (i64, i64)>,
}

/// A window position along one dim at a constant offset: (index value,
/// stride, offset, dim size, bounds-checked, base dilation).
pub(super) type WinKey = (Value, i64, i64, i64, bool, i64);

/// Slots of the vector constant pool per kernel (16 bytes each).
const POOL_SLOTS: usize = 64;

/// A kernel's 128-bit constants: 16-byte slots in one array of `consts`
/// (kept alive by the executable), addressed from a base pointer made in
/// the entry block. Each use loads its constant right before the
/// consuming instruction, so Cranelift folds the load into it as a memory
/// operand: no vector register is held across a loop for it (x64 has
/// sixteen; constants held in registers were spilled and reloaded, one
/// extra instruction per use).
struct VecPool {
    /// Index of the slot array in `consts`.
    array: usize,
    /// Word offset of slot 0 in the array (16-byte alignment).
    first_word: usize,
    base: Value,
    slots: HashMap<u128, i32>,
    /// Pool loads made so far and the constant each yields.
    loaded: HashMap<Value, u128>,
}

impl<'a, 'f> Emitter<'a, 'f> {
    /// Whether the values `ids` of computation `c` (up to the kernel's
    /// inputs) are made of ops whose lane form emits no control flow
    /// (iota, constants, broadcasts, reshapes, elementwise ops, converts,
    /// selects, clamps and compares of such operands), so that a failed
    /// attempt at integer lanes leaves only dead values behind.
    pub fn straight_line(&self, c: CompId, ids: Vec<InstrId>) -> bool {
        use rxla_ir::Op;
        let comp = self.module.comp(c);
        let mut stack: Vec<InstrId> = ids;
        let mut seen = std::collections::HashSet::new();
        while let Some(id) = stack.pop() {
            if !seen.insert(id) || self.inputs.contains_key(&(c, id)) {
                continue;
            }
            let i = comp.get(id);
            let ok = matches!(
                i.op,
                Op::Iota { .. }
                    | Op::Constant { .. }
                    | Op::Broadcast { .. }
                    | Op::Reshape
                    | Op::Convert
                    | Op::Unary(_)
                    | Op::Binary(_)
                    | Op::Select
                    | Op::Clamp
                    | Op::Compare { .. }
            );
            if !ok {
                return false;
            }
            stack.extend(i.operands.iter().copied());
        }
        true
    }

    pub fn new(
        b: FunctionBuilder<'f>,
        jm: &'a mut JITModule,
        module: &'a Module,
        consts: &'a mut Vec<Box<[u64]>>,
    ) -> Self {
        let mut b = b;
        // Word 0 holds the address of slot 0 (16-byte aligned, after it):
        // the kernel loads its base from there, so the base is a register
        // value (an `iconst` base would be rematerialized at every use).
        let mut words = vec![0u64; 2 * POOL_SLOTS + 3].into_boxed_slice();
        let addr = words.as_ptr() as usize;
        let first_word = 2 + (addr % 16) / 8;
        words[0] = (addr + 8 * first_word) as u64;
        consts.push(words);
        let cell = b.ins().iconst(I64, addr as i64);
        let base = b.ins().load(I64, MemFlagsData::trusted(), cell, 0);
        let pool = VecPool {
            array: consts.len() - 1,
            first_word,
            base,
            slots: HashMap::new(),
            loaded: HashMap::new(),
        };
        Emitter {
            b,
            jm,
            module,
            inputs: HashMap::new(),
            bound: HashMap::new(),
            memo: vec![HashMap::new()],
            consts_i: vec![HashMap::new()],
            consts_v: vec![HashMap::new()],
            pool,
            addr_prefix: vec![HashMap::new()],
            libs: HashMap::new(),
            consts,
            vec_reduce: true,
            warming: false,
            warm_log: None,
            uniform: std::collections::HashSet::new(),
            shift_amounts: vec![HashMap::new()],
            row_check: None,
            strided_loads: false,
            allow_strided: false,
            interior: Vec::new(),
            blocked: HashMap::new(),
            bf16_bits: HashMap::new(),
            wide_reduce: false,
            win_pos: vec![HashMap::new()],
            gather_starts: vec![HashMap::new()],
            counters: HashMap::new(),
        }
    }

    // ------------------------------------------------------------ helpers

    pub fn push_scope(&mut self) {
        self.memo.push(HashMap::new());
        self.consts_i.push(HashMap::new());
        self.consts_v.push(HashMap::new());
        self.addr_prefix.push(HashMap::new());
        self.win_pos.push(HashMap::new());
        self.gather_starts.push(HashMap::new());
        self.shift_amounts.push(HashMap::new());
    }

    pub fn pop_scope(&mut self) {
        self.memo.pop();
        self.consts_i.pop();
        self.consts_v.pop();
        self.addr_prefix.pop();
        self.win_pos.pop();
        self.gather_starts.pop();
        self.shift_amounts.pop();
    }

    /// `cond ? slow(em) : fast` as a branch around a rarely needed slow
    /// path (the fast values are computed already, the slow ones only when
    /// `cond`, a scalar flag, is set); values, constants and memos made on
    /// the slow path are scoped to it. Returns the joined values.
    pub fn rare_branch<const N: usize, E>(
        &mut self,
        cond: Value,
        fast: [Value; N],
        slow: impl FnOnce(&mut Self) -> std::result::Result<[Value; N], E>,
    ) -> std::result::Result<[Value; N], E> {
        let slow_b = self.b.create_block();
        let join = self.b.create_block();
        for v in fast {
            let ty = self.b.func.dfg.value_type(v);
            self.b.append_block_param(join, ty);
        }
        let args = fast.map(|v| v.into());
        self.b.ins().brif(cond, slow_b, &[], join, &args);
        self.b.switch_to_block(slow_b);
        self.b.seal_block(slow_b);
        self.push_scope();
        let r = slow(self);
        self.pop_scope();
        let args = r?.map(|v| v.into());
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        let p = self.b.block_params(join);
        Ok(std::array::from_fn(|i| p[i]))
    }

    /// An i64 constant (reused from an enclosing scope when made there).
    pub fn iconst(&mut self, v: i64) -> Value {
        if let Some(&c) = self.consts_i.iter().rev().find_map(|m| m.get(&v)) {
            return c;
        }
        let c = self.b.ins().iconst(I64, v);
        if let Some(top) = self.consts_i.last_mut() {
            top.insert(v, c);
        }
        c
    }

    /// An F32X4 splat constant, memoized per scope (`approx::warm` makes
    /// the approximations' constants before a vector loop, so its body
    /// reuses them from registers).
    pub fn vconst(&mut self, v: f32) -> Value {
        if let Some(log) = self.warm_log.as_mut() {
            log.push(v.to_bits());
        }
        if let Some(&c) = self.consts_v.iter().rev().find_map(|m| m.get(&v.to_bits())) {
            return c;
        }
        let s = self.b.ins().f32const(v);
        let c = self.b.ins().splat(F32X4, s);
        if let Some(top) = self.consts_v.last_mut() {
            top.insert(v.to_bits(), c);
        }
        c
    }

    /// An F32X4 splat constant loaded from the kernel's pool right here,
    /// for an instruction that takes it as a memory operand: make it just
    /// before that instruction, use it once, and only where the consuming
    /// instruction's result is used once too (Cranelift folds a load only
    /// into a use that is codegen'd once; otherwise the load stays a
    /// separate instruction). Falls back to [`Emitter::vconst`].
    pub fn vconst_mem(&mut self, v: f32) -> Value {
        let bits = v.to_bits() as u128;
        match self.pooled(F32X4, bits * 0x0000_0001_0000_0001_0000_0001_0000_0001) {
            Some(c) => c,
            None => self.vconst(v),
        }
    }

    /// A 128-bit constant of vector type `ty` loaded from the pool here, or
    /// `None` when the pool is full.
    pub fn pooled(&mut self, ty: Type, bits: u128) -> Option<Value> {
        if self.warming {
            // `approx::warm` makes code only for its register constants;
            // a pool load there would be a dead load Cranelift keeps (loads
            // are not pure to it), one per constant in every kernel's
            // prologue. An inline vector constant is pure: never lowered.
            let data = cranelift_codegen::ir::ConstantData::from(&bits.to_le_bytes()[..]);
            let handle = self.b.func.dfg.constants.insert(data);
            let v = self.b.ins().vconst(ty, handle);
            self.pool.loaded.insert(v, bits);
            return Some(v);
        }
        let n = self.pool.slots.len();
        let slot = match self.pool.slots.get(&bits) {
            Some(&s) => s,
            None if n < POOL_SLOTS => {
                let words = &mut self.consts[self.pool.array];
                let w = self.pool.first_word + 2 * n;
                words[w] = bits as u64;
                words[w + 1] = (bits >> 64) as u64;
                self.pool.slots.insert(bits, n as i32);
                n as i32
            }
            None => return None,
        };
        let v = self
            .b
            .ins()
            .load(ty, MemFlagsData::trusted(), self.pool.base, 16 * slot);
        self.pool.loaded.insert(v, bits);
        Some(v)
    }

    /// The scalar `v` is a `splat` of, if it is one.
    pub fn splat_arg(&self, v: Value) -> Option<Value> {
        use cranelift_codegen::ir::{InstructionData, Opcode, ValueDef};
        let dfg = &self.b.func.dfg;
        let ValueDef::Result(inst, _) = dfg.value_def(v) else {
            return None;
        };
        match dfg.insts[inst] {
            InstructionData::Unary {
                opcode: Opcode::Splat,
                arg,
            } => Some(arg),
            _ => None,
        }
    }

    /// The lane value of `v` when it is a splat constant (a pool load with
    /// four equal lanes, or a splat of an `f32const`), as its bits.
    pub fn splat_constant(&self, v: Value) -> Option<u32> {
        use cranelift_codegen::ir::{InstructionData, Opcode, ValueDef};
        if let Some(&bits) = self.pool.loaded.get(&v) {
            let lane = bits as u32;
            let same = (1..4).all(|k| (bits >> (32 * k)) as u32 == lane);
            return same.then_some(lane);
        }
        let arg = self.splat_arg(v)?;
        let dfg = &self.b.func.dfg;
        let ValueDef::Result(k, _) = dfg.value_def(arg) else {
            return None;
        };
        match dfg.insts[k] {
            InstructionData::UnaryIeee32 {
                opcode: Opcode::F32const,
                imm,
            } => Some(imm.bits()),
            _ => None,
        }
    }

    /// A call to a registered host function.
    pub fn call(&mut self, name: &'static str, args: &[Value]) -> Result<Value> {
        let fref = match self.libs.get(name) {
            Some(f) => *f,
            None => {
                let lc = super::libcalls::all()
                    .into_iter()
                    .find(|l| l.name == name)
                    .ok_or_else(|| JitError::codegen(format!("no host function {name}")))?;
                let sig = super::libcalls::signature(&lc, self.jm.isa().default_call_conv());
                let id = self
                    .jm
                    .declare_function(name, Linkage::Import, &sig)
                    .map_err(|e| JitError::codegen(format!("declare {name}: {e}")))?;
                let f = self.jm.declare_func_in_func(id, self.b.func);
                self.libs.insert(name, f);
                f
            }
        };
        let inst = self.b.ins().call(fref, args);
        Ok(self.b.inst_results(inst)[0])
    }

    /// `for i in lo..hi step` (constant bounds), body given the counter.
    pub fn for_range(
        &mut self,
        lo: Value,
        hi: Value,
        step: i64,
        mut body: impl FnMut(&mut Self, Value) -> Result<()>,
    ) -> Result<()> {
        let header = self.b.create_block();
        let bodyb = self.b.create_block();
        let exit = self.b.create_block();
        self.b.append_block_param(header, I64);
        self.b.ins().jump(header, &[lo.into()]);
        self.b.switch_to_block(header);
        let i = self.b.block_params(header)[0];
        if let (Some(l), Some(h)) = (self.known_int(lo), self.known_int(hi))
            && l < h
        {
            // Inside the body (the only place values are computed at i).
            self.counters.insert(i, (l, h - 1));
        }
        let c = self.b.ins().icmp(IntCC::SignedLessThan, i, hi);
        self.b.ins().brif(c, bodyb, &[], exit, &[]);
        self.b.switch_to_block(bodyb);
        self.b.seal_block(bodyb);
        self.push_scope();
        let r = body(self, i);
        self.pop_scope();
        r?;
        let next = self.b.ins().iadd_imm_s(i, step);
        self.b.ins().jump(header, &[next.into()]);
        self.b.seal_block(header);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
        Ok(())
    }

    /// The value of `v` when it is an `iconst`, sign-extended from its
    /// type.
    pub fn known_int(&self, v: Value) -> Option<i64> {
        let dfg = &self.b.func.dfg;
        let ValueDef::Result(inst, 0) = dfg.value_def(v) else {
            return None;
        };
        let InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            imm,
        } = dfg.insts[inst]
        else {
            return None;
        };
        let bits = dfg.value_type(v).bits();
        let raw = imm.bits();
        Some(if bits >= 64 {
            raw
        } else {
            (raw << (64 - bits)) >> (64 - bits)
        })
    }

    /// `v` clamped into `[lo, max(hi, lo)]`.
    pub fn clamp_idx(&mut self, v: Value, lo: i64, hi: i64) -> Value {
        let l = self.iconst(lo);
        let h = self.iconst(hi.max(lo));
        let a = self.b.ins().smax(v, l);
        self.b.ins().smin(a, h)
    }

    /// The array shape of an instruction (tuples are unsupported).
    pub fn array_shape(&self, c: CompId, id: InstrId) -> Result<ArrayShape> {
        let i = self.module.comp(c).get(id);
        Ok(i.shape
            .as_array()
            .map_err(|_| JitError::unsupported(format!("{} is not an array", i.name)))?
            .clone())
    }

    /// Byte address of `idx` in a buffer of `shape` at `base` (padded
    /// layouts included: the physical strides step over the padding;
    /// kernels never write padded outputs, `kernel`/`whole` reject them).
    pub fn address(&mut self, base: Value, shape: &ArrayShape, idx: &[Value]) -> Result<Value> {
        let pst = physical_strides(shape);
        let size = shape.element_type.byte_size() as i64;
        let mut terms: Vec<(Value, i64)> = idx
            .iter()
            .enumerate()
            .map(|(d, &v)| (v, pst[d] as i64 * size))
            .filter(|&(_, s)| s != 0)
            .zip(&shape.dims)
            .filter(|&(_, &n)| n > 1)
            .map(|(t, _)| t)
            .collect();
        // Constant indices (unrolled loops) become one displacement added
        // last, which x64 folds into the access's addressing mode.
        let mut disp = 0i64;
        terms.retain(|&(v, s)| match self.known_int(v) {
            // (Zero stays a term: the prefixes of row accesses are keyed
            // and hoisted as before.)
            Some(k) if k != 0 => {
                disp = disp.wrapping_add(k.wrapping_mul(s));
                false
            }
            _ => true,
        });
        let with_disp = |em: &mut Self, a: Value| {
            if disp == 0 {
                a
            } else {
                em.b.ins().iadd_imm_s(a, disp)
            }
        };
        // Major terms first: the minor one (the loop counter of the
        // innermost loop) is added last, after a prefix computed once per
        // scope and reused by every access of the same row.
        terms.sort_by_key(|&(_, s)| std::cmp::Reverse(s));
        let Some(last) = terms.pop() else {
            return Ok(with_disp(self, base));
        };
        let key = (base, terms);
        let cached = self
            .addr_prefix
            .iter()
            .rev()
            .find_map(|m| m.get(&key).copied());
        let prefix = match cached {
            Some(p) => p,
            None => {
                let mut addr = base;
                for &(v, s) in &key.1 {
                    let off = self.scaled(v, s);
                    addr = self.b.ins().iadd(addr, off);
                }
                if let Some(top) = self.addr_prefix.last_mut() {
                    top.insert(key, addr);
                }
                addr
            }
        };
        let off = self.scaled(last.0, last.1);
        let a = self.b.ins().iadd(prefix, off);
        Ok(with_disp(self, a))
    }

    /// `v · s`: a shift (not a multiply) for powers of two, so that x64
    /// folds `base + (i << k)` into one addressing mode.
    fn scaled(&mut self, v: Value, s: i64) -> Value {
        if s > 0 && s & (s - 1) == 0 {
            self.b.ins().ishl_imm_s(v, s.trailing_zeros() as i64)
        } else {
            self.b.ins().imul_imm_s(v, s)
        }
    }

    /// A start index `w` (an index value of type `ty` widened to i64)
    /// clamped to `[0, max_start]`. A u64 at or above 2^63 is a huge
    /// unsigned value, not a negative one: it clamps to the top, as the
    /// evaluator does (an unsigned minimum; it is never below 0).
    pub fn clamp_start(&mut self, w: Value, ty: ElementType, max_start: i64) -> Value {
        if ty == ElementType::U64 {
            let h = self.iconst(max_start.max(0));
            self.b.ins().umin(w, h)
        } else {
            self.clamp_idx(w, 0, max_start.max(0))
        }
    }

    /// Nested loops `0..extents[k]`, body given the counters.
    pub fn nest(
        &mut self,
        extents: &[i64],
        vars: &mut Vec<Value>,
        body: &mut dyn FnMut(&mut Self, &[Value]) -> Result<()>,
    ) -> Result<()> {
        if vars.len() == extents.len() {
            return body(self, vars);
        }
        let n = extents[vars.len()];
        let lo = self.iconst(0);
        let hi = self.iconst(n);
        self.for_range(lo, hi, 1, |em, i| {
            vars.push(i);
            let r = em.nest(extents, vars, body);
            vars.pop();
            r
        })
    }

    /// A loop variable of type `ty`.
    pub fn var(&mut self, ty: cranelift_codegen::ir::Type) -> Variable {
        self.b.declare_var(ty)
    }
}
