//! `check` (parse + verify, a summary dict) and `optimize` (a pass
//! pipeline over HLO text, optionally with the IR printed after every
//! pass), as the CLI's `rxla check` and `rxla opt` do. Must not: print to
//! stdout or stderr (the IR log is returned), or hold the GIL while a
//! pipeline runs.

use crate::errors::{PassError, guard, ir_error};
use crate::exec::pass_manager;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rxla_passes::instrument::{PrintIr, PrintIrOptions, Scope, Selection, Sink};

/// Parses and verifies; a summary of the module.
#[pyfunction]
#[pyo3(signature = (hlo_text, name = "<hlo>".to_string()))]
pub fn check<'py>(py: Python<'py>, hlo_text: &str, name: String) -> PyResult<Bound<'py, PyDict>> {
    let text = hlo_text.to_string();
    let r = py.detach(|| {
        guard("checking", || {
            let m = rxla_ir::parse_module(&text, &name)?;
            rxla_ir::verify_module(&m)?;
            let entry = m.entry_computation();
            let sig = m.entry_program_shape();
            Ok::<_, rxla_ir::IrError>((
                m.name.clone(),
                m.computations.len(),
                m.instruction_count(),
                entry.name.clone(),
                sig.to_string(),
                sig.parameters
                    .iter()
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>(),
                sig.result.to_string(),
            ))
        })
    })?;
    let (module, comps, instrs, entry, sig, params, result) =
        r.map_err(|e| ir_error(py, e, &name))?;
    let d = PyDict::new(py);
    d.set_item("module", module)?;
    d.set_item("computations", comps)?;
    d.set_item("instructions", instrs)?;
    d.set_item("entry", entry)?;
    d.set_item("program_shape", sig)?;
    d.set_item("parameters", params)?;
    d.set_item("result", result)?;
    Ok(d)
}

enum Failure {
    Ir(rxla_ir::IrError),
    Usage(String),
    Pass(String),
}

/// Runs `pipeline` on the module; the printed result and the IR log.
fn run_pipeline(
    text: &str,
    name: &str,
    pipeline: &str,
    print_after_all: bool,
    verify: bool,
) -> Result<(String, String), Failure> {
    let mut module = rxla_ir::parse_module(text, name).map_err(Failure::Ir)?;
    rxla_ir::verify_module(&module).map_err(Failure::Ir)?;
    let registry = rxla_passes::Registry::standard();
    let mut pm = pass_manager(pipeline, &registry).map_err(|e| Failure::Usage(e.to_string()))?;
    pm.set_verify(verify);
    let (sink, log) = Sink::buffer();
    if print_after_all {
        let print = PrintIrOptions {
            before: Selection::passes::<String>(&[]),
            after: Selection::All,
            after_change: false,
            diff: false,
            scope: Scope::Module,
        };
        pm.add_instrumentation(Box::new(PrintIr::new(print, sink)));
    }
    pm.run(&mut module)
        .map_err(|e| Failure::Pass(e.to_string()))?;
    let log = log.borrow().clone();
    Ok((rxla_ir::print_module(&module), log))
}

/// Optimizes HLO text (see `rxla.optimize`).
#[pyfunction]
#[pyo3(signature = (hlo_text, pipeline, print_ir_after_all = false, verify = true, name = "<hlo>".to_string()))]
pub fn optimize(
    py: Python<'_>,
    hlo_text: &str,
    pipeline: String,
    print_ir_after_all: bool,
    verify: bool,
    name: String,
) -> PyResult<(String, String)> {
    let text = hlo_text.to_string();
    let r = py.detach(|| {
        guard("optimizing", || {
            run_pipeline(&text, &name, &pipeline, print_ir_after_all, verify)
        })
    })?;
    match r {
        Ok(out) => Ok(out),
        Err(Failure::Ir(e)) => Err(ir_error(py, e, &name)),
        Err(Failure::Usage(m)) => Err(PyValueError::new_err(m)),
        Err(Failure::Pass(m)) => Err(PassError::new_err(m)),
    }
}
