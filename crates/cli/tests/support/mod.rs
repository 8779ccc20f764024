//! Shared by the CLI integration tests (`mod support;`): running the built
//! `rxla` binary with arguments and stdin, and paths into the repository's
//! corpora. Asserts nothing; each test file uses the part it needs.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `rxla ARGS`, feeding `stdin` (if any) and then closing it; returns
/// its exit status and captured output.
pub fn rxla(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rxla"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rxla runs");
    let mut pipe = child.stdin.take().expect("stdin");
    if let Some(s) = stdin {
        // A command that fails before reading stdin closes the pipe: the
        // write may then fail with a broken pipe, which is not the test's
        // subject (the exit status and output are).
        let _ = pipe.write_all(s.as_bytes());
    }
    drop(pipe);
    child.wait_with_output().expect("rxla finishes")
}

/// The path of `tests/corpus/NAME`.
pub fn corpus(name: &str) -> String {
    format!("{}/../../tests/corpus/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The path of `tests/corpus_jax/NAME`.
pub fn jax(name: &str) -> String {
    format!(
        "{}/../../tests/corpus_jax/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}
