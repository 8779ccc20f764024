//! Shared helpers for rxla's cross-crate tests: the FileCheck matcher and
//! the `.hlo` filetest runner.

pub mod filecheck;
pub mod filetest;

use rxla_ir::Module;

/// Runs an `opt` filetest's pipeline on a copy of `module` with the
/// standard pass registry (verify after each pass).
pub fn run_opt(module: &Module, spec: &filetest::OptSpec) -> Result<Module, String> {
    let registry = rxla_passes::Registry::standard();
    let mut pm = match spec {
        filetest::OptSpec::Passes(p) => rxla_passes::PassManager::from_text(p, &registry),
        filetest::OptSpec::Pipeline(p) => rxla_passes::PassManager::named(p, &registry),
    }
    .map_err(|e| e.to_string())?;
    let mut m = module.clone();
    pm.run(&mut m).map_err(|e| e.to_string())?;
    Ok(m)
}
