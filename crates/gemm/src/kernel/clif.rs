//! The Cranelift-generated micro-kernel: F32X4 + FMA, `MR` rows x `NV` vectors of 4 (12 accumulators in the 16
//! xmm registers), ISA flags from cranelift-native. Compiled once per process on first use and kept for the
//! process's lifetime. The generated function computes the whole tile, including `alpha`, `beta` and the store to a
//! C with unit column stride; the Rust wrapper only routes other column strides through a tile buffer. Must not be
//! selected when compilation failed (`available()` is false then).
//!
//! Code shape (see docs/PERFORMANCE.md): the function is compiled at `opt_level = "none"` so Cranelift keeps the
//! instruction order written here. At `speed` its e-graph pass hoists every load of an unrolled iteration to the top
//! (loads are the side-effecting skeleton, the FMAs are placed lazily at the loop's back edge), which keeps ~30
//! vectors live and spills most accumulators. In program order a k step is: `NV` B vector loads, then per row its A
//! value broadcast (`RowA`) and `NV` FMAs, so at most
//! 12 + NV + 2 xmm registers are live; k is unrolled by 12, with which regalloc2 keeps every accumulator in a
//! register (at 4 or 8 it spills a few at the back edge). `RXLA_GEMM_CLIF_DISASM=1` prints the generated code to
//! stderr.

use cranelift_codegen::ir::types::{F32, F32X4, I64};
use cranelift_codegen::ir::{
    AbiParam, BlockArg, InstBuilder, MemFlagsData, Value, condcodes::FloatCC, condcodes::IntCC,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module};
use std::sync::OnceLock;

pub(crate) const MR: usize = 6;
/// F32X4 vectors per row.
const NV: usize = 2;
pub(crate) const NR: usize = 4 * NV;
/// k steps per main-loop iteration.
const UNROLL: usize = 12;

/// How a row's A value reaches its `NV` FMAs. Cranelift's x64 `fma` ties the result to a multiplicand (it emits
/// `vfmadd213ps`/`vfmadd132ps`, never `vfmadd231ps`), so a broadcast used by two FMAs costs a register copy; and a
/// load only sinks into `vbroadcastss xmm, [mem]` when its splat has a single use.
#[derive(Clone, Copy)]
enum RowA {
    /// One `vbroadcastss xmm, [a]` per FMA: no copy, `NV` loads.
    Fresh,
    /// One scalar load, then one register `vbroadcastss` (a shuffle-port uop) per FMA: one load, no copy.
    Dup,
}

/// Alternating rows balance the two load ports (2 B + 9 A loads per k step) against the shuffle port (3 + 3
/// broadcasts) and the 5-wide front end (29 uops per 12 FMAs). Measured on one core (best window, L1-resident
/// panels): all `Fresh` ~41 GFLOP/s (load-bound: 14 loads per 12 FMAs), one shared splat per row ~44 (copies and
/// spills), alternating 54–55 of the ~55 F32X4 ceiling.
const ROWS: [RowA; MR] = [
    RowA::Fresh,
    RowA::Dup,
    RowA::Fresh,
    RowA::Dup,
    RowA::Fresh,
    RowA::Dup,
];

fn args_of(v: &[Value]) -> Vec<BlockArg> {
    v.iter().map(|&x| x.into()).collect()
}

/// One k step at panel offset `u`: `NV` B vectors, then per row its A value broadcast (see `RowA`) and `NV` FMAs
/// into `accs`.
fn step(
    b: &mut FunctionBuilder,
    flags: MemFlagsData,
    pa: Value,
    pb: Value,
    u: usize,
    accs: &mut [Value],
) {
    let bv: Vec<Value> = (0..NV)
        .map(|v| {
            b.ins()
                .load(F32X4, flags, pb, ((u * NR + 4 * v) * 4) as i32)
        })
        .collect();
    for (i, row) in ROWS.iter().enumerate() {
        let off = ((u * MR + i) * 4) as i32;
        let scalar = match row {
            RowA::Fresh => None,
            RowA::Dup => Some(b.ins().load(F32, flags, pa, off)),
        };
        for (v, &bvec) in bv.iter().enumerate() {
            let x = scalar.unwrap_or_else(|| b.ins().load(F32, flags, pa, off));
            let xs = b.ins().splat(F32X4, x);
            accs[NV * i + v] = b.ins().fma(xs, bvec, accs[NV * i + v]);
        }
    }
}

/// `extern "C" fn(k, a_panel, b_panel, c, row_stride_bytes, alpha, beta)`; C has unit column stride.
type TileFn = unsafe extern "C" fn(usize, *const f32, *const f32, *mut f32, isize, f32, f32);

static KERNEL: OnceLock<Option<usize>> = OnceLock::new();

fn compiled() -> Option<TileFn> {
    let addr = (*KERNEL.get_or_init(|| build().ok()))?;
    // SAFETY: the address is a finalized function with the TileFn signature, kept alive forever.
    Some(unsafe { std::mem::transmute::<usize, TileFn>(addr) })
}

pub(crate) fn available() -> bool {
    compiled().is_some()
}

/// Generates and finalizes the kernel; the module is leaked so the code lives for the process.
fn build() -> Result<usize, String> {
    let mut flags = settings::builder();
    flags.set("opt_level", "none").map_err(|e| e.to_string())?;
    let isa = cranelift_native::builder()
        .map_err(|e| e.to_string())?
        .finish(settings::Flags::new(flags))
        .map_err(|e| e.to_string())?;
    let mut module = JITModule::new(JITBuilder::with_isa(
        isa,
        cranelift_module::default_libcall_names(),
    ));
    let mut ctx = module.make_context();
    let sig = &mut ctx.func.signature;
    for _ in 0..5 {
        sig.params.push(AbiParam::new(I64));
    }
    sig.params.push(AbiParam::new(F32));
    sig.params.push(AbiParam::new(F32));
    let frontend = module.isa().frontend_config();
    let mut fctx = FunctionBuilderContext::new();
    let nacc = MR * NV;
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let entry = b.create_block();
        let header = b.create_block();
        let body = b.create_block();
        let tail_header = b.create_block();
        let tail_body = b.create_block();
        let exit = b.create_block();
        let store_new = b.create_block();
        let store_acc = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let p = b.block_params(entry).to_vec();
        let (k, a, bp, out, rs, alpha, beta) = (p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
        let zero = b.ins().f32const(0.0);
        let zv = b.ins().splat(F32X4, zero);
        // Loop-carried: remaining k, a pointer, b pointer, the accumulators.
        for _ in 0..3 {
            b.append_block_param(header, I64);
            b.append_block_param(tail_header, I64);
        }
        for _ in 0..nacc {
            b.append_block_param(header, F32X4);
            b.append_block_param(tail_header, F32X4);
            b.append_block_param(exit, F32X4);
        }
        let ba = |v: Value| -> BlockArg { v.into() };
        let mut args = vec![ba(k), ba(a), ba(bp)];
        args.extend(std::iter::repeat_n(ba(zv), nacc));
        b.ins().jump(header, &args);

        // Main loop: UNROLL k steps per iteration while at least UNROLL remain; then single steps.
        b.switch_to_block(header);
        let hp = b.block_params(header).to_vec();
        let enough = b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, hp[0], UNROLL as i64);
        b.ins().brif(enough, body, &[], tail_header, &args_of(&hp));

        b.switch_to_block(body);
        b.seal_block(body);
        let flags = MemFlagsData::new().with_notrap();
        let mut accs: Vec<Value> = hp[3..].to_vec();
        for u in 0..UNROLL {
            step(&mut b, flags, hp[1], hp[2], u, &mut accs);
        }
        let n1 = b.ins().iadd_imm_s(hp[0], -(UNROLL as i64));
        let pa1 = b.ins().iadd_imm_s(hp[1], (UNROLL * MR * 4) as i64);
        let pb1 = b.ins().iadd_imm_s(hp[2], (UNROLL * NR * 4) as i64);
        let mut next = vec![ba(n1), ba(pa1), ba(pb1)];
        next.extend(accs.iter().map(|&v| ba(v)));
        b.ins().jump(header, &next);
        b.seal_block(header);

        b.switch_to_block(tail_header);
        let tp = b.block_params(tail_header).to_vec();
        let more = b.ins().icmp_imm_s(IntCC::NotEqual, tp[0], 0);
        b.ins().brif(more, tail_body, &[], exit, &args_of(&tp[3..]));

        b.switch_to_block(tail_body);
        b.seal_block(tail_body);
        let mut accs: Vec<Value> = tp[3..].to_vec();
        step(&mut b, flags, tp[1], tp[2], 0, &mut accs);
        let n1 = b.ins().iadd_imm_s(tp[0], -1);
        let pa1 = b.ins().iadd_imm_s(tp[1], (MR * 4) as i64);
        let pb1 = b.ins().iadd_imm_s(tp[2], (NR * 4) as i64);
        let mut next = vec![ba(n1), ba(pa1), ba(pb1)];
        next.extend(accs.iter().map(|&v| ba(v)));
        b.ins().jump(tail_header, &next);
        b.seal_block(tail_header);

        // alpha * acc, stored (beta == 0: C is not read) or added to beta * C.
        b.switch_to_block(exit);
        b.seal_block(exit);
        let ep = b.block_params(exit).to_vec();
        let va = b.ins().splat(F32X4, alpha);
        let scaled: Vec<Value> = ep.iter().map(|&v| b.ins().fmul(v, va)).collect();
        let bz = b.ins().fcmp(FloatCC::Equal, beta, zero);
        b.ins().brif(bz, store_new, &[], store_acc, &[]);

        b.switch_to_block(store_new);
        b.seal_block(store_new);
        let mut row = out;
        for i in 0..MR {
            for v in 0..NV {
                b.ins()
                    .store(flags, scaled[NV * i + v], row, (16 * v) as i32);
            }
            row = b.ins().iadd(row, rs);
        }
        b.ins().return_(&[]);

        b.switch_to_block(store_acc);
        b.seal_block(store_acc);
        let vb = b.ins().splat(F32X4, beta);
        let mut row = out;
        for i in 0..MR {
            for v in 0..NV {
                let old = b.ins().load(F32X4, flags, row, (16 * v) as i32);
                let new = b.ins().fma(old, vb, scaled[NV * i + v]);
                b.ins().store(flags, new, row, (16 * v) as i32);
            }
            row = b.ins().iadd(row, rs);
        }
        b.ins().return_(&[]);
        b.seal_block(entry);
        b.finalize(frontend);
    }
    let id = module
        .declare_function("rxla_gemm_clif_kernel", Linkage::Local, &ctx.func.signature)
        .map_err(|e| e.to_string())?;
    let disasm = std::env::var_os("RXLA_GEMM_CLIF_DISASM").is_some();
    ctx.set_disasm(disasm);
    module
        .define_function(id, &mut ctx)
        .map_err(|e| format!("{e:?}"))?;
    if let Some(text) = ctx
        .compiled_code()
        .and_then(|c| c.vcode.as_ref())
        .filter(|_| disasm)
    {
        eprintln!("{text}");
    }
    module.clear_context(&mut ctx);
    module.finalize_definitions().map_err(|e| e.to_string())?;
    let addr = module.get_finalized_function(id) as usize;
    std::mem::forget(module);
    Ok(addr)
}

/// See `KernelFn`.
///
/// # Safety
/// As for the portable kernel; `available()` must have returned true.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn kernel(
    k: usize,
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    rsc: isize,
    csc: isize,
    alpha: f32,
    beta: f32,
) {
    let Some(f) = compiled() else { return };
    if csc == 1 {
        // SAFETY: panels hold k*MR / k*NR floats; the tile rows are contiguous inside C (caller's contract).
        unsafe { f(k, a, b, c, rsc * 4, alpha, beta) };
        return;
    }
    let mut tile = [0f32; MR * NR];
    // SAFETY: as above; the tile buffer is MR x NR row-major.
    unsafe { f(k, a, b, tile.as_mut_ptr(), (NR * 4) as isize, alpha, 0.0) };
    for i in 0..MR {
        for j in 0..NR {
            let v = tile[i * NR + j];
            // SAFETY: inside the tile by the caller's contract.
            unsafe {
                let p = c.offset(i as isize * rsc + j as isize * csc);
                *p = if beta == 0.0 { v } else { v + beta * *p };
            }
        }
    }
}
