//! Failure modes and effects that need the API: argument checks, runaway
//! loops (`max_while_iterations`), infeed/outfeed queues, replicated
//! argument counts and the rendezvous' memory. The module-in, error-out
//! cases (unknown custom-call targets, huge values, replicas missing or
//! diverging at an all-reduce, invalid replica groups) are filetests in
//! `tests/filetests/run_errors/`, the all-reduce values in
//! `tests/filetests/collectives/`.

use crate::eval_support;
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

/// An all-reduce over three replicas (its filetest checks the sums).
const ALL_REDUCE: &str =
    include_str!("../../../tests/filetests/collectives/all_reduce_sums_over_replicas.hlo");

#[test]
fn replicated_argument_lists_must_match_the_replica_count() {
    let args = vec![vec![Literal::vec1(vec![1.0f32, 2.0])]];
    let e = evaluate_replicated(&parse(ALL_REDUCE), &args, &RunOptions::default())
        .expect_err("count mismatch");
    assert!(e.to_string().contains("replica_count=3"), "{e}");
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
