//! `rxla fuzz` and `rxla reduce` end to end: summary line and exit codes,
//! usage errors, failure files, reduction with an interestingness command
//! and with an oracle.

use std::path::PathBuf;
use std::process::{Command, Output};

fn rxla(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rxla"))
        .args(args)
        .output()
        .expect("rxla runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn tmp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rxla-fuzz-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

const MODULE: &str = "HloModule m

ENTRY main {
  p0 = f32[4]{0} parameter(0)
  p1 = f32[4]{0} parameter(1)
  a = f32[4]{0} add(p0, p1)
  n = f32[4]{0} negate(a)
  m = f32[4]{0} multiply(n, p1)
  e = f32[4]{0} exponential(m)
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(e, a)
}
";

#[test]
fn fuzz_clean_run_exits_zero_with_a_summary() {
    let out = tmp_dir("clean");
    let o = rxla(&[
        "fuzz",
        "--oracle",
        "builder,jit",
        "--iterations",
        "25",
        "--seed",
        "7",
        "--out",
        out.to_str().unwrap(),
    ]);
    let s = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{s}");
    let last = s.lines().last().unwrap();
    assert!(
        last.starts_with("summary: 25 iterations, oracles builder,jit"),
        "{last}"
    );
    assert!(last.contains("50 checked"), "{last}");
    assert!(last.contains("0 failures"), "{last}");
    assert!(s.lines().next().unwrap().contains("seeds 7..32"), "{s}");
}

#[test]
fn fuzz_reports_opcode_coverage() {
    let out = tmp_dir("coverage");
    let o = rxla(&[
        "fuzz",
        "--oracle",
        "jit",
        "--iterations",
        "300",
        "--seed",
        "0",
        "--out",
        out.to_str().unwrap(),
    ]);
    let last = stdout(&o).lines().last().unwrap().to_string();
    let n = rxla_ir_opcode_count();
    // The evaluable config leaves out 4 opcodes (rng, infeed, outfeed,
    // custom-call; the collectives run in their 1x1 form).
    assert!(
        last.contains(&format!("opcodes covered {}/{n}", n - 4)),
        "{last}"
    );
}

fn rxla_ir_opcode_count() -> usize {
    rxla_ir::Op::all_opcode_names().len()
}

#[test]
fn fuzz_unknown_oracle_is_a_usage_error() {
    let o = rxla(&["fuzz", "--oracle", "nope", "--iterations", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown oracle 'nope'"));
}

#[test]
fn fuzz_time_limit_stops_early() {
    let out = tmp_dir("time");
    let o = rxla(&[
        "fuzz",
        "--oracle",
        "builder",
        "--iterations",
        "100000000",
        "--time",
        "1",
        "--seed",
        "0",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).lines().last().unwrap().starts_with("summary: "));
}

#[test]
fn reduce_with_a_check_command_keeps_the_interesting_op() {
    let dir = tmp_dir("reduce-check");
    let input = dir.join("in.hlo");
    std::fs::write(&input, MODULE).unwrap();
    let output = dir.join("out.hlo");
    let o = rxla(&[
        "reduce",
        input.to_str().unwrap(),
        "--check",
        "grep -q multiply {}",
        "-o",
        output.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        stdout(&o),
        String::from_utf8_lossy(&o.stderr)
    );
    let reduced = std::fs::read_to_string(&output).unwrap();
    assert!(reduced.contains("multiply("), "{reduced}");
    assert!(!reduced.contains("exponential("), "{reduced}");
    assert!(!reduced.contains("negate("), "{reduced}");
    let lines = reduced.lines().filter(|l| l.contains(" = ")).count();
    assert!(lines <= 3, "{reduced}");
    // The result still parses and verifies.
    let c = rxla(&["check", output.to_str().unwrap()]);
    assert_eq!(c.status.code(), Some(0));
}

#[test]
fn reduce_default_output_name() {
    let dir = tmp_dir("reduce-default");
    let input = dir.join("case.hlo");
    std::fs::write(&input, MODULE).unwrap();
    let o = rxla(&["reduce", input.to_str().unwrap(), "--check", "grep -q add"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(dir.join("case.hlo.reduced.hlo").exists());
}

#[test]
fn reduce_rejects_a_passing_module_and_bad_flags() {
    let dir = tmp_dir("reduce-bad");
    let input = dir.join("in.hlo");
    std::fs::write(&input, MODULE).unwrap();
    let o = rxla(&["reduce", input.to_str().unwrap(), "--check", "false"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not interesting"));
    let o = rxla(&["reduce", input.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let o = rxla(&["reduce", input.to_str().unwrap(), "--oracle", "parser"]);
    assert_eq!(o.status.code(), Some(2));
}
