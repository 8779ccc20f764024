//! Random numbers: `rng` (uniform and normal distributions) from an evaluation-wide deterministic [`RngState`], and
//! `rng-bit-generator` (ThreeFry-2x32-20 or Philox-4x32-10 keyed by its state operand). Everything is deterministic:
//! the same seed and the same sequence of calls give the same values. Bits are NOT promised to match XLA's.
//!
//! `rng` stream: SplitMix64 over a counter (`x = mix(key + counter * 0x9E3779B97F4A7C15)`, the counter advancing by
//! one per 64-bit draw). Uniform floats in `[a, b)`: `a + (b - a) * u` with `u` from the top 24 (f32, f16, bf16) or
//! 53 (f64) bits, then clamped below `b`; `b <= a` gives `a`. Uniform integers in `[a, b)`: `a + (bits * (b-a)) >> 64`
//! (Lemire's multiply, computed in 128 bits); `b <= a` gives `a`. Normal: Box-Muller
//! `mu + sigma * sqrt(-2 ln u1) * cos(2 pi u2)` in f64 with `u1` in (0, 1], one pair of draws per element, rounded to
//! the result type. Half-precision results are computed in f32 and rounded; a uniform value that rounds up to `b`
//! becomes `a`.

use super::util::{check_literal, make_array};
use crate::error::{EvalError, Result};
use half::{bf16, f16};
use rxla_ir::{
    ArrayData, ArrayLiteral, ArrayShape, ElementType, Literal, RngAlgorithm, RngDistribution, Shape,
};

/// Deterministic random state of an evaluation (a counter-based SplitMix64 stream).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RngState {
    counter: u64,
    key: u64,
}

impl RngState {
    pub fn new(seed: u64) -> RngState {
        RngState {
            counter: 0,
            key: seed,
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.counter = self.counter.wrapping_add(1);
        splitmix64(
            self.key
                .wrapping_add(self.counter.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        )
    }

    /// Uniform in [0, 1) with 53 bits.
    fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [0, 1) with 24 bits.
    fn unit_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u32 << 24) as f32)
    }

    /// A standard normal sample (Box-Muller, cosine branch).
    fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.unit_f64();
        let u2 = self.unit_f64();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

/// SplitMix64's finaliser.
fn splitmix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn scalar_f64(a: &ArrayLiteral) -> f64 {
    match &a.data {
        ArrayData::F16(v) => v[0].to_f64(),
        ArrayData::BF16(v) => v[0].to_f64(),
        ArrayData::F32(v) => v[0] as f64,
        ArrayData::F64(v) => v[0],
        _ => 0.0,
    }
}

fn scalar_i128(a: &ArrayLiteral) -> i128 {
    match &a.data {
        ArrayData::Pred(v) => v[0] as i128,
        ArrayData::S8(v) => v[0] as i128,
        ArrayData::S16(v) => v[0] as i128,
        ArrayData::S32(v) => v[0] as i128,
        ArrayData::S64(v) => v[0] as i128,
        ArrayData::U8(v) => v[0] as i128,
        ArrayData::U16(v) => v[0] as i128,
        ArrayData::U32(v) => v[0] as i128,
        ArrayData::U64(v) => v[0] as i128,
        _ => 0,
    }
}

/// `rng(a, b)` of `distribution`; `out` is the instruction's shape (same element type as `a` and `b`).
pub fn rng(
    distribution: RngDistribution,
    a: &ArrayLiteral,
    b: &ArrayLiteral,
    out: &ArrayShape,
    state: &mut RngState,
) -> Result<ArrayLiteral> {
    for (name, p) in [("a", a), ("b", b)] {
        if check_literal(p, "rng parameter")? != 1
            || !p.shape.dims.is_empty()
            || p.shape.element_type != out.element_type
        {
            return Err(EvalError::new(format!(
                "rng: parameter {name} has shape {}, expected a {}[] scalar",
                p.shape, out.element_type
            )));
        }
    }
    let n = out.element_count()?;
    let ty = out.element_type;
    let data = match distribution {
        RngDistribution::Uniform if ty.is_float() => {
            let (lo, hi) = (scalar_f64(a), scalar_f64(b));
            match ty {
                ElementType::F64 => ArrayData::F64(
                    (0..n)
                        .map(|_| {
                            let u = state.unit_f64();
                            if hi <= lo {
                                lo
                            } else {
                                (lo + (hi - lo) * u).min(hi.next_down())
                            }
                        })
                        .collect(),
                ),
                _ => {
                    let (lo32, hi32) = (lo as f32, hi as f32);
                    let vals: Vec<f32> = (0..n)
                        .map(|_| {
                            let u = state.unit_f32();
                            if hi32 <= lo32 {
                                lo32
                            } else {
                                (lo32 + (hi32 - lo32) * u).min(hi32.next_down())
                            }
                        })
                        .collect();
                    match ty {
                        ElementType::F32 => ArrayData::F32(vals),
                        ElementType::F16 => ArrayData::F16(
                            vals.into_iter()
                                .map(|x| {
                                    let h = f16::from_f32(x);
                                    if h.to_f32() >= hi32 && hi32 > lo32 {
                                        f16::from_f32(lo32)
                                    } else {
                                        h
                                    }
                                })
                                .collect(),
                        ),
                        _ => ArrayData::BF16(
                            vals.into_iter()
                                .map(|x| {
                                    let h = bf16::from_f32(x);
                                    if h.to_f32() >= hi32 && hi32 > lo32 {
                                        bf16::from_f32(lo32)
                                    } else {
                                        h
                                    }
                                })
                                .collect(),
                        ),
                    }
                }
            }
        }
        RngDistribution::Uniform if ty.is_integer() || ty.is_pred() => {
            let (lo, hi) = (scalar_i128(a), scalar_i128(b));
            let vals: Vec<i128> = (0..n)
                .map(|_| {
                    let bits = state.next_u64();
                    if hi <= lo {
                        lo
                    } else {
                        let range = (hi - lo) as u128;
                        lo + ((bits as u128 * range) >> 64) as i128
                    }
                })
                .collect();
            int_data(ty, &vals)
        }
        RngDistribution::Normal if ty.is_float() => {
            let (mu, sigma) = (scalar_f64(a), scalar_f64(b));
            let vals: Vec<f64> = (0..n).map(|_| mu + sigma * state.normal()).collect();
            match ty {
                ElementType::F64 => ArrayData::F64(vals),
                ElementType::F32 => ArrayData::F32(vals.into_iter().map(|x| x as f32).collect()),
                ElementType::F16 => ArrayData::F16(vals.into_iter().map(f16::from_f64).collect()),
                _ => ArrayData::BF16(vals.into_iter().map(bf16::from_f64).collect()),
            }
        }
        _ => {
            return Err(EvalError::new(format!(
                "rng: {} is not defined for element type {ty}",
                distribution.name()
            )));
        }
    };
    make_array(out, data)
}

/// Integer values (already in range) as data of `ty`.
fn int_data(ty: ElementType, v: &[i128]) -> ArrayData {
    match ty {
        ElementType::Pred => ArrayData::Pred(v.iter().map(|&x| x != 0).collect()),
        ElementType::S8 => ArrayData::S8(v.iter().map(|&x| x as i8).collect()),
        ElementType::S16 => ArrayData::S16(v.iter().map(|&x| x as i16).collect()),
        ElementType::S32 => ArrayData::S32(v.iter().map(|&x| x as i32).collect()),
        ElementType::S64 => ArrayData::S64(v.iter().map(|&x| x as i64).collect()),
        ElementType::U8 => ArrayData::U8(v.iter().map(|&x| x as u8).collect()),
        ElementType::U16 => ArrayData::U16(v.iter().map(|&x| x as u16).collect()),
        ElementType::U32 => ArrayData::U32(v.iter().map(|&x| x as u32).collect()),
        _ => ArrayData::U64(v.iter().map(|&x| x as u64).collect()),
    }
}

/// `rng-bit-generator(state)`: result `(new_state, bits)`.
///
/// The state's bytes (little-endian, row-major) are read as 64-bit words (at least two). ThreeFry-2x32-20: key =
/// word 0, counter = word 1, one 64-bit block per counter value. Philox-4x32-10 (also `rng_default`): key = word 0,
/// 128-bit counter = words 1 (low) and 2 (high; 0 when the state has only two words), one 128-bit block per counter
/// value. The bits result is filled with the blocks' bytes in order (little-endian words) and reinterpreted as its
/// element type; the new state equals the old one with the counter advanced by the number of blocks used (wrapping).
pub fn rng_bit_generator(
    algorithm: RngAlgorithm,
    state: &ArrayLiteral,
    out: &Shape,
) -> Result<Literal> {
    check_literal(state, "rng-bit-generator state")?;
    let (state_shape, bits_shape) = match out {
        Shape::Tuple(t) if t.len() == 2 => (t[0].as_array()?, t[1].as_array()?),
        _ => {
            return Err(EvalError::new(format!(
                "rng-bit-generator: result shape {out} is not a (state, bits) pair"
            )));
        }
    };
    if !state_shape.compatible(&state.shape) {
        return Err(EvalError::new(format!(
            "rng-bit-generator: new state shape {state_shape} differs from the state {}",
            state.shape
        )));
    }
    if !state.shape.element_type.is_integer() {
        return Err(EvalError::new(
            "rng-bit-generator: the state must hold integers",
        ));
    }
    let state_bytes = state.data.to_le_bytes();
    let mut words: Vec<u64> = state_bytes
        .chunks(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .collect();
    if words.len() < 2 {
        return Err(EvalError::new(format!(
            "rng-bit-generator: state {} has fewer than 128 bits",
            state.shape
        )));
    }
    let nbytes = bits_shape
        .element_count()?
        .checked_mul(bits_shape.element_type.byte_size())
        .ok_or_else(|| EvalError::new("rng-bit-generator: result size overflows"))?;
    let bytes = bit_stream(algorithm, &mut words, nbytes);
    let new_state_bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take(state_bytes.len())
        .collect();
    let new_state = ArrayData::from_le_bytes(state.shape.element_type, &new_state_bytes)?;
    let bits = ArrayData::from_le_bytes(bits_shape.element_type, &bytes)?;
    Ok(Literal::Tuple(vec![
        Literal::Array(make_array(state_shape, new_state)?),
        Literal::Array(make_array(bits_shape, bits)?),
    ]))
}

/// The first `nbytes` bytes of rng-bit-generator's stream for the state
/// `words` (key, counter words), which it advances: ThreeFry-2x32 on a
/// 64-bit counter, Philox-4x32 on a 128-bit one. Shared with the JIT.
pub fn bit_stream(algorithm: RngAlgorithm, words: &mut [u64], nbytes: usize) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(nbytes + 16);
    let key = words[0];
    let key2 = [key as u32, (key >> 32) as u32];
    match algorithm {
        RngAlgorithm::ThreeFry => {
            let mut ctr = words[1];
            while bytes.len() < nbytes {
                for x in threefry2x32(key2, [ctr as u32, (ctr >> 32) as u32]) {
                    bytes.extend_from_slice(&x.to_le_bytes());
                }
                ctr = ctr.wrapping_add(1);
            }
            words[1] = ctr;
        }
        RngAlgorithm::Philox | RngAlgorithm::Default => {
            let hi_word = words.get(2).copied().unwrap_or(0);
            let mut ctr = ((hi_word as u128) << 64) | words[1] as u128;
            while bytes.len() < nbytes {
                let c = [
                    ctr as u32,
                    (ctr >> 32) as u32,
                    (ctr >> 64) as u32,
                    (ctr >> 96) as u32,
                ];
                for x in philox4x32(key2, c) {
                    bytes.extend_from_slice(&x.to_le_bytes());
                }
                ctr = ctr.wrapping_add(1);
            }
            words[1] = ctr as u64;
            if words.len() > 2 {
                words[2] = (ctr >> 64) as u64;
            }
        }
    }
    bytes.truncate(nbytes);
    bytes
}

/// ThreeFry-2x32 with 20 rounds (Salmon et al., Random123).
pub fn threefry2x32(key: [u32; 2], ctr: [u32; 2]) -> [u32; 2] {
    const ROT: [u32; 8] = [13, 15, 26, 6, 17, 29, 16, 24];
    let ks = [key[0], key[1], 0x1BD1_1BDA ^ key[0] ^ key[1]];
    let mut x = [ctr[0].wrapping_add(ks[0]), ctr[1].wrapping_add(ks[1])];
    for block in 0..5u32 {
        for r in 0..4 {
            let rot = ROT[((block % 2) * 4 + r) as usize];
            x[0] = x[0].wrapping_add(x[1]);
            x[1] = x[1].rotate_left(rot) ^ x[0];
        }
        let s = (block + 1) as usize;
        x[0] = x[0].wrapping_add(ks[s % 3]);
        x[1] = x[1].wrapping_add(ks[(s + 1) % 3]).wrapping_add(s as u32);
    }
    x
}

/// Philox-4x32 with 10 rounds (Salmon et al., Random123).
pub fn philox4x32(key: [u32; 2], ctr: [u32; 4]) -> [u32; 4] {
    const M0: u64 = 0xD251_1F53;
    const M1: u64 = 0xCD9E_8D57;
    let mut k = key;
    let mut c = ctr;
    for round in 0..10 {
        if round > 0 {
            k[0] = k[0].wrapping_add(0x9E37_79B9);
            k[1] = k[1].wrapping_add(0xBB67_AE85);
        }
        let p0 = M0 * c[0] as u64;
        let p1 = M1 * c[2] as u64;
        c = [
            ((p1 >> 32) as u32) ^ c[1] ^ k[0],
            p1 as u32,
            ((p0 >> 32) as u32) ^ c[3] ^ k[1],
            p0 as u32,
        ];
    }
    c
}
