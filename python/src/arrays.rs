//! numpy arrays as JIT buffers: reads an `ndarray`'s data pointer, dtype and
//! shape through `__array_interface__` (the abi3 limited API of Python 3.9
//! has no buffer protocol), and maps numpy dtype names to element types.
//! Must not: copy array data, or accept anything but a C-contiguous,
//! element-aligned, native-byte-order `numpy.ndarray` (the Python layer,
//! `rxla/__init__.py`, makes such arrays; this module only checks).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use rxla_ir::ElementType;

/// The numpy dtype name of an element type (`None` for token).
pub fn dtype_name(t: ElementType) -> Option<&'static str> {
    Some(match t {
        ElementType::Pred => "bool",
        ElementType::S8 => "int8",
        ElementType::S16 => "int16",
        ElementType::S32 => "int32",
        ElementType::S64 => "int64",
        ElementType::U8 => "uint8",
        ElementType::U16 => "uint16",
        ElementType::U32 => "uint32",
        ElementType::U64 => "uint64",
        ElementType::F16 => "float16",
        ElementType::BF16 => "bfloat16",
        ElementType::F32 => "float32",
        ElementType::F64 => "float64",
        ElementType::C64 => "complex64",
        ElementType::C128 => "complex128",
        // The narrow types are ml_dtypes' (one element per byte, as rxla
        // stores them: zero-copy).
        ElementType::S2 => "int2",
        ElementType::S4 => "int4",
        ElementType::U2 => "uint2",
        ElementType::U4 => "uint4",
        ElementType::F8E4M3FN => "float8_e4m3fn",
        ElementType::F8E5M2 => "float8_e5m2",
        ElementType::F8E4M3B11FNUZ => "float8_e4m3b11fnuz",
        ElementType::F8E4M3FNUZ => "float8_e4m3fnuz",
        ElementType::F8E5M2FNUZ => "float8_e5m2fnuz",
        ElementType::Token => return None,
    })
}

/// The element type of a numpy dtype name.
pub fn element_type(name: &str) -> Option<ElementType> {
    ElementType::ALL
        .into_iter()
        .find(|&t| dtype_name(t) == Some(name))
}

/// A checked view of an ndarray's memory. The array it came from must be
/// kept alive (and not resized) while the pointer is used.
pub struct RawArray {
    pub ty: ElementType,
    pub dims: Vec<i64>,
    /// Address of the first element.
    pub addr: usize,
    /// Bytes of data (element count × element size).
    pub len: usize,
}

/// Reads `obj` (which must be a `numpy.ndarray`) as a [`RawArray`]; `what`
/// names it in errors ("argument 0"); `writable` for output arrays.
pub fn read_array(obj: &Bound<'_, PyAny>, what: &str, writable: bool) -> PyResult<RawArray> {
    let py = obj.py();
    let ndarray = py.import("numpy")?.getattr("ndarray")?;
    if !obj.is_instance(&ndarray)? {
        return Err(PyTypeError::new_err(format!(
            "{what}: expected a numpy.ndarray, got {}",
            obj.get_type().name()?
        )));
    }
    let dtype = obj.getattr("dtype")?;
    let name: String = dtype.getattr("name")?.extract()?;
    let ty = element_type(&name).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{what}: numpy dtype {name} has no HLO element type"
        ))
    })?;
    let order: String = dtype.getattr("byteorder")?.extract()?;
    let foreign = if cfg!(target_endian = "little") {
        ">"
    } else {
        "<"
    };
    if order == foreign {
        return Err(PyValueError::new_err(format!(
            "{what}: the array is not in native byte order"
        )));
    }
    let itemsize: usize = dtype.getattr("itemsize")?.extract()?;
    if itemsize != ty.byte_size() {
        return Err(PyTypeError::new_err(format!(
            "{what}: dtype {name} has {itemsize}-byte items, {} needs {}",
            ty.name(),
            ty.byte_size()
        )));
    }
    let iface = obj.getattr("__array_interface__")?;
    let iface = iface.cast::<PyDict>()?;
    let get = |k: &str| -> PyResult<Bound<'_, PyAny>> {
        iface
            .get_item(k)?
            .ok_or_else(|| PyValueError::new_err(format!("{what}: __array_interface__ has no {k}")))
    };
    if !get("strides")?.is_none() {
        return Err(PyValueError::new_err(format!(
            "{what}: the array is not C-contiguous"
        )));
    }
    let dims: Vec<i64> = get("shape")?.cast::<PyTuple>()?.extract()?;
    let (addr, readonly): (usize, bool) = get("data")?.extract()?;
    if writable && readonly {
        return Err(PyValueError::new_err(format!(
            "{what}: the array is read-only"
        )));
    }
    let mut count: usize = 1;
    for &d in &dims {
        count = usize::try_from(d)
            .ok()
            .and_then(|d| count.checked_mul(d))
            .ok_or_else(|| PyValueError::new_err(format!("{what}: bad shape {dims:?}")))?;
    }
    let len = count
        .checked_mul(itemsize)
        .ok_or_else(|| PyValueError::new_err(format!("{what}: the array is too large")))?;
    if len > 0 && (addr == 0 || !addr.is_multiple_of(itemsize)) {
        return Err(PyValueError::new_err(format!(
            "{what}: the array's data is not aligned to its element size"
        )));
    }
    Ok(RawArray {
        ty,
        dims,
        addr,
        len,
    })
}
