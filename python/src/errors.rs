//! The Python exceptions of `rxla` and the conversions of the Rust errors
//! into them, plus [`guard`], which turns a Rust panic into an exception.
//! Must not: let a panic cross into Python, or lose the line/column of a
//! parse error.

use pyo3::exceptions::PyException;
use pyo3::prelude::*;

pyo3::create_exception!(rxla, RxlaError, PyException, "Base class of rxla's errors.");
pyo3::create_exception!(
    rxla,
    HloError,
    RxlaError,
    "Malformed or invalid HLO text. Attributes: `message`, `line` and `col` \
     (1-based; None for a verifier error, which has no position), `file`."
);
pyo3::create_exception!(
    rxla,
    PassError,
    RxlaError,
    "A pass pipeline is malformed, or a pass failed or broke an invariant."
);
pyo3::create_exception!(
    rxla,
    CompileError,
    RxlaError,
    "The JIT could not compile the module."
);
pyo3::create_exception!(
    rxla,
    RunError,
    RxlaError,
    "A compiled module failed while running (or a resource limit was hit)."
);

/// An `HloError` with its attributes set.
pub fn hlo_error(
    py: Python<'_>,
    text: String,
    message: String,
    line: Option<usize>,
    col: Option<usize>,
    file: &str,
) -> PyErr {
    let err = HloError::new_err(text);
    let v = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail in
    // practice; if it did, the exception still carries its text.
    let _ = v.setattr("message", message);
    let _ = v.setattr("line", line);
    let _ = v.setattr("col", col);
    let _ = v.setattr("file", file);
    err
}

/// A parse or verifier error of `rxla_ir` as an `HloError`.
pub fn ir_error(py: Python<'_>, e: rxla_ir::IrError, file: &str) -> PyErr {
    match e {
        rxla_ir::IrError::Parse(p) => {
            let text = p.to_string();
            hlo_error(py, text, p.message, Some(p.line), Some(p.col), &p.file)
        }
        e => {
            let message = e.to_string();
            hlo_error(
                py,
                format!("{file}: error: {message}"),
                message,
                None,
                None,
                file,
            )
        }
    }
}

/// Runs `f`; a panic becomes an `RxlaError` naming it (rxla should never
/// panic: this is the last line of defence, not error handling).
pub fn guard<T>(what: &str, f: impl FnOnce() -> T) -> PyResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        let detail = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        RxlaError::new_err(format!(
            "internal error: rxla panicked while {what}: {detail} (please report it)"
        ))
    })
}
