//! `compile` and the compiled `Executable`: parse → verify → pass pipeline
//! → `rxla_jit::compile`, then runs on numpy arrays through
//! `Executable::run_into` (inputs read in place, results written straight
//! into the output arrays unless a layout differs from row-major). The GIL
//! is released while compiling and running. Must not: run a module with a
//! buffer whose dtype, shape or size was not checked, or let a panic out.

use crate::arrays::{RawArray, dtype_name, read_array};
use crate::errors::{CompileError, PassError, RunError, guard, ir_error};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rxla_ir::{ArrayLiteral, ArrayShape, Layout, Shape};
use std::time::Instant;

/// Why compiling failed (built without the GIL, raised with it).
enum Failure {
    Ir(rxla_ir::IrError),
    Pass(String),
    Usage(String),
    Compile(String),
}

/// A pass manager for `pipeline`: a named pipeline (`O0`, `O1`, `O2`) or
/// pipeline text (`inline,cse,dce`).
pub fn pass_manager(
    pipeline: &str,
    registry: &rxla_passes::Registry,
) -> Result<rxla_passes::PassManager, rxla_passes::PassError> {
    if rxla_passes::pipeline::named_pipeline_text(pipeline).is_some() {
        rxla_passes::PassManager::named(pipeline, registry)
    } else {
        rxla_passes::PassManager::from_text(pipeline, registry)
    }
}

/// A module compiled by rxla's JIT. Call it through the Python wrapper
/// `rxla.Executable`, which prepares the arrays.
#[pyclass(frozen, module = "rxla._rxla", name = "Executable")]
pub struct Executable {
    exe: rxla_jit::Executable,
    /// ENTRY parameters (arrays only), in the layouts the JIT expects.
    params: Vec<ArrayShape>,
    /// Result leaves, depth-first, in the layouts the JIT writes.
    results: Vec<ArrayShape>,
    compile_seconds: f64,
    pipeline: String,
    optimized: String,
}

fn compile_module(
    text: &str,
    name: &str,
    pipeline: Option<&str>,
    opts: &rxla_jit::CompileOptions,
) -> Result<(rxla_jit::Executable, String), Failure> {
    let mut module = rxla_ir::parse_module(text, name).map_err(Failure::Ir)?;
    rxla_ir::verify_module(&module).map_err(Failure::Ir)?;
    if let Some(p) = pipeline {
        let registry = rxla_passes::Registry::standard();
        let mut pm = pass_manager(p, &registry).map_err(|e| Failure::Usage(e.to_string()))?;
        pm.run(&mut module)
            .map_err(|e| Failure::Pass(e.to_string()))?;
    }
    let exe = rxla_jit::compile(&module, opts).map_err(|e| Failure::Compile(e.to_string()))?;
    Ok((exe, rxla_ir::print_module(&module)))
}

/// Compiles HLO text (see `rxla.compile`).
#[pyfunction]
#[pyo3(signature = (hlo_text, pipeline = Some("O2".to_string()), threads = None, fallback = true, name = "<hlo>".to_string()))]
pub fn compile(
    py: Python<'_>,
    hlo_text: &str,
    pipeline: Option<String>,
    threads: Option<usize>,
    fallback: bool,
    name: String,
) -> PyResult<Executable> {
    let opts = rxla_jit::CompileOptions {
        threads,
        allow_interpreter_fallback: fallback,
        ..rxla_jit::CompileOptions::default()
    };
    let t0 = Instant::now();
    let text = hlo_text.to_string();
    let result = py.detach(|| {
        guard("compiling", || {
            compile_module(&text, &name, pipeline.as_deref(), &opts)
        })
    })?;
    let (exe, optimized) = match result {
        Ok(r) => r,
        Err(Failure::Ir(e)) => return Err(ir_error(py, e, &name)),
        Err(Failure::Usage(m)) => return Err(PyValueError::new_err(m)),
        Err(Failure::Pass(m)) => return Err(PassError::new_err(m)),
        Err(Failure::Compile(m)) => return Err(CompileError::new_err(m)),
    };
    let mut params = Vec::new();
    for (k, p) in exe.parameter_shapes().iter().enumerate() {
        match p {
            Shape::Array(a) if dtype_name(a.element_type).is_some() => params.push(a.clone()),
            _ => {
                return Err(CompileError::new_err(format!(
                    "parameter {k} has shape {p}: rxla's Python API passes arrays only (no tuples or tokens)"
                )));
            }
        }
    }
    let mut results = Vec::new();
    for a in exe.result_shape().leaves() {
        if dtype_name(a.element_type).is_none() {
            return Err(CompileError::new_err(format!(
                "the result has a {a} leaf: rxla's Python API returns arrays only"
            )));
        }
        results.push(a.clone());
    }
    Ok(Executable {
        exe,
        params,
        results,
        compile_seconds: t0.elapsed().as_secs_f64(),
        pipeline: pipeline.unwrap_or_default(),
        optimized,
    })
}

/// `(dtype name, dims)` of an array shape.
fn spec(a: &ArrayShape) -> (&'static str, Vec<i64>) {
    (
        dtype_name(a.element_type).unwrap_or("token"),
        a.dims.clone(),
    )
}

/// The result's nesting: a leaf index for an array, a list for a tuple.
fn structure<'py>(py: Python<'py>, s: &Shape, next: &mut usize) -> PyResult<Bound<'py, PyAny>> {
    match s {
        Shape::Array(_) => {
            *next += 1;
            Ok((*next - 1).into_pyobject(py)?.into_any())
        }
        Shape::Tuple(t) => {
            let items = t
                .iter()
                .map(|x| structure(py, x, next))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(PyList::new(py, items)?.into_any())
        }
    }
}

/// Checks `arrays` against `shapes`: count (TypeError), dtype (TypeError),
/// shape (ValueError).
fn check_arrays(
    arrays: &[Bound<'_, PyAny>],
    shapes: &[ArrayShape],
    what: &str,
    writable: bool,
) -> PyResult<Vec<RawArray>> {
    if arrays.len() != shapes.len() {
        return Err(PyTypeError::new_err(format!(
            "expected {} {what}(s), got {}",
            shapes.len(),
            arrays.len()
        )));
    }
    let mut out = Vec::with_capacity(arrays.len());
    for (k, (a, s)) in arrays.iter().zip(shapes).enumerate() {
        let label = format!("{what} {k}");
        let raw = read_array(a, &label, writable)?;
        let (want_ty, want_dims) = spec(s);
        if raw.ty != s.element_type {
            return Err(PyTypeError::new_err(format!(
                "{label}: dtype {}, expected {want_ty} (shape {})",
                dtype_name(raw.ty).unwrap_or("?"),
                Shape::Array(s.clone()).to_string_no_layout()
            )));
        }
        if raw.dims != want_dims {
            return Err(PyValueError::new_err(format!(
                "{label}: shape {:?}, expected {:?} ({})",
                raw.dims,
                want_dims,
                Shape::Array(s.clone()).to_string_no_layout()
            )));
        }
        out.push(raw);
    }
    Ok(out)
}

/// Refuses overlapping buffers (an output aliasing an input or another
/// output would break the JIT's assumptions).
fn check_disjoint(inputs: &[RawArray], outputs: &[RawArray]) -> PyResult<()> {
    for (i, o) in outputs.iter().enumerate() {
        let overlaps = |a: &RawArray| {
            a.len > 0 && o.len > 0 && a.addr < o.addr + o.len && o.addr < a.addr + a.len
        };
        if inputs.iter().any(overlaps) || outputs[..i].iter().any(overlaps) {
            return Err(PyValueError::new_err(format!(
                "output {i} overlaps another buffer of the call"
            )));
        }
    }
    Ok(())
}

/// Row-major bytes → the physical bytes of `shape` (a non-default layout).
fn to_layout(bytes: &[u8], shape: &ArrayShape) -> rxla_ir::Result<Vec<u8>> {
    ArrayLiteral::from_physical_bytes(shape.with_default_layout(), bytes)?
        .relayout(shape.layout.clone())?
        .to_physical_bytes()
}

/// Physical bytes of `shape` → row-major bytes.
fn from_layout(bytes: &[u8], shape: &ArrayShape) -> rxla_ir::Result<Vec<u8>> {
    ArrayLiteral::from_physical_bytes(shape.clone(), bytes)?
        .relayout(Layout::default_for_rank(shape.dims.len()))?
        .to_physical_bytes()
}

/// A byte slice over a checked [`RawArray`].
///
/// # Safety
/// The array must be alive, unresized, and not written by anyone else
/// while the slice is used.
unsafe fn slice<'a>(addr: usize, len: usize) -> &'a [u8] {
    if len == 0 {
        &[]
    } else {
        // SAFETY: the caller guarantees a live buffer of `len` bytes.
        unsafe { std::slice::from_raw_parts(addr as *const u8, len) }
    }
}

/// A mutable byte slice over a checked, writable [`RawArray`].
///
/// # Safety
/// As [`slice`], and no other slice may overlap it.
unsafe fn slice_mut<'a>(addr: usize, len: usize) -> &'a mut [u8] {
    if len == 0 {
        &mut []
    } else {
        // SAFETY: the caller guarantees an exclusive live buffer.
        unsafe { std::slice::from_raw_parts_mut(addr as *mut u8, len) }
    }
}

impl Executable {
    /// Runs `runs` times on checked buffers; the seconds of each run.
    fn run_raw(
        &self,
        ins: &[(usize, usize)],
        outs: &[(usize, usize)],
        runs: usize,
    ) -> Result<Vec<f64>, String> {
        let opts = rxla_eval::RunOptions::default();
        // Inputs whose parameter layout is not row-major are converted
        // once (no copy otherwise).
        let mut converted: Vec<Option<Vec<u8>>> = Vec::with_capacity(ins.len());
        for (&(addr, len), p) in ins.iter().zip(&self.params) {
            converted.push(if p.layout.is_default() {
                None
            } else {
                // SAFETY: checked by `check_arrays`; the caller keeps the arrays alive.
                Some(to_layout(unsafe { slice(addr, len) }, p).map_err(|e| e.to_string())?)
            });
        }
        let in_slices: Vec<&[u8]> = ins
            .iter()
            .zip(&converted)
            // SAFETY: as above.
            .map(|(&(addr, len), c)| c.as_deref().unwrap_or(unsafe { slice(addr, len) }))
            .collect();
        let mut temps: Vec<Option<Vec<u8>>> = Vec::with_capacity(outs.len());
        for r in &self.results {
            temps.push(if r.layout.is_default() {
                None
            } else {
                Some(vec![0u8; r.byte_size().map_err(|e| e.to_string())?])
            });
        }
        let mut times = Vec::with_capacity(runs);
        {
            let mut out_slices: Vec<&mut [u8]> = outs
                .iter()
                .zip(temps.iter_mut())
                .map(|(&(addr, len), t)| match t {
                    Some(t) => t.as_mut_slice(),
                    // SAFETY: checked writable, disjoint from every other buffer.
                    None => unsafe { slice_mut(addr, len) },
                })
                .collect();
            for _ in 0..runs {
                let t = Instant::now();
                self.exe
                    .run_into_with(&in_slices, &mut out_slices, &opts)
                    .map_err(|e| e.to_string())?;
                times.push(t.elapsed().as_secs_f64());
            }
        }
        for ((&(addr, len), t), r) in outs.iter().zip(&temps).zip(&self.results) {
            if let Some(t) = t {
                let row_major = from_layout(t, r).map_err(|e| e.to_string())?;
                // SAFETY: as above.
                unsafe { slice_mut(addr, len) }.copy_from_slice(&row_major);
            }
        }
        Ok(times)
    }

    /// Checks the arrays, then runs without the GIL.
    fn call(
        &self,
        py: Python<'_>,
        inputs: Vec<Bound<'_, PyAny>>,
        outputs: Vec<Bound<'_, PyAny>>,
        runs: usize,
    ) -> PyResult<Vec<f64>> {
        let ins = check_arrays(&inputs, &self.params, "argument", false)?;
        let outs = check_arrays(&outputs, &self.results, "output", true)?;
        check_disjoint(&ins, &outs)?;
        let ins: Vec<(usize, usize)> = ins.iter().map(|a| (a.addr, a.len)).collect();
        let outs: Vec<(usize, usize)> = outs.iter().map(|a| (a.addr, a.len)).collect();
        // `inputs` and `outputs` hold the arrays alive until we return.
        py.detach(|| guard("running", || self.run_raw(&ins, &outs, runs)))?
            .map_err(RunError::new_err)
    }
}

#[pymethods]
impl Executable {
    /// Runs once: `inputs` and `outputs` are C-contiguous numpy arrays of
    /// the parameter and result leaf specs; results are written into
    /// `outputs`.
    fn run(
        &self,
        py: Python<'_>,
        inputs: Vec<Bound<'_, PyAny>>,
        outputs: Vec<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.call(py, inputs, outputs, 1).map(|_| ())
    }

    /// Runs `runs` times after one untimed warm-up run; returns the
    /// seconds of each timed run.
    #[pyo3(signature = (inputs, outputs, runs = 10))]
    fn time(
        &self,
        py: Python<'_>,
        inputs: Vec<Bound<'_, PyAny>>,
        outputs: Vec<Bound<'_, PyAny>>,
        runs: usize,
    ) -> PyResult<Vec<f64>> {
        if runs == 0 {
            return Err(PyValueError::new_err("runs must be at least 1"));
        }
        self.call(py, inputs.clone(), outputs.clone(), 1)?;
        self.call(py, inputs, outputs, runs)
    }

    /// `[(dtype name, shape), ...]` of the ENTRY parameters.
    #[getter]
    fn params(&self) -> Vec<(&'static str, Vec<i64>)> {
        self.params.iter().map(spec).collect()
    }

    /// `[(dtype name, shape), ...]` of the result's array leaves.
    #[getter]
    fn results(&self) -> Vec<(&'static str, Vec<i64>)> {
        self.results.iter().map(spec).collect()
    }

    /// The result's nesting: an int (leaf index) for an array result,
    /// nested lists of leaf indices for a tuple.
    #[getter]
    fn result_structure<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        structure(py, self.exe.result_shape(), &mut 0)
    }

    /// The module as compiled (after the pass pipeline), as HLO text.
    #[getter]
    fn optimized_hlo(&self) -> &str {
        &self.optimized
    }

    /// What the JIT did, as a dict (see `rxla.Executable.stats`).
    #[getter]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.exe.stats();
        let d = PyDict::new(py);
        d.set_item("isa", &s.isa)?;
        d.set_item("kernels", s.kernels)?;
        d.set_item("vectorized_kernels", s.vectorized_kernels)?;
        d.set_item("fallbacks", &s.fallbacks)?;
        d.set_item("runtime_calls", &s.runtime_calls)?;
        d.set_item("host_steps", s.host_steps)?;
        d.set_item("row_groups", s.row_groups)?;
        d.set_item("planned_bytes", self.exe.planned_bytes())?;
        d.set_item("compile_seconds", self.compile_seconds)?;
        d.set_item("pipeline", &self.pipeline)?;
        Ok(d)
    }
}
