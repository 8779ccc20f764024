//! `rxla`: the command-line driver. A thin client of the library crates:
//! each subcommand lives in its own module and only parses flags, reads
//! input, calls the library and reports. Exit codes: 0 success, 1 bad input
//! or failed check, 2 usage error. A panic is a bug.

/// `println!` through [`emit`]: a failed stdout is an error (exit 1), a
/// closed pipe ends output quietly; never a panic. Use in functions
/// returning `Result<_, Failure>`.
macro_rules! say {
    ($($t:tt)*) => {
        crate::emit(&format!("{}\n", format_args!($($t)*)))?
    };
}

mod check;
mod fuzz;
mod graph;
mod input;
mod irdebug;
mod npy;
mod opt;
mod reduce;
mod run;
mod test;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "rxla",
    version,
    about = "rxla: an optimizing tensor compiler for XLA's HLO"
)]
struct Cli {
    /// Largest input file (module, arguments, infeed) read, in bytes.
    #[arg(long, global = true, value_name = "BYTES", default_value_t = input::DEFAULT_MAX_INPUT)]
    max_input: u64,
    /// Fill elided constants (`constant({...})`, as XLA dumps large ones)
    /// with seeded random values (floats in [-1, 1), small integers) instead
    /// of refusing them; a note on stderr counts them. The seed needs `=`:
    /// `--fill-elided-constants=7` (default 0).
    #[arg(
        long,
        global = true,
        value_name = "SEED",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "0"
    )]
    fill_elided_constants: Option<u64>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and verify a module (HLO text, or StableHLO text: `.mlir` or
    /// MLIR-looking content); print a one-line summary.
    Check(check::CheckArgs),
    /// Run passes over a module and print it (no passes: print it back).
    Opt(opt::OptArgs),
    /// Draw the ENTRY computation: Graphviz DOT, or SVG/HTML laid out by rxla.
    Graph(graph::GraphArgs),
    /// Evaluate a module on arguments and print the results.
    Run(run::RunArgs),
    /// Generate random programs and check them with differential oracles.
    Fuzz(fuzz::FuzzArgs),
    /// Shrink a failing module while the failure persists.
    Reduce(reduce::ReduceArgs),
    /// Run `.hlo` filetests (`// test:`, `// run:`, `// CHECK:` lines).
    Test(test::TestArgs),
}

/// The outcome of a subcommand: success, or an error already formatted for
/// the user (printed to stderr) with its exit code.
pub struct Failure {
    pub message: String,
    pub code: u8,
}

impl Failure {
    /// Bad input (exit 1).
    pub fn input(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            code: 1,
        }
    }
    /// Usage error (exit 2).
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            code: 2,
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    input::set_max_input(cli.max_input);
    input::set_fill_elided_constants(cli.fill_elided_constants);
    let result = match cli.command {
        Command::Check(a) => check::run(a),
        Command::Opt(a) => opt::run(a),
        Command::Graph(a) => graph::run(a),
        Command::Run(a) => run::run(a),
        Command::Fuzz(a) => fuzz::run(a),
        Command::Reduce(a) => reduce::run(a),
        Command::Test(a) => test::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("{}", sanitize(f.message.trim_end()));
            ExitCode::from(f.code)
        }
    }
}

/// Writes `text` to stdout. A closed pipe (`rxla ... | head`) ends output
/// quietly instead of panicking; other write errors are reported.
pub fn emit(text: &str) -> Result<(), Failure> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::input(format!(
            "error: cannot write to stdout: {e}"
        ))),
    }
}

/// `s` cut to at most `max` characters (with `...` when cut).
pub fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// An error message made safe for a terminal: control characters other
/// than newline and tab (raw bytes of the input echoed back) are shown
/// as `\u{..}` escapes, and each line is cut at 1000 characters.
pub fn sanitize(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    for (i, line) in message.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut clean = String::with_capacity(line.len());
        for c in line.chars() {
            if c.is_control() && c != '\t' {
                clean.push_str(&c.escape_unicode().to_string());
            } else {
                clean.push(c);
            }
        }
        out.push_str(&clip(&clean, 1000));
    }
    out
}
