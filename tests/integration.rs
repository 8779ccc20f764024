//! The cross-crate tests of rxla (`rxla-tests`) as one test binary: each test
//! file in this directory is a module here. A binary per file linked the whole
//! crate graph, the JIT included, once per file; the workspace's other crates
//! do the same with their `tests/integration.rs`. `integration_roots` below
//! checks that no test file of any crate is left out of its root.

mod collectives;
mod corpus_eval;
mod dynamic;
mod filetests;
mod fusion_work;
mod fuzz_seeded;
mod lapack;
mod stablehlo_corpus;
mod text_roundtrip;

use std::path::Path;

/// Every `*.rs` file directly in a crate's integration-test directory is a
/// `mod` of that directory's `integration.rs` (cargo's `autotests` is off in
/// those crates, so a file left out would silently never compile or run).
#[test]
fn integration_roots() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let repo = here.parent().expect("tests/ is inside the repository");
    let mut dirs = vec![here.to_path_buf(), repo.join("passes/tests")];
    for entry in std::fs::read_dir(repo.join("crates")).expect("crates/ is readable") {
        let dir = entry.expect("crates/ entry").path().join("tests");
        if dir.join("integration.rs").is_file() {
            dirs.push(dir);
        }
    }
    assert!(
        dirs.len() >= 10,
        "found only {} integration roots",
        dirs.len()
    );
    let mut missing = Vec::new();
    for dir in dirs {
        let root = std::fs::read_to_string(dir.join("integration.rs")).expect("integration.rs");
        for entry in std::fs::read_dir(&dir).expect("test directory is readable") {
            let path = entry.expect("test directory entry").path();
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            let skip = stem == "integration" || stem == "lib";
            if path.extension().is_some_and(|e| e == "rs")
                && !skip
                && !root.contains(&format!("\nmod {stem};\n"))
            {
                missing.push(path.display().to_string());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "test files that no integration.rs declares: {missing:?}"
    );
}
