//! `cargo xtask`: project automation. `ci` runs what CI runs plus the lint
//! gates (fmt, clippy); `fuzz <target> [--time SECS]` wraps
//! `cargo +nightly fuzz run` (installing cargo-fuzz first when
//! `cargo +nightly fuzz --version` fails); `bench [--report-only] [criterion args...]`
//! runs the criterion benches (jit, gemm) and writes their figures into
//! docs/PERFORMANCE.md (`bench_report`); `bench-models [NAME...]` times
//! the real-model set (benches/realmodel) on rxla and XLA:CPU side by side
//! (`compare.py`, a python with jax 0.10.2 from `RXLA_XLA_PYTHON`) and
//! writes its table there. It shells out to cargo and python and edits no
//! file but those generated sections.

mod bench_report;

use std::path::PathBuf;
use std::process::{Command, ExitCode};

/// The workspace root (xtask lives one level below it).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// Regenerates the figures section of docs/PERFORMANCE.md from the
/// criterion results on disk.
fn write_report() -> bool {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let rows = bench_report::collect(&target.join("criterion"));
    if rows.is_empty() {
        eprintln!(
            "no criterion results under {}",
            target.join("criterion").display()
        );
        return false;
    }
    let doc_path = root().join("docs/PERFORMANCE.md");
    let doc = std::fs::read_to_string(&doc_path).unwrap_or_else(|_| "# rxla performance\n".into());
    let out = bench_report::splice(&doc, &bench_report::render(&rows));
    match std::fs::write(&doc_path, out) {
        Ok(()) => {
            eprintln!("wrote {} rows to {}", rows.len(), doc_path.display());
            true
        }
        Err(e) => {
            eprintln!("cannot write {}: {e}", doc_path.display());
            false
        }
    }
}

fn cargo(args: &[&str]) -> bool {
    eprintln!("+ cargo {}", args.join(" "));
    Command::new("cargo")
        .args(args)
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// Whether `cargo +nightly fuzz` works (output hidden).
fn cargo_fuzz_works() -> bool {
    Command::new("cargo")
        .args(["+nightly", "fuzz", "--version"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// Makes `cargo +nightly fuzz` available on a fresh machine: a nightly
/// toolchain must exist (it cannot be installed from here: rustup
/// downloads it), cargo-fuzz is installed with `cargo install` when
/// missing.
fn ensure_cargo_fuzz() -> bool {
    if cargo_fuzz_works() {
        return true;
    }
    let nightly = Command::new("cargo")
        .args(["+nightly", "--version"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !nightly {
        eprintln!(
            "cargo-fuzz needs a nightly toolchain and `cargo +nightly` does not run: install one with `rustup toolchain install nightly`"
        );
        return false;
    }
    eprintln!("cargo-fuzz is not installed; installing it (once)");
    if !cargo(&["install", "cargo-fuzz"]) {
        eprintln!("`cargo install cargo-fuzz` failed");
        return false;
    }
    if !cargo_fuzz_works() {
        eprintln!(
            "cargo-fuzz was installed but `cargo +nightly fuzz --version` still fails (is ~/.cargo/bin on PATH?)"
        );
        return false;
    }
    true
}

fn usage() -> ExitCode {
    eprintln!(
        "usage: cargo xtask <ci | fuzz <target> [--time SECS] | bench [--report-only] [criterion args...] | bench-models [NAME...]>"
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first() else {
        return usage();
    };
    let ok = match cmd.as_str() {
        "ci" => {
            cargo(&["fmt", "--all", "--", "--check"])
                && cargo(&[
                    "clippy",
                    "--workspace",
                    "--all-targets",
                    "--",
                    "-D",
                    "warnings",
                ])
                && cargo(&["test", "--workspace"])
        }
        "fuzz" => {
            let Some(target) = args.get(1) else {
                return usage();
            };
            let mut time = "60".to_string();
            let mut it = args[2..].iter();
            while let Some(a) = it.next() {
                match a.as_str() {
                    "--time" => time = it.next().cloned().unwrap_or(time),
                    _ => return usage(),
                }
            }
            if time.parse::<u64>().is_err() {
                eprintln!("--time needs whole seconds, got `{time}`");
                return usage();
            }
            if !ensure_cargo_fuzz() {
                return ExitCode::FAILURE;
            }
            // The parser target starts from the corpus modules on a fresh
            // checkout (fuzz/corpus is git-ignored).
            if target == "parser" && !root().join("fuzz/corpus/parser").exists() {
                eprintln!("+ sh fuzz/seed_corpus.sh");
                let _ = Command::new("sh")
                    .arg(root().join("fuzz/seed_corpus.sh"))
                    .status();
            }
            let max_time = format!("-max_total_time={time}");
            eprintln!("+ (cd fuzz && cargo +nightly fuzz run {target} -- {max_time})");
            Command::new("cargo")
                .current_dir(root().join("fuzz"))
                .args(["+nightly", "fuzz", "run", target, "--", &max_time])
                .status()
                .map(|s| s.success())
                .unwrap_or(false)
        }
        "bench-models" => {
            // The real-model set side by side with XLA:CPU (benches/realmodel/compare.py);
            // RXLA_XLA_PYTHON names a python with jax==0.10.2 (default python3).
            let py = std::env::var("RXLA_XLA_PYTHON").unwrap_or_else(|_| "python3".into());
            let root = root();
            cargo(&["build", "--release", "-p", "rxla-cli"])
                && Command::new(&py)
                    .arg(root.join("benches/realmodel/compare.py"))
                    .args(["--xla-python", &py, "--write"])
                    .arg(root.join("docs/PERFORMANCE.md"))
                    .args(&args[1..])
                    .status()
                    .map(|s| s.success())
                    .unwrap_or(false)
        }
        "bench" => {
            let report_only = args.iter().any(|a| a == "--report-only");
            let rest: Vec<&str> = args[1..]
                .iter()
                .map(String::as_str)
                .filter(|a| *a != "--report-only")
                .collect();
            let mut a = vec![
                "bench",
                "-p",
                "rxla-benches",
                "--bench",
                "jit",
                "--bench",
                "gemm",
            ];
            if !rest.is_empty() {
                a.push("--");
                a.extend(rest);
            }
            (report_only || cargo(&a)) && write_report()
        }
        _ => return usage(),
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
