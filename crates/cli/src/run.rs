//! `rxla run FILE|-`: evaluate a module with a backend (the JIT or the
//! reference interpreter) on arguments from JSON, .npy files, one .npz
//! archive or `--random-args=SEED` (the generator's tame values,
//! `rxla_fuzzgen::values::tame_args`), on one device or a replicas ×
//! partitions grid, optionally after a pass pipeline (with the IR
//! debugging flags of `irdebug.rs`), and print the results as HLO literal
//! text or corpus-style JSON, or write them as .npy files or one .npz
//! archive. `--time N` reports the median/min/max of N timed runs after a
//! warm-up; `--emit clif|asm` prints the JIT's kernels instead of running.
//! A thin client: no value generation or compiler logic here.

use crate::{Failure, input, npy};
use clap::{Args, ValueEnum};
use rxla_eval::RunOptions;
use rxla_ir::{ArrayLiteral, Literal, Module};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// The reference evaluator.
    Interp,
    /// The Cranelift JIT (instructions without native code run on the
    /// interpreter, one at a time).
    Jit,
}

/// What `--emit` prints instead of running.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// The Cranelift IR of every JIT kernel.
    Clif,
    /// The machine code of every JIT kernel.
    Asm,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// HLO literal text, one result per line.
    Text,
    /// One JSON object `{"outputs": [{"dtype","shape","data"}, ...]}`.
    Json,
}

#[derive(Args)]
pub struct RunArgs {
    /// HLO text file, or `-` for stdin.
    pub file: String,
    /// Execution backend: the Cranelift JIT (compiled after the O2 pipeline
    /// unless --passes/--pipeline say otherwise) or the reference interpreter
    /// (runs the module as written unless told to optimize). Without this
    /// flag the JIT is used, and if it cannot compile a module the
    /// interpreter runs it instead (with a warning on stderr); an error
    /// while running, or a resource limit, is reported, never re-run. With
    /// `--backend jit` a compile failure is an error too.
    #[arg(long, value_enum)]
    pub backend: Option<Backend>,
    /// Arguments as corpus JSON: `{"inputs": [{"dtype","shape","data"}, ...]}`.
    #[arg(long, value_name = "F")]
    pub args_json: Option<String>,
    /// One .npy file per parameter, in parameter order (C or Fortran order).
    #[arg(long = "arg", value_name = "X.npy")]
    pub npy_args: Vec<PathBuf>,
    /// Arguments as one .npz archive (`np.savez`/`np.savez_compressed`):
    /// parameter N is the array `arr_N` (what `np.savez(f, a, b)` writes),
    /// else the array named like the ENTRY's parameter instruction
    /// (`np.savez(f, x=..., y=...)`); an array matching no parameter is an
    /// error.
    #[arg(long, value_name = "F.npz")]
    pub args_npz: Option<PathBuf>,
    /// Fill every parameter deterministically from SEED (default 0; the
    /// seed needs `=`: `--random-args=7`, so `--random-args FILE` reads FILE).
    #[arg(
        long,
        value_name = "SEED",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "0"
    )]
    pub random_args: Option<u64>,
    /// Values for `infeed`, in order (.npy files).
    #[arg(long = "infeed", value_name = "F.npy")]
    pub infeed: Vec<PathBuf>,
    /// Number of replicas (collectives run across them); every device
    /// gets the same arguments. Default: the module's `replica_count`.
    #[arg(long, value_name = "R")]
    pub replicas: Option<usize>,
    /// Number of partitions per replica (default: the module's
    /// `num_partitions`, else 1). The run has R×M devices, device
    /// `r·M + p`; each one's result is printed, labelled.
    #[arg(long, value_name = "M")]
    pub partitions: Option<usize>,
    /// Seed of the rng ops.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value = "text")]
    pub output: OutputFormat,
    /// Also write the outputs as DIR/0.npy, DIR/1.npy, ...
    #[arg(long, value_name = "DIR")]
    pub out_npy: Option<PathBuf>,
    /// Also write the outputs as one uncompressed .npz archive: the leaves
    /// of the result (a tuple gives several) as `arr_0`, `arr_1`, ... in
    /// order (`np.load(F)["arr_0"]`); with replicas, replica 0's leaves
    /// first, then replica 1's, ...
    #[arg(long, value_name = "F.npz")]
    pub out_npz: Option<PathBuf>,
    /// Run this pass pipeline first (see `rxla opt --help`).
    #[arg(long, value_name = "PIPELINE", conflicts_with = "pipeline")]
    pub passes: Option<String>,
    /// Run a named pipeline first (O0, O1, O2; default O2 with the JIT,
    /// none with the interpreter). With the JIT, the backend pipeline
    /// (`rxla opt --pipeline=jit-backend`) follows it in the same pass
    /// manager, so `--print-ir-*` and `--dump-dir` show what is compiled.
    #[arg(long, value_name = "NAME")]
    pub pipeline: Option<String>,
    #[command(flatten)]
    pub ir: crate::irdebug::IrDebugArgs,
    /// Time N runs after a warm-up and report median/min/max (with
    /// `--output json`, stdout is `{"timing": ...}`).
    #[arg(long, value_name = "N")]
    pub time: Option<usize>,
    /// With `--time` and `--output json`, include the outputs too.
    #[arg(long)]
    pub print_outputs: bool,
    /// Threads (accepted for command-line compatibility with the JIT; the
    /// interpreter runs on one thread).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// With the JIT: print the kernels' Cranelift IR or assembly and exit.
    #[arg(long, value_enum)]
    pub emit: Option<Emit>,
    /// Memory budget of the run in bytes: the JIT's buffers or the
    /// interpreter's live values beyond it are an error before they are
    /// allocated (default: half the physical memory).
    #[arg(long, value_name = "BYTES")]
    pub max_memory: Option<u64>,
    /// Stop the run with an error after this many seconds (checked at every
    /// loop iteration and instruction; a watchdog ends the process shortly
    /// after when a single long step does not return).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Loop iterations a run may execute, all `while` loops together.
    #[arg(long, value_name = "N", default_value_t = rxla_eval::options::DEFAULT_MAX_TOTAL_ITERATIONS)]
    pub max_iterations: u64,
    /// When the run must end (from `--timeout`).
    #[arg(skip)]
    pub deadline: Option<Instant>,
}

fn gather_args(args: &RunArgs, module: &Module) -> Result<Vec<Literal>, Failure> {
    let sig = module.entry_program_shape();
    let sources = [
        args.args_json.is_some(),
        !args.npy_args.is_empty(),
        args.args_npz.is_some(),
        args.random_args.is_some(),
    ]
    .iter()
    .filter(|&&b| b)
    .count();
    if sources > 1 {
        return Err(Failure::usage(
            "give arguments one way: --args-json, --arg (repeated), --args-npz or --random-args",
        ));
    }
    if let Some(j) = &args.args_json {
        let t = j.trim_start();
        let text = if t.starts_with('{') || t.starts_with('[') {
            j.clone()
        } else {
            let bytes =
                input::read_file_limited(std::path::Path::new(j)).map_err(Failure::input)?;
            let text = String::from_utf8(bytes)
                .map_err(|_| Failure::input(format!("{j}: error: the file is not valid UTF-8")))?;
            let t = text.trim_start();
            if !(t.starts_with('{') || t.starts_with('[')) {
                return Err(Failure::input(format!(
                    "{j}: error: expected a JSON object or list"
                )));
            }
            text
        };
        return rxla_eval::json::read_inputs(&text)
            .map_err(|e| Failure::input(format!("{j}: {e}")));
    }
    if !args.npy_args.is_empty() {
        return args
            .npy_args
            .iter()
            .map(|p| npy::read_npy(p).map_err(Failure::input))
            .collect();
    }
    if let Some(path) = &args.args_npz {
        return npz_args(path, module);
    }
    if let Some(seed) = args.random_args {
        return rxla_fuzzgen::values::tame_args(module, seed).map_err(Failure::input);
    }
    if sig.parameters.is_empty() {
        return Ok(Vec::new());
    }
    Err(Failure::usage(format!(
        "the ENTRY takes {} parameter(s): give --args-json F, --arg X.npy per parameter, --args-npz F, or --random-args",
        sig.parameters.len()
    )))
}

/// The ENTRY's arguments from a .npz archive: parameter N is `arr_N`,
/// else the array named like the parameter instruction.
fn npz_args(path: &std::path::Path, module: &Module) -> Result<Vec<Literal>, Failure> {
    let name = path.display();
    let mut arrays: Vec<(String, Option<Literal>)> = npy::read_npz(path)
        .map_err(Failure::input)?
        .into_iter()
        .map(|(n, l)| (n, Some(l)))
        .collect();
    let entry = module.entry_computation();
    let mut params: Vec<(i64, &str)> = entry
        .instructions
        .iter()
        .filter_map(|i| match i.op {
            rxla_ir::Op::Parameter { number } => Some((number, i.name.as_str())),
            _ => None,
        })
        .collect();
    params.sort();
    let mut out = Vec::with_capacity(params.len());
    for (number, pname) in params {
        let positional = format!("arr_{number}");
        let slot = arrays
            .iter()
            .position(|(n, l)| *n == positional && l.is_some())
            .or_else(|| arrays.iter().position(|(n, l)| n == pname && l.is_some()));
        match slot.and_then(|k| arrays[k].1.take()) {
            Some(l) => out.push(l),
            None => {
                return Err(Failure::input(format!(
                    "{name}: error: no array for parameter {number} (`{pname}`): expected `{positional}` or `{pname}`; the archive has {}",
                    list_names(&arrays)
                )));
            }
        }
    }
    if let Some((extra, _)) = arrays.iter().find(|(_, l)| l.is_some()) {
        return Err(Failure::input(format!(
            "{name}: error: array `{extra}` matches no parameter of {} (parameters are taken as `arr_N` or by name)",
            module.name
        )));
    }
    Ok(out)
}

fn list_names(arrays: &[(String, Option<Literal>)]) -> String {
    if arrays.is_empty() {
        return "no arrays".to_string();
    }
    let names: Vec<String> = arrays.iter().map(|(n, _)| format!("`{n}`")).collect();
    crate::clip(&names.join(", "), 300)
}

/// Runs the chosen pipeline and, unless the interpreter was asked for,
/// the JIT's backend pipeline after it, in one pass manager (so the IR
/// dumps number and show every stage); `jit_compile` then skips the
/// backend passes. Returns whether the backend pipeline ran.
fn optimize(args: &RunArgs, module: &mut Module) -> Result<bool, Failure> {
    use rxla_passes::pipeline::{JIT_BACKEND, named_pipeline_text};
    let registry = rxla_passes::Registry::standard();
    args.ir.check(&registry).map_err(Failure::usage)?;
    let front = match (&args.passes, &args.pipeline, args.backend) {
        (Some(p), _, _) => Some(p.clone()),
        (None, Some(n), _) => Some(
            named_pipeline_text(n)
                .ok_or_else(|| {
                    // The manager's error lists the known names.
                    let e = rxla_passes::PassManager::named(n, &registry).err();
                    Failure::usage(e.map(|e| e.to_string()).unwrap_or_default())
                })?
                .to_string(),
        ),
        (None, None, Some(Backend::Interp)) => None,
        (None, None, _) => named_pipeline_text("O2").map(str::to_string),
    };
    let backend = args.backend != Some(Backend::Interp);
    // Parse the user's pipeline alone first: its errors point at its text.
    if let Some(text) = &front {
        rxla_passes::PassManager::from_text(text, &registry)
            .map_err(|e| Failure::usage(e.to_string()))?;
    }
    let text = match (front, backend) {
        (Some(f), true) if !f.trim().is_empty() => format!("{f},{JIT_BACKEND}"),
        (_, true) => JIT_BACKEND.to_string(),
        (Some(f), false) => f,
        (None, false) => return Ok(false),
    };
    let mut pm = rxla_passes::PassManager::from_text(&text, &registry)
        .map_err(|e| Failure::usage(e.to_string()))?;
    args.ir.instrument(&mut pm);
    pm.run(module).map_err(|e| Failure::input(e.to_string()))?;
    Ok(backend)
}

fn make_options(args: &RunArgs) -> Result<RunOptions, Failure> {
    let mut opts = RunOptions {
        seed: args.seed,
        replica_count: args.replicas,
        partition_count: args.partitions,
        max_total_iterations: args.max_iterations,
        deadline: args.deadline,
        ..RunOptions::default()
    };
    if let Some(m) = args.max_memory {
        opts.max_memory = m;
    }
    for p in &args.infeed {
        opts.push_infeed(npy::read_npy(p).map_err(Failure::input)?);
    }
    Ok(opts)
}

/// One execution: per-replica results (the JIT runs replicated modules
/// with one thread per replica, `Executable::run_replicated`).
fn execute(
    module: &Module,
    args: &[Literal],
    run: &RunArgs,
    exe: Option<&rxla_jit::Executable>,
) -> Result<Vec<Literal>, Failure> {
    let mut opts = make_options(run)?;
    let (replicas, partitions) = device_grid(module, run)?;
    let devices = replicas * partitions;
    if devices > 1 {
        opts.replica_count = Some(replicas);
        opts.partition_count = Some(partitions);
    }
    if let Some(exe) = exe {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if devices > 1 {
                let per: Vec<Vec<Literal>> = (0..devices).map(|_| args.to_vec()).collect();
                exe.run_replicated(&per, &opts)
            } else {
                exe.run_with(args, &opts).map(|l| vec![l])
            }
        }))
        .unwrap_or_else(|_| Err(rxla_jit::JitError::unsupported("the JIT panicked")));
        // A run that started is never repeated on the interpreter (its
        // effects and its time would be doubled): its error is the answer.
        return r.map_err(|e| Failure::input(format!("{}: error: {e}", module.name)));
    }
    let r = if devices > 1 {
        let per: Vec<Vec<Literal>> = (0..devices).map(|_| args.to_vec()).collect();
        rxla_eval::evaluate_replicated(module, &per, &opts)
    } else {
        rxla_eval::evaluate(module, args, &opts).map(|l| vec![l])
    };
    r.map_err(|e| Failure::input(format!("{}: error: {e}", module.name)))
}

/// Most devices (replicas × partitions) `rxla run` starts (one thread
/// each).
pub const MAX_REPLICAS: usize = 1024;

/// `(replicas, partitions)`: `--replicas`/`--partitions`, else the
/// module's `replica_count`/`num_partitions`; at most [`MAX_REPLICAS`]
/// devices.
fn device_grid(module: &Module, run: &RunArgs) -> Result<(usize, usize), Failure> {
    let r = replica_count(module, run)?;
    let p = match run.partitions {
        Some(0) => return Err(Failure::usage("error: --partitions needs M >= 1")),
        Some(p) => p as i64,
        None => module.num_partitions().max(1),
    };
    if (r as i64).saturating_mul(p) > MAX_REPLICAS as i64 {
        return Err(Failure::input(format!(
            "{}: error: {r} replicas × {p} partitions requested; at most {MAX_REPLICAS} devices are supported",
            module.name
        )));
    }
    Ok((r, p as usize))
}

/// `--replicas`, else the module's `replica_count`, checked against
/// [`MAX_REPLICAS`].
fn replica_count(module: &Module, run: &RunArgs) -> Result<usize, Failure> {
    let n = match run.replicas {
        Some(0) => return Err(Failure::usage("error: --replicas needs R >= 1")),
        Some(n) => n as i64,
        None => module.replica_count().max(1),
    };
    if n > MAX_REPLICAS as i64 {
        return Err(Failure::input(format!(
            "{}: error: {n} replicas requested; at most {MAX_REPLICAS} are supported",
            module.name
        )));
    }
    Ok(n as usize)
}

fn stats(mut ms: Vec<f64>) -> Value {
    ms.sort_by(f64::total_cmp);
    let n = ms.len();
    let median = if n % 2 == 1 {
        ms[n / 2]
    } else {
        (ms[n / 2 - 1] + ms[n / 2]) / 2.0
    };
    json!({"median": median, "min": ms[0], "max": ms[n - 1], "runs": n})
}

/// `n` timed `run_into` calls (milliseconds) on buffers prepared once.
fn time_jit(
    exe: &rxla_jit::Executable,
    args: &[Literal],
    opts: &RunOptions,
    n: usize,
) -> Result<Vec<f64>, Failure> {
    let fail = |e: String| Failure::input(format!("error: {e}"));
    let mut ins: Vec<Vec<u8>> = Vec::new();
    for (a, p) in args.iter().zip(exe.parameter_shapes()) {
        let a = a.relayout_to(p).map_err(|e| fail(e.to_string()))?;
        for l in a.leaves() {
            ins.push(l.to_physical_bytes().map_err(|e| fail(e.to_string()))?);
        }
    }
    let mut outs: Vec<Vec<u8>> = exe
        .result_shape()
        .leaves()
        .iter()
        .map(|l| vec![0u8; l.byte_size().unwrap_or(0)])
        .collect();
    let ins: Vec<&[u8]> = ins.iter().map(|v| v.as_slice()).collect();
    let mut outs: Vec<&mut [u8]> = outs.iter_mut().map(|v| v.as_mut_slice()).collect();
    let mut ms = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        exe.run_into_with(&ins, &mut outs, opts)
            .map_err(|e| fail(e.to_string()))?;
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(ms)
}

/// Compiles `module`; `lowered`: the backend pipeline already ran on it
/// (`optimize`), so the JIT does not run it again.
fn jit_compile(
    args: &RunArgs,
    module: &Module,
    lowered: bool,
) -> Result<rxla_jit::Executable, rxla_jit::JitError> {
    let opts = rxla_jit::CompileOptions {
        threads: args.threads,
        fusion: !lowered,
        keep_clif: args.emit == Some(Emit::Clif),
        keep_asm: args.emit == Some(Emit::Asm),
        ..rxla_jit::CompileOptions::default()
    };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rxla_jit::compile(module, &opts)
    }))
    .unwrap_or_else(|_| {
        Err(rxla_jit::JitError::unsupported(
            "the JIT panicked while compiling",
        ))
    })
}

/// Ends the process with an error shortly after `--timeout` when the run
/// has not stopped by itself (a single long kernel checks no deadline).
fn start_watchdog(file: &str, seconds: f64) {
    let name = input::display_name(file).to_string();
    let grace = std::time::Duration::from_secs_f64(seconds + 1.0);
    let _ = std::thread::Builder::new()
        .name("rxla-timeout".into())
        .spawn(move || {
            std::thread::sleep(grace);
            eprintln!("{name}: error: the run exceeded --timeout ({seconds} s)");
            std::process::exit(1);
        });
}

pub fn run(mut args: RunArgs) -> Result<(), Failure> {
    let t0 = Instant::now();
    if let Some(t) = args.timeout {
        if !(t.is_finite() && t > 0.0 && t < 1e9) {
            return Err(Failure::usage("error: --timeout needs SECONDS > 0"));
        }
        args.deadline = Some(t0 + std::time::Duration::from_secs_f64(t));
        start_watchdog(&args.file, t);
    }
    let mut module = input::load_module(&args.file)?;
    let (replicas, partitions) = device_grid(&module, &args)?;
    let lowered = optimize(&args, &mut module)?;
    let failed = |e: rxla_jit::JitError| Failure::input(format!("{}: error: {e}", module.name));
    let exe = match args.backend {
        Some(Backend::Interp) => None,
        Some(Backend::Jit) => Some(jit_compile(&args, &module, lowered).map_err(failed)?),
        None => match jit_compile(&args, &module, lowered) {
            Ok(exe) => Some(exe),
            // A resource limit holds for the interpreter too.
            Err(e @ rxla_jit::JitError::Limit(_)) => return Err(failed(e)),
            Err(e) => {
                eprintln!(
                    "rxla: warning: {}; running on the reference interpreter",
                    failed(e).message.trim_end()
                );
                None
            }
        },
    };
    if let Some(exe) = &exe {
        // Say what did not get native code (it still runs, one instruction
        // at a time on the reference evaluator).
        // A multi-device run of collectives without native code runs the
        // whole module on the multi-device evaluator (the per-instruction
        // fallbacks are then not used).
        let how = &exe.stats().collectives;
        if replicas * partitions > 1 && how.starts_with("evaluator") {
            eprintln!(
                "rxla: note: the {replicas}x{partitions}-device run goes to the multi-device evaluator ({})",
                how.trim_start_matches("evaluator: ")
            );
        } else {
            for what in &exe.stats().fallbacks {
                eprintln!("rxla: note: on the reference interpreter: {what}");
            }
        }
    }
    if let (Some(exe), Some(_)) = (&exe, args.emit) {
        let kernels = if args.emit == Some(Emit::Clif) {
            &exe.stats().clif
        } else {
            &exe.stats().asm
        };
        for (name, text) in kernels {
            crate::emit(&format!("; kernel {name}\n{text}\n"))?;
        }
        return Ok(());
    }
    let compile_ms = t0.elapsed().as_secs_f64() * 1e3;
    let call_args = gather_args(&args, &module)?;
    let results = execute(&module, &call_args, &args, exe.as_ref())?;

    let timing = match args.time {
        Some(0) => return Err(Failure::usage("--time needs N ≥ 1")),
        Some(n) => {
            let mut ms = Vec::with_capacity(n);
            match &exe {
                // The JIT is timed on prepared buffers (run_into), as an embedder calls it.
                Some(exe) => ms = time_jit(exe, &call_args, &make_options(&args)?, n)?,
                None => {
                    for _ in 0..n {
                        let t = Instant::now();
                        execute(&module, &call_args, &args, None)?;
                        ms.push(t.elapsed().as_secs_f64() * 1e3);
                    }
                }
            }
            let mut t = json!({"compile_ms": compile_ms, "run_ms": stats(ms)});
            if let Some(exe) = &exe {
                t["isa"] = json!(exe.stats().isa);
            }
            Some(t)
        }
        None => None,
    };

    if let Some(dir) = &args.out_npy {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::input(format!("{}: cannot create: {e}", dir.display())))?;
        let mut k = 0;
        for r in &results {
            for leaf in r.leaves() {
                npy::write_npy(&dir.join(format!("{k}.npy")), leaf).map_err(Failure::input)?;
                k += 1;
            }
        }
    }

    if let Some(path) = &args.out_npz {
        let leaves: Vec<(String, &ArrayLiteral)> = results
            .iter()
            .flat_map(|r| r.leaves())
            .enumerate()
            .map(|(k, l)| (format!("arr_{k}"), l))
            .collect();
        npy::write_npz(path, &leaves).map_err(Failure::input)?;
    }

    match args.output {
        OutputFormat::Json => {
            let outputs = |r: &Literal| rxla_eval::json::outputs_to_json(r);
            let mut obj = serde_json::Map::new();
            if let Some(t) = &timing {
                obj.insert("timing".into(), t.clone());
            }
            if timing.is_none() || args.print_outputs {
                if results.len() == 1 {
                    obj.insert("outputs".into(), outputs(&results[0]));
                } else {
                    obj.insert(
                        "replicas".into(),
                        Value::Array(
                            results
                                .iter()
                                .enumerate()
                                .map(|(d, r)| {
                                    json!({
                                        "device": d,
                                        "replica": d / partitions,
                                        "partition": d % partitions,
                                        "outputs": outputs(r)
                                    })
                                })
                                .collect(),
                        ),
                    );
                }
            }
            crate::emit(&format!("{}\n", Value::Object(obj)))?;
        }
        OutputFormat::Text => {
            for (i, r) in results.iter().enumerate() {
                if results.len() > 1 && partitions == 1 {
                    crate::emit(&format!("// replica {i}\n"))?;
                } else if results.len() > 1 {
                    crate::emit(&format!(
                        "// replica {} partition {} (device {i})\n",
                        i / partitions,
                        i % partitions
                    ))?;
                }
                crate::emit(&format!("{r}\n"))?;
            }
            if let Some(t) = &timing {
                eprintln!(
                    "compile {:.3} ms; run median {:.3} ms, min {:.3} ms, max {:.3} ms over {} runs{}",
                    t["compile_ms"].as_f64().unwrap_or(0.0),
                    t["run_ms"]["median"].as_f64().unwrap_or(0.0),
                    t["run_ms"]["min"].as_f64().unwrap_or(0.0),
                    t["run_ms"]["max"].as_f64().unwrap_or(0.0),
                    t["run_ms"]["runs"].as_u64().unwrap_or(0),
                    t["isa"]
                        .as_str()
                        .map(|i| format!(" ({i})"))
                        .unwrap_or_default(),
                );
            }
        }
    }
    Ok(())
}
