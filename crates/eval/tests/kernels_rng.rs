//! Tests of `kernels::rng`: statistics over 10^5 samples (mean and variance within 5 standard errors) for uniform
//! f32, uniform s32, normal f32 and the spec's Bernoulli (uniform in [0, 1) compared with p); ranges, b <= a,
//! determinism; rng-bit-generator's known-answer vectors (Random123), state advance, shapes and bit balance.

use crate::kernels_support;
use kernels_support::*;
use rxla_eval::kernels::rng::{RngState, philox4x32, rng, rng_bit_generator, threefry2x32};
use rxla_ir::{ElementType, Literal, RngAlgorithm, RngDistribution, Shape};

const N: i64 = 100_000;

fn mean_var(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let v = x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n - 1.0);
    (m, v)
}

/// Asserts |got - want| <= 5 * se.
fn within(what: &str, got: f64, want: f64, se: f64) {
    assert!(
        (got - want).abs() <= 5.0 * se,
        "{what}: got {got}, want {want} +- {}",
        5.0 * se
    );
}

#[test]
fn uniform_f32_statistics() {
    let mut st = RngState::new(42);
    let out = rng(
        RngDistribution::Uniform,
        &scalar(2.0f32),
        &scalar(5.0f32),
        &shape(ElementType::F32, &[N]),
        &mut st,
    )
    .unwrap();
    let x: Vec<f64> = vals::<f32>(&out).iter().map(|&v| v as f64).collect();
    assert!(x.iter().all(|&v| (2.0..5.0).contains(&v)));
    let (m, v) = mean_var(&x);
    let n = N as f64;
    // Uniform(a, b): mean (a+b)/2, variance (b-a)^2/12, fourth central moment (b-a)^4/80.
    within("mean", m, 3.5, (0.75f64 / n).sqrt());
    within(
        "variance",
        v,
        0.75,
        ((81.0 / 80.0 - 0.75 * 0.75) / n).sqrt(),
    );
}

#[test]
fn uniform_s32_statistics() {
    let mut st = RngState::new(7);
    let out = rng(
        RngDistribution::Uniform,
        &scalar(-3i32),
        &scalar(7i32),
        &shape(ElementType::S32, &[N]),
        &mut st,
    )
    .unwrap();
    let xi = vals::<i32>(&out);
    assert!(xi.iter().all(|&v| (-3..7).contains(&v)));
    for k in -3..7 {
        assert!(xi.contains(&k), "value {k} never drawn");
    }
    let x: Vec<f64> = xi.iter().map(|&v| v as f64).collect();
    let (m, v) = mean_var(&x);
    let n = N as f64;
    // Discrete uniform on 10 values: mean 1.5, variance (10^2-1)/12 = 8.25.
    within("mean", m, 1.5, (8.25 / n).sqrt());
    // Fourth central moment of the discrete uniform: (n^2-1)(3n^2-7)/240 = 99*293/240.
    let mu4 = 99.0 * 293.0 / 240.0;
    within("variance", v, 8.25, ((mu4 - 8.25 * 8.25) / n).sqrt());
}

#[test]
fn normal_statistics() {
    let mut st = RngState::new(3);
    let out = rng(
        RngDistribution::Normal,
        &scalar(1.0f32),
        &scalar(2.0f32),
        &shape(ElementType::F32, &[N]),
        &mut st,
    )
    .unwrap();
    let x: Vec<f64> = vals::<f32>(&out).iter().map(|&v| v as f64).collect();
    assert!(x.iter().all(|v| v.is_finite()));
    let (m, v) = mean_var(&x);
    let n = N as f64;
    within("mean", m, 1.0, 2.0 / n.sqrt());
    within("variance", v, 4.0, (2.0 * 16.0 / n).sqrt());
    // Tails: about 4.55% beyond 2 sigma.
    let tail = x.iter().filter(|&&v| (v - 1.0).abs() > 4.0).count() as f64 / n;
    within("2-sigma tail", tail, 0.0455, (0.0455 * 0.9545 / n).sqrt());
}

#[test]
fn bernoulli_via_uniform_compare() {
    let mut st = RngState::new(11);
    let p = 0.3;
    let out = rng(
        RngDistribution::Uniform,
        &scalar(0.0f32),
        &scalar(1.0f32),
        &shape(ElementType::F32, &[N]),
        &mut st,
    )
    .unwrap();
    let ones = vals::<f32>(&out).iter().filter(|&&u| u < p as f32).count() as f64;
    within(
        "bernoulli mean",
        ones / N as f64,
        p,
        (p * (1.0 - p) / N as f64).sqrt(),
    );
}

#[test]
fn deterministic_and_seed_dependent() {
    let draw = |seed: u64| {
        let mut st = RngState::new(seed);
        let a = rng(
            RngDistribution::Uniform,
            &scalar(0.0f64),
            &scalar(1.0f64),
            &shape(ElementType::F64, &[64]),
            &mut st,
        )
        .unwrap();
        let b = rng(
            RngDistribution::Normal,
            &scalar(0.0f64),
            &scalar(1.0f64),
            &shape(ElementType::F64, &[64]),
            &mut st,
        )
        .unwrap();
        (vals::<f64>(&a), vals::<f64>(&b))
    };
    assert_eq!(draw(5), draw(5));
    assert_ne!(draw(5), draw(6));
    // Successive calls continue the stream.
    let (a, b) = draw(5);
    assert_ne!(a, b);
}

#[test]
fn degenerate_ranges_and_types() {
    let mut st = RngState::new(1);
    let f = rng(
        RngDistribution::Uniform,
        &scalar(2.0f32),
        &scalar(2.0f32),
        &shape(ElementType::F32, &[4]),
        &mut st,
    )
    .unwrap();
    assert_eq!(vals::<f32>(&f), vec![2.0; 4]);
    let i = rng(
        RngDistribution::Uniform,
        &scalar(5i32),
        &scalar(-5i32),
        &shape(ElementType::S32, &[4]),
        &mut st,
    )
    .unwrap();
    assert_eq!(vals::<i32>(&i), vec![5; 4]);
    // Full u32 range: values spread over the whole range.
    let u = rng(
        RngDistribution::Uniform,
        &scalar(0u32),
        &scalar(u32::MAX),
        &shape(ElementType::U32, &[1000]),
        &mut st,
    )
    .unwrap();
    assert!(vals::<u32>(&u).iter().any(|&v| v > u32::MAX / 2));
    // Narrow float range never reaches b.
    let b = 1.0f32 + f32::EPSILON;
    let n = rng(
        RngDistribution::Uniform,
        &scalar(1.0f32),
        &scalar(b),
        &shape(ElementType::F32, &[1000]),
        &mut st,
    )
    .unwrap();
    assert!(vals::<f32>(&n).iter().all(|&v| v == 1.0));
    // Normal on integers and mismatched parameter types are errors.
    assert!(
        rng(
            RngDistribution::Normal,
            &scalar(0i32),
            &scalar(1i32),
            &shape(ElementType::S32, &[2]),
            &mut st
        )
        .is_err()
    );
    assert!(
        rng(
            RngDistribution::Uniform,
            &scalar(0i32),
            &scalar(1.0f32),
            &shape(ElementType::F32, &[2]),
            &mut st
        )
        .is_err()
    );
}

#[test]
fn threefry_known_answers() {
    // Random123 known-answer tests for threefry2x32_20.
    assert_eq!(threefry2x32([0, 0], [0, 0]), [0x6b200159, 0x99ba4efe]);
    assert_eq!(
        threefry2x32([u32::MAX, u32::MAX], [u32::MAX, u32::MAX]),
        [0x1cb996fc, 0xbb002be7]
    );
    assert_eq!(
        threefry2x32([0x13198a2e, 0x03707344], [0x243f6a88, 0x85a308d3]),
        [0xc4923a9c, 0x483df7a0]
    );
}

#[test]
fn philox_known_answers() {
    // Random123 known-answer tests for philox4x32_10.
    assert_eq!(
        philox4x32([0, 0], [0, 0, 0, 0]),
        [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
    );
    assert_eq!(
        philox4x32([u32::MAX; 2], [u32::MAX; 4]),
        [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
    );
    assert_eq!(
        philox4x32(
            [0xa4093822, 0x299f31d0],
            [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344]
        ),
        [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]
    );
}

fn rbg(alg: RngAlgorithm, state: Vec<u64>, bits: Shape) -> (Vec<u64>, Literal) {
    let st = arr(&[state.len() as i64], state);
    let out = rng_bit_generator(
        alg,
        &st,
        &Shape::Tuple(vec![Shape::Array(st.shape.clone()), bits]),
    )
    .unwrap();
    let Literal::Tuple(mut p) = out else {
        panic!("expected (state, bits)")
    };
    let bits = p.pop().unwrap();
    (lit_vals::<u64>(&p[0]), bits)
}

#[test]
fn rng_bit_generator_threefry() {
    // 3 u32 need two 64-bit blocks: the counter advances by 2; block 0 is threefry(key, ctr).
    let (ns, bits) = rbg(
        RngAlgorithm::ThreeFry,
        vec![0, 0],
        Shape::Array(shape(ElementType::U32, &[3])),
    );
    assert_eq!(ns, vec![0, 2]);
    let b = lit_vals::<u32>(&bits);
    assert_eq!(&b[..2], &[0x6b200159, 0x99ba4efe]);
    // Chaining the state gives fresh bits; the same state gives the same bits.
    let (_, again) = rbg(
        RngAlgorithm::ThreeFry,
        vec![0, 0],
        Shape::Array(shape(ElementType::U32, &[3])),
    );
    assert_eq!(again, bits);
    let (_, next) = rbg(
        RngAlgorithm::ThreeFry,
        ns,
        Shape::Array(shape(ElementType::U32, &[3])),
    );
    assert_ne!(next, bits);
}

#[test]
fn rng_bit_generator_philox_and_default() {
    let shape_bits = Shape::Array(shape(ElementType::U64, &[2, 3]));
    let (ns, bits) = rbg(RngAlgorithm::Philox, vec![0, 0, 0], shape_bits.clone());
    // 6 u64 = 48 bytes = 3 blocks of 16.
    assert_eq!(ns, vec![0, 3, 0]);
    let b = lit_vals::<u64>(&bits);
    assert_eq!(b[0], 0xe169c58d_6627e8d5);
    let (ns2, bits2) = rbg(RngAlgorithm::Default, vec![0, 0, 0], shape_bits);
    assert_eq!((ns2, bits2), (ns, bits));
    // Counter carry into the high word.
    let (ns, _) = rbg(
        RngAlgorithm::Philox,
        vec![9, u64::MAX, 4],
        Shape::Array(shape(ElementType::U32, &[4])),
    );
    assert_eq!(ns, vec![9, 0, 5]);
}

#[test]
fn rng_bit_generator_bits_are_balanced() {
    let (_, bits) = rbg(
        RngAlgorithm::Philox,
        vec![123, 0, 0],
        Shape::Array(shape(ElementType::U32, &[10_000])),
    );
    let ones: u32 = lit_vals::<u32>(&bits).iter().map(|v| v.count_ones()).sum();
    let n = 320_000.0;
    within("bit balance", ones as f64 / n, 0.5, (0.25f64 / n).sqrt());
    // Other element types are filled by bit width.
    let (_, f) = rbg(
        RngAlgorithm::ThreeFry,
        vec![1, 2],
        Shape::Array(shape(ElementType::U8, &[5])),
    );
    assert_eq!(lit_vals::<u8>(&f).len(), 5);
}

#[test]
fn rng_bit_generator_errors() {
    let st = arr(&[1], vec![0u64]);
    let out = Shape::Tuple(vec![
        Shape::Array(st.shape.clone()),
        Shape::Array(shape(ElementType::U32, &[2])),
    ]);
    assert!(rng_bit_generator(RngAlgorithm::Philox, &st, &out).is_err());
    let st = arr(&[2], vec![0u64, 0]);
    assert!(
        rng_bit_generator(
            RngAlgorithm::Philox,
            &st,
            &Shape::Array(shape(ElementType::U32, &[2]))
        )
        .is_err()
    );
}
