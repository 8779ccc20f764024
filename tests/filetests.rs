//! Runs every `.hlo` (and StableHLO `.mlir`) filetest under `tests/filetests/` (see
//! `filetest.rs` for the directives) and reports all failures at once.

use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "hlo" || x == "mlir") {
            out.push(p);
        }
    }
}

#[test]
fn filetests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    assert!(
        files.len() >= 20,
        "expected the filetests, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for f in &files {
        let name = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        let src = std::fs::read_to_string(f).expect("readable filetest");
        match rxla_tests::filetest::run_filetest(&name, &src) {
            Ok(()) => println!("ok   {name}"),
            Err(e) => {
                println!("FAIL {name}");
                failures.push(e);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} filetests failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}

#[test]
fn runner_rejects_wrong_results() {
    let src = "// test: interp\n// run: (1) == 3\nHloModule m\n\nENTRY main {\n  p = s32[] parameter(0)\n  ROOT r = s32[] add(p, p)\n}\n";
    let err = rxla_tests::filetest::run_filetest("wrong.hlo", src).unwrap_err();
    assert!(err.contains("got 2 want 3"), "{err}");
}
