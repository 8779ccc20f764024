use rxla_ir::{Literal, parse_module};
use rxla_jit::{CompileOptions, compile};
fn ordered(x: f32) -> i64 {
    let b = x.to_bits() as i32 as i64;
    if b < 0 { i32::MIN as i64 - b } else { b }
}
fn main() {
    const N: usize = 1 << 24;
    let text = format!(
        "HloModule m\nENTRY e {{\n  x = f32[{N}] parameter(0)\n  ROOT t = f32[{N}] tanh(x)\n}}\n"
    );
    let m = parse_module(&text, "t").unwrap();
    let exe = compile(
        &m,
        &CompileOptions {
            threads: Some(1),
            ..Default::default()
        },
    )
    .unwrap();
    let (mut worst, mut at) = (0u64, 0f32);
    for chunk in 0..256u64 {
        let xs: Vec<f32> = (0..N as u64)
            .map(|i| f32::from_bits((chunk * N as u64 + i) as u32))
            .collect();
        let out = exe
            .run(&[Literal::from_vec(&[N as i64], xs.clone()).unwrap()])
            .unwrap();
        let got: Vec<f32> = match &out.leaves()[0].data {
            rxla_ir::ArrayData::F32(v) => v.clone(),
            _ => panic!(),
        };
        for (x, g) in xs.iter().zip(&got) {
            let w = x.tanh();
            if w.is_nan() {
                assert!(g.is_nan(), "{x}");
                continue;
            }
            let d = (ordered(w) - ordered(*g)).unsigned_abs();
            if d > worst {
                worst = d;
                at = *x;
            }
        }
    }
    println!("tanh every f32: max {worst} ulp at {at:e}");
}
