//! Half-precision operands and results for the f32 GEMM: `ElemKind` (f32, f16, bf16), vectorised conversions of
//! contiguous runs (widening inside the A/B packing, so no widened copy of an operand is ever made; rounding the
//! f32 accumulators once at the end), and the packers of f16/bf16 operands (`HalfOperand`, `MixedOperand`).
//!
//! Conversions are bit-identical to the `half` crate's `f16::to_f32`/`bf16::to_f32` and `f16::from_f32` /
//! `bf16::from_f32` (round to nearest even, NaN stays NaN with the quiet bit set, the evaluator's semantics):
//! AVX-512F (`_mm512_cvtph_ps`/`_mm512_cvtps_ph`, bf16 with 32-bit integer lanes) or AVX2+F16C when the host has
//! them, else the `half` crate itself. This module must not read outside the runs it is given (tails are scalar,
//! no masked 16-bit loads) and must not know the IR.

use crate::mat::Offsets;
use crate::pack::{Operand, PackA, PackB};
use crate::scratch::with_scratch;

/// Element type of a mixed-precision dot's operand or result. Data is little-endian: `F16`/`BF16` elements are
/// 2 bytes (IEEE binary16 / bfloat16 bits), `F32` 4 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemKind {
    F32,
    F16,
    BF16,
}

impl ElemKind {
    /// Bytes per element (4 or 2).
    pub fn byte_size(self) -> usize {
        match self {
            ElemKind::F32 => 4,
            ElemKind::F16 | ElemKind::BF16 => 2,
        }
    }
}

/// A 16-bit float format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Half {
    F16,
    Bf16,
}

/// The conversion code a call may use (x86_64 feature checks, done once per call by `Cvt::detect`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cvt {
    Scalar,
    /// AVX2 + F16C.
    Avx2,
    /// AVX-512F (F16C implied for the scalar tails, which use the `half` crate anyway).
    Avx512,
}

impl Cvt {
    pub(crate) fn detect() -> Cvt {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f") {
                return Cvt::Avx512;
            }
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("f16c") {
                return Cvt::Avx2;
            }
        }
        Cvt::Scalar
    }
}

/// One 16-bit value to f32 (the `half` crate's conversion).
#[inline(always)]
pub(crate) fn to_f32(kind: Half, bits: u16) -> f32 {
    match kind {
        Half::F16 => half::f16::from_bits(bits).to_f32(),
        Half::Bf16 => half::bf16::from_bits(bits).to_f32(),
    }
}

/// One f32 rounded to the 16-bit format (the `half` crate's conversion).
#[inline(always)]
pub(crate) fn from_f32(kind: Half, v: f32) -> u16 {
    match kind {
        Half::F16 => half::f16::from_f32(v).to_bits(),
        Half::Bf16 => half::bf16::from_f32(v).to_bits(),
    }
}

/// `dst[i] = to_f32(src[i])` for `i < n`.
///
/// # Safety
/// `src` addresses `n` readable u16 (any alignment), `dst` `n` writable f32; `cvt` names features the host has.
#[inline]
pub(crate) unsafe fn widen_run(kind: Half, cvt: Cvt, src: *const u16, n: usize, dst: *mut f32) {
    // SAFETY: the features were detected (`cvt`); the vector bodies stop before the last partial vector.
    #[cfg(target_arch = "x86_64")]
    let mut i = unsafe {
        match cvt {
            Cvt::Avx512 => widen_avx512(kind, src, n, dst),
            Cvt::Avx2 => widen_avx2(kind, src, n, dst),
            Cvt::Scalar => 0,
        }
    };
    #[cfg(not(target_arch = "x86_64"))]
    let mut i = {
        let _ = cvt;
        0
    };
    while i < n {
        // SAFETY: i < n (the caller's contract).
        unsafe { *dst.add(i) = to_f32(kind, src.add(i).read_unaligned()) };
        i += 1;
    }
}

/// `dst[i] = from_f32(src[i])` for `i < src.len()`.
///
/// # Safety
/// `dst` addresses `src.len()` writable u16 (any alignment); `cvt` names features the host has.
#[inline]
pub(crate) unsafe fn narrow_run(kind: Half, cvt: Cvt, src: &[f32], dst: *mut u16) {
    let n = src.len();
    // SAFETY: as in `widen_run`.
    #[cfg(target_arch = "x86_64")]
    let mut i = unsafe {
        match cvt {
            Cvt::Avx512 => narrow_avx512(kind, src.as_ptr(), n, dst),
            Cvt::Avx2 => narrow_avx2(kind, src.as_ptr(), n, dst),
            Cvt::Scalar => 0,
        }
    };
    #[cfg(not(target_arch = "x86_64"))]
    let mut i = {
        let _ = cvt;
        0
    };
    while i < n {
        // SAFETY: i < n (the caller's contract).
        unsafe { dst.add(i).write_unaligned(from_f32(kind, src[i])) };
        i += 1;
    }
}

/// The AVX-512 body of `widen_run`: 16 values per step; returns how many were converted (a multiple of 16).
/// bf16: `(x | 0x40) << 16` for NaN (`x & 0x7fff > 0x7f80`), else `x << 16`, as `half` does.
///
/// # Safety
/// AVX-512F; as for `widen_run`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn widen_avx512(kind: Half, src: *const u16, n: usize, dst: *mut f32) -> usize {
    use std::arch::x86_64::*;
    let mut i = 0;
    while i + 16 <= n {
        // SAFETY: values i..i+16 are inside the run.
        let h = unsafe { _mm256_loadu_si256(src.add(i) as *const __m256i) };
        let v = match kind {
            Half::F16 => _mm512_cvtph_ps(h),
            Half::Bf16 => {
                let x = _mm512_cvtepu16_epi32(h);
                let nan = _mm512_cmpgt_epi32_mask(
                    _mm512_and_si512(x, _mm512_set1_epi32(0x7fff)),
                    _mm512_set1_epi32(0x7f80),
                );
                let x = _mm512_mask_or_epi32(x, nan, x, _mm512_set1_epi32(0x40));
                _mm512_castsi512_ps(_mm512_slli_epi32::<16>(x))
            }
        };
        // SAFETY: as above.
        unsafe { _mm512_storeu_ps(dst.add(i), v) };
        i += 16;
    }
    i
}

/// The AVX2+F16C body of `widen_run`: 8 values per step; returns how many were converted.
///
/// # Safety
/// AVX2 and F16C; as for `widen_run`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn widen_avx2(kind: Half, src: *const u16, n: usize, dst: *mut f32) -> usize {
    use std::arch::x86_64::*;
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: values i..i+8 are inside the run.
        let h = unsafe { _mm_loadu_si128(src.add(i) as *const __m128i) };
        let v = match kind {
            Half::F16 => _mm256_cvtph_ps(h),
            Half::Bf16 => {
                let x = _mm256_cvtepu16_epi32(h);
                let nan = _mm256_cmpgt_epi32(
                    _mm256_and_si256(x, _mm256_set1_epi32(0x7fff)),
                    _mm256_set1_epi32(0x7f80),
                );
                let x = _mm256_or_si256(x, _mm256_and_si256(nan, _mm256_set1_epi32(0x40)));
                _mm256_castsi256_ps(_mm256_slli_epi32::<16>(x))
            }
        };
        // SAFETY: as above.
        unsafe { _mm256_storeu_ps(dst.add(i), v) };
        i += 8;
    }
    i
}

/// bf16 rounding of 32-bit lanes as `half::bf16::from_f32`: NaN (`x & 0x7fffffff > 0x7f800000`) gives
/// `(x >> 16) | 0x40`, else `(x >> 16) + 1` when bit 15 is set and any of bits 0..15 or 16 is set (ties to even).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn bf16_round_avx512(x: std::arch::x86_64::__m512i) -> std::arch::x86_64::__m512i {
    use std::arch::x86_64::*;
    let nan = _mm512_cmpgt_epi32_mask(
        _mm512_and_si512(x, _mm512_set1_epi32(0x7fff_ffff)),
        _mm512_set1_epi32(0x7f80_0000),
    );
    let hi = _mm512_srli_epi32::<16>(x);
    let rb = _mm512_test_epi32_mask(x, _mm512_set1_epi32(0x8000));
    let sticky = _mm512_test_epi32_mask(x, _mm512_set1_epi32(0x1_7fff));
    let up = rb & sticky & !nan;
    let r = _mm512_mask_add_epi32(hi, up, hi, _mm512_set1_epi32(1));
    _mm512_mask_or_epi32(r, nan, hi, _mm512_set1_epi32(0x40))
}

/// The AVX-512 body of `narrow_run`: 16 values per step; returns how many were converted.
///
/// # Safety
/// AVX-512F; as for `narrow_run`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn narrow_avx512(kind: Half, src: *const f32, n: usize, dst: *mut u16) -> usize {
    use std::arch::x86_64::*;
    let mut i = 0;
    while i + 16 <= n {
        // SAFETY: values i..i+16 are inside the run.
        let v = unsafe { _mm512_loadu_ps(src.add(i)) };
        let h = match kind {
            Half::F16 => _mm512_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(v),
            Half::Bf16 => _mm512_cvtepi32_epi16(bf16_round_avx512(_mm512_castps_si512(v))),
        };
        // SAFETY: as above.
        unsafe { _mm256_storeu_si256(dst.add(i) as *mut __m256i, h) };
        i += 16;
    }
    i
}

/// The AVX2+F16C body of `narrow_run`: 16 values per step (two 8-lane halves packed with `packus_epi32`);
/// returns how many were converted.
///
/// # Safety
/// AVX2 and F16C; as for `narrow_run`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn narrow_avx2(kind: Half, src: *const f32, n: usize, dst: *mut u16) -> usize {
    use std::arch::x86_64::*;
    let round = |x: __m256i| -> __m256i {
        let nan = _mm256_cmpgt_epi32(
            _mm256_and_si256(x, _mm256_set1_epi32(0x7fff_ffff)),
            _mm256_set1_epi32(0x7f80_0000),
        );
        let hi = _mm256_srli_epi32::<16>(x);
        let z = _mm256_setzero_si256();
        let rb = _mm256_cmpeq_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x8000)), z);
        let st = _mm256_cmpeq_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x1_7fff)), z);
        // up = !rb_zero & !sticky_zero & !nan: all-ones lanes, so subtracting -1 adds 1.
        let up = _mm256_andnot_si256(
            _mm256_or_si256(_mm256_or_si256(rb, st), nan),
            _mm256_set1_epi32(-1),
        );
        let r = _mm256_sub_epi32(hi, up);
        _mm256_blendv_epi8(r, _mm256_or_si256(hi, _mm256_set1_epi32(0x40)), nan)
    };
    let mut i = 0;
    while i + 16 <= n {
        // SAFETY: values i..i+16 are inside the run.
        let (a, b) = unsafe { (_mm256_loadu_ps(src.add(i)), _mm256_loadu_ps(src.add(i + 8))) };
        let h = match kind {
            Half::F16 => _mm256_set_m128i(
                _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(b),
                _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(a),
            ),
            Half::Bf16 => {
                let p = _mm256_packus_epi32(
                    round(_mm256_castps_si256(a)),
                    round(_mm256_castps_si256(b)),
                );
                _mm256_permute4x64_epi64::<0xD8>(p)
            }
        };
        // SAFETY: as above.
        unsafe { _mm256_storeu_si256(dst.add(i) as *mut __m256i, h) };
        i += 16;
    }
    i
}

/// A read-only f16/bf16 operand addressed as `ptr[rows.at(i) + cols.at(j)]` (element offsets), packed into f32
/// panels: contiguous runs are widened with `widen_run`, straight into the panel where the run is a panel row
/// (row-major B, column-major A), else into a staging block that the f32 packer (`Operand`, with its in-register
/// transposes) then packs.
pub(crate) struct HalfOperand {
    pub ptr: *const u16,
    pub kind: Half,
    pub cvt: Cvt,
    pub rows: Offsets,
    pub cols: Offsets,
}

// SAFETY: read-only access to data the entry point borrowed for the whole call.
unsafe impl Sync for HalfOperand {}
unsafe impl Send for HalfOperand {}

impl HalfOperand {
    #[inline(always)]
    fn get(&self, i: usize, j: usize) -> f32 {
        // SAFETY: the entry point's contract: every (i, j) in range addresses the borrowed buffer.
        to_f32(self.kind, unsafe {
            self.ptr
                .offset(self.rows.at(i) + self.cols.at(j))
                .read_unaligned()
        })
    }

    /// Widens `n` contiguous values at element offset `off` into `dst`.
    ///
    /// # Safety
    /// Offsets `off..off+n` are inside the operand; `dst` holds `n` floats.
    #[inline]
    unsafe fn widen(&self, off: isize, n: usize, dst: *mut f32) {
        // SAFETY: the caller's contract; `cvt` was detected.
        unsafe { widen_run(self.kind, self.cvt, self.ptr.offset(off), n, dst) }
    }
}

impl PackA for HalfOperand {
    fn pack_a(&self, i0: usize, rows: usize, p0: usize, kc: usize, mr: usize, dst: &mut [f32]) {
        let dst = &mut dst[..kc * mr];
        match (&self.rows, &self.cols) {
            (ro, Offsets::Strided(1)) => {
                // Rows contiguous along k: widen each into a row-major staging block, pack that.
                with_scratch(rows * kc, |stage| {
                    for i in 0..rows {
                        // SAFETY: row i0+i, columns p0..p0+kc are inside the operand; stage row i holds kc floats.
                        unsafe {
                            self.widen(
                                ro.at(i0 + i) + p0 as isize,
                                kc,
                                stage[i * kc..].as_mut_ptr(),
                            )
                        };
                    }
                    let op = Operand {
                        ptr: stage.as_ptr(),
                        rows: Offsets::Strided(kc as isize),
                        cols: Offsets::Strided(1),
                    };
                    op.pack_a(0, rows, 0, kc, mr, dst);
                });
                return;
            }
            (Offsets::Strided(1), co) => {
                for (p, d) in dst.chunks_exact_mut(mr).enumerate() {
                    // SAFETY: column p0+p, rows i0..i0+rows are inside the operand; d holds mr >= rows floats.
                    unsafe { self.widen(co.at(p0 + p) + i0 as isize, rows, d.as_mut_ptr()) };
                }
            }
            _ => {
                for (p, d) in dst.chunks_exact_mut(mr).enumerate() {
                    for (i, x) in d[..rows].iter_mut().enumerate() {
                        *x = self.get(i0 + i, p0 + p);
                    }
                }
            }
        }
        if rows < mr {
            for d in dst.chunks_exact_mut(mr) {
                d[rows..].iter_mut().for_each(|x| *x = 0.0);
            }
        }
    }
}

impl PackB for HalfOperand {
    fn pack_b(&self, p0: usize, kc: usize, j0: usize, cols: usize, nr: usize, dst: &mut [f32]) {
        let dst = &mut dst[..kc * nr];
        match (&self.rows, &self.cols) {
            (ro, Offsets::Strided(1)) => {
                for (p, d) in dst.chunks_exact_mut(nr).enumerate() {
                    // SAFETY: row p0+p, columns j0..j0+cols are inside the operand; d holds nr >= cols floats.
                    unsafe { self.widen(ro.at(p0 + p) + j0 as isize, cols, d.as_mut_ptr()) };
                }
            }
            (Offsets::Strided(1), co) => {
                // Columns contiguous along k: widen each into a column-major staging block, pack that (transposes).
                with_scratch(cols * kc, |stage| {
                    for j in 0..cols {
                        // SAFETY: column j0+j, rows p0..p0+kc are inside the operand; stage column j holds kc floats.
                        unsafe {
                            self.widen(
                                co.at(j0 + j) + p0 as isize,
                                kc,
                                stage[j * kc..].as_mut_ptr(),
                            )
                        };
                    }
                    let op = Operand {
                        ptr: stage.as_ptr(),
                        rows: Offsets::Strided(1),
                        cols: Offsets::Strided(kc as isize),
                    };
                    op.pack_b(0, kc, 0, cols, nr, dst);
                });
                return;
            }
            _ => {
                for (p, d) in dst.chunks_exact_mut(nr).enumerate() {
                    for (j, x) in d[..cols].iter_mut().enumerate() {
                        *x = self.get(p0 + p, j0 + j);
                    }
                }
            }
        }
        if cols < nr {
            for d in dst.chunks_exact_mut(nr) {
                d[cols..].iter_mut().for_each(|x| *x = 0.0);
            }
        }
    }
}

/// An f32 or a 16-bit operand.
pub(crate) enum MixedOperand {
    F32(Operand),
    Half(HalfOperand),
}

impl PackA for MixedOperand {
    #[inline]
    fn pack_a(&self, i0: usize, rows: usize, p0: usize, kc: usize, mr: usize, dst: &mut [f32]) {
        match self {
            MixedOperand::F32(o) => o.pack_a(i0, rows, p0, kc, mr, dst),
            MixedOperand::Half(o) => o.pack_a(i0, rows, p0, kc, mr, dst),
        }
    }
}

impl PackB for MixedOperand {
    #[inline]
    fn pack_b(&self, p0: usize, kc: usize, j0: usize, cols: usize, nr: usize, dst: &mut [f32]) {
        match self {
            MixedOperand::F32(o) => o.pack_b(p0, kc, j0, cols, nr, dst),
            MixedOperand::Half(o) => o.pack_b(p0, kc, j0, cols, nr, dst),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cvts() -> Vec<Cvt> {
        let mut v = vec![Cvt::Scalar];
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("f16c") {
                v.push(Cvt::Avx2);
            }
            if std::is_x86_feature_detected!("avx512f") {
                v.push(Cvt::Avx512);
            }
        }
        v
    }

    /// Every 16-bit pattern widens as the `half` crate does, on every conversion path, incl. unaligned runs.
    #[test]
    fn widening_equals_half_for_every_pattern() {
        let all: Vec<u16> = (0..=u16::MAX).collect();
        for kind in [Half::F16, Half::Bf16] {
            let want: Vec<u32> = all.iter().map(|&b| to_f32(kind, b).to_bits()).collect();
            for cvt in cvts() {
                for skip in [0, 1, 3] {
                    let mut got = vec![0f32; all.len() - skip];
                    // SAFETY: runs of all.len() - skip values.
                    unsafe {
                        widen_run(kind, cvt, all[skip..].as_ptr(), got.len(), got.as_mut_ptr())
                    };
                    let got: Vec<u32> = got.iter().map(|x| x.to_bits()).collect();
                    assert!(got == want[skip..], "{kind:?} {cvt:?} skip {skip}");
                }
            }
        }
    }

    /// Rounding equals the `half` crate's on every path: every bf16/f16 neighbourhood (ties, just above and below
    /// them), NaNs with payloads, infinities, overflow, subnormals, and random bit patterns.
    #[test]
    fn narrowing_equals_half() {
        let mut vals: Vec<u32> = Vec::new();
        for hi in (0..=u16::MAX as u32).step_by(7) {
            for lo in [0u32, 1, 0x7fff, 0x8000, 0x8001, 0xffff, 0x1000, 0x2000] {
                vals.push((hi << 16) | lo);
            }
        }
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..100_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            vals.push(s as u32);
        }
        vals.extend([
            0x7f80_0000,
            0xff80_0000,
            0x7f80_0001,
            0xffc0_1234,
            0x7f7f_ffff,
            0x477f_f000,
            0x477f_efff,
        ]);
        let src: Vec<f32> = vals.iter().map(|&b| f32::from_bits(b)).collect();
        for kind in [Half::F16, Half::Bf16] {
            let want: Vec<u16> = src.iter().map(|&v| from_f32(kind, v)).collect();
            for cvt in cvts() {
                for skip in [0, 5] {
                    let mut got = vec![0u16; src.len() - skip];
                    // SAFETY: got holds src.len() - skip values.
                    unsafe { narrow_run(kind, cvt, &src[skip..], got.as_mut_ptr()) };
                    for (i, (&g, &w)) in got.iter().zip(&want[skip..]).enumerate() {
                        assert_eq!(g, w, "{kind:?} {cvt:?}: {:#x}", vals[skip + i]);
                    }
                }
            }
        }
    }
}
