//! Strided matrix views (`MatRef`, `MatMut`) and the offset descriptions (`Offsets`) the packers read through.
//! A view is a pointer plus a row stride and a column stride in elements, so any layout or transposition is
//! absorbed by the packing. The safe constructors check every addressed element lies inside the slice; this
//! module must not read or write matrix data.

use crate::error::{GemmError, Result};
use std::marker::PhantomData;

/// How the rows (or columns) of an operand map to element offsets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Offsets {
    /// Index `i` is at `i * stride`.
    Strided(isize),
    /// Index `i` is at `table[i]` (dot_general free/contracting dimensions that do not merge, conv taps).
    Table(Vec<isize>),
}

impl Offsets {
    #[inline(always)]
    pub(crate) fn at(&self, i: usize) -> isize {
        match self {
            Offsets::Strided(s) => i as isize * *s,
            Offsets::Table(t) => t[i],
        }
    }
}

/// Checks that `rows x cols` elements at `r*rs + c*cs` lie inside `len` elements; returns nothing on success.
fn check_extent(
    what: &str,
    len: usize,
    rows: usize,
    cols: usize,
    rs: isize,
    cs: isize,
) -> Result<()> {
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    let span = |n: usize, s: isize| -> Option<isize> { (n as isize - 1).checked_mul(s) };
    let (r, c) = match (span(rows, rs), span(cols, cs)) {
        (Some(r), Some(c)) => (r, c),
        _ => {
            return Err(GemmError::new(format!(
                "{what}: strides ({rs}, {cs}) overflow for {rows}x{cols}"
            )));
        }
    };
    let lo = r.min(0) + c.min(0);
    let hi = r.max(0).checked_add(c.max(0));
    match hi {
        Some(hi) if lo >= 0 && (hi as usize) < len => Ok(()),
        _ => Err(GemmError::new(format!(
            "{what}: a {rows}x{cols} view with strides ({rs}, {cs}) addresses offsets {lo}..={} but the buffer has {len} elements (negative offsets are not allowed)",
            hi.unwrap_or(isize::MAX)
        ))),
    }
}

/// A read-only strided f32 matrix.
#[derive(Clone, Copy, Debug)]
pub struct MatRef<'a> {
    pub(crate) ptr: *const f32,
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) rs: isize,
    pub(crate) cs: isize,
    _life: PhantomData<&'a [f32]>,
}

// SAFETY: a MatRef is a shared borrow of f32 data.
unsafe impl Send for MatRef<'_> {}
unsafe impl Sync for MatRef<'_> {}

impl<'a> MatRef<'a> {
    /// A view of `data` with element `(r, c)` at `r * rs + c * cs`; every addressed element must be in `data`.
    pub fn new(data: &'a [f32], rows: usize, cols: usize, rs: isize, cs: isize) -> Result<Self> {
        check_extent("MatRef::new", data.len(), rows, cols, rs, cs)?;
        Ok(MatRef {
            ptr: data.as_ptr(),
            rows,
            cols,
            rs,
            cs,
            _life: PhantomData,
        })
    }

    /// A row-major `rows x cols` view (`data.len()` must be at least `rows * cols`).
    pub fn row_major(data: &'a [f32], rows: usize, cols: usize) -> Result<Self> {
        Self::new(data, rows, cols, cols as isize, 1)
    }

    /// A view from a raw pointer.
    ///
    /// # Safety
    /// Every element `ptr + r*rs + c*cs` for `r < rows`, `c < cols` must be readable for `'a`.
    pub unsafe fn from_raw(
        ptr: *const f32,
        rows: usize,
        cols: usize,
        rs: isize,
        cs: isize,
    ) -> Self {
        MatRef {
            ptr,
            rows,
            cols,
            rs,
            cs,
            _life: PhantomData,
        }
    }

    /// The transposed view (free: strides swap).
    pub fn t(self) -> Self {
        MatRef {
            rows: self.cols,
            cols: self.rows,
            rs: self.cs,
            cs: self.rs,
            ..self
        }
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }
}

/// A mutable strided f32 matrix (the GEMM output).
#[derive(Debug)]
pub struct MatMut<'a> {
    pub(crate) ptr: *mut f32,
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) rs: isize,
    pub(crate) cs: isize,
    _life: PhantomData<&'a mut [f32]>,
}

// SAFETY: a MatMut is an exclusive borrow of f32 data; the driver gives each thread disjoint tiles.
unsafe impl Send for MatMut<'_> {}
unsafe impl Sync for MatMut<'_> {}

impl<'a> MatMut<'a> {
    /// A view of `data` with element `(r, c)` at `r * rs + c * cs`. Distinct `(r, c)` must map to distinct
    /// offsets (checked: both strides non-zero unless that extent is 1).
    pub fn new(
        data: &'a mut [f32],
        rows: usize,
        cols: usize,
        rs: isize,
        cs: isize,
    ) -> Result<Self> {
        check_extent("MatMut::new", data.len(), rows, cols, rs, cs)?;
        if rows > 0 && cols > 0 && ((rows > 1 && rs == 0) || (cols > 1 && cs == 0)) {
            return Err(GemmError::new(format!(
                "MatMut::new: zero stride ({rs}, {cs}) would alias output elements of a {rows}x{cols} view"
            )));
        }
        Ok(MatMut {
            ptr: data.as_mut_ptr(),
            rows,
            cols,
            rs,
            cs,
            _life: PhantomData,
        })
    }

    /// A row-major `rows x cols` view.
    pub fn row_major(data: &'a mut [f32], rows: usize, cols: usize) -> Result<Self> {
        Self::new(data, rows, cols, cols as isize, 1)
    }

    /// A view from a raw pointer.
    ///
    /// # Safety
    /// Every element `ptr + r*rs + c*cs` must be writable for `'a`, not aliased elsewhere, and distinct
    /// `(r, c)` must map to distinct addresses.
    pub unsafe fn from_raw(ptr: *mut f32, rows: usize, cols: usize, rs: isize, cs: isize) -> Self {
        MatMut {
            ptr,
            rows,
            cols,
            rs,
            cs,
            _life: PhantomData,
        }
    }

    /// The transposed view.
    pub fn t(self) -> Self {
        MatMut {
            rows: self.cols,
            cols: self.rows,
            rs: self.cs,
            cs: self.rs,
            ..self
        }
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }
}
