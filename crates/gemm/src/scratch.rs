//! Reusable, 64-byte-aligned packing buffers kept per thread, so repeated calls neither allocate nor page-fault.
//! Re-entrant (a buffer is taken out while in use and put back after); must not hold a borrow across user code.

use std::cell::RefCell;

thread_local! {
    static POOL: RefCell<Vec<Vec<f32>>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with a zero-initialised-once scratch slice of at least `len` floats, aligned to 64 bytes.
pub(crate) fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [f32]) -> R) -> R {
    let mut buf = POOL.with(|p| p.borrow_mut().pop()).unwrap_or_default();
    if buf.len() < len + 16 {
        buf = vec![0f32; len + 16];
    }
    let skip = buf.as_ptr().align_offset(64).min(16);
    let r = f(&mut buf[skip..skip + len]);
    POOL.with(|p| p.borrow_mut().push(buf));
    r
}
