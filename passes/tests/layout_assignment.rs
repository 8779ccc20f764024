//! `layout-assignment`: results are bit-identical on the whole corpus
//! (also with every rank ≥ 2 parameter made column-major), the module is
//! layout-sensitive afterwards (`verify_layouts`), `simplify` run after it
//! keeps the results, the signature and `verify_layouts`, and the
//! data-movement promises of docs/LAYOUT.md hold on small programs (those
//! are filetests in `tests/filetests/opt/layout_assignment/`, whose `layouts`
//! kind checks `verify_layouts` on the result).

use crate::common;
use rxla_ir::layout_verifier::verify_layouts;
use rxla_ir::{Layout, Literal, Module, Shape};
use rxla_passes::layout_assignment::{LayoutAssignment, RowMajorOperands, assign_layouts};
use rxla_passes::{Pass, PassContext};
use std::path::PathBuf;

fn corpus_dir() -> PathBuf {
    let local = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus"));
    if local.is_dir() {
        local
    } else {
        PathBuf::from("/work/shared/corpus")
    }
}

fn cases() -> Vec<(String, Module, Vec<Literal>)> {
    let dir = corpus_dir();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "hlo"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let case = name.trim_end_matches(".hlo").trim_end_matches(".opt");
        let Ok(json) = std::fs::read_to_string(dir.join(format!("{case}.json"))) else {
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap();
        let m = rxla_ir::parse_module(&text, &name).unwrap_or_else(|e| panic!("{e}"));
        let inputs = rxla_eval::json::read_inputs(&json).unwrap();
        out.push((name, m, inputs));
    }
    out
}

fn eval(m: &Module, args: &[Literal]) -> Literal {
    rxla_eval::evaluate(m, args, &rxla_eval::RunOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
}

fn bits(l: &Literal) -> Vec<(String, Vec<u8>)> {
    l.leaves()
        .iter()
        .map(|a| (a.shape.to_string(), a.data.to_le_bytes()))
        .collect()
}

/// Runs the pass through the manager (which also runs the verifier).
fn run_pass(m: &mut Module) {
    run_pipeline(m, "layout-assignment");
}

fn run_pipeline(m: &mut Module, pipeline: &str) {
    let mut pm =
        rxla_passes::PassManager::from_text(pipeline, &rxla_passes::Registry::standard()).unwrap();
    pm.run(m).unwrap_or_else(|e| panic!("{e}"));
    rxla_ir::verify_module(m).unwrap_or_else(|e| panic!("{e}\n{}", rxla_ir::print_module(m)));
    verify_layouts(m).unwrap_or_else(|e| panic!("{e}\n{}", rxla_ir::print_module(m)));
}

/// Makes every rank ≥ 2 ENTRY parameter column-major, in the parameter's
/// shape and in entry_computation_layout.
fn column_major_params(m: &mut Module) {
    let mut ps = m.entry_program_shape();
    let entry = m.entry_computation_mut();
    for id in entry.parameters() {
        if let Shape::Array(a) = &mut entry.get_mut(id).shape
            && a.rank() >= 2
        {
            a.layout = Layout::column_major(a.rank());
        }
    }
    for p in &mut ps.parameters {
        if let Shape::Array(a) = p
            && a.rank() >= 2
        {
            a.layout = Layout::column_major(a.rank());
        }
    }
    m.entry_layout = Some(ps);
}

#[test]
fn corpus_results_are_unchanged() {
    let mut checked = 0;
    for (name, m, args) in cases() {
        for (column_major, pipeline) in [
            (false, "layout-assignment"),
            (true, "layout-assignment"),
            (false, "layout-assignment{simd-pad=4}"),
            (true, "layout-assignment{dot-operands=row-major,simd-pad=4}"),
        ] {
            let mut before = m.clone();
            if column_major {
                column_major_params(&mut before);
            }
            let want = eval(&before, &args);
            let mut after = before.clone();
            run_pipeline(&mut after, pipeline);
            let got = eval(&after, &args);
            assert_eq!(
                bits(&got),
                bits(&want),
                "{name} ({pipeline}, column-major params: {column_major}):\n{}",
                rxla_ir::print_module(&after)
            );
            checked += 1;
        }
    }
    assert!(checked >= 80, "only {checked} corpus runs");
}

/// `simplify` after layout assignment (whose layouts it now rewrites
/// rather than skipping the computation): results stay bit-identical, the
/// layouts stay valid for `verify_layouts`, and the signature is kept.
#[test]
fn simplify_after_layout_assignment_keeps_results_and_layouts() {
    let mut checked = 0;
    let mut changed = 0;
    for (name, m, args) in cases() {
        for (column_major, pipeline) in [
            (true, "inline,layout-assignment"),
            (false, "inline,layout-assignment{simd-pad=4}"),
        ] {
            let mut before = m.clone();
            if column_major {
                column_major_params(&mut before);
            }
            let want = eval(&before, &args);
            run_pipeline(&mut before, pipeline);
            let mut after = before.clone();
            let mut pm =
                rxla_passes::PassManager::from_text("simplify", &rxla_passes::Registry::standard())
                    .unwrap();
            changed += pm.run(&mut after).unwrap_or_else(|e| panic!("{e}")).changed as usize;
            rxla_ir::verify_module(&after)
                .unwrap_or_else(|e| panic!("{name}: {e}\n{}", rxla_ir::print_module(&after)));
            verify_layouts(&after).unwrap_or_else(|e| {
                panic!(
                    "{name} ({pipeline}): {e}\nbefore:\n{}\nafter:\n{}",
                    rxla_ir::print_module(&before),
                    rxla_ir::print_module(&after)
                )
            });
            assert_eq!(
                before.entry_program_shape(),
                after.entry_program_shape(),
                "{name}"
            );
            let got = eval(&after, &args);
            assert_eq!(
                bits(&got),
                bits(&want),
                "{name} ({pipeline}):\n{}",
                rxla_ir::print_module(&after)
            );
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} corpus runs");
    eprintln!("simplify changed {changed} of {checked} layout-assigned corpus modules");
}

fn assigned(text: &str) -> (Module, String) {
    let mut m = common::parse(text);
    run_pass(&mut m);
    let printed = rxla_ir::print_module(&m);
    (m, printed)
}

fn count(m: &Module, opcode: &str) -> usize {
    m.computations
        .iter()
        .flat_map(|c| &c.instructions)
        .filter(|i| i.opcode() == opcode)
        .count()
}

/// A dot with a transposed operand (its filetest checks the default emitter).
const DOT_T: &str =
    include_str!("../../tests/filetests/opt/layout_assignment/dot_transposed_operand.hlo");

#[test]
fn transposed_dot_operand_costs_nothing_when_accepted() {
    let (m, printed) = assigned(DOT_T);
    assert_eq!(count(&m, "copy") + count(&m, "transpose"), 0, "{printed}");
    // An emitter that packs only row-major operands gets a physical transpose.
    let mut m2 = common::parse(DOT_T);
    let stats = assign_layouts(&mut m2, &RowMajorOperands).unwrap();
    verify_layouts(&m2).unwrap();
    assert_eq!(stats.transposes_to_bitcast, 0);
    assert_eq!(count(&m2, "transpose") + count(&m2, "copy"), 1);
    // Both compute the same values.
    let a = Literal::from_vec(&[4, 3], (0..12).map(|v| v as f32).collect()).unwrap();
    let b = Literal::from_vec(&[4, 5], (0..20).map(|v| (v % 7) as f32).collect()).unwrap();
    let want = eval(&common::parse(DOT_T), &[a.clone(), b.clone()]);
    assert_eq!(bits(&eval(&m, &[a.clone(), b.clone()])), bits(&want));
    assert_eq!(bits(&eval(&m2, &[a, b])), bits(&want));
}

#[test]
fn dot_operands_option_is_parsed() {
    let mut p = LayoutAssignment::default();
    p.set_option("dot-operands", "row-major").unwrap();
    let mut m = common::parse(DOT_T);
    p.run(&mut m, &mut PassContext::new()).unwrap();
    assert_eq!(count(&m, "transpose") + count(&m, "copy"), 1);
    assert!(p.set_option("dot-operands", "diagonal").is_err());
    assert!(p.set_option("nope", "1").is_err());
}

const SIMD: &str = "HloModule s\nadd {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\nENTRY e {\n  p = f32[8,5]{1,0} parameter(0)\n  i = f32[8,5]{1,0} iota(), iota_dimension=1\n  x = f32[8,5]{1,0} multiply(i, i)\n  e = f32[8,5]{1,0} exponential(x)\n  q = f32[8,5]{1,0} add(p, x)\n  z = f32[] constant(0)\n  r = f32[8]{0} reduce(e, z), dimensions={1}, to_apply=add\n  s = f32[8]{0} reduce(q, z), dimensions={1}, to_apply=add\n  ROOT t = (f32[8]{0}, f32[8]{0}) tuple(r, s)\n}\n";

#[test]
fn simd_padding_pads_free_clusters_only() {
    let mut m = common::parse(SIMD);
    let x = Literal::from_vec(&[8, 5], (0..40).map(|v| v as f32 / 8.0).collect()).unwrap();
    let want = eval(&m, std::slice::from_ref(&x));
    let mut pm = rxla_passes::PassManager::from_text(
        "layout-assignment{simd-pad=4}",
        &rxla_passes::Registry::standard(),
    )
    .unwrap();
    pm.run(&mut m).unwrap();
    verify_layouts(&m).unwrap();
    let printed = rxla_ir::print_module(&m);
    // `q` reads the parameter, so its cluster (p, x, q, i, e) stays unpadded...
    assert!(!printed.contains("P("), "{printed}");
    assert_eq!(bits(&eval(&m, std::slice::from_ref(&x))), bits(&want));
    // ...without `q` the iota/multiply/exponential cluster is padded to 8.
    let text = SIMD
        .replace("  q = f32[8,5]{1,0} add(p, x)\n", "")
        .replace("reduce(q, z)", "reduce(p, z)");
    let mut m = common::parse(&text);
    let want = eval(&m, std::slice::from_ref(&x));
    let mut pm = rxla_passes::PassManager::from_text(
        "layout-assignment{simd-pad=4}",
        &rxla_passes::Registry::standard(),
    )
    .unwrap();
    pm.run(&mut m).unwrap();
    verify_layouts(&m).unwrap();
    let printed = rxla_ir::print_module(&m);
    assert_eq!(printed.matches("{1,0:P(8,8):V(0)}").count(), 3, "{printed}");
    assert!(printed.contains("f32[8,5]{1,0} parameter(0)"), "{printed}");
    assert_eq!(bits(&eval(&m, std::slice::from_ref(&x))), bits(&want));
    assert!(
        LayoutAssignment::default()
            .set_option("simd-pad", "-1")
            .is_err()
    );
}
