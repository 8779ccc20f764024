//! The compiled program: `compile` plans and JIT-compiles a module once;
//! an [`Executable`] runs it many times, on literals (`run`) or on the
//! caller's physical buffers (`run_into`, zero-copy for the root). Its
//! internal buffers are allocated on the first run and reused. It is
//! `Send + Sync`: concurrent runs each get their own buffers. A module with
//! bounded dynamic dimensions has no native code: with the interpreter
//! fallback allowed it runs whole on the reference evaluator (`run` only),
//! else `compile` refuses it.

use crate::codegen::{Code, Jit};
use crate::error::{JitError, Result};
use crate::options::{CompileOptions, CompileStats};
use crate::plan::{Planner, Program, leaf_bytes};
use crate::runtime::collective::ReplicaRun;
use crate::runtime::{Ctx, Leaf, Leaves, ProgState, run_program};
use rxla_eval::RunOptions;
use rxla_eval::collectives::Collectives;
use rxla_eval::kernels::rng::RngState;
use rxla_ir::{ArrayLiteral, Literal, Module, Shape};
use std::sync::Mutex;

/// A module compiled by the JIT.
pub struct Executable {
    code: Code,
    program: Program,
    stats: CompileStats,
    params: Vec<Shape>,
    result: Shape,
    entry_result: Shape,
    state: Mutex<Option<ProgState>>,
    /// Buffer bytes and nesting depth of the plan.
    budget: crate::budget::PlanBudget,
    /// Computation names by index (messages of the runtime).
    comp_names: Vec<String>,
    /// Worker pool shared by every Executable with the same thread count
    /// (`shared_pool`): compiling never spawns threads after the first.
    pool: Option<std::sync::Arc<rayon::ThreadPool>>,
    threads: usize,
    /// The module's `replica_count` (1 when not declared).
    replicas: usize,
    /// The `replica_count` attribute, when the module declares one.
    declared_replicas: Option<usize>,
    /// The module's `num_partitions` (1 when not declared).
    partitions: usize,
    /// The `num_partitions` attribute, when the module declares one.
    declared_partitions: Option<usize>,
    /// Every all-reduce's name and `replica_groups` (checked against the
    /// replica count at the start of a replicated run).
    replica_groups: Vec<(String, rxla_ir::ReplicaGroups)>,
    /// The module, kept when it has collectives the native replicated
    /// path does not run (see `CompileStats::collectives`): multi-device
    /// runs evaluate it.
    eval_module: Option<Box<Module>>,
    /// No collective needs the evaluator (see `evaluator_reason`).
    stats_collectives_native: bool,
    /// The module, when it has dynamic dimensions: every run evaluates it
    /// (see [`dynamic_reason`]).
    dynamic_module: Option<Box<Module>>,
}

/// The first instruction (or ENTRY layout) with a bounded dynamic
/// dimension, as `computation/instruction (shape)`. (A get-dimension-size
/// of a static value is an ordinary interpreter fallback.)
pub fn dynamic_reason(module: &Module) -> Option<String> {
    let instr = module.computations.iter().find_map(|c| {
        c.instructions
            .iter()
            .find(|i| i.shape.is_dynamic())
            .map(|i| format!("{}/{} ({})", c.name, i.name, i.shape.to_string_no_layout()))
    });
    instr.or_else(|| {
        module
            .entry_layout
            .as_ref()
            .filter(|l| l.result.is_dynamic() || l.parameters.iter().any(Shape::is_dynamic))
            .map(|_| "entry_computation_layout".to_string())
    })
}

/// A module with dynamic dimensions: refused without the interpreter
/// fallback, else an Executable that evaluates it whole.
fn compile_dynamic(module: &Module, opts: &CompileOptions, why: String) -> Result<Executable> {
    if !opts.allow_interpreter_fallback {
        return Err(JitError::unsupported(format!(
            "{why}: dynamic dimensions have no native code (allow the interpreter fallback to run the module on the evaluator)"
        )));
    }
    let placeholder = rxla_ir::parse_module(
        "HloModule dynamic\nENTRY e {\n  ROOT c = s32[] constant(0)\n}\n",
        "<dynamic placeholder>",
    )
    .map_err(|e| JitError::input(e.to_string()))?;
    let mut exe = compile_shallow(&placeholder, opts)?;
    let entry = module.entry_computation();
    exe.params = entry
        .parameters()
        .into_iter()
        .map(|p| entry.get(p).shape.clone())
        .collect();
    exe.result = entry.root_instruction().shape.clone();
    exe.entry_result = exe.result.clone();
    exe.stats = CompileStats {
        fallbacks: vec![format!(
            "{why}: dynamic dimensions (the whole module runs on the evaluator)"
        )],
        isa: exe.stats.isa.clone(),
        ..CompileStats::default()
    };
    exe.replicas = module.replica_count().max(1) as usize;
    exe.declared_replicas = module
        .attr("replica_count")
        .map(|_| module.replica_count().max(0) as usize);
    exe.partitions = module.num_partitions().max(1) as usize;
    exe.declared_partitions = module
        .attr("num_partitions")
        .map(|_| module.num_partitions().max(0) as usize);
    exe.eval_module = Some(Box::new(module.clone()));
    exe.stats_collectives_native = false;
    exe.dynamic_module = Some(Box::new(module.clone()));
    Ok(exe)
}

/// Why a multi-device run of `module` goes to the evaluator (`None`: the
/// native all-reduce path runs it, or there are no collectives).
fn evaluator_reason(module: &Module) -> Option<String> {
    module
        .computations
        .iter()
        .flat_map(|c| &c.instructions)
        .find_map(|i| match &i.op {
            rxla_ir::Op::AllReduce { attrs, .. }
                if attrs.channel_id.is_none() && !attrs.use_global_device_ids =>
            {
                None
            }
            rxla_ir::Op::AllReduce { .. } => {
                Some(format!("{} (all-reduce with a channel)", i.name))
            }
            op if op.is_collective() => Some(format!("{} ({})", i.name, op.opcode())),
            _ => None,
        })
}

/// The backend pipeline [`compile`] runs on a copy of the module before
/// planning (`rxla_passes::pipeline::JIT_BACKEND`, the `jit-backend` named
/// pipeline), without verification after each pass (the passes are tested;
/// compile time matters). A caller that wants to watch it (print the IR
/// after each pass, dump it) runs this manager itself with its
/// instrumentation added, then compiles the result with
/// `CompileOptions::fusion` off, which skips it here: `rxla run` does so.
pub fn backend_passes() -> Result<rxla_passes::PassManager> {
    let mut pm = rxla_passes::PassManager::from_text(
        rxla_passes::pipeline::JIT_BACKEND,
        &rxla_passes::Registry::standard(),
    )
    .map_err(|e| JitError::input(format!("backend pipeline: {e}")))?;
    pm.set_verify(false);
    Ok(pm)
}

/// Compiles `module` (its ENTRY computation and everything it calls).
pub fn compile(module: &Module, opts: &CompileOptions) -> Result<Executable> {
    if module.computations.get(module.entry.index()).is_none() {
        return Err(JitError::input("the module has no ENTRY computation"));
    }
    // The planner recurses per nesting level: refuse what is too deep and
    // plan deep modules on a thread with a stack sized for their depth.
    let depth =
        rxla_eval::limits::check_depth(module).map_err(|e| JitError::limit(e.to_string()))?;
    rxla_eval::limits::with_stack(
        depth,
        |e| Err(JitError::input(e)),
        || compile_shallow(module, opts),
    )
}

/// Data moved to a worker thread (`limits::with_stack`) while its owner
/// waits for the thread: raw buffer pointers stay valid and unshared.
struct SendCell<T>(T);
// SAFETY: the owner blocks until the worker is joined; no other thread
// touches the data meanwhile.
unsafe impl<T> Send for SendCell<T> {}

fn compile_shallow(module: &Module, opts: &CompileOptions) -> Result<Executable> {
    if let Some(why) = dynamic_reason(module) {
        return compile_dynamic(module, opts, why);
    }
    let given = module;
    // Packed narrow layouts (E(4)) exist only at the run_into boundary:
    // the plan sees one byte per element (packing.rs).
    let unpacked;
    let module = if crate::packing::any_packed(module) {
        let mut m = module.clone();
        crate::packing::strip(&mut m);
        unpacked = m;
        &unpacked
    } else {
        module
    };
    let original = module;
    let fused;
    let module = if opts.fusion {
        let mut m = module.clone();
        backend_passes()?
            .run(&mut m)
            .map_err(|e| JitError::input(format!("backend pipeline: {e}")))?;
        fused = m;
        &fused
    } else {
        module
    };
    let mut planner = Planner {
        module,
        jit: Jit::new(opts)?,
        stats: CompileStats::default(),
        opts: opts.clone(),
        row_local: Default::default(),
        owned_params: Vec::new(),
    };
    let program = planner.program(module.entry)?;
    let budget = crate::budget::measure(module, &program);
    let code = planner.jit.finish()?;
    let entry = module.entry_computation();
    let given_entry = given.entry_computation();
    let given_params = given_entry.parameters();
    let params: Vec<Shape> = entry
        .parameters()
        .into_iter()
        .enumerate()
        .map(|(k, p)| {
            let internal = &entry.get(p).shape;
            match given_params.get(k) {
                Some(&g) => crate::packing::external(internal, &given_entry.get(g).shape),
                None => internal.clone(),
            }
        })
        .collect();
    let result = crate::packing::external(
        &entry.root_instruction().shape,
        &given_entry.root_instruction().shape,
    );
    let entry_result = given
        .entry_layout
        .as_ref()
        .map(|l| l.result.clone())
        .filter(|r| r.compatible(&result))
        .unwrap_or_else(|| result.clone());
    let threads = opts.resolved_threads();
    let pool = if threads > 1 {
        shared_pool(threads)
    } else {
        None
    };
    let mut stats = planner.stats;
    let has_collectives = module
        .computations
        .iter()
        .flat_map(|c| &c.instructions)
        .any(|i| i.op.is_collective());
    let why = evaluator_reason(original);
    stats.collectives = match (&why, has_collectives) {
        (_, false) => String::new(),
        (None, true) => "native".to_string(),
        (Some(w), true) => format!("evaluator: {w}"),
    };
    stats.isa = format!(
        "gemm {}, element math {}",
        rxla_gemm::isa_name().unwrap_or("invalid RXLA_ISA"),
        if opts.wide_math && crate::wide::available() {
            "avx512"
        } else {
            "128-bit"
        }
    );
    Ok(Executable {
        code,
        program,
        budget,
        comp_names: module.computations.iter().map(|c| c.name.clone()).collect(),
        stats,
        params,
        result,
        entry_result,
        state: Mutex::new(None),
        pool,
        threads,
        replicas: module.replica_count().max(1) as usize,
        declared_replicas: module
            .attr("replica_count")
            .map(|_| module.replica_count().max(0) as usize),
        replica_groups: module
            .computations
            .iter()
            .flat_map(|c| &c.instructions)
            .filter_map(|i| match &i.op {
                rxla_ir::Op::AllReduce { attrs, .. } => {
                    Some((i.name.clone(), attrs.replica_groups.clone()))
                }
                _ => None,
            })
            .collect(),
        partitions: module.num_partitions().max(1) as usize,
        declared_partitions: module
            .attr("num_partitions")
            .map(|_| module.num_partitions().max(0) as usize),
        eval_module: has_collectives.then(|| Box::new(original.clone())),
        stats_collectives_native: why.is_none(),
        dynamic_module: None,
    })
}

impl Executable {
    /// What the compiler did (kernels, fallbacks, kept IR text).
    pub fn stats(&self) -> &CompileStats {
        &self.stats
    }

    /// ENTRY parameter shapes (the layouts `run_into` buffers must have).
    pub fn parameter_shapes(&self) -> &[Shape] {
        &self.params
    }

    /// The result shape (the layouts `run_into` writes).
    pub fn result_shape(&self) -> &Shape {
        &self.result
    }

    /// Runs on literals with default run options.
    pub fn run(&self, args: &[Literal]) -> Result<Literal> {
        self.run_with(args, &RunOptions::default())
    }

    /// Runs on literals; `opts` gives the infeed queue and collects
    /// outfeed values, seeds `rng`, holds the custom-call registry. One
    /// replica only: a replica count above 1 is an error (see
    /// [`Executable::run_replicated`]).
    pub fn run_with(&self, args: &[Literal], opts: &RunOptions) -> Result<Literal> {
        self.check_single(opts)?;
        self.run_literals(args, opts, None)
    }

    /// Runs the module once per device of a replicas × partitions grid,
    /// each on its own thread with its own arguments
    /// (`args_per_device[d]`, `d = replica · partitions + partition`), and
    /// returns one result per device. The grid follows
    /// `rxla_eval::device_grid` (partitions: `opts.partition_count`, else
    /// the module's `num_partitions`, else 1; replicas:
    /// `opts.replica_count`, else the lists per partition; declared counts
    /// must agree). Cross-replica `all-reduce`s on one partition run
    /// natively: the replicas' values are exchanged and folded in group
    /// order with the compiled reducer (replica r's rng seeded with
    /// `seed ^ r·0x9E3779B97F4A7C15`). Any other collective, a channel, or
    /// several partitions: the run is `rxla_eval::evaluate_replicated` on
    /// the module (`stats().collectives` says which).
    pub fn run_replicated(
        &self,
        args_per_replica: &[Vec<Literal>],
        opts: &RunOptions,
    ) -> Result<Vec<Literal>> {
        let p = opts.partition_count.unwrap_or(self.partitions);
        if p == 0 {
            return Err(JitError::input("the partition count must be at least 1"));
        }
        let r = opts.replica_count.unwrap_or(args_per_replica.len() / p);
        if r == 0 || r.checked_mul(p) != Some(args_per_replica.len()) {
            return Err(JitError::input(format!(
                "{r} replica(s) × {p} partition(s) but {} argument list(s) (one per device)",
                args_per_replica.len()
            )));
        }
        if self.declared_replicas.is_some_and(|d| d != r) {
            return Err(JitError::input(format!(
                "the module declares replica_count={} but {r} replicas were requested",
                self.replicas
            )));
        }
        if self.declared_partitions.is_some_and(|d| d != p) {
            return Err(JitError::input(format!(
                "the module declares num_partitions={} but {p} partitions were requested",
                self.partitions
            )));
        }
        if let Some(m) = &self.eval_module
            && (p > 1 || !self.stats_collectives_native)
        {
            let o = RunOptions {
                seed: opts.seed,
                max_while_iterations: opts.max_while_iterations,
                replica_count: Some(r),
                partition_count: Some(p),
                custom_calls: opts.custom_calls.clone(),
                max_elements: opts.max_elements,
                max_memory: opts.max_memory,
                max_total_iterations: opts.max_total_iterations,
                deadline: opts.deadline,
                ..RunOptions::default()
            };
            {
                let mut q = o.infeed.lock().unwrap_or_else(|e| e.into_inner());
                let mut src = opts.infeed.lock().unwrap_or_else(|e| e.into_inner());
                std::mem::swap(&mut *q, &mut *src);
            }
            let out = rxla_eval::evaluate_replicated(m, args_per_replica, &o);
            {
                let mut q = o.infeed.lock().unwrap_or_else(|e| e.into_inner());
                let mut src = opts.infeed.lock().unwrap_or_else(|e| e.into_inner());
                std::mem::swap(&mut *q, &mut *src);
                let mut outf = o.outfeed.lock().unwrap_or_else(|e| e.into_inner());
                opts.outfeed
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .append(&mut outf);
            }
            return out.map_err(|e| JitError::input(e.to_string()));
        }
        let n = r * p;
        for (name, groups) in &self.replica_groups {
            rxla_eval::collectives::check_groups(name, groups, n)
                .map_err(|e| JitError::input(e.to_string()))?;
        }
        let coll = Collectives::new(n);
        /// Marks a replica finished (also when it fails or panics), so no
        /// peer waits for it forever.
        struct Finish<'c>(&'c Collectives, usize);
        impl Drop for Finish<'_> {
            fn drop(&mut self) {
                self.0.finish(self.1);
            }
        }
        let results: Vec<Result<Literal>> = std::thread::scope(|s| {
            let handles: Vec<_> = args_per_replica
                .iter()
                .enumerate()
                .map(|(id, args)| {
                    let coll = &coll;
                    s.spawn(move || {
                        let _done = Finish(coll, id);
                        let replica = ReplicaRun {
                            id,
                            collectives: coll,
                            seq: Mutex::new(0),
                        };
                        self.run_literals(args, opts, Some(replica))
                    })
                })
                .collect();
            handles
                .into_iter()
                .enumerate()
                .map(|(id, h)| {
                    h.join()
                        .unwrap_or_else(|_| Err(JitError::input(format!("replica {id} panicked"))))
                })
                .collect()
        });
        results
            .into_iter()
            .enumerate()
            .map(|(id, r)| r.map_err(|e| JitError::input(format!("replica {id}: {e}"))))
            .collect()
    }

    /// Refuses a replicated run of the single-replica entry points.
    fn check_single(&self, opts: &RunOptions) -> Result<()> {
        let replicas = opts.replica_count.unwrap_or(self.replicas);
        if replicas > 1 {
            return Err(JitError::unsupported(format!(
                "the module runs on {replicas} replicas: use Executable::run_replicated"
            )));
        }
        let partitions = opts.partition_count.unwrap_or(self.partitions);
        if partitions > 1 {
            return Err(JitError::unsupported(format!(
                "the module runs on {partitions} partitions: use Executable::run_replicated"
            )));
        }
        Ok(())
    }

    /// Buffer bytes a run needs: the plan's step buffers, the arguments
    /// and the result.
    pub fn planned_bytes(&self) -> u64 {
        let io: u64 = self
            .params
            .iter()
            .chain(std::iter::once(&self.result))
            .map(rxla_eval::limits::shape_bytes)
            .fold(0, u64::saturating_add);
        self.budget.bytes.saturating_add(io)
    }

    /// Fails before anything is allocated when the run would need more
    /// than `opts.max_memory` bytes.
    fn check_memory(&self, opts: &RunOptions) -> Result<()> {
        let need = self.planned_bytes();
        if need > opts.max_memory {
            let result = rxla_eval::limits::shape_bytes(&self.result);
            let (bytes, name) = match &self.budget.largest {
                (b, n) if *b >= result => (*b, n.as_str()),
                _ => (result, "the result"),
            };
            return Err(JitError::limit(format!(
                "the run needs {need} bytes of buffers (largest: {name}, {bytes} bytes), more than max_memory ({} bytes)",
                opts.max_memory
            )));
        }
        Ok(())
    }

    /// `run_with` as replica `replica` (none: a single-replica run).
    fn run_literals(
        &self,
        args: &[Literal],
        opts: &RunOptions,
        replica: Option<ReplicaRun>,
    ) -> Result<Literal> {
        if let Some(m) = &self.dynamic_module {
            if replica.is_some() {
                return Err(JitError::unsupported(
                    "a module with dynamic dimensions runs replicated on the evaluator only",
                ));
            }
            return Ok(rxla_eval::evaluate(m, args, opts)?);
        }
        if args.len() != self.params.len() {
            return Err(JitError::input(format!(
                "expected {} argument(s), got {}",
                self.params.len(),
                args.len()
            )));
        }
        self.check_memory(opts)?;
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for (k, (a, p)) in args.iter().zip(&self.params).enumerate() {
            if !a.shape().compatible(p) {
                return Err(JitError::input(format!(
                    "argument {k} has shape {}, expected {}",
                    a.shape().to_string_no_layout(),
                    p.to_string_no_layout()
                )));
            }
            let a = a.relayout_to(p)?;
            for l in a.leaves() {
                inputs.push(if l.shape.element_type.is_token() {
                    Vec::new()
                } else {
                    l.to_physical_bytes()?
                });
            }
        }
        let sizes = leaf_bytes(&self.result)?;
        self.check_memory(opts)?;
        let mut outs: Vec<Vec<u8>> = sizes.iter().map(|&n| vec![0u8; n]).collect();
        {
            let ins: Vec<&[u8]> = inputs.iter().map(|v| v.as_slice()).collect();
            let mut o: Vec<&mut [u8]> = outs.iter_mut().map(|v| v.as_mut_slice()).collect();
            self.run_buffers(&ins, &mut o, opts, replica)?;
        }
        let mut pos = 0;
        let refs: Vec<&[u8]> = outs.iter().map(|v| v.as_slice()).collect();
        let lit = crate::fallback::literal_from_leaves(&self.result, &refs, &mut pos)?;
        Ok(lit.relayout_to(&self.entry_result).unwrap_or(lit))
    }

    /// Runs on physical buffers: one input per leaf of the parameters (in
    /// order, in the parameter layouts), one output per leaf of the result.
    pub fn run_into(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<()> {
        self.run_into_with(inputs, outputs, &RunOptions::default())
    }

    /// `run_into` with run options.
    pub fn run_into_with(
        &self,
        inputs: &[&[u8]],
        outputs: &mut [&mut [u8]],
        opts: &RunOptions,
    ) -> Result<()> {
        self.check_single(opts)?;
        self.run_buffers(inputs, outputs, opts, None)
    }

    /// `run_into_with` as replica `replica` (none: a single-replica run).
    fn run_buffers(
        &self,
        inputs: &[&[u8]],
        outputs: &mut [&mut [u8]],
        opts: &RunOptions,
        replica: Option<ReplicaRun>,
    ) -> Result<()> {
        if self.dynamic_module.is_some() {
            return Err(JitError::unsupported(
                "run_into: the module has dynamic dimensions (results have runtime sizes); use run",
            ));
        }
        // Lengths first, then packed leaves (E(4) layouts) are staged
        // through one-byte-per-element temporaries (packing.rs).
        let mut k = 0;
        for (pi, p) in self.params.iter().enumerate() {
            for n in leaf_bytes(p)? {
                let b = inputs.get(k).ok_or_else(|| {
                    JitError::input(format!("missing input buffer {k} (parameter {pi})"))
                })?;
                if b.len() != n {
                    return Err(JitError::input(format!(
                        "input buffer {k} has {} bytes, parameter {pi} needs {n}",
                        b.len()
                    )));
                }
                k += 1;
            }
        }
        if k != inputs.len() {
            return Err(JitError::input(format!(
                "{} input buffers, expected {k}",
                inputs.len()
            )));
        }
        let sizes = leaf_bytes(&self.result)?;
        if outputs.len() != sizes.len() || outputs.iter().zip(&sizes).any(|(o, &n)| o.len() != n) {
            return Err(JitError::input(format!(
                "output buffers must be {sizes:?} bytes, got {:?}",
                outputs.iter().map(|o| o.len()).collect::<Vec<_>>()
            )));
        }
        let param_leaves: Vec<&rxla_ir::ArrayShape> =
            self.params.iter().flat_map(|p| p.leaves()).collect();
        let mut staging =
            crate::packing::Staging::new(inputs, &param_leaves, &self.result.leaves())?;
        let staged_in: Vec<&[u8]> = inputs
            .iter()
            .zip(&staging.inputs)
            .map(|(b, s)| s.as_deref().unwrap_or(b))
            .collect();
        // The lengths were checked above; a staged (unpacked) buffer has
        // its leaf's one-byte-per-element size by construction.
        let mut staged = staged_in.iter();
        let mut args: Vec<Leaves> = Vec::with_capacity(self.params.len());
        for p in &self.params {
            let leaves: Vec<Leaf> = p
                .leaves()
                .iter()
                .map(|_| {
                    let b = staged
                        .next()
                        .ok_or_else(|| JitError::codegen("staged input count"))?;
                    Ok(Leaf {
                        ptr: b.as_ptr() as *mut u8,
                        len: b.len(),
                    })
                })
                .collect::<Result<_>>()?;
            args.push(leaves.into());
        }
        let out_leaves: Leaves = outputs
            .iter_mut()
            .zip(staging.outputs.iter_mut())
            .map(|(o, t)| {
                let o: &mut [u8] = match t {
                    Some((_, t)) => t.as_mut_slice(),
                    None => o,
                };
                Leaf {
                    ptr: o.as_mut_ptr(),
                    len: o.len(),
                }
            })
            .collect();
        let ctx = Ctx {
            fns: &self.code.fns,
            opts,
            pool: self.pool.as_deref(),
            threads: self.threads,
            rng: Mutex::new(RngState::new(
                opts.seed
                    ^ replica
                        .as_ref()
                        .map_or(0, |r| (r.id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            )),
            replica,
            iterations: Default::default(),
            comp_names: &self.comp_names,
        };
        self.check_memory(opts)?;
        let mut guard = self.state.try_lock().ok();
        let mut local = ProgState::default();
        let state: &mut ProgState = match guard.as_deref_mut() {
            Some(slot) => slot.get_or_insert_with(ProgState::default),
            None => &mut local,
        };
        // Nested programs recurse: deep plans run on a sized stack.
        let work = SendCell((&ctx, &self.program, state, &args, &out_leaves));
        let root = rxla_eval::limits::with_stack(
            self.budget.depth,
            |e| SendCell(Err(JitError::input(e))),
            move || {
                let w = work;
                let (ctx, program, state, args, out_leaves) = w.0;
                SendCell(run_program(ctx, program, state, args, Some(out_leaves)))
            },
        )
        .0?;
        for (r, o) in root.iter().zip(&out_leaves) {
            if r.ptr != o.ptr && o.len > 0 {
                // SAFETY: distinct live buffers; lengths checked against the result shape.
                unsafe { std::ptr::copy(r.ptr, o.ptr, o.len.min(r.len)) };
            }
        }
        staging.finish(outputs)?;
        Ok(())
    }
}

/// Reads a result leaf written by `run_into` (helper for tests).
pub fn leaf_literal(shape: &rxla_ir::ArrayShape, bytes: &[u8]) -> Result<Literal> {
    Ok(Literal::Array(ArrayLiteral::from_physical_bytes(
        shape.clone(),
        bytes,
    )?))
}

/// The process-wide worker pool of `threads` threads, built on first use
/// and kept for the life of the process (a pool per Executable spawned and
/// tore down threads on every compile). `None` if the pool cannot be built.
fn shared_pool(threads: usize) -> Option<std::sync::Arc<rayon::ThreadPool>> {
    use std::collections::HashMap;
    use std::sync::{Arc, OnceLock};
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();
    let mut pools = POOLS
        .get_or_init(|| Mutex::new(HashMap::new()))
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(p) = pools.get(&threads) {
        return Some(Arc::clone(p));
    }
    let pool = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(move |i| format!("rxla-jit-{threads}-{i}"))
            .build()
            .ok()?,
    );
    pools.insert(threads, Arc::clone(&pool));
    Some(pool)
}
