//! `// test: opt --passes=…|--pipeline=…`: the standard pass registry runs
//! the pipeline on a copy of the module (verifying after each pass).

use crate::directives::OptSpec;
use rxla_ir::Module;

/// Runs `spec` on a copy of `module`.
pub fn run(module: &Module, spec: &OptSpec) -> Result<Module, String> {
    let registry = rxla_passes::Registry::standard();
    let mut pm = match spec {
        OptSpec::Passes(p) => rxla_passes::PassManager::from_text(p, &registry),
        OptSpec::Pipeline(p) => rxla_passes::PassManager::named(p, &registry),
    }
    .map_err(|e| e.to_string())?;
    let mut m = module.clone();
    pm.run(&mut m).map_err(|e| e.to_string())?;
    Ok(m)
}
