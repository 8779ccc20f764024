//! `custom-call`: calls a registered `extern "C" fn(out: *mut u8, ins: *const *const u8)` (the spec's
//! `void target(void* out, void** in)`), with buffers in the physical layout of each shape.
//!
//! Marshalling: each argument is copied into its own 8-byte aligned buffer holding `to_physical_bytes()` (so the
//! argument's layout, including padding, is what the function sees); `ins` points to an array of those buffer
//! pointers, in argument order. For an array result, `out` points to a zeroed, 8-byte aligned buffer of
//! `out.byte_size()` bytes, read back with `from_physical_bytes`. For a tuple result (XLA's convention) `out` points to
//! an array of pointers, one per tuple element, each to that element's buffer (a nested tuple element is again a
//! pointer array). Zero-sized buffers are passed as non-null dangling pointers that must not be dereferenced.
//! The called function is trusted: it must write within the buffers it is given.

use super::util::check_literal;
use crate::error::{EvalError, Result};
use rxla_ir::{ArrayLiteral, Literal, Shape};
use std::collections::HashMap;

/// A custom-call target: `out` is the result buffer, `ins` an array of argument buffer pointers.
pub type CustomCallFn = extern "C" fn(out: *mut u8, ins: *const *const u8);

/// Registered custom-call targets by name.
#[derive(Clone, Default, Debug)]
pub struct CustomCallRegistry {
    targets: HashMap<String, CustomCallFn>,
}

impl CustomCallRegistry {
    /// Registers (or replaces) the function called for `name`.
    pub fn register(&mut self, name: impl Into<String>, f: CustomCallFn) {
        self.targets.insert(name.into(), f);
    }

    pub fn get(&self, name: &str) -> Option<CustomCallFn> {
        self.targets.get(name).copied()
    }

    pub fn contains(&self, name: &str) -> bool {
        self.targets.contains_key(name)
    }
}

/// An 8-byte aligned byte buffer.
struct Buffer {
    words: Vec<u64>,
    len: usize,
}

impl Buffer {
    fn zeroed(len: usize) -> Buffer {
        Buffer {
            words: vec![0; len.div_ceil(8)],
            len,
        }
    }

    fn from_bytes(bytes: &[u8]) -> Buffer {
        let mut b = Buffer::zeroed(bytes.len());
        for (w, chunk) in b.words.iter_mut().zip(bytes.chunks(8)) {
            let mut a = [0u8; 8];
            a[..chunk.len()].copy_from_slice(chunk);
            *w = u64::from_ne_bytes(a);
        }
        b
    }

    fn bytes(&self) -> Vec<u8> {
        self.words
            .iter()
            .flat_map(|w| w.to_ne_bytes())
            .take(self.len)
            .collect()
    }

    fn ptr(&mut self) -> *mut u8 {
        self.words.as_mut_ptr().cast()
    }
}

/// The result storage: a buffer for an array, a pointer table plus children for a tuple.
enum OutTree {
    Array(Buffer),
    Tuple {
        table: Vec<*mut u8>,
        children: Vec<OutTree>,
    },
}

impl OutTree {
    fn new(shape: &Shape) -> Result<OutTree> {
        Ok(match shape {
            Shape::Array(a) => OutTree::Array(Buffer::zeroed(a.byte_size()?)),
            Shape::Tuple(t) => {
                let mut children = t.iter().map(OutTree::new).collect::<Result<Vec<_>>>()?;
                // Children own heap storage, so these pointers stay valid when `children` moves.
                let table = children.iter_mut().map(OutTree::ptr).collect();
                OutTree::Tuple { table, children }
            }
        })
    }

    fn ptr(&mut self) -> *mut u8 {
        match self {
            OutTree::Array(b) => b.ptr(),
            OutTree::Tuple { table, .. } => table.as_mut_ptr().cast(),
        }
    }

    fn read(&self, shape: &Shape) -> Result<Literal> {
        match (self, shape) {
            (OutTree::Array(b), Shape::Array(a)) => Ok(Literal::Array(
                ArrayLiteral::from_physical_bytes(a.clone(), &b.bytes())?,
            )),
            (OutTree::Tuple { children, .. }, Shape::Tuple(t)) => Ok(Literal::Tuple(
                children
                    .iter()
                    .zip(t)
                    .map(|(c, s)| c.read(s))
                    .collect::<Result<_>>()?,
            )),
            _ => Err(EvalError::new(
                "custom-call: result storage does not match its shape",
            )),
        }
    }
}

/// Calls `target` from `registry` on `args`; `out` is the instruction's shape.
pub fn call(
    registry: &CustomCallRegistry,
    target: &str,
    args: &[&ArrayLiteral],
    out: &Shape,
) -> Result<Literal> {
    let f = registry.get(target).ok_or_else(|| {
        EvalError::new(format!(
            "custom-call: no function is registered for target \"{target}\""
        ))
    })?;
    out.validate()?;
    let mut ins: Vec<Buffer> = args
        .iter()
        .map(|a| {
            check_literal(a, "custom-call argument")?;
            Ok(Buffer::from_bytes(&a.to_physical_bytes()?))
        })
        .collect::<Result<_>>()?;
    let in_ptrs: Vec<*const u8> = ins.iter_mut().map(|b| b.ptr().cast_const()).collect();
    let mut result = OutTree::new(out)?;
    f(result.ptr(), in_ptrs.as_ptr());
    result.read(out)
}
