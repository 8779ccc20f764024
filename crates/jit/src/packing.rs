//! Packed narrow integers at the JIT boundary. XLA buffers of s2/u2/s4/u4
//! whose layout says `E(2)`/`E(4)` hold 4 or 2 elements per byte; inside,
//! the JIT keeps one byte per element. `compile` plans a copy of the
//! module with every `element_size_in_bits` removed ([`strip`]) and keeps
//! the caller-facing shapes ([`external`]); `run_into` unpacks packed
//! parameter buffers into temporaries and packs results from temporaries
//! ([`Staging`]). Lengths are checked before any copy. Nothing here runs
//! generated code or touches buffers it did not get as slices.

use crate::error::{JitError, Result};
use rxla_ir::narrow::{pack_bits, packed_len, unpack_bits};
use rxla_ir::{ArrayShape, Literal, Module, Op, Shape};

/// Whether any shape or constant of the module has a packed layout.
pub fn any_packed(module: &Module) -> bool {
    let packed = |s: &Shape| s.leaves().iter().any(|a| a.packed_bits().is_some());
    module
        .entry_layout
        .as_ref()
        .is_some_and(|l| l.parameters.iter().any(packed) || packed(&l.result))
        || module.computations.iter().any(|c| {
            c.instructions.iter().any(|i| {
                packed(&i.shape)
                    || matches!(&i.op, Op::Constant { literal } if packed(&literal.shape()))
            })
        })
}

/// Removes `element_size_in_bits` from every shape, constant and the
/// entry layout: the JIT's one-byte-per-element storage.
pub fn strip(module: &mut Module) {
    if let Some(l) = module.entry_layout.as_mut() {
        l.parameters.iter_mut().for_each(strip_shape);
        strip_shape(&mut l.result);
    }
    for c in &mut module.computations {
        for i in &mut c.instructions {
            strip_shape(&mut i.shape);
            if let Op::Constant { literal } = &mut i.op {
                strip_literal(literal);
            }
        }
    }
}

fn strip_shape(s: &mut Shape) {
    match s {
        Shape::Array(a) => a.layout.element_size_in_bits = None,
        Shape::Tuple(t) => t.iter_mut().for_each(strip_shape),
    }
}

fn strip_literal(l: &mut Literal) {
    match l {
        Literal::Array(a) => a.shape.layout.element_size_in_bits = None,
        Literal::Tuple(t) => t.iter_mut().for_each(strip_literal),
    }
}

/// `internal` (a shape of the stripped module) with the element sizes of
/// `given` (the same place in the module as given) where both have the
/// same structure; `internal` unchanged otherwise.
pub fn external(internal: &Shape, given: &Shape) -> Shape {
    match (internal, given) {
        (Shape::Array(a), Shape::Array(g)) if a.compatible(g) => {
            let mut a = a.clone();
            a.layout.element_size_in_bits = g.layout.element_size_in_bits;
            if a.layout.validate_element_size(a.element_type).is_err() {
                a.layout.element_size_in_bits = None;
            }
            Shape::Array(a)
        }
        (Shape::Tuple(t), Shape::Tuple(g)) if t.len() == g.len() => {
            Shape::Tuple(t.iter().zip(g).map(|(t, g)| external(t, g)).collect())
        }
        _ => internal.clone(),
    }
}

/// Bytes of one leaf's internal (unpacked) buffer.
fn storage_len(a: &ArrayShape) -> Result<usize> {
    let mut s = a.clone();
    s.layout.element_size_in_bits = None;
    Ok(if a.element_type.is_token() {
        0
    } else {
        s.byte_size()?
    })
}

/// Unpacked copies of packed input leaves and temporaries for packed
/// output leaves of one `run_into`.
#[derive(Default)]
pub struct Staging {
    /// Per input leaf: its unpacked copy, when the leaf is packed.
    pub inputs: Vec<Option<Vec<u8>>>,
    /// Per output leaf: (bits, temporary), when the leaf is packed.
    pub outputs: Vec<Option<(u32, Vec<u8>)>>,
}

impl Staging {
    /// Unpacks the packed leaves among `inputs` (leaf shapes `shapes`,
    /// lengths already checked against them) and sizes temporaries for the
    /// packed leaves among `results`.
    pub fn new(inputs: &[&[u8]], shapes: &[&ArrayShape], results: &[&ArrayShape]) -> Result<Self> {
        let mut st = Staging::default();
        for (b, s) in inputs.iter().zip(shapes) {
            st.inputs.push(match s.packed_bits() {
                None => None,
                Some(bits) => {
                    let mut v = vec![0u8; storage_len(s)?];
                    unpack_bits(b, bits, &mut v)
                        .map_err(|e| JitError::input(format!("parameter buffer: {e}")))?;
                    Some(v)
                }
            });
        }
        for s in results {
            st.outputs.push(match s.packed_bits() {
                None => None,
                Some(bits) => Some((bits, vec![0u8; storage_len(s)?])),
            });
        }
        Ok(st)
    }

    /// Packs the temporaries into the caller's output buffers.
    pub fn finish(&self, outputs: &mut [&mut [u8]]) -> Result<()> {
        for (o, t) in outputs.iter_mut().zip(&self.outputs) {
            if let Some((bits, tmp)) = t {
                if o.len() != packed_len(tmp.len(), *bits) {
                    return Err(JitError::input(format!(
                        "packed result buffer of {} bytes, expected {}",
                        o.len(),
                        packed_len(tmp.len(), *bits)
                    )));
                }
                pack_bits(tmp, *bits, o).map_err(JitError::input)?;
            }
        }
        Ok(())
    }
}
