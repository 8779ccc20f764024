//! `cargo xtask`: project automation. `ci` runs what CI runs plus the lint
//! gates (fmt, clippy); `fuzz <target> [--time SECS]` wraps
//! `cargo +nightly fuzz run`; `bench` runs the criterion benches. It only
//! shells out to cargo; it never edits sources.

use std::process::{Command, ExitCode};

fn cargo(args: &[&str]) -> bool {
    eprintln!("+ cargo {}", args.join(" "));
    Command::new("cargo")
        .args(args)
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

fn usage() -> ExitCode {
    eprintln!("usage: cargo xtask <ci | fuzz <target> [--time SECS] | bench [criterion args...]>");
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
            let max_time = format!("-max_total_time={time}");
            eprintln!("+ (cd fuzz && cargo +nightly fuzz run {target} -- {max_time})");
            Command::new("cargo")
                .current_dir("fuzz")
                .args(["+nightly", "fuzz", "run", target, "--", &max_time])
                .status()
                .map(|s| s.success())
                .unwrap_or(false)
        }
        "bench" => {
            let mut a = vec!["bench", "-p", "rxla-benches"];
            if args.len() > 1 {
                a.push("--");
                a.extend(args[1..].iter().map(String::as_str));
            }
            cargo(&a)
        }
        _ => return usage(),
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
