//! `--dump-dir=DIR`: writes the input and the module after every pass as
//! numbered files (`0000.input.hlo`, `0001.after_inline.hlo`, ...), an
//! `index.txt` (one line per stage: number, pass, changed, instruction
//! count) and, with graphs on, a Graphviz file of the ENTRY computation
//! per stage. Only writes inside DIR.

use super::{Instrumentation, PassEvent};
use crate::error::{PassError, Result};
use rxla_ir::Module;
use std::path::{Path, PathBuf};

/// The dump instrumentation.
pub struct DumpDir {
    dir: PathBuf,
    graphs: bool,
    stage: usize,
    index: String,
}

impl DumpDir {
    /// Dumps into `dir` (created if missing). `graphs` adds `.dot` files.
    pub fn new(dir: impl Into<PathBuf>, graphs: bool) -> DumpDir {
        DumpDir {
            dir: dir.into(),
            graphs,
            stage: 0,
            index: String::new(),
        }
    }

    fn write(&self, name: &str, text: &str) -> Result<()> {
        let p = self.dir.join(name);
        std::fs::write(&p, text)
            .map_err(|e| PassError::Io(format!("{}: error: cannot write: {e}", p.display())))
    }

    fn dump(&mut self, label: &str, pass: &str, changed: &str, module: &Module) -> Result<()> {
        let stem = format!("{:04}.{label}", self.stage);
        self.write(&format!("{stem}.hlo"), &rxla_ir::print_module(module))?;
        if self.graphs {
            let dot = rxla_ir::graph::computation_to_dot(module.entry_computation());
            self.write(&format!("{stem}.dot"), &dot)?;
        }
        self.index.push_str(&format!(
            "{:04} {pass} {changed} {}\n",
            self.stage,
            module.instruction_count()
        ));
        self.write("index.txt", &self.index)?;
        self.stage += 1;
        Ok(())
    }

    /// The directory dumped into.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Instrumentation for DumpDir {
    fn run_start(&mut self, module: &Module) -> Result<()> {
        std::fs::create_dir_all(&self.dir).map_err(|e| {
            PassError::Io(format!(
                "{}: error: cannot create the dump directory: {e}",
                self.dir.display()
            ))
        })?;
        self.dump("input", "input", "-", module)
    }

    fn after_pass(&mut self, event: &PassEvent<'_>, module: &Module) -> Result<()> {
        let changed = if event.changed {
            "changed"
        } else {
            "unchanged"
        };
        self.dump(
            &format!("after_{}", event.pass),
            event.pass,
            changed,
            module,
        )
    }
}
