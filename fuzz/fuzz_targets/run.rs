//! cargo-fuzz target `run`: hostile argument bytes and buffer sizes
//! against a fixed set of small modules (elementwise, reduce,
//! dynamic-slice with u64 starts, gather, a while loop driven by an
//! argument, dot, a tuple parameter). Each input picks a module, then
//! feeds the evaluator (`rxla_eval::evaluate`, literals decoded from the
//! bytes, sometimes of a wrong shape) and the JIT
//! (`rxla_jit::Executable::run_into_with`, input and output buffers of
//! arbitrary, possibly wrong, lengths and counts). Every call must return
//! `Ok` or `Err`: a panic or an out-of-bounds access (ASan) is a crash.
//! Loops, memory and time are bounded through `RunOptions`.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use rxla_eval::RunOptions;
use rxla_ir::{ArrayLiteral, ArrayShape, ElementType, Literal, Module, Shape};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const MODULES: &[&str] = &[
    // Elementwise: float math, integer division (by zero, MIN / -1),
    // conversions that saturate.
    "HloModule elementwise

ENTRY main {
  a = f32[7]{0} parameter(0)
  b = f32[7]{0} parameter(1)
  i = s32[7]{0} parameter(2)
  j = s32[7]{0} parameter(3)
  m = f32[7]{0} multiply(a, b)
  e = f32[7]{0} exponential(m)
  d = s32[7]{0} divide(i, j)
  r = s32[7]{0} remainder(i, j)
  c = s32[7]{0} convert(e)
  s = s32[7]{0} add(d, r)
  t = s32[7]{0} add(s, c)
  p = pred[7]{0} compare(a, b), direction=LT
  ROOT o = (f32[7]{0}, s32[7]{0}) tuple(m, t)
}
",
    // Reduce over one dimension and all of them.
    "HloModule reduce

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

mx {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] maximum(x, y)
}

ENTRY main {
  a = f32[3,5]{1,0} parameter(0)
  i = s32[2,3]{0,1} parameter(1)
  z = f32[] constant(0)
  lo = s32[] constant(-2147483648)
  r = f32[3]{0} reduce(a, z), dimensions={1}, to_apply=add
  m = s32[] reduce(i, lo), dimensions={0,1}, to_apply=mx
  ROOT o = (f32[3]{0}, s32[]) tuple(r, m)
}
",
    // Dynamic slices with u64 and s64 starts (huge values clamp).
    "HloModule dynamic

ENTRY main {
  x = s32[5,4]{1,0} parameter(0)
  i = u64[] parameter(1)
  k = u64[] parameter(2)
  j = s64[] parameter(3)
  l = s64[] parameter(4)
  u = s32[2,2]{1,0} parameter(5)
  ds = s32[3,2]{1,0} dynamic-slice(x, i, k), dynamic_slice_sizes={3,2}
  dus = s32[5,4]{1,0} dynamic-update-slice(x, u, j, l)
  ROOT o = (s32[3,2]{1,0}, s32[5,4]{1,0}) tuple(ds, dus)
}
",
    // Gather with batched indices of any value.
    "HloModule gather

ENTRY main {
  x = f32[6,3]{1,0} parameter(0)
  idx = s32[4,1]{1,0} parameter(1)
  ROOT g = f32[4,3]{1,0} gather(x, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}
}
",
    // A while loop whose trip count is an argument (bounded by the
    // run options), with a tuple parameter.
    "HloModule loop

cond {
  s = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  z = s32[] constant(0)
  ROOT c = pred[] compare(i, z), direction=GT
}

body {
  s = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4]{0} get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] subtract(i, one)
  y = f32[4]{0} add(x, x)
  ROOT t = (s32[], f32[4]{0}) tuple(j, y)
}

ENTRY main {
  p = (s32[], f32[4]{0}) parameter(0)
  ROOT w = (s32[], f32[4]{0}) while(p), condition=cond, body=body
}
",
    // Dots: f32 with a transposed operand layout, and bf16.
    "HloModule dot

ENTRY main {
  a = f32[4,3]{0,1} parameter(0)
  b = f32[3,2]{1,0} parameter(1)
  c = bf16[2,5]{1,0} parameter(2)
  d = bf16[5,3]{1,0} parameter(3)
  x = f32[4,2]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  y = bf16[2,3]{1,0} dot(c, d), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT o = (f32[4,2]{1,0}, bf16[2,3]{1,0}) tuple(x, y)
}
",
];

struct Compiled {
    module: Module,
    exe: Option<rxla_jit::Executable>,
}

fn compiled() -> &'static [Compiled] {
    static C: OnceLock<Vec<Compiled>> = OnceLock::new();
    C.get_or_init(|| {
        MODULES
            .iter()
            .map(|t| {
                let module = rxla_ir::parse_module(t, "run.hlo").expect("fixed module parses");
                rxla_ir::verify_module(&module).expect("fixed module verifies");
                let exe = rxla_jit::compile(&module, &rxla_jit::CompileOptions::default()).ok();
                Compiled { module, exe }
            })
            .collect()
    })
}

fn options() -> RunOptions {
    RunOptions {
        max_while_iterations: 4096,
        max_total_iterations: 4096,
        max_memory: 64 << 20,
        deadline: Some(Instant::now() + Duration::from_secs(2)),
        ..RunOptions::default()
    }
}

/// A buffer for a leaf of `want` bytes: usually exactly that, sometimes
/// shorter, longer or empty.
fn buffer(u: &mut Unstructured, want: usize) -> Vec<u8> {
    let len = match u.int_in_range(0u8..=15).unwrap_or(0) {
        0 => 0,
        1 => want.saturating_sub(1),
        2 => want + 1,
        3 => u.int_in_range(0..=want.saturating_mul(2) + 8).unwrap_or(0),
        _ => want,
    };
    (0..len).map(|_| u.arbitrary::<u8>().unwrap_or(0)).collect()
}

/// A literal for parameter `shape`: from the bytes when they fit, else
/// (or sometimes) one of another shape.
fn literal(u: &mut Unstructured, shape: &Shape) -> Literal {
    match shape {
        Shape::Tuple(t) => {
            if u.ratio(1u8, 16).unwrap_or(false) {
                return Literal::Tuple(vec![]);
            }
            Literal::Tuple(t.iter().map(|s| literal(u, s)).collect())
        }
        Shape::Array(a) => {
            let a = if u.ratio(1u8, 12).unwrap_or(false) {
                wrong_shape(u, a)
            } else {
                a.clone()
            };
            let want = a.byte_size().unwrap_or(0).min(1 << 16);
            let bytes = buffer(u, want);
            match ArrayLiteral::from_physical_bytes(a.clone(), &bytes) {
                Ok(l) => Literal::Array(l),
                // A buffer of the wrong length: zeros of the (maybe wrong)
                // shape, so the call still sees a literal.
                Err(_) => {
                    Literal::zeros(&Shape::Array(a)).unwrap_or_else(|_| Literal::Tuple(vec![]))
                }
            }
        }
    }
}

fn wrong_shape(u: &mut Unstructured, a: &ArrayShape) -> ArrayShape {
    // Rank <= 3, dims <= 6: always a valid shape.
    let types = [
        ElementType::F32,
        ElementType::S32,
        ElementType::U64,
        ElementType::Pred,
    ];
    let et = *u.choose(&types).unwrap_or(&a.element_type);
    let rank = u.int_in_range(0usize..=3).unwrap_or(0);
    let dims: Vec<i64> = (0..rank)
        .map(|_| u.int_in_range(0i64..=6).unwrap_or(1))
        .collect();
    ArrayShape::new(et, dims).unwrap_or_else(|_| a.clone())
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let all = compiled();
    let Ok(k) = u.choose_index(all.len()) else {
        return;
    };
    let c = &all[k];
    let sig = c.module.entry_program_shape();

    // Evaluator on literals (sometimes one too few or too many).
    let mut args: Vec<Literal> = sig.parameters.iter().map(|s| literal(&mut u, s)).collect();
    match u.int_in_range(0u8..=15).unwrap_or(0) {
        0 => {
            args.pop();
        }
        1 => args.push(Literal::scalar(0i32)),
        _ => {}
    }
    let _ = rxla_eval::evaluate(&c.module, &args, &options());

    // JIT on raw buffers of arbitrary lengths.
    let Some(exe) = &c.exe else {
        return;
    };
    let mut inputs: Vec<Vec<u8>> = exe
        .parameter_shapes()
        .iter()
        .flat_map(|s| s.leaves())
        .map(|l| buffer(&mut u, l.byte_size().unwrap_or(0)))
        .collect();
    let mut outputs: Vec<Vec<u8>> = exe
        .result_shape()
        .leaves()
        .iter()
        .map(|l| vec![0u8; buffer(&mut u, l.byte_size().unwrap_or(0)).len()])
        .collect();
    match u.int_in_range(0u8..=15).unwrap_or(0) {
        0 => {
            inputs.pop();
        }
        1 => inputs.push(vec![0; 4]),
        2 => {
            outputs.pop();
        }
        3 => outputs.push(vec![0; 4]),
        _ => {}
    }
    let ins: Vec<&[u8]> = inputs.iter().map(|v| v.as_slice()).collect();
    let mut outs: Vec<&mut [u8]> = outputs.iter_mut().map(|v| v.as_mut_slice()).collect();
    let _ = exe.run_into_with(&ins, &mut outs, &options());
});
