//! Shared helpers of the evaluator's integration tests: parse HLO text,
//! evaluate, and read results back as plain vectors.
#![allow(dead_code)]

use rxla_eval::{EvalError, RunOptions, evaluate};
use rxla_ir::{Literal, Module, NativeType};

pub fn parse(text: &str) -> Module {
    rxla_ir::parse_module(text, "test.hlo").unwrap_or_else(|e| panic!("parse error:\n{e}"))
}

pub fn try_run_with(
    text: &str,
    args: Vec<Literal>,
    opts: &RunOptions,
) -> Result<Literal, EvalError> {
    evaluate(&parse(text), &args, opts)
}

pub fn try_run(text: &str, args: Vec<Literal>) -> Result<Literal, EvalError> {
    try_run_with(text, args, &RunOptions::default())
}

pub fn run(text: &str, args: Vec<Literal>) -> Literal {
    try_run(text, args).unwrap_or_else(|e| panic!("evaluation failed: {e}"))
}

/// Row-major values and dims of an array result.
pub fn values<T: NativeType>(l: &Literal) -> (Vec<i64>, Vec<T>) {
    let a = l.as_array().expect("array result");
    let v = a
        .as_slice::<T>()
        .unwrap_or_else(|| panic!("result has type {}", a.shape.element_type))
        .to_vec();
    (a.shape.dims.clone(), v)
}

pub fn f32s(l: &Literal) -> Vec<f32> {
    values::<f32>(l).1
}

pub fn s32s(l: &Literal) -> Vec<i32> {
    values::<i32>(l).1
}

pub fn preds(l: &Literal) -> Vec<bool> {
    values::<bool>(l).1
}

/// The spec's f32[4x2x3] example array v.
pub fn spec_v() -> Literal {
    let vals: Vec<f32> = [
        10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27, 30, 31, 32, 35, 36, 37, 40, 41, 42, 45, 46,
        47,
    ]
    .iter()
    .map(|&x| x as f32)
    .collect();
    Literal::from_vec(&[4, 2, 3], vals).unwrap()
}

pub fn err_text(r: Result<Literal, EvalError>) -> String {
    match r {
        Ok(l) => panic!("expected an error, got {l}"),
        Err(e) => e.to_string(),
    }
}
