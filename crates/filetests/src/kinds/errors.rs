//! `// error:` filetests: the module must not parse and verify, and the
//! message must contain every expected text. With the `layouts` kind the
//! module must parse and verify but fail `verify_layouts`; an `opt` kind
//! then names the pipeline that repairs it (its result must pass).

use crate::directives::{FileTest, Kind};

pub fn check(t: &FileTest, name: &str, source: &str) -> Result<(), String> {
    let msg = match crate::parse_source(name, source) {
        Err(e) => e.to_string(),
        Ok(module) => match rxla_ir::verify_module(&module) {
            Err(e) => e.to_string(),
            Ok(()) if t.has(&Kind::Layouts) => {
                let msg = match rxla_ir::layout_verifier::verify_layouts(&module) {
                    Err(e) => e.to_string(),
                    Ok(()) => return Err("expected a layout error, the layouts verify".into()),
                };
                if let Some(spec) = t.opt() {
                    let fixed = super::opt::run(&module, spec)?;
                    rxla_ir::layout_verifier::verify_layouts(&fixed).map_err(|e| {
                        format!(
                            "after `opt {spec}`: {e}\n--- output ---\n{}",
                            rxla_ir::print_module(&fixed)
                        )
                    })?;
                }
                msg
            }
            Ok(()) => return Err("expected an error, the module verifies".into()),
        },
    };
    for (line, want) in &t.errors {
        if !msg.contains(want.as_str()) {
            return Err(format!(
                "line {line}: error message does not contain {want:?}: {msg}"
            ));
        }
    }
    Ok(())
}
