//! `rxla run --args-npz` / `--out-npz` with numpy-written archives
//! (`tests/fixtures/npz`, made by its `gen.py`: `np.savez` positional,
//! `np.savez_compressed` by name with a Fortran-order array), and
//! `--fill-elided-constants` for XLA dumps with elided constants.

use std::process::{Command, Output};

fn rxla(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rxla"))
        .args(args)
        .output()
        .expect("rxla runs")
}

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/npz/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rxla-npz-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn write(name: &str, text: &str) -> String {
    let p = tmp(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

const MODULE: &str = "HloModule npz\n\nENTRY main {\n  x = f32[2,2] parameter(0)\n  y = s32[2] parameter(1)\n  s = f32[2,2] add(x, x)\n  ROOT t = (f32[2,2], s32[2]) tuple(s, y)\n}\n";

const EXPECTED: &str = "({ {3, -4}, {6.5, 8} }, {10, -20})";

fn ok(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn numpy_archives_positional_and_named() {
    let m = write("m.hlo", MODULE);
    for backend in ["interp", "jit"] {
        for f in ["positional.npz", "named.npz"] {
            let s = ok(&rxla(&[
                "run",
                &m,
                "--backend",
                backend,
                "--args-npz",
                &fixture(f),
            ]));
            assert!(s.trim_end().ends_with(EXPECTED), "{f} {backend}: {s}");
        }
    }
}

#[test]
fn out_npz_reads_back_as_arguments() {
    // The tuple result (f32[2,2], s32[2]) is written as arr_0, arr_1, which
    // are the module's parameters again: (2x, y) → (4x, y).
    let m = write("m2.hlo", MODULE);
    let out = tmp("out.npz");
    ok(&rxla(&[
        "run",
        &m,
        "--args-npz",
        &fixture("positional.npz"),
        "--out-npz",
        out.to_str().unwrap(),
    ]));
    let s = ok(&rxla(&["run", &m, "--args-npz", out.to_str().unwrap()]));
    assert!(
        s.trim_end().ends_with("({ {6, -8}, {13, 16} }, {10, -20})"),
        "{s}"
    );
    // numpy reads it too, when this machine has it (the fixtures' gen.py
    // needs it anyway; skipped quietly elsewhere).
    let py = std::env::var("RXLA_NUMPY_PYTHON").unwrap_or_else(|_| "python3".into());
    let check = Command::new(&py)
        .args([
            "-c",
            "import sys, numpy as np; d = np.load(sys.argv[1]); \
             print(sorted(d.keys()), d['arr_0'].tolist(), d['arr_1'].tolist(), d['arr_1'].dtype)",
            out.to_str().unwrap(),
        ])
        .output();
    match check {
        Ok(o) if o.status.success() => assert_eq!(
            String::from_utf8_lossy(&o.stdout).trim(),
            "['arr_0', 'arr_1'] [[3.0, -4.0], [6.5, 8.0]] [10, -20] int32"
        ),
        _ => eprintln!(
            "note: no python with numpy ({py}; set RXLA_NUMPY_PYTHON); numpy check skipped"
        ),
    }
}

#[test]
fn npz_errors_name_the_array_and_parameter() {
    let m = write(
        "m3.hlo",
        "HloModule one\n\nENTRY main {\n  z = f32[2,2] parameter(0)\n  ROOT n = f32[2,2] negate(z)\n}\n",
    );
    // named.npz has `x` and `y`: neither is arr_0 nor `z`.
    let out = rxla(&["run", &m, "--args-npz", &fixture("named.npz")]);
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("no array for parameter 0 (`z`)"), "{e}");
    assert!(e.contains("`y`, `x`"), "{e}");
    // positional.npz has arr_1 too many.
    let out = rxla(&["run", &m, "--args-npz", &fixture("positional.npz")]);
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("array `arr_1` matches no parameter"), "{e}");
    // Not a zip file.
    let bad = write("bad.npz", "hello");
    let out = rxla(&["run", &m, "--args-npz", &bad]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a .npz archive"));
    // Two argument sources.
    let out = rxla(&[
        "run",
        &m,
        "--args-npz",
        &fixture("named.npz"),
        "--random-args",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

const ELIDED: &str = "HloModule elided\n\nENTRY main {\n  p = f32[4] parameter(0)\n  w = f32[4] constant({...})\n  ROOT a = f32[4] add(p, w)\n}\n";

#[test]
fn elided_constants_need_the_flag() {
    let m = write("elided.hlo", ELIDED);
    let out = rxla(&["run", &m, "--random-args"]);
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("elided.hlo:5:"), "{e}");
    assert!(e.contains("--fill-elided-constants"), "{e}");

    let run = |seed: &str| {
        let flag = format!("--fill-elided-constants={seed}");
        let out = rxla(&["run", &m, "--random-args", &flag]);
        let e = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(
            e.contains("1 elided constant filled with random values"),
            "{e}"
        );
        ok(&out)
    };
    let a = run("3");
    assert!(a.starts_with("f32[4]"), "{a}");
    assert_eq!(a, run("3"), "same seed, same values");
    assert_ne!(a, run("4"));
    // The flag without a value is seed 0; the interpreter agrees with the JIT.
    let b = ok(&rxla(&[
        "run",
        &m,
        "--random-args",
        "--fill-elided-constants",
    ]));
    let c = ok(&rxla(&[
        "--fill-elided-constants",
        "run",
        &m,
        "--random-args",
        "--backend",
        "interp",
    ]));
    assert_eq!(b, c);
    assert_eq!(b, run("0"));

    // check accepts it with a note; without the flag it refuses.
    let out = rxla(&["check", &m, "--fill-elided-constants"]);
    let s = ok(&out);
    assert!(s.contains("ok: module elided"), "{s}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("note:"));
    assert_eq!(rxla(&["check", &m]).status.code(), Some(1));

    // opt prints the filled values (seed 3: the values `run` added).
    let s = ok(&rxla(&["opt", &m, "--fill-elided-constants=3"]));
    assert!(s.contains("w = f32[4]{0} constant({"), "{s}");
    assert!(!s.contains("{...}"), "{s}");
}
