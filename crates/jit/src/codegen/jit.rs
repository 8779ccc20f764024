//! The JIT module under construction ([`Jit`]: one Cranelift `JITModule`
//! per executable, ISA flags from the host, every host function
//! registered by name) and the finished code ([`Code`]). Kernels are
//! built into `Jit::ctx` by `kernel`/`whole`/`scan`/`scatter` and defined
//! here; which builder runs is `mod.rs`'s choice. No code generation here.

use super::libcalls;
use crate::error::{JitError, Result};
use crate::options::{CompileOptions, CompileStats};
use cranelift_codegen::Context;
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{AbiParam, Value};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Module as _};
use rxla_ir::{ArrayShape, CompId, InstrId, Module};

/// `fn(inputs, outputs, lo, hi)`: computes the output rows `lo..hi` of
/// the outermost (physically major) dimension.
pub type KernelFn = unsafe extern "C" fn(*const *const u8, *const *mut u8, i64, i64);

/// What to compile: the root of `comp`, reading `inputs` from buffers.
pub struct KernelSpec {
    pub comp: CompId,
    pub root: InstrId,
    /// Instructions of `comp` read from input buffers (in argument order)
    /// with the buffer's shape.
    pub inputs: Vec<(InstrId, ArrayShape)>,
    pub name: String,
}

/// A compiled kernel's shape facts, for the runtime.
#[derive(Clone, Debug)]
pub struct KernelMeta {
    /// Index into the executable's function table.
    pub index: usize,
    /// Extent of the outermost loop (what threads split).
    pub outer: i64,
    /// Output elements.
    pub elements: usize,
    pub vectorized: bool,
}

/// The JIT module under construction.
pub struct Jit {
    pub(super) jm: JITModule,
    pub(super) ctx: Context,
    pub(super) fctx: FunctionBuilderContext,
    funcs: Vec<FuncId>,
    pub(super) consts: Vec<Box<[u64]>>,
    pub(super) opts: CompileOptions,
}

/// Finished code: the module (kept alive), function pointers, constants.
pub struct Code {
    jm: Option<JITModule>,
    pub fns: Vec<KernelFn>,
    _consts: Vec<Box<[u64]>>,
}

// SAFETY: after finalization the JIT module is never mutated; the code and
// constant memory are read-only and shared by all threads.
unsafe impl Send for Code {}
unsafe impl Sync for Code {}

impl Drop for Code {
    fn drop(&mut self) {
        if let Some(jm) = self.jm.take() {
            // SAFETY: no function pointer outlives the executable owning `self`.
            unsafe { jm.free_memory() };
        }
    }
}

impl Jit {
    pub fn new(opts: &CompileOptions) -> Result<Jit> {
        let mut flags = settings::builder();
        let set = |f: &mut settings::Builder, k: &str, v: &str| {
            f.set(k, v)
                .map_err(|e| JitError::codegen(format!("flag {k}: {e}")))
        };
        // The emitter places code itself (row-invariant values and
        // constants before the vector loop, common subexpressions memoized);
        // Cranelift's egraph pass would sink the hoisted values back into
        // the loop, so its mid-end optimizer stays off.
        set(&mut flags, "opt_level", "none")?;
        // Cranelift's IR verifier was a fifth of compile time: on in debug
        // builds (tests, cargo-fuzz), off in release unless asked for.
        let verify = if opts.verify_clif { "true" } else { "false" };
        set(&mut flags, "enable_verifier", verify)?;
        set(&mut flags, "is_pic", "false")?;
        set(&mut flags, "use_colocated_libcalls", "false")?;
        set(&mut flags, "enable_probestack", "false")?;
        let isa_builder =
            cranelift_native::builder().map_err(|e| JitError::codegen(format!("host ISA: {e}")))?;
        let isa = isa_builder
            .finish(settings::Flags::new(flags))
            .map_err(|e| JitError::codegen(format!("host ISA: {e}")))?;
        let mut jb = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
        for lc in libcalls::all() {
            jb.symbol(lc.name, lc.addr);
        }
        let jm = JITModule::new(jb);
        let ctx = jm.make_context();
        Ok(Jit {
            jm,
            ctx,
            fctx: FunctionBuilderContext::new(),
            funcs: Vec::new(),
            consts: Vec::new(),
            opts: opts.clone(),
        })
    }

    pub(super) fn define(&mut self, spec: &KernelSpec, stats: &mut CompileStats) -> Result<usize> {
        let name = format!("k{}_{}", self.funcs.len(), spec.name);
        if self.opts.keep_clif {
            stats
                .clif
                .push((name.clone(), self.ctx.func.display().to_string()));
        }
        self.ctx.set_disasm(self.opts.keep_asm);
        let sig = self.ctx.func.signature.clone();
        let id = self
            .jm
            .declare_function(&name, cranelift_module::Linkage::Local, &sig)
            .map_err(|e| JitError::codegen(format!("declare {name}: {e}")))?;
        self.jm
            .define_function(id, &mut self.ctx)
            .map_err(|e| JitError::codegen(format!("{name}: {e:?}")))?;
        if self.opts.keep_asm {
            let text = self
                .ctx
                .compiled_code()
                .and_then(|c| c.vcode.clone())
                .unwrap_or_default();
            stats.asm.push((name.clone(), text));
        }
        self.jm.clear_context(&mut self.ctx);
        self.funcs.push(id);
        Ok(self.funcs.len() - 1)
    }

    /// Finalizes every kernel and returns the callable code.
    pub fn finish(mut self) -> Result<Code> {
        self.jm
            .finalize_definitions()
            .map_err(|e| JitError::codegen(format!("finalize: {e}")))?;
        let fns = self
            .funcs
            .iter()
            .map(|&id| {
                let p = self.jm.get_finalized_function(id);
                // SAFETY: every kernel was declared with the KernelFn signature.
                unsafe { std::mem::transmute::<*const u8, KernelFn>(p) }
            })
            .collect();
        Ok(Code {
            jm: Some(self.jm),
            fns,
            _consts: self.consts,
        })
    }
}

impl Jit {
    /// Starts a kernel function `(ins, outs, lo, hi)` (the signature every
    /// kernel has, in the ISA's default calling convention) and returns its
    /// emitter, positioned in the sealed entry block, with the four
    /// parameters.
    pub(super) fn kernel_emitter<'a>(
        &'a mut self,
        module: &'a Module,
    ) -> (super::emit::Emitter<'a, 'a>, [Value; 4]) {
        let cc = self.jm.isa().default_call_conv();
        self.jm.clear_context(&mut self.ctx);
        let sig = &mut self.ctx.func.signature;
        sig.call_conv = cc;
        for _ in 0..4 {
            sig.params.push(AbiParam::new(I64));
        }
        let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        b.seal_block(entry);
        let p = b.block_params(entry).to_vec();
        let em = super::emit::Emitter::new(b, &mut self.jm, module, &mut self.consts);
        (em, [p[0], p[1], p[2], p[3]])
    }
}
