//! Collectives across replicas and partitions. Every op and group form on
//! small device grids, with values computed by hand, is a filetest in
//! `tests/filetests/collectives/` (`// devices: RxP`, run by the
//! multi-device evaluator and the JIT's `run_replicated`), and the static
//! shape errors are in `tests/filetests/errors/collective_*.hlo`, the
//! run-time errors (ids out of range, wrong device grids) in
//! `tests/filetests/run_errors/collective_*.hlo`. Here: what the JIT's
//! statistics say about the 1×1 case, device counts given through the API,
//! the JAX shard_map cases and the builder calls.

use rxla_eval::{RunOptions, evaluate, evaluate_replicated};
use rxla_ir::{Literal, Module, parse_module, print_module};

fn parse(text: &str) -> Module {
    parse_module(text, "t.hlo").unwrap_or_else(|e| panic!("{e}"))
}

fn opts(r: usize, p: usize) -> RunOptions {
    RunOptions {
        replica_count: Some(r),
        partition_count: Some(p),
        ..RunOptions::default()
    }
}

/// f32 leaves of a result, flattened in order.
fn f32s(l: &Literal) -> Vec<f32> {
    l.leaves()
        .iter()
        .flat_map(|a| a.as_slice::<f32>().map(|s| s.to_vec()).unwrap_or_default())
        .collect()
}

fn per_device(n: usize, f: impl Fn(usize) -> Vec<f32>) -> Vec<Vec<Literal>> {
    (0..n).map(|d| vec![Literal::vec1(f(d))]).collect()
}

/// The single-device filetest (`tests/filetests/collectives/single_device.hlo`
/// checks its values on both backends and that O2 keeps every collective).
const SINGLE_DEVICE: &str = include_str!("filetests/collectives/single_device.hlo");

#[test]
fn single_device_collectives_run_on_the_evaluator_in_the_jit() {
    let m = parse(SINGLE_DEVICE);
    let exe = rxla_jit::compile(&m, &rxla_jit::CompileOptions::default()).unwrap();
    let args = [Literal::vec1(vec![1.5f32, -2.0])];
    let ev = evaluate(&m, &args, &RunOptions::default()).unwrap();
    assert_eq!(exe.run(&args).unwrap().to_text(), ev.to_text());
    assert!(
        exe.stats().collectives.starts_with("evaluator"),
        "{}",
        exe.stats().collectives
    );
}

/// A 2×2 module: run with the wrong device counts (its filetest
/// `tests/filetests/run_errors/collective_wrong_device_grid.hlo` runs it on
/// a 4×1 grid).
const GRID_2X2: &str = include_str!("filetests/run_errors/collective_wrong_device_grid.hlo");

#[test]
fn device_counts_must_match_the_module() {
    let e = evaluate_replicated(
        &parse(GRID_2X2),
        &per_device(3, |_| vec![0.]),
        &RunOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("3 argument list"), "{e}");
    let e = evaluate(
        &parse(GRID_2X2),
        &[Literal::vec1(vec![0f32])],
        &RunOptions {
            replica_count: Some(1),
            ..RunOptions::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("2 partitions"), "{e}");
}

/// The shard_map cases of `corpus_jax/collectives` (XLA:CPU's per-device
/// programs after SPMD partitioning, 4 partitions): every device's
/// outputs equal XLA's, on the evaluator and the JIT.
#[test]
fn jax_shard_map_cases_match_xla() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus_jax/collectives");
    let mut n = 0;
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "hlo"))
        .collect();
    names.sort();
    for hlo in names {
        let name = hlo.display().to_string();
        let text = std::fs::read_to_string(&hlo).unwrap();
        let m = parse_module(&text, &name).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.num_partitions(), 4, "{name}");
        let case =
            rxla_eval::json::read_json(hlo.with_extension("json").to_str().unwrap()).unwrap();
        let devices = case["devices"].as_u64().unwrap() as usize;
        let lits = |key: &str| -> Vec<Vec<Literal>> {
            (0..devices)
                .map(|d| {
                    case[key][d]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|v| rxla_eval::json::literal_from_json(v).unwrap())
                        .collect()
                })
                .collect()
        };
        let args = lits("inputs");
        let want = lits("outputs");
        let ev =
            evaluate_replicated(&m, &args, &opts(1, 4)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let exe = rxla_jit::compile(&m, &rxla_jit::CompileOptions::default()).unwrap();
        let jt = exe
            .run_replicated(&args, &opts(1, 4))
            .unwrap_or_else(|e| panic!("{name}: jit: {e}"));
        for d in 0..devices {
            let flat = |l: &Literal| -> Vec<f32> { f32s(l) };
            let w: Vec<f32> = want[d].iter().flat_map(f32s).collect();
            assert_eq!(flat(&ev[d]), w, "{name}: device {d} (evaluator)");
            assert_eq!(flat(&jt[d]), w, "{name}: device {d} (jit)");
        }
        n += 1;
    }
    assert!(n >= 2, "only {n} cases");
}

/// The builder calls make the same modules the text does.
#[test]
fn builder_calls() {
    use rxla_ir::builder::ModuleBuilder;
    use rxla_ir::{BinaryOp, CollectiveAttrs, ElementType, IotaGroups, ReplicaGroups, Shape};
    let mut mb = ModuleBuilder::new("b");
    let mut b = mb.computation("main");
    let f32_2 = Shape::array(ElementType::F32, vec![2]).unwrap();
    let x = b.parameter(0, f32_2, "x").unwrap();
    let add = b
        .scalar_binary_computation(BinaryOp::Add, ElementType::F32)
        .unwrap();
    let pairs = CollectiveAttrs::groups(vec![vec![0, 1]]);
    let iota = CollectiveAttrs {
        replica_groups: ReplicaGroups::Iota(IotaGroups {
            num_groups: 1,
            group_size: 2,
            reshape_dims: vec![2],
            transpose: vec![],
        }),
        ..CollectiveAttrs::default()
    };
    let ars = b.all_reduce_start(&[x], add, pairs.clone()).unwrap();
    let ar = b.all_reduce_done(ars).unwrap();
    let ag = b.all_gather(&[ar], 0, iota.clone(), None).unwrap();
    assert!(
        b.all_gather(&[ar], 0, CollectiveAttrs::default(), None)
            .is_err()
    );
    let rs = b
        .reduce_scatter(&[ag], 0, add, pairs.clone(), None)
        .unwrap();
    let a2a = b.all_to_all(&[rs], Some(0), pairs.clone()).unwrap();
    let cb = b.collective_broadcast(&[a2a], pairs.clone()).unwrap();
    let cps = b
        .collective_permute_start(cb, vec![(0, 1), (1, 0)], None)
        .unwrap();
    let cp = b.collective_permute_done(cps).unwrap();
    let ags = b.all_gather_start(&[cp], 0, iota, None).unwrap();
    let agd = b.all_gather_done(ags).unwrap();
    let r = b.replica_id().unwrap();
    let p = b.partition_id().unwrap();
    let t = b.tuple(&[agd, r, p]).unwrap();
    let main = b.build(t).unwrap();
    let m = mb.build_entry(main).unwrap();
    let text = print_module(&m);
    // x_d = [d+1, 10(d+1)]: all-reduce [3, 30]; all-gather [3,30,3,30];
    // reduce-scatter: device k keeps block k of 2·[3,30,3,30] = [6,60] /
    // [6,60]; all-to-all of [6,60] blocks: device 0 [6,6], device 1
    // [60,60]; broadcast of member 0: [6,6]; permute swaps: [6,6];
    // all-gather [6,6,6,6].
    let args = per_device(2, |d| vec![(d + 1) as f32, 10.0 * (d + 1) as f32]);
    let ev = evaluate_replicated(&parse(&text), &args, &opts(2, 1)).unwrap();
    assert_eq!(f32s(&ev[0]), [6., 6., 6., 6.], "{text}");
    assert_eq!(ev[1].to_text(), "({6, 6, 6, 6}, 1, 0)");
}
