//! `simplify`: algebraic simplification by equality saturation (egg).
//! Each computation is lowered into an e-graph ([`lower`]), rewritten by
//! the rule set ([`rules`], one module per family, IEEE-exact unless
//! `fast-math=true`) under iteration/node/time limits with a backoff
//! scheduler, and the cheapest equivalent program under a bytes+flops
//! cost model is extracted DAG-aware ([`cost`]) and raised back into
//! instructions ([`raise`]). The computation is replaced only when the
//! extracted program is strictly cheaper, so the pass is idempotent.
//!
//! Time: `time-limit-ms` (L) is a budget for the whole pass. Lowering and
//! saturation of every computation stop at L after the pass started
//! (computations not reached are skipped, `computations skipped (time
//! limit)`), extraction at 1.5 L (the computation is then left
//! unchanged), so the pass returns within about 2 L plus raising, which is
//! linear. When no rule applied and no two instructions were merged, the
//! e-graph is the original program and extraction is skipped.
//!
//! Layouts: e-classes are logical values (the evaluator computes every op
//! but `bitcast` on logical data), so computations with non-default
//! layouts are simplified too. A `bitcast` that depends on a non-default
//! layout is opaque; raising gives every kept instruction its operands in
//! their original layouts and the root its original layout, relaying out
//! by a `copy` where needed, and the cost comparison counts those copies
//! ([`raise::relayout_cost`]) so a rewrite pays for the copies it needs.
//! Tuples and `get-tuple-element` are nodes (rule family `tuple`);
//! variadic reduce is opaque with its operands simplified, and before
//! the e-graph a variadic reduce read through one output whose reducer
//! computes that output from its own accumulator and input alone becomes
//! a plain reduce ([`split_reduce`], `variadic reduces split`), and a
//! reduce over size-1 dims only whose reducer is one binary op becomes
//! that op on the broadcast init and the reshaped input
//! ([`degenerate_reduce`], `reduces over size-1 dims folded`). Computations
//! with complex (c64/c128) values are left alone: the rules and the
//! constant analysis do not model them; so are computations with bounded
//! dynamic dimensions (the rules build shapes from bounds). Fuel: one unit per computation
//! the pass rewrites (asked before rewriting it) and one per split
//! variadic reduce or folded size-1 reduce; not per rule application, since rewrites inside the
//! e-graph are not individually observable.
//!
//! Statistics: `rule <name>` (rewrites applied per rule, including ones
//! whose result was not extracted), `stop <reason>` per computation,
//! `e-nodes`, `computations simplified`, `variadic reduces split`, and
//! with `explain=true` one
//! `explain <instruction>: <rule> > <rule> ...` entry per changed
//! instruction (count 1).

pub mod analysis;
pub mod cost;
pub mod explain;
pub use explain::explain;
pub mod degenerate_reduce;
pub mod lang;
pub mod lower;
pub mod raise;
pub mod rules;
pub mod split_reduce;

use crate::error::{PassError, Result};
use crate::pass::{Pass, PassContext, PassOption, parse_count};
use crate::util::module_instruction_names;
use cost::{Choice, CostModel, Deadline};
use egg::{BackoffScheduler, Id, Rewrite, Runner, StopReason};
use lang::Hlo;
use rxla_ir::{CompId, Computation, Module};
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// The pass and its options.
#[derive(Clone, Debug)]
pub struct Simplify {
    pub max_iters: usize,
    pub node_limit: usize,
    pub time_limit_ms: usize,
    pub fast_math: bool,
    pub explain: bool,
    /// Only these rules (by name), when set.
    pub only: Option<Vec<String>>,
}

impl Default for Simplify {
    fn default() -> Self {
        Simplify {
            max_iters: 12,
            node_limit: 40_000,
            time_limit_ms: 400,
            fast_math: false,
            explain: false,
            only: None,
        }
    }
}

const OPTIONS: &[PassOption] = &[
    PassOption {
        key: "max-iters",
        description: "equality-saturation iterations per computation",
        default: "12",
    },
    PassOption {
        key: "node-limit",
        description: "stop saturating when the e-graph has this many nodes",
        default: "40000",
    },
    PassOption {
        key: "time-limit-ms",
        description: "time budget of the whole pass: saturation stops after it, extraction after 1.5 times it",
        default: "400",
    },
    PassOption {
        key: "fast-math",
        description: "also apply float rules that are not IEEE-exact (x*0, x-x, x+0)",
        default: "false",
    },
    PassOption {
        key: "explain",
        description: "record per changed instruction the chain of rules (stats `explain ...`)",
        default: "false",
    },
    PassOption {
        key: "rules",
        description: "only the named rules, separated by `.` (all when empty)",
        default: "",
    },
];

fn parse_bool(key: &str, value: &str) -> Result<bool> {
    match value {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(PassError::option(
            "simplify",
            key,
            format!("expected true or false, got `{value}`"),
        )),
    }
}

impl Pass for Simplify {
    fn name(&self) -> &'static str {
        "simplify"
    }

    fn description(&self) -> &'static str {
        "algebraic simplification by equality saturation (egg): identities, involutions, transpose/reshape/broadcast/slice/pad/concat folding, ReshapeMover, TransposeFolding, reduce/convert/select/min-max/tuple rules, variadic reduces read through one independent output made plain; reduces over size-1 dims with a one-op reducer made elementwise; any layouts (root, parameters and bitcast bytes kept); IEEE-exact unless fast-math; DAG-aware bytes+flops extraction; honours fuel per rewritten computation and per split reduce"
    }

    fn options(&self) -> &'static [PassOption] {
        OPTIONS
    }

    fn set_option(&mut self, key: &str, value: &str) -> Result<()> {
        match key {
            "max-iters" => self.max_iters = parse_count("simplify", key, value)?,
            "node-limit" => self.node_limit = parse_count("simplify", key, value)?,
            "time-limit-ms" => self.time_limit_ms = parse_count("simplify", key, value)?,
            "fast-math" => self.fast_math = parse_bool(key, value)?,
            "explain" => self.explain = parse_bool(key, value)?,
            "rules" => {
                let names: Vec<String> = value
                    .split('.')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect();
                let known = rule_names(true);
                if let Some(bad) = names.iter().find(|n| !known.contains(n)) {
                    return Err(PassError::option(
                        "simplify",
                        key,
                        format!("unknown rule `{bad}`"),
                    ));
                }
                self.only = (!names.is_empty()).then_some(names);
            }
            _ => {
                return Err(PassError::option(
                    "simplify",
                    key,
                    "unknown option (known: max-iters, node-limit, time-limit-ms, fast-math, explain, rules)",
                ));
            }
        }
        Ok(())
    }

    fn option_values(&self) -> Vec<(String, String)> {
        let d = Simplify::default();
        let mut v = Vec::new();
        if self.max_iters != d.max_iters {
            v.push(("max-iters".into(), self.max_iters.to_string()));
        }
        if self.node_limit != d.node_limit {
            v.push(("node-limit".into(), self.node_limit.to_string()));
        }
        if self.time_limit_ms != d.time_limit_ms {
            v.push(("time-limit-ms".into(), self.time_limit_ms.to_string()));
        }
        if self.fast_math {
            v.push(("fast-math".into(), "true".into()));
        }
        if self.explain {
            v.push(("explain".into(), "true".into()));
        }
        if let Some(only) = &self.only {
            v.push(("rules".into(), only.join(".")));
        }
        v
    }

    fn honours_fuel(&self) -> bool {
        true
    }

    fn run(&mut self, module: &mut Module, ctx: &mut PassContext) -> Result<bool> {
        let rewrites = self.rewrites()?;
        let limits = Limits::starting_now(self.time_limit_ms);
        let mut taken = None;
        let mut changed = false;
        if self.only.is_none() {
            let split = split_reduce::split_variadic_reduces(module, &mut |what| {
                ctx.consume_fuel(format_args!("{what}"))
            });
            if split > 0 {
                ctx.stat("variadic reduces split", split as u64);
                changed = true;
            }
            let folded = degenerate_reduce::fold_degenerate_reduces(module, &mut |what| {
                ctx.consume_fuel(format_args!("{what}"))
            });
            if folded > 0 {
                ctx.stat("reduces over size-1 dims folded", folded as u64);
                changed = true;
            }
        }
        let mut simplified = 0u64;
        for cid in module.comp_ids().collect::<Vec<_>>() {
            let mut stats = Vec::new();
            let outcome = simplify_computation(
                module, cid, self, &rewrites, false, &limits, &mut taken, &mut stats,
            );
            for (k, n) in stats {
                ctx.stat(&k, n);
            }
            let Some(new) = outcome? else {
                continue;
            };
            let what = format_args!("simplify: rewrite computation {}", module.comp(cid).name);
            if !ctx.consume_fuel(what) {
                continue;
            }
            *module.comp_mut(cid) = new.comp;
            for line in new.explanations {
                ctx.stat(&format!("explain {line}"), 1);
            }
            simplified += 1;
            changed = true;
        }
        ctx.stat("computations simplified", simplified);
        Ok(changed)
    }
}

impl Simplify {
    /// The egg rewrites for the current options.
    pub fn rewrites(&self) -> Result<Vec<Rewrite<Hlo, analysis::HloAnalysis>>> {
        let mut defs = rules::all_rules(self.fast_math || self.only.is_some());
        if let Some(only) = &self.only {
            defs.retain(|d| only.contains(&d.name));
        }
        rules::build(&defs).map_err(|e| PassError::failed("simplify", e))
    }
}

/// Names of every rule (with the fast-math family when asked).
pub fn rule_names(fast_math: bool) -> Vec<String> {
    rules::all_rules(fast_math)
        .into_iter()
        .map(|d| d.name)
        .collect()
}

/// (name, family) of every rule, fast-math family included.
pub fn rule_families() -> Vec<(String, &'static str)> {
    rules::all_rules(true)
        .into_iter()
        .map(|d| (d.name, d.family))
        .collect()
}

/// The pass-wide deadlines derived from `time-limit-ms`.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Lowering and saturation stop here.
    pub saturate: Instant,
    /// Extraction stops here.
    pub extract: Instant,
}

impl Limits {
    /// Deadlines for a pass starting now with a budget of `ms`.
    pub fn starting_now(ms: usize) -> Limits {
        let now = Instant::now();
        let budget = Duration::from_millis(ms as u64);
        Limits {
            saturate: now + budget,
            extract: now + budget + budget / 2,
        }
    }
}

/// A rewritten computation.
pub struct Rewritten {
    pub comp: Computation,
    pub explanations: Vec<String>,
}

/// Simplifies one computation; `Ok(None)` when it is left unchanged.
/// `stats` receives rule counts and the stop reason. `taken` (the
/// module's instruction names) is computed on first need.
#[allow(clippy::too_many_arguments)]
pub fn simplify_computation(
    module: &Module,
    cid: CompId,
    opts: &Simplify,
    rewrites: &[Rewrite<Hlo, analysis::HloAnalysis>],
    prefer_new: bool,
    limits: &Limits,
    taken: &mut Option<HashSet<String>>,
    stats: &mut Vec<(String, u64)>,
) -> Result<Option<Rewritten>> {
    let comp = module.comp(cid);
    let time_out = |stats: &mut Vec<(String, u64)>| {
        stats.push(("computations skipped (time limit)".into(), 1));
        Ok(None)
    };
    match lower::unsupported_reason_until(comp, Deadline(Some(limits.saturate))) {
        Err(()) => return time_out(stats),
        Ok(Some(why)) => {
            let what = if why.ends_with("complex values") {
                "computations skipped (complex)"
            } else if why.ends_with("dynamic dimensions") {
                "computations skipped (dynamic dimensions)"
            } else {
                "computations skipped (names)"
            };
            stats.push((what.into(), 1));
            return Ok(None);
        }
        Ok(None) => {}
    }
    let Some(mut low) = lower::lower(comp, opts.explain, Deadline(Some(limits.saturate))) else {
        return time_out(stats);
    };
    let left = limits.saturate.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return time_out(stats);
    }
    let egraph = std::mem::replace(
        &mut low.egraph,
        egg::EGraph::new(analysis::HloAnalysis::default()),
    );
    let mut runner = Runner::default()
        .with_egraph(egraph)
        .with_iter_limit(opts.max_iters)
        .with_node_limit(opts.node_limit)
        .with_time_limit(left)
        .with_scheduler(BackoffScheduler::default());
    if opts.explain {
        runner = runner.with_explanations_enabled();
    }
    let mut runner = runner.run(rewrites);
    let mut applied = 0usize;
    for it in &runner.iterations {
        for (rule, n) in &it.applied {
            applied += n;
            stats.push((format!("rule {rule}"), *n as u64));
        }
    }
    let reason = match &runner.stop_reason {
        Some(StopReason::Saturated) => "saturated".to_string(),
        Some(StopReason::IterationLimit(_)) => "iteration-limit".to_string(),
        Some(StopReason::NodeLimit(_)) => "node-limit".to_string(),
        Some(StopReason::TimeLimit(_)) => "time-limit".to_string(),
        Some(StopReason::Other(s)) => format!("other ({s})"),
        None => "none".to_string(),
    };
    stats.push((format!("stop {reason}"), 1));
    stats.push((
        "e-nodes".into(),
        runner.egraph.total_number_of_nodes() as u64,
    ));
    if runner.egraph.analysis.error.is_some() {
        stats.push(("computations abandoned (inconsistent rewrite)".into(), 1));
        return Ok(None);
    }
    if applied == 0 && !low.merged && !prefer_new {
        // The e-graph is the original program: nothing cheaper to find.
        return Ok(None);
    }
    let eg = &runner.egraph;
    let roots = roots(comp, &low, eg);
    let original: Choice = original_choice(&low, eg);
    let orig_cost = original_cost(comp, &low, eg);
    let model = CostModel {
        penalized: if prefer_new {
            original.values().cloned().collect()
        } else {
            HashSet::new()
        },
    };
    let Some((choice, new_cost)) =
        cost::extract(eg, &model, &roots, Deadline(Some(limits.extract)))
    else {
        if Instant::now() >= limits.extract {
            stats.push((
                "computations abandoned (time limit in extraction)".into(),
                1,
            ));
        }
        return Ok(None);
    };
    // Layout-changing copies are priced here, on the instructions: the
    // e-graph sees a copy as a logical identity, and raising adds copies
    // where a value is wanted in another layout.
    let orig_cost = orig_cost + raise::relayout_cost(comp, Some(&comp.live_mask()));
    if !prefer_new && new_cost >= orig_cost - 1e-6 * orig_cost.max(1.0) {
        return Ok(None);
    }
    let taken = taken.get_or_insert_with(|| module_instruction_names(module));
    let raised = match raise::raise(eg, comp, &low, &choice, taken) {
        Ok(r) => r,
        Err(_) => {
            stats.push(("computations abandoned (raise)".into(), 1));
            return Ok(None);
        }
    };
    let new_comp = raised.comp;
    let new_cost = new_cost + raised.added_copies + raise::relayout_cost(&new_comp, None);
    let better = prefer_new || new_cost < orig_cost - 1e-6 * orig_cost.max(1.0);
    if !better {
        // (The names it took stay taken: fresh names skip them.)
        return Ok(None);
    }
    // Same text means unchanged (printing is linear but not free: only
    // when the sizes agree).
    if comp.len() == new_comp.len()
        && rxla_ir::print_module(&single(comp)) == rxla_ir::print_module(&single(&new_comp))
    {
        return Ok(None);
    }
    let explanations = if opts.explain {
        explain::explain_changes(&mut runner.egraph, comp, &low, &choice)
    } else {
        Vec::new()
    };
    Ok(Some(Rewritten {
        comp: new_comp,
        explanations,
    }))
}

/// The classes that must be extracted: the root, parameters and
/// side-effecting instructions.
fn roots(comp: &Computation, low: &lower::Lowered, eg: &analysis::HloGraph) -> Vec<Id> {
    let mut r = vec![eg.find(low.classes[comp.root.index()])];
    for (i, instr) in comp.instructions.iter().enumerate() {
        if raise::forced(instr) {
            r.push(eg.find(low.classes[i]));
        }
    }
    r
}

/// The choice that reproduces the original program.
fn original_choice(low: &lower::Lowered, eg: &analysis::HloGraph) -> Choice {
    let mut c = Choice::new();
    for (i, n) in low.nodes.iter().enumerate() {
        c.entry(eg.find(low.classes[i]))
            .or_insert_with(|| raise::canonical(eg, n));
    }
    c
}

/// The cost of the original program: every live instruction's node once.
fn original_cost(comp: &Computation, low: &lower::Lowered, eg: &analysis::HloGraph) -> f64 {
    let model = CostModel::default();
    comp.live_mask()
        .iter()
        .enumerate()
        .filter(|(_, live)| **live)
        .map(|(i, _)| model.node_cost(eg, eg.find(low.classes[i]), &low.nodes[i]))
        .sum()
}

/// A module holding just `comp` (to compare computations as text).
fn single(comp: &Computation) -> Module {
    let mut m = Module::new("m");
    m.computations.push(comp.clone());
    m
}

/// Test support: applies only rule `rule` to the ENTRY computation and
/// extracts preferring the nodes the rule added over the original ones,
/// so the rule's right-hand side is what gets evaluated. `Ok(None)` when
/// the rule did not fire (or changed nothing).
pub fn apply_rule_for_test(module: &Module, rule: &str) -> Result<Option<Module>> {
    let opts = Simplify {
        only: Some(vec![rule.to_string()]),
        max_iters: 2,
        ..Simplify::default()
    };
    let rewrites = opts.rewrites()?;
    if rewrites.is_empty() {
        return Err(PassError::failed(
            "simplify",
            format!("unknown rule {rule}"),
        ));
    }
    let mut stats = Vec::new();
    let out = simplify_computation(
        module,
        module.entry,
        &opts,
        &rewrites,
        true,
        &Limits::starting_now(opts.time_limit_ms),
        &mut None,
        &mut stats,
    )?;
    if let Some((_, _)) = stats
        .iter()
        .find(|(k, _)| k.starts_with("computations abandoned"))
    {
        return Err(PassError::failed(
            "simplify",
            format!("rule {rule}: {stats:?}"),
        ));
    }
    Ok(out.map(|r| {
        let mut m = module.clone();
        *m.comp_mut(module.entry) = r.comp;
        m
    }))
}
