//! `rxla test`: filetests from the command line, and `--bless` rewriting a
//! stale CHECK block into one that passes.

use std::process::{Command, Output};

fn rxla(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rxla"))
        .args(args)
        .output()
        .expect("rxla runs")
}

fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rxla-test-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const MODULE: &str = "HloModule m\n\nENTRY main {\n  p = s32[] parameter(0)\n  dead = s32[] negate(p)\n  ROOT r = s32[] add(p, p)\n}\n";

#[test]
fn passing_and_failing_files() {
    let good = temp_file(
        "good.hlo",
        &format!("// test: interp\n// run: (2) == 4\n{MODULE}"),
    );
    let bad = temp_file(
        "bad.hlo",
        &format!("// test: interp\n// run: (2) == 5\n{MODULE}"),
    );
    let out = rxla(&["test", good.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed, 0 failed"));
    let out = rxla(&["test", good.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("FAIL") && stdout.contains("got 4 want 5"),
        "{stdout}"
    );
    let out = rxla(&["test", "/no/such/file.hlo"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
}

#[test]
fn bless_rewrites_stale_checks() {
    let f = temp_file(
        "stale.hlo",
        &format!("// test: opt --passes=dce\n// CHECK: negate\n{MODULE}"),
    );
    let path = f.to_str().unwrap();
    assert_eq!(rxla(&["test", path]).status.code(), Some(1));
    let out = rxla(&["test", "--bless", path]);
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&f).unwrap();
    assert!(
        text.contains("// CHECK-NEXT: ROOT r = s32[] add(p, p)"),
        "{text}"
    );
    assert!(!text.contains("// CHECK: negate"), "{text}");
    assert!(rxla(&["test", path]).status.success());
}
