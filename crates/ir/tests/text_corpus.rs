//! Every corpus file parses, verifies, and prints to a fixed point.

use rxla_ir::{parse_module, print_module, verify_module};
use std::path::PathBuf;

fn corpus_files() -> Vec<PathBuf> {
    rxla_testkit::files_with_ext(&rxla_testkit::corpus_dir(), "hlo")
}

#[test]
fn every_corpus_file_parses_verifies_and_round_trips() {
    let files = corpus_files();
    assert_eq!(files.len(), 48, "corpus files: {files:?}");
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let m = match parse_module(&text, &name) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{e}"));
                continue;
            }
        };
        if let Err(e) = verify_module(&m) {
            failures.push(format!("{name}: verify: {e}"));
        }
        let p1 = print_module(&m);
        let m2 = parse_module(&p1, &format!("{name} (printed)"))
            .unwrap_or_else(|e| panic!("printed form does not parse: {e}\n{p1}"));
        let p2 = print_module(&m2);
        assert_eq!(p1, p2, "{name}: print is not a fixed point");
        // Structurally equal (Debug compares NaN constants equal, too).
        assert_eq!(
            format!("{m:?}"),
            format!("{m2:?}"),
            "{name}: structure differs"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
