//! `// test: roundtrip`: print → parse → print is a fixed point.

use rxla_ir::Module;

pub fn check(name: &str, module: &Module) -> Result<(), String> {
    let once = rxla_ir::print_module(module);
    let again = rxla_ir::parse_module(&once, name)
        .map_err(|e| format!("printed text does not parse: {e}"))?;
    let twice = rxla_ir::print_module(&again);
    if once != twice {
        return Err("print → parse → print is not a fixed point".into());
    }
    Ok(())
}
