//! Example (c): write a pass, register it, and use it in a pipeline next
//! to the standard passes (by name, like `rxla opt --passes=...`).
//! Run: `cargo run -p rxla --example custom_pass`.

use rxla::prelude::*;

/// `negate(negate(x))` → `x`: every use of the outer negate reads `x`
/// instead (dce then removes the negates).
pub struct DoubleNegation;

impl Pass for DoubleNegation {
    fn name(&self) -> &'static str {
        "double-negation"
    }
    fn description(&self) -> &'static str {
        "negate(negate(x)) -> x"
    }
    fn run(&mut self, module: &mut Module, ctx: &mut PassContext) -> rxla::passes::Result<bool> {
        let negate = Op::Unary(UnaryOp::Negate);
        let mut changed = false;
        for comp in &mut module.computations {
            for id in 0..comp.instructions.len() {
                let outer = &comp.instructions[id];
                if outer.op != negate {
                    continue;
                }
                let inner = comp.get(outer.operands[0]);
                if inner.op != negate {
                    continue;
                }
                let (from, to) = (rxla::ir::InstrId(id as u32), inner.operands[0]);
                comp.replace_uses(from, to);
                ctx.stat("double negations removed", 1);
                changed = true;
            }
        }
        Ok(changed)
    }
}

const TEXT: &str = r#"
HloModule negnegs

ENTRY main {
  x = f32[3] parameter(0)
  n1 = f32[3] negate(x)
  n2 = f32[3] negate(n1)
  ROOT m = f32[3] multiply(n2, x)
}
"#;

pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut options = Options::default();
    options.registry.register(|| Box::new(DoubleNegation));
    assert!(options.registry.names().contains(&"double-negation"));

    let module = rxla::optimize_text(TEXT, "double-negation,dce", &options)?;
    let text = print_module(&module);
    println!("{text}");
    assert!(!text.contains("negate"), "{text}");
    assert!(text.contains("multiply(x, x)"), "{text}");

    // The same pass in front of O2's passes, compiled and run.
    let o2 = rxla::passes::pipeline::named_pipeline_text("O2").ok_or("no O2")?;
    options.pipeline = format!("double-negation,{o2}");
    let exe = rxla::compile_text(TEXT, &options)?;
    let out = exe.run(&[Literal::vec1(vec![1.0f32, -2.0, 3.0])])?;
    assert_eq!(out, Literal::vec1(vec![1.0f32, 4.0, 9.0]));
    Ok(())
}
