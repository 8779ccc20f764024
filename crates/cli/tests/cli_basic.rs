//! The `rxla` binary's basic contract: `check`, `opt` (print back), `graph`,
//! and exit codes (0 ok, 1 bad input, 2 usage).

use crate::support;
use std::process::Output;
use support::{corpus, rxla};

const ADD: &str = "HloModule m\n\nENTRY main {\n  a = f32[2]{0} parameter(0)\n  ROOT b = f32[2]{0} add(a, a)\n}\n";

#[test]
fn check_prints_a_summary() {
    let out = rxla(&["check", &corpus("mlp.hlo")], None);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("ok: module jit_f"), "{s}");
    assert!(s.contains("instructions"), "{s}");
    assert_eq!(s.lines().count(), 1);
}

#[test]
fn check_reads_stdin() {
    let out = rxla(&["check", "-"], Some(ADD));
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("<stdin>: ok"));
}

#[test]
fn check_reports_location_and_exits_1() {
    let bad = "HloModule m\n\nENTRY main {\n  a = f32[2]{0} parameter(0)\n  ROOT b = f32[2]{0} frobnicate(a)\n}\n";
    let out = rxla(&["check", "-"], Some(bad));
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.starts_with("<stdin>:5:"), "{e}");
    assert!(e.contains("error:"), "{e}");
    assert!(e.contains("frobnicate"), "{e}");
    assert!(e.contains('^'), "{e}");
}

#[test]
fn missing_file_is_bad_input() {
    let out = rxla(&["check", "/nonexistent/x.hlo"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(rxla(&["frobnicate"], None).status.code(), Some(2));
    assert_eq!(rxla(&["check"], None).status.code(), Some(2));
    assert_eq!(
        rxla(&["check", "--no-such-flag", "x"], None).status.code(),
        Some(2)
    );
}

#[test]
fn opt_without_passes_prints_back_a_fixed_point() {
    let once = rxla(&["opt", &corpus("mlp.opt.hlo")], None);
    assert_eq!(
        once.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&once.stderr)
    );
    let text = String::from_utf8(once.stdout).unwrap();
    assert!(text.starts_with("HloModule jit_f"), "{text}");
    let twice = rxla(&["opt", "-"], Some(&text));
    assert_eq!(String::from_utf8(twice.stdout).unwrap(), text);
}

#[test]
fn opt_writes_output_file() {
    let dir = std::env::temp_dir().join(format!("rxla-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("out.hlo");
    let out = rxla(&["opt", "-", "-o", path.to_str().unwrap()], Some(ADD));
    assert_eq!(out.status.code(), Some(0));
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(
        written.contains("ROOT b = f32[2]{0} add(a, a)"),
        "{written}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn graph_is_dot() {
    let out = rxla(&["graph", "-"], Some(ADD));
    assert_eq!(out.status.code(), Some(0));
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.starts_with("digraph \"main\" {"), "{s}");
    assert!(s.contains("add\\nf32[2]{0}"), "{s}");
    assert!(s.contains("n0 -> n1"), "{s}");
}

#[test]
fn opt_explain_prints_rule_chains() {
    let src = "HloModule m\n\nENTRY main {\n  x = f32[2,3]{1,0} parameter(0)\n  t = f32[3,2]{1,0} transpose(x), dimensions={1,0}\n  tt = f32[2,3]{1,0} transpose(t), dimensions={1,0}\n  n = f32[2,3]{1,0} negate(tt)\n  ROOT nn = f32[2,3]{1,0} negate(n)\n}\n";
    let out = rxla(
        &["opt", "-", "--passes=simplify,dce", "--explain"],
        Some(src),
    );
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("// ----- explain simplify: main -----"),
        "{err}"
    );
    assert!(err.contains("tt: transpose-transpose"), "{err}");
    assert!(err.contains("nn: neg-neg > transpose-transpose"), "{err}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("ROOT x = f32[2,3]{1,0} parameter(0)"),
        "{text}"
    );
}

fn json_outputs(out: &Output) -> serde_json::Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object on stdout")
}

#[test]
fn run_matches_the_corpus_on_both_backends() {
    let want: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(corpus("add.json")).unwrap()).unwrap();
    for backend in ["jit", "interp"] {
        let out = rxla(
            &[
                "run",
                &corpus("add.hlo"),
                "--args-json",
                &corpus("add.json"),
                "--output=json",
                "--backend",
                backend,
            ],
            None,
        );
        let got = json_outputs(&out);
        assert_eq!(got["outputs"], want["outputs"], "{backend}");
    }
    // The default backend is the JIT (after O2) and agrees with the above.
    let out = rxla(
        &[
            "run",
            &corpus("add.hlo"),
            "--args-json",
            &corpus("add.json"),
            "--output=json",
        ],
        None,
    );
    assert_eq!(json_outputs(&out)["outputs"], want["outputs"]);
}

#[test]
fn run_reports_timing_as_json() {
    let out = rxla(
        &[
            "run",
            &corpus("mlp.hlo"),
            "--random-args=1",
            "--time=3",
            "--output=json",
        ],
        None,
    );
    let v = json_outputs(&out);
    assert_eq!(v["timing"]["run_ms"]["runs"], 3);
    assert!(v["timing"]["compile_ms"].as_f64().unwrap() > 0.0);
    assert!(v.get("outputs").is_none(), "{v}");
}

#[test]
fn run_rejects_missing_and_wrong_arguments() {
    let out = rxla(&["run", &corpus("add.hlo")], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("takes 2 parameter(s)"));
    let out = rxla(
        &[
            "run",
            &corpus("add.hlo"),
            "--args-json",
            &corpus("mlp.json"),
            "--backend",
            "interp",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("expects 2 argument(s), got 7"), "{err}");
}

/// A replicated module runs on the JIT (one thread per replica) and gives
/// the evaluator's all-reduce result on every replica.
#[test]
fn run_replicated_all_reduce_on_both_backends() {
    let text = "HloModule ar, replica_count=2\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\nENTRY e {\n  p = f32[3] constant({1, -2.5, 4})\n  ROOT r = f32[3] all-reduce(p), replica_groups={{0,1}}, to_apply=add\n}\n";
    for backend in ["jit", "interp"] {
        let out = rxla(&["run", "-", "--backend", backend], Some(text));
        assert!(
            out.status.success(),
            "{backend}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            stdout.matches("f32[3]{0} {2, -5, 8}").count(),
            2,
            "{backend}: {stdout}"
        );
        assert!(stdout.contains("// replica 1"), "{backend}: {stdout}");
    }
}
