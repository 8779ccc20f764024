//! `rxla graph --format dot|svg|html` and `rxla opt --report`, through the
//! built binary: formats, the default, the report file, a failing
//! pipeline's report, and errors (exit 1 bad path, 2 bad flag).

use crate::support;
use std::path::PathBuf;
use std::process::Output;

fn rxla(args: &[&str], stdin: &str) -> Output {
    support::rxla(args, Some(stdin))
}

const M: &str = "HloModule m\n\nrelu {\n  x = f32[4] parameter(0)\n  zero = f32[] constant(0)\n  zeros = f32[4] broadcast(zero), dimensions={}\n  ROOT max = f32[4] maximum(x, zeros)\n}\n\nENTRY main {\n  a = f32[4] parameter(0)\n  b = f32[4] parameter(1)\n  x = f32[4] add(a, b)\n  r = f32[4] call(x), to_apply=relu\n  ROOT out = f32[4] multiply(r, b)\n}\n";

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rxla-picture-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn graph_formats() {
    let dot = rxla(&["graph", "-"], M);
    assert_eq!(dot.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&dot.stdout).starts_with("digraph \"main\" {"));

    let svg = rxla(&["graph", "-", "--format", "svg"], M);
    assert_eq!(svg.status.code(), Some(0));
    let s = String::from_utf8(svg.stdout).unwrap();
    assert!(
        s.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{s}"
    );
    assert!(s.ends_with("</svg>\n"));
    // The call is a cluster around relu's instructions.
    assert!(s.contains("r · call → relu · f32[4]{0}"), "{s}");
    for name in ["a", "b", "x", "out", "zero", "zeros", "max"] {
        assert!(s.contains(&format!(">{name}</text>")), "{name}");
    }

    let flat = rxla(&["graph", "-", "--format=svg", "--no-clusters"], M);
    let f = String::from_utf8(flat.stdout).unwrap();
    assert!(!f.contains("class=\"c") && f.contains(">r</text>"), "{f}");

    let html = rxla(
        &["graph", "-", "--format", "html", "--computation", "relu"],
        M,
    );
    assert_eq!(html.status.code(), Some(0));
    let h = String::from_utf8(html.stdout).unwrap();
    assert!(
        h.starts_with("<!DOCTYPE html>") && h.contains("<title>m · relu</title>"),
        "{h}"
    );

    let bad = rxla(&["graph", "-", "--format", "png"], M);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn opt_report_writes_one_page() {
    let d = scratch("report");
    let out = d.join("r.html");
    let o = rxla(
        &[
            "opt",
            "-",
            "--passes=inline,simplify,dce,fusion,buffer-assignment",
            "--report",
            out.to_str().unwrap(),
        ],
        M,
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // The module still goes to stdout.
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("HloModule m"));
    let page = std::fs::read_to_string(&out).unwrap();
    for needle in [
        "<!DOCTYPE html>",
        "rxla opt report: m",
        "inline,simplify,dce,fusion,buffer-assignment",
        "fusion decisions",
        "buffer decisions",
        "IR diff",
        "<svg",
    ] {
        assert!(page.contains(needle), "missing {needle}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn opt_report_of_a_failing_pipeline_and_bad_paths() {
    let d = scratch("fail");
    let out = d.join("f.html");
    let o = rxla(
        &[
            "opt",
            "-",
            "--enable-test-passes",
            "--passes=dce,test-fail",
            "--report",
            out.to_str().unwrap(),
        ],
        M,
    );
    assert_eq!(o.status.code(), Some(1));
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.contains("pipeline failed"), "{page}");

    let nowhere = d.join("missing-dir/r.html");
    let o = rxla(
        &[
            "opt",
            "-",
            "--passes=dce",
            "--report",
            nowhere.to_str().unwrap(),
        ],
        M,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("cannot write the report"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    // No pipeline: a page for the input alone.
    let only = d.join("input.html");
    let o = rxla(&["opt", "-", "--report", only.to_str().unwrap()], M);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        std::fs::read_to_string(&only)
            .unwrap()
            .contains("input: ENTRY graph")
    );
    let _ = std::fs::remove_dir_all(&d);
}
