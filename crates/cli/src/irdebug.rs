//! The IR-watching flags shared by `rxla opt` and `rxla run`
//! (`--print-ir-*`, `--dump-dir`) and the pass-manager instrumentation
//! they turn into. This module only maps flags; printing and dumping are
//! `rxla_passes::instrument`'s.

use clap::{Args, ValueEnum};
use rxla_passes::instrument::{DumpDir, PrintIr, PrintIrOptions, Scope, Selection, Sink};
use rxla_passes::{PassManager, Registry};
use std::path::PathBuf;

/// `--print-ir-scope`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum IrScope {
    /// The whole module.
    Module,
    /// Only the ENTRY computation.
    Entry,
}

#[derive(Args, Clone, Debug)]
pub struct IrDebugArgs {
    /// Print the IR before these passes (comma list).
    #[arg(long, value_name = "P,Q", value_delimiter = ',')]
    pub print_ir_before: Vec<String>,
    /// Print the IR after these passes (comma list).
    #[arg(long, value_name = "P,Q", value_delimiter = ',')]
    pub print_ir_after: Vec<String>,
    /// Print the IR before every pass.
    #[arg(long)]
    pub print_ir_before_all: bool,
    /// Print the IR after every pass.
    #[arg(long)]
    pub print_ir_after_all: bool,
    /// Print after a pass only if it changed the module (alone: after every
    /// pass that changed something).
    #[arg(long)]
    pub print_ir_after_change: bool,
    /// Print a unified diff against the IR before the pass instead of the
    /// full IR (alone: after every pass that changed something).
    #[arg(long)]
    pub print_ir_diff: bool,
    /// What the dumps show.
    #[arg(long, value_enum, default_value = "module")]
    pub print_ir_scope: IrScope,
    /// Write every stage to DIR: 0000.input.hlo, 0001.after_<pass>.hlo, ...
    /// and DIR/index.txt (number, pass, changed, instruction count).
    #[arg(long, value_name = "DIR")]
    pub dump_dir: Option<PathBuf>,
    /// With --dump-dir, also write the ENTRY computation as Graphviz DOT per
    /// stage.
    #[arg(long, requires = "dump_dir")]
    pub dump_graphs: bool,
}

impl IrDebugArgs {
    /// Unknown pass names in `--print-ir-before/--print-ir-after`: a usage
    /// error naming the flag and the known passes.
    pub fn check(&self, registry: &Registry) -> Result<(), String> {
        for (flag, names) in [
            ("--print-ir-before", &self.print_ir_before),
            ("--print-ir-after", &self.print_ir_after),
        ] {
            check_pass_names(registry, flag, names)?;
        }
        Ok(())
    }

    /// Adds the printing and dumping the flags ask for to `pm`.
    pub fn instrument(&self, pm: &mut PassManager) {
        let print = PrintIrOptions {
            before: if self.print_ir_before_all {
                Selection::All
            } else {
                Selection::passes(&self.print_ir_before)
            },
            after: if self.print_ir_after_all {
                Selection::All
            } else {
                Selection::passes(&self.print_ir_after)
            },
            after_change: self.print_ir_after_change,
            diff: self.print_ir_diff,
            scope: match self.print_ir_scope {
                IrScope::Module => Scope::Module,
                IrScope::Entry => Scope::Entry,
            },
        };
        if print.is_active() {
            pm.add_instrumentation(Box::new(PrintIr::new(print, Sink::Stderr)));
        }
        if let Some(dir) = &self.dump_dir {
            pm.add_instrumentation(Box::new(DumpDir::new(dir, self.dump_graphs)));
        }
    }
}

/// An error naming `flag` when one of `names` is not a registered pass.
pub fn check_pass_names(registry: &Registry, flag: &str, names: &[String]) -> Result<(), String> {
    for n in names {
        if registry.create(n).is_none() {
            return Err(format!(
                "error: {flag}: unknown pass `{n}` (known passes: {})",
                registry.names().join(", ")
            ));
        }
    }
    Ok(())
}
