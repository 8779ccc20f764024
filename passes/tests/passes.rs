//! Before/after snapshots for each pass on small modules, plus targeted
//! assertions on what each pass must and must not do.

mod common;

use common::{before_after, run};

const DCE: &str = r#"HloModule dce

unused_fn {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}

ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  dead1 = f32[4] multiply(a, b)
  dead2 = f32[4] add(dead1, a)
  tok = token[] after-all()
  out = token[] outfeed(a, tok), outfeed_config=""
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[4] rng(lo, hi), distribution=rng_uniform
  ROOT sum = f32[4] add(a, b)
}
"#;

#[test]
fn dce_snapshot() {
    insta::assert_snapshot!("dce", before_after("dce", DCE));
}

#[test]
fn dce_keeps_side_effects_and_removes_unreachable_computations() {
    let (out, changed) = run("dce", DCE);
    assert!(changed);
    assert!(out.contains("outfeed("), "{out}");
    assert!(!out.contains("dead1") && !out.contains("dead2") && !out.contains("rng("));
    assert!(!out.contains("unused_fn"));
    assert!(out.contains("parameter(1)"));
    let (_, again) = run("dce,dce", DCE);
    assert!(again);
}

const DCE_EFFECTS: &str = r#"HloModule dce_effects

emit {
  p = f32[4] parameter(0)
  tok = token[] after-all()
  o = token[] outfeed(p, tok)
  ROOT r = f32[4] negate(p)
}

pure {
  q = f32[4] parameter(0)
  ROOT r = f32[4] negate(q)
}

ENTRY main {
  a = f32[4] parameter(0)
  unused_effect = f32[4] call(a), to_apply=emit
  unused_pure = f32[4] call(a), to_apply=pure
  ROOT out = f32[4] add(a, a)
}
"#;

#[test]
fn dce_keeps_calls_with_side_effects() {
    let (out, changed) = run("dce", DCE_EFFECTS);
    assert!(changed);
    assert!(
        out.contains("unused_effect = f32[4]{0} call(a), to_apply=emit"),
        "{out}"
    );
    assert!(out.contains("outfeed(p, tok)"), "{out}");
    assert!(
        !out.contains("unused_pure") && !out.contains("pure {"),
        "{out}"
    );
}

const CSE: &str = r#"HloModule cse

ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  x = f32[4] add(a, b)
  y = f32[4] add(b, a)
  s1 = f32[4] subtract(a, b)
  s2 = f32[4] subtract(b, a)
  c1 = f32[] constant(0)
  c2 = f32[] constant(0)
  c3 = f32[] constant(-0)
  hi = f32[] constant(1)
  r1 = f32[4] rng(c1, hi), distribution=rng_uniform
  r2 = f32[4] rng(c1, hi), distribution=rng_uniform
  m1 = f32[4] multiply(x, s1)
  m2 = f32[4] multiply(y, s2)
  ROOT t = (f32[4], f32[4], f32[], f32[], f32[], f32[4], f32[4]) tuple(m1, m2, c1, c2, c3, r1, r2)
}
"#;

#[test]
fn cse_snapshot() {
    insta::assert_snapshot!("cse", before_after("cse", CSE));
}

#[test]
fn cse_merges_commutative_and_constants_by_bits_but_not_rng() {
    let (out, changed) = run("cse", CSE);
    assert!(changed);
    assert!(!out.contains(" y = ") && out.contains(" x = "), "{out}");
    assert!(
        out.contains("s1 =") && out.contains("s2 ="),
        "subtract is not commutative"
    );
    assert!(!out.contains("c2 ="), "equal constants merge");
    assert!(out.contains("c3 ="), "-0 is not +0");
    assert!(
        out.contains("r1 =") && out.contains("r2 ="),
        "rng is never merged"
    );
    let (_, again) = run("cse,cse", CSE);
    assert!(again);
    let (twice, _) = run("cse", &run("cse", CSE).0);
    assert_eq!(twice, out, "cse is idempotent");
}

const CSE_SIDE: &str = r#"HloModule cse_side

ENTRY main {
  a = f32[4] parameter(0)
  c1 = f32[4] custom-call(a), custom_call_target="foo"
  c2 = f32[4] custom-call(a), custom_call_target="foo"
  tok = token[] after-all()
  i1 = (f32[4], token[]) infeed(tok)
  i2 = (f32[4], token[]) infeed(tok)
  ROOT t = (f32[4], f32[4], (f32[4], token[]), (f32[4], token[])) tuple(c1, c2, i1, i2)
}
"#;

#[test]
fn cse_never_merges_side_effects() {
    let (out, _) = run("cse", CSE_SIDE);
    for n in ["c1 =", "c2 =", "i1 =", "i2 ="] {
        assert!(out.contains(n), "{n} missing in\n{out}");
    }
}

const INLINE: &str = r#"HloModule inline

relu {
  x = f32[4] parameter(0)
  zero = f32[] constant(0)
  zeros = f32[4] broadcast(zero), dimensions={}
  ROOT max = f32[4] maximum(x, zeros)
}

twice {
  y = f32[4] parameter(0)
  r1 = f32[4] call(y), to_apply=relu
  ROOT r2 = f32[4] add(r1, r1)
}

ENTRY main {
  a = f32[4] parameter(0)
  zero = f32[] constant(1)
  c1 = f32[4] call(a), to_apply=relu, metadata={op_name="relu"}
  c2 = f32[4] call(c1), to_apply=twice
  ROOT out = f32[4] add(c1, c2)
}
"#;

#[test]
fn inline_snapshot() {
    insta::assert_snapshot!("inline", before_after("inline", INLINE));
    insta::assert_snapshot!("inline_dce", before_after("inline,dce", INLINE));
}

#[test]
fn inline_leaves_no_calls_and_unique_names() {
    let (out, changed) = run("inline,dce", INLINE);
    assert!(changed);
    assert!(!out.contains("call("), "{out}");
    assert!(!out.contains("relu {") && !out.contains("twice {"), "{out}");
    let m = common::parse(&out);
    assert_eq!(m.computations.len(), 1);
}

const INLINE_LAYOUTS: &str = r#"HloModule inline_layouts

f {
  p = s8[2,2]{1,0} parameter(0)
  b = s8[4]{0} bitcast(p)
  ROOT r = s8[2,2]{1,0} bitcast(b)
}

ENTRY main {
  c = s8[2,2]{0,1} constant({ {1, -4}, {-5, 1} })
  call = s8[2,2]{0,1} call(c), to_apply=f
  ROOT out = s8[4,1]{0,1} bitcast(call)
}
"#;

#[test]
fn inline_converts_mismatched_layouts_with_copies() {
    insta::assert_snapshot!("inline_layouts", before_after("inline,dce", INLINE_LAYOUTS));
    let (out, _) = run("inline,dce", INLINE_LAYOUTS);
    assert!(out.contains("p.1 = s8[2,2]{1,0} copy(c)"), "{out}");
    assert!(out.contains("call = s8[2,2]{0,1} copy(r.1)"), "{out}");
    let before = common::parse(INLINE_LAYOUTS);
    let after = common::parse(&out);
    let opts = rxla_eval::RunOptions::default();
    let want = rxla_eval::evaluate(&before, &[], &opts).unwrap();
    let got = rxla_eval::evaluate(&after, &[], &opts).unwrap();
    assert_eq!(got, want);
}

const TUPLES: &str = r#"HloModule tuples

ENTRY main {
  a = f32[4] parameter(0)
  b = s32[] parameter(1)
  p = (f32[4], s32[]) parameter(2)
  t = (f32[4], s32[]) tuple(a, b)
  g0 = f32[4] get-tuple-element(t), index=0
  g1 = s32[] get-tuple-element(t), index=1
  q0 = f32[4] get-tuple-element(p), index=0
  q1 = s32[] get-tuple-element(p), index=1
  same = (f32[4], s32[]) tuple(q0, q1)
  swapped = (s32[], f32[4]) tuple(q1, q0)
  ROOT r = (f32[4], s32[], (f32[4], s32[]), (s32[], f32[4])) tuple(g0, g1, same, swapped)
}
"#;

#[test]
fn tuple_simplify_snapshot() {
    insta::assert_snapshot!("tuple_simplify", before_after("tuple-simplify", TUPLES));
}

#[test]
fn tuple_simplify_rewrites() {
    let (out, changed) = run("tuple-simplify,dce", TUPLES);
    assert!(changed);
    assert!(!out.contains("g0 =") && !out.contains("same ="), "{out}");
    assert!(out.contains("swapped ="), "out-of-order tuple kept:\n{out}");
    assert!(out.contains("tuple(a, b, p, swapped)"), "{out}");
}

const FOLD: &str = r#"HloModule fold

ENTRY main {
  a = f32[4] parameter(0)
  c1 = f32[4] constant({1, 2, 3, 4})
  c2 = f32[4] constant({10, 20, 30, 40})
  sum = f32[4] add(c1, c2), metadata={op_name="sum"}
  neg = f32[4] negate(sum)
  big = f32[2048] iota(), iota_dimension=0
  bigneg = f32[2048] negate(big)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[4] rng(lo, hi), distribution=rng_uniform
  x = f32[4] add(a, neg)
  ROOT t = (f32[4], f32[2048], f32[4]) tuple(x, bigneg, r)
}
"#;

#[test]
fn constant_folding_snapshot() {
    insta::assert_snapshot!(
        "constant_folding",
        before_after("constant-folding,dce", FOLD)
    );
}

#[test]
fn constant_folding_folds_chains_keeps_names_and_respects_caps() {
    let (out, changed) = run("constant-folding", FOLD);
    assert!(changed);
    assert!(
        out.contains("neg = f32[4]{0} constant({-11, -22, -33, -44})"),
        "{out}"
    );
    assert!(
        out.contains("sum = f32[4]{0} constant({11, 22, 33, 44}), metadata"),
        "{out}"
    );
    assert!(
        out.contains("bigneg = f32[2048]{0} negate(big)"),
        "over the cap:\n{out}"
    );
    assert!(out.contains("rng(lo, hi)"), "{out}");
    let (small, _) = run("constant-folding{max-elements=2}", FOLD);
    assert!(small.contains("add(c1, c2)"), "{small}");
}

const FOLD_CALLS: &str = r#"HloModule fold_calls

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

cond {
  c = s32[] parameter(0)
  k = s32[] constant(10)
  ROOT lt = pred[] compare(c, k), direction=LT
}

body {
  b = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(b, one)
}

loop {
  z = s32[] parameter(0)
  ROOT w = s32[] while(z), condition=cond, body=body
}

ENTRY main {
  c = f32[3] constant({1, 2, 3})
  zero = f32[] constant(0)
  total = f32[] reduce(c, zero), dimensions={0}, to_apply=add
  z = s32[] constant(0)
  looped = s32[] call(z), to_apply=loop
  w2 = s32[] while(z), condition=cond, body=body
  ROOT t = (f32[], s32[], s32[]) tuple(total, looped, w2)
}
"#;

#[test]
fn constant_folding_evaluates_reductions_but_not_loops() {
    let (out, changed) = run("constant-folding", FOLD_CALLS);
    assert!(changed);
    assert!(out.contains("total = f32[] constant(6)"), "{out}");
    assert!(
        out.contains("looped = s32[] call(z), to_apply=loop"),
        "{out}"
    );
    assert!(out.contains("w2 = s32[] while(z)"), "{out}");
}

#[test]
fn unknown_option_is_an_error() {
    let e = rxla_passes::PassManager::from_text(
        "constant-folding{max-element=3}",
        &rxla_passes::Registry::standard(),
    )
    .err()
    .unwrap();
    assert!(e.to_string().contains("max-element"), "{e}");
}
