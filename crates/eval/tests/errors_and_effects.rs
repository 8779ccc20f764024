//! Failure modes and effects: argument checks, unknown custom-call
//! targets, runaway loops, infeed/outfeed, replicated all-reduce
//! (including a replica that never reaches it: an error, not a hang).

mod eval_support;
use eval_support::*;
use rxla_eval::{RunOptions, evaluate_replicated};
use rxla_ir::Literal;

const NEG: &str =
    "HloModule m\nENTRY e {\n x = f32[2,3] parameter(0)\n ROOT n = f32[2,3] negate(x)\n}\n";

#[test]
fn wrong_argument_count() {
    let e = err_text(try_run(NEG, vec![]));
    assert!(e.contains("expects 1 argument(s), got 0"), "{e}");
}

#[test]
fn wrong_argument_shape_names_the_parameter_and_both_shapes() {
    let e = err_text(try_run(NEG, vec![Literal::vec1(vec![1.0f32, 2.0])]));
    assert!(e.contains("parameter 0"), "{e}");
    assert!(e.contains("'x'"), "{e}");
    assert!(e.contains("f32[2]") && e.contains("f32[2,3]"), "{e}");
    let e = err_text(try_run(
        NEG,
        vec![Literal::from_vec(&[2, 3], vec![1i32; 6]).unwrap()],
    ));
    assert!(e.contains("s32[2,3]") && e.contains("f32[2,3]"), "{e}");
}

#[test]
fn unknown_custom_call_is_reported_before_running() {
    let text = "HloModule m\nENTRY e {\n x = f32[2] parameter(0)\n ROOT cc.3 = f32[2] custom-call(x), custom_call_target=\"foo\"\n}\n";
    let e = err_text(try_run(text, vec![Literal::vec1(vec![1.0f32, 2.0])]));
    assert_eq!(e, "unknown custom-call target 'foo' in instruction cc.3");
}

const RUNAWAY: &str = "HloModule m
cond {
  x = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  x = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT y = s32[] add(x, one)
}
ENTRY e {
  z = s32[] constant(0)
  ROOT loop.7 = s32[] while(z), condition=cond, body=body
}
";

#[test]
fn runaway_while_errors_naming_the_loop() {
    let opts = RunOptions {
        max_while_iterations: 100,
        ..Default::default()
    };
    let e = err_text(try_run_with(RUNAWAY, vec![], &opts));
    assert!(
        e.contains("while instruction loop.7 exceeded max_while_iterations (100)"),
        "{e}"
    );
}

const INFEED: &str = "HloModule m
ENTRY e {
  tok = token[] after-all()
  in = (f32[2], token[]) infeed(tok)
  v = f32[2] get-tuple-element(in), index=0
  t2 = token[] get-tuple-element(in), index=1
  in2 = (f32[2], token[]) infeed(t2)
  w = f32[2] get-tuple-element(in2), index=0
  t3 = token[] get-tuple-element(in2), index=1
  s = f32[2] add(v, w)
  out = token[] outfeed(s, t3), outfeed_shape=f32[2]
  ROOT r = f32[2] multiply(s, s)
}
";

#[test]
fn infeed_pops_in_order_and_outfeed_records() {
    let opts = RunOptions::default();
    opts.push_infeed(Literal::vec1(vec![1.0f32, 2.0]));
    opts.push_infeed(Literal::vec1(vec![0.5f32, 0.25]));
    let r = try_run_with(INFEED, vec![], &opts).unwrap();
    assert_eq!(f32s(&r), [2.25, 5.0625]);
    let out = opts.take_outfeed();
    assert_eq!(out, vec![Literal::vec1(vec![1.5f32, 2.25])]);
}

#[test]
fn infeed_exhausted_is_an_error() {
    let opts = RunOptions::default();
    opts.push_infeed(Literal::vec1(vec![1.0f32, 2.0]));
    let e = err_text(try_run_with(INFEED, vec![], &opts));
    assert!(e.contains("infeed exhausted"), "{e}");
    assert!(e.contains("in2"), "names the instruction: {e}");
}

#[test]
fn infeed_of_the_wrong_shape_is_an_error() {
    let opts = RunOptions::default();
    opts.push_infeed(Literal::vec1(vec![1i32, 2]));
    let e = err_text(try_run_with(INFEED, vec![], &opts));
    assert!(e.contains("s32[2]") && e.contains("f32[2]"), "{e}");
}

const ALL_REDUCE: &str = "HloModule m, replica_count=3
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[2] parameter(0)
  ROOT ar = f32[2] all-reduce(p), replica_groups={}, to_apply=add
}
";

#[test]
fn all_reduce_sums_over_replicas() {
    let args: Vec<Vec<Literal>> = (0..3)
        .map(|r| vec![Literal::vec1(vec![r as f32, 1.0])])
        .collect();
    let out = evaluate_replicated(&parse(ALL_REDUCE), &args, &RunOptions::default()).unwrap();
    assert_eq!(out.len(), 3);
    for o in &out {
        assert_eq!(f32s(o), [3.0, 3.0]);
    }
}

#[test]
fn single_replica_evaluate_refuses_a_replicated_module() {
    let e = err_text(try_run(ALL_REDUCE, vec![Literal::vec1(vec![1.0f32, 2.0])]));
    assert!(e.contains("evaluate_replicated"), "{e}");
}

#[test]
fn all_reduce_missed_by_one_replica_is_an_error_not_a_hang() {
    // Replica i runs the all-reduce only when its flag is true.
    let text = "HloModule m, replica_count=2
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
yes {
  p = f32[2] parameter(0)
  ROOT ar.9 = f32[2] all-reduce(p), replica_groups={}, to_apply=add
}
no {
  p = f32[2] parameter(0)
  ROOT c = f32[2] copy(p)
}
ENTRY e {
  flag = pred[] parameter(0)
  p = f32[2] parameter(1)
  ROOT c = f32[2] conditional(flag, p, p), true_computation=yes, false_computation=no
}
";
    let args = vec![
        vec![Literal::scalar(true), Literal::vec1(vec![1.0f32, 2.0])],
        vec![Literal::scalar(false), Literal::vec1(vec![1.0f32, 2.0])],
    ];
    let e = evaluate_replicated(&parse(text), &args, &RunOptions::default())
        .expect_err("a missed all-reduce must fail");
    let e = e.to_string();
    assert!(e.contains("ar.9") && e.contains("replica 1"), "{e}");
}

#[test]
fn replicated_argument_lists_must_match_the_replica_count() {
    let args = vec![vec![Literal::vec1(vec![1.0f32, 2.0])]];
    let e = evaluate_replicated(&parse(ALL_REDUCE), &args, &RunOptions::default())
        .expect_err("count mismatch");
    assert!(e.to_string().contains("replica_count=3"), "{e}");
}

#[test]
fn huge_values_are_refused_before_allocation() {
    let text =
        "HloModule m\nENTRY e {\n ROOT big.1 = s32[1099511627776] iota(), iota_dimension=0\n}\n";
    let e = err_text(try_run(text, vec![]));
    assert!(e.contains("big.1") && e.contains("max_elements"), "{e}");
}

#[test]
fn all_reduce_respects_replica_groups() {
    let text = "HloModule m, replica_count=4
mx {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] maximum(x, y)
}
ENTRY e {
  p = s32[] parameter(0)
  ROOT ar = s32[] all-reduce(p), replica_groups={{0,2},{1,3}}, to_apply=mx
}
";
    let args: Vec<Vec<Literal>> = [5i32, 1, 2, 7]
        .iter()
        .map(|&v| vec![Literal::scalar(v)])
        .collect();
    let out = evaluate_replicated(&parse(text), &args, &RunOptions::default()).unwrap();
    let got: Vec<i32> = out.iter().map(|l| s32s(l)[0]).collect();
    assert_eq!(got, [5, 7, 5, 7]);
}

/// Replica 0 takes the branch with a sum, replica 1 the one with a
/// product: they meet as their first collective at different all-reduce
/// instructions, which is an error naming both (issue 20), not a silent
/// mix of the two.
const DIVERGING_ALL_REDUCE: &str = "HloModule m, replica_count=2
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
mul {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] multiply(x, y)
}
yes {
  p = f32[2] parameter(0)
  ROOT sum.1 = f32[2] all-reduce(p), replica_groups={}, to_apply=add
}
no {
  p = f32[2] parameter(0)
  ROOT prod.2 = f32[2] all-reduce(p), replica_groups={}, to_apply=mul
}
ENTRY e {
  flag = pred[] parameter(0)
  p = f32[2] parameter(1)
  ROOT c = f32[2] conditional(flag, p, p), true_computation=yes, false_computation=no
}
";

#[test]
fn replicas_at_different_all_reduces_are_an_error() {
    let args = vec![
        vec![Literal::scalar(true), Literal::vec1(vec![1.0f32, 2.0])],
        vec![Literal::scalar(false), Literal::vec1(vec![3.0f32, 4.0])],
    ];
    let e = evaluate_replicated(&parse(DIVERGING_ALL_REDUCE), &args, &RunOptions::default())
        .expect_err("different all-reduces must not combine");
    let e = e.to_string();
    assert!(
        e.contains("sum.1") && e.contains("prod.2") && e.contains("reduced by mul"),
        "{e}"
    );
    // Same branch on both: fine.
    let args = vec![
        vec![Literal::scalar(false), Literal::vec1(vec![1.0f32, 2.0])],
        vec![Literal::scalar(false), Literal::vec1(vec![3.0f32, 4.0])],
    ];
    let out =
        evaluate_replicated(&parse(DIVERGING_ALL_REDUCE), &args, &RunOptions::default()).unwrap();
    assert_eq!(f32s(&out[1]), [3.0, 8.0]);
}

#[test]
fn replica_groups_are_validated_before_the_run() {
    let text = |groups: &str| {
        format!(
            "HloModule m, replica_count=3
add {{
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}}
ENTRY e {{
  p = s32[] parameter(0)
  ROOT ar.3 = s32[] all-reduce(p), replica_groups={groups}, to_apply=add
}}
"
        )
    };
    let args: Vec<Vec<Literal>> = (0..3).map(|r| vec![Literal::scalar(r)]).collect();
    let e = evaluate_replicated(
        &parse(&text("{{0,1},{1,2}}")),
        &args,
        &RunOptions::default(),
    )
    .expect_err("replica 1 twice");
    assert!(
        e.to_string()
            .contains("ar.3: replica 1 appears more than once in replica_groups"),
        "{e}"
    );
    let e = evaluate_replicated(
        &parse(&text("{{0,1},{2,5}}")),
        &args,
        &RunOptions::default(),
    )
    .expect_err("replica 5 of 3");
    assert!(
        e.to_string()
            .contains("ar.3: replica_groups names replica 5 but there are 3 replicas"),
        "{e}"
    );
    let out =
        evaluate_replicated(&parse(&text("{{0,2},{1}}")), &args, &RunOptions::default()).unwrap();
    assert_eq!(s32s(&out[0]), [2]);
    assert_eq!(s32s(&out[1]), [1]);
}

/// Contributions are dropped once every member of the group has read
/// them: thousands of rendezvous leave nothing behind (issue 20: 20,000
/// all-reduces x 8 replicas kept 2.6 GB).
#[test]
fn rendezvous_frees_contributions() {
    use rxla_eval::collectives::Collectives;
    let coll = Collectives::new(4);
    std::thread::scope(|s| {
        for id in 0..4usize {
            let coll = &coll;
            s.spawn(move || {
                let group: Vec<usize> = if id % 2 == 0 { vec![0, 2] } else { vec![1, 3] };
                for seq in 0..2000u64 {
                    let v = Literal::vec1(vec![id as f32; 256]);
                    let parts = coll.exchange(id, seq, v, &group, "site").unwrap();
                    assert_eq!(parts.len(), 2);
                }
                coll.finish(id);
            });
        }
    });
    assert_eq!(coll.pending(), 0);
}

/// Members at different sites (or with different groups) all fail; none
/// waits.
#[test]
fn rendezvous_mismatch_fails_on_every_member() {
    use rxla_eval::collectives::Collectives;
    let coll = Collectives::new(3);
    let errs: Vec<String> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..3usize)
            .map(|id| {
                let coll = &coll;
                s.spawn(move || {
                    let site = if id == 2 {
                        "all-reduce b"
                    } else {
                        "all-reduce a"
                    };
                    let r = coll.exchange(id, 0, Literal::scalar(1i32), &[0, 1, 2], site);
                    coll.finish(id);
                    r.expect_err("mismatch").to_string()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (id, e) in errs.iter().enumerate() {
        assert!(
            e.contains("all-reduce a") && e.contains("all-reduce b"),
            "{id}: {e}"
        );
    }
}
