//! `rxla opt FILE|- [-o OUT] [--passes=... | --pipeline=O1] [debug flags]`:
//! parse → verify → run a pass pipeline → print. A thin client of
//! `rxla_passes`: this module only maps flags to the library's pass
//! manager and instrumentations, writes the reproducer when a pass breaks
//! an invariant, and reports.

use crate::irdebug::{IrDebugArgs, check_pass_names};
use crate::{Failure, input};
use clap::Args;
use rxla_passes::instrument::{Sink, Stats, Timing};
use rxla_passes::{PassError, PassManager, Registry};
use rxla_viz::report::{Recorder, ReportOptions};
use std::path::{Path, PathBuf};

const OPT_HELP: &str = "\
Pipelines:
  --passes=TEXT   comma list of passes; options in braces; fixpoint(...) reruns a
                  group until nothing changes (cap: fixpoint{max-iters=N}(...),
                  default 25). Example:
                    --passes='inline,cse,constant-folding{max-elements=64},fixpoint(tuple-simplify,dce)'
  --pipeline=O1   named pipelines: O0 (nothing), O1 (inline, tuple-simplify, dce,
                  cse, constant-folding, dce), O2 (O1 + a cleanup fixpoint),
                  jit-backend (what the JIT runs before code generation:
                  fusion{dots=false}), jit (O2 + jit-backend: exactly the
                  module `rxla run` compiles by default).
  With neither, the module is printed back unchanged. See docs/PASSES.md and
  `rxla opt --list-passes`.

Debugging (all output on stderr):
  Each dump starts with a header line:
    // ----- IR before <pass> -----
    // ----- IR after <pass> (changed) -----   or (unchanged)
  --print-ir-diff shows a unified diff against the IR before the pass.
  --report OUT.html writes one self-contained page for the run: passes with
  timing bars, IR diffs, ENTRY graphs before/after (drawn by rxla, no
  Graphviz), simplify's rule chains, fusion and buffer decisions.
  A pass that breaks an invariant is reported by name with the verifier's
  message, and the IR before it is written to
  <OUT or FILE stem>.reproducer.<pass>.hlo (re-run it with --passes=<pass>).

Bisecting a miscompile:
  --fuel=N applies only the first N rewrite opportunities (passes that honour
  fuel ask per rewrite; the others cost one unit per run), then skips the rest
  and reports the last rewrite applied; binary-search N to find the rewrite
  that breaks the result. --disable-passes=a,b skips passes by name.";

#[derive(Args)]
#[command(after_long_help = OPT_HELP, after_help = OPT_HELP)]
pub struct OptArgs {
    /// HLO text file, or `-` for stdin.
    pub file: Option<String>,
    /// Write the result here instead of stdout.
    #[arg(short = 'o', long = "output")]
    pub output: Option<String>,
    /// Pass pipeline text, e.g. `inline,cse,fixpoint(tuple-simplify,dce)`.
    #[arg(long, value_name = "PIPELINE", conflicts_with = "pipeline")]
    pub passes: Option<String>,
    /// A named pipeline: O0, O1, O2, jit-backend or jit.
    #[arg(long, value_name = "NAME")]
    pub pipeline: Option<String>,
    /// List the registered passes with their options and exit.
    #[arg(long)]
    pub list_passes: bool,
    #[command(flatten)]
    pub ir: IrDebugArgs,
    /// Print a table: pass, wall time, instructions before -> after, changed.
    #[arg(long)]
    pub timing: bool,
    /// Print each pass's counters (rewrites, instructions removed, fuel).
    #[arg(long)]
    pub stats: bool,
    /// After the pipeline, run buffer assignment on the result and print
    /// its total and peak bytes (see docs/LAYOUT.md). Also printed with
    /// --timing when the pipeline runs buffer-assignment.
    #[arg(long)]
    pub buffer_stats: bool,
    /// Skip these passes (comma list); reported as disabled in --timing.
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub disable_passes: Vec<String>,
    /// Apply only the first N rewrite opportunities, then skip the rest.
    #[arg(long, value_name = "N")]
    pub fuel: Option<u64>,
    /// Do not run the verifier after each pass.
    #[arg(long)]
    pub no_verify: bool,
    /// Before each `simplify` run, print for every instruction it will
    /// change the chain of rewrite rules that justifies it (to stderr).
    #[arg(long)]
    pub explain: bool,
    /// Write one self-contained HTML page for the run: the passes with
    /// timing bars, each pass's IR diff and ENTRY graph before/after,
    /// simplify's explanations, fusion and buffer decisions.
    #[arg(long, value_name = "OUT.html")]
    pub report: Option<PathBuf>,
    /// Register the test-only passes (test-break-names, test-fail).
    #[arg(long, hide = true)]
    pub enable_test_passes: bool,
}

pub fn run(args: OptArgs) -> Result<(), Failure> {
    let mut registry = Registry::standard();
    if args.enable_test_passes {
        rxla_passes::testing::register_test_passes(&mut registry);
    }
    if args.list_passes {
        crate::emit(&list_passes(&registry))?;
        return Ok(());
    }
    let Some(file) = args.file.as_deref() else {
        return Err(Failure::usage(
            "error: rxla opt: missing input FILE (or `-` for stdin)",
        ));
    };
    let manager = match (&args.passes, &args.pipeline) {
        (Some(_), Some(_)) => {
            return Err(Failure::usage(
                "error: --passes and --pipeline cannot be used together",
            ));
        }
        (Some(text), None) => Some(PassManager::from_text(text, &registry).map_err(usage)?),
        (None, Some(name)) => Some(PassManager::named(name, &registry).map_err(usage)?),
        (None, None) => None,
    };
    args.ir.check(&registry).map_err(Failure::usage)?;
    check_pass_names(&registry, "--disable-passes", &args.disable_passes)
        .map_err(Failure::usage)?;
    let mut module = input::load_module(file)?;
    let pipeline_text = match (&args.passes, &args.pipeline) {
        (Some(t), _) => t.clone(),
        (None, Some(name)) => format!(
            "{name} = {}",
            rxla_passes::pipeline::named_pipeline_text(name).unwrap_or_default()
        ),
        (None, None) => String::new(),
    };
    let mut report = None;
    if let Some(mut pm) = manager {
        configure(&mut pm, &args);
        if args.report.is_some() {
            let (rec, data) = Recorder::new(ReportOptions::default());
            pm.add_instrumentation(Box::new(rec));
            report = Some(data);
        }
        let result = pm.run(&mut module);
        if let (Some(path), Some(data)) = (&args.report, &report) {
            let mut d = data.borrow_mut();
            d.pipeline = pipeline_text.clone();
            if let Err(e) = &result {
                d.error = Some(e.to_string());
            }
            write_report(path, &d)?;
        }
        match result {
            Ok(summary) => {
                if let Some(fuel) = args.fuel {
                    eprintln!("{}", fuel_report(fuel, &summary));
                }
            }
            Err(e) => return Err(report_failure(e, file, args.output.as_deref())),
        }
    } else if let Some(path) = &args.report {
        // No pipeline: a report of the input alone.
        let (mut rec, data) = Recorder::new(ReportOptions::default());
        use rxla_passes::Instrumentation;
        rec.run_start(&module)
            .map_err(|e| Failure::input(format!("error: {e}")))?;
        write_report(path, &data.borrow())?;
    }
    // With --timing, a pipeline that runs buffer-assignment also reports it.
    let ran_buffers = args
        .passes
        .as_deref()
        .is_some_and(|p| p.contains("buffer-assignment"));
    if args.buffer_stats || (args.timing && ran_buffers) {
        use rxla_passes::buffer_assignment::{BufferOptions, assign_buffers, summary};
        let a = assign_buffers(&module, &BufferOptions::default())
            .map_err(|e| Failure::input(format!("error: {e}")))?;
        eprintln!("{}", summary(&a));
    }
    let text = rxla_ir::print_module(&module);
    match &args.output {
        None => crate::emit(&text)?,
        Some(p) => std::fs::write(p, text)
            .map_err(|e| Failure::input(format!("{p}: error: cannot write: {e}")))?,
    }
    Ok(())
}

fn write_report(path: &Path, data: &rxla_viz::report::ReportData) -> Result<(), Failure> {
    std::fs::write(path, rxla_viz::report::render(data)).map_err(|e| {
        Failure::input(format!(
            "{}: error: cannot write the report: {e}",
            path.display()
        ))
    })
}

fn usage(e: PassError) -> Failure {
    Failure::usage(format!("error: {e}"))
}

fn list_passes(registry: &Registry) -> String {
    let mut s = String::from("passes:\n");
    for (name, desc) in registry.describe() {
        s.push_str(&format!("  {name:<18} {desc}\n"));
        if let Some(p) = registry.create(name) {
            for o in p.options() {
                s.push_str(&format!(
                    "  {:<18}   {{{}=N}} {} (default {})\n",
                    "", o.key, o.description, o.default
                ));
            }
        }
    }
    s.push_str("groups:\n  fixpoint{max-iters=N}(...)  rerun the group until nothing changes (default cap 25)\n");
    s.push_str("pipelines:\n");
    for (name, text) in rxla_passes::pipeline::NAMED_PIPELINES {
        let text = if text.is_empty() { "(nothing)" } else { text };
        s.push_str(&format!("  {name}  {text}\n"));
    }
    s
}

fn configure(pm: &mut PassManager, args: &OptArgs) {
    pm.set_verify(!args.no_verify)
        .disable(&args.disable_passes)
        .set_fuel(args.fuel);
    args.ir.instrument(pm);
    if args.timing {
        pm.add_instrumentation(Box::new(Timing::new(Sink::Stderr)));
    }
    if args.stats {
        pm.add_instrumentation(Box::new(Stats::new(Sink::Stderr)));
    }
    if args.explain {
        pm.add_instrumentation(Box::new(rxla_passes::instrument::Explain::new(
            Sink::Stderr,
        )));
    }
}

fn fuel_report(fuel: u64, s: &rxla_passes::RunSummary) -> String {
    let mut r = format!("fuel: {} of {fuel} used", s.fuel_used);
    match &s.last_applied {
        Some(l) => r.push_str(&format!("; last applied: {l}")),
        None => r.push_str("; nothing applied"),
    }
    if let Some(d) = &s.first_denied {
        r.push_str(&format!("; first skipped: {d}"));
    }
    r
}

/// `<dir>/<stem>.reproducer.<pass>.hlo` next to the output (or input).
fn reproducer_path(file: &str, output: Option<&str>, pass: &str) -> PathBuf {
    let base = Path::new(output.unwrap_or(if file == "-" { "stdin.hlo" } else { file }));
    let stem = base
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "module".to_string());
    let dir = base.parent().unwrap_or(Path::new(""));
    dir.join(format!("{stem}.reproducer.{pass}.hlo"))
}

fn report_failure(e: PassError, file: &str, output: Option<&str>) -> Failure {
    match e {
        PassError::Verify {
            pass,
            spec,
            message,
            before,
        } => {
            let path = reproducer_path(file, output, &pass);
            let mut msg = format!("error: pass `{pass}` broke an invariant: {message}");
            match std::fs::write(&path, rxla_ir::print_module(&before)) {
                Ok(()) => msg.push_str(&format!(
                    "\nnote: the IR before `{pass}` was written to {p}\nnote: reproduce with: rxla opt {p} --passes='{spec}'",
                    p = path.display()
                )),
                Err(err) => msg.push_str(&format!(
                    "\nnote: could not write the reproducer {}: {err}",
                    path.display()
                )),
            }
            Failure::input(msg)
        }
        e => Failure::input(format!("error: {e}")),
    }
}
