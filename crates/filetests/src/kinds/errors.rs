//! `// error:` filetests: the module must not parse and verify, and the
//! message must contain every expected text.

use crate::directives::FileTest;

pub fn check(t: &FileTest, name: &str, source: &str) -> Result<(), String> {
    let msg = match crate::parse_source(name, source) {
        Err(e) => e.to_string(),
        Ok(module) => match rxla_ir::verify_module(&module) {
            Err(e) => e.to_string(),
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
