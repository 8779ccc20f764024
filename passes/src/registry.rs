//! The pass registry: pass name → constructor. [`Registry::standard`] holds
//! every production pass; tests and tools may register more (e.g. the
//! deliberately broken passes in `testing`). Building passes from a parsed
//! pipeline (instantiating and setting options) happens here too.

use crate::error::{PassError, PipelineError, Result};
use crate::pass::Pass;
use crate::pipeline::{FIXPOINT, PipelineItem};
use std::collections::BTreeMap;

/// Creates a fresh pass instance with default options.
pub type PassConstructor = fn() -> Box<dyn Pass>;

/// Known passes by name. `Registry::default()` is [`Registry::standard`]
/// (every production pass); [`Registry::new`] is empty.
#[derive(Clone)]
pub struct Registry {
    passes: BTreeMap<&'static str, PassConstructor>,
}

impl Default for Registry {
    /// The standard registry: every production pass.
    fn default() -> Registry {
        Registry::standard()
    }
}

/// A pipeline with its passes instantiated and configured.
pub enum Stage {
    Pass(Box<dyn Pass>),
    Fixpoint {
        max_iters: usize,
        stages: Vec<Stage>,
    },
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry {
            passes: BTreeMap::new(),
        }
    }

    /// Every production pass.
    pub fn standard() -> Registry {
        let mut r = Registry::new();
        r.register(|| Box::new(crate::dce::Dce));
        r.register(|| Box::new(crate::cse::Cse));
        r.register(|| Box::new(crate::inline::Inline));
        r.register(|| Box::new(crate::tuple_simplify::TupleSimplify));
        r.register(|| Box::<crate::constant_folding::ConstantFolding>::default());
        r.register(|| Box::<crate::fusion::Fusion>::default());
        r.register(|| Box::<crate::multi_output_fusion::MultiOutputFusion>::default());
        r.register(|| Box::new(crate::transpose_folding::TransposeFolding));
        r.register(|| Box::new(crate::conv_polyphase::ConvPolyphase));
        r.register(|| Box::<crate::simplify::Simplify>::default());
        r.register(|| Box::<crate::layout_assignment::LayoutAssignment>::default());
        r.register(|| Box::<crate::buffer_assignment::BufferAssignmentPass>::default());
        r
    }

    /// Adds a pass under its own name (replacing one of the same name).
    pub fn register(&mut self, ctor: PassConstructor) {
        let name = ctor().name();
        self.passes.insert(name, ctor);
    }

    /// Registered names, sorted.
    pub fn names(&self) -> Vec<&'static str> {
        self.passes.keys().copied().collect()
    }

    /// A fresh instance of `name`.
    pub fn create(&self, name: &str) -> Option<Box<dyn Pass>> {
        self.passes.get(name).map(|c| c())
    }

    /// (name, description) of every registered pass.
    pub fn describe(&self) -> Vec<(&'static str, &'static str)> {
        self.passes
            .iter()
            .map(|(n, c)| (*n, c().description()))
            .collect()
    }

    /// Instantiates a parsed pipeline. `text` is the pipeline text the
    /// items came from (for error columns).
    pub fn build(&self, items: &[PipelineItem], text: &str) -> Result<Vec<Stage>> {
        items.iter().map(|i| self.build_item(i, text)).collect()
    }

    fn build_item(&self, item: &PipelineItem, text: &str) -> Result<Stage> {
        match item {
            PipelineItem::Fixpoint { max_iters, items } => Ok(Stage::Fixpoint {
                max_iters: *max_iters,
                stages: self.build(items, text)?,
            }),
            PipelineItem::Pass { name, options, col } => {
                let mut pass = self.create(name).ok_or_else(|| {
                    PassError::from(PipelineError {
                        text: text.to_string(),
                        col: *col,
                        message: format!(
                            "unknown pass `{name}` (known passes: {}; groups: {FIXPOINT}(...))",
                            self.names().join(", ")
                        ),
                    })
                })?;
                for (k, v) in options {
                    pass.set_option(k, v)?;
                }
                Ok(Stage::Pass(pass))
            }
        }
    }
}
