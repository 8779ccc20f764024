//! `conv-polyphase`: input-dilated convolutions split into phases give the
//! evaluator's values (to a convolution's tolerance) on random inputs, for
//! 1-D and 2-D windows, dilations 2 and 3, negative and positive padding,
//! feature groups and NCHW/NHWC labels; convolutions it must not touch
//! stay as they are.

use rxla_eval::{RunOptions, evaluate};
use rxla_ir::{Literal, Module, text::parse_module};
use rxla_passes::{PassManager, Registry};

fn split(text: &str) -> (Module, Module, bool) {
    let before = parse_module(text, "t").unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut after = before.clone();
    let mut pm = PassManager::from_text("conv-polyphase,dce", &Registry::standard()).unwrap();
    let changed = pm.run(&mut after).unwrap().changed;
    rxla_ir::verifier::verify_module(&after).unwrap();
    (before, after, changed)
}

/// Deterministic pseudo-random values in [-1, 1).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

fn case(lhs: &[i64], rhs: &[i64], out: &[i64], attrs: &str) -> String {
    let dims = |d: &[i64]| {
        d.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    format!(
        "HloModule t\nENTRY e {{\n  x = f32[{}] parameter(0)\n  w = f32[{}] parameter(1)\n  ROOT c = f32[{}] convolution(x, w), {attrs}\n}}\n",
        dims(lhs),
        dims(rhs),
        dims(out)
    )
}

fn check(lhs: &[i64], rhs: &[i64], out: &[i64], attrs: &str, want_split: bool) {
    let text = case(lhs, rhs, out, attrs);
    let (before, after, changed) = split(&text);
    assert_eq!(changed, want_split, "{text}");
    let n = |d: &[i64]| d.iter().product::<i64>() as usize;
    let args = [
        Literal::from_vec(lhs, values(n(lhs), 1)).unwrap(),
        Literal::from_vec(rhs, values(n(rhs), 2)).unwrap(),
    ];
    let a = evaluate(&before, &args, &RunOptions::default()).unwrap();
    let b = evaluate(&after, &args, &RunOptions::default()).unwrap();
    let (a, b) = (a.as_slice::<f32>().unwrap(), b.as_slice::<f32>().unwrap());
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= 1e-5 * (1.0 + x.abs()),
            "{text}\nelement {i}: {x} vs {y}"
        );
    }
}

#[test]
fn transposed_convolutions_split_into_phases() {
    // JAX's conv_transpose, stride 2, SAME, NHWC (the decoder case).
    check(
        &[2, 5, 5, 3],
        &[3, 3, 3, 4],
        &[2, 10, 10, 4],
        "window={size=3x3 pad=2_1x2_1 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f",
        true,
    );
    // 4x4 kernel, stride 2, NCHW, VALID-like padding.
    check(
        &[1, 2, 4, 4],
        &[3, 2, 4, 4],
        &[1, 3, 10, 10],
        "window={size=4x4 pad=3_3x3_3 lhs_dilate=2x2}, dim_labels=bf01_oi01->bf01",
        true,
    );
    // 1-D, dilation 3, a kernel shorter than the dilation (a phase with no
    // tap: zeros), negative padding.
    check(
        &[1, 7, 2],
        &[2, 2, 3],
        &[1, 18, 3],
        "window={size=2 pad=1_-1 lhs_dilate=3}, dim_labels=b0f_0io->b0f",
        true,
    );
    // Only one dimension dilated, with feature groups.
    check(
        &[1, 4, 6, 4],
        &[3, 3, 2, 6],
        &[1, 8, 4, 6],
        "window={size=3x3 pad=1_2x0_0 lhs_dilate=2x1}, dim_labels=b01f_01io->b01f, feature_group_count=2",
        true,
    );
}

#[test]
fn other_convolutions_are_left_alone() {
    // No input dilation.
    check(
        &[1, 6, 6, 2],
        &[3, 3, 2, 2],
        &[1, 6, 6, 2],
        "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
        false,
    );
    // A window stride with the dilation.
    check(
        &[1, 5, 2],
        &[3, 2, 2],
        &[1, 5, 2],
        "window={size=3 stride=2 pad=1_1 lhs_dilate=2}, dim_labels=b0f_0io->b0f",
        false,
    );
    // An output extent that is not a multiple of the dilation.
    check(
        &[1, 5, 2],
        &[3, 2, 2],
        &[1, 9, 2],
        "window={size=3 pad=1_1 lhs_dilate=2}, dim_labels=b0f_0io->b0f",
        false,
    );
}
