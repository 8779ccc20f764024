//! Expression emission: the value of any instruction of a kernel at an
//! index (a Cranelift `i64` per logical dimension), in scalar mode or in
//! vector mode (F32X4, lanes along one output dimension). Index-mapping
//! ops (broadcast, reshape, transpose, slice, pad, concatenate, reverse,
//! dynamic-slice, ...) transform the index; reductions and dots open inner
//! loops. Every index that reaches a load is clamped into range, so the
//! generated code never reads out of bounds. Loop nests over the output
//! live in `kernel`; per-op arithmetic in `scalar` and `vector`.

use super::scalar;
use super::vector;
use super::vector::le;
use crate::error::{JitError, Result};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{F32, F32X4, I8, I8X16, I32, I32X4, I64};
use cranelift_codegen::ir::{
    FuncRef, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Type, Value,
};
use cranelift_frontend::{FunctionBuilder, Variable};
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module as _};
use rxla_ir::index::{physical_strides, row_major_strides};
use rxla_ir::{ArrayShape, BinaryOp, CompId, ElementType, InstrId, Literal, Module, Op};
use std::collections::HashMap;

/// Flags of a lane-reinterpreting bitcast between vector types.
fn vector_flags() -> MemFlagsData {
    MemFlagsData::new().with_endianness(cranelift_codegen::ir::Endianness::Little)
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
    fn dims(&self, rank: usize) -> Result<Vec<i64>> {
        match self {
            Sym::Dims(v) => Ok(v.clone()),
            Sym::RowMajor(0) => Ok(vec![0; rank]),
            Sym::RowMajor(_) => Err(JitError::unsupported("lanes cross a reshape")),
        }
    }
    fn is_zero(&self) -> bool {
        match self {
            Sym::Dims(v) => v.iter().all(|&c| c == 0),
            Sym::RowMajor(c) => *c == 0,
        }
    }
}

type MemoKey = (CompId, InstrId, Vec<Value>, Option<Sym>);

/// A reduction combiner the vectorized reduce loops know how to reassociate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Combiner {
    Add,
    Mul,
    Max,
    Min,
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
    bound: HashMap<(CompId, InstrId), Value>,
    memo: Vec<HashMap<MemoKey, Value>>,
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
    /// Set while a kernel's vector loops are emitted the optimistic way
    /// (see `rowcheck`); `None` elsewhere and in the exact redo.
    pub row_check: Option<super::rowcheck::RowCheck>,
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
    /// Exp/tanh under a vectorized reduction may run in wide block
    /// routines (`crate::wide`; the host has them and the options allow).
    pub wide_reduce: bool,
    /// Per scope: positions of unrolled windows (the clamped index and its
    /// in-bounds flag), so a row's window steps, hoisted before its loop,
    /// are computed once per row and not per element.
    win_pos: Vec<HashMap<WinKey, (Value, Option<Value>)>>,
}

/// Shortest row a sum streams through the wide routine (`rxla_block_sum`).
const STREAM_SUM_MIN: i64 = 256;

/// Elements per block of a reduction whose exp/tanh run in a wide routine
/// (a multiple of 16: see `reduce_vec_loops`; 2 KiB of scratch each).
const REDUCE_BLOCK: i64 = 512;

/// A window position along one dim at a constant offset: (index value,
/// stride, offset, dim size, bounds-checked, base dilation).
type WinKey = (Value, i64, i64, i64, bool, i64);

/// Windows of at most this many elements are unrolled (pooling).
const MAX_UNROLLED_WINDOW: i64 = 16;

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
            row_check: None,
            strided_loads: false,
            allow_strided: false,
            interior: Vec::new(),
            blocked: HashMap::new(),
            wide_reduce: false,
            win_pos: vec![HashMap::new()],
        }
    }

    // ------------------------------------------------------------ helpers

    pub fn push_scope(&mut self) {
        self.memo.push(HashMap::new());
        self.consts_i.push(HashMap::new());
        self.consts_v.push(HashMap::new());
        self.addr_prefix.push(HashMap::new());
        self.win_pos.push(HashMap::new());
    }

    pub fn pop_scope(&mut self) {
        self.memo.pop();
        self.consts_i.pop();
        self.consts_v.pop();
        self.addr_prefix.pop();
        self.win_pos.pop();
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

    /// Stores one element of type `et` (half types as their bits).
    pub fn store_elem(&mut self, v: Value, addr: Value, et: ElementType) -> Result<()> {
        let v = if scalar::is_half(et)
            && self.b.func.dfg.value_type(v) == cranelift_codegen::ir::types::F32
        {
            scalar::half_bits_raw(self, v, et)?
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

    /// The lane value of `v` when it is a splat constant (a pool load with
    /// four equal lanes, or a splat of an `f32const`), as its bits.
    pub fn splat_constant(&self, v: Value) -> Option<u32> {
        use cranelift_codegen::ir::{InstructionData, Opcode, ValueDef};
        if let Some(&bits) = self.pool.loaded.get(&v) {
            let lane = bits as u32;
            let same = (1..4).all(|k| (bits >> (32 * k)) as u32 == lane);
            return same.then_some(lane);
        }
        let dfg = &self.b.func.dfg;
        let ValueDef::Result(inst, _) = dfg.value_def(v) else {
            return None;
        };
        let InstructionData::Unary {
            opcode: Opcode::Splat,
            arg,
        } = dfg.insts[inst]
        else {
            return None;
        };
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

    /// Emits, before a loop over the vector lanes' dimension, every
    /// subexpression of `id` that does not move with the lanes (all lane
    /// coefficients zero), so the loop body finds it memoized: broadcast
    /// operands and constants are computed once per row, not per vector.
    pub fn hoist(&mut self, c: CompId, id: InstrId, idx: &[Value], sym: &Sym) {
        let mut seen = std::collections::HashSet::new();
        self.hoist_from(c, id, idx, sym, &mut seen);
    }

    /// [`Self::hoist`] skipping what it already walked (a DAG of shared
    /// subexpressions is walked once per index, not once per path).
    fn hoist_from(
        &mut self,
        c: CompId,
        id: InstrId,
        idx: &[Value],
        sym: &Sym,
        seen: &mut std::collections::HashSet<MemoKey>,
    ) {
        if !seen.insert((c, id, idx.to_vec(), Some(sym.clone()))) {
            return;
        }
        if sym.is_zero() {
            let _ = self.emit(c, id, idx, Some(sym));
            return;
        }
        if let Some((base, shape)) = self.inputs.get(&(c, id)).cloned() {
            // The row's address prefix (every term but the moving one),
            // cached in this scope for the loop's loads (the mid-end is
            // off: nothing else would take it out of the loop).
            if idx.len() == shape.rank() {
                let _ = self.address(base, &shape, idx);
            }
            return;
        }
        if self.bound.contains_key(&(c, id)) {
            return;
        }
        let module = self.module;
        let instr = module.comp(c).get(id);
        let Ok(shape) = self.array_shape(c, id) else {
            return;
        };
        match &instr.op {
            op if op.is_elementwise() => {
                for &o in &instr.operands {
                    match self.array_shape(c, o) {
                        Ok(os) if os.rank() == 0 && shape.rank() != 0 => {
                            let _ = self.emit(c, o, &[], None);
                        }
                        Ok(_) => self.hoist_from(c, o, idx, sym, seen),
                        Err(_) => {}
                    }
                }
            }
            Op::ReduceWindow { window, .. } if instr.operands.len() == 2 => {
                self.hoist_window(c, id, window, idx, sym);
            }
            Op::Broadcast { dimensions } => {
                let Ok(cs) = sym.dims(shape.rank()) else {
                    return;
                };
                let oi: Vec<Value> = dimensions.iter().map(|&d| idx[d as usize]).collect();
                let os = Sym::Dims(dimensions.iter().map(|&d| cs[d as usize]).collect());
                if let Some(&o) = instr.operands.first() {
                    self.hoist_from(c, o, &oi, &os, seen);
                }
            }
            _ => {}
        }
    }

    /// Before a row's loop: the positions of an unrolled window whose
    /// moving dims are not the lanes' (pooling with lanes along the
    /// features), and the address prefixes of an input operand there, so
    /// the loop body reuses them instead of recomputing them per element.
    fn hoist_window(
        &mut self,
        c: CompId,
        id: InstrId,
        window: &rxla_ir::Window,
        idx: &[Value],
        sym: &Sym,
    ) {
        let operand = self.module.comp(c).get(id).operands[0];
        let Ok(os) = self.array_shape(c, operand) else {
            return;
        };
        let Ok(cs) = sym.dims(os.rank()) else {
            return;
        };
        if window.dims.len() != os.rank() || idx.len() != os.rank() {
            return;
        }
        let moving: Vec<usize> = (0..os.rank())
            .filter(|&d| window.dims[d].size != 1)
            .collect();
        let count: i64 = moving.iter().map(|&d| window.dims[d].size).product();
        if moving.is_empty() || count > MAX_UNROLLED_WINDOW || moving.iter().any(|&d| cs[d] != 0) {
            return;
        }
        let interior: Vec<usize> = self
            .interior
            .iter()
            .filter(|(ic, ii, _)| *ic == c && *ii == id)
            .map(|&(_, _, d)| d)
            .collect();
        let input = self.inputs.get(&(c, operand)).cloned();
        let zero = self.iconst(0);
        let ks = vec![zero; os.rank()];
        let mut kc = vec![0i64; os.rank()];
        for _ in 0..count {
            let (_, oi) =
                self.window_position_opt(window, &os.dims, idx, &ks, &interior, Some(&kc));
            if let Some((base, shape)) = &input {
                let _ = self.address(*base, shape, &oi);
            }
            for &d in moving.iter().rev() {
                kc[d] += 1;
                if kc[d] < window.dims[d].size {
                    break;
                }
                kc[d] = 0;
            }
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
        // Major terms first: the minor one (the loop counter of the
        // innermost loop) is added last, after a prefix computed once per
        // scope and reused by every access of the same row.
        terms.sort_by_key(|&(_, s)| std::cmp::Reverse(s));
        let Some(last) = terms.pop() else {
            return Ok(base);
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
        Ok(self.b.ins().iadd(prefix, off))
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

    fn load(
        &mut self,
        base: Value,
        shape: &ArrayShape,
        idx: &[Value],
        lanes: Option<&Sym>,
    ) -> Result<Value> {
        let et = shape.element_type;
        let ty = scalar::memory(et)?;
        let addr = self.address(base, shape, idx)?;
        // Inputs are never written while a kernel runs (outputs are distinct
        // buffers), so loads may be hoisted out of loops (broadcast operands).
        let flags = MemFlagsData::new()
            .with_notrap()
            .with_readonly()
            .with_can_move();
        let Some(sym) = lanes else {
            let v = self.b.ins().load(ty, flags, addr, 0);
            return scalar::from_memory(self, v, et);
        };
        if et != ElementType::F32 {
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

    // ------------------------------------------------------------ emission

    /// The value of instruction `id` of computation `c` at `idx`: scalar
    /// when `lanes` is `None`, else an F32X4 (or I32X4 mask for pred).
    pub fn emit(
        &mut self,
        c: CompId,
        id: InstrId,
        idx: &[Value],
        lanes: Option<&Sym>,
    ) -> Result<Value> {
        if let Some(&v) = self.bound.get(&(c, id)) {
            return Ok(v);
        }
        let key: MemoKey = (c, id, idx.to_vec(), lanes.cloned());
        for scope in self.memo.iter().rev() {
            if let Some(&v) = scope.get(&key) {
                return Ok(v);
            }
        }
        let mut v = self.emit_uncached(c, id, idx, lanes)?;
        let instr = self.module.comp(c).get(id);
        if lanes.is_none()
            && !self.inputs.contains_key(&(c, id))
            && matches!(
                instr.op,
                Op::Unary(_) | Op::Binary(_) | Op::Clamp | Op::Iota { .. }
            )
            && instr.shape.element_type().is_some_and(scalar::is_half)
        {
            let et = instr.shape.element_type().unwrap_or(ElementType::F16);
            v = scalar::round_half(self, v, et)?;
        }
        if lanes.is_none()
            && !self.inputs.contains_key(&(c, id))
            && matches!(
                instr.op,
                Op::Unary(_) | Op::Binary(_) | Op::Clamp | Op::Iota { .. }
            )
            && let Some(et) = instr.shape.element_type().filter(|t| t.is_int_n())
        {
            v = scalar::wrap_int_n(self, v, et);
        }
        if let Some(top) = self.memo.last_mut() {
            top.insert(key, v);
        }
        Ok(v)
    }

    fn emit_uncached(
        &mut self,
        c: CompId,
        id: InstrId,
        idx: &[Value],
        lanes: Option<&Sym>,
    ) -> Result<Value> {
        let module = self.module;
        let instr = module.comp(c).get(id);
        if let Some((base, shape)) = self.inputs.get(&(c, id)).cloned() {
            return self.load(base, &shape, idx, lanes);
        }
        if let Some(&(base, d)) = self.blocked.get(&(c, id)) {
            // Read at the row's own index (the kernel checked every use).
            let off = self.b.ins().ishl_imm_s(idx[d], 2);
            let addr = self.b.ins().iadd(base, off);
            let flags = MemFlagsData::new().with_notrap();
            return Ok(match lanes {
                Some(_) => self.b.ins().load(F32X4, flags, addr, 0),
                None => self.b.ins().load(F32, flags, addr, 0),
            });
        }
        let shape = self.array_shape(c, id)?;
        let et = shape.element_type;
        scalar::storage(et)?;
        if lanes.is_some() && !matches!(et, ElementType::F32 | ElementType::Pred) {
            return Err(JitError::unsupported(format!("vector {et}")));
        }
        let ops = &instr.operands;
        let op_shape = |k: usize| -> Result<ArrayShape> {
            let o = ops.get(k).ok_or_else(|| {
                JitError::unsupported(format!("{} lacks operand {k}", instr.name))
            })?;
            self.array_shape(c, *o)
        };
        match &instr.op {
            Op::Parameter { .. } => Err(JitError::unsupported(format!(
                "unbound parameter {}",
                instr.name
            ))),
            Op::Constant { literal } => self.constant(literal, &shape, idx, lanes),
            Op::Iota { dimension } => {
                let d = *dimension as usize;
                let i = *idx
                    .get(d)
                    .ok_or_else(|| JitError::unsupported("iota dimension"))?;
                if let Some(s) = lanes {
                    if s.dims(shape.rank())?[d] != 0 {
                        return Err(JitError::unsupported("lane-varying iota"));
                    }
                    let v = scalar::from_i64(self, i, et)?;
                    return Ok(self.b.ins().splat(F32X4, v));
                }
                scalar::from_i64(self, i, et)
            }
            Op::Broadcast { dimensions } => {
                let os = op_shape(0)?;
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
                let _ = os;
                self.emit(c, ops[0], &oi, sym.as_ref())
            }
            Op::Reshape => self.reshape(c, ops[0], &op_shape(0)?, &shape, idx, lanes),
            Op::Bitcast => {
                let os = op_shape(0)?;
                if os.element_type != et {
                    // Same dims and width, another element type: the bits
                    // reinterpreted (scalar only), as bitcast-convert.
                    let from = os.element_type;
                    if lanes.is_some()
                        || os.dims != shape.dims
                        || os.layout.minor_to_major != shape.layout.minor_to_major
                        || from.byte_size() != et.byte_size()
                        || scalar::is_half(from)
                        || scalar::is_half(et)
                        || from.is_int_n()
                        || et.is_int_n()
                    {
                        return Err(JitError::unsupported("element-type-changing bitcast"));
                    }
                    let x = self.emit(c, ops[0], idx, None)?;
                    let to = scalar::storage(et)?;
                    return Ok(if scalar::storage(from)? == to {
                        x
                    } else {
                        self.b.ins().bitcast(to, MemFlagsData::new(), x)
                    });
                }
                if os.dims == shape.dims
                    && os.layout.minor_to_major == shape.layout.minor_to_major
                    && os.layout.padded_dimensions == shape.layout.padded_dimensions
                {
                    self.emit(c, ops[0], idx, lanes)
                } else if os.layout.is_default() && shape.layout.is_default() {
                    self.reshape(c, ops[0], &os, &shape, idx, lanes)
                } else {
                    Err(JitError::unsupported("bitcast between layouts"))
                }
            }
            Op::Transpose { permutation } => {
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
                self.emit(c, ops[0], &oi, sym.as_ref())
            }
            Op::Copy | Op::OptimizationBarrier => self.emit(c, ops[0], idx, lanes),
            Op::Slice {
                starts, strides, ..
            } => {
                let mut oi = Vec::with_capacity(idx.len());
                for d in 0..idx.len() {
                    let m = self.b.ins().imul_imm_s(idx[d], strides[d]);
                    oi.push(self.b.ins().iadd_imm_s(m, starts[d]));
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
                self.emit(c, ops[0], &oi, sym.as_ref())
            }
            Op::Reverse { dimensions } => {
                let os = op_shape(0)?;
                let mut oi = idx.to_vec();
                let mut cs = match lanes {
                    Some(s) => s.dims(shape.rank())?,
                    None => vec![0; shape.rank()],
                };
                for &d in dimensions {
                    let d = d as usize;
                    let n = self.iconst(os.dims[d] - 1);
                    oi[d] = self.b.ins().isub(n, idx[d]);
                    cs[d] = -cs[d];
                }
                let sym = lanes.map(|_| Sym::Dims(cs));
                self.emit(c, ops[0], &oi, sym.as_ref())
            }
            Op::Pad { config } => self.pad(c, id, &op_shape(0)?, config, &shape, idx, lanes),
            Op::Concatenate { dimension } => {
                self.concatenate(c, ops, *dimension as usize, &shape, idx, lanes)
            }
            Op::DynamicSlice { sizes } => {
                if lanes.is_some_and(|s| !s.is_zero()) && ops.len() > 1 {
                    // Starts are lane-invariant: the lanes move like the output.
                }
                let os = op_shape(0)?;
                let mut oi = Vec::with_capacity(idx.len());
                for d in 0..idx.len() {
                    let s = self.start_index(c, ops[1 + d], os.dims[d] - sizes[d])?;
                    oi.push(self.b.ins().iadd(s, idx[d]));
                }
                let sym = match lanes {
                    Some(s) => Some(Sym::Dims(s.dims(shape.rank())?)),
                    None => None,
                };
                self.emit(c, ops[0], &oi, sym.as_ref())
            }
            Op::DynamicUpdateSlice => {
                if lanes.is_some() {
                    return Err(JitError::unsupported("vector dynamic-update-slice"));
                }
                let us = op_shape(1)?;
                let mut inside = self.b.ins().iconst(I8, 1);
                let mut ui = Vec::with_capacity(idx.len());
                for d in 0..idx.len() {
                    let s = self.start_index(c, ops[2 + d], shape.dims[d] - us.dims[d])?;
                    let t = self.b.ins().isub(idx[d], s);
                    let lo = self
                        .b
                        .ins()
                        .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, t, 0);
                    let hi = self
                        .b
                        .ins()
                        .icmp_imm_s(IntCC::SignedLessThan, t, us.dims[d]);
                    let both = self.b.ins().band(lo, hi);
                    inside = self.b.ins().band(inside, both);
                    ui.push(self.clamp_idx(t, 0, us.dims[d] - 1));
                }
                let base = self.emit(c, ops[0], idx, None)?;
                if us.dims.contains(&0) {
                    return Ok(base);
                }
                let upd = self.emit(c, ops[1], &ui, None)?;
                Ok(self.b.ins().select(inside, upd, base))
            }
            Op::Select => {
                let ps = op_shape(0)?;
                let pi: Vec<Value> = if ps.rank() == 0 { vec![] } else { idx.to_vec() };
                // A scalar predicate of an array select is the same for
                // every lane; inside an inlined computation (everything
                // rank 0) it moves with the lanes like the other operands.
                let psym = match lanes {
                    Some(_) if ps.rank() == 0 && shape.rank() != 0 => None,
                    Some(s) => Some(s.clone()),
                    None => None,
                };
                let p = self.emit(c, ops[0], &pi, psym.as_ref())?;
                let t = self.emit(c, ops[1], idx, lanes)?;
                let f = self.emit(c, ops[2], idx, lanes)?;
                if lanes.is_some() && psym.is_some() {
                    Ok(vector::select_mask(self, p, t, f))
                } else {
                    Ok(self.b.ins().select(p, t, f))
                }
            }
            Op::Clamp => {
                let lo = self.elementwise_operand(c, ops[0], &shape, idx, lanes)?;
                let x = self.emit(c, ops[1], idx, lanes)?;
                let hi = self.elementwise_operand(c, ops[2], &shape, idx, lanes)?;
                let m = self.binary(BinaryOp::Maximum, et, x, lo, lanes.is_some())?;
                self.binary(BinaryOp::Minimum, et, m, hi, lanes.is_some())
            }
            Op::Compare { direction, kind } => {
                let ot = op_shape(0)?.element_type;
                if lanes.is_some() && ot != ElementType::F32 {
                    return Err(JitError::unsupported("vector compare of non-f32"));
                }
                let a = self.elementwise_operand(c, ops[0], &shape, idx, lanes)?;
                let b = self.elementwise_operand(c, ops[1], &shape, idx, lanes)?;
                if lanes.is_some() && *kind == Some(rxla_ir::ComparisonType::TotalOrder) {
                    Ok(self.vector_total_order(*direction, a, b))
                } else if lanes.is_some() {
                    vector::compare(self, *direction, *kind, a, b)
                } else {
                    scalar::compare(self, *direction, *kind, ot, a, b)
                }
            }
            Op::Convert | Op::BitcastConvert => {
                let from = op_shape(0)?.element_type;
                // A width-changing bitcast-convert also changes the rank:
                // the operand cannot be indexed with this op's index.
                if matches!(instr.op, Op::BitcastConvert) && from.bit_width() != et.bit_width() {
                    if lanes.is_some() {
                        return Err(JitError::unsupported(
                            "vector width-changing bitcast-convert",
                        ));
                    }
                    return super::bitcast::width_changing(self, c, ops[0], &shape, idx);
                }
                let x = self.emit(c, ops[0], idx, lanes)?;
                if lanes.is_some() {
                    return if from == et {
                        Ok(x)
                    } else {
                        Err(JitError::unsupported("vector convert"))
                    };
                }
                if matches!(instr.op, Op::Convert) {
                    scalar::convert(self, x, from, et)
                } else {
                    super::bitcast::same_width(self, x, from, et)
                }
            }
            Op::Unary(u) => {
                let from = op_shape(0)?.element_type;
                let x = self.emit(c, ops[0], idx, lanes)?;
                if lanes.is_some() {
                    vector::unary(self, *u, x)
                } else {
                    scalar::unary(self, *u, from, x)
                }
            }
            Op::Binary(bop) => {
                let a = self.elementwise_operand(c, ops[0], &shape, idx, lanes)?;
                let b = self.elementwise_operand(c, ops[1], &shape, idx, lanes)?;
                self.binary(*bop, et, a, b, lanes.is_some())
            }
            Op::Reduce {
                dimensions,
                to_apply,
            } => {
                if ops.len() != 2 {
                    return Err(JitError::unsupported("variadic reduce"));
                }
                self.reduce(c, ops[0], ops[1], dimensions, *to_apply, &shape, idx, lanes)
            }
            Op::Dot { dims } => self.dot(c, ops[0], ops[1], dims, &shape, idx, lanes),
            Op::Convolution {
                window,
                dims,
                feature_group_count,
                batch_group_count,
            } if lanes.is_none() && ops.len() == 2 => super::conv::convolution(
                self,
                c,
                ops[0],
                ops[1],
                window,
                dims,
                *feature_group_count,
                *batch_group_count,
                &shape,
                idx,
            ),
            Op::ReduceWindow { window, to_apply } => {
                if ops.len() != 2 {
                    return Err(JitError::unsupported("variadic reduce-window"));
                }
                self.reduce_window(c, id, window, *to_apply, idx, lanes)
            }
            Op::Gather {
                dims, slice_sizes, ..
            } => {
                if lanes.is_some() {
                    return Err(JitError::unsupported("vector gather"));
                }
                self.gather(c, ops[0], ops[1], dims, slice_sizes, &shape, idx)
            }
            Op::Map { to_apply, .. } => {
                // The mapped computation inlined on the operands' elements.
                let cc = module.comp(*to_apply);
                if cc.instructions.iter().any(|i| {
                    i.shape
                        .as_array()
                        .map_or(true, |a| a.rank() != 0 || a.element_type.is_token())
                }) {
                    return Err(JitError::unsupported("map of a non-scalar computation"));
                }
                let mut args = Vec::with_capacity(ops.len());
                for &o in ops {
                    args.push(self.emit(c, o, idx, lanes)?);
                }
                self.inline(*to_apply, &args, lanes.is_some())
            }
            Op::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            } => {
                let x = self.emit(c, ops[0], idx, lanes)?;
                super::reduce_precision::emit(self, x, et, *exponent_bits, *mantissa_bits)
            }
            other => Err(JitError::unsupported(format!("op {}", other.opcode()))),
        }
    }

    /// An elementwise operand, which may be a scalar feeding an array op.
    fn elementwise_operand(
        &mut self,
        c: CompId,
        o: InstrId,
        out: &ArrayShape,
        idx: &[Value],
        lanes: Option<&Sym>,
    ) -> Result<Value> {
        let os = self.array_shape(c, o)?;
        if os.rank() == 0 && out.rank() != 0 {
            let v = self.emit(c, o, &[], None)?;
            return Ok(match lanes {
                Some(_) => vector::splat(self, v, os.element_type)?,
                None => v,
            });
        }
        self.emit(c, o, idx, lanes)
    }

    pub fn binary(
        &mut self,
        op: BinaryOp,
        et: ElementType,
        a: Value,
        b: Value,
        vector: bool,
    ) -> Result<Value> {
        if vector {
            vector::binary(self, op, a, b)
        } else {
            scalar::binary(self, op, et, a, b)
        }
    }

    /// A dynamic start index: the scalar operand read as i64 (signed or
    /// unsigned by type) and clamped to `[0, max_start]`.
    fn start_index(&mut self, c: CompId, o: InstrId, max_start: i64) -> Result<Value> {
        let ty = self.array_shape(c, o)?.element_type;
        let v = self.emit(c, o, &[], None)?;
        let w = scalar::to_i64(self, v, ty)?;
        Ok(self.clamp_start(w, ty, max_start))
    }

    /// A start index `w` (an index value of type `ty` widened to i64)
    /// clamped to `[0, max_start]`. A u64 at or above 2^63 is a huge
    /// unsigned value, not a negative one: it clamps to the top, as the
    /// evaluator does (an unsigned minimum; it is never below 0).
    fn clamp_start(&mut self, w: Value, ty: ElementType, max_start: i64) -> Value {
        if ty == ElementType::U64 {
            let h = self.iconst(max_start.max(0));
            self.b.ins().umin(w, h)
        } else {
            self.clamp_idx(w, 0, max_start.max(0))
        }
    }

    fn constant(
        &mut self,
        lit: &Literal,
        shape: &ArrayShape,
        idx: &[Value],
        lanes: Option<&Sym>,
    ) -> Result<Value> {
        let arr = lit.as_array()?;
        if arr.data.len() == 1 {
            let v = scalar::literal_value(self, &arr.data, 0)?;
            return match lanes {
                Some(_) => vector::splat(self, v, shape.element_type),
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
        self.consts.push(words);
        let base = self.iconst(addr);
        self.load(base, &arr.shape, idx, lanes)
    }

    #[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
    /// The operand index of a reshape from `in_dims` to `out_dims` at
    /// output `idx`: dims are matched in groups of equal element counts
    /// (a split or a merge), each group's row-major position computed
    /// from its own dims only, divisions by powers of two as shifts and
    /// none for a group's outermost dim.
    fn reshape_index(&mut self, in_dims: &[i64], out_dims: &[i64], idx: &[Value]) -> Vec<Value> {
        let zero = self.iconst(0);
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
                let m = self.b.ins().imul_imm_s(idx[d], stride);
                lin = Some(match lin {
                    Some(l) => self.b.ins().iadd(l, m),
                    None => m,
                });
                stride = stride.saturating_mul(out_dims[d]);
            }
            let lin = lin.unwrap_or(zero);
            // Split over the group's input dims (no remainder for the outermost).
            let mut stride = 1i64;
            for (k, &d) in ins.iter().enumerate().rev() {
                let q = self.udiv_const(lin, stride);
                oi[d] = if k == 0 {
                    q
                } else {
                    self.urem_const(q, in_dims[d])
                };
                stride = stride.saturating_mul(in_dims[d]);
            }
        }
        oi
    }

    /// `v / k` for a non-negative `v`: nothing for 1, a shift for a power of two.
    fn udiv_const(&mut self, v: Value, k: i64) -> Value {
        match k {
            1 => v,
            k if k > 0 && k & (k - 1) == 0 => self.b.ins().ushr_imm_u(v, k.trailing_zeros() as i64),
            k => self.b.ins().udiv_imm_u(v, k),
        }
    }

    /// `v % k` for a non-negative `v`: a mask for a power of two.
    fn urem_const(&mut self, v: Value, k: i64) -> Value {
        match k {
            k if k > 0 && k & (k - 1) == 0 => self.b.ins().band_imm_u(v, k - 1),
            k => self.b.ins().urem_imm_u(v, k),
        }
    }

    fn reshape(
        &mut self,
        c: CompId,
        o: InstrId,
        os: &ArrayShape,
        out: &ArrayShape,
        idx: &[Value],
        lanes: Option<&Sym>,
    ) -> Result<Value> {
        let nz_in: Vec<usize> = (0..os.rank()).filter(|&d| os.dims[d] != 1).collect();
        let nz_out: Vec<usize> = (0..out.rank()).filter(|&d| out.dims[d] != 1).collect();
        let trivial = nz_in.len() == nz_out.len()
            && nz_in
                .iter()
                .zip(&nz_out)
                .all(|(&a, &b)| os.dims[a] == out.dims[b]);
        if trivial {
            let zero = self.iconst(0);
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
            return self.emit(c, o, &oi, sym.as_ref());
        }
        let rs_out = row_major_strides(&out.dims);
        let oi = self.reshape_index(&os.dims, &out.dims, idx);
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
        self.emit(c, o, &oi, sym.as_ref())
    }

    #[allow(clippy::too_many_arguments)]
    fn pad(
        &mut self,
        c: CompId,
        id: InstrId,
        os: &ArrayShape,
        config: &[rxla_ir::PadDim],
        out: &ArrayShape,
        idx: &[Value],
        lanes: Option<&Sym>,
    ) -> Result<Value> {
        let (o, pv) = {
            let ops = &self.module.comp(c).get(id).operands;
            (ops[0], ops[1])
        };
        let pad_value = {
            let v = self.emit(c, pv, &[], None)?;
            match lanes {
                Some(_) => vector::splat(self, v, out.element_type)?,
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
        let mut valid = self.b.ins().iconst(I8, 1);
        let mut oi = Vec::with_capacity(idx.len());
        for (d, p) in config.iter().enumerate() {
            let n = os.dims[d];
            if p.low == 0 && p.high == 0 && p.interior == 0 {
                oi.push(idx[d]);
                continue;
            }
            if p.interior == 0 && self.interior.contains(&(c, id, d)) {
                // The kernel's interior section: every lane is inside the operand.
                oi.push(self.b.ins().iadd_imm_s(idx[d], -p.low));
                continue;
            }
            if cs.as_ref().is_some_and(|cs| cs[d] != 0) {
                return Err(JitError::unsupported("vector lanes across padding"));
            }
            let t = self.b.ins().iadd_imm_s(idx[d], -p.low);
            let ge = self
                .b
                .ins()
                .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, t, 0);
            let zero = self.iconst(0);
            let tp = self.b.ins().smax(t, zero);
            let (q, ok) = if p.interior == 0 {
                (tp, ge)
            } else {
                let q = self.b.ins().udiv_imm_u(tp, p.interior + 1);
                let r = self.b.ins().urem_imm_u(tp, p.interior + 1);
                let r0 = self.b.ins().icmp_imm_s(IntCC::Equal, r, 0);
                (q, self.b.ins().band(ge, r0))
            };
            let lt = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, q, n);
            let ok = self.b.ins().band(ok, lt);
            valid = self.b.ins().band(valid, ok);
            oi.push(self.clamp_idx(q, 0, n - 1));
        }
        let sym = cs.map(Sym::Dims);
        let v = self.emit(c, o, &oi, sym.as_ref())?;
        Ok(self.b.ins().select(valid, v, pad_value))
    }

    fn concatenate(
        &mut self,
        c: CompId,
        ops: &[InstrId],
        dim: usize,
        out: &ArrayShape,
        idx: &[Value],
        lanes: Option<&Sym>,
    ) -> Result<Value> {
        if let Some(s) = lanes
            && s.dims(out.rank())?[dim] != 0
        {
            return Err(JitError::unsupported("vector lanes across a concatenation"));
        }
        let mut result: Option<Value> = None;
        let mut off = 0i64;
        for &o in ops {
            let n = self.array_shape(c, o)?.dims[dim];
            if n == 0 {
                continue;
            }
            let mut oi = idx.to_vec();
            let t = self.b.ins().iadd_imm_s(idx[dim], -off);
            oi[dim] = self.clamp_idx(t, 0, n - 1);
            let v = self.emit(c, o, &oi, lanes)?;
            result = Some(match result {
                None => v,
                Some(prev) => {
                    let cond =
                        self.b
                            .ins()
                            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, idx[dim], off);
                    self.b.ins().select(cond, v, prev)
                }
            });
            off += n;
        }
        result.ok_or_else(|| JitError::unsupported("empty concatenation"))
    }

    /// Inlines a scalar computation (a reducer) on `args`; returns its
    /// root's value(s). Vector mode when `vector`.
    pub fn inline(&mut self, comp: CompId, args: &[Value], vector: bool) -> Result<Value> {
        let cc = self.module.comp(comp);
        let params = cc.parameters();
        if params.len() != args.len() {
            return Err(JitError::unsupported(format!("reducer {} arity", cc.name)));
        }
        for (&p, &a) in params.iter().zip(args) {
            self.bound.insert((comp, p), a);
        }
        self.push_scope();
        let sym = Sym::Dims(vec![]);
        let r = self.emit(comp, cc.root, &[], if vector { Some(&sym) } else { None });
        self.pop_scope();
        for &p in &params {
            self.bound.remove(&(comp, p));
        }
        r
    }

    /// Inlines a scalar computation whose root is a tuple (variadic
    /// reducers, scatter updates) on `args` (scalar mode); returns the
    /// value of each tuple element. A non-tuple root gives one value.
    pub fn inline_multi(&mut self, comp: CompId, args: &[Value]) -> Result<Vec<Value>> {
        let cc = self.module.comp(comp);
        let params = cc.parameters();
        if params.len() != args.len() {
            return Err(JitError::unsupported(format!(
                "computation {} arity",
                cc.name
            )));
        }
        let root = cc.root_instruction();
        let outs: Vec<InstrId> = match root.op {
            Op::Tuple => root.operands.clone(),
            _ => vec![cc.root],
        };
        for (&p, &a) in params.iter().zip(args) {
            self.bound.insert((comp, p), a);
        }
        self.push_scope();
        let mut r = Ok(Vec::with_capacity(outs.len()));
        for o in outs {
            match self.emit(comp, o, &[], None) {
                Ok(v) => {
                    if let Ok(vs) = &mut r {
                        vs.push(v);
                    }
                }
                Err(e) => {
                    r = Err(e);
                    break;
                }
            }
        }
        self.pop_scope();
        for &p in &params {
            self.bound.remove(&(comp, p));
        }
        r
    }

    /// A combiner the vectorized reduction may reassociate: the reducer's
    /// root is add/multiply/maximum/minimum of its two f32 parameters.
    fn combiner(&self, comp: CompId) -> Option<Combiner> {
        let cc = self.module.comp(comp);
        let root = cc.root_instruction();
        let ps = cc.parameters();
        if ps.len() != 2 || root.shape.element_type() != Some(ElementType::F32) {
            return None;
        }
        let mut ops = root.operands.clone();
        ops.sort();
        if ops != ps {
            return None;
        }
        match root.op {
            Op::Binary(BinaryOp::Add) => Some(Combiner::Add),
            Op::Binary(BinaryOp::Multiply) => Some(Combiner::Mul),
            Op::Binary(BinaryOp::Maximum) => Some(Combiner::Max),
            Op::Binary(BinaryOp::Minimum) => Some(Combiner::Min),
            _ => None,
        }
    }

    /// Whether `comp` is `op(p0, p1)` for an op whose reduction does not
    /// depend on the order of the elements, but for float rounding (which
    /// the evaluator's contract allows to differ): the commutative ones
    /// (add, multiply, max, min, and, or, xor) are all associative too,
    /// except float max/min, which return the first NaN they meet (its
    /// payload depends on the order).
    fn associative(&self, comp: CompId) -> bool {
        let cc = self.module.comp(comp);
        let root = cc.root_instruction();
        let mut ops = root.operands.clone();
        ops.sort();
        let float = root.shape.element_type().is_some_and(|t| t.is_float());
        ops == cc.parameters()
            && matches!(root.op, Op::Binary(b) if b.is_commutative()
                && !(float && matches!(b, BinaryOp::Maximum | BinaryOp::Minimum)))
    }

    #[allow(clippy::too_many_arguments)]
    fn reduce(
        &mut self,
        c: CompId,
        operand: InstrId,
        init: InstrId,
        dims: &[i64],
        reducer: CompId,
        out: &ArrayShape,
        idx: &[Value],
        lanes: Option<&Sym>,
    ) -> Result<Value> {
        let os = self.array_shape(c, operand)?;
        let reduced: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
        // Operand index: kept dims from the output, reduced dims from loops.
        let zero = self.iconst(0);
        let mut base_idx = vec![zero; os.rank()];
        let mut k = 0;
        let mut op_coefs = vec![0i64; os.rank()];
        let out_coefs = match lanes {
            Some(s) => Some(s.dims(out.rank())?),
            None => None,
        };
        for d in 0..os.rank() {
            if !reduced.contains(&d) {
                base_idx[d] = idx[k];
                if let Some(cs) = &out_coefs {
                    op_coefs[d] = cs[k];
                }
                k += 1;
            }
        }
        // Reduced dims in physical major-to-minor order; for a reducer
        // that is not a known associative op (power, subtract, ...) in the
        // evaluator's order instead (logical row-major), since the result
        // depends on it.
        let order: Vec<usize> = if self.associative(reducer) {
            os.layout
                .minor_to_major
                .iter()
                .rev()
                .map(|&d| d as usize)
                .filter(|d| reduced.contains(d))
                .collect()
        } else {
            let mut r = reduced.clone();
            r.sort_unstable();
            r
        };
        let mut logical = reduced.clone();
        logical.sort_unstable();
        let init_v = self.emit(c, init, &[], None)?;
        if os.dims.contains(&0) || order.is_empty() && os.dims.iter().product::<i64>() == 0 {
            return match lanes {
                Some(_) => vector::splat(self, init_v, out.element_type),
                None => Ok(init_v),
            };
        }
        let minor = order.last().copied();
        let vec_inner = lanes.is_none()
            && self.vec_reduce
            && minor.is_some_and(|m| m == os.layout.minor_to_major[0] as usize && os.dims[m] >= 8)
            && self.combiner(reducer).is_some();
        if vec_inner {
            let comb = self.combiner(reducer).unwrap_or(Combiner::Add);
            if !matches!(comb, Combiner::Max | Combiner::Min) {
                // Add/multiply: the accumulators start at the identity and
                // the init joins last, so where the evaluator (init first)
                // stays finite a reordered partial result may not: `0·x…`
                // is ±0 there, but a partial product that overflowed to
                // inf makes `0·inf` = NaN here; and with several NaNs the
                // payload depends on the order. A non-finite result is
                // therefore redone by the sequential loop (the evaluator's
                // order, bit for bit); a finite one is a legitimate
                // reassociation (rounding only).
                let (fast, _) =
                    self.reduce_vec_loops(c, operand, &os, &base_idx, &order, comb, init_v, false)?;
                return self.redo_if_non_finite(fast, |em| {
                    em.reduce_seq(c, operand, &base_idx, &logical, &os, reducer, init_v, None)
                });
            }
            // Max/min: a fast loop (one maxps/minps per vector, NaNs only
            // flagged); a row with a NaN or a zero result (where the NaN
            // payload order or ±0 matter) is redone by the sequential loop
            // below, bit for bit the evaluator's.
            let (fast, nan) =
                self.reduce_vec_loops(c, operand, &os, &base_idx, &order, comb, init_v, true)?;
            let zero = self.b.ins().f32const(0.0);
            let z = self.b.ins().fcmp(FloatCC::Equal, fast, zero);
            let flag = match nan {
                Some(n) => self.b.ins().bor(z, n),
                None => z,
            };
            let [r] = self.rare_branch(flag, [fast], |em| {
                Ok::<_, JitError>([
                    em.reduce_seq(c, operand, &base_idx, &order, &os, reducer, init_v, None)?
                ])
            })?;
            return Ok(r);
        }
        let sym = out_coefs.map(|_| Sym::Dims(op_coefs));
        let r = self.reduce_seq(
            c,
            operand,
            &base_idx,
            &order,
            &os,
            reducer,
            init_v,
            sym.clone(),
        )?;
        if order == logical || !os.element_type.is_float() {
            return Ok(r);
        }
        // A float add/multiply walked in the layout's order: the result is
        // the evaluator's but for rounding, or for NaN payloads and
        // overflow when it is not finite; then it is redone in the
        // evaluator's (logical) order.
        self.redo_if_non_finite(r, |em| {
            em.reduce_seq(c, operand, &base_idx, &logical, &os, reducer, init_v, sym)
        })
    }

    /// `r`, or `redo(self)` when `r` (a float scalar, or any lane of an
    /// F32X4) is inf or NaN: a reassociated reduction's rare path back
    /// to the evaluator's order.
    fn redo_if_non_finite(
        &mut self,
        r: Value,
        redo: impl FnOnce(&mut Self) -> Result<Value>,
    ) -> Result<Value> {
        let ty = self.b.func.dfg.value_type(r);
        let inf = match ty {
            F32X4 => self.vconst(f32::INFINITY),
            cranelift_codegen::ir::types::F64 => self.b.ins().f64const(f64::INFINITY),
            _ => self.b.ins().f32const(f32::INFINITY),
        };
        let mag = self.b.ins().fabs(r);
        let odd = self
            .b
            .ins()
            .fcmp(FloatCC::UnorderedOrGreaterThanOrEqual, mag, inf);
        let odd = if ty.is_vector() {
            self.b.ins().vany_true(odd)
        } else {
            odd
        };
        let [r] = self.rare_branch(odd, [r], |em| Ok::<_, JitError>([redo(em)?]))?;
        Ok(r)
    }

    /// The reduction in the evaluator's order: one accumulator (F32X4
    /// across output lanes with `sym`, else scalar) through the inlined
    /// reducer.
    #[allow(clippy::too_many_arguments)]
    fn reduce_seq(
        &mut self,
        c: CompId,
        operand: InstrId,
        base_idx: &[Value],
        order: &[usize],
        os: &ArrayShape,
        reducer: CompId,
        init_v: Value,
        sym: Option<Sym>,
    ) -> Result<Value> {
        let out_type = self
            .module
            .comp(c)
            .get(operand)
            .shape
            .as_array()
            .map(|a| a.element_type);
        let et = out_type.map_err(|_| JitError::unsupported("tuple reduce operand"))?;
        let vector = sym.is_some();
        let ty = if vector { F32X4 } else { scalar::storage(et)? };
        let acc = self.b.declare_var(ty);
        let start = if vector {
            vector::splat(self, init_v, et)?
        } else {
            init_v
        };
        self.b.def_var(acc, start);
        let extents: Vec<i64> = order.iter().map(|&d| os.dims[d]).collect();
        self.nest(&extents, &mut Vec::new(), &mut |em, vars| {
            let mut oi = base_idx.to_vec();
            for (&d, &v) in order.iter().zip(vars) {
                oi[d] = v;
            }
            let v = em.emit(c, operand, &oi, sym.as_ref())?;
            let a = em.b.use_var(acc);
            let r = em.inline(reducer, &[a, v], vector)?;
            em.b.def_var(acc, r);
            Ok(())
        })?;
        Ok(self.b.use_var(acc))
    }

    /// `reduce-window` at an output index: the window in row-major order,
    /// positions on padding or base-dilation holes skipped (as the
    /// evaluator), reads clamped into the operand.
    /// `reduce-window` at `idx`: the window in row-major order, padding and
    /// base-dilation holes skipped (the evaluator's order). With `lanes`,
    /// the lanes are consecutive outputs along dims whose window has no
    /// padding or base dilation, so every lane's window position is in
    /// bounds and valid exactly when the first lane's is; their operand
    /// elements are `stride` apart (a strided vector load).
    #[allow(clippy::too_many_arguments)]
    fn reduce_window(
        &mut self,
        c: CompId,
        id: InstrId,
        window: &rxla_ir::Window,
        reducer: CompId,
        idx: &[Value],
        lanes: Option<&Sym>,
    ) -> Result<Value> {
        let (operand, init) = {
            let ops = &self.module.comp(c).get(id).operands;
            (ops[0], ops[1])
        };
        let os = self.array_shape(c, operand)?;
        if window.dims.len() != os.rank() || idx.len() != os.rank() {
            return Err(JitError::unsupported("reduce-window rank"));
        }
        let interior: Vec<usize> = self
            .interior
            .iter()
            .filter(|(ic, ii, _)| *ic == c && *ii == id)
            .map(|&(_, _, d)| d)
            .collect();
        let operand_sym = match lanes {
            None => None,
            Some(sym) => {
                let coefs = sym.dims(os.rank())?;
                let mut oc = Vec::with_capacity(coefs.len());
                for (d, (&cf, w)) in coefs.iter().zip(&window.dims).enumerate() {
                    let padded = w.pad_low != 0 || w.pad_high != 0;
                    if cf != 0 && (w.base_dilation != 1 || padded && !interior.contains(&d)) {
                        return Err(JitError::unsupported("vector reduce-window over padding"));
                    }
                    oc.push(cf * w.stride);
                }
                Some(Sym::Dims(oc))
            }
        };
        let init_s = self.emit(c, init, &[], None)?;
        let init_v = match lanes {
            Some(_) => vector::splat(self, init_s, os.element_type)?,
            None => init_s,
        };
        if os.dims.contains(&0) {
            return Ok(init_v);
        }
        let ty = self.b.func.dfg.value_type(init_v);
        let acc = self.b.declare_var(ty);
        self.b.def_var(acc, init_v);
        // Window dims of size 1 need no loop.
        let moving: Vec<usize> = (0..os.rank())
            .filter(|&d| window.dims[d].size != 1)
            .collect();
        let extents: Vec<i64> = moving.iter().map(|&d| window.dims[d].size).collect();
        let zero = self.iconst(0);
        let step = |em: &mut Self, ks_moving: &[Value], kc_moving: Option<&[i64]>| -> Result<()> {
            let mut ks = vec![zero; os.rank()];
            for (&d, &k) in moving.iter().zip(ks_moving) {
                ks[d] = k;
            }
            let kc: Option<Vec<i64>> = kc_moving.map(|kcm| {
                let mut kc = vec![0i64; os.rank()];
                for (&d, &k) in moving.iter().zip(kcm) {
                    kc[d] = k;
                }
                kc
            });
            let (valid, oi) =
                em.window_position_opt(window, &os.dims, idx, &ks, &interior, kc.as_deref());
            let v = em.emit(c, operand, &oi, operand_sym.as_ref())?;
            let a = em.b.use_var(acc);
            let r = em.inline(reducer, &[a, v], operand_sym.is_some())?;
            let r = match valid {
                Some(valid) => em.b.ins().select(valid, r, a),
                None => r,
            };
            em.b.def_var(acc, r);
            Ok(())
        };
        let count: i64 = extents.iter().product();
        if count <= MAX_UNROLLED_WINDOW {
            // Small windows (pooling): straight-line code, row-major order.
            let mut ks = vec![0i64; extents.len()];
            for _ in 0..count {
                step(self, &[], Some(&ks))?;
                for d in (0..ks.len()).rev() {
                    ks[d] += 1;
                    if ks[d] < extents[d] {
                        break;
                    }
                    ks[d] = 0;
                }
            }
        } else {
            self.nest(&extents, &mut Vec::new(), &mut |em, ks_moving| {
                step(em, ks_moving, None)
            })?;
        }
        Ok(self.b.use_var(acc))
    }

    /// The operand position of window element `ks` of window position
    /// `idx` (the evaluator's `window_base_index`): `valid` (an `i8`) is
    /// false on padding and base-dilation holes; the index is clamped into
    /// `dims` either way, so it can always be loaded.
    pub fn window_position(
        &mut self,
        window: &rxla_ir::Window,
        dims: &[i64],
        idx: &[Value],
        ks: &[Value],
    ) -> (Value, Vec<Value>) {
        let (valid, oi) = self.window_position_opt(window, dims, idx, ks, &[], None);
        let valid = valid.unwrap_or_else(|| self.b.ins().iconst(I8, 1));
        (valid, oi)
    }

    /// [`Self::window_position`], with `None` for "always valid" (no dim
    /// has padding or base dilation).
    /// `interior` lists dims whose positions the caller knows to be in
    /// bounds (no base dilation, outputs away from the padding).
    pub fn window_position_opt(
        &mut self,
        window: &rxla_ir::Window,
        dims: &[i64],
        idx: &[Value],
        ks: &[Value],
        interior: &[usize],
        ks_const: Option<&[i64]>,
    ) -> (Option<Value>, Vec<Value>) {
        let mut valid: Option<Value> = None;
        let mut oi = Vec::with_capacity(ks.len().max(window.dims.len()));
        let kc = ks_const;
        for (d, w) in window.dims.iter().enumerate() {
            // An unrolled window's position along `d` depends only on the
            // index and the offset: computed once per scope for all steps
            // and elements that share them (Cranelift's mid-end is off, so
            // nothing else would share them).
            let unpadded = w.pad_low == 0 && w.pad_high == 0;
            let checked = !(w.base_dilation == 1 && (unpadded || interior.contains(&d)));
            let key = kc.map(|kc| {
                let off = kc[d] * w.window_dilation - w.pad_low;
                (idx[d], w.stride, off, dims[d], checked, w.base_dilation)
            });
            if let Some(key) = key {
                let hit = self.win_pos.iter().rev().find_map(|m| m.get(&key).copied());
                if let Some((p, ok)) = hit {
                    oi.push(p);
                    if let Some(ok) = ok {
                        valid = Some(match valid {
                            Some(v) => self.b.ins().band(v, ok),
                            None => ok,
                        });
                    }
                    continue;
                }
            }
            let a = if w.stride == 1 {
                idx[d]
            } else {
                self.b.ins().imul_imm_s(idx[d], w.stride)
            };
            let p = match key {
                Some((_, _, 0, _, _, _)) => a,
                Some((_, _, off, _, _, _)) => self.b.ins().iadd_imm_s(a, off),
                None => {
                    let k = self.b.ins().imul_imm_s(ks[d], w.window_dilation);
                    let p = self.b.ins().iadd(a, k);
                    self.b.ins().iadd_imm_s(p, -w.pad_low)
                }
            };
            // A plain window dim (no padding or dilation) is always in bounds.
            let (p, ok) = if !checked {
                (p, None)
            } else {
                let ge = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, p, 0);
                let zero = self.iconst(0);
                let pp = self.b.ins().smax(p, zero);
                let (q, ok) = if w.base_dilation <= 1 {
                    (pp, ge)
                } else {
                    let q = self.b.ins().udiv_imm_u(pp, w.base_dilation);
                    let r = self.b.ins().urem_imm_u(pp, w.base_dilation);
                    let r0 = self.b.ins().icmp_imm_s(IntCC::Equal, r, 0);
                    (q, self.b.ins().band(ge, r0))
                };
                let lt = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, q, dims[d]);
                let ok = self.b.ins().band(ok, lt);
                (self.clamp_idx(q, 0, dims[d] - 1), Some(ok))
            };
            if let (Some(key), Some(top)) = (key, self.win_pos.last_mut()) {
                top.insert(key, (p, ok));
            }
            oi.push(p);
            if let Some(ok) = ok {
                valid = Some(match valid {
                    Some(v) => self.b.ins().band(v, ok),
                    None => ok,
                });
            }
        }
        (valid, oi)
    }

    /// `gather` at an output index (the evaluator's rules: starts from the
    /// index vector clamped into the operand, batching dims paired, offset
    /// dims added; every index stays in bounds).
    #[allow(clippy::too_many_arguments)]
    fn gather(
        &mut self,
        c: CompId,
        operand: InstrId,
        indices: InstrId,
        dims: &rxla_ir::GatherDims,
        slice_sizes: &[i64],
        out: &ArrayShape,
        idx: &[Value],
    ) -> Result<Value> {
        let os = self.array_shape(c, operand)?;
        let is = self.array_shape(c, indices)?;
        let bad = || JitError::unsupported("gather dimension numbers");
        let usz = |v: &[i64]| -> Vec<usize> { v.iter().map(|&d| d as usize).collect() };
        let (rank, irank) = (os.rank(), is.rank());
        let ivd = usize::try_from(dims.index_vector_dim).map_err(|_| bad())?;
        let collapsed = usz(&dims.collapsed_slice_dims);
        let op_batch = usz(&dims.operand_batching_dims);
        let idx_batch = usz(&dims.start_indices_batching_dims);
        let start_map = usz(&dims.start_index_map);
        let offset_dims = usz(&dims.offset_dims);
        let window: Vec<usize> = (0..rank)
            .filter(|d| !collapsed.contains(d) && !op_batch.contains(d))
            .collect();
        let batch_dims: Vec<usize> = (0..out.rank())
            .filter(|d| !offset_dims.contains(d))
            .collect();
        let idx_dims: Vec<usize> = (0..irank).filter(|&d| d != ivd).collect();
        if window.len() != offset_dims.len()
            || batch_dims.len() != idx_dims.len()
            || slice_sizes.len() != rank
            || op_batch.len() != idx_batch.len()
            || start_map
                .iter()
                .chain(&window)
                .chain(&op_batch)
                .any(|&d| d >= rank)
            || offset_dims.iter().any(|&d| d >= out.rank())
        {
            return Err(bad());
        }
        let zero = self.iconst(0);
        let mut start = vec![zero; rank];
        for (k, &d) in start_map.iter().enumerate() {
            let mut ii = vec![zero; irank];
            for (j, &o) in batch_dims.iter().enumerate() {
                ii[idx_dims[j]] = idx[o];
            }
            if ivd < irank {
                ii[ivd] = self.iconst(k as i64);
            }
            let v = self.emit(c, indices, &ii, None)?;
            let v = scalar::to_i64(self, v, is.element_type)?;
            start[d] = self.clamp_start(v, is.element_type, os.dims[d] - slice_sizes[d]);
        }
        for (&ob, &ib) in op_batch.iter().zip(&idx_batch) {
            let j = idx_dims.iter().position(|&d| d == ib).ok_or_else(bad)?;
            start[ob] = idx[batch_dims[j]];
        }
        let mut oi = start.clone();
        for (i, &o) in offset_dims.iter().enumerate() {
            let wd = window[i];
            let s = self.b.ins().iadd(start[wd], idx[o]);
            oi[wd] = self.clamp_idx(s, 0, os.dims[wd] - 1);
        }
        if os.dims.contains(&0) {
            return Err(JitError::unsupported("gather from an empty operand"));
        }
        self.emit(c, operand, &oi, None)
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

    #[allow(clippy::too_many_arguments)]
    /// A reduction along the contiguous dimension: four F32X4
    /// accumulators, then the lanes, the init value and a scalar tail.
    /// With `fast` (max/min only) the vector accumulators use the bare x86 min/max (a NaN
    /// element is skipped) and the second result is an `i8` flag: some
    /// vector element was NaN.
    #[allow(clippy::too_many_arguments)]
    fn reduce_vec_loops(
        &mut self,
        c: CompId,
        operand: InstrId,
        os: &ArrayShape,
        base_idx: &[Value],
        order: &[usize],
        comb: Combiner,
        init_v: Value,
        fast: bool,
    ) -> Result<(Value, Option<Value>)> {
        let (m, outer) = order
            .split_last()
            .ok_or_else(|| JitError::codegen("empty reduce order"))?;
        let m = *m;
        let n = os.dims[m];
        let ident = match comb {
            Combiner::Add => -0.0f32,
            Combiner::Mul => 1.0,
            Combiner::Max => f32::NEG_INFINITY,
            Combiner::Min => f32::INFINITY,
        };
        let op = match comb {
            Combiner::Add => BinaryOp::Add,
            Combiner::Mul => BinaryOp::Multiply,
            Combiner::Max => BinaryOp::Maximum,
            Combiner::Min => BinaryOp::Minimum,
        };
        let max = comb == Combiner::Max;
        // acc ⊕ v on vectors: exact, or `v > acc ? v : acc` (`v < acc` for
        // min), the operand order x64 lowers to one maxps/minps, NaN v
        // keeping acc; the NaN is recorded in `nan`.
        let nan = fast.then(|| {
            let v = self.b.declare_var(I32X4);
            let z = self.b.ins().iconst(I32, 0);
            let z = self.b.ins().splat(I32X4, z);
            self.b.def_var(v, z);
            v
        });
        let vop = |em: &mut Self, a: Value, v: Value| -> Result<Value> {
            let Some(nan) = nan else {
                return em.binary(op, ElementType::F32, a, v, true);
            };
            let wins = if max {
                em.b.ins().fcmp(FloatCC::LessThan, a, v)
            } else {
                em.b.ins().fcmp(FloatCC::LessThan, v, a)
            };
            let wins = em.b.ins().bitcast(F32X4, le(), wins);
            let r = em.b.ins().bitselect(wins, v, a);
            let un = em.b.ins().fcmp(FloatCC::Unordered, v, v);
            let acc = em.b.use_var(nan);
            let acc = em.b.ins().bor(acc, un);
            em.b.def_var(nan, acc);
            Ok(r)
        };
        let ids = self.b.ins().f32const(ident);
        let idv = self.b.ins().splat(F32X4, ids);
        let accs: Vec<Variable> = (0..4)
            .map(|_| {
                let v = self.b.declare_var(F32X4);
                self.b.def_var(v, idv);
                v
            })
            .collect();
        let sacc = self.b.declare_var(F32);
        self.b.def_var(sacc, ids);
        let mut unit = vec![0i64; os.rank()];
        unit[m] = 1;
        let sym = Sym::Dims(unit);
        let extents: Vec<i64> = outer.iter().map(|&d| os.dims[d]).collect();
        // Elements `lo..hi` of the reduced dim (`lo` a multiple of 16): the
        // whole vectors of 16 into the four accumulators, then vectors of
        // 4 into the first, then scalars. The element → accumulator
        // assignment depends only on the element's index, so splitting
        // `0..n` into ranges at multiples of 16 sums in the same order.
        let range = |em: &mut Self, oi: &[Value], lo: Value, hi: Value| -> Result<()> {
            let len = em.b.ins().isub(hi, lo);
            let len16 = em.b.ins().band_imm_s(len, !15);
            let len4 = em.b.ins().band_imm_s(len, !3);
            let hi16 = em.b.ins().iadd(lo, len16);
            let hi4 = em.b.ins().iadd(lo, len4);
            em.for_range(lo, hi16, 16, |em, j| {
                for (k, &acc) in accs.iter().enumerate() {
                    let mut oi2 = oi.to_vec();
                    oi2[m] = em.b.ins().iadd_imm_s(j, 4 * k as i64);
                    let v = em.emit(c, operand, &oi2, Some(&sym))?;
                    let a = em.b.use_var(acc);
                    let r = vop(em, a, v)?;
                    em.b.def_var(acc, r);
                }
                Ok(())
            })?;
            em.for_range(hi16, hi4, 4, |em, j| {
                let mut oi2 = oi.to_vec();
                oi2[m] = j;
                let v = em.emit(c, operand, &oi2, Some(&sym))?;
                let a = em.b.use_var(accs[0]);
                let r = vop(em, a, v)?;
                em.b.def_var(accs[0], r);
                Ok(())
            })?;
            em.for_range(hi4, hi, 1, |em, j| {
                let mut oi2 = oi.to_vec();
                oi2[m] = j;
                let v = em.emit(c, operand, &oi2, None)?;
                let a = em.b.use_var(sacc);
                let r = em.binary(op, ElementType::F32, a, v, false)?;
                em.b.def_var(sacc, r);
                Ok(())
            })
        };
        let wide = if self.wide_reduce {
            let inputs = &self.inputs;
            let bound = &self.bound;
            let is_input =
                |id: InstrId| inputs.contains_key(&(c, id)) || bound.contains_key(&(c, id));
            super::blocks::wide_nodes(self.module.comp(c), operand, &os.dims, m, &is_input, true)
        } else {
            Vec::new()
        };
        // A sum of an input's rows streaming from memory: the whole vectors
        // of 16 through the wide routine (512-bit loads, a prefetch ahead;
        // the same lanes and order as the loop below), the rest as usual.
        let streamed = (self.wide_reduce
            && wide.is_empty()
            && (comb == Combiner::Add && nan.is_none()
                || matches!(comb, Combiner::Max | Combiner::Min) && nan.is_some())
            && n >= STREAM_SUM_MIN)
            .then(|| self.inputs.get(&(c, operand)).cloned())
            .flatten()
            .filter(|(_, shape)| {
                shape.element_type == ElementType::F32
                    && !shape.layout.is_padded()
                    && shape.layout.minor_to_major.first() == Some(&(m as i64))
                    && shape.dims == os.dims
            });
        if let Some((base, shape)) = streamed {
            let keep = self.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                80,
                6,
            ));
            let n16 = n / 16 * 16;
            self.nest(&extents, &mut Vec::new(), &mut |em, vars| {
                let mut oi = base_idx.to_vec();
                for (&d, &v) in outer.iter().zip(vars) {
                    oi[d] = v;
                }
                let mut oi0 = oi.clone();
                oi0[m] = em.iconst(0);
                let row = em.address(base, &shape, &oi0)?;
                for (k, &v) in accs.iter().enumerate() {
                    let x = em.b.use_var(v);
                    em.b.ins().stack_store(I64, x, keep, 16 * k as i32);
                }
                let at = em.b.ins().stack_addr(I64, keep, 0);
                let len = em.iconst(n16);
                match nan {
                    None => {
                        em.call("rxla_block_sum", &[row, len, at])?;
                    }
                    Some(nv) => {
                        // Max/min: the NaN lanes go through memory too.
                        let x = em.b.use_var(nv);
                        em.b.ins().stack_store(I64, x, keep, 64);
                        let np = em.b.ins().stack_addr(I64, keep, 64);
                        let is_max = em.iconst(i64::from(comb == Combiner::Max));
                        em.call("rxla_block_maxmin", &[row, len, at, np, is_max])?;
                        let x = em.b.ins().stack_load(I64, I32X4, keep, 64);
                        em.b.def_var(nv, x);
                    }
                }
                for (k, &v) in accs.iter().enumerate() {
                    let x = em.b.ins().stack_load(I64, F32X4, keep, 16 * k as i32);
                    em.b.def_var(v, x);
                }
                let (lo, hi) = (em.iconst(n16), em.iconst(n));
                range(em, &oi, lo, hi)
            })?;
        } else if wide.is_empty() || n < 16 {
            self.nest(&extents, &mut Vec::new(), &mut |em, vars| {
                let mut oi = base_idx.to_vec();
                for (&d, &v) in outer.iter().zip(vars) {
                    oi[d] = v;
                }
                let (lo, hi) = (em.iconst(0), em.iconst(n));
                let mut oi0 = oi.clone();
                oi0[m] = lo;
                em.hoist(c, operand, &oi0, &sym);
                range(em, &oi, lo, hi)
            })?;
        } else {
            // The wide nodes under the reduction a block at a time
            // (`blocks`; bit-identical to the inline code), then the
            // block's accumulation reading their results from there.
            let slots = super::blocks::BlockSlots::new(self, &wide, false, REDUCE_BLOCK);
            // The accumulators go to memory around the fill loops and the
            // calls (which clobber every vector register): left live
            // across them, the register allocator kept them on the stack
            // in the accumulation loop too, a load and a store per add.
            let vars: Vec<(Variable, Type)> = accs
                .iter()
                .map(|&v| (v, F32X4))
                .chain([(sacc, F32)])
                .chain(nan.map(|v| (v, I32X4)))
                .collect();
            let keep = self.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                16 * vars.len() as u32,
                4,
            ));
            self.nest(&extents, &mut Vec::new(), &mut |em, outer_vars| {
                let mut oi = base_idx.to_vec();
                for (&d, &v) in outer.iter().zip(outer_vars) {
                    oi[d] = v;
                }
                let (lo, hi) = (em.iconst(0), em.iconst(n));
                em.for_range(lo, hi, REDUCE_BLOCK, |em, j0| {
                    for (k, &(v, _)) in vars.iter().enumerate() {
                        let x = em.b.use_var(v);
                        em.b.ins().stack_store(I64, x, keep, 16 * k as i32);
                    }
                    let end = em.b.ins().iadd_imm_s(j0, REDUCE_BLOCK);
                    let j1 = em.b.ins().smin(end, hi);
                    let mut oi0 = oi.clone();
                    let row = super::blocks::BlockRow {
                        comp: c,
                        dims: &os.dims,
                        d: m,
                        j0,
                        j1,
                    };
                    super::blocks::run_blocks(em, &row, &wide, &slots, &mut oi0, None)?;
                    for (k, &(v, ty)) in vars.iter().enumerate() {
                        let x = em.b.ins().stack_load(I64, ty, keep, 16 * k as i32);
                        em.b.def_var(v, x);
                    }
                    let mut oi0 = oi.clone();
                    oi0[m] = j0;
                    em.hoist(c, operand, &oi0, &sym);
                    let r = range(em, &oi, j0, j1);
                    for w in &wide {
                        em.blocked.remove(&(c, w.id));
                    }
                    r
                })
            })?;
        }
        let a: Vec<Value> = accs.iter().map(|&v| self.b.use_var(v)).collect();
        let a01 = self.binary(op, ElementType::F32, a[0], a[1], true)?;
        let a23 = self.binary(op, ElementType::F32, a[2], a[3], true)?;
        let all = self.binary(op, ElementType::F32, a01, a23, true)?;
        let l: Vec<Value> = (0..4u8).map(|k| self.b.ins().extractlane(all, k)).collect();
        let h01 = self.binary(op, ElementType::F32, l[0], l[1], false)?;
        let h23 = self.binary(op, ElementType::F32, l[2], l[3], false)?;
        let h = self.binary(op, ElementType::F32, h01, h23, false)?;
        let r = self.binary(op, ElementType::F32, init_v, h, false)?;
        let s = self.b.use_var(sacc);
        let any_nan = nan.map(|v| {
            let v = self.b.use_var(v);
            self.b.ins().vany_true(v)
        });
        Ok((self.binary(op, ElementType::F32, r, s, false)?, any_nan))
    }

    #[allow(clippy::too_many_arguments)]
    fn dot(
        &mut self,
        c: CompId,
        lhs: InstrId,
        rhs: InstrId,
        dims: &rxla_ir::DotDims,
        out: &ArrayShape,
        idx: &[Value],
        lanes: Option<&Sym>,
    ) -> Result<Value> {
        let ls = self.array_shape(c, lhs)?;
        let rs = self.array_shape(c, rhs)?;
        let et = out.element_type;
        // The evaluator's computation type: f32 for half results (rounded
        // once at the end), else the result type; operands are converted
        // to it first (`as` casts; pred is `!= 0`); pred is (or, and).
        let ct = if scalar::is_half(et) {
            ElementType::F32
        } else {
            et
        };
        if lanes.is_some()
            && (et != ElementType::F32
                || ls.element_type != ElementType::F32
                || rs.element_type != ElementType::F32)
        {
            return Err(JitError::unsupported("vector dot of non-f32 operands"));
        }
        let free = |s: &ArrayShape, b: &[i64], k: &[i64]| -> Vec<usize> {
            (0..s.rank())
                .filter(|d| !b.contains(&(*d as i64)) && !k.contains(&(*d as i64)))
                .collect()
        };
        let lf = free(&ls, &dims.lhs_batch, &dims.lhs_contracting);
        let rf = free(&rs, &dims.rhs_batch, &dims.rhs_contracting);
        let zero = self.iconst(0);
        let mut li = vec![zero; ls.rank()];
        let mut ri = vec![zero; rs.rank()];
        let oc = match lanes {
            Some(s) => Some(s.dims(out.rank())?),
            None => None,
        };
        let mut lc = vec![0i64; ls.rank()];
        let mut rc = vec![0i64; rs.rank()];
        let nb = dims.lhs_batch.len();
        for i in 0..nb {
            li[dims.lhs_batch[i] as usize] = idx[i];
            ri[dims.rhs_batch[i] as usize] = idx[i];
            if let Some(oc) = &oc {
                lc[dims.lhs_batch[i] as usize] = oc[i];
                rc[dims.rhs_batch[i] as usize] = oc[i];
            }
        }
        for (j, &d) in lf.iter().enumerate() {
            li[d] = idx[nb + j];
            if let Some(oc) = &oc {
                lc[d] = oc[nb + j];
            }
        }
        for (j, &d) in rf.iter().enumerate() {
            ri[d] = idx[nb + lf.len() + j];
            if let Some(oc) = &oc {
                rc[d] = oc[nb + lf.len() + j];
            }
        }
        let extents: Vec<i64> = dims
            .lhs_contracting
            .iter()
            .map(|&d| ls.dims[d as usize])
            .collect();
        let vector = lanes.is_some();
        let ty = if vector { F32X4 } else { scalar::storage(ct)? };
        let z = scalar::zero(self, ct)?;
        let z = if vector {
            self.b.ins().splat(F32X4, z)
        } else {
            z
        };
        let acc = self.b.declare_var(ty);
        self.b.def_var(acc, z);
        let (lsym, rsym) = match oc {
            Some(_) => (Some(Sym::Dims(lc)), Some(Sym::Dims(rc))),
            None => (None, None),
        };
        self.nest(&extents, &mut Vec::new(), &mut |em, ks| {
            let mut li2 = li.clone();
            let mut ri2 = ri.clone();
            for (j, &k) in ks.iter().enumerate() {
                li2[dims.lhs_contracting[j] as usize] = k;
                ri2[dims.rhs_contracting[j] as usize] = k;
            }
            let a = em.emit(c, lhs, &li2, lsym.as_ref())?;
            let b = em.emit(c, rhs, &ri2, rsym.as_ref())?;
            let s = em.b.use_var(acc);
            // A rounded multiply, then a rounded add (no fused
            // multiply-add), as the evaluator.
            let r = if vector {
                let p = em.b.ins().fmul(a, b);
                em.b.ins().fadd(s, p)
            } else {
                let a = scalar::convert(em, a, ls.element_type, ct)?;
                let b = scalar::convert(em, b, rs.element_type, ct)?;
                if ct == ElementType::Pred {
                    let p = em.b.ins().band(a, b);
                    em.b.ins().bor(s, p)
                } else {
                    let p = em.binary(BinaryOp::Multiply, ct, a, b, false)?;
                    em.binary(BinaryOp::Add, ct, s, p, false)?
                }
            };
            em.b.def_var(acc, r);
            Ok(())
        })?;
        let r = self.b.use_var(acc);
        if scalar::is_half(et) {
            scalar::round_half(self, r, et)
        } else if et.is_int_n() {
            Ok(scalar::wrap_int_n(self, r, et))
        } else {
            Ok(r)
        }
    }

    /// Total-order compare of F32X4 lanes: each lane's bits as a signed
    /// integer, the magnitude bits flipped for negative values (so
    /// -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN), then an integer
    /// compare; an I32X4 mask like the other vector compares.
    fn vector_total_order(
        &mut self,
        dir: rxla_ir::ComparisonDirection,
        a: Value,
        b: Value,
    ) -> Value {
        let key = |em: &mut Self, x: Value| {
            let i = em.b.ins().bitcast(I32X4, vector_flags(), x);
            let s = em.b.ins().sshr_imm_s(i, 31);
            let m = em.b.ins().ushr_imm_s(s, 1);
            em.b.ins().bxor(i, m)
        };
        let (ka, kb) = (key(self, a), key(self, b));
        self.b.ins().icmp(scalar::int_cc(dir, true), ka, kb)
    }

    /// A loop variable of type `ty`.
    pub fn var(&mut self, ty: cranelift_codegen::ir::Type) -> Variable {
        self.b.declare_var(ty)
    }
}
