//! `sort`, `topk` and XLA:CPU's `TopK` custom call as host steps on the
//! physical buffers: every 1-D slice along the sort dimension (the last
//! dimension for top-k) is ordered by the evaluator's own stable bottom-up
//! merge sort (`rxla_eval::kernels::sort::merge_sort`, so the sequence of
//! comparisons — and therefore the result, even for a comparator that is
//! not a strict weak order — is the evaluator's), the comparator being a
//! JIT-compiled rank-0 kernel that reads one scalar per comparator
//! parameter through the input pointer table and writes a pred byte. The
//! builtin `topk` orders in total order without a kernel.
//!
//! Operands and results are read and written in their own layouts (padded
//! ones included: padding is filled with the padding value first). All
//! operands are permuted together. Every offset is bounds-checked through
//! slice indexing; buffer sizes are checked against the shapes first.
//! Must not compute element semantics beyond total order (the comparator
//! kernel does that).

use super::key_sort::{self, Scratch};
use super::relayout::{padding_bytes, relayout};
use crate::codegen::KernelFn;
use crate::error::{JitError, Result};
use crate::sort_key::SortKey;
use rxla_eval::kernels::sort::merge_sort;
use rxla_ir::{ArrayShape, ElementType, index};

/// A planned `sort`: operand and result leaf shapes, the resolved sort
/// dimension (`None` for rank 0), the comparator kernel's index and, when
/// the comparator orders by one operand's key (`sort_key.rs`), that key:
/// the lines are then sorted by key (`key_sort.rs`) without the kernel.
pub struct SortStep {
    pub dimension: Option<usize>,
    pub operands: Vec<ArrayShape>,
    pub outs: Vec<ArrayShape>,
    pub comparator: usize,
    pub key: Option<SortKey>,
}

/// How a top-k orders a row.
pub enum TopKOrder {
    /// The builtin op: largest (or smallest) first in total order.
    Total { largest: bool },
    /// The custom call's comparator kernel; `with_indices` when it also
    /// takes the two s32 positions within the row.
    Comparator { kernel: usize, with_indices: bool },
}

/// A planned top-k: operand shape, `(values, indices)` result shapes, k.
pub struct TopKStep {
    pub operand: ArrayShape,
    pub outs: [ArrayShape; 2],
    pub k: usize,
    pub order: TopKOrder,
}

/// Checks a buffer's size against its shape.
fn check(buf: &[u8], shape: &ArrayShape, what: &str) -> Result<()> {
    let n = shape.byte_size()?;
    if buf.len() != n {
        return Err(JitError::input(format!(
            "{what}: buffer of {} bytes, {shape} needs {n}",
            buf.len()
        )));
    }
    Ok(())
}

/// Fills the padding of a padded result buffer with its padding value.
fn fill_padding(buf: &mut [u8], shape: &ArrayShape) {
    if shape.layout.is_padded() {
        let pad = padding_bytes(shape);
        for ch in buf.chunks_exact_mut(pad.len().max(1)) {
            ch.copy_from_slice(&pad);
        }
    }
}

/// Calls `f` with the physical element offsets of the start of every 1-D
/// line along `d` (one offset per stride set), lines in row-major order of
/// their first element.
fn for_each_line(
    dims: &[i64],
    d: usize,
    strides: &[Vec<usize>],
    f: &mut dyn FnMut(&[usize]) -> Result<()>,
) -> Result<()> {
    if dims.contains(&0) {
        return Ok(());
    }
    let mut idx = vec![0i64; dims.len()];
    let mut base = vec![0usize; strides.len()];
    loop {
        for (b, s) in base.iter_mut().zip(strides) {
            *b = idx.iter().zip(s).map(|(&i, &s)| i as usize * s).sum();
        }
        f(&base)?;
        // Odometer over every dimension but `d`, last fastest.
        let mut k = dims.len();
        loop {
            if k == 0 {
                return Ok(());
            }
            k -= 1;
            if k == d {
                continue;
            }
            idx[k] += 1;
            if idx[k] < dims[k] {
                break;
            }
            idx[k] = 0;
        }
    }
}

/// Copies element `src_at` of `src` to element `dst_at` of `dst` (element
/// offsets, `e` bytes each).
fn move_elem(src: &[u8], src_at: usize, dst: &mut [u8], dst_at: usize, e: usize) -> Result<()> {
    let s = src
        .get(src_at * e..src_at * e + e)
        .ok_or_else(|| JitError::input("sort: read outside a buffer"))?;
    dst.get_mut(dst_at * e..dst_at * e + e)
        .ok_or_else(|| JitError::input("sort: write outside a buffer"))?
        .copy_from_slice(s);
    Ok(())
}

/// Calls a comparator kernel on scalar pointers; true when it returns a
/// nonzero pred.
fn compare(f: KernelFn, ptrs: &[*const u8]) -> bool {
    let mut r = 0u8;
    let outs = [&mut r as *mut u8];
    // SAFETY: the kernel is rank 0: it reads one scalar per pointer (each
    // checked to lie inside its buffer by the caller) and writes one pred
    // byte into `r`.
    unsafe { f(ptrs.as_ptr(), outs.as_ptr(), 0, 1) };
    r != 0
}

/// Runs a sort: `ins[k]` holds operand k, `outs[k]` receives result k.
pub fn sort(step: &SortStep, f: KernelFn, ins: &[&[u8]], outs: &mut [&mut [u8]]) -> Result<()> {
    let n = step.operands.len();
    if ins.len() != n || outs.len() != n || step.outs.len() != n {
        return Err(JitError::input("sort: operand and result counts differ"));
    }
    for k in 0..n {
        check(ins[k], &step.operands[k], "sort operand")?;
        check(outs[k], &step.outs[k], "sort result")?;
        if !step.operands[k].compatible(&step.outs[k])
            || step.operands[k].dims != step.operands[0].dims
        {
            return Err(JitError::input("sort: operand and result shapes differ"));
        }
    }
    let dims = step.operands[0].dims.clone();
    let total = step.operands[0].element_count()?;
    let d = match step.dimension {
        Some(d) if total > 0 && d < dims.len() => d,
        _ => {
            // Rank 0 or empty: the operands unchanged.
            for k in 0..n {
                relayout(ins[k], &step.operands[k], outs[k], &step.outs[k])?;
            }
            return Ok(());
        }
    };
    for (o, s) in outs.iter_mut().zip(&step.outs) {
        fill_padding(o, s);
    }
    let len = dims[d] as usize;
    let in_strides: Vec<Vec<usize>> = step.operands.iter().map(index::physical_strides).collect();
    let out_strides: Vec<Vec<usize>> = step.outs.iter().map(index::physical_strides).collect();
    let sizes: Vec<usize> = step
        .operands
        .iter()
        .map(|s| s.element_type.byte_size())
        .collect();
    let mut all = in_strides.clone();
    all.extend(out_strides.iter().cloned());
    let mut ptrs: Vec<*const u8> = vec![std::ptr::null(); 2 * n];
    let mut perm: Vec<usize> = Vec::with_capacity(len);
    let mut scratch = Scratch::default();
    let key = step.key.filter(|k| {
        k.operand < n && step.operands[k.operand].element_type.byte_size() == key_sort::key_bytes(k)
    });
    for_each_line(&dims, d, &all, &mut |base| {
        if let Some(key) = &key {
            let k = key.operand;
            key_sort::order(
                key,
                ins[k],
                base[k],
                in_strides[k][d],
                len,
                &mut perm,
                &mut scratch,
            )?;
            return permute(&perm, ins, outs, base, &sizes, &in_strides, &out_strides, d);
        }
        perm.clear();
        perm.extend(0..len);
        let mut less = |a: usize, b: usize| -> rxla_eval::Result<bool> {
            for k in 0..n {
                let (e, s) = (sizes[k], in_strides[k][d]);
                for (slot, j) in [(2 * k, a), (2 * k + 1, b)] {
                    let at = (base[k] + j * s) * e;
                    let p = ins[k].get(at..at + e).ok_or_else(|| {
                        rxla_eval::EvalError::new("sort: comparator read outside a buffer")
                    })?;
                    ptrs[slot] = p.as_ptr();
                }
            }
            Ok(compare(f, &ptrs))
        };
        merge_sort(&mut perm, &mut less)?;
        permute(&perm, ins, outs, base, &sizes, &in_strides, &out_strides, d)
    })
}

/// Writes every operand's line in the order `perm` (`base` holds the line
/// starts of the operands, then of the results).
#[allow(clippy::too_many_arguments)]
fn permute(
    perm: &[usize],
    ins: &[&[u8]],
    outs: &mut [&mut [u8]],
    base: &[usize],
    sizes: &[usize],
    in_strides: &[Vec<usize>],
    out_strides: &[Vec<usize>],
    d: usize,
) -> Result<()> {
    let n = ins.len();
    for k in 0..n {
        let (e, si, so) = (sizes[k], in_strides[k][d], out_strides[k][d]);
        for (j, &src) in perm.iter().enumerate() {
            move_elem(ins[k], base[k] + src * si, outs[k], base[n + k] + j * so, e)?;
        }
    }
    Ok(())
}

/// The total-order key of one element (`ElementType` bytes, little
/// endian): integers by value, floats as `total_cmp` orders them (half
/// types through f32, as the evaluator's `total_order`).
/// `total_key` of an f32 from its bits, in i32.
#[inline(always)]
fn f32_key32(bits: u32) -> i32 {
    let l = bits as i32;
    l ^ ((((l >> 31) as u32) >> 1) as i32)
}

fn total_key(et: ElementType, b: &[u8]) -> i128 {
    let f32_key = |bits: u32| -> i128 {
        let l = bits as i32;
        (l ^ ((((l >> 31) as u32) >> 1) as i32)) as i128
    };
    let u = |n: usize| -> u64 {
        let mut w = [0u8; 8];
        w[..n].copy_from_slice(&b[..n]);
        u64::from_le_bytes(w)
    };
    match et {
        ElementType::Pred | ElementType::U8 => u(1) as i128,
        ElementType::U16 => u(2) as i128,
        ElementType::U32 => u(4) as i128,
        ElementType::U64 => u(8) as i128,
        ElementType::S8 => u(1) as u8 as i8 as i128,
        ElementType::S16 => u(2) as u16 as i16 as i128,
        ElementType::S32 => u(4) as u32 as i32 as i128,
        ElementType::S64 => u(8) as i64 as i128,
        ElementType::F16 => f32_key(half::f16::from_bits(u(2) as u16).to_f32().to_bits()),
        ElementType::BF16 => f32_key(half::bf16::from_bits(u(2) as u16).to_f32().to_bits()),
        ElementType::F32 => f32_key(u(4) as u32),
        ElementType::F64 => {
            let l = u(8) as i64;
            (l ^ ((((l >> 63) as u64) >> 1) as i64)) as i128
        }
        // Shape inference rejects topk of complex values (not ordered).
        ElementType::C64 | ElementType::C128 | ElementType::Token => 0,
        // The planner leaves narrow types to the evaluator; keys by value.
        t @ (rxla_ir::narrow_types!()) => match rxla_ir::narrow::f8_format(t) {
            Some(f) => f32_key(rxla_ir::narrow::f8_decode(f, b[0]).to_bits()),
            None => rxla_ir::narrow::int_n_value(t, b[0]) as i128,
        },
    }
}

/// Runs a top-k: the first k of each row (last dimension) under the
/// step's order, values into `outs[0]`, s32 positions into `outs[1]`.
pub fn top_k(
    step: &TopKStep,
    f: Option<KernelFn>,
    input: &[u8],
    outs: &mut [&mut [u8]],
) -> Result<()> {
    let [vals, idxs] = outs else {
        return Err(JitError::input("topk: expected two result buffers"));
    };
    let os = &step.operand;
    check(input, os, "topk operand")?;
    check(vals, &step.outs[0], "topk values")?;
    check(idxs, &step.outs[1], "topk indices")?;
    let rank = os.rank();
    let Some(&n) = os.dims.last() else {
        return Err(JitError::input("topk needs an operand of rank >= 1"));
    };
    let k = step.k;
    let mut want = os.dims.clone();
    want[rank - 1] = k as i64;
    if k as i64 > n
        || step.outs[0].dims != want
        || step.outs[1].dims != want
        || step.outs[0].element_type != os.element_type
        || step.outs[1].element_type != ElementType::S32
    {
        return Err(JitError::input(format!(
            "topk: k={k} does not fit {os} / the result shapes"
        )));
    }
    fill_padding(vals, &step.outs[0]);
    fill_padding(idxs, &step.outs[1]);
    let et = os.element_type;
    let e = et.byte_size();
    let d = rank - 1;
    let strides = vec![
        index::physical_strides(os),
        index::physical_strides(&step.outs[0]),
        index::physical_strides(&step.outs[1]),
    ];
    let (si, sv, sx) = (strides[0][d], strides[1][d], strides[2][d]);
    let n = n as usize;
    let mut order: Vec<usize> = Vec::with_capacity(n);
    let mut keys: Vec<i128> = Vec::with_capacity(n);
    let mut best: Vec<(i128, usize)> = Vec::with_capacity(step.k.min(n) + 1);
    let mut pos = [0i32; 2];
    let mut ptrs: Vec<*const u8> = vec![std::ptr::null(); 4];
    let mut dims = os.dims.clone();
    // Lines along the last dimension; with k = 0 nothing is written.
    dims[d] = dims[d].max(1);
    for_each_line(&dims, d, &strides, &mut |base| {
        if n == 0 || k == 0 {
            return Ok(());
        }
        let elem = |j: usize| -> rxla_eval::Result<&[u8]> {
            let at = (base[0] + j * si) * e;
            input
                .get(at..at + e)
                .ok_or_else(|| rxla_eval::EvalError::new("topk: read outside the operand"))
        };
        order.clear();
        order.extend(0..n);
        // Copies the values and positions of `order[..k]` to the outputs.
        let mut write_first_k = |order: &[usize]| -> Result<()> {
            for (j, &src) in order[..k].iter().enumerate() {
                move_elem(input, base[0] + src * si, vals, base[1] + j * sv, e)?;
                let at = (base[2] + j * sx) * 4;
                idxs.get_mut(at..at + 4)
                    .ok_or_else(|| JitError::input("topk: write outside the indices"))?
                    .copy_from_slice(&(src as i32).to_le_bytes());
            }
            Ok(())
        };
        match (&step.order, f) {
            (TopKOrder::Total { largest }, _) => {
                let better = |x: i128, y: i128| if *largest { x > y } else { x < y };
                if k <= SMALL_K {
                    // One pass keeping the best k in order (ties: the
                    // earlier position first, as the stable sort): for a
                    // small k almost every element is rejected by one
                    // comparison with the current k-th (1024 rows of
                    // 4096, k = 8: 270 ms with the full merge sort, 14
                    // ms; XLA 13).
                    best.clear();
                    // A contiguous f32 row: keys straight from the bytes,
                    // rejected against the current k-th's key without
                    // touching the buffer (the common case: lax.top_k on
                    // logits; 1024 rows of 4096, k = 8: 13 -> 4 ms).
                    let at = base[0] * e;
                    if et == ElementType::F32 && si == 1 && at + n * 4 <= input.len() {
                        let row = &input[at..at + n * 4];
                        // The k-th key in i32 (f32 keys fit): until the
                        // buffer is full every key gets in.
                        let (mut kth, mut full) = (0i32, false);
                        for (j, c) in row.chunks_exact(4).enumerate() {
                            let k32 = f32_key32(u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
                            if full && (if *largest { k32 <= kth } else { k32 >= kth }) {
                                continue;
                            }
                            offer(&mut best, k, k32 as i128, j, better);
                            if best.len() == k {
                                (kth, full) = (best[k - 1].0 as i32, true);
                            }
                        }
                    } else {
                        for j in 0..n {
                            let key = total_key(et, elem(j)?);
                            if best.len() < k || better(key, best[k - 1].0) {
                                offer(&mut best, k, key, j, better);
                            }
                        }
                    }
                    for (slot, &(_, j)) in order.iter_mut().zip(&best) {
                        *slot = j;
                    }
                    return write_first_k(&order);
                }
                keys.clear();
                for j in 0..n {
                    keys.push(total_key(et, elem(j)?));
                }
                // The stable sort's first k, found by selection: keys in
                // the wanted direction, ties by position (what a stable
                // sort keeps), a strict total order, so selecting the
                // k-th and sorting the k before it gives exactly the
                // stable sort's prefix in O(n + k log k) rather than
                // O(n log n).
                let by = |a: &usize, b: &usize| {
                    let c = keys[*a].cmp(&keys[*b]);
                    if *largest { c.reverse() } else { c }.then(a.cmp(b))
                };
                if k < n {
                    order.select_nth_unstable_by(k - 1, by);
                }
                order[..k].sort_unstable_by(by);
            }
            (TopKOrder::Comparator { with_indices, .. }, Some(f)) => {
                let count = if *with_indices { 4 } else { 2 };
                merge_sort(&mut order, &mut |a, b| {
                    ptrs[0] = elem(a)?.as_ptr();
                    ptrs[1] = elem(b)?.as_ptr();
                    pos = [a as i32, b as i32];
                    ptrs[2] = (&pos[0] as *const i32).cast();
                    ptrs[3] = (&pos[1] as *const i32).cast();
                    Ok(compare(f, &ptrs[..count]))
                })?;
            }
            (TopKOrder::Comparator { .. }, None) => {
                return Err(JitError::codegen("topk comparator kernel missing"));
            }
        }
        write_first_k(&order)
    })
}

/// Puts `(key, j)` into `best` (the best `k` so far, in order; ties: the
/// earlier position first, as a stable sort keeps them), dropping the one
/// pushed past `k`.
fn offer(
    best: &mut Vec<(i128, usize)>,
    k: usize,
    key: i128,
    j: usize,
    better: impl Fn(i128, i128) -> bool,
) {
    let p = best
        .iter()
        .position(|e| better(key, e.0))
        .unwrap_or(best.len());
    if best.len() == k {
        best.pop();
    }
    best.insert(p, (key, j));
}

/// Largest k for which `top_k` selects in one pass with an ordered buffer
/// of k (above it: selection then a sort of the k).
const SMALL_K: usize = 64;
