//! `dynamic-update-slice` in place: the update is copied into the
//! operand's own buffer, which becomes the result (the planner allows it
//! only where the operand's old value is read by nothing else: a while
//! body's loop-owned carry leaf, used once). This is what keeps a
//! `lax.scan` that stacks its per-step outputs linear in the number of
//! steps instead of rewriting the whole stack every step. Start indices
//! are clamped as XLA clamps them. No code generation here; it must not
//! allocate per call.

use crate::error::{JitError, Result};
use rxla_ir::{ArrayShape, ElementType, index};

/// A planned in-place dynamic-update-slice.
pub struct DusStep {
    /// The operand's (and the result's) shape.
    pub operand: ArrayShape,
    pub update: ArrayShape,
    /// Element type of each start index scalar.
    pub index_types: Vec<ElementType>,
}

/// The signed value of an integer scalar of type `et` in `b`.
fn scalar_index(et: ElementType, b: &[u8]) -> Result<i64> {
    let get = |n: usize| -> Result<u64> {
        let s = b
            .get(..n)
            .ok_or_else(|| JitError::input("dynamic-update-slice: short start index"))?;
        let mut w = [0u8; 8];
        w[..n].copy_from_slice(s);
        Ok(u64::from_le_bytes(w))
    };
    Ok(match et {
        ElementType::S8 => get(1)? as u8 as i8 as i64,
        ElementType::S16 => get(2)? as u16 as i16 as i64,
        ElementType::S32 => get(4)? as u32 as i32 as i64,
        ElementType::S64 => get(8)? as i64,
        ElementType::U8 => get(1)? as i64,
        ElementType::U16 => get(2)? as i64,
        ElementType::U32 => get(4)? as i64,
        // Larger than any dimension either way: clamped below.
        ElementType::U64 => get(8)?.min(i64::MAX as u64) as i64,
        t => {
            return Err(JitError::input(format!(
                "dynamic-update-slice: start index of type {t}"
            )));
        }
    })
}

/// Writes `update` into `buf` (the operand's bytes, becoming the result) at
/// the clamped start indices read from `starts`.
pub fn update_in_place(
    step: &DusStep,
    buf: &mut [u8],
    update: &[u8],
    starts: &[&[u8]],
) -> Result<()> {
    let (os, us) = (&step.operand, &step.update);
    let rank = os.rank();
    let e = os.element_type.byte_size();
    if us.rank() != rank || starts.len() != rank || step.index_types.len() != rank {
        return Err(JitError::input("dynamic-update-slice: ranks differ"));
    }
    let need = |s: &ArrayShape| -> Result<usize> {
        let n = s
            .physical_element_count()
            .map_err(|err| JitError::input(err.to_string()))?;
        Ok(n * e)
    };
    if buf.len() < need(os)? || update.len() < need(us)? {
        return Err(JitError::input(
            "dynamic-update-slice: buffers shorter than their shapes",
        ));
    }
    if us.dims.contains(&0) {
        return Ok(());
    }
    let mut origin = Vec::with_capacity(rank);
    for (d, (&et, start)) in step.index_types.iter().zip(starts).enumerate() {
        let want = scalar_index(et, start)?;
        let hi = (os.dims[d] - us.dims[d]).max(0);
        origin.push(want.clamp(0, hi));
    }
    let so = index::physical_strides(os);
    let su = index::physical_strides(us);
    // The update's elements in row-major order of its logical index; the
    // last dimension's run is one copy when it is contiguous in both.
    let last = rank.saturating_sub(1);
    let run = if rank == 0 { 1 } else { us.dims[last] as usize };
    let contiguous = rank == 0 || (so[last] == 1 && su[last] == 1);
    let outer: usize = us.dims[..last].iter().map(|&d| d as usize).product();
    let mut idx = vec![0i64; last];
    for _ in 0..outer.max(1) {
        let mut ob = 0usize;
        let mut ub = 0usize;
        for d in 0..last {
            ob += (origin[d] + idx[d]) as usize * so[d];
            ub += idx[d] as usize * su[d];
        }
        if rank > 0 {
            ob += origin[last] as usize * so[last];
        }
        if contiguous {
            let (o, u) = (ob * e, ub * e);
            buf[o..o + run * e].copy_from_slice(&update[u..u + run * e]);
        } else {
            for t in 0..run {
                let (o, u) = ((ob + t * so[last]) * e, (ub + t * su[last]) * e);
                buf[o..o + e].copy_from_slice(&update[u..u + e]);
            }
        }
        for d in (0..last).rev() {
            idx[d] += 1;
            if idx[d] < us.dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    Ok(())
}
