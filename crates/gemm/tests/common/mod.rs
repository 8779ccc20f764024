//! Shared helpers of the rxla-gemm tests: a deterministic generator, f64 references and tolerance checks.
#![allow(dead_code)]

use rxla_gemm::{KernelKind, Options};

/// A small deterministic generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [-1, 1).
    pub fn f32(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
    pub fn vec(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.f32()).collect()
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Kernels (tiers) to test on this host: every one it can run; prints a note for each one skipped.
pub fn kernels() -> Vec<KernelKind> {
    let mut v = Vec::new();
    for k in [
        KernelKind::Portable,
        KernelKind::Cranelift,
        KernelKind::Avx2Fma,
        KernelKind::Avx512,
    ] {
        if k.available() {
            v.push(k);
        } else {
            eprintln!(
                "note: this host cannot run the {} micro-kernel; its tests are skipped",
                k.name()
            );
        }
    }
    v
}

pub fn opts(kernel: KernelKind, threads: usize) -> Options {
    Options {
        threads,
        kernel,
        blocking: None,
        unpacked_paths: true,
        parallel_threshold: 0,
    }
}

/// `|got - want| <= 1e-5 * scale + 1e-30` elementwise, where `scale` is the magnitude sum of the terms.
pub fn assert_close(got: &[f32], want: &[f64], scale: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, ((&g, &w), &s)) in got.iter().zip(want).zip(scale).enumerate() {
        let err = (g as f64 - w).abs();
        assert!(
            err <= 1e-5 * s.max(f64::MIN_POSITIVE) + 1e-30,
            "{what}: element {i}: got {g}, want {w} (error {err:e}, scale {s:e})"
        );
    }
}

use rxla_gemm::TensorLayout;
use rxla_ir::{ArrayLiteral, Literal};

/// A row-major f32 literal.
pub fn lit(dims: &[usize], data: Vec<f32>) -> ArrayLiteral {
    let d: Vec<i64> = dims.iter().map(|&x| x as i64).collect();
    Literal::from_vec(&d, data).unwrap().into_array().unwrap()
}

pub fn f32s(l: &ArrayLiteral) -> Vec<f32> {
    l.as_slice::<f32>().unwrap().to_vec()
}

/// A random dense layout of `dims` (a random minor_to_major permutation).
pub fn random_layout(dims: &[usize], rng: &mut Rng) -> TensorLayout {
    let mut perm: Vec<usize> = (0..dims.len()).collect();
    for i in (1..perm.len()).rev() {
        perm.swap(i, rng.below(i + 1));
    }
    TensorLayout::with_minor_to_major(dims, &perm).unwrap()
}

/// Row-major data stored in `layout` (physical buffer).
pub fn to_physical(data: &[f32], layout: &TensorLayout) -> Vec<f32> {
    let mut out = vec![0f32; layout.count()];
    for (i, &x) in data.iter().enumerate() {
        out[physical_index(i, layout)] = x;
    }
    out
}

/// Physical buffer in `layout` back to row-major data.
pub fn from_physical(buf: &[f32], layout: &TensorLayout) -> Vec<f32> {
    (0..layout.count())
        .map(|i| buf[physical_index(i, layout)])
        .collect()
}

fn physical_index(mut linear: usize, layout: &TensorLayout) -> usize {
    let mut off = 0isize;
    for (&d, &s) in layout.dims.iter().zip(&layout.strides).rev() {
        off += (linear % d) as isize * s;
        linear /= d;
    }
    off as usize
}
