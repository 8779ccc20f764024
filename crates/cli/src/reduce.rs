//! `rxla reduce FILE (--oracle NAME | --check CMD)`: shrinks a failing
//! module while the failure persists (delta debugging in
//! `rxla_oracles::reduce`) and writes the smallest module found. Only
//! flag parsing, the interestingness test (an oracle or an external
//! command) and file I/O live here.

use crate::{Failure, input};
use clap::Args;
use rxla_ir::{Module, print_module};
use rxla_oracles::Oracle;
use std::path::PathBuf;
use std::process::{Command, Stdio};

#[derive(Args)]
pub struct ReduceArgs {
    /// The failing module (HLO text).
    pub file: String,
    /// Oracle whose failure must persist: roundtrip, passes or jit.
    #[arg(long, conflicts_with = "check")]
    pub oracle: Option<String>,
    /// Interestingness command run by `sh -c`: exit 0 means "still
    /// failing". The candidate's path replaces `{}`, or is appended as the
    /// last argument.
    #[arg(long)]
    pub check: Option<String>,
    /// Seed of the arguments the oracle evaluates with (default: the seed
    /// in the file's `// rxla fuzz: ... seed S` header, else 0).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Text the oracle's failure message must contain (default: the
    /// original failure's kind: its text up to the first ':', or for
    /// panics the panic location).
    #[arg(long = "match")]
    pub match_text: Option<String>,
    /// Output file (default: FILE.reduced.hlo).
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Upper bound on interestingness tests.
    #[arg(long, default_value_t = 20000)]
    pub max_tests: usize,
}

/// The seed from a `// rxla fuzz: oracle X, seed S` header line.
fn header_seed(text: &str) -> Option<u64> {
    text.lines()
        .take_while(|l| l.starts_with("//"))
        .find_map(|l| {
            l.split("seed ")
                .nth(1)?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
}

/// The oracle from a `// rxla fuzz: oracle X, seed S` header line.
fn header_oracle(text: &str) -> Option<Oracle> {
    text.lines()
        .take_while(|l| l.starts_with("//"))
        .find_map(|l| {
            let rest = l.strip_prefix("// rxla fuzz: oracle ")?;
            Oracle::from_name(rest.split(',').next()?.trim())
        })
}

/// What identifies "the same failure": for panics the location, else the
/// message up to the first ':'.
pub fn failure_signature(msg: &str) -> String {
    if let Some(rest) = msg.strip_prefix("panic: ")
        && let Some(at) = rest.rfind(" at ")
    {
        return rest[at + 1..].to_string();
    }
    msg.split(':').next().unwrap_or(msg).to_string()
}

fn run_check(cmd: &str, module: &Module, path: &std::path::Path) -> bool {
    if std::fs::write(path, print_module(module)).is_err() {
        return false;
    }
    let p = path.display().to_string();
    let full = if cmd.contains("{}") {
        cmd.replace("{}", &p)
    } else {
        format!("{cmd} {p}")
    };
    Command::new("sh")
        .arg("-c")
        .arg(&full)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

pub fn run(args: ReduceArgs) -> Result<(), Failure> {
    let text = String::from_utf8(input::read_bytes(&args.file)?).unwrap_or_default();
    let seed = args.seed.or_else(|| header_seed(&text)).unwrap_or(0);
    let module = match input::load_module(&args.file) {
        Ok(m) => m,
        // A failure file whose text does not parse (a printer bug): the
        // header names the oracle and seed, so regenerate the module.
        Err(e) => match (header_oracle(&text), header_seed(&text)) {
            (Some(o), Some(s)) => {
                say!(
                    "{}: the text does not parse; regenerating the module of seed {s} ({} oracle)",
                    args.file,
                    o.name()
                );
                rxla_fuzzgen::generate_from_seed(s, &o.config())
            }
            _ => return Err(e),
        },
    };
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}.reduced.hlo", args.file)));
    let result = match (&args.oracle, &args.check) {
        (Some(name), None) => {
            let oracle = Oracle::from_name(name)
                .filter(|o| o.takes_module())
                .ok_or_else(|| {
                    Failure::usage(format!(
                        "rxla reduce: --oracle must be roundtrip, passes or jit, got '{name}' (use --check for others)"
                    ))
                })?;
            let original = oracle.check(&module, seed).err().ok_or_else(|| {
                Failure::input(format!(
                    "{}: the {} oracle does not fail on this module (seed {seed})",
                    args.file,
                    oracle.name()
                ))
            })?;
            let want = args
                .match_text
                .clone()
                .unwrap_or_else(|| failure_signature(&original));
            say!(
                "reducing {} ({} oracle, seed {seed}): {original}",
                args.file,
                oracle.name()
            );
            say!("keeping failures that contain: {want}");
            rxla_oracles::reduce::reduce(
                &module,
                |m| matches!(oracle.check(m, seed), Err(e) if e.contains(&want)),
                args.max_tests,
            )
        }
        (None, Some(cmd)) => {
            let tmp = std::env::temp_dir().join(format!("rxla-reduce-{}.hlo", std::process::id()));
            say!("reducing {} with: {cmd}", args.file);
            let r =
                rxla_oracles::reduce::reduce(&module, |m| run_check(cmd, m, &tmp), args.max_tests);
            let _ = std::fs::remove_file(&tmp);
            r
        }
        _ => {
            return Err(Failure::usage(
                "rxla reduce: give exactly one of --oracle NAME or --check CMD",
            ));
        }
    };
    let (reduced, stats) =
        result.map_err(|e| Failure::input(format!("{}: error: {e}", args.file)))?;
    std::fs::write(&out, print_module(&reduced))
        .map_err(|e| Failure::input(format!("{}: error: cannot write: {e}", out.display())))?;
    say!(
        "wrote {}: {} instructions in {} computations (from {} in {}), {} tests, {} edits kept",
        out.display(),
        reduced.instruction_count(),
        reduced.computations.len(),
        module.instruction_count(),
        module.computations.len(),
        stats.tests,
        stats.accepted
    );
    Ok(())
}
