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

#[test]
fn error_run_lines_need_a_failure_with_the_text() {
    let src = |run: &str| {
        format!(
            "// test: interp\n// run: {run}\nHloModule m\n\nENTRY main {{\n  p = s32[] parameter(0)\n  ROOT r = s32[] divide(p, p)\n}}\n"
        )
    };
    let err = rxla_filetests::run_source("ok.hlo", &src("(1) error: overflow")).unwrap_err();
    assert!(
        err.contains("expected an error containing \"overflow\""),
        "{err}"
    );
    let custom = "// test: interp\n// run: (1) error: unknown custom-call target 'foo'\nHloModule m\n\nENTRY main {\n  p = s32[] parameter(0)\n  ROOT r = s32[] custom-call(p), custom_call_target=\"foo\"\n}\n";
    rxla_filetests::run_source("cc.hlo", custom).unwrap();
    let wrong = custom.replace("'foo'", "'bar'");
    let err = rxla_filetests::run_source("cc.hlo", &wrong).unwrap_err();
    assert!(err.contains("does not contain"), "{err}");
}

#[test]
fn devices_give_each_replica_its_value() {
    let src = |want: &str| {
        format!(
            "// devices: 2\n// test: interp\n// run: ([{{1}}, {{2}}]) == {want}\nHloModule m, replica_count=2\n\nadd {{\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}}\n\nENTRY main {{\n  p = f32[1] parameter(0)\n  ROOT r = f32[1] all-reduce(p), replica_groups={{}}, to_apply=add\n}}\n"
        )
    };
    rxla_filetests::run_source("ar.hlo", &src("{3}")).unwrap();
    rxla_filetests::run_source("ar.hlo", &src("[{3}, {3}]")).unwrap();
    let err = rxla_filetests::run_source("ar.hlo", &src("[{3}, {4}]")).unwrap_err();
    assert!(
        err.contains("device 1") && err.contains("got {3} want {4}"),
        "{err}"
    );
    let err = rxla_filetests::run_source("ar.hlo", &src("[{3}]")).unwrap_err();
    assert!(err.contains("the grid has 2 devices"), "{err}");
}

#[test]
fn layouts_kind_runs_the_layout_verifier() {
    let module = "HloModule m\n\nENTRY main {\n  a = f32[2,3]{1,0} parameter(0)\n  b = f32[2,3]{0,1} parameter(1)\n  ROOT s = f32[2,3]{1,0} add(a, b)\n}\n";
    let err =
        rxla_filetests::run_source("l.hlo", &format!("// test: layouts\n{module}")).unwrap_err();
    assert!(
        err.contains("layouts:") && err.contains("instruction s"),
        "{err}"
    );
    // Repaired by layout-assignment: the optimized module verifies.
    rxla_filetests::run_source(
        "l.hlo",
        &format!("// test: layouts, opt --passes=layout-assignment\n{module}"),
    )
    .unwrap();
    // As an error file: the module as written fails, the opt result passes...
    rxla_filetests::run_source(
        "l.hlo",
        &format!("// test: layouts, opt --passes=layout-assignment\n// error: operand 1\n{module}"),
    )
    .unwrap();
    // ...and a pipeline that does not repair it is reported.
    let err = rxla_filetests::run_source(
        "l.hlo",
        &format!("// test: layouts, opt --passes=dce\n// error: operand 1\n{module}"),
    )
    .unwrap_err();
    assert!(err.contains("after `opt --passes=dce`"), "{err}");
}
