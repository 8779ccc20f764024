//! `rxla._rxla`: the native half of the `rxla` Python package. It exposes
//! `compile` (→ `Executable`), `optimize`, `check`, the pipelines and the
//! exception classes; `rxla/__init__.py` wraps them in the public API.
//! Must not: contain compiler logic (it drives `rxla_ir`, `rxla_passes` and
//! `rxla_jit` as the CLI does), or let a Rust panic reach Python.

mod arrays;
mod errors;
mod exec;
mod hlo;

use pyo3::prelude::*;

#[pymodule]
fn _rxla(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(exec::compile, m)?)?;
    m.add_function(wrap_pyfunction!(hlo::optimize, m)?)?;
    m.add_function(wrap_pyfunction!(hlo::check, m)?)?;
    m.add_class::<exec::Executable>()?;
    m.add("RxlaError", py.get_type::<errors::RxlaError>())?;
    m.add("HloError", py.get_type::<errors::HloError>())?;
    m.add("PassError", py.get_type::<errors::PassError>())?;
    m.add("CompileError", py.get_type::<errors::CompileError>())?;
    m.add("RunError", py.get_type::<errors::RunError>())?;
    let pipelines: Vec<(&str, &str)> = rxla_passes::pipeline::NAMED_PIPELINES.to_vec();
    m.add("PIPELINES", pipelines)?;
    let registry = rxla_passes::Registry::standard();
    m.add("PASSES", registry.names())?;
    Ok(())
}
