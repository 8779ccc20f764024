//! `rxla test FILE|DIR…`: runs `.hlo` filetests (the `rxla-filetests`
//! runner; directories stand for every `.hlo` file under them) and prints
//! one line per file; `--bless` first rewrites each file's CHECK lines from
//! the actual output. Exit 1 when a file fails.

use crate::Failure;
use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub struct TestArgs {
    /// Filetests to run: `.hlo` files or directories of them.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Rewrite the `// CHECK` lines of `opt` (and CHECK-only) filetests
    /// from the actual output before checking them; run lines are never
    /// rewritten.
    #[arg(long)]
    pub bless: bool,
}

pub fn run(args: TestArgs) -> Result<(), Failure> {
    for f in &args.files {
        if !f.exists() {
            return Err(Failure::input(format!("{}: no such file", f.display())));
        }
    }
    let s = rxla_filetests::run_paths(&args.files, args.bless);
    for f in &s.blessed {
        say!("blessed {}", f.display());
    }
    for f in &s.passed {
        say!("ok   {}", f.display());
    }
    for (f, e) in &s.failed {
        say!("FAIL {}\n{}", f.display(), e);
    }
    say!(
        "{} passed, {} failed{}",
        s.passed.len(),
        s.failed.len(),
        if args.bless {
            format!(", {} blessed", s.blessed.len())
        } else {
            String::new()
        }
    );
    if s.failed.is_empty() {
        Ok(())
    } else {
        Err(Failure::input(format!(
            "{} filetests failed",
            s.failed.len()
        )))
    }
}
