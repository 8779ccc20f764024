//! `buffer-assignment`: reuse over a memory-reducing schedule, in-place
//! updates, parameter protection and donation, and a lifetime-overlap
//! check over the whole corpus.

use crate::common;
use rxla_passes::buffer_assignment::{
    BufferKind, BufferOptions, ComputationBuffers, assign_buffers, summary,
};
use rxla_passes::{Pass, PassContext, PassManager, Registry};

/// A chain of `stages` elementwise ops on f32[n].
fn chain(n: usize, stages: usize) -> String {
    let mut s = format!("HloModule chain\nENTRY e {{\n  v0 = f32[{n}]{{0}} parameter(0)\n");
    for k in 1..=stages {
        let op = ["negate", "exponential", "abs", "sqrt", "tanh"][k % 5];
        let root = if k == stages { "ROOT " } else { "" };
        s.push_str(&format!("  {root}v{k} = f32[{n}]{{0}} {op}(v{})\n", k - 1));
    }
    s.push_str("}\n");
    s
}

/// No two values share a buffer while both are live, except an in-place
/// pair (one dies where the other is defined).
fn check_no_overlap(c: &rxla_ir::Computation, a: &ComputationBuffers) {
    let values = rxla_passes::buffer_assignment::values::analyze(c, &a.schedule).unwrap();
    for (i, x) in values.values.iter().enumerate() {
        for y in values.values.iter().skip(i + 1) {
            let bx = a.slots[x.instr.index()][x.leaf].buffer;
            let by = a.slots[y.instr.index()][y.leaf].buffer;
            if bx != by {
                continue;
            }
            let (first, second) = if x.def <= y.def { (x, y) } else { (y, x) };
            assert!(
                !first.live_out && first.last_use <= second.def,
                "{}: values of {} and {} share buffer {bx} while both live",
                c.name,
                c.get(first.instr).name,
                c.get(second.instr).name
            );
        }
    }
}

#[test]
fn ten_stage_chain_needs_at_most_three_buffers() {
    let n = 1 << 20;
    let m = common::parse(&chain(n, 10));
    let bytes = 4 * n;
    // Without in-place updates: the parameter and two ping-pong buffers.
    let opts = BufferOptions {
        in_place: false,
        ..BufferOptions::default()
    };
    let a = assign_buffers(&m, &opts).unwrap();
    let e = a.entry();
    assert_eq!(e.buffers.len(), 3, "{e:?}");
    assert_eq!(e.peak_bytes, 3 * bytes);
    assert_eq!(e.temp_bytes, 2 * bytes);
    check_no_overlap(m.entry_computation(), e);
    // With in-place updates (the default): one temporary.
    let a = assign_buffers(&m, &BufferOptions::default()).unwrap();
    let e = a.entry();
    assert_eq!(e.buffers.len(), 2);
    assert_eq!(e.peak_bytes, 2 * bytes);
    assert_eq!(e.in_place, 9);
    check_no_overlap(m.entry_computation(), e);
    // The parameter is never written unless donated...
    assert_eq!(e.slots[0][0].buffer, 0);
    assert!(e.slots[1..].iter().all(|s| s[0].buffer != 0));
    // ...and with donation everything runs in the argument's buffer.
    let donated = BufferOptions {
        donate_parameters: true,
        ..BufferOptions::default()
    };
    let a = assign_buffers(&m, &donated).unwrap();
    let e = a.entry();
    assert_eq!(e.buffers.len(), 1);
    assert_eq!(e.buffers[0].kind, BufferKind::Parameter(0));
    assert_eq!(e.peak_bytes, bytes);
    assert_eq!(e.temp_bytes, 0);
    assert!(
        summary(&a).contains("peak 4194304 bytes"),
        "{}",
        summary(&a)
    );
}

#[test]
fn dynamic_update_slice_updates_in_place() {
    let text = "HloModule d\nENTRY e {\n  p = f32[1024]{0} parameter(0)\n  a = f32[1024]{0} negate(p)\n  u = f32[4]{0} constant({1, 2, 3, 4})\n  i = s32[] constant(8)\n  ROOT d = f32[1024]{0} dynamic-update-slice(a, u, i)\n}\n";
    let m = common::parse(text);
    let a = assign_buffers(&m, &BufferOptions::default()).unwrap();
    let e = a.entry();
    let id = |name: &str| m.entry_computation().find(name).unwrap().index();
    assert_eq!(e.slots[id("d")][0].buffer, e.slots[id("a")][0].buffer);
    assert_eq!(e.in_place, 1);
    // It may not overwrite a value that is still read later.
    let text = "HloModule d\nENTRY e {\n  p = f32[1024]{0} parameter(0)\n  a = f32[1024]{0} negate(p)\n  u = f32[4]{0} constant({1, 2, 3, 4})\n  i = s32[] constant(8)\n  d = f32[1024]{0} dynamic-update-slice(a, u, i)\n  ROOT s = f32[1024]{0} add(d, a)\n}\n";
    let m = common::parse(text);
    let a = assign_buffers(&m, &BufferOptions::default()).unwrap();
    let e = a.entry();
    let id = |name: &str| m.entry_computation().find(name).unwrap().index();
    assert_ne!(e.slots[id("d")][0].buffer, e.slots[id("a")][0].buffer);
    check_no_overlap(m.entry_computation(), e);
}

#[test]
fn tuple_results_stay_live_to_the_end() {
    let text = "HloModule t\nENTRY e {\n  p = f32[256]{0} parameter(0)\n  a = f32[256]{0} negate(p)\n  b = f32[256]{0} exponential(p)\n  c = f32[256]{0} abs(b)\n  ROOT t = (f32[256]{0}, f32[256]{0}) tuple(a, c)\n}\n";
    let m = common::parse(text);
    let a = assign_buffers(&m, &BufferOptions::default()).unwrap();
    let e = a.entry();
    let id = |name: &str| m.entry_computation().find(name).unwrap().index();
    assert_ne!(e.slots[id("a")][0].buffer, e.slots[id("c")][0].buffer);
    assert_eq!(e.slots[id("t")][0], e.slots[id("a")][0]);
    assert_eq!(e.slots[id("t")][1], e.slots[id("c")][0]);
    check_no_overlap(m.entry_computation(), e);
}

#[test]
fn schedule_runs_consumers_early_to_free_memory() {
    // In input order the two big temporaries are both live at once; the
    // scheduler reduces each before producing the next.
    let text = "HloModule s\nadd {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\nENTRY e {\n  p = f32[4096]{0} parameter(0)\n  z = f32[] constant(0)\n  a = f32[4096]{0} exponential(p)\n  b = f32[4096]{0} tanh(p)\n  ra = f32[] reduce(a, z), dimensions={0}, to_apply=add\n  rb = f32[] reduce(b, z), dimensions={0}, to_apply=add\n  ROOT t = (f32[], f32[]) tuple(ra, rb)\n}\n";
    let m = common::parse(text);
    let a = assign_buffers(&m, &BufferOptions::default()).unwrap();
    let e = a.entry();
    let c = m.entry_computation();
    let names: Vec<&str> = e.schedule.iter().map(|&i| c.get(i).name.as_str()).collect();
    let pos = |n: &str| names.iter().position(|x| *x == n).unwrap();
    assert!(pos("ra") < pos("b"), "{names:?}");
    // One 16 KiB temporary serves both a and b.
    assert_eq!(e.temp_bytes, 4096 * 4 + 64 * 2);
    assert_eq!(e.peak_bytes, 2 * 4096 * 4 + 4 + 4 + 4);
    check_no_overlap(c, e);
}

#[test]
fn pass_reports_stats_and_changes_nothing() {
    let text = chain(1000, 10);
    let mut m = common::parse(&text);
    let mut pass = rxla_passes::buffer_assignment::BufferAssignmentPass::default();
    pass.set_option("in-place", "false").unwrap();
    let mut ctx = PassContext::new();
    assert!(!pass.run(&mut m, &mut ctx).unwrap());
    assert_eq!(
        rxla_ir::print_module(&m),
        rxla_ir::print_module(&common::parse(&text))
    );
    let stats = ctx.take_stats();
    assert!(
        stats.contains(&("entry peak bytes".to_string(), 12000)),
        "{stats:?}"
    );
    assert!(
        stats.contains(&("entry buffers".to_string(), 3)),
        "{stats:?}"
    );
    assert!(pass.set_option("donate", "maybe").is_err());
    let s = PassManager::from_text("buffer-assignment{donate=true}", &Registry::standard())
        .unwrap()
        .run(&mut m)
        .unwrap();
    assert!(!s.changed);
    assert!(
        PassManager::from_text("buffer-assignment{donate=maybe}", &Registry::standard()).is_err()
    );
}

#[test]
fn corpus_assignments_never_overlap() {
    let dir = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus"));
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "hlo") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut m = rxla_ir::parse_module(&text, "c.hlo").unwrap();
        for pipeline in ["dce", "layout-assignment"] {
            PassManager::from_text(pipeline, &Registry::standard())
                .unwrap()
                .run(&mut m)
                .unwrap();
            for donate in [false, true] {
                let opts = BufferOptions {
                    donate_parameters: donate,
                    ..BufferOptions::default()
                };
                let a = assign_buffers(&m, &opts).unwrap();
                for (c, ca) in m.computations.iter().zip(&a.computations) {
                    check_no_overlap(c, ca);
                    assert!(ca.peak_bytes <= ca.total_bytes, "{}", path.display());
                }
                n += 1;
            }
        }
    }
    assert!(n >= 40);
}

#[test]
fn packed_narrow_layouts_take_packed_bytes() {
    // s4[1001]{0:E(4)} is 501 bytes (two per byte, XLA's size); without
    // E(4) one byte per element; u2 E(2) four per byte.
    let m = common::parse(
        "HloModule p\nENTRY e {\n  x = s4[1001]{0:E(4)} parameter(0)\n  \
         n = s4[1001]{0:E(4)} negate(x)\n  w = s4[1001]{0} convert(n)\n  \
         u = u2[7]{0:E(2)} parameter(1)\n  a = u2[7]{0:E(2)} add(u, u)\n  \
         ROOT t = (s4[1001]{0}, u2[7]{0:E(2)}) tuple(w, a)\n}\n",
    );
    let opts = BufferOptions {
        in_place: false,
        ..BufferOptions::default()
    };
    let a = assign_buffers(&m, &opts).unwrap();
    let mut sizes: Vec<usize> = a.entry().buffers.iter().map(|b| b.size).collect();
    sizes.sort();
    assert!(sizes.contains(&501), "{sizes:?}");
    assert!(sizes.contains(&1001), "{sizes:?}");
    assert!(sizes.contains(&2), "{sizes:?}");
    assert!(
        sizes.iter().all(|&s| s == 501 || s == 1001 || s == 2),
        "{sizes:?}"
    );
}
