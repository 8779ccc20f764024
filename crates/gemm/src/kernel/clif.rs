//! The Cranelift-generated 6x8 micro-kernel: F32X4 + FMA (two vectors per row, 12 accumulators in the 16 xmm
//! registers), ISA flags from cranelift-native. Compiled once per process on first use and kept for the
//! process's lifetime. The generated function only computes the tile into a 6x8 row-major buffer; the Rust
//! wrapper applies alpha/beta and the output strides. Must not be selected when compilation failed
//! (`available()` is false then).

use cranelift_codegen::ir::types::{F32, F32X4, I64};
use cranelift_codegen::ir::{
    AbiParam, BlockArg, InstBuilder, MemFlagsData, Value, condcodes::IntCC,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module};
use std::sync::OnceLock;

pub(crate) const MR: usize = 6;
pub(crate) const NR: usize = 8;

fn args_of(v: &[Value]) -> Vec<BlockArg> {
    v.iter().map(|&x| x.into()).collect()
}

/// One k step at panel offset `u`: 2 B vectors, 6 broadcast A values, 12 FMAs into `accs`.
fn step(
    b: &mut FunctionBuilder,
    flags: MemFlagsData,
    pa: Value,
    pb: Value,
    u: usize,
    accs: &mut [Value],
) {
    let b0 = b.ins().load(F32X4, flags, pb, (u * NR * 4) as i32);
    let b1 = b.ins().load(F32X4, flags, pb, (u * NR * 4 + 16) as i32);
    for i in 0..MR {
        let x = b.ins().load(F32, flags, pa, ((u * MR + i) * 4) as i32);
        let xs = b.ins().splat(F32X4, x);
        accs[2 * i] = b.ins().fma(xs, b0, accs[2 * i]);
        accs[2 * i + 1] = b.ins().fma(xs, b1, accs[2 * i + 1]);
    }
}

/// `extern "C" fn(k, a_panel, b_panel, tile)`.
type TileFn = unsafe extern "C" fn(usize, *const f32, *const f32, *mut f32);

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
    flags.set("opt_level", "speed").map_err(|e| e.to_string())?;
    let isa = cranelift_native::builder()
        .map_err(|e| e.to_string())?
        .finish(settings::Flags::new(flags))
        .map_err(|e| e.to_string())?;
    let mut module = JITModule::new(JITBuilder::with_isa(
        isa,
        cranelift_module::default_libcall_names(),
    ));
    let mut ctx = module.make_context();
    for _ in 0..4 {
        ctx.func.signature.params.push(AbiParam::new(I64));
    }
    let frontend = module.isa().frontend_config();
    let mut fctx = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let entry = b.create_block();
        let header = b.create_block();
        let body = b.create_block();
        let exit = b.create_block();
        let tail_header = b.create_block();
        let tail_body = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let p = b.block_params(entry).to_vec();
        let (k, a, bp, out) = (p[0], p[1], p[2], p[3]);
        let zero = b.ins().f32const(0.0);
        let zv = b.ins().splat(F32X4, zero);
        // Loop-carried: remaining k, a pointer, b pointer, 12 accumulators.
        b.append_block_param(header, I64);
        b.append_block_param(header, I64);
        b.append_block_param(header, I64);
        for _ in 0..3 {
            b.append_block_param(tail_header, I64);
        }
        for _ in 0..12 {
            b.append_block_param(header, F32X4);
            b.append_block_param(tail_header, F32X4);
            b.append_block_param(exit, F32X4);
        }
        let ba = |v: Value| -> BlockArg { v.into() };
        let mut args = vec![ba(k), ba(a), ba(bp)];
        args.extend(std::iter::repeat_n(ba(zv), 12));
        b.ins().jump(header, &args);

        // Main loop: 4 k steps per iteration while at least 4 remain; then single steps.
        b.switch_to_block(header);
        let hp = b.block_params(header).to_vec();
        let four = b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, hp[0], 4);
        b.ins().brif(four, body, &[], tail_header, &args_of(&hp));

        b.switch_to_block(body);
        b.seal_block(body);
        let flags = MemFlagsData::new().with_notrap();
        let mut accs: Vec<Value> = hp[3..].to_vec();
        for u in 0..4 {
            step(&mut b, flags, hp[1], hp[2], u, &mut accs);
        }
        let n1 = b.ins().iadd_imm_s(hp[0], -4);
        let pa1 = b.ins().iadd_imm_s(hp[1], (4 * MR * 4) as i64);
        let pb1 = b.ins().iadd_imm_s(hp[2], (4 * NR * 4) as i64);
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

        b.switch_to_block(exit);
        b.seal_block(exit);
        let ep = b.block_params(exit).to_vec();
        for i in 0..MR {
            b.ins().store(flags, ep[2 * i], out, (32 * i) as i32);
            b.ins()
                .store(flags, ep[2 * i + 1], out, (32 * i + 16) as i32);
        }
        b.ins().return_(&[]);
        b.seal_block(entry);
        b.finalize(frontend);
    }
    let id = module
        .declare_function("rxla_gemm_clif_6x8", Linkage::Local, &ctx.func.signature)
        .map_err(|e| e.to_string())?;
    module
        .define_function(id, &mut ctx)
        .map_err(|e| format!("{e:?}"))?;
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
    let mut tile = [0f32; MR * NR];
    match compiled() {
        // SAFETY: panels hold k*MR / k*NR floats; the tile buffer 48.
        Some(f) => unsafe { f(k, a, b, tile.as_mut_ptr()) },
        None => return,
    }
    for i in 0..MR {
        for j in 0..NR {
            let v = alpha * tile[i * NR + j];
            // SAFETY: inside the tile by the caller's contract.
            unsafe {
                let p = c.offset(i as isize * rsc + j as isize * csc);
                *p = if beta == 0.0 { v } else { v + beta * *p };
            }
        }
    }
}
