//! The order of one sort line by key (a comparator `sort_key.rs`
//! recognised): every element's key is mapped to an unsigned integer whose
//! order is the comparator's, packed above the element's position, and the
//! packed values are radix sorted (least significant key byte first;
//! stable, so equal keys keep their positions: the evaluator's stable
//! merge sort gives the same permutation). Must not move operand data
//! (`sort.rs` permutes the operands with the order computed here).

use crate::error::{JitError, Result};
use crate::sort_key::{Canon, KeyKind, SortKey};

/// Lines shorter than this are sorted by comparison of the packed values.
const RADIX_MIN: usize = 256;

/// Reusable buffers for [`order`].
#[derive(Default)]
pub struct Scratch {
    narrow: [Vec<u64>; 2],
    wide: [Vec<u128>; 2],
}

/// The element size a key reads.
pub fn key_bytes(key: &SortKey) -> usize {
    match key.kind {
        KeyKind::F32 { .. } | KeyKind::S32 | KeyKind::U32 => 4,
        KeyKind::F64 { .. } | KeyKind::S64 | KeyKind::U64 => 8,
    }
}

/// Writes into `perm` the positions of a line of `len` elements in sorted
/// order. The line's element j is at element offset `base + j * stride` of
/// `buf` (`elem` bytes per element, the key type's size).
pub fn order(
    key: &SortKey,
    buf: &[u8],
    base: usize,
    stride: usize,
    len: usize,
    perm: &mut Vec<usize>,
    scratch: &mut Scratch,
) -> Result<()> {
    perm.clear();
    if len == 0 {
        return Ok(());
    }
    let elem = key_bytes(key);
    let last = base + (len - 1) * stride;
    if u32::try_from(len).is_err() || (last + 1) * elem > buf.len() {
        return Err(JitError::input("sort: line outside its buffer"));
    }
    let at = |j: usize| (base + j * stride) * elem;
    if elem == 4 {
        let read = |j: usize| {
            let o = at(j);
            u32::from_le_bytes([buf[o], buf[o + 1], buf[o + 2], buf[o + 3]])
        };
        let flip = if key.descending { u32::MAX } else { 0 };
        let [v, tmp] = &mut scratch.narrow;
        v.clear();
        v.extend((0..len).map(|j| (((key32(key.kind, read(j)) ^ flip) as u64) << 32) | j as u64));
        radix_sort(v, tmp, 4..8, |x, d| (x >> (8 * d)) as u8);
        perm.extend(v.iter().map(|&x| (x as u32) as usize));
    } else {
        let read = |j: usize| {
            let o = at(j);
            let mut w = [0u8; 8];
            w.copy_from_slice(&buf[o..o + 8]);
            u64::from_le_bytes(w)
        };
        let flip = if key.descending { u64::MAX } else { 0 };
        let [v, tmp] = &mut scratch.wide;
        v.clear();
        v.extend((0..len).map(|j| (((key64(key.kind, read(j)) ^ flip) as u128) << 32) | j as u128));
        radix_sort(v, tmp, 4..12, |x, d| (x >> (8 * d)) as u8);
        perm.extend(v.iter().map(|&x| (x as u32) as usize));
    }
    Ok(())
}

/// The unsigned ascending key of a 32-bit element.
fn key32(kind: KeyKind, b: u32) -> u32 {
    match kind {
        KeyKind::F32 { canon } => f32_key(canon_f32(b, canon)),
        KeyKind::S32 => b ^ (1 << 31),
        _ => b,
    }
}

/// The unsigned ascending key of a 64-bit element.
fn key64(kind: KeyKind, b: u64) -> u64 {
    match kind {
        KeyKind::F64 { canon } => f64_key(canon_f64(b, canon)),
        KeyKind::S64 => b ^ (1 << 63),
        _ => b,
    }
}

/// JAX's canonicalisation of an f32 (NaNs and zeros to the constants).
fn canon_f32(b: u32, canon: Option<Canon<u32>>) -> u32 {
    match canon {
        Some(c) if b & 0x7fff_ffff > 0x7f80_0000 => c.nan,
        Some(c) if b & 0x7fff_ffff == 0 => c.zero,
        _ => b,
    }
}

fn canon_f64(b: u64, canon: Option<Canon<u64>>) -> u64 {
    const ABS: u64 = u64::MAX >> 1;
    match canon {
        Some(c) if b & ABS > 0x7ff0_0000_0000_0000 => c.nan,
        Some(c) if b & ABS == 0 => c.zero,
        _ => b,
    }
}

/// An unsigned key ordered as `f32::total_cmp` orders the bits.
fn f32_key(b: u32) -> u32 {
    if b >> 31 == 1 { !b } else { b | (1 << 31) }
}

fn f64_key(b: u64) -> u64 {
    if b >> 63 == 1 { !b } else { b | (1 << 63) }
}

/// Sorts `v` by the bytes `digits` of its values (`byte(x, d)` is byte d),
/// least significant first; stable. Values are distinct (the position is in
/// the low bits), so a short line is sorted by plain comparison.
fn radix_sort<T: Copy + Ord>(
    v: &mut Vec<T>,
    tmp: &mut Vec<T>,
    digits: std::ops::Range<u32>,
    byte: impl Fn(T, u32) -> u8,
) {
    let n = v.len();
    if n < RADIX_MIN {
        v.sort_unstable();
        return;
    }
    let nd = digits.len();
    let mut hist = vec![[0usize; 256]; nd];
    for &x in v.iter() {
        for (h, d) in hist.iter_mut().zip(digits.clone()) {
            h[byte(x, d) as usize] += 1;
        }
    }
    for (h, d) in hist.iter_mut().zip(digits) {
        if h.contains(&n) {
            // Every value has this byte: the pass would not move anything.
            continue;
        }
        let mut sum = 0;
        for c in h.iter_mut() {
            let k = *c;
            *c = sum;
            sum += k;
        }
        tmp.clear();
        tmp.resize(n, v[0]);
        for &x in v.iter() {
            let slot = &mut h[byte(x, d) as usize];
            tmp[*slot] = x;
            *slot += 1;
        }
        std::mem::swap(v, tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(key: SortKey, vals: &[f32]) -> Vec<usize> {
        let buf: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut perm = Vec::new();
        order(
            &key,
            &buf,
            0,
            1,
            vals.len(),
            &mut perm,
            &mut Scratch::default(),
        )
        .unwrap();
        perm
    }

    #[test]
    fn total_order_with_canonical_nans_and_zeros_is_stable() {
        let canon = Some(Canon {
            nan: f32::NAN.to_bits(),
            zero: 0,
        });
        let key = SortKey {
            operand: 0,
            kind: KeyKind::F32 { canon },
            descending: false,
        };
        let neg_nan = f32::from_bits(0xffc0_0000);
        let vals = [1.0, neg_nan, -0.0, f32::NEG_INFINITY, 0.0, f32::NAN, -1.0];
        // -inf, -1, then -0 and 0 equal (positions kept), 1, then both NaNs.
        assert_eq!(sorted(key, &vals), [3, 6, 2, 4, 0, 1, 5]);
        let desc = SortKey {
            descending: true,
            ..key
        };
        assert_eq!(sorted(desc, &vals), [1, 5, 0, 2, 4, 6, 3]);
        let raw = SortKey {
            kind: KeyKind::F32 { canon: None },
            ..key
        };
        // Without the mapping: -NaN first, -0 before +0.
        assert_eq!(sorted(raw, &vals), [1, 3, 6, 2, 4, 0, 5]);
    }

    #[test]
    fn radix_path_matches_a_stable_sort() {
        // Long enough for the radix passes; few distinct keys, so stability
        // matters.
        let vals: Vec<f32> = (0..5000u32)
            .map(|i| ((i.wrapping_mul(2654435761) >> 20) % 37) as f32 - 18.0)
            .collect();
        let key = SortKey {
            operand: 0,
            kind: KeyKind::F32 { canon: None },
            descending: false,
        };
        let mut want: Vec<usize> = (0..vals.len()).collect();
        want.sort_by(|&a, &b| vals[a].total_cmp(&vals[b]));
        assert_eq!(sorted(key, &vals), want);
        let mut want_desc: Vec<usize> = (0..vals.len()).collect();
        want_desc.sort_by(|&a, &b| vals[b].total_cmp(&vals[a]));
        assert_eq!(
            sorted(
                SortKey {
                    descending: true,
                    ..key
                },
                &vals
            ),
            want_desc
        );
    }
}
