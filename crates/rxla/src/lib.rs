//! rxla as a library: one dependency for embedding the compiler. It
//! re-exports the crates ([`ir`], [`eval`], [`passes`], [`jit`]), gathers
//! the everyday names in [`prelude`], and offers one-call helpers:
//! [`parse_text`] (parse + verify; HLO text or StableHLO text, told apart
//! by content), [`optimize_text`] (parse, verify, run a
//! pipeline) and [`compile_text`] (parse, verify, optimize, JIT-compile),
//! all returning the one [`Error`] type that wraps the crates' errors.
//!
//! This crate holds no compiler logic of its own and must not grow any:
//! it only wires the other crates together.
//!
//! ```
//! use rxla::prelude::*;
//!
//! let text = "HloModule m\n\nENTRY main {\n  x = f32[3] parameter(0)\n  ROOT y = f32[3] multiply(x, x)\n}\n";
//! let exe = rxla::compile_text(text, &rxla::Options::default())?;
//! let out = exe.run(&[Literal::vec1(vec![1.0f32, 2.0, 3.0])])?;
//! assert_eq!(out.to_string(), "f32[3]{0} {1, 4, 9}");
//! # Ok::<(), rxla::Error>(())
//! ```
//!
//! The "Use it as a library" section of the repository's README is this
//! crate's `LIBRARY.md` (a doctest here; `tests/readme.rs` checks that the
//! README shows the same code). `examples/` are run by `tests/examples.rs`.

#![doc = include_str!("../LIBRARY.md")]

pub use rxla_eval as eval;
pub use rxla_ir as ir;
pub use rxla_jit as jit;
pub use rxla_passes as passes;
pub use rxla_stablehlo as stablehlo;

use rxla_ir::{Module, ParseOptions};
use rxla_jit::{CompileOptions, Executable};
use rxla_passes::{PassManager, Registry};

/// The names most programs need.
pub mod prelude {
    pub use crate::{Error, Options, compile_text, optimize_text, parse_text};
    pub use rxla_eval::{RunOptions, evaluate};
    pub use rxla_ir::builder::{ComputationBuilder, ModuleBuilder, Value};
    pub use rxla_ir::{
        ArrayLiteral, BinaryOp, ElementType, Literal, Module, Op, ParseOptions, Shape, UnaryOp,
        parse_module, print_module, verify_module,
    };
    pub use rxla_jit::{CompileOptions, Executable};
    pub use rxla_passes::{Pass, PassContext, PassManager, Registry};
}

/// Any error of the helpers: the error of the crate that failed, with its
/// message (file:line:col for parse errors, the instruction for others).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading, verifying or building IR.
    #[error(transparent)]
    Ir(#[from] rxla_ir::IrError),
    /// The reference evaluator.
    #[error(transparent)]
    Eval(#[from] rxla_eval::EvalError),
    /// Building or running a pass pipeline.
    #[error(transparent)]
    Passes(#[from] rxla_passes::PassError),
    /// Compiling or running JIT code.
    #[error(transparent)]
    Jit(#[from] rxla_jit::JitError),
}

impl From<rxla_passes::PipelineError> for Error {
    fn from(e: rxla_passes::PipelineError) -> Error {
        Error::Passes(e.into())
    }
}

/// What the helpers do. `Options::default()`: the name `<input>` in
/// messages, elided constants refused, the `O2` pipeline from the
/// standard registry, verification after every pass, default JIT options.
#[derive(Clone)]
pub struct Options {
    /// The source's name in error messages (`FILE:LINE:COL: ...`).
    pub file: String,
    /// How the text is read (e.g. `fill_elided_constants`).
    pub parse: ParseOptions,
    /// The pipeline [`compile_text`] runs before compiling: a named one
    /// (`O0`, `O1`, `O2`) or pipeline text (`inline,cse,dce`, see
    /// `docs/PASSES.md`). The JIT compiles what it is given, so `O2` (the
    /// default, with fusion) is what makes the code fast.
    pub pipeline: String,
    /// Where pipeline names are looked up; register custom passes here.
    pub registry: Registry,
    /// Verify the module after every pass.
    pub verify_each: bool,
    /// JIT options.
    pub compile: CompileOptions,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            file: "<input>".to_string(),
            parse: ParseOptions::default(),
            pipeline: "O2".to_string(),
            registry: Registry::default(),
            verify_each: true,
            compile: CompileOptions::default(),
        }
    }
}

/// Parses HLO text (with `options.parse`, named `options.file` in errors)
/// and verifies it. StableHLO text (what `jax.jit(f).lower(...).as_text()`
/// prints: `module @... { func.func public @main ... }`, recognised by
/// [`rxla_stablehlo::looks_like_stablehlo`]) is read by
/// [`rxla_stablehlo::parse_stablehlo`] instead; `options.parse` does not
/// apply to it.
pub fn parse_text(text: &str, options: &Options) -> Result<Module, Error> {
    if rxla_stablehlo::looks_like_stablehlo(text) {
        let module = rxla_stablehlo::parse_stablehlo(text, &options.file)?;
        rxla_ir::verify_module(&module)?;
        return Ok(module);
    }
    let parsed = rxla_ir::parse_module_with(text, &options.file, &options.parse)?;
    rxla_ir::verify_module(&parsed.module)?;
    Ok(parsed.module)
}

/// A pass manager for `pipeline`: a named pipeline (`O0`/`O1`/`O2`) or
/// pipeline text, built from `registry`.
pub fn pass_manager(pipeline: &str, registry: &Registry) -> Result<PassManager, Error> {
    let pm = if rxla_passes::pipeline::named_pipeline_text(pipeline).is_some() {
        PassManager::named(pipeline, registry)?
    } else {
        PassManager::from_text(pipeline, registry)?
    };
    Ok(pm)
}

/// Runs `pipeline` over `module` in place (passes from `options.registry`,
/// verified after each pass when `options.verify_each`); returns whether
/// any pass changed it.
pub fn optimize(module: &mut Module, pipeline: &str, options: &Options) -> Result<bool, Error> {
    let mut pm = pass_manager(pipeline, &options.registry)?;
    pm.set_verify(options.verify_each);
    Ok(pm.run(module)?.changed)
}

/// Parses, verifies and optimizes HLO text with `pipeline` (named or
/// pipeline text; `options.registry` supplies the passes). Print the
/// result with [`rxla_ir::print_module`].
pub fn optimize_text(text: &str, pipeline: &str, options: &Options) -> Result<Module, Error> {
    let mut module = parse_text(text, options)?;
    optimize(&mut module, pipeline, options)?;
    Ok(module)
}

/// Parses, verifies, optimizes (`options.pipeline`) and JIT-compiles HLO
/// text. Run the result with [`Executable::run`] (literals) or
/// [`Executable::run_into`] (caller-owned buffers, nothing allocated).
pub fn compile_text(text: &str, options: &Options) -> Result<Executable, Error> {
    let module = optimize_text(text, &options.pipeline, options)?;
    Ok(rxla_jit::compile(&module, &options.compile)?)
}
