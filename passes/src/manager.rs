//! The pass manager: runs a configured pipeline over a module, verifying
//! after every pass (default on), honouring `disable` and the fuel
//! budget, and calling the instrumentation hooks around each pass. It
//! does no printing itself; output comes from instrumentations.

use crate::error::{PassError, Result};
use crate::instrument::{Instrumentation, PassEvent, SkipReason};
use crate::pass::{Pass, PassContext};
use crate::pipeline::{self, PipelineItem};
use crate::registry::{Registry, Stage};
use rxla_ir::Module;
use std::collections::BTreeSet;
use std::time::Instant;

/// Runs pipelines.
pub struct PassManager {
    stages: Vec<Stage>,
    verify: bool,
    disabled: BTreeSet<String>,
    fuel: Option<u64>,
    instrumentations: Vec<Box<dyn Instrumentation>>,
}

/// The outcome of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunSummary {
    /// Whether any pass changed the module.
    pub changed: bool,
    /// Number of pass runs (fixpoint iterations count each run).
    pub pass_runs: usize,
    /// Fuel consumed (0 without a budget).
    pub fuel_used: u64,
    /// The last rewrite applied under a fuel budget.
    pub last_applied: Option<String>,
    /// The first rewrite refused for lack of fuel.
    pub first_denied: Option<String>,
    /// Fixpoint groups that stopped at their iteration cap while still
    /// changing the module.
    pub fixpoints_capped: usize,
}

struct RunState<'a> {
    ctx: PassContext,
    verify: bool,
    disabled: &'a BTreeSet<String>,
    instrumentations: &'a mut [Box<dyn Instrumentation>],
    summary: RunSummary,
}

impl PassManager {
    /// A manager over already-built stages.
    pub fn new(stages: Vec<Stage>) -> PassManager {
        PassManager {
            stages,
            verify: true,
            disabled: BTreeSet::new(),
            fuel: None,
            instrumentations: Vec::new(),
        }
    }

    /// Parses `text` and builds its passes from `registry`.
    pub fn from_text(text: &str, registry: &Registry) -> Result<PassManager> {
        let items = pipeline::parse_pipeline(text)?;
        Self::from_items(&items, text, registry)
    }

    /// Builds parsed items (`text` is their source, for error columns).
    pub fn from_items(
        items: &[PipelineItem],
        text: &str,
        registry: &Registry,
    ) -> Result<PassManager> {
        Ok(PassManager::new(registry.build(items, text)?))
    }

    /// A named pipeline (`O0`, `O1`, `O2`).
    pub fn named(name: &str, registry: &Registry) -> Result<PassManager> {
        let items = pipeline::named_pipeline(name)?;
        let text = pipeline::named_pipeline_text(name).unwrap_or_default();
        Self::from_items(&items, text, registry)
    }

    /// Verify after each pass (default true).
    pub fn set_verify(&mut self, verify: bool) -> &mut Self {
        self.verify = verify;
        self
    }

    /// Passes with these names are skipped (and reported as disabled).
    pub fn disable<S: AsRef<str>>(&mut self, names: &[S]) -> &mut Self {
        self.disabled
            .extend(names.iter().map(|s| s.as_ref().to_string()));
        self
    }

    /// A global budget of rewrite opportunities (None = unlimited).
    pub fn set_fuel(&mut self, fuel: Option<u64>) -> &mut Self {
        self.fuel = fuel;
        self
    }

    /// Adds an instrumentation; hooks run in the order added.
    pub fn add_instrumentation(&mut self, i: Box<dyn Instrumentation>) -> &mut Self {
        self.instrumentations.push(i);
        self
    }

    /// The pass names of the pipeline, flattened in order (fixpoint groups
    /// once).
    pub fn pass_names(&self) -> Vec<&'static str> {
        fn walk(stages: &[Stage], out: &mut Vec<&'static str>) {
            for s in stages {
                match s {
                    Stage::Pass(p) => out.push(p.name()),
                    Stage::Fixpoint { stages, .. } => walk(stages, out),
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.stages, &mut out);
        out
    }

    /// Runs the pipeline over `module`.
    pub fn run(&mut self, module: &mut Module) -> Result<RunSummary> {
        let mut st = RunState {
            ctx: PassContext::with_fuel(self.fuel),
            verify: self.verify,
            disabled: &self.disabled,
            instrumentations: &mut self.instrumentations,
            summary: RunSummary::default(),
        };
        for i in st.instrumentations.iter_mut() {
            i.run_start(module)?;
        }
        let result = run_stages(&mut self.stages, module, &mut st);
        let mut end = Ok(());
        for i in st.instrumentations.iter_mut() {
            let r = i.run_end(module);
            if end.is_ok() {
                end = r;
            }
        }
        let changed = result?;
        end?;
        let mut summary = st.summary;
        summary.changed = changed;
        summary.fuel_used = st.ctx.fuel_used();
        summary.last_applied = st.ctx.last_applied().map(str::to_string);
        summary.first_denied = st.ctx.first_denied().map(str::to_string);
        Ok(summary)
    }
}

fn run_stages(stages: &mut [Stage], module: &mut Module, st: &mut RunState<'_>) -> Result<bool> {
    let mut changed = false;
    for stage in stages.iter_mut() {
        changed |= match stage {
            Stage::Pass(p) => run_pass(p.as_mut(), module, st)?,
            Stage::Fixpoint { max_iters, stages } => {
                let mut any = false;
                let mut last = false;
                for _ in 0..*max_iters {
                    last = run_stages(stages, module, st)?;
                    any |= last;
                    if !last {
                        break;
                    }
                }
                if last {
                    st.summary.fixpoints_capped += 1;
                }
                any
            }
        };
    }
    Ok(changed)
}

/// The pass with its options in pipeline syntax.
pub fn pass_spec(p: &dyn Pass) -> String {
    let mut s = p.name().to_string();
    let _ = pipeline::write_options(&mut s, &p.option_values());
    s
}

fn run_pass(pass: &mut dyn Pass, module: &mut Module, st: &mut RunState<'_>) -> Result<bool> {
    let name = pass.name();
    // Once the budget is spent, a pass that honours fuel still runs until
    // one rewrite has been refused (so the run can name the first skipped
    // rewrite); it applies nothing. Everything after that is skipped.
    let skip = if st.disabled.contains(name) {
        Some(SkipReason::Disabled)
    } else if st.ctx.out_of_fuel() && (!pass.honours_fuel() || st.ctx.first_denied().is_some()) {
        Some(SkipReason::OutOfFuel)
    } else {
        None
    };
    if let Some(reason) = skip {
        for i in st.instrumentations.iter_mut() {
            i.pass_skipped(name, reason)?;
        }
        return Ok(false);
    }
    let honours_fuel = pass.honours_fuel();
    if !honours_fuel {
        // One unit for the whole run of a pass that cannot be bisected
        // more finely; cannot fail since the budget is not spent.
        st.ctx.consume_fuel(format_args!("run of pass {name}"));
    }
    let before = st.verify.then(|| module.clone());
    let instructions_before = module.instruction_count();
    for i in st.instrumentations.iter_mut() {
        i.before_pass(name, module)?;
    }
    let fuel_before = st.ctx.fuel_used();
    let start = Instant::now();
    let changed = pass.run(module, &mut st.ctx).map_err(|e| match e {
        PassError::Ir(e) => PassError::failed(name, e),
        e => e,
    })?;
    let duration = start.elapsed();
    let stats = st.ctx.take_stats();
    st.summary.pass_runs += 1;
    if let Some(before) = before
        && let Err(e) = rxla_ir::verify_module(module)
    {
        return Err(PassError::Verify {
            pass: name.to_string(),
            spec: pass_spec(pass),
            message: e.to_string(),
            before: Box::new(before),
        });
    }
    let event = PassEvent {
        pass: name,
        changed,
        duration,
        instructions_before,
        stats: &stats,
        honours_fuel,
        fuel_used: st.ctx.fuel_used() - fuel_before,
    };
    for i in st.instrumentations.iter_mut() {
        i.after_pass(&event, module)?;
    }
    Ok(changed)
}
