//! For every corpus module (tests/corpus, `.hlo` and `.opt.hlo`) with its
//! `.json` inputs: each pass alone, O1 and O2 leave the evaluator's results
//! bit-identical, and the module still verifies.

use rxla_ir::{Literal, Module};
use rxla_passes::{PassManager, Registry};
use std::path::PathBuf;

/// The corpus directories present: tests/corpus (else the shared copy)
/// and tests/corpus_jax when it exists.
fn corpus_dirs() -> Vec<PathBuf> {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests"));
    let mut dirs = Vec::new();
    let local = root.join("corpus");
    dirs.push(if local.is_dir() {
        local
    } else {
        PathBuf::from("/work/shared/corpus")
    });
    let jax = root.join("corpus_jax");
    if jax.is_dir() {
        dirs.push(jax);
    }
    dirs
}

/// Exact bits of every leaf, with shapes.
fn bits(l: &Literal) -> Vec<(String, Vec<u8>)> {
    l.leaves()
        .iter()
        .map(|a| (a.shape.to_string(), a.data.to_le_bytes()))
        .collect()
}

fn cases() -> Vec<(String, Module, Vec<Literal>)> {
    let mut out = Vec::new();
    for dir in corpus_dirs() {
        // Every case of both corpora must parse.
        cases_in(&dir, true, &mut out);
    }
    out
}

fn cases_in(dir: &std::path::Path, strict: bool, out: &mut Vec<(String, Module, Vec<Literal>)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "hlo"))
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let case = name.trim_end_matches(".hlo").trim_end_matches(".opt");
        let json = dir.join(format!("{case}.json"));
        let Ok(json_text) = std::fs::read_to_string(&json) else {
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap();
        let m = match rxla_ir::parse_module(&text, &name) {
            Ok(m) => m,
            Err(e) if strict => panic!("{e}"),
            Err(e) => {
                eprintln!(
                    "skipping {name}: {}",
                    e.to_string().lines().next().unwrap_or("")
                );
                continue;
            }
        };
        let inputs = rxla_eval::json::read_inputs(&json_text)
            .unwrap_or_else(|e| panic!("{}: {e}", json.display()));
        out.push((name, m, inputs));
    }
}

fn eval(m: &Module, inputs: &[Literal]) -> Result<Literal, String> {
    rxla_eval::evaluate(m, inputs, &rxla_eval::RunOptions::default()).map_err(|e| e.to_string())
}

#[test]
fn passes_preserve_results_bit_for_bit() {
    let registry = Registry::standard();
    let mut pipelines: Vec<String> = registry.names().iter().map(|s| s.to_string()).collect();
    pipelines.push("O1".into());
    pipelines.push("O2".into());
    let mut checked = 0;
    let mut skipped = Vec::new();
    for (name, module, inputs) in cases() {
        let want = match eval(&module, &inputs) {
            Ok(w) => w,
            Err(e) => {
                skipped.push(format!("{name}: {e}"));
                continue;
            }
        };
        for p in &pipelines {
            let mut m = module.clone();
            let mut pm = if p.starts_with('O') {
                PassManager::named(p, &registry).unwrap()
            } else {
                PassManager::from_text(p, &registry).unwrap()
            };
            pm.run(&mut m)
                .unwrap_or_else(|e| panic!("{name}: {p}: {e}"));
            rxla_ir::verify_module(&m).unwrap_or_else(|e| panic!("{name}: {p}: {e}"));
            let got = eval(&m, &inputs).unwrap_or_else(|e| panic!("{name}: after {p}: {e}"));
            assert_eq!(bits(&got), bits(&want), "{name}: {p} changed the results");
            // The printed result parses back to the same module.
            let text = rxla_ir::print_module(&m);
            let again = rxla_ir::parse_module(&text, &name)
                .unwrap_or_else(|e| panic!("{name}: {p}: printed IR does not parse: {e}"));
            assert_eq!(rxla_ir::print_module(&again), text, "{name}: {p}");
            checked += 1;
        }
    }
    eprintln!("checked {checked} (module, pipeline) pairs; skipped: {skipped:#?}");
    assert!(
        checked >= 20 * pipelines.len(),
        "too few cases ran: {checked}; skipped {skipped:#?}"
    );
}

#[test]
fn o1_inlines_every_call_in_the_corpus() {
    let registry = Registry::standard();
    for (name, mut m, _) in cases() {
        PassManager::named("O1", &registry)
            .unwrap()
            .run(&mut m)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = rxla_ir::print_module(&m);
        assert!(
            !text.contains(" call("),
            "{name}: call left after O1:\n{text}"
        );
    }
}

#[test]
fn o2_reaches_a_fixed_point() {
    let registry = Registry::standard();
    for (name, mut m, _) in cases() {
        PassManager::named("O2", &registry)
            .unwrap()
            .run(&mut m)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let before = rxla_ir::print_module(&m);
        let s = PassManager::named("O2", &registry)
            .unwrap()
            .run(&mut m)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!s.changed, "{name}: a second O2 run changed the module");
        assert_eq!(rxla_ir::print_module(&m), before, "{name}");
    }
}
