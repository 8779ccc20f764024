//! Example (a): build a module with the builder (a dense layer,
//! `relu(x·w + b)`), print it as HLO text, and run it on the reference
//! evaluator and the JIT. Run: `cargo run -p rxla --example build_module`.

use rxla::prelude::*;

pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let f32s = |dims: &[i64]| Shape::array(ElementType::F32, dims.to_vec());
    let mut mb = ModuleBuilder::new("dense");
    let mut b = mb.computation("main");
    let x = b.parameter(0, f32s(&[2, 3])?, "x")?;
    let w = b.parameter(1, f32s(&[3, 2])?, "w")?;
    let bias = b.constant_r1(vec![0.5f32, -10.0])?;
    let xw = b.dot(x, w)?;
    let bias2 = b.broadcast(bias, &[2])?; // f32[2] -> f32[2,2], rows
    let sum = b.add(xw, bias2)?;
    let zero = b.constant_r0(0.0f32)?;
    let relu = b.max(sum, zero)?;
    let main = b.build(relu)?;
    let module = mb.build_entry(main)?; // verified

    let text = print_module(&module);
    println!("{text}");
    assert!(text.contains("dot("), "{text}");

    let args = [
        Literal::mat(&[&[1.0f32, 2.0, 3.0], &[4.0, 5.0, 6.0]])?,
        Literal::mat(&[&[1.0f32, 0.0], &[0.0, 1.0], &[1.0, 1.0]])?,
    ];
    // x·w = {{4, 5}, {10, 11}}; + {0.5, -10}; relu.
    let want = Literal::mat(&[&[4.5f32, 0.0], &[10.5, 1.0]])?;
    let interp = evaluate(&module, &args, &RunOptions::default())?;
    assert_eq!(interp, want);

    // The JIT compiles what it is given: optimize first (O2 fuses).
    let mut optimized = module.clone();
    rxla::optimize(&mut optimized, "O2", &Options::default())?;
    let exe = rxla::jit::compile(&optimized, &CompileOptions::default())?;
    let jit = exe.run(&args)?;
    assert_eq!(jit, want);
    println!("result: {jit}");
    Ok(())
}
