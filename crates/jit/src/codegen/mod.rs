//! Code generation with Cranelift: one JIT module per executable, holding
//! every kernel. A kernel computes the root of a computation (a fusion's
//! fused computation, or one instruction of a host computation) over its
//! whole output as one loop nest (`kernel`) or as a whole-op kernel
//! (`whole`, `scan`, `scatter`); this file picks the builder and retries
//! with fewer vector forms. The per-element expressions are the emitter's
//! (`emit` the core state, `dispatch` the op match, one file per lowering
//! family). See docs/ARCHITECTURE.md for the layering.

pub mod approx;
pub mod assemble;
pub mod bitcast;
pub mod blocks;
pub mod columns;
pub mod conv;
pub mod dispatch;
pub mod divconst;
pub mod dot;
pub mod elementwise;
pub mod emit;
pub mod gather;
pub mod ivector;
pub mod jit;
pub mod kernel;
pub mod libcalls;
pub mod movement;
pub mod program;
pub mod ranges;
pub mod reduce;
pub mod reduce_precision;
pub mod regions;
pub mod repr;
pub mod rowcheck;
pub mod scalar;
pub mod scan;
pub mod scatter;
pub mod vector;
pub mod whole;
pub mod window;

use crate::error::{JitError, Result};
use crate::options::CompileStats;
use cranelift_frontend::FunctionBuilderContext;
use cranelift_module::Module as _;
use rxla_ir::{Module, Op, Shape};

pub use jit::{Code, Jit, KernelFn, KernelMeta, KernelSpec};
pub use kernel::small_minor;

impl Jit {
    /// Compiles one kernel, trying the vectorized forms first. An
    /// `Unsupported` error means the caller should use another path.
    pub fn compile(
        &mut self,
        module: &Module,
        spec: &KernelSpec,
        stats: &mut CompileStats,
    ) -> Result<KernelMeta> {
        let attempts: &[(bool, bool)] = if self.opts.vectorize {
            &[(true, true), (false, true), (false, false)]
        } else {
            &[(false, false)]
        };
        let mut why = String::new();
        for &(vo, vr) in attempts {
            let mut regions = false;
            match build(self, module, spec, vo, vr, &mut regions) {
                Ok((outer, elements, vectorized)) => {
                    let index = self.define(spec, stats)?;
                    stats.kernels += 1;
                    if regions {
                        stats.region_kernels += 1;
                    }
                    if vectorized {
                        stats.vectorized_kernels += 1;
                    }
                    return Ok(KernelMeta {
                        index,
                        outer,
                        elements,
                        vectorized,
                    });
                }
                Err(JitError::Unsupported(m)) => {
                    self.fctx = FunctionBuilderContext::new();
                    self.jm.clear_context(&mut self.ctx);
                    if std::env::var("RXLA_WHY").is_ok() {
                        eprintln!("unsupported ({vo},{vr}): {m}");
                    }
                    why = m;
                }
                Err(e) => {
                    self.fctx = FunctionBuilderContext::new();
                    self.jm.clear_context(&mut self.ctx);
                    return Err(e);
                }
            }
        }
        Err(JitError::Unsupported(why))
    }
}

/// Builds the kernel of `spec` into `jit.ctx`: a whole-op kernel for
/// prefix reduce-windows (`scan`), variadic reduce keeping the minor
/// dimension (`columns`), variadic reduce and reduce-window (`whole`),
/// scatter and select-and-scatter (`scatter`), data-movement roots cut
/// into regions (`assemble`), else the ordinary loop nest (`kernel`).
/// Returns (outer extent, output elements, vectorized); `regions` says
/// whether the region kernel was built.
fn build(
    jit: &mut Jit,
    module: &Module,
    spec: &KernelSpec,
    vec_outer: bool,
    vec_reduce: bool,
    regions: &mut bool,
) -> Result<(i64, usize, bool)> {
    let root = module.comp(spec.comp).get(spec.root);
    match &root.op {
        Op::ReduceWindow { .. } if scan::prefix_dim(module, spec.comp, spec.root).is_some() => {
            scan::scan(jit, module, spec)
        }
        Op::Reduce { .. } if columns::applies(module, spec) => columns::build(jit, module, spec),
        Op::Reduce { .. } | Op::ReduceWindow { .. } if matches!(root.shape, Shape::Tuple(_)) => {
            whole::variadic(jit, module, spec)
        }
        Op::Scatter { .. } => scatter::scatter(jit, module, spec, vec_outer),
        Op::SelectAndScatter { .. } => scatter::select_and_scatter(jit, module, spec),
        _ => {
            if let Some(dec) = region_plan(jit, module, spec) {
                match assemble::build(jit, module, spec, &dec, vec_outer, vec_reduce) {
                    Err(JitError::Unsupported(_)) => {
                        jit.fctx = FunctionBuilderContext::new();
                        jit.jm.clear_context(&mut jit.ctx);
                    }
                    r => {
                        *regions = r.is_ok();
                        return r;
                    }
                }
            }
            kernel::build(jit, module, spec, vec_outer, vec_reduce)
        }
    }
}

/// The regions of a data-movement root worth a region kernel
/// (`assemble.rs`), if the options allow it.
fn region_plan(jit: &Jit, module: &Module, spec: &KernelSpec) -> Option<regions::Decomposition> {
    if !jit.opts.region_copies {
        return None;
    }
    let comp = module.comp(spec.comp);
    let out = comp.get(spec.root).shape.as_array().ok()?;
    // Pieces of a minor dim of 2 are scalar columns; the kernel's pair
    // loops interleave them 4 pairs at a time.
    if kernel::small_minor(out) {
        return None;
    }
    let is_input = |id| spec.inputs.iter().any(|(i, _)| *i == id);
    let dec = regions::decompose(comp, spec.root, &out.dims, &is_input)?;
    assemble::worth_it(&dec, spec, module).then_some(dec)
}
