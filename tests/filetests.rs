//! Runs every `.hlo` and `.mlir` filetest under `tests/filetests/` with the
//! `rxla-filetests` runner (directives: see that crate) and reports all
//! failures at once. `rxla test tests/filetests` does the same from the CLI.

use std::path::Path;

#[test]
fn filetests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests");
    let files = rxla_filetests::collect_files(&root);
    assert!(
        files.len() >= 20,
        "expected the filetests, found {}",
        files.len()
    );
    let summary = rxla_filetests::run_paths(&files, false);
    for f in &summary.passed {
        println!("ok   {}", f.strip_prefix(&root).unwrap_or(f).display());
    }
    let failures: Vec<&str> = summary.failed.iter().map(|(_, e)| e.as_str()).collect();
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
    let err = rxla_filetests::run_source("wrong.hlo", src).unwrap_err();
    assert!(err.contains("got 2 want 3"), "{err}");
}

#[test]
fn runner_rejects_a_file_without_tests() {
    let src = "HloModule m\n\nENTRY main {\n  ROOT p = s32[] parameter(0)\n}\n";
    let err = rxla_filetests::run_source("none.hlo", src).unwrap_err();
    assert!(err.contains("declares no test"), "{err}");
}

#[test]
fn tolerance_directive_widens_approximate_runs() {
    let src = |tol: &str| {
        format!(
            "// test: interp\n{tol}// run: (1) ~= 2.001\nHloModule m\n\nENTRY main {{\n  p = f32[] parameter(0)\n  ROOT r = f32[] add(p, p)\n}}\n"
        )
    };
    assert!(rxla_filetests::run_source("t.hlo", &src("")).is_err());
    rxla_filetests::run_source("t.hlo", &src("// tolerance: rtol=1e-3 atol=0\n")).unwrap();
}
