//! Extra real XLA dumps (JAX 0.10.2, pre- and post-optimisation) covering
//! ops the corpus does not (gather/scatter, conditional, rng, variadic
//! reduce and sort, dilated/grouped convolution, select-and-scatter,
//! integer and transcendental elementwise ops, ...): each must parse and
//! print to a fixed point. Ops the IR does not model must fail with a
//! clear "unknown opcode" error, never anything worse.

use rxla_ir::{parse_module, print_module, verify_module};
use std::path::PathBuf;

#[test]
fn xla_dumps_parse_and_round_trip() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/text_fixtures");
    let files = rxla_testkit::files_with_ext(&dir, "hlo");
    assert!(files.len() >= 60);
    let mut failures = Vec::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(f).unwrap();
        match parse_module(&text, &name) {
            Ok(m) => {
                if let Err(e) = verify_module(&m) {
                    failures.push(format!("{name}: {e}"));
                }
                let p1 = print_module(&m);
                let m2 = parse_module(&p1, &name).unwrap_or_else(|e| panic!("reparse {e}"));
                assert_eq!(print_module(&m2), p1, "{name}: not a fixed point");
                assert_eq!(format!("{m:?}"), format!("{m2:?}"), "{name}");
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
