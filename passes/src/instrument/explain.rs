//! `--explain`: before every `simplify` run, prints for each computation
//! the chain of rewrite rules (egg explanations) that justifies each
//! instruction the pass will change. Read-only; it never edits the module.

use super::{Instrumentation, Sink};
use crate::error::Result;
use rxla_ir::Module;

/// Prints simplify's explanations to a sink.
pub struct Explain {
    sink: Sink,
}

impl Explain {
    pub fn new(sink: Sink) -> Explain {
        Explain { sink }
    }
}

impl Instrumentation for Explain {
    fn before_pass(&mut self, pass: &str, module: &Module) -> Result<()> {
        if pass != "simplify" {
            return Ok(());
        }
        for cid in module.comp_ids() {
            let text = crate::simplify::explain(module, cid);
            if text.trim().is_empty() {
                continue;
            }
            self.sink.write(&format!(
                "// ----- explain simplify: {} -----\n{}",
                module.comp(cid).name,
                text
            ))?;
            if !text.ends_with('\n') {
                self.sink.write("\n")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PassManager, Registry};

    #[test]
    fn explains_a_double_negation() {
        let m = rxla_ir::parse_module(
            "HloModule m\n\nENTRY main {\n  x = f32[4]{0} parameter(0)\n  n = f32[4]{0} negate(x)\n  ROOT nn = f32[4]{0} negate(n)\n}\n",
            "m.hlo",
        )
        .unwrap();
        let (sink, out) = Sink::buffer();
        let mut pm = PassManager::from_text("simplify", &Registry::standard()).unwrap();
        pm.add_instrumentation(Box::new(Explain::new(sink)));
        let mut m2 = m.clone();
        pm.run(&mut m2).unwrap();
        let text = out.borrow().clone();
        assert!(
            text.contains("// ----- explain simplify: main -----"),
            "{text}"
        );
        assert!(text.contains("nn"), "{text}");
    }
}
