//! The pipeline report: [`Recorder`] is an instrumentation that collects,
//! per pass run, its timing, instruction counts, counters, the IR diff,
//! the ENTRY graph after it (SVG), simplify's explanations and the fusion
//! and buffer decisions; [`render`] turns the collected [`ReportData`]
//! into one self-contained HTML page. Observes only: never edits the
//! module, writes no files.

pub mod decisions;
mod page;

use crate::scene::SceneOptions;
use decisions::{BufferDecisions, FusionDecision};
use rxla_ir::Module;
use rxla_passes::instrument::{Instrumentation, PassEvent, SkipReason};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

pub use page::render;

/// What the report collects.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    /// Draw graphs only while ENTRY has at most this many instructions.
    pub max_graph_instructions: usize,
    /// Run simplify's explanations before every `simplify` run.
    pub explain: bool,
    /// Layout of the graphs.
    pub scene: SceneOptions,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            max_graph_instructions: 2000,
            explain: true,
            scene: SceneOptions::default(),
        }
    }
}

/// How a pass run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Changed,
    Unchanged,
    /// Not run (`disabled`, `skipped (out of fuel)`).
    Skipped(String),
}

/// One pass run.
#[derive(Clone, Debug)]
pub struct PassRecord {
    pub pass: String,
    pub status: Status,
    pub duration: Option<Duration>,
    pub instructions_before: usize,
    pub instructions_after: usize,
    /// The pass's counters.
    pub stats: Vec<(String, u64)>,
    /// Unified diff of the module text (empty when unchanged).
    pub diff: String,
    /// Index into [`ReportData::graphs`] of the ENTRY graph before and
    /// after the pass (None when not drawn).
    pub graph_before: Option<usize>,
    pub graph_after: Option<usize>,
    /// simplify's explanations: (computation, one line per rewrite).
    pub explanations: Vec<(String, Vec<String>)>,
    /// Fusions this run created (fusion passes only).
    pub fusions: Vec<FusionDecision>,
    /// The buffer assignment after this run (buffer-assignment only).
    pub buffers: Option<BufferDecisions>,
}

/// Everything the page shows.
#[derive(Clone, Debug, Default)]
pub struct ReportData {
    pub module: String,
    /// The pipeline as given (set by the caller).
    pub pipeline: String,
    pub instructions_before: usize,
    pub instructions_after: usize,
    /// SVG documents, referenced by index from the records.
    pub graphs: Vec<String>,
    /// Why graphs are missing, if they are.
    pub graph_note: Option<String>,
    pub passes: Vec<PassRecord>,
    /// The error that stopped the pipeline, if any (set by the caller).
    pub error: Option<String>,
}

/// The report instrumentation; read the data through the handle
/// [`Recorder::new`] returns once the pipeline has run.
pub struct Recorder {
    opts: ReportOptions,
    data: Rc<RefCell<ReportData>>,
    /// Module text and graph before the running pass.
    text: String,
    graph: Option<usize>,
    before: Option<Module>,
    explanations: Vec<(String, Vec<String>)>,
}

impl Recorder {
    pub fn new(opts: ReportOptions) -> (Recorder, Rc<RefCell<ReportData>>) {
        let data = Rc::new(RefCell::new(ReportData::default()));
        (
            Recorder {
                opts,
                data: data.clone(),
                text: String::new(),
                graph: None,
                before: None,
                explanations: Vec::new(),
            },
            data,
        )
    }

    fn draw(&self, module: &Module) -> Option<usize> {
        let n = module.computations.get(module.entry.index())?.len();
        let mut d = self.data.borrow_mut();
        if n > self.opts.max_graph_instructions {
            d.graph_note = Some(format!(
                "graphs omitted: ENTRY has {n} instructions (limit {})",
                self.opts.max_graph_instructions
            ));
            return None;
        }
        let id = format!("g{}", d.graphs.len());
        d.graphs.push(crate::computation_svg(
            module,
            module.entry,
            &id,
            &self.opts.scene,
        ));
        Some(d.graphs.len() - 1)
    }
}

impl Instrumentation for Recorder {
    fn run_start(&mut self, module: &Module) -> rxla_passes::Result<()> {
        {
            let mut d = self.data.borrow_mut();
            d.module = module.name.clone();
            d.instructions_before = module.instruction_count();
            d.instructions_after = d.instructions_before;
        }
        self.text = rxla_ir::print_module(module);
        self.graph = self.draw(module);
        Ok(())
    }

    fn before_pass(&mut self, pass: &str, module: &Module) -> rxla_passes::Result<()> {
        self.explanations.clear();
        if pass == "simplify" && self.opts.explain {
            for cid in module.comp_ids() {
                let text = rxla_passes::simplify::explain(module, cid);
                let lines: Vec<String> = text.lines().map(str::to_string).collect();
                if !lines.is_empty() {
                    self.explanations
                        .push((module.comp(cid).name.clone(), lines));
                }
            }
        }
        self.before = (pass == "fusion").then(|| module.clone());
        Ok(())
    }

    fn after_pass(&mut self, event: &PassEvent<'_>, module: &Module) -> rxla_passes::Result<()> {
        let (diff, graph_after) = if event.changed {
            let text = rxla_ir::print_module(module);
            let diff = rxla_passes::diff::unified_diff(
                &self.text,
                &text,
                &format!("before {}", event.pass),
                &format!("after {}", event.pass),
                3,
            );
            self.text = text;
            (diff, self.draw(module))
        } else {
            (String::new(), self.graph)
        };
        let fusions = match self.before.take() {
            Some(before) => decisions::fusion_decisions(&before, module),
            None => Vec::new(),
        };
        let buffers = (event.pass == "buffer-assignment")
            .then(|| decisions::buffer_decisions(module))
            .flatten();
        let record = PassRecord {
            pass: event.pass.to_string(),
            status: if event.changed {
                Status::Changed
            } else {
                Status::Unchanged
            },
            duration: Some(event.duration),
            instructions_before: event.instructions_before,
            instructions_after: module.instruction_count(),
            stats: event.stats.to_vec(),
            diff,
            graph_before: self.graph,
            graph_after,
            explanations: std::mem::take(&mut self.explanations),
            fusions,
            buffers,
        };
        self.graph = graph_after;
        let mut d = self.data.borrow_mut();
        d.instructions_after = record.instructions_after;
        d.passes.push(record);
        Ok(())
    }

    fn pass_skipped(&mut self, pass: &str, reason: SkipReason) -> rxla_passes::Result<()> {
        let mut d = self.data.borrow_mut();
        let n = d.instructions_after;
        d.passes.push(PassRecord {
            pass: pass.to_string(),
            status: Status::Skipped(reason.describe().to_string()),
            duration: None,
            instructions_before: n,
            instructions_after: n,
            stats: Vec::new(),
            diff: String::new(),
            graph_before: self.graph,
            graph_after: self.graph,
            explanations: Vec::new(),
            fusions: Vec::new(),
            buffers: None,
        });
        Ok(())
    }
}
