//! The pass manager and its instrumentations: verify-each with
//! reproducers, pass failures, fuel, disabled passes, fixpoint caps, IR
//! printing headers and diffs, timing, statistics and dump directories.

use crate::common;
use common::parse;
use rxla_ir::Module;
use rxla_passes::instrument::{
    DumpDir, PrintIr, PrintIrOptions, Scope, Selection, Sink, Stats, Timing, timing::TIMING_HEADER,
};
use rxla_passes::{Pass, PassContext, PassError, PassManager, Registry};

use rxla_testkit::PIPELINE_SAMPLE as M;

fn registry_with_tests() -> Registry {
    let mut r = Registry::standard();
    rxla_passes::testing::register_test_passes(&mut r);
    r
}

fn manager(text: &str) -> PassManager {
    PassManager::from_text(text, &registry_with_tests()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn broken_pass_is_reported_with_the_ir_before_it() {
    let input = parse(M);
    let mut m = input.clone();
    let mut pm = manager("inline,test-break-names,dce");
    let e = pm.run(&mut m).expect_err("the verifier must catch it");
    let PassError::Verify {
        pass,
        spec,
        message,
        before,
    } = e
    else {
        panic!("wrong error: {e}");
    };
    assert_eq!(pass, "test-break-names");
    assert_eq!(spec, "test-break-names");
    assert!(message.to_lowercase().contains("name"), "{message}");
    // The reproducer is the module after inline, before the broken pass.
    let mut after_inline = input.clone();
    manager("inline").run(&mut after_inline).unwrap();
    assert_eq!(*before, after_inline);
    // ... and rerunning only that pass on it reproduces the failure.
    let reparsed = rxla_ir::parse_module(&rxla_ir::print_module(&before), "r.hlo").unwrap();
    let mut again = reparsed;
    assert!(matches!(
        manager("test-break-names").run(&mut again),
        Err(PassError::Verify { .. })
    ));
    // Without verification the broken module goes through.
    let mut m = input.clone();
    manager("test-break-names")
        .set_verify(false)
        .run(&mut m)
        .unwrap();
}

#[test]
fn failing_pass_is_named() {
    let mut m = parse(M);
    let e = manager("dce,test-fail").run(&mut m).unwrap_err();
    assert_eq!(e.to_string(), "pass `test-fail` failed: deliberate failure");
}

#[test]
fn unknown_pass_lists_known_ones_with_column() {
    let e = PassManager::from_text("inline, csee", &Registry::standard())
        .err()
        .unwrap();
    let PassError::Pipeline(p) = e else {
        panic!("{e}")
    };
    assert_eq!(p.col, 9);
    assert!(
        p.message.starts_with("unknown pass `csee` (known passes: "),
        "{}",
        p.message
    );
    for name in Registry::standard().names() {
        assert!(p.message.contains(name), "{} lacks {name}", p.message);
    }
    assert!(
        p.message.ends_with("; groups: fixpoint(...))"),
        "{}",
        p.message
    );
}

fn count(m: &Module) -> usize {
    m.instruction_count()
}

#[test]
fn fuel_limits_rewrites_and_skips_the_rest() {
    // Unlimited: cse merges y, inline inlines the call, dce removes dead.
    let mut full = parse(M);
    let s = manager("cse,inline,dce").run(&mut full).unwrap();
    assert_eq!(s.fuel_used, 0);
    // Fuel 0: nothing happens.
    let mut m = parse(M);
    let s = manager("cse,inline,dce")
        .set_fuel(Some(0))
        .run(&mut m)
        .unwrap();
    assert!(!s.changed);
    assert_eq!(m, parse(M));
    assert_eq!(
        s.first_denied.as_deref(),
        Some("cse: replace y by x in main")
    );
    // Fuel 1: only the cse merge.
    let mut m = parse(M);
    let s = manager("cse,inline,dce")
        .set_fuel(Some(1))
        .run(&mut m)
        .unwrap();
    assert_eq!(s.fuel_used, 1);
    assert_eq!(
        s.last_applied.as_deref(),
        Some("cse: replace y by x in main")
    );
    assert_eq!(s.first_denied.as_deref(), Some("inline: r in main"));
    assert_eq!(count(&m), count(&parse(M)) - 1);
    // Enough fuel: same result as unlimited.
    let mut m = parse(M);
    let s = manager("cse,inline,dce")
        .set_fuel(Some(1000))
        .run(&mut m)
        .unwrap();
    assert_eq!(m, full);
    assert!(s.first_denied.is_none());
    // Each extra unit applies exactly one more rewrite: every budget from
    // 0 to the total gives a different module.
    let mut distinct = std::collections::BTreeSet::new();
    for fuel in 0..=s.fuel_used {
        let mut m = parse(M);
        manager("cse,inline,dce")
            .set_fuel(Some(fuel))
            .run(&mut m)
            .unwrap();
        distinct.insert(rxla_ir::print_module(&m));
    }
    assert_eq!(distinct.len() as u64, s.fuel_used + 1);
}

#[test]
fn passes_that_do_not_honour_fuel_cost_one_unit_per_run() {
    let mut r = registry_with_tests();
    r.register(|| Box::new(AlwaysChanges));
    let build = || PassManager::from_text("always-changes,always-changes,dce", &r).unwrap();
    let (sink, buf) = Sink::buffer();
    let mut m = parse(M);
    let s = build()
        .set_fuel(Some(1))
        .add_instrumentation(Box::new(Timing::new(sink)))
        .run(&mut m)
        .unwrap();
    assert_eq!(s.fuel_used, 1);
    // The second run is skipped; dce (which honours fuel) still runs to
    // name the first refused rewrite, applying nothing.
    assert_eq!(s.pass_runs, 2);
    assert_eq!(
        s.last_applied.as_deref(),
        Some("run of pass always-changes")
    );
    assert_eq!(s.first_denied.as_deref(), Some("dce: remove dead in main"));
    assert!(m.entry_computation().find("dead").is_some());
    let t = buf.borrow();
    let skipped: Vec<&str> = t
        .lines()
        .filter(|l| l.ends_with("skipped (out of fuel)"))
        .collect();
    assert_eq!(skipped.len(), 1, "{t}");
    assert!(skipped[0].contains("always-changes"), "{t}");
}

#[test]
fn dce_fuel_keeps_callees_of_kept_computations() {
    // Two unreachable computations, `outer` calling `inner`: with one unit
    // of fuel, `outer` (decided first) is removed; with zero both stay.
    let text = r#"HloModule m
inner {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}
outer {
  q = f32[] parameter(0)
  ROOT c = f32[] call(q), to_apply=inner
}
ENTRY main {
  ROOT a = f32[] parameter(0)
}
"#;
    let names = |fuel: u64| {
        let mut m = parse(text);
        let s = manager("dce").set_fuel(Some(fuel)).run(&mut m).unwrap();
        let names: Vec<String> = m.computations.iter().map(|c| c.name.clone()).collect();
        (names, s.fuel_used)
    };
    assert_eq!(
        names(0),
        (vec!["inner".into(), "outer".into(), "main".into()], 0)
    );
    assert_eq!(names(1), (vec!["inner".into(), "main".into()], 1));
    assert_eq!(names(2), (vec!["main".into()], 2));
}

#[test]
fn disabled_passes_are_skipped_and_reported() {
    let mut m = parse(M);
    let (sink, buf) = Sink::buffer();
    let s = manager("cse,dce")
        .disable(&["cse"])
        .add_instrumentation(Box::new(Timing::new(sink)))
        .run(&mut m)
        .unwrap();
    assert_eq!(s.pass_runs, 1);
    assert!(
        m.entry_computation().find("y").is_some(),
        "cse must not run"
    );
    let out = buf.borrow();
    assert!(out.contains(TIMING_HEADER), "{out}");
    let cse_row = out.lines().find(|l| l.contains(" cse ")).unwrap();
    assert!(cse_row.ends_with("disabled"), "{cse_row}");
}

/// Always reports a change (to test the fixpoint cap).
struct AlwaysChanges;
impl Pass for AlwaysChanges {
    fn name(&self) -> &'static str {
        "always-changes"
    }
    fn description(&self) -> &'static str {
        "test: claims a change every run"
    }
    fn run(&mut self, _m: &mut Module, ctx: &mut PassContext) -> rxla_passes::Result<bool> {
        ctx.stat("claims", 1);
        Ok(true)
    }
}

#[test]
fn fixpoint_stops_when_nothing_changes_and_at_its_cap() {
    let mut m = parse(M);
    let s = manager("fixpoint(inline,cse,dce)").run(&mut m).unwrap();
    // One iteration changes, the second changes nothing.
    assert_eq!(s.pass_runs, 6);
    assert_eq!(s.fixpoints_capped, 0);
    let mut r = registry_with_tests();
    r.register(|| Box::new(AlwaysChanges));
    let mut m = parse(M);
    let s = PassManager::from_text("fixpoint{max-iters=4}(always-changes)", &r)
        .unwrap()
        .run(&mut m)
        .unwrap();
    assert_eq!(s.pass_runs, 4);
    assert_eq!(s.fixpoints_capped, 1);
}

fn print_run(pipeline: &str, options: PrintIrOptions) -> String {
    let mut m = parse(M);
    let (sink, buf) = Sink::buffer();
    manager(pipeline)
        .add_instrumentation(Box::new(PrintIr::new(options, sink)))
        .run(&mut m)
        .unwrap();
    buf.borrow().clone()
}

fn headers(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.starts_with("// -----")).collect()
}

#[test]
fn print_ir_headers() {
    let all = PrintIrOptions {
        before: Selection::All,
        after: Selection::All,
        ..Default::default()
    };
    let out = print_run("cse,cse", all);
    insta::assert_snapshot!("print_ir_all_headers", headers(&out).join("\n"));
    let out = print_run(
        "cse,cse,dce",
        PrintIrOptions {
            after_change: true,
            ..Default::default()
        },
    );
    assert_eq!(
        headers(&out),
        vec![
            "// ----- IR after cse (changed) -----",
            "// ----- IR after dce (changed) -----"
        ]
    );
    let out = print_run(
        "cse,inline,dce",
        PrintIrOptions {
            before: Selection::passes(&["inline"]),
            after: Selection::passes(&["dce"]),
            ..Default::default()
        },
    );
    assert_eq!(
        headers(&out),
        vec![
            "// ----- IR before inline -----",
            "// ----- IR after dce (changed) -----"
        ]
    );
    assert!(out.contains("HloModule m"), "{out}");
}

#[test]
fn print_ir_diff_and_entry_scope() {
    let out = print_run(
        "cse,cse",
        PrintIrOptions {
            diff: true,
            scope: Scope::Entry,
            ..Default::default()
        },
    );
    insta::assert_snapshot!("print_ir_diff_entry", out);
    assert!(
        !out.contains("relu {"),
        "scope=entry must hide other computations"
    );
}

#[test]
fn timing_and_stats_reports() {
    let mut m = parse(M);
    let (s1, timing) = Sink::buffer();
    let (s2, stats) = Sink::buffer();
    manager("inline,cse,dce,dce")
        .add_instrumentation(Box::new(Timing::new(s1)))
        .add_instrumentation(Box::new(Stats::new(s2)))
        .run(&mut m)
        .unwrap();
    let t = timing.borrow();
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines[0], "// ----- timing -----");
    assert_eq!(lines[1], TIMING_HEADER);
    assert_eq!(lines.len(), 2 + 4 + 1, "{t}");
    assert!(
        lines[2].contains("inline") && lines[2].ends_with("yes"),
        "{t}"
    );
    assert!(lines[2].contains("11 -> 13"), "{t}");
    assert!(lines[5].contains("dce") && lines[5].ends_with("no"), "{t}");
    assert!(lines[6].trim_start().starts_with("total") && lines[6].contains("4 pass runs"));
    insta::assert_snapshot!("stats", stats.borrow().clone());
}

#[test]
fn dump_dir_writes_numbered_stages_and_index() {
    let dir = std::env::temp_dir().join(format!("rxla-passes-dump-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut m = parse(M);
    manager("inline,cse,dce")
        .add_instrumentation(Box::new(DumpDir::new(&dir, true)))
        .run(&mut m)
        .unwrap();
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        vec![
            "0000.input.dot",
            "0000.input.hlo",
            "0001.after_inline.dot",
            "0001.after_inline.hlo",
            "0002.after_cse.dot",
            "0002.after_cse.hlo",
            "0003.after_dce.dot",
            "0003.after_dce.hlo",
            "index.txt"
        ]
    );
    let index = std::fs::read_to_string(dir.join("index.txt")).unwrap();
    assert_eq!(
        index,
        "0000 input - 11\n0001 inline changed 13\n0002 cse changed 12\n0003 dce changed 7\n"
    );
    let last = std::fs::read_to_string(dir.join("0003.after_dce.hlo")).unwrap();
    assert_eq!(last, rxla_ir::print_module(&m));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn default_registry_is_the_standard_one() {
    let std_names = Registry::standard().names();
    assert!(std_names.contains(&"cse") && std_names.contains(&"fusion"));
    assert_eq!(Registry::default().names(), std_names);
    assert!(Registry::new().names().is_empty());
}
