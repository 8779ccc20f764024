//! `rxla fuzz`: random well-typed programs checked by differential oracles
//! on the stable toolchain. Parses flags, loops over seeds calling
//! `rxla_oracles::campaign::run_case`, prints progress, writes each failing
//! input to `fuzz-failure-<oracle>-<seed>.hlo` and ends with a one-line
//! summary. Exit 0 when nothing failed, 1 otherwise. No oracle logic here.

use crate::Failure;
use clap::Args;
use rxla_oracles::campaign::{Case, run_case};
use rxla_oracles::{Oracle, Verdict};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct FuzzArgs {
    /// Oracle to run: roundtrip, passes, jit, parser, builder, or all.
    #[arg(long, default_value = "all")]
    pub oracle: String,
    /// Number of seeds (each is checked by every selected oracle).
    #[arg(long, default_value_t = 1000)]
    pub iterations: u64,
    /// First seed (default: derived from the clock; printed so a run can be
    /// repeated).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Stop after this many seconds even if iterations remain.
    #[arg(long)]
    pub time: Option<u64>,
    /// Directory for failure files (default: the current directory;
    /// created if missing).
    #[arg(long, default_value = ".")]
    pub out: PathBuf,
    /// Directory of .hlo files whose mutations feed the parser oracle
    /// (default: tests/corpus when it exists).
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Stop after this many failures.
    #[arg(long, default_value_t = 10)]
    pub max_failures: usize,
}

fn parse_oracles(name: &str) -> Result<Vec<Oracle>, Failure> {
    if name == "all" {
        return Ok(Oracle::ALL.to_vec());
    }
    name.split(',')
        .map(|n| {
            Oracle::from_name(n.trim()).ok_or_else(|| {
                Failure::usage(format!(
                    "rxla fuzz: unknown oracle '{n}' (expected roundtrip, passes, jit, parser, builder or all)"
                ))
            })
        })
        .collect()
}

/// The texts of every `.hlo` file in `dir` (recursively, sorted).
fn load_corpus(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "hlo") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &mut files);
    files.sort();
    files
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect()
}

/// Writes the failing input (creating `out` if needed) and returns its
/// path, or the error as a message naming the path.
fn save_failure(out: &Path, case: &Case, message: &str) -> Result<PathBuf, String> {
    let name = case.oracle.name();
    std::fs::create_dir_all(out)
        .map_err(|e| format!("{}: error: cannot create: {e}", out.display()))?;
    let path = out.join(format!("fuzz-failure-{name}-{}.hlo", case.seed));
    let mut text = String::new();
    text.push_str(&format!(
        "// rxla fuzz: oracle {name}, seed {}\n",
        case.seed
    ));
    for line in message.lines() {
        text.push_str(&format!("// failure: {line}\n"));
    }
    text.push_str(&format!(
        "// reproduce: rxla fuzz --oracle {name} --seed {} --iterations 1\n",
        case.seed
    ));
    text.push_str(&case.artifact);
    std::fs::write(&path, text)
        .map_err(|e| format!("{}: error: cannot write: {e}", path.display()))?;
    Ok(path)
}

pub fn run(args: FuzzArgs) -> Result<(), Failure> {
    let oracles = parse_oracles(&args.oracle)?;
    let first = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() % 1_000_000 * 1000)
            .unwrap_or(0)
    });
    let corpus_dir = args
        .corpus
        .clone()
        .or_else(|| Some(PathBuf::from("tests/corpus")).filter(|p| p.is_dir()));
    if let Some(dir) = &args.corpus
        && !dir.is_dir()
    {
        return Err(Failure::input(format!(
            "{}: error: --corpus needs a directory of .hlo files",
            dir.display()
        )));
    }
    let corpus = corpus_dir.as_deref().map(load_corpus).unwrap_or_default();
    let names: Vec<&str> = oracles.iter().map(|o| o.name()).collect();
    say!(
        "rxla fuzz: oracles {}, seeds {first}..{}, {} corpus texts",
        names.join(","),
        first.saturating_add(args.iterations),
        corpus.len()
    );
    let all_opcodes = rxla_ir::Op::all_opcode_names();
    let limit = args.time.map(Duration::from_secs);
    let start = Instant::now();
    let mut last_report = Instant::now();
    let mut seen: BTreeSet<&'static str> = BTreeSet::new();
    // Skips by kind (the reason's text before the first ':', e.g.
    // "unsupported" for modules the JIT declines to compile).
    let mut skip_kinds: BTreeMap<String, u64> = BTreeMap::new();
    let (mut done, mut checked, mut skipped, mut failures) = (0u64, 0u64, 0u64, 0usize);
    'outer: for i in 0..args.iterations {
        if limit.is_some_and(|l| start.elapsed() >= l) || failures >= args.max_failures {
            break;
        }
        let seed = first.wrapping_add(i);
        for &o in &oracles {
            let case = run_case(o, seed, &corpus);
            seen.extend(case.opcodes.iter().copied());
            match &case.result {
                Ok(Verdict::Checked) => checked += 1,
                Ok(Verdict::Skipped(why)) => {
                    skipped += 1;
                    let kind = why.split(':').next().unwrap_or(why).trim();
                    *skip_kinds
                        .entry(format!("{} {kind}", o.name()))
                        .or_default() += 1;
                }
                Err(msg) => {
                    failures += 1;
                    // A failure that cannot be saved is still reported (its
                    // seed reproduces it) and the run goes on.
                    let saved = save_failure(&args.out, &case, msg);
                    say!("FAIL {} seed {seed}: {msg}", o.name());
                    match &saved {
                        Ok(path) => say!("  saved {}", path.display()),
                        Err(e) => say!("  not saved: {e}"),
                    }
                    say!(
                        "  reproduce: rxla fuzz --oracle {} --seed {seed} --iterations 1",
                        o.name()
                    );
                    if let (true, Ok(path)) = (o.takes_module(), &saved) {
                        say!(
                            "  reduce:    rxla reduce {} --oracle {} --seed {seed}",
                            path.display(),
                            o.name()
                        );
                    }
                    if failures >= args.max_failures {
                        break 'outer;
                    }
                }
            }
        }
        done += 1;
        if last_report.elapsed() >= Duration::from_secs(5) {
            last_report = Instant::now();
            say!(
                "[{:.0}s] {done} iterations, {checked} checked, {skipped} skipped, opcodes {}/{}, {failures} failures",
                start.elapsed().as_secs_f64(),
                seen.len(),
                all_opcodes.len()
            );
        }
    }
    say!(
        "summary: {done} iterations, oracles {}, {checked} checked, {skipped} skipped, opcodes covered {}/{}, {failures} failures, {:.1}s",
        names.join(","),
        seen.len(),
        all_opcodes.len(),
        start.elapsed().as_secs_f64()
    );
    if !skip_kinds.is_empty() {
        let parts: Vec<String> = skip_kinds
            .iter()
            .map(|(k, n)| format!("{k}: {n}"))
            .collect();
        say!("skipped: {}", parts.join(", "));
    }
    if failures == 0 {
        Ok(())
    } else {
        Err(Failure::input(format!(
            "rxla fuzz: {failures} failure{}",
            if failures == 1 { "" } else { "s" }
        )))
    }
}
