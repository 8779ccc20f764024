//! HLO text round trip over the whole corpus: every file parses and
//! verifies, print → parse → print is a fixed point, the reparsed module
//! equals the first one structurally, and the canonical printed form of
//! each file is pinned by an insta snapshot (`tests/snapshots/`).

use rxla_ir::{Module, parse_module, print_module, verify_module};
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

fn hlo_files() -> Vec<PathBuf> {
    rxla_testkit::files_with_ext(&corpus_dir(), "hlo")
}

fn parse_file(path: &Path) -> (String, Module) {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let text = std::fs::read_to_string(path).unwrap();
    let m = parse_module(&text, &name).unwrap_or_else(|e| panic!("{e}"));
    (name, m)
}

#[test]
fn corpus_has_both_dialects() {
    let files = hlo_files();
    let opt = files
        .iter()
        .filter(|p| p.to_string_lossy().ends_with(".opt.hlo"))
        .count();
    assert!(files.len() >= 48, "only {} .hlo files", files.len());
    assert_eq!(opt * 2, files.len(), "every case has .hlo and .opt.hlo");
}

#[test]
fn every_file_parses_verifies_and_is_a_fixed_point() {
    for path in hlo_files() {
        let (name, m) = parse_file(&path);
        verify_module(&m).unwrap_or_else(|e| panic!("{name}: {e}"));
        let p1 = print_module(&m);
        let m2 = parse_module(&p1, &format!("{name} (printed)"))
            .unwrap_or_else(|e| panic!("printed {name} does not parse: {e}"));
        verify_module(&m2).unwrap_or_else(|e| panic!("printed {name}: {e}"));
        assert_eq!(print_module(&m2), p1, "{name}: print is not a fixed point");
        // Debug text compares NaN constants as equal, unlike PartialEq.
        assert_eq!(
            format!("{m:?}"),
            format!("{m2:?}"),
            "{name}: structure changed"
        );
        assert_eq!(m.instruction_count(), m2.instruction_count());
    }
}

#[test]
fn printed_forms_match_snapshots() {
    for path in hlo_files() {
        let (name, m) = parse_file(&path);
        let snap = name.trim_end_matches(".hlo").replace('.', "_");
        insta::assert_snapshot!(snap, print_module(&m));
    }
}

#[test]
fn opt_files_keep_debug_tables_and_verbatim_attrs() {
    let (_, m) = parse_file(&corpus_dir().join("mlp.opt.hlo"));
    assert!(
        m.debug_tables
            .starts_with("FileNames\n1 \"hlo_corpus/gen_corpus.py\"")
    );
    assert!(
        m.debug_tables
            .trim_end()
            .ends_with("7 {file_location_id=7 parent_frame_id=3}")
    );
    assert_eq!(m.attr("is_scheduled"), Some("true"));
    let entry = m.entry_computation();
    assert_eq!(entry.name, "main.2");
    assert_eq!(entry.parameters().len(), 7);
    let fusion = entry.get(entry.find("ynn_fusion.2").unwrap());
    assert_eq!(
        fusion.attr("backend_config"),
        Some("{\"outer_dimension_partitions\":[],\"fusion_config\":{\"kind\":\"__ynn_fusion\"}}")
    );
    assert_eq!(
        fusion.attr("metadata"),
        Some("{op_name=\"jit(f)/dot_general\" stack_frame_id=3}")
    );
    let printed = print_module(&m);
    assert!(printed.contains("\n\nFileNames\n1 \"hlo_corpus/gen_corpus.py\"\n\nFunctionNames\n"));
    assert!(printed.contains("  ynn_fusion.2 = f32[4,16]{1,0} fusion(x.1, w1.1), kind=kCustom, calls=fused_computation.2, metadata={op_name=\"jit(f)/dot_general\" stack_frame_id=3}, backend_config={"));
}
