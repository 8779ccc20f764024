//! Speed guards: a 1M-element elementwise chain and a 4096x4096 sum must
//! not be quadratic or interpret the reducer per element. Timings are
//! printed; the bounds are generous for the unoptimised test profile.

use crate::eval_support;
use eval_support::*;
use rxla_ir::Literal;
use std::time::Instant;

#[test]
fn million_element_chain() {
    let n = 1 << 20;
    let mut text = String::from(
        "HloModule m\nENTRY e {\n x0 = f32[1048576] parameter(0)\n c = f32[] constant(0.5)\n b = f32[1048576] broadcast(c), dimensions={}\n",
    );
    for i in 1..=20 {
        let op = ["add", "multiply", "subtract", "maximum"][i % 4];
        text.push_str(&format!(" x{i} = f32[1048576] {op}(x{}, b)\n", i - 1));
    }
    text.push_str(" ROOT r = f32[1048576] negate(x20)\n}\n");
    let x = Literal::vec1(vec![1.0f32; n]);
    let t = Instant::now();
    let r = run(&text, vec![x]);
    let dt = t.elapsed();
    println!("1M-element chain of 21 ops: {dt:?}");
    let mut v = 1.0f32;
    for i in 1..=20 {
        v = match i % 4 {
            0 => v + 0.5,
            1 => v * 0.5,
            2 => v - 0.5,
            _ => v.max(0.5),
        };
    }
    assert!(f32s(&r).iter().all(|&y| y == -v));
    assert!(dt.as_secs() < 20, "too slow: {dt:?}");
}

#[test]
fn sum_of_4096_by_4096() {
    let text = "HloModule m\nadd {\n x = f32[] parameter(0)\n y = f32[] parameter(1)\n ROOT s = f32[] add(x, y)\n}\nENTRY e {\n p = f32[4096,4096] parameter(0)\n z = f32[] constant(0)\n rows = f32[4096] reduce(p, z), dimensions={1}, to_apply=add\n ROOT all = f32[] reduce(rows, z), dimensions={0}, to_apply=add\n}\n";
    let x = Literal::from_vec(&[4096, 4096], vec![0.125f32; 4096 * 4096]).unwrap();
    let t = Instant::now();
    let r = run(text, vec![x]);
    let dt = t.elapsed();
    println!("4096x4096 sum: {dt:?}");
    assert_eq!(r, Literal::scalar(2_097_152.0f32));
    assert!(dt.as_secs() < 20, "too slow: {dt:?}");
}

#[test]
fn sort_with_a_jax_comparator() {
    let n = 1 << 16;
    let text = format!(
        "HloModule m
cmp {{
  a = f32[] parameter(0)
  ne.a = pred[] compare(a, a), direction=NE
  nan = f32[] constant(nan)
  zero = f32[] constant(0)
  eq.a = pred[] compare(a, zero), direction=EQ
  s1 = f32[] select(eq.a, zero, a)
  s2 = f32[] select(ne.a, nan, s1)
  b = f32[] parameter(1)
  ne.b = pred[] compare(b, b), direction=NE
  eq.b = pred[] compare(b, zero), direction=EQ
  s3 = f32[] select(eq.b, zero, b)
  s4 = f32[] select(ne.b, nan, s3)
  ROOT lt = pred[] compare(s2, s4), direction=LT, type=TOTALORDER
}}
ENTRY e {{
  p = f32[{n}] parameter(0)
  ROOT s = f32[{n}] sort(p), dimensions={{0}}, is_stable=true, to_apply=cmp
}}
"
    );
    let vals: Vec<f32> = (0..n).map(|i| ((i * 7919) % n) as f32).collect();
    let t = Instant::now();
    let r = run(&text, vec![Literal::vec1(vals)]);
    let dt = t.elapsed();
    println!("sort of {n} with a 13-instruction comparator: {dt:?}");
    let want: Vec<f32> = (0..n).map(|i| i as f32).collect();
    assert_eq!(f32s(&r), want);
}
