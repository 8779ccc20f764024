//! Every corpus case (`tests/corpus`, `tests/corpus_jax`; `.hlo` and
//! `.opt.hlo`) compiled by the JIT matches its `.json` outputs within the
//! case's tolerance — with the parameters in their own layouts and again
//! with column-major parameters. Prints which instructions fell back.

use rxla_eval::json::{Case, read_case};
use rxla_ir::{Instruction, Layout, Module, Op, Shape};
use rxla_jit::{CompileOptions, compile};
use std::path::{Path, PathBuf};

fn dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests");
    vec![root.join("corpus"), root.join("corpus_jax")]
}

/// The module with every ENTRY array parameter of rank ≥ 2 taken in
/// column-major layout and copied to its original layout before any use
/// (same values; the JIT must read the transposed buffers).
fn column_major(mut m: Module) -> Module {
    let entry = m.entry;
    let comp = m.comp_mut(entry);
    for pid in comp.parameters() {
        let Shape::Array(orig) = comp.get(pid).shape.clone() else {
            continue;
        };
        if orig.rank() < 2 {
            continue;
        }
        let mut cm = orig.clone();
        cm.layout = Layout::column_major(orig.rank());
        comp.get_mut(pid).shape = Shape::Array(cm);
        let name = comp.fresh_name(&format!("{}.rowmajor", comp.get(pid).name));
        let copy = comp.push(Instruction::new(
            name,
            Op::Copy,
            vec![pid],
            Shape::Array(orig),
        ));
        for id in comp.ids().collect::<Vec<_>>() {
            if id == copy {
                continue;
            }
            for o in &mut comp.get_mut(id).operands {
                if *o == pid {
                    *o = copy;
                }
            }
        }
        if comp.root == pid {
            comp.root = copy;
        }
    }
    comp.topo_sort().expect("acyclic");
    if let Some(l) = &mut m.entry_layout {
        for p in &mut l.parameters {
            if let Shape::Array(a) = p
                && a.rank() > 1
            {
                a.layout = Layout::column_major(a.rank());
            }
        }
    }
    m
}

fn run_one(module: &Module, case: &Case, opts: &CompileOptions) -> Result<Vec<String>, String> {
    let exe = compile(module, opts).map_err(|e| format!("compile: {e}"))?;
    let got = exe.run(&case.inputs).map_err(|e| format!("run: {e}"))?;
    // Reductions, dots and transcendentals may differ from XLA in the last
    // bits: allow 1e-5 relative on top of the case's own tolerance.
    case.check_outputs(&got.leaves(), case.rtol.max(1e-5), case.atol.max(1e-6))?;
    Ok(exe.stats().fallbacks.clone())
}

fn sweep(layout_change: bool) {
    let opts = CompileOptions {
        threads: Some(1),
        ..CompileOptions::default()
    };
    let mut failures = Vec::new();
    let mut total = 0;
    let mut fallback_count = 0;
    for dir in dirs() {
        for name in rxla_testkit::case_names(&dir) {
            let case = read_case(&dir.join(format!("{name}.json")).display().to_string())
                .unwrap_or_else(|e| panic!("{name}.json: {e}"));
            for suffix in ["hlo", "opt.hlo"] {
                let path = dir.join(format!("{name}.{suffix}"));
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                let module = match rxla_ir::parse_module(&text, &path.display().to_string()) {
                    Ok(m) => m,
                    Err(e) => {
                        println!("skip  {name}.{suffix}: does not parse ({e})");
                        continue;
                    }
                };
                let module = if layout_change {
                    column_major(module)
                } else {
                    module
                };
                if let Err(e) =
                    rxla_eval::evaluate(&module, &case.inputs, &rxla_eval::RunOptions::default())
                {
                    println!("skip  {name}.{suffix}: the evaluator fails too ({e})");
                    continue;
                }
                total += 1;
                match run_one(&module, &case, &opts) {
                    Ok(fb) => {
                        fallback_count += usize::from(!fb.is_empty());
                        println!(
                            "ok    {name}.{suffix}{}",
                            if fb.is_empty() {
                                String::new()
                            } else {
                                format!("  fallback: {}", fb.join("; "))
                            }
                        );
                    }
                    Err(e) => {
                        println!("FAIL  {name}.{suffix}: {e}");
                        failures.push(format!("{name}.{suffix}: {e}"));
                    }
                }
            }
        }
    }
    println!("{total} modules, {fallback_count} with interpreter fallbacks");
    assert!(total >= 100, "expected the corpus, found {total} modules");
    rxla_testkit::assert_no_failures(&failures);
}

#[test]
fn corpus_matches_under_jit() {
    sweep(false);
}

#[test]
fn corpus_matches_under_jit_with_column_major_parameters() {
    sweep(true);
}
