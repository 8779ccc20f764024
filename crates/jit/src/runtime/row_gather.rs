//! Whole-row gathers (`jnp.take(table, idx, axis=0)`, an embedding
//! lookup): `out[k, :] = table[clamp(idx[k], 0, rows - 1), :]` for a
//! row-major table whose rows are contiguous. Each row is one copy, the
//! rows a few lookups ahead prefetched (the indices are data, so the
//! hardware cannot guess the next row). The evaluator's semantics: the
//! start index is clamped so the slice stays inside the table. Must not
//! read outside the table, the indices or write outside the output.

use crate::error::{JitError, Result};
use rxla_ir::{ArrayShape, ElementType, GatherDims, Shape};

/// A planned row gather.
#[derive(Clone, Debug)]
pub struct RowGatherStep {
    /// Rows of the table.
    pub rows: usize,
    /// Bytes of one row.
    pub row_bytes: usize,
    /// Rows gathered.
    pub count: usize,
    /// Element type of the indices (one per gathered row).
    pub index_type: ElementType,
}

/// Lookups ahead whose rows are prefetched.
const AHEAD: usize = 8;

impl RowGatherStep {
    /// The step for a gather of whole rows of a row-major rank-2 `table`
    /// at `indices` `[k, 1]` (or `[k]` with the index vector dim last and
    /// implicit) into `out` `[k, d]`, else `None`.
    pub fn plan(
        table: &ArrayShape,
        indices: &ArrayShape,
        out: &Shape,
        dims: &GatherDims,
        slice_sizes: &[i64],
    ) -> Option<RowGatherStep> {
        let out = out.as_array().ok()?;
        let plain =
            |a: &ArrayShape| a.layout.is_default() && !a.layout.is_padded() && !a.is_dynamic();
        let index_ok = matches!(
            indices.element_type,
            ElementType::S32 | ElementType::U32 | ElementType::S64 | ElementType::U64
        );
        let [rows, d] = table.dims[..] else {
            return None;
        };
        let count = *indices.dims.first()?;
        let indices_shape_ok = match indices.dims.len() {
            1 => dims.index_vector_dim == 1,
            2 => dims.index_vector_dim == 1 && indices.dims[1] == 1,
            _ => false,
        };
        let ok = plain(table)
            && plain(indices)
            && plain(out)
            && index_ok
            && indices_shape_ok
            && out.element_type == table.element_type
            && out.dims == [count, d]
            && dims.offset_dims == [1]
            && dims.collapsed_slice_dims == [0]
            && dims.start_index_map == [0]
            && dims.operand_batching_dims.is_empty()
            && dims.start_indices_batching_dims.is_empty()
            && slice_sizes == [1, d]
            && rows >= 1
            && d >= 1;
        if !ok {
            return None;
        }
        let row_bytes = usize::try_from(d)
            .ok()?
            .checked_mul(table.element_type.byte_size())?;
        Some(RowGatherStep {
            rows: usize::try_from(rows).ok()?,
            row_bytes,
            count: usize::try_from(count).ok()?,
            index_type: indices.element_type,
        })
    }

    /// Gathers into `out` (`count · row_bytes` bytes) from `table`
    /// (`rows · row_bytes`) at `indices` (`count` values).
    pub fn run(&self, table: &[u8], indices: &[u8], out: &mut [u8]) -> Result<()> {
        let w = self.index_type.byte_size();
        if table.len() != self.rows * self.row_bytes
            || out.len() != self.count * self.row_bytes
            || indices.len() != self.count * w
        {
            return Err(JitError::input("row gather: buffer sizes"));
        }
        let last = self.rows as i128 - 1;
        let index = |k: usize| -> usize {
            let b = &indices[k * w..(k + 1) * w];
            let v: i128 = match self.index_type {
                ElementType::S32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i128,
                ElementType::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i128,
                ElementType::S64 => {
                    i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) as i128
                }
                _ => u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) as i128,
            };
            v.clamp(0, last) as usize
        };
        let rb = self.row_bytes;
        for (k, dst) in out.chunks_exact_mut(rb).enumerate() {
            if k + AHEAD < self.count {
                prefetch_row(&table[index(k + AHEAD) * rb..][..rb]);
            }
            let r = index(k);
            dst.copy_from_slice(&table[r * rb..(r + 1) * rb]);
        }
        Ok(())
    }
}

/// Asks for the cache lines of `row` (a hint; reads nothing).
fn prefetch_row(row: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        for off in (0..row.len()).step_by(64) {
            // SAFETY: the address is inside `row`; prefetch never faults.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(row.as_ptr().add(off) as *const i8) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = row;
}
