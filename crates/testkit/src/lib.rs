//! Test and bench support shared across rxla's crates, so a workload that a
//! test checks and a bench measures is one piece of code: HLO text
//! generators. Used only as a dev-dependency; asserts nothing itself and
//! must not be a dependency of any library.

use std::path::{Path, PathBuf};

/// An HLO module of about `n` instructions chaining a little of every
/// `simplify` family: transpose and reshape pairs, additive identities
/// (`x + -0`), involutions (`negate(negate(x))`), and ReshapeMover patterns
/// (an elementwise op between transposes), all on f32[8,16].
pub fn simplify_chain(n: usize) -> String {
    let mut s = String::from(
        "HloModule big\nENTRY main {\n  p0 = f32[8,16] parameter(0)\n  p1 = f32[8,16] parameter(1)\n  nz = f32[] constant(-0)\n  bnz = f32[8,16] broadcast(nz), dimensions={}\n",
    );
    let mut prev = "p0".to_string();
    let mut i = 0;
    while i < n {
        let k = i % 6;
        let line = match k {
            0 => format!(
                "  v{i} = f32[16,8] transpose({prev}), dimensions={{1,0}}\n  w{i} = f32[8,16] transpose(v{i}), dimensions={{1,0}}\n"
            ),
            1 => format!("  v{i} = f32[128] reshape({prev})\n  w{i} = f32[8,16] reshape(v{i})\n"),
            2 => format!(
                "  v{i} = f32[8,16] add({prev}, bnz)\n  w{i} = f32[8,16] multiply(v{i}, p1)\n"
            ),
            3 => format!("  v{i} = f32[8,16] negate({prev})\n  w{i} = f32[8,16] negate(v{i})\n"),
            4 => format!(
                "  v{i} = f32[8,16] maximum({prev}, p1)\n  w{i} = f32[8,16] subtract(v{i}, p0)\n"
            ),
            _ => format!(
                "  v{i} = f32[16,8] transpose({prev}), dimensions={{1,0}}\n  u{i} = f32[16,8] transpose(p1), dimensions={{1,0}}\n  x{i} = f32[16,8] add(v{i}, u{i})\n  w{i} = f32[8,16] transpose(x{i}), dimensions={{1,0}}\n"
            ),
        };
        s.push_str(&line);
        prev = format!("w{i}");
        i += if k == 5 { 4 } else { 2 };
    }
    s.push_str(&format!("  ROOT r = f32[8,16] copy({prev})\n}}\n"));
    s
}

/// A small module for pass-pipeline tests (`rxla opt`, `PassManager`): a
/// `call` to be inlined, a commutative duplicate (`add(a, b)`, `add(b, a)`)
/// for CSE, and a dead `multiply` for DCE.
pub const PIPELINE_SAMPLE: &str = r#"HloModule m

relu {
  x = f32[4] parameter(0)
  zero = f32[] constant(0)
  zeros = f32[4] broadcast(zero), dimensions={}
  ROOT max = f32[4] maximum(x, zeros)
}

ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  x = f32[4] add(a, b)
  y = f32[4] add(b, a)
  dead = f32[4] multiply(x, y)
  r = f32[4] call(x), to_apply=relu
  ROOT out = f32[4] add(r, y)
}
"#;

/// The names of the corpus cases in `dir` (one `NAME.json` each, beside
/// its modules), sorted. Panics naming the folder when it cannot be read.
pub fn case_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("corpus directory {}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_string_lossy()
                .strip_suffix(".json")
                .map(str::to_string)
        })
        .collect();
    names.sort();
    names
}

/// The repository's public corpus, `tests/corpus`.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus")
}

/// The files in `dir` whose extension is `ext` (`"hlo"`), sorted. Panics
/// naming the folder when it cannot be read.
pub fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("directory {}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

/// Ends a sweep over many cases: panics listing every failure, one a line,
/// when there are any.
pub fn assert_no_failures(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_names_and_files_with_ext_list_sorted() {
        let dir = std::env::temp_dir().join(format!("rxla-testkit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for f in ["b.json", "a.json", "a.hlo", "c.txt"] {
            std::fs::write(dir.join(f), "").unwrap();
        }
        let names = case_names(&dir);
        let hlo = files_with_ext(&dir, "hlo");
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(hlo, [dir.join("a.hlo")]);
    }

    #[test]
    fn the_corpus_is_found() {
        assert!(corpus_dir().join("mlp.hlo").is_file());
    }

    #[test]
    #[should_panic(expected = "2 failures:\nx: one\ny: two")]
    fn failures_are_listed() {
        assert_no_failures(&["x: one".to_string(), "y: two".to_string()]);
    }

    #[test]
    fn the_simplify_chain_has_about_n_instructions() {
        let text = simplify_chain(2000);
        let lines = text.lines().filter(|l| l.contains(" = ")).count();
        assert!((2000..2010).contains(&lines), "{lines}");
        assert!(text.contains("ROOT r = f32[8,16] copy(w"));
    }
}
