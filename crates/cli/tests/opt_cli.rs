//! `rxla opt`: every flag, run through the built binary. Header lines,
//! dump directory listings and the timing table's column header are
//! compared exactly.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rxla_testkit::PIPELINE_SAMPLE as M;

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rxla-opt-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write_input(dir: &Path) -> PathBuf {
    let p = dir.join("m.hlo");
    std::fs::write(&p, M).unwrap();
    p
}

fn rxla(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rxla"))
        .args(args)
        .output()
        .expect("run rxla")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn headers(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with("// -----"))
        .map(str::to_string)
        .collect()
}

/// Runs `rxla opt m.hlo ARGS`, asserting success; returns (stdout, stderr).
fn opt_ok(name: &str, args: &[&str]) -> (String, String) {
    let dir = scratch(name);
    let input = write_input(&dir);
    let mut all = vec!["opt", input.to_str().unwrap()];
    all.extend_from_slice(args);
    let o = rxla(&all);
    assert!(o.status.success(), "rxla {all:?} failed:\n{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
    (stdout(&o), stderr(&o))
}

#[test]
fn no_pass_flags_prints_the_module_back() {
    let (out, err) = opt_ok("printback", &[]);
    assert!(
        out.contains("r = f32[4]{0} call(x), to_apply=relu"),
        "{out}"
    );
    assert_eq!(err, "");
    let (o0, _) = opt_ok("o0", &["--pipeline=O0"]);
    assert_eq!(o0, out);
}

#[test]
fn passes_and_pipelines_run() {
    let (out, _) = opt_ok("passes", &["--passes=inline,cse,dce"]);
    assert!(!out.contains("call(") && !out.contains("relu {"), "{out}");
    assert!(!out.contains(" y = ") && !out.contains("dead"), "{out}");
    let (o1, _) = opt_ok("o1", &["--pipeline=O1"]);
    assert_eq!(o1, out);
    let (o2, _) = opt_ok("o2", &["--pipeline", "O2"]);
    assert_eq!(o2, out);
}

#[test]
fn usage_errors_exit_2() {
    let dir = scratch("usage");
    let input = write_input(&dir);
    let f = input.to_str().unwrap();
    let o = rxla(&["opt", f, "--passes=cse", "--pipeline=O1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = rxla(&["opt", f, "--pipeline=O3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown pipeline `O3` (known: O0, O1, O2, jit-backend, jit)"),
        "{}",
        stderr(&o)
    );
    let o = rxla(&["opt", f, "--passes=inline,,dce"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: pipeline:8: error: expected a pass name, found `,`\n  inline,,dce\n         ^\n"
    );
    let o = rxla(&["opt", f, "--passes=inline,csee"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("unknown pass `csee` (known passes: "), "{err}");
    for name in ["constant-folding", "cse", "dce", "inline", "tuple-simplify"] {
        assert!(err.contains(name), "{err}");
    }
    let o = rxla(&["opt", f, "--passes=cse", "--print-ir-after=nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--print-ir-after: unknown pass `nope`"));
    let o = rxla(&["opt", f, "--passes=constant-folding{max-elements=x}"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "pass `constant-folding`: option `max-elements`: expected a positive integer, got `x`"
        ),
        "{}",
        stderr(&o)
    );
    let o = rxla(&["opt", f, "--dump-graphs"]);
    assert_eq!(o.status.code(), Some(2), "--dump-graphs needs --dump-dir");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn print_ir_before_and_after_selected_passes() {
    let (_, err) = opt_ok(
        "print-sel",
        &[
            "--passes=inline,cse,dce",
            "--print-ir-before=cse",
            "--print-ir-after=dce,inline",
        ],
    );
    assert_eq!(
        headers(&err),
        [
            "// ----- IR after inline (changed) -----",
            "// ----- IR before cse -----",
            "// ----- IR after dce (changed) -----",
        ]
    );
    assert!(err.contains("HloModule m"), "{err}");
}

#[test]
fn print_ir_all_and_after_change() {
    let (_, err) = opt_ok(
        "print-all",
        &[
            "--passes=cse,cse",
            "--print-ir-before-all",
            "--print-ir-after-all",
        ],
    );
    assert_eq!(
        headers(&err),
        [
            "// ----- IR before cse -----",
            "// ----- IR after cse (changed) -----",
            "// ----- IR before cse -----",
            "// ----- IR after cse (unchanged) -----",
        ]
    );
    let (_, err) = opt_ok(
        "print-change",
        &["--passes=cse,cse,dce", "--print-ir-after-change"],
    );
    assert_eq!(
        headers(&err),
        [
            "// ----- IR after cse (changed) -----",
            "// ----- IR after dce (changed) -----",
        ]
    );
}

#[test]
fn print_ir_diff_with_entry_scope() {
    let (_, err) = opt_ok(
        "diff",
        &[
            "--passes=cse,inline",
            "--print-ir-diff",
            "--print-ir-scope=entry",
        ],
    );
    assert_eq!(
        headers(&err),
        [
            "// ----- IR after cse (changed) -----",
            "// ----- IR after inline (changed) -----",
        ]
    );
    assert!(err.contains("--- before cse\n+++ after cse\n@@ "), "{err}");
    assert!(err.contains("-  y = f32[4]{0} add(b, a)\n"), "{err}");
    assert!(
        err.contains("+  r = f32[4]{0} maximum(x, zeros.1)\n"),
        "{err}"
    );
    assert!(
        !err.contains("relu {"),
        "scope=entry hides other computations:\n{err}"
    );
    // Whole-module scope shows the callee.
    let (_, err) = opt_ok("scope-module", &["--passes=dce", "--print-ir-after-all"]);
    assert!(err.contains("relu {"), "{err}");
}

#[test]
fn dump_dir_and_graphs() {
    let dir = scratch("dump");
    let input = write_input(&dir);
    let dump = dir.join("dump");
    let o = rxla(&[
        "opt",
        input.to_str().unwrap(),
        "--pipeline=O1",
        "--dump-dir",
        dump.to_str().unwrap(),
        "--dump-graphs",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut files: Vec<String> = std::fs::read_dir(&dump)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".hlo") || n.ends_with(".txt"))
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "0000.input.hlo",
            "0001.after_inline.hlo",
            "0002.after_tuple-simplify.hlo",
            "0003.after_dce.hlo",
            "0004.after_cse.hlo",
            "0005.after_constant-folding.hlo",
            "0006.after_dce.hlo",
            "index.txt",
        ]
    );
    let dots = std::fs::read_dir(&dump)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".dot")
        })
        .count();
    assert_eq!(dots, 7);
    let index = std::fs::read_to_string(dump.join("index.txt")).unwrap();
    let first_cols: Vec<String> = index
        .lines()
        .map(|l| l.split(' ').take(3).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        first_cols,
        [
            "0000 input -",
            "0001 inline changed",
            "0002 tuple-simplify unchanged",
            "0003 dce changed",
            "0004 cse changed",
            "0005 constant-folding unchanged",
            "0006 dce unchanged",
        ]
    );
    assert!(index.starts_with("0000 input - 11\n"), "{index}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn timing_table_and_disabled_passes() {
    let (_, err) = opt_ok(
        "timing",
        &[
            "--passes=inline,cse,dce",
            "--timing",
            "--disable-passes=cse",
        ],
    );
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines[0], "// ----- timing -----");
    assert_eq!(
        lines[1],
        "  #  pass                      wall time   instructions (before -> after)  changed"
    );
    assert!(
        lines[2].contains("inline") && lines[2].contains("11 -> 13") && lines[2].ends_with("yes")
    );
    assert!(
        lines[3].contains("cse") && lines[3].ends_with("disabled"),
        "{err}"
    );
    assert!(
        lines[4].contains("dce") && lines[4].ends_with("yes"),
        "{err}"
    );
    assert!(
        lines[5].trim_start().starts_with("total") && lines[5].contains("2 pass runs"),
        "{err}"
    );
}

#[test]
fn stats_report_counters_and_fuel() {
    let (_, err) = opt_ok("stats", &["--passes=inline,cse,dce", "--stats"]);
    assert!(err.starts_with("// ----- statistics -----\n"), "{err}");
    assert!(
        err.contains("cse: 1 run; honours fuel: 0 units used\n         1  instructions merged\n"),
        "{err}"
    );
    assert!(err.contains("dce: 1 run; honours fuel"), "{err}");
    assert!(err.contains("computations removed"), "{err}");
}

#[test]
fn fuel_bisects_rewrites() {
    let (out0, err) = opt_ok("fuel0", &["--passes=cse,inline,dce", "--fuel=0"]);
    assert_eq!(
        err,
        "fuel: 0 of 0 used; nothing applied; first skipped: cse: replace y by x in main\n"
    );
    let (unchanged, _) = opt_ok("fuel-none", &[]);
    assert_eq!(out0, unchanged);
    let (_, err) = opt_ok(
        "fuel1",
        &["--passes=cse,inline,dce", "--fuel=1", "--timing"],
    );
    assert!(err.contains("fuel: 1 of 1 used; last applied: cse: replace y by x in main; first skipped: inline: r in main"), "{err}");
    let dce_row = err.lines().find(|l| l.contains(" dce ")).unwrap();
    assert!(dce_row.ends_with("skipped (out of fuel)"), "{err}");
}

#[test]
fn broken_pass_writes_a_reproducer() {
    let dir = scratch("repro");
    let input = write_input(&dir);
    let out = dir.join("out.hlo");
    let o = rxla(&[
        "opt",
        input.to_str().unwrap(),
        "--enable-test-passes",
        "--passes=inline,test-break-names,dce",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    let repro = dir.join("out.reproducer.test-break-names.hlo");
    assert!(
        err.starts_with("error: pass `test-break-names` broke an invariant: "),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "note: the IR before `test-break-names` was written to {}",
            repro.display()
        )),
        "{err}"
    );
    assert!(err.contains("note: reproduce with: rxla opt"), "{err}");
    assert!(!out.exists(), "no output on failure");
    let text = std::fs::read_to_string(&repro).unwrap();
    assert!(
        !text.contains("call("),
        "the reproducer is the IR after inline:\n{text}"
    );
    // The reproducer reproduces the failure with just that pass...
    let o = rxla(&[
        "opt",
        repro.to_str().unwrap(),
        "--enable-test-passes",
        "--passes=test-break-names",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("broke an invariant"));
    // ... and --no-verify lets the broken module through.
    let o = rxla(&[
        "opt",
        input.to_str().unwrap(),
        "--enable-test-passes",
        "--passes=test-break-names",
        "--no-verify",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Without -o, the reproducer goes next to the input.
    let o = rxla(&[
        "opt",
        input.to_str().unwrap(),
        "--enable-test-passes",
        "--passes=test-break-names",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(dir.join("m.reproducer.test-break-names.hlo").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn output_file_and_stdin() {
    let dir = scratch("output");
    let input = write_input(&dir);
    let out = dir.join("o.hlo");
    let o = rxla(&[
        "opt",
        input.to_str().unwrap(),
        "--passes=inline,dce",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert_eq!(stdout(&o), "");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("HloModule m") && !text.contains("call("));
    let mut child = Command::new(env!("CARGO_BIN_EXE_rxla"))
        .args(["opt", "-", "--passes=inline,dce"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(M.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(stdout(&o), text);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn help_and_pass_list_document_everything() {
    let o = rxla(&["opt", "--help"]);
    assert!(o.status.success());
    let help = stdout(&o);
    for flag in [
        "--passes",
        "--pipeline",
        "--print-ir-before ",
        "--print-ir-after ",
        "--print-ir-before-all",
        "--print-ir-after-all",
        "--print-ir-after-change",
        "--print-ir-diff",
        "--print-ir-scope",
        "--dump-dir",
        "--dump-graphs",
        "--timing",
        "--stats",
        "--disable-passes",
        "--fuel",
        "--no-verify",
        "--list-passes",
        "fixpoint",
        "O1",
        "reproducer",
        "// ----- IR after <pass> (changed) -----",
    ] {
        assert!(help.contains(flag), "--help lacks {flag}:\n{help}");
    }
    assert!(!help.contains("enable-test-passes"));
    let o = rxla(&["opt", "--list-passes"]);
    let list = stdout(&o);
    for p in [
        "constant-folding",
        "cse",
        "dce",
        "inline",
        "tuple-simplify",
        "max-elements",
        "honours fuel",
        "O2",
    ] {
        assert!(list.contains(p), "{list}");
    }
    assert!(!list.contains("test-break-names"));
}

/// `rxla run` runs O2 and then the JIT's backend pipeline in one pass
/// manager: `--print-ir-after-all` shows every stage, the backend's
/// fusions last, and the module it prints is what `rxla opt --pipeline=jit`
/// prints (what the JIT compiles).
#[test]
fn run_shows_the_backend_pipeline_and_opt_jit_prints_the_same_module() {
    let dir = scratch("run-backend");
    let input = write_input(&dir);
    let f = input.to_str().unwrap();
    let o = rxla(&["run", f, "--random-args", "--print-ir-after-all"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let heads = headers(&err);
    assert_eq!(
        heads.first().unwrap(),
        "// ----- IR after inline (changed) -----"
    );
    assert_eq!(
        heads.last().unwrap(),
        "// ----- IR after multi-output-fusion (unchanged) -----"
    );
    let compiled = err
        .rsplit("// ----- IR after fusion (changed) -----\n")
        .next()
        .unwrap()
        .split("// ----- IR after multi-output-fusion")
        .next()
        .unwrap();
    assert!(compiled.contains("kind=kLoop"), "{compiled}");
    let (opt_out, _) = opt_ok("opt-jit", &["--pipeline=jit"]);
    assert_eq!(compiled.trim(), opt_out.trim());
    // The interpreter gets no backend pipeline.
    let o = rxla(&[
        "run",
        f,
        "--random-args",
        "--backend=interp",
        "--pipeline=O1",
        "--print-ir-after-all",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("IR after fusion"), "{}", stderr(&o));
    // The same values either way.
    let jit = rxla(&["run", f, "--random-args"]);
    let interp = rxla(&["run", f, "--random-args", "--backend=interp"]);
    assert_eq!(stdout(&jit), stdout(&interp));
    // An unknown pass in --print-ir-after is a usage error naming it.
    let o = rxla(&["run", f, "--random-args", "--print-ir-after=nope"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("--print-ir-after: unknown pass `nope`"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
