//! Reading modules for the CLI: a path or `-` for stdin, parsed and
//! verified, with errors formatted as `FILE:LINE:COL: error: ...`; the
//! global `--max-input` and `--fill-elided-constants` settings. Never
//! interprets a module beyond reading it.

use crate::Failure;
use rxla_ir::Module;
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};

/// Default of `--max-input`: the largest input file read (1 GiB).
pub const DEFAULT_MAX_INPUT: u64 = 1 << 30;

static MAX_INPUT: AtomicU64 = AtomicU64::new(DEFAULT_MAX_INPUT);

/// `--fill-elided-constants[=SEED]`: the seed, valid when `FILL_SET`.
static FILL_SEED: AtomicU64 = AtomicU64::new(0);
static FILL_SET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Sets `--fill-elided-constants` for every later module read.
pub fn set_fill_elided_constants(seed: Option<u64>) {
    FILL_SEED.store(seed.unwrap_or(0), Ordering::Relaxed);
    FILL_SET.store(seed.is_some(), Ordering::Relaxed);
}

/// The `--fill-elided-constants` seed, if given.
pub fn fill_elided_constants() -> Option<u64> {
    FILL_SET
        .load(Ordering::Relaxed)
        .then(|| FILL_SEED.load(Ordering::Relaxed))
}

/// Sets the input size limit (`--max-input`) for every later read.
pub fn set_max_input(bytes: u64) {
    MAX_INPUT.store(bytes, Ordering::Relaxed);
}

/// The input size limit in bytes.
pub fn max_input() -> u64 {
    MAX_INPUT.load(Ordering::Relaxed)
}

/// Reads at most `max_input()` bytes from `r`; more is an error naming
/// `name` and the limit (nothing beyond the limit is read).
pub fn read_limited(mut r: impl Read, name: &str) -> Result<Vec<u8>, String> {
    let limit = max_input();
    let mut buf = Vec::new();
    r.by_ref()
        .take(limit.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|e| format!("{name}: error: cannot read: {e}"))?;
    if buf.len() as u64 > limit {
        return Err(format!(
            "{name}: error: the input is larger than --max-input ({limit} bytes)"
        ));
    }
    Ok(buf)
}

/// Reads a file (not stdin) with the size limit: a regular file larger
/// than the limit is refused before reading.
pub fn read_file_limited(path: &std::path::Path) -> Result<Vec<u8>, String> {
    let name = path.display().to_string();
    let f = std::fs::File::open(path).map_err(|e| format!("{name}: error: cannot read: {e}"))?;
    if let Ok(md) = f.metadata() {
        if md.is_dir() {
            return Err(format!("{name}: error: cannot read: is a directory"));
        }
        if md.is_file() && md.len() > max_input() {
            return Err(format!(
                "{name}: error: the file has {} bytes, more than --max-input ({} bytes)",
                md.len(),
                max_input()
            ));
        }
    }
    read_limited(f, &name)
}

/// Reads the raw bytes of `path` (`-` = stdin), at most `--max-input`.
pub fn read_bytes(path: &str) -> Result<Vec<u8>, Failure> {
    if path == "-" {
        read_limited(std::io::stdin().lock(), "<stdin>").map_err(Failure::input)
    } else {
        read_file_limited(std::path::Path::new(path)).map_err(Failure::input)
    }
}

/// The name used for `path` in messages.
pub fn display_name(path: &str) -> &str {
    if path == "-" { "<stdin>" } else { path }
}

/// Reads, parses and verifies a module: HLO text, or StableHLO text when
/// the file name ends in `.mlir` or the text starts like MLIR
/// (`module`/`func.func`). With `--fill-elided-constants`,
/// elided constants (`constant({...})`) are filled with seeded random
/// values and a note on stderr says how many.
pub fn load_module(path: &str) -> Result<Module, Failure> {
    let bytes = read_bytes(path)?;
    let name = display_name(path);
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        let upto = &bytes[..e.valid_up_to()];
        let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = upto.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        Failure::input(format!(
            "{name}:{line}:{col}: error: the file is not valid UTF-8 (byte offset {})",
            e.valid_up_to()
        ))
    })?;
    if path.ends_with(".mlir") || rxla_stablehlo::looks_like_stablehlo(text) {
        // StableHLO text (JAX's `lower(...).as_text()`); it has no elided
        // constants. The converter verifies the module it builds.
        return rxla_stablehlo::parse_stablehlo(text, name)
            .map_err(|e| Failure::input(e.to_string()));
    }
    let options = rxla_ir::ParseOptions {
        fill_elided_constants: fill_elided_constants(),
    };
    let parsed = rxla_ir::parse_module_with(text, name, &options)
        .map_err(|e| Failure::input(e.to_string()))?;
    let module = parsed.module;
    if let (n @ 1.., Some(seed)) = (parsed.elided_constants, options.fill_elided_constants) {
        eprintln!(
            "rxla: note: {name}: {n} elided constant{} filled with random values (seed {seed})",
            if n == 1 { "" } else { "s" }
        );
    }
    rxla_ir::verify_module(&module).map_err(|e| Failure::input(format!("{name}: error: {e}")))?;
    Ok(module)
}
