//! `--print-ir-*`: prints the module (or only its ENTRY computation)
//! before and/or after selected passes, or a unified diff against the IR
//! before the pass, each dump introduced by a header line such as
//! `// ----- IR after cse (changed) -----`. Output goes to a [`Sink`].

use super::{Instrumentation, PassEvent, Sink};
use crate::diff::unified_diff;
use crate::error::Result;
use crate::util::entry_text;
use rxla_ir::Module;
use std::collections::BTreeSet;

/// Which passes a print option applies to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Selection {
    #[default]
    None,
    All,
    Passes(BTreeSet<String>),
}

impl Selection {
    /// A selection of the named passes (empty list = none).
    pub fn passes<S: AsRef<str>>(names: &[S]) -> Selection {
        if names.is_empty() {
            Selection::None
        } else {
            Selection::Passes(names.iter().map(|s| s.as_ref().to_string()).collect())
        }
    }

    pub fn matches(&self, pass: &str) -> bool {
        match self {
            Selection::None => false,
            Selection::All => true,
            Selection::Passes(s) => s.contains(pass),
        }
    }

    pub fn is_none(&self) -> bool {
        matches!(self, Selection::None)
    }
}

/// How much of the module a dump shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scope {
    #[default]
    Module,
    /// Only the ENTRY computation.
    Entry,
}

/// The `--print-ir-*` settings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrintIrOptions {
    pub before: Selection,
    pub after: Selection,
    /// Print after a pass only when it changed the module. Alone, it means
    /// "after every pass that changed something".
    pub after_change: bool,
    /// Print a unified diff against the IR before the pass instead of the
    /// full IR. Alone, it means "after every pass that changed something".
    pub diff: bool,
    pub scope: Scope,
}

impl PrintIrOptions {
    /// Whether any printing is requested.
    pub fn is_active(&self) -> bool {
        !self.before.is_none() || !self.after.is_none() || self.after_change || self.diff
    }

    fn after_selected(&self, pass: &str, changed: bool) -> bool {
        let selected = if self.after.is_none() {
            self.after_change || self.diff
        } else {
            self.after.matches(pass)
        };
        let only_changed = self.after_change || (self.diff && self.after.is_none());
        selected && (changed || !only_changed)
    }
}

/// The header printed before a dump.
pub fn before_header(pass: &str) -> String {
    format!("// ----- IR before {pass} -----")
}

/// The header printed before an after-pass dump.
pub fn after_header(pass: &str, changed: bool) -> String {
    let c = if changed { "changed" } else { "unchanged" };
    format!("// ----- IR after {pass} ({c}) -----")
}

/// The printing instrumentation.
pub struct PrintIr {
    options: PrintIrOptions,
    sink: Sink,
    /// Text of the IR before the running pass (kept for diffs).
    before_text: Option<String>,
}

impl PrintIr {
    pub fn new(options: PrintIrOptions, sink: Sink) -> PrintIr {
        PrintIr {
            options,
            sink,
            before_text: None,
        }
    }

    fn text(&self, module: &Module) -> String {
        let full = rxla_ir::print_module(module);
        match self.options.scope {
            Scope::Module => full,
            Scope::Entry => entry_text(&full).to_string(),
        }
    }

    fn emit(&self, header: &str, body: &str) -> Result<()> {
        let mut s = String::with_capacity(header.len() + body.len() + 2);
        s.push_str(header);
        s.push('\n');
        s.push_str(body);
        if !body.is_empty() && !body.ends_with('\n') {
            s.push('\n');
        }
        self.sink.write(&s)
    }
}

impl Instrumentation for PrintIr {
    fn before_pass(&mut self, pass: &str, module: &Module) -> Result<()> {
        let need_text = self.options.before.matches(pass) || self.options.diff;
        self.before_text = need_text.then(|| self.text(module));
        if self.options.before.matches(pass)
            && let Some(t) = &self.before_text
        {
            self.emit(&before_header(pass), t)?;
        }
        Ok(())
    }

    fn after_pass(&mut self, event: &PassEvent<'_>, module: &Module) -> Result<()> {
        if !self.options.after_selected(event.pass, event.changed) {
            return Ok(());
        }
        let header = after_header(event.pass, event.changed);
        let now = self.text(module);
        if self.options.diff {
            let old = self.before_text.take().unwrap_or_default();
            let d = unified_diff(
                &old,
                &now,
                &format!("before {}", event.pass),
                &format!("after {}", event.pass),
                3,
            );
            if d.is_empty() {
                self.emit(&header, "// (no difference in the printed IR)\n")
            } else {
                self.emit(&header, &d)
            }
        } else {
            self.emit(&header, &now)
        }
    }
}
