//! Example (d): compile once, then call `run_into` many times on buffers
//! the caller owns (physical bytes in the parameters' layouts; nothing is
//! allocated per call). Run: `cargo run -p rxla --example run_into`.

use rxla::prelude::*;

const TEXT: &str = r#"
HloModule scale_sum

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

ENTRY main {
  x = f32[8] parameter(0)
  k = f32[] parameter(1)
  kb = f32[8] broadcast(k), dimensions={}
  y = f32[8] multiply(x, kb)
  zero = f32[] constant(0)
  ROOT s = f32[] reduce(y, zero), dimensions={0}, to_apply=add
}
"#;

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let exe = rxla::compile_text(TEXT, &Options::default())?;
    // One input buffer per parameter leaf, one output buffer per result leaf.
    assert_eq!(exe.parameter_shapes().len(), 2);
    assert_eq!(exe.result_shape().to_string(), "f32[]");

    let x: Vec<f32> = (1..=8).map(|i| i as f32).collect(); // sum 36
    let xs = f32_bytes(&x);
    let mut out = [0u8; 4];
    for step in 0..1000 {
        let k = step as f32 * 0.5;
        let ks = k.to_le_bytes();
        exe.run_into(&[&xs, &ks], &mut [&mut out])?;
        assert_eq!(f32::from_le_bytes(out), 36.0 * k, "step {step}");
    }
    println!("1000 calls, last result {}", f32::from_le_bytes(out));
    Ok(())
}
