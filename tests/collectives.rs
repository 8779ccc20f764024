//! Collectives across replicas and partitions: every op and group form on
//! small device grids, values computed by hand, run by the multi-device
//! evaluator (`rxla_eval::evaluate_replicated`) and by the JIT's
//! `Executable::run_replicated` (which must agree); single-device (1×1)
//! semantics through `evaluate` and `Executable::run`; and the errors
//! (groups that do not divide, ids out of range, wrong device counts).

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

/// Runs `text` on an r×p grid with `args[d]` per device, by the evaluator
/// and by the JIT, checks they agree, and returns the per-device f32s.
fn run(text: &str, r: usize, p: usize, args: Vec<Vec<Literal>>) -> Vec<Vec<f32>> {
    let m = parse(text);
    // Text round trip of every collective attribute.
    let printed = print_module(&m);
    assert_eq!(print_module(&parse(&printed)), printed);
    let ev = evaluate_replicated(&m, &args, &opts(r, p)).unwrap_or_else(|e| panic!("{e}"));
    let exe = rxla_jit::compile(&m, &rxla_jit::CompileOptions::default()).unwrap();
    let jt = exe
        .run_replicated(&args, &opts(r, p))
        .unwrap_or_else(|e| panic!("jit: {e}"));
    let ev: Vec<Vec<f32>> = ev.iter().map(f32s).collect();
    let jt: Vec<Vec<f32>> = jt.iter().map(f32s).collect();
    assert_eq!(ev, jt, "evaluator and JIT disagree");
    ev
}

fn per_device(n: usize, f: impl Fn(usize) -> Vec<f32>) -> Vec<Vec<Literal>> {
    (0..n).map(|d| vec![Literal::vec1(f(d))]).collect()
}

const ADD: &str =
    "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n";

#[test]
fn all_gather_list_and_iota_groups() {
    let t = |groups: &str| {
        format!(
            "HloModule m, replica_count=4\nENTRY e {{\n  x = f32[2] parameter(0)\n  ROOT ag = f32[4] all-gather(x), replica_groups={groups}, dimensions={{0}}\n}}\n"
        )
    };
    let args = per_device(4, |d| vec![d as f32, 10.0 + d as f32]);
    let out = run(&t("{{0,1},{2,3}}"), 4, 1, args.clone());
    assert_eq!(out[0], [0., 10., 1., 11.]);
    assert_eq!(out[1], [0., 10., 1., 11.]);
    assert_eq!(out[2], [2., 12., 3., 13.]);
    // [2,2]<=[4] is {{0,1},{2,3}}.
    assert_eq!(run(&t("[2,2]<=[4]"), 4, 1, args.clone()), out);
    // [2,2]<=[2,2]T(1,0) is {{0,2},{1,3}}.
    let tr = run(&t("[2,2]<=[2,2]T(1,0)"), 4, 1, args.clone());
    assert_eq!(tr[0], [0., 10., 2., 12.]);
    assert_eq!(tr[1], [1., 11., 3., 13.]);
    assert_eq!(tr[3], [1., 11., 3., 13.]);
    // Group order is concatenation order: {{1,0},...}.
    let rev = run(&t("{{1,0},{3,2}}"), 4, 1, args);
    assert_eq!(rev[0], [1., 11., 0., 10.]);
}

#[test]
fn all_gather_along_an_inner_dimension_and_async() {
    let text = "HloModule m\nENTRY e {\n  x = f32[2,1] parameter(0)\n  s = (f32[2,1], f32[2,2]) all-gather-start(x), replica_groups={{0,1}}, dimensions={1}\n  ROOT d = f32[2,2] all-gather-done(s)\n}\n";
    let args: Vec<Vec<Literal>> = (0..2)
        .map(|d| vec![Literal::from_vec(&[2, 1], vec![d as f32, 5.0 + d as f32]).unwrap()])
        .collect();
    let out = run(text, 2, 1, args);
    assert_eq!(out[0], [0., 1., 5., 6.]);
    assert_eq!(out[1], [0., 1., 5., 6.]);
}

#[test]
fn reduce_scatter_gives_each_member_its_block() {
    let text = format!(
        "HloModule m\n{ADD}ENTRY e {{\n  x = f32[4] parameter(0)\n  ROOT rs = f32[1] reduce-scatter(x), replica_groups={{}}, dimensions={{0}}, to_apply=add\n}}\n"
    );
    // x_d = (d+1)·[1,2,3,4]: the sum is 10·[1,2,3,4].
    let args = per_device(4, |d| (1..=4).map(|i| (i * (d + 1)) as f32).collect());
    let out = run(&text, 4, 1, args);
    assert_eq!(out, vec![vec![10.], vec![20.], vec![30.], vec![40.]]);
    // Groups of two, 2-D along dim 1.
    let text = format!(
        "HloModule m\n{ADD}ENTRY e {{\n  x = f32[1,4] parameter(0)\n  ROOT rs = f32[1,2] reduce-scatter(x), replica_groups={{{{0,1}},{{2,3}}}}, dimensions={{1}}, to_apply=add\n}}\n"
    );
    let args: Vec<Vec<Literal>> = (0..4)
        .map(|d| {
            let v: Vec<f32> = (0..4).map(|i| (d * 10 + i) as f32).collect();
            vec![Literal::from_vec(&[1, 4], v).unwrap()]
        })
        .collect();
    let out = run(&text, 4, 1, args);
    // Devices 0,1: [0,1,2,3] + [10,11,12,13] = [10,12,14,16].
    assert_eq!(out[0], [10., 12.]);
    assert_eq!(out[1], [14., 16.]);
    // Devices 2,3: [20..23] + [30..33] = [50,52,54,56].
    assert_eq!(out[2], [50., 52.]);
    assert_eq!(out[3], [54., 56.]);
}

#[test]
fn all_to_all_array_and_tuple_forms() {
    let text = "HloModule m\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT a = f32[4] all-to-all(x), replica_groups={{0,1}}, dimensions={0}\n}\n";
    let args = per_device(2, |d| (0..4).map(|i| (4 * d + i) as f32).collect());
    let out = run(text, 2, 1, args);
    assert_eq!(out[0], [0., 1., 4., 5.]);
    assert_eq!(out[1], [2., 3., 6., 7.]);
    let text = "HloModule m\nENTRY e {\n  a = f32[1] parameter(0)\n  b = f32[1] parameter(1)\n  ROOT t = (f32[1], f32[1]) all-to-all(a, b), replica_groups={{0,1}}\n}\n";
    let args: Vec<Vec<Literal>> = (0..2)
        .map(|d| {
            vec![
                Literal::vec1(vec![d as f32]),
                Literal::vec1(vec![10.0 + d as f32]),
            ]
        })
        .collect();
    let out = run(text, 2, 1, args);
    // Device 0 receives every member's operand 0, device 1 operand 1.
    assert_eq!(out[0], [0., 1.]);
    assert_eq!(out[1], [10., 11.]);
}

#[test]
fn collective_permute_sends_and_zero_fills() {
    let text = "HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  ROOT cp = f32[2] collective-permute(x), source_target_pairs={{0,1},{1,2}}\n}\n";
    let args = per_device(3, |d| vec![d as f32 + 1.0, -(d as f32) - 1.0]);
    let out = run(text, 3, 1, args.clone());
    assert_eq!(out[0], [0., 0.]);
    assert_eq!(out[1], [1., -1.]);
    assert_eq!(out[2], [2., -2.]);
    // Async pair: the start's tuple carries (operand, result, u32, u32).
    let text = "HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  s = (f32[2], f32[2], u32[], u32[]) collective-permute-start(x), source_target_pairs={{0,1},{1,2},{2,0}}\n  ROOT d = f32[2] collective-permute-done(s)\n}\n";
    let out = run(text, 3, 1, args);
    assert_eq!(out[0], [3., -3.]);
    assert_eq!(out[1], [1., -1.]);
}

#[test]
fn collective_permute_with_a_channel_is_cross_partition() {
    // 2 replicas × 2 partitions; a channel id makes the pairs partition ids.
    let text = "HloModule m, replica_count=2, num_partitions=2\nENTRY e {\n  x = f32[1] parameter(0)\n  ROOT cp = f32[1] collective-permute(x), channel_id=1, source_target_pairs={{0,1},{1,0}}\n}\n";
    let args = per_device(4, |d| vec![d as f32]);
    let out = run(text, 2, 2, args);
    assert_eq!(out, vec![vec![1.], vec![0.], vec![3.], vec![2.]]);
}

#[test]
fn collective_broadcast_takes_the_first_member() {
    let text = "HloModule m\nENTRY e {\n  x = f32[1] parameter(0)\n  ROOT b = f32[1] collective-broadcast(x), replica_groups={{1,0},{3,2}}\n}\n";
    let args = per_device(4, |d| vec![d as f32]);
    assert_eq!(
        run(text, 4, 1, args.clone()),
        vec![vec![1.], vec![1.], vec![3.], vec![3.]]
    );
    // With a channel: partitions {1,0} of each replica (cross-partition).
    let text = "HloModule m\nENTRY e {\n  x = f32[1] parameter(0)\n  ROOT b = f32[1] collective-broadcast(x), channel_id=2, replica_groups={{1,0}}\n}\n";
    assert_eq!(
        run(text, 2, 2, args),
        vec![vec![1.], vec![1.], vec![3.], vec![3.]]
    );
}

#[test]
fn replica_and_partition_ids() {
    let text = "HloModule m\nENTRY e {\n  r = u32[] replica-id()\n  p = u32[] partition-id()\n  rf = f32[] convert(r)\n  pf = f32[] convert(p)\n  ROOT t = (f32[], f32[]) tuple(rf, pf)\n}\n";
    let args: Vec<Vec<Literal>> = (0..6).map(|_| vec![]).collect();
    let out = run(text, 3, 2, args);
    assert_eq!(out[0], [0., 0.]);
    assert_eq!(out[1], [0., 1.]);
    assert_eq!(out[4], [2., 0.]);
    assert_eq!(out[5], [2., 1.]);
}

#[test]
fn all_reduce_group_modes_on_a_2x2_grid() {
    let t = |attrs: &str| {
        format!(
            "HloModule m\n{ADD}ENTRY e {{\n  x = f32[1] parameter(0)\n  ROOT ar = f32[1] all-reduce(x), {attrs}, to_apply=add\n}}\n"
        )
    };
    // x = device id + 1: 1, 2, 3, 4 for (r0,p0), (r0,p1), (r1,p0), (r1,p1).
    let args = per_device(4, |d| vec![d as f32 + 1.0]);
    // Cross-replica: the replicas of each partition: 1+3, 2+4.
    assert_eq!(
        run(&t("replica_groups={}"), 2, 2, args.clone()),
        vec![vec![4.], vec![6.], vec![4.], vec![6.]]
    );
    // Cross-replica-and-partition: replica groups, all partitions.
    assert_eq!(
        run(&t("channel_id=1, replica_groups={}"), 2, 2, args.clone()),
        vec![vec![10.]; 4]
    );
    assert_eq!(
        run(
            &t("channel_id=1, replica_groups={{0},{1}}"),
            2,
            2,
            args.clone()
        ),
        vec![vec![3.], vec![3.], vec![7.], vec![7.]]
    );
    // Flattened ids: global device ids.
    assert_eq!(
        run(
            &t("channel_id=1, replica_groups={{0,3},{1,2}}, use_global_device_ids=true"),
            2,
            2,
            args.clone()
        ),
        vec![vec![5.]; 4]
    );
    assert_eq!(
        run(
            &t("channel_id=1, replica_groups=[2,2]<=[2,2]T(1,0), use_global_device_ids=true"),
            2,
            2,
            args.clone()
        ),
        vec![vec![4.], vec![6.], vec![4.], vec![6.]]
    );
    // Async pair.
    let text = format!(
        "HloModule m\n{ADD}ENTRY e {{\n  x = f32[1] parameter(0)\n  s = f32[1] all-reduce-start(x), replica_groups={{{{0,1,2,3}}}}, to_apply=add\n  ROOT d = f32[1] all-reduce-done(s)\n}}\n"
    );
    assert_eq!(run(&text, 4, 1, args), vec![vec![10.]; 4]);
}

#[test]
fn all_gather_spanning_partitions() {
    // Channel, no use_global_device_ids: cross-replica-and-partition; the
    // group {0,1} of replicas spans both partitions, replica-major.
    let text = "HloModule m\nENTRY e {\n  x = f32[1] parameter(0)\n  ROOT ag = f32[4] all-gather(x), channel_id=3, replica_groups={{0,1}}, dimensions={0}\n}\n";
    let args = per_device(4, |d| vec![d as f32]);
    assert_eq!(run(text, 2, 2, args), vec![vec![0., 1., 2., 3.]; 4]);
}

#[test]
fn collectives_inside_a_loop() {
    // Three iterations, each all-reducing the carry over two replicas.
    let text = format!(
        "HloModule m\n{ADD}cond {{\n  s = (s32[], f32[1]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  n = s32[] constant(3)\n  ROOT lt = pred[] compare(i, n), direction=LT\n}}\nbody {{\n  s = (s32[], f32[1]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  v = f32[1] get-tuple-element(s), index=1\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n  w = f32[1] all-reduce(v), replica_groups={{}}, to_apply=add\n  ROOT t = (s32[], f32[1]) tuple(j, w)\n}}\nENTRY e {{\n  x = f32[1] parameter(0)\n  z = s32[] constant(0)\n  t = (s32[], f32[1]) tuple(z, x)\n  w = (s32[], f32[1]) while(t), condition=cond, body=body\n  ROOT r = f32[1] get-tuple-element(w), index=1\n}}\n"
    );
    let args = per_device(2, |d| vec![d as f32 + 1.0]);
    // 1+2 = 3, then 6, then 12.
    assert_eq!(run(&text, 2, 1, args), vec![vec![12.], vec![12.]]);
}

#[test]
fn single_device_semantics() {
    let text = format!(
        "HloModule m\n{ADD}ENTRY e {{\n  x = f32[2] parameter(0)\n  ar = f32[2] all-reduce(x), channel_id=1, replica_groups={{{{0}}}}, use_global_device_ids=true, to_apply=add\n  ag = f32[2] all-gather(ar), replica_groups={{}}, dimensions={{0}}\n  rs = f32[2] reduce-scatter(ag), replica_groups=[1,1]<=[1], dimensions={{0}}, to_apply=add\n  a2a = f32[2] all-to-all(rs), replica_groups={{{{0}}}}, dimensions={{0}}\n  cb = f32[2] collective-broadcast(a2a), replica_groups={{}}\n  cp = f32[2] collective-permute(cb), source_target_pairs={{{{0,0}}}}\n  z = f32[2] collective-permute(cp), source_target_pairs={{}}\n  r = u32[] replica-id()\n  p = u32[] partition-id()\n  ROOT t = (f32[2], f32[2], u32[], u32[]) tuple(cp, z, r, p)\n}}\n"
    );
    let m = parse(&text);
    let args = [Literal::vec1(vec![1.5f32, -2.0])];
    let ev = evaluate(&m, &args, &RunOptions::default()).unwrap();
    let exe = rxla_jit::compile(&m, &rxla_jit::CompileOptions::default()).unwrap();
    let jt = exe.run(&args).unwrap();
    assert_eq!(ev.to_text(), jt.to_text());
    assert!(ev.to_text().contains("1.5, -2"), "{}", ev.to_text());
    assert!(
        exe.stats().collectives.starts_with("evaluator"),
        "{}",
        exe.stats().collectives
    );
    // And through the optimizing pipeline: nothing folded away.
    let registry = rxla_passes::Registry::standard();
    let mut pm = rxla_passes::PassManager::named("O2", &registry).unwrap();
    let mut opt = m.clone();
    pm.run(&mut opt).unwrap_or_else(|e| panic!("O2: {e}"));
    let kept = rxla_ir::print_module(&opt);
    for op in [
        "all-reduce(",
        "all-gather(",
        "reduce-scatter(",
        "all-to-all(",
        "collective-broadcast(",
        "collective-permute(",
        "replica-id(",
        "partition-id(",
    ] {
        assert!(kept.contains(op), "O2 removed {op}: {kept}");
    }
    let ev2 = evaluate(&opt, &args, &RunOptions::default()).unwrap();
    assert_eq!(ev2.to_text(), ev.to_text());
}

fn err_of(text: &str, r: usize, p: usize, args: Vec<Vec<Literal>>) -> String {
    let m = parse(text);
    let e = evaluate_replicated(&m, &args, &opts(r, p))
        .expect_err("must fail")
        .to_string();
    let exe = rxla_jit::compile(&m, &rxla_jit::CompileOptions::default()).unwrap();
    let j = exe
        .run_replicated(&args, &opts(r, p))
        .expect_err("jit must fail")
        .to_string();
    assert!(j.contains(&e) || e.contains(&j) || !j.is_empty(), "{j}");
    e
}

#[test]
fn errors_name_the_instruction() {
    // Ids out of range.
    let text = "HloModule m\nENTRY e {\n  x = f32[1] parameter(0)\n  ROOT ag.5 = f32[2] all-gather(x), replica_groups={{0,4}}, dimensions={0}\n}\n";
    let e = err_of(text, 2, 1, per_device(2, |_| vec![0.]));
    assert!(e.contains("ag.5") && e.contains("replica 4"), "{e}");
    // A replica in no group.
    let text = "HloModule m\nENTRY e {\n  x = f32[1] parameter(0)\n  ROOT ag.6 = f32[2] all-gather(x), replica_groups={{0,1}}, dimensions={0}\n}\n";
    let e = err_of(text, 3, 1, per_device(3, |_| vec![0.]));
    assert!(
        e.contains("ag.6") && e.contains("replica 2 is in no replica group"),
        "{e}"
    );
    // The declared result does not match the real group size.
    let text = "HloModule m\nENTRY e {\n  x = f32[1] parameter(0)\n  ROOT ag.7 = f32[2] all-gather(x), replica_groups={}, dimensions={0}\n}\n";
    let e = err_of(text, 3, 1, per_device(3, |_| vec![0.]));
    assert!(e.contains("ag.7") && e.contains("group of 3"), "{e}");
    // Flattened ids past the device count.
    let text = format!(
        "HloModule m\n{ADD}ENTRY e {{\n  x = f32[1] parameter(0)\n  ROOT ar.8 = f32[1] all-reduce(x), channel_id=1, replica_groups={{{{0,1,2,3,4,5}}}}, use_global_device_ids=true, to_apply=add\n}}\n"
    );
    let e = err_of(&text, 2, 2, per_device(4, |_| vec![0.]));
    assert!(e.contains("ar.8") && e.contains("device 4"), "{e}");
    // Permute: a target twice.
    let text = "HloModule m\nENTRY e {\n  x = f32[1] parameter(0)\n  ROOT cp.9 = f32[1] collective-permute(x), source_target_pairs={{0,1},{1,1}}\n}\n";
    let e = err_of(text, 2, 1, per_device(2, |_| vec![0.]));
    assert!(
        e.contains("cp.9") && e.contains("target more than once"),
        "{e}"
    );
    // Wrong device counts.
    let text = "HloModule m, replica_count=2, num_partitions=2\nENTRY e {\n  x = f32[1] parameter(0)\n  ROOT r = u32[] replica-id()\n}\n";
    let e = err_of(text, 4, 1, per_device(4, |_| vec![0.]));
    assert!(e.contains("replica_count=2"), "{e}");
    let e = evaluate_replicated(
        &parse(text),
        &per_device(3, |_| vec![0.]),
        &RunOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("3 argument list"), "{e}");
    let e = evaluate(
        &parse(text),
        &[Literal::vec1(vec![0f32])],
        &RunOptions {
            replica_count: Some(1),
            ..RunOptions::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("2 partitions"), "{e}");
    // One device, a group naming replica 1.
    let text = "HloModule m\nENTRY e {\n  x = f32[1] parameter(0)\n  ROOT b.3 = f32[1] collective-broadcast(x), replica_groups={{0,1}}\n}\n";
    let e = evaluate(
        &parse(text),
        &[Literal::vec1(vec![0f32])],
        &RunOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("b.3") && e.contains("replica 1"), "{e}");
}

#[test]
fn static_shape_errors() {
    let bad = [
        // Group size 2 does not divide 3.
        (
            format!("HloModule m\n{ADD}ENTRY e {{\n  x = f32[3] parameter(0)\n  ROOT rs = f32[1] reduce-scatter(x), replica_groups={{{{0,1}}}}, dimensions={{0}}, to_apply=add\n}}\n"),
            "not divisible by the group size 2",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[3] parameter(0)\n  ROOT ag = f32[5] all-gather(x), replica_groups={{0,1}}, dimensions={0}\n}\n".to_string(),
            "f32[6]",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[3] parameter(0)\n  ROOT ag = f32[6] all-gather(x), replica_groups={{0,1},{2}}, dimensions={0}\n}\n".to_string(),
            "different sizes",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[3] parameter(0)\n  ROOT ag = f32[6] all-gather(x), replica_groups={{0,1}}, dimensions={1}\n}\n".to_string(),
            "out of range",
        ),
        (
            format!("HloModule m\n{ADD}ENTRY e {{\n  x = f32[3] parameter(0)\n  ROOT ar = f32[3] all-reduce(x), replica_groups={{}}, use_global_device_ids=true, to_apply=add\n}}\n"),
            "needs a channel_id",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[3] parameter(0)\n  ROOT ag = f32[6] all-gather(x), replica_groups=[2,2]<=[3], dimensions={0}\n}\n".to_string(),
            "reshape dims",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT a = (f32[4], f32[4]) all-to-all(x, x), replica_groups={{0,1,2}}\n}\n".to_string(),
            "2 operands for groups of 3",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT cp = f32[4] collective-permute(x), source_target_pairs={{0,1,2}}\n}\n".to_string(),
            "pairs",
        ),
    ];
    for (text, want) in bad {
        let e = parse_module(&text, "t.hlo").expect_err(&text).to_string();
        assert!(e.contains(want), "{want}: {e}");
        assert!(e.contains("t.hlo:"), "no position: {e}");
    }
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
