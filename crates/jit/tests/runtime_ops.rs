//! Ops run as native runtime steps instead of the evaluator fallback:
//! sort (compiled comparator, the evaluator's merge sort), topk and the
//! `TopK` custom call, rng and rng-bit-generator, custom calls through the
//! registry, infeed/outfeed and single-replica all-reduce. Every module is
//! compiled with `allow_interpreter_fallback = false`, and results are
//! compared bit for bit with the evaluator (and with literal expected
//! values), in default, column-major and padded layouts.

use rxla_eval::{RunOptions, evaluate};
use rxla_ir::{Literal, parse_module};
use rxla_jit::{CompileOptions, Executable, compile};
use rxla_oracles::compare::same_values;

fn strict(fusion: bool) -> CompileOptions {
    CompileOptions {
        threads: Some(1),
        fusion,
        allow_interpreter_fallback: false,
        ..CompileOptions::default()
    }
}

fn exe(text: &str, fusion: bool) -> Executable {
    let m = parse_module(text, "rt").unwrap_or_else(|e| panic!("parses: {e}\n{text}"));
    let e = compile(&m, &strict(fusion)).unwrap_or_else(|e| panic!("compiles: {e}\n{text}"));
    assert!(e.stats().fallbacks.is_empty(), "{:?}", e.stats().fallbacks);
    e
}

/// Runs `text` on the JIT (fused and unfused, strict) and the evaluator;
/// the values must be bit-identical. Returns the JIT's result.
fn same(text: &str, args: &[Literal]) -> Literal {
    let m = parse_module(text, "rt").unwrap_or_else(|e| panic!("parses: {e}\n{text}"));
    let want = evaluate(&m, args, &RunOptions::default()).expect("evaluates");
    let mut last = None;
    for fusion in [true, false] {
        let got = exe(text, fusion).run(args).expect("runs");
        if let Err(e) = same_values(&want, &got) {
            panic!("fusion={fusion}: {e}\n{text}\ngot  {got}\nwant {want}");
        }
        // Bit-exact NaNs too (same_values lets NaNs of any sign match).
        for (g, w) in got.leaves().iter().zip(want.leaves()) {
            assert_eq!(g.data.to_le_bytes(), w.data.to_le_bytes(), "{text}");
        }
        last = Some(got);
    }
    last.expect("ran")
}

fn f32s(l: &Literal) -> Vec<u32> {
    l.as_slice::<f32>()
        .expect("f32")
        .iter()
        .map(|x| x.to_bits())
        .collect()
}

/// XLA's total-order "less than" on f32 (what JAX emits): -NaN < -inf <
/// ... < -0 = +0 < ... < +inf < NaN after canonicalizing NaN and -0.
const TOTAL_LT_JAX: &str = r#"
%lt (a: f32[], b: f32[]) -> pred[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  %nan = f32[] constant(nan)
  %zero = f32[] constant(0)
  %i0 = s32[] constant(0)
  %imax = s32[] constant(2147483647)
  %nea = pred[] compare(%a, %a), direction=NE
  %neb = pred[] compare(%b, %b), direction=NE
  %eqa = pred[] compare(%a, %zero), direction=EQ
  %eqb = pred[] compare(%b, %zero), direction=EQ
  %sa = f32[] select(%eqa, %zero, %a)
  %sb = f32[] select(%eqb, %zero, %b)
  %ca = f32[] select(%nea, %nan, %sa)
  %cb = f32[] select(%neb, %nan, %sb)
  %ba = s32[] bitcast(%ca)
  %bb = s32[] bitcast(%cb)
  %xa = s32[] xor(%imax, %ba)
  %la = pred[] compare(%ba, %i0), direction=LT
  %xb = s32[] xor(%imax, %bb)
  %lb = pred[] compare(%bb, %i0), direction=LT
  %ka = s32[] select(%la, %xa, %ba)
  %kb = s32[] select(%lb, %xb, %bb)
  ROOT %r = pred[] compare(%ka, %kb), direction=LT
}
"#;

/// `compare(a, b), type=TOTALORDER`: -0 before +0, NaNs by sign.
const TOTAL_LT: &str = r#"
%lt (a: f32[], b: f32[]) -> pred[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %r = pred[] compare(%a, %b), direction=LT, type=TOTALORDER
}
"#;

fn specials() -> Literal {
    Literal::vec1(vec![
        3.0f32,
        -0.0,
        f32::NAN,
        0.0,
        -f32::NAN,
        f32::NEG_INFINITY,
        -0.0,
        1.5,
        f32::INFINITY,
        0.0,
    ])
}

#[test]
fn sort_specials_total_order() {
    let text = format!(
        "HloModule s\n{TOTAL_LT}\nENTRY %e (x: f32[10]) -> f32[10] {{\n  %x = f32[10] parameter(0)\n  ROOT %s = f32[10] sort(%x), dimensions={{0}}, is_stable=true, to_apply=%lt\n}}\n"
    );
    let got = same(&text, &[specials()]);
    let want: Vec<u32> = [
        -f32::NAN,
        f32::NEG_INFINITY,
        -0.0,
        -0.0,
        0.0,
        0.0,
        1.5,
        3.0,
        f32::INFINITY,
        f32::NAN,
    ]
    .iter()
    .map(|x| x.to_bits())
    .collect();
    assert_eq!(f32s(&got), want);
    // JAX's comparator: -0 and +0 tie (stable: input order kept), NaNs of
    // both signs last, in input order.
    let text = format!(
        "HloModule s\n{TOTAL_LT_JAX}\nENTRY %e (x: f32[10]) -> f32[10] {{\n  %x = f32[10] parameter(0)\n  ROOT %s = f32[10] sort(%x), dimensions={{0}}, is_stable=true, to_apply=%lt\n}}\n"
    );
    let got = same(&text, &[specials()]);
    let want: Vec<u32> = [
        f32::NEG_INFINITY,
        -0.0,
        0.0,
        -0.0,
        0.0,
        1.5,
        3.0,
        f32::INFINITY,
        f32::NAN,
        -f32::NAN,
    ]
    .iter()
    .map(|x| x.to_bits())
    .collect();
    assert_eq!(f32s(&got), want);
}

/// A comparator that is not a strict weak order (`<=`): the result is
/// whatever the evaluator's merge sequence gives — identical here.
#[test]
fn sort_with_non_strict_comparator_matches_the_evaluator() {
    let text = r#"HloModule s
%le (a: s32[], b: s32[]) -> pred[] {
  %a = s32[] parameter(0)
  %b = s32[] parameter(1)
  ROOT %r = pred[] compare(%a, %b), direction=LE
}
%odd (a: s32[], b: s32[]) -> pred[] {
  %a = s32[] parameter(0)
  %b = s32[] parameter(1)
  %s = s32[] add(%a, %b)
  %two = s32[] constant(3)
  %m = s32[] remainder(%s, %two)
  %z = s32[] constant(1)
  ROOT %r = pred[] compare(%m, %z), direction=EQ
}
ENTRY %e (x: s32[13]) -> (s32[13], s32[13]) {
  %x = s32[13] parameter(0)
  %a = s32[13] sort(%x), dimensions={0}, is_stable=false, to_apply=%le
  %b = s32[13] sort(%x), dimensions={0}, is_stable=true, to_apply=%odd
  ROOT %t = (s32[13], s32[13]) tuple(%a, %b)
}
"#;
    let x = Literal::vec1(vec![5i32, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9]);
    let got = same(text, &[x]);
    let Literal::Tuple(t) = got else {
        panic!("tuple")
    };
    assert_eq!(
        t[0].as_slice::<i32>().unwrap(),
        &[1, 1, 2, 3, 4, 5, 5, 5, 5, 6, 8, 9, 9]
    );
}

/// Variadic argsort (values + iota indices), stable on ties, along either
/// dimension of a 2-D array, in default, column-major and padded layouts
/// (operands and results).
#[test]
fn variadic_argsort_in_layouts() {
    let vals: Vec<f32> = vec![
        2.0, -1.0, 2.0, 0.5, -0.0, 0.0, 7.0, 2.0, -1.0, 3.0, 0.5, 0.5,
    ];
    let x = Literal::from_vec(&[3, 4], vals).unwrap();
    let layouts = ["{1,0}", "{0,1}", "{0,1:P(4,5)}", "{1,0:P(3,6)}"];
    for dim in [0, 1] {
        for lin in layouts {
            for lout in layouts {
                let text = format!(
                    "HloModule s\n%cmp (a: f32[], b: f32[], i: s32[], j: s32[]) -> pred[] {{\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n  %i = s32[] parameter(2)\n  %j = s32[] parameter(3)\n  ROOT %r = pred[] compare(%a, %b), direction=GT, type=TOTALORDER\n}}\nENTRY %e (x: f32[3,4], io: s32[3,4]) -> (f32[3,4], s32[3,4]) {{\n  %x = f32[3,4]{lin} parameter(0)\n  %io = s32[3,4]{lin} parameter(1)\n  ROOT %s = (f32[3,4]{lout}, s32[3,4]{lout}) sort(%x, %io), dimensions={{{dim}}}, is_stable=true, to_apply=%cmp\n}}\n"
                );
                let io: Vec<i32> = (0..12)
                    .map(|v| if dim == 0 { v / 4 } else { v % 4 })
                    .collect();
                let io = Literal::from_vec(&[3, 4], io).unwrap();
                let got = same(&text, &[x.clone(), io]);
                if dim == 1 && lin == "{1,0}" {
                    let Literal::Tuple(t) = &got else {
                        panic!("tuple")
                    };
                    // Descending; ties (2.0, 0.5) keep input order; +0 before -0.
                    assert_eq!(
                        t[0].as_slice::<f32>().unwrap(),
                        &[
                            2.0, 2.0, 0.5, -1.0, 7.0, 2.0, 0.0, -0.0, 3.0, 0.5, 0.5, -1.0
                        ]
                    );
                    assert_eq!(
                        t[1].as_slice::<i32>().unwrap(),
                        &[0, 2, 3, 1, 2, 3, 1, 0, 1, 2, 3, 0]
                    );
                }
            }
        }
    }
}

/// Empty dimensions, a length-1 sort dimension, rank 0 and a rank-3 sort
/// along the middle dimension (u8 keys, f64 and s64 payloads).
#[test]
fn sort_edge_shapes() {
    let lt = |t: &str| {
        format!(
            "%lt (a: {t}[], b: {t}[]) -> pred[] {{\n  %a = {t}[] parameter(0)\n  %b = {t}[] parameter(1)\n  ROOT %r = pred[] compare(%a, %b), direction=LT\n}}\n"
        )
    };
    for (dims, d) in [("0,3", 0), ("0,3", 1), ("3,0", 1), ("3,1", 1), ("1,3", 0)] {
        let text = format!(
            "HloModule s\n{}\nENTRY %e (x: f32[{dims}]) -> f32[{dims}] {{\n  %x = f32[{dims}]{{0,1}} parameter(0)\n  ROOT %s = f32[{dims}]{{1,0}} sort(%x), dimensions={{{d}}}, to_apply=%lt\n}}\n",
            lt("f32")
        );
        let n: i64 = dims.split(',').map(|v| v.parse::<i64>().unwrap()).product();
        let dv: Vec<i64> = dims.split(',').map(|v| v.parse().unwrap()).collect();
        let x = Literal::from_vec(&dv, (0..n).map(|v| (5 - v) as f32).collect()).unwrap();
        same(&text, &[x]);
    }
    let text = "HloModule s\n%c (a: u8[], b: u8[], c: f64[], d: f64[], e: s64[], f: s64[]) -> pred[] {\n  %a = u8[] parameter(0)\n  %b = u8[] parameter(1)\n  %c = f64[] parameter(2)\n  %d = f64[] parameter(3)\n  %e = s64[] parameter(4)\n  %f = s64[] parameter(5)\n  ROOT %r = pred[] compare(%a, %b), direction=GT\n}\nENTRY %e (x: u8[2,5,3], y: f64[2,5,3], z: s64[2,5,3]) -> (u8[2,5,3], f64[2,5,3], s64[2,5,3]) {\n  %x = u8[2,5,3]{0,2,1} parameter(0)\n  %y = f64[2,5,3]{2,1,0} parameter(1)\n  %z = s64[2,5,3]{1,0,2} parameter(2)\n  ROOT %s = (u8[2,5,3]{2,0,1}, f64[2,5,3]{0,1,2}, s64[2,5,3]{2,1,0:P(2,7,4)}) sort(%x, %y, %z), dimensions={1}, to_apply=%c\n}\n";
    let x = Literal::from_vec(&[2, 5, 3], (0..30).map(|v| ((v * 7) % 5) as u8).collect()).unwrap();
    let y = Literal::from_vec(&[2, 5, 3], (0..30).map(|v| v as f64 * 0.25).collect()).unwrap();
    let z = Literal::from_vec(&[2, 5, 3], (0..30).map(|v| -(v as i64)).collect()).unwrap();
    same(text, &[x, y, z]);
}

/// Reductions keeping the minor dimension stream the operand row by row
/// (a host step): bit-identical to the evaluator for add, multiply,
/// maximum and minimum (either operand order), NaNs of both signs, ±0,
/// infinities, one or two reduced dimensions, outer and middle axes, the
/// minor dimension reduced with major ones; a reduction of the minor
/// dimension alone is not one.
#[test]
fn column_reductions_match_the_evaluator() {
    let specials = [
        1.5f32,
        -0.0,
        0.0,
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -2.25,
        3.0e38,
        1.0e-40,
    ];
    let vals = |n: usize, k: usize| -> Vec<f32> {
        (0..n)
            .map(|i| {
                if (i * 31 + k).is_multiple_of(5) {
                    specials[(i / 5 + k) % specials.len()]
                } else {
                    ((i * 7919 + k * 13) % 1000) as f32 / 250.0 - 2.0
                }
            })
            .collect()
    };
    // The last two reduce the minor dimension together with a major one
    // while another is kept (group norm's shape): one value per output.
    // The last three have runs of adjacent kept (or reduced) dims after
    // the first, which the step folds as one (NCHW channels: `h·w` rows).
    // The last three: rows of 4, 2 and 8 reduced values for 32, 40 and 20
    // consecutive outputs (group norm over NHWC), dealt by permutes.
    let cases: [(&[i64], &str, &str); 13] = [
        (&[37, 20], "0", "20"),
        (&[6, 9, 16], "1", "6,16"),
        (&[5, 4, 3, 17], "0,2", "4,17"),
        (&[3, 40], "0", "40"),
        (&[8, 5, 24], "0,1", "24"),
        (&[3, 5, 4, 3], "1,3", "3,4"),
        (&[2, 7, 6, 5], "1,2,3", "2"),
        (&[3, 6, 5, 16], "1", "3,5,16"),
        (&[2, 3, 4, 5, 16], "1,2", "2,5,16"),
        (&[4, 3, 2, 8, 16], "1,3", "4,2,16"),
        (&[2, 3, 32, 4], "1,3", "2,32"),
        (&[2, 5, 40, 2], "1,3", "2,40"),
        (&[2, 3, 20, 8], "1,3", "2,20"),
    ];
    for (k, (dims, red, out)) in cases.iter().enumerate() {
        let n: i64 = dims.iter().product();
        let d = dims
            .iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",");
        let x = Literal::from_vec(dims, vals(n as usize, k)).unwrap();
        for (op, init, order) in [
            ("add", "0", "a, b"),
            ("multiply", "1", "b, a"),
            ("maximum", "-inf", "a, b"),
            ("maximum", "0", "b, a"),
            ("minimum", "inf", "a, b"),
            ("minimum", "-0", "b, a"),
        ] {
            let text = format!(
                "HloModule r\n\nred {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT o = f32[] {op}({order})\n}}\n\nENTRY e {{\n  x = f32[{d}] parameter(0)\n  i = f32[] constant({init})\n  ROOT r = f32[{out}] reduce(x, i), dimensions={{{red}}}, to_apply=red\n}}\n"
            );
            // Bit for bit, but for the sign and payload of a NaN (which
            // operand's NaN an add or multiply keeps is the compiler's
            // choice, as everywhere: `same_values`).
            let m = parse_module(&text, "rt").unwrap();
            let want = evaluate(&m, std::slice::from_ref(&x), &RunOptions::default()).unwrap();
            let e = compile(&m, &strict(true)).unwrap();
            assert_eq!(e.stats().column_reductions, 1, "{text}");
            let got = e.run(std::slice::from_ref(&x)).unwrap();
            let (g, w) = (f32s(&got), f32s(&want));
            assert_eq!(g.len(), w.len());
            for (j, (a, b)) in g.iter().zip(&w).enumerate() {
                let nan = |u: u32| f32::from_bits(u).is_nan();
                assert!(
                    a == b || (nan(*a) && nan(*b)),
                    "{text}\nelement {j}: {a:#x} vs {b:#x}"
                );
            }
        }
    }
    // Reducing the minor dimension is a row reduction, not this step.
    let text = "HloModule r\n\nred {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT o = f32[] add(a, b)\n}\n\nENTRY e {\n  x = f32[4,32] parameter(0)\n  i = f32[] constant(0)\n  ROOT r = f32[4] reduce(x, i), dimensions={1}, to_apply=red\n}\n";
    let m = parse_module(text, "rt").unwrap();
    assert_eq!(
        compile(&m, &strict(true))
            .unwrap()
            .stats()
            .column_reductions,
        0
    );
}

/// Fused column reductions: the reduced value computed in the fusion (a
/// producer kernel run block of rows by block of rows: 600 rows of 4 KiB
/// are several 256 KiB blocks, the last one partial) and computations
/// after the reduce (an epilogue kernel reading the reduced value and a
/// fusion parameter), variance-, L2-norm- and batch-norm-shaped; every one
/// runs as a column reduction and matches the evaluator bit for bit.
#[test]
fn fused_column_reductions_match_the_evaluator() {
    let cases = [
        // var over axis 0: mean((x - mean)^2), the mean a parameter.
        (
            "f32[600,1024]",
            "f32[1024]",
            "{1}",
            "{0}",
            "subtract(x, mb)",
            "multiply(d, d)",
            "divide(s, c)",
        ),
        // sum of products over the outer axes of NHWC, then sqrt.
        (
            "f32[4,5,6,32]",
            "f32[32]",
            "{3}",
            "{0,1,2}",
            "multiply(x, mb)",
            "multiply(d, x)",
            "sqrt(s)",
        ),
        // a middle axis, then a maximum with the parameter.
        (
            "f32[3,7,16]",
            "f32[3,16]",
            "{0,2}",
            "{1}",
            "add(x, mb)",
            "multiply(d, d)",
            "maximum(s, m)",
        ),
    ];
    for (xs, ms, bdims, red, dexpr, sqexpr, root) in cases {
        let dims: Vec<i64> = xs[4..xs.len() - 1]
            .split(',')
            .map(|d| d.parse().unwrap())
            .collect();
        let kept: Vec<i64> = (0..dims.len() as i64)
            .filter(|d| {
                !red[1..red.len() - 1]
                    .split(',')
                    .any(|r| r.parse::<i64>() == Ok(*d))
            })
            .collect();
        let out = format!(
            "f32[{}]",
            kept.iter()
                .map(|&d| dims[d as usize].to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        let text = format!(
            "HloModule f\n\nadd {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT o = f32[] add(a, b)\n}}\n\nfused {{\n  x = {xs} parameter(0)\n  m = {ms} parameter(1)\n  mb = {xs} broadcast(m), dimensions={bdims}\n  d = {xs} {dexpr}\n  sq = {xs} {sqexpr}\n  z = f32[] constant(0)\n  s = {out} reduce(sq, z), dimensions={red}, to_apply=add\n  k = f32[] constant(3)\n  c = {out} broadcast(k), dimensions={{}}\n  ROOT r = {out} {root}\n}}\n\nENTRY e {{\n  x = {xs} parameter(0)\n  m = {ms} parameter(1)\n  ROOT f = {out} fusion(x, m), kind=kInput, calls=fused\n}}\n"
        );
        let m = parse_module(&text, "fcr").unwrap();
        let n: i64 = dims.iter().product();
        let x = Literal::from_vec(
            &dims,
            (0..n)
                .map(|i| ((i * 7919) % 1000) as f32 / 500.0 - 1.0)
                .collect(),
        )
        .unwrap();
        let ps = m
            .entry_computation()
            .get(m.entry_computation().parameters()[1])
            .shape
            .as_array()
            .unwrap()
            .dims
            .clone();
        let pn: i64 = ps.iter().product();
        let p = Literal::from_vec(&ps, (0..pn).map(|i| (i % 7) as f32 / 8.0).collect()).unwrap();
        let args = [x, p];
        let want = evaluate(&m, &args, &RunOptions::default()).unwrap();
        let e = compile(&m, &strict(true)).unwrap();
        assert_eq!(e.stats().column_reductions, 1, "{text}");
        let got = e.run(&args).unwrap();
        let (g, w) = (f32s(&got), f32s(&want));
        assert_eq!(g.len(), w.len());
        for (j, (a, b)) in g.iter().zip(&w).enumerate() {
            assert!(a == b, "{text}\nelement {j}: {a} vs {b}");
        }
    }
}

/// A scan that stacks one row per step (4 of 6 rows) (`lax.scan`'s output) updates the
/// loop's own carry in place; the caller's initial value (a parameter, or
/// a constant) is never written, so a second run gives the same values;
/// a carry leaf that is also read elsewhere in the body is not updated in
/// place. Bit-identical to the evaluator in every case.
#[test]
fn scan_stacking_updates_the_carry_in_place() {
    let body = |extra: &str, root_extra: &str| {
        format!(
            "HloModule s\n\nbody {{\n  p = (s32[], f32[6,4], f32[4]) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n  acc = f32[6,4] get-tuple-element(p), index=1\n  v = f32[4] get-tuple-element(p), index=2\n  one = s32[] constant(1)\n  i1 = s32[] add(i, one)\n  fi = f32[] convert(i1)\n  b = f32[4] broadcast(fi), dimensions={{}}\n  row = f32[4] multiply(v, b)\n  r = f32[1,4] reshape(row)\n  zero = s32[] constant(0)\n  upd = f32[6,4] dynamic-update-slice(acc, r, i, zero)\n{extra}  ROOT t = (s32[], f32[6,4], f32[4]) tuple(i1, {root_extra}, v)\n}}\n\ncond {{\n  p = (s32[], f32[6,4], f32[4]) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n  n = s32[] constant(4)\n  ROOT lt = pred[] compare(i, n), direction=LT\n}}\n\nENTRY e {{\n  a = f32[6,4] parameter(0)\n  v = f32[4] parameter(1)\n  z = s32[] constant(0)\n  t = (s32[], f32[6,4], f32[4]) tuple(z, a, v)\n  w = (s32[], f32[6,4], f32[4]) while(t), condition=cond, body=body\n  o1 = f32[6,4] get-tuple-element(w), index=1\n  ROOT o = (f32[6,4], f32[6,4]) tuple(o1, a)\n}}\n"
        )
    };
    let a = Literal::from_vec(&[6, 4], (0..24).map(|x| x as f32 - 100.0).collect()).unwrap();
    let v = Literal::from_vec(&[4], vec![1.0f32, -2.0, 0.5, 3.0]).unwrap();
    let args = [a.clone(), v.clone()];
    // In place: `acc` is read by the update alone.
    let text = body("", "upd");
    let got = same(&text, &args);
    let m = parse_module(&text, "rt").unwrap();
    let e = compile(&m, &strict(true)).unwrap();
    assert_eq!(e.stats().in_place_updates, 1);
    assert_eq!(
        e.run(&args).unwrap(),
        got,
        "a second run sees the same initial value"
    );
    assert_eq!(e.run(&args).unwrap(), got);
    let Literal::Tuple(parts) = &got else {
        panic!("a tuple result")
    };
    // The initial value, returned beside the loop's result, is intact.
    assert_eq!(parts[1], a);
    let rows = parts[0].as_slice::<f32>().unwrap();
    assert_eq!(&rows[..4], &[1.0, -2.0, 0.5, 3.0]);
    assert_eq!(&rows[12..16], &[4.0, -8.0, 2.0, 12.0]);
    // Rows 4 and 5 keep the initial value (the loop runs 4 steps).
    assert_eq!(&rows[20..], &[-80.0, -79.0, -78.0, -77.0]);
    // The initial value a constant: its buffer lives across runs and must
    // not be written either.
    let consts: Vec<String> = (0..6)
        .map(|r| {
            let row: Vec<String> = (0..4).map(|c| format!("{}", r * 4 + c)).collect();
            format!("{{{}}}", row.join(", "))
        })
        .collect();
    let text_c = text.replace(
        "  a = f32[6,4] parameter(0)\n  v = f32[4] parameter(1)\n",
        &format!(
            "  a = f32[6,4] constant({{{}}})\n  v = f32[4] parameter(0)\n",
            consts.join(", ")
        ),
    );
    assert_ne!(text_c, text);
    let first = same(&text_c, std::slice::from_ref(&v));
    let m = parse_module(&text_c, "rt").unwrap();
    let e = compile(&m, &strict(true)).unwrap();
    assert_eq!(e.stats().in_place_updates, 1);
    let once = e.run(std::slice::from_ref(&v)).unwrap();
    assert_eq!(once, first);
    assert_eq!(
        e.run(std::slice::from_ref(&v)).unwrap(),
        first,
        "the constant was written"
    );
    // Not in place: `acc` is also read after the update (its old value).
    let text = body("  s = f32[6,4] add(acc, upd)\n", "s");
    same(&text, &args);
    let m = parse_module(&text, "rt").unwrap();
    assert_eq!(
        compile(&m, &strict(true)).unwrap().stats().in_place_updates,
        0
    );
}

/// Top-k by selection (one pass for k <= 64, select-then-sort above):
/// the stable sort's prefix exactly, ties (many equal values, +0/-0,
/// NaNs of both signs, infinities) taken by position.
#[test]
fn topk_selection_matches_the_stable_sort() {
    let n = 300;
    let pool = [
        1.0f32,
        -1.0,
        0.0,
        -0.0,
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        2.5,
        2.5,
    ];
    let vals: Vec<f32> = (0..3 * n)
        .map(|i| pool[(i * 7 + i / 13) % pool.len()] * if i % 11 == 0 { 3.0 } else { 1.0 })
        .collect();
    let x = Literal::from_vec(&[3, n as i64], vals).unwrap();
    for (k, largest) in [
        (1, true),
        (8, false),
        (64, true),
        (65, false),
        (200, true),
        (300, false),
    ] {
        let text = format!(
            "HloModule t\nENTRY %e (x: f32[3,{n}]) -> (f32[3,{k}], s32[3,{k}]) {{\n  %x = f32[3,{n}] parameter(0)\n  ROOT %t = (f32[3,{k}], s32[3,{k}]) topk(%x), k={k}, largest={largest}\n}}\n"
        );
        same(&text, std::slice::from_ref(&x));
    }
}

#[test]
fn topk_builtin_and_custom_call() {
    let x = Literal::from_vec(
        &[2, 5],
        vec![
            1.0f32,
            3.0,
            3.0,
            f32::NAN,
            -0.0,
            0.0,
            -1.0,
            2.0,
            f32::NEG_INFINITY,
            0.0,
        ],
    )
    .unwrap();
    for (k, largest) in [(2, true), (3, false), (0, true), (5, false)] {
        let text = format!(
            "HloModule t\nENTRY %e (x: f32[2,5]) -> (f32[2,{k}], s32[2,{k}]) {{\n  %x = f32[2,5]{{0,1}} parameter(0)\n  ROOT %t = (f32[2,{k}]{{0,1}}, s32[2,{k}]) topk(%x), k={k}, largest={largest}\n}}\n"
        );
        let got = same(&text, std::slice::from_ref(&x));
        if k == 2 && largest {
            let Literal::Tuple(t) = &got else {
                panic!("tuple")
            };
            assert!(t[0].as_slice::<f32>().unwrap()[0].is_nan());
            assert_eq!(t[1].as_slice::<i32>().unwrap(), &[3, 1, 2, 0]);
        }
    }
    // XLA:CPU's TopK custom call with a 4-parameter comparator (the corpus
    // module), and a 2-parameter one on s32 in a padded layout.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus_jax");
    let text = std::fs::read_to_string(dir.join("top_k.opt.hlo")).expect("corpus top_k");
    let x7 = Literal::from_vec(
        &[2, 7],
        vec![
            1.0f32,
            9.0,
            -3.0,
            9.0,
            f32::NAN,
            0.0,
            -0.0,
            4.0,
            4.0,
            4.0,
            -1.0,
            8.0,
            2.0,
            2.0,
        ],
    )
    .unwrap();
    same(&text, &[x7]);
    let text = r#"HloModule t
%gt (a: s32[], b: s32[]) -> pred[] {
  %a = s32[] parameter(0)
  %b = s32[] parameter(1)
  ROOT %r = pred[] compare(%a, %b), direction=GT
}
ENTRY %e (x: s32[3,4]) -> (s32[3,2], s32[3,2]) {
  %x = s32[3,4]{0,1:P(4,4)} parameter(0)
  ROOT %t = (s32[3,2]{0,1}, s32[3,2]{1,0:P(3,3)}) custom-call(%x), custom_call_target="TopK", to_apply=%gt
}
"#;
    let x = Literal::from_vec(&[3, 4], vec![4i32, 1, 4, 2, -5, -5, -6, 0, 7, 8, 9, 9]).unwrap();
    let got = same(text, &[x]);
    let Literal::Tuple(t) = &got else {
        panic!("tuple")
    };
    assert_eq!(t[0].as_slice::<i32>().unwrap(), &[4, 4, 0, -5, 9, 9]);
    assert_eq!(t[1].as_slice::<i32>().unwrap(), &[0, 2, 3, 0, 2, 3]);
}

// ------------------------------------------------------------------- rng

fn rng_module(ty: &str, dist: &str, dims: &str, layout: &str) -> String {
    format!(
        "HloModule r\nENTRY %e (a: {ty}[], b: {ty}[]) -> ({ty}[{dims}], {ty}[{dims}]) {{\n  %a = {ty}[] parameter(0)\n  %b = {ty}[] parameter(1)\n  %r1 = {ty}[{dims}]{layout} rng(%a, %b), distribution={dist}\n  %r2 = {ty}[{dims}]{layout} rng(%a, %b), distribution={dist}\n  ROOT %t = ({ty}[{dims}]{layout}, {ty}[{dims}]{layout}) tuple(%r1, %r2)\n}}\n"
    )
}

fn run_seeded(e: &Executable, args: &[Literal], seed: u64) -> Literal {
    let opts = RunOptions {
        seed,
        ..RunOptions::default()
    };
    e.run_with(args, &opts).expect("runs")
}

#[test]
fn rng_uniform_bounds_and_determinism() {
    let f = |v: f32| Literal::scalar(v);
    for layout in ["{1,0}", "{0,1}", "{0,1:P(70,5)}"] {
        let e = exe(&rng_module("f32", "rng_uniform", "64,4", layout), true);
        let args = [f(-2.0), f(3.0)];
        let a = run_seeded(&e, &args, 7);
        let b = run_seeded(&e, &args, 7);
        let c = run_seeded(&e, &args, 8);
        assert_eq!(a, b, "same seed, same values");
        assert_ne!(a, c, "another seed, other values");
        let Literal::Tuple(t) = &a else {
            panic!("tuple")
        };
        assert_ne!(t[0], t[1], "two rng instructions draw different values");
        let v: Vec<f32> = t
            .iter()
            .flat_map(|l| l.as_slice::<f32>().unwrap().to_vec())
            .collect();
        assert!(v.iter().all(|&x| (-2.0..3.0).contains(&x)), "{v:?}");
        let mean = v.iter().sum::<f32>() / v.len() as f32;
        assert!((mean - 0.5).abs() < 0.3, "mean {mean}");
        // The evaluator draws the same stream when the order agrees.
        let m = parse_module(&rng_module("f32", "rng_uniform", "64,4", layout), "r").unwrap();
        let opts = RunOptions {
            seed: 7,
            ..RunOptions::default()
        };
        assert_eq!(evaluate(&m, &args, &opts).unwrap(), a);
    }
    // b <= a gives a; integers in [a, b); f16 and f64 bounds.
    let e = exe(&rng_module("f32", "rng_uniform", "8", "{0}"), true);
    let same_ab = run_seeded(&e, &[f(1.5), f(1.5)], 1);
    assert!(
        same_ab
            .leaves()
            .iter()
            .all(|l| l.as_slice::<f32>().unwrap().iter().all(|&x| x == 1.5))
    );
    let e = exe(&rng_module("s32", "rng_uniform", "1000", "{0}"), true);
    let r = run_seeded(&e, &[Literal::scalar(-3i32), Literal::scalar(4i32)], 3);
    let v: Vec<i32> = r
        .leaves()
        .iter()
        .flat_map(|l| l.as_slice::<i32>().unwrap().to_vec())
        .collect();
    assert!(v.iter().all(|x| (-3..4).contains(x)));
    for want in -3..4 {
        assert!(v.contains(&want), "{want} never drawn");
    }
    let e = exe(&rng_module("f16", "rng_uniform", "500", "{0}"), true);
    let h = |v: f32| Literal::scalar(half::f16::from_f32(v));
    let r = run_seeded(&e, &[h(0.0), h(1.0)], 3);
    for l in r.leaves() {
        assert!(
            l.as_slice::<half::f16>()
                .unwrap()
                .iter()
                .all(|x| (0.0..1.0).contains(&x.to_f32()))
        );
    }
    let e = exe(&rng_module("u8", "rng_uniform", "300", "{0}"), true);
    let r = run_seeded(&e, &[Literal::scalar(250u8), Literal::scalar(255u8)], 3);
    for l in r.leaves() {
        assert!(
            l.as_slice::<u8>()
                .unwrap()
                .iter()
                .all(|x| (250..255).contains(x))
        );
    }
}

#[test]
fn rng_normal_moments_and_in_loops() {
    let e = exe(&rng_module("f64", "rng_normal", "4000", "{0}"), true);
    let r = run_seeded(&e, &[Literal::scalar(10.0f64), Literal::scalar(2.0f64)], 11);
    let v: Vec<f64> = r
        .leaves()
        .iter()
        .flat_map(|l| l.as_slice::<f64>().unwrap().to_vec())
        .collect();
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    assert!((mean - 10.0).abs() < 0.1, "mean {mean}");
    assert!((var.sqrt() - 2.0).abs() < 0.1, "sd {}", var.sqrt());
    // Inside a while loop every iteration draws new values.
    let text = r#"HloModule w
%cond (s: (s32[], f32[4])) -> pred[] {
  %s = (s32[], f32[4]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(3)
  ROOT %c = pred[] compare(%i, %n), direction=LT
}
%body (s: (s32[], f32[4])) -> (s32[], f32[4]) {
  %s = (s32[], f32[4]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %x = f32[4] get-tuple-element(%s), index=1
  %one = s32[] constant(1)
  %j = s32[] add(%i, %one)
  %lo = f32[] constant(0)
  %hi = f32[] constant(1)
  %r = f32[4] rng(%lo, %hi), distribution=rng_uniform
  %y = f32[4] add(%x, %r)
  ROOT %t = (s32[], f32[4]) tuple(%j, %y)
}
ENTRY %e () -> (s32[], f32[4]) {
  %z = s32[] constant(0)
  %x = f32[4] constant({0, 0, 0, 0})
  %t = (s32[], f32[4]) tuple(%z, %x)
  ROOT %w = (s32[], f32[4]) while(%t), condition=%cond, body=%body
}
"#;
    let e = exe(text, true);
    let got = run_seeded(&e, &[], 5);
    let m = parse_module(text, "w").unwrap();
    let opts = RunOptions {
        seed: 5,
        ..RunOptions::default()
    };
    assert_eq!(
        evaluate(&m, &[], &opts).unwrap(),
        got,
        "same stream as the evaluator"
    );
    let Literal::Tuple(t) = &got else {
        panic!("tuple")
    };
    assert!(
        t[1].as_slice::<f32>()
            .unwrap()
            .iter()
            .all(|&x| (0.0..3.0).contains(&x))
    );
}

#[test]
fn rng_bit_generator_matches_the_evaluator() {
    for (alg, st) in [
        ("rng_three_fry", "u64[2]"),
        ("rng_philox", "u64[3]"),
        ("rng_default", "u32[4]"),
        ("rng_philox", "u64[2]"),
    ] {
        for (bits, layout) in [
            ("u32[5,3]", "{0,1}"),
            ("f32[7]", "{0}"),
            ("u8[3,3]", "{1,0:P(4,5)}"),
        ] {
            let text = format!(
                "HloModule g\nENTRY %e (s: {st}) -> ({st}, {bits}) {{\n  %s = {st} parameter(0)\n  ROOT %g = ({st}, {bits}{layout}) rng-bit-generator(%s), algorithm={alg}\n}}\n"
            );
            let state = match st {
                "u32[4]" => Literal::vec1(vec![1u32, 2, 0xffff_ffff, 4]),
                "u64[3]" => Literal::vec1(vec![42u64, u64::MAX, 9]),
                _ => Literal::vec1(vec![42u64, u64::MAX - 1]),
            };
            let got = same(&text, std::slice::from_ref(&state));
            let Literal::Tuple(t) = &got else {
                panic!("tuple")
            };
            assert_eq!(t[0].shape(), state.shape());
            assert_ne!(t[0], state, "the counter advanced");
        }
    }
}

// ------------------------------------------------ custom calls and feeds

extern "C" fn twice_plus(out: *mut u8, ins: *const *const u8) {
    // f32[4] x, f32[] y -> f32[4] 2x + y
    unsafe {
        let x = *ins as *const f32;
        let y = *(*ins.add(1) as *const f32);
        let o = out as *mut f32;
        for i in 0..4 {
            *o.add(i) = 2.0 * *x.add(i) + y;
        }
    }
}

extern "C" fn split(out: *mut u8, ins: *const *const u8) {
    // s32[3] -> (s32[3] negated, (f32[] sum))
    unsafe {
        let x = *ins as *const i32;
        let table = out as *const *mut u8;
        let a = *table as *mut i32;
        let inner = *table.add(1) as *const *mut u8;
        let s = *inner as *mut f32;
        let mut sum = 0.0;
        for i in 0..3 {
            *a.add(i) = -*x.add(i);
            sum += *x.add(i) as f32;
        }
        *s = sum;
    }
}

fn registry_opts() -> RunOptions {
    let mut o = RunOptions::default();
    o.custom_calls.register("twice_plus", twice_plus);
    o.custom_calls.register("split", split);
    o
}

#[test]
fn custom_calls_through_the_registry() {
    let text = r#"HloModule c
ENTRY %e (x: f32[4], y: f32[]) -> (f32[4], (s32[3], (f32[]))) {
  %x = f32[4] parameter(0)
  %y = f32[] parameter(1)
  %a = f32[4] custom-call(%x, %y), custom_call_target="twice_plus"
  %i = s32[3] constant({1, -2, 7})
  %b = (s32[3], (f32[])) custom-call(%i), custom_call_target="split"
  %n = f32[4] negate(%a)
  ROOT %t = (f32[4], (s32[3], (f32[]))) tuple(%n, %b)
}
"#;
    let m = parse_module(text, "c").unwrap();
    let args = [
        Literal::vec1(vec![1.0f32, -0.5, 3.0, 0.0]),
        Literal::scalar(0.25f32),
    ];
    let opts = registry_opts();
    let want = evaluate(&m, &args, &opts).unwrap();
    for fusion in [true, false] {
        let e = exe(text, fusion);
        assert_eq!(
            e.stats().runtime_calls.len(),
            2,
            "{:?}",
            e.stats().runtime_calls
        );
        let got = e.run_with(&args, &opts).unwrap();
        assert_eq!(got, want);
        let Literal::Tuple(t) = &got else {
            panic!("tuple")
        };
        assert_eq!(
            t[0].as_slice::<f32>().unwrap(),
            &[-2.25, 0.75, -6.25, -0.25]
        );
        // Unregistered target: a run-time error, as in the evaluator.
        assert!(e.run(&args).is_err());
    }
}

#[test]
fn infeed_and_outfeed_queues() {
    let text = r#"HloModule f
ENTRY %e (x: f32[2,2]) -> f32[2,2] {
  %x = f32[2,2]{0,1} parameter(0)
  %tok = token[] after-all()
  %in = ((f32[2,2]{0,1}, s32[]), token[]) infeed(%tok)
  %d = (f32[2,2]{0,1}, s32[]) get-tuple-element(%in), index=0
  %v = f32[2,2]{0,1} get-tuple-element(%d), index=0
  %t2 = token[] get-tuple-element(%in), index=1
  %s = f32[2,2]{0,1} add(%x, %v)
  %o = token[] outfeed(%d, %t2)
  %o2 = token[] outfeed(%s, %o)
  ROOT %r = f32[2,2]{0,1} multiply(%s, %s)
}
"#;
    let m = parse_module(text, "f").unwrap();
    let x = Literal::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let feed = Literal::Tuple(vec![
        Literal::from_vec(&[2, 2], vec![0.5f32, -1.0, 2.0, 0.0]).unwrap(),
        Literal::scalar(9i32),
    ]);
    let eo = RunOptions::default();
    eo.push_infeed(feed.clone());
    let want = evaluate(&m, std::slice::from_ref(&x), &eo).unwrap();
    let want_out = eo.take_outfeed();
    for fusion in [true, false] {
        let e = exe(text, fusion);
        let jo = RunOptions::default();
        jo.push_infeed(feed.clone());
        let got = e.run_with(std::slice::from_ref(&x), &jo).unwrap();
        assert_eq!(got, want);
        assert_eq!(got.as_slice::<f32>().unwrap(), &[2.25, 1.0, 25.0, 16.0]);
        let out = jo.take_outfeed();
        assert_eq!(out.len(), 2);
        assert_eq!(out, want_out);
        // An empty queue is a run-time error.
        assert!(e.run(std::slice::from_ref(&x)).is_err());
    }
}

#[test]
fn all_reduce_single_replica_is_identity() {
    let text = r#"HloModule a
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %r = f32[] add(%a, %b)
}
ENTRY %e (x: f32[3]) -> (f32[3], f32[3]) {
  %x = f32[3] parameter(0)
  %ar = f32[3]{0} all-reduce(%x), replica_groups={}, to_apply=%add
  %n = f32[3] negate(%ar)
  ROOT %t = (f32[3], f32[3]) tuple(%ar, %n)
}
"#;
    let x = Literal::vec1(vec![1.0f32, -2.0, 0.5]);
    let got = same(text, std::slice::from_ref(&x));
    let Literal::Tuple(t) = &got else {
        panic!("tuple")
    };
    assert_eq!(t[0], x);
    // A replicated run of the single-replica entry point is refused.
    let e = exe(text, true);
    let opts = RunOptions {
        replica_count: Some(2),
        ..RunOptions::default()
    };
    assert!(e.run_with(std::slice::from_ref(&x), &opts).is_err());
    // `run_replicated` with the evaluator's sum order.
    let per: Vec<Vec<Literal>> = (0..2)
        .map(|r| vec![Literal::vec1(vec![1.0f32 + r as f32, 1e8, 0.1 * r as f32])])
        .collect();
    let m = parse_module(text, "a").unwrap();
    let want = rxla_eval::evaluate_replicated(&m, &per, &RunOptions::default()).unwrap();
    let got = e.run_replicated(&per, &RunOptions::default()).unwrap();
    assert_eq!(got, want);
}

/// Replicated runs on threads: all-reduce in replica groups (sum, max
/// with NaN, s32, in a loop: several collectives), per-replica rng seeds —
/// bit-identical to `evaluate_replicated`.
#[test]
fn replicated_all_reduce_matches_the_evaluator() {
    let text = r#"HloModule r, replica_count=4
%add (a: s32[], b: s32[]) -> s32[] {
  %a = s32[] parameter(0)
  %b = s32[] parameter(1)
  ROOT %r = s32[] add(%a, %b)
}
%max (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %r = f32[] maximum(%a, %b)
}
%fadd (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %r = f32[] add(%a, %b)
}
%cond (s: (s32[], f32[3])) -> pred[] {
  %s = (s32[], f32[3]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(3)
  ROOT %c = pred[] compare(%i, %n), direction=LT
}
%body (s: (s32[], f32[3])) -> (s32[], f32[3]) {
  %s = (s32[], f32[3]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %x = f32[3] get-tuple-element(%s), index=1
  %one = s32[] constant(1)
  %j = s32[] add(%i, %one)
  %lo = f32[] constant(0)
  %hi = f32[] constant(1)
  %r = f32[3] rng(%lo, %hi), distribution=rng_uniform
  %y = f32[3] add(%x, %r)
  %z = f32[3] all-reduce(%y), replica_groups={}, to_apply=%fadd
  ROOT %t = (s32[], f32[3]) tuple(%j, %z)
}
ENTRY %e (x: f32[2,3], k: s32[4]) -> (f32[2,3], s32[4], (s32[], f32[3])) {
  %x = f32[2,3]{0,1} parameter(0)
  %k = s32[4] parameter(1)
  %m = f32[2,3]{0,1} all-reduce(%x), replica_groups={{0,2},{3,1}}, to_apply=%max
  %s = s32[4] all-reduce(%k), replica_groups={}, to_apply=%add
  %z = s32[] constant(0)
  %v = f32[3] constant({0.5, -1, 2})
  %t = (s32[], f32[3]) tuple(%z, %v)
  %w = (s32[], f32[3]) while(%t), condition=%cond, body=%body
  ROOT %r = (f32[2,3], s32[4], (s32[], f32[3])) tuple(%m, %s, %w)
}
"#;
    let m = parse_module(text, "r").unwrap();
    let per: Vec<Vec<Literal>> = (0..4)
        .map(|r| {
            let v: Vec<f32> = (0..6)
                .map(|j| match (r + j) % 5 {
                    0 => f32::NAN,
                    1 => -0.0,
                    _ => (r * 7 + j) as f32 * 0.3 - 2.0,
                })
                .collect();
            vec![
                Literal::from_vec(&[2, 3], v).unwrap(),
                Literal::vec1(vec![r, i32::MAX, -5 * r, 1]),
            ]
        })
        .collect();
    let opts = RunOptions {
        seed: 3,
        ..RunOptions::default()
    };
    let want = rxla_eval::evaluate_replicated(&m, &per, &opts).unwrap();
    for fusion in [true, false] {
        let e = exe(text, fusion);
        let got = e.run_replicated(&per, &opts).unwrap();
        assert_eq!(got.len(), 4);
        for (g, w) in got.iter().zip(&want) {
            if let Err(err) = same_values(w, g) {
                panic!("fusion={fusion}: {err}\ngot  {g}\nwant {w}");
            }
        }
        // Replicas 0 and 2 share a group, 1 and 3 another.
        let Literal::Tuple(t0) = &got[0] else {
            panic!("tuple")
        };
        let Literal::Tuple(t2) = &got[2] else {
            panic!("tuple")
        };
        same_values(&t0[0], &t2[0]).expect("one group, one value");
        assert_eq!(
            t0[1].as_slice::<i32>().unwrap(),
            &[6, i32::MAX.wrapping_mul(4), -30, 4]
        );
        // A wrong replica count is an error, not a hang.
        assert!(e.run_replicated(&per[..2], &RunOptions::default()).is_err());
    }
}

// ------------------------------------------------ half total-order compares

fn half_specials(bf: bool) -> Literal {
    let bits: Vec<u16> = if bf {
        vec![
            0x3F80, 0xBF80, 0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7FC1, 0x0001, 0x8001,
            0x4040, 0x3F80, 0x0000,
        ]
    } else {
        vec![
            0x3C00, 0xBC00, 0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7E01, 0x0001, 0x8001,
            0x4200, 0x3C00, 0x0000,
        ]
    };
    if bf {
        Literal::vec1(bits.into_iter().map(half::bf16::from_bits).collect())
    } else {
        Literal::vec1(bits.into_iter().map(half::f16::from_bits).collect())
    }
}

/// Every direction of a total-order compare of f16/bf16 specials (±0,
/// ±inf, quiet NaNs of both signs and payloads, subnormals, ties) against
/// every rotation, and a half sort with a total-order comparator.
#[test]
fn half_total_order_compares_and_sorts() {
    for (t, bf) in [("f16", false), ("bf16", true)] {
        let x = half_specials(bf);
        for dir in ["LT", "LE", "GT", "GE", "EQ", "NE"] {
            let text = format!(
                "HloModule h\nENTRY %e (x: {t}[14]) -> pred[14,14] {{\n  %x = {t}[14] parameter(0)\n  %a = {t}[14,14] broadcast(%x), dimensions={{0}}\n  %b = {t}[14,14] broadcast(%x), dimensions={{1}}\n  ROOT %c = pred[14,14] compare(%a, %b), direction={dir}, type=TOTALORDER\n}}\n"
            );
            same(&text, std::slice::from_ref(&x));
        }
        let text = format!(
            "HloModule h\n%lt (a: {t}[], b: {t}[]) -> pred[] {{\n  %a = {t}[] parameter(0)\n  %b = {t}[] parameter(1)\n  ROOT %r = pred[] compare(%a, %b), direction=LT, type=TOTALORDER\n}}\nENTRY %e (x: {t}[14]) -> {t}[14] {{\n  %x = {t}[14] parameter(0)\n  ROOT %s = {t}[14] sort(%x), dimensions={{0}}, is_stable=true, to_apply=%lt\n}}\n"
        );
        same(&text, std::slice::from_ref(&x));
    }
}

// ------------------------------------------------ non-f32 convolution loops

/// One spatial window dimension: (size, stride, pad_low, pad_high,
/// lhs_dilate, rhs_dilate, reversal).
type Wd = (i64, i64, i64, i64, i64, i64, i64);

fn conv_out(b: i64, w: Wd) -> i64 {
    let (size, stride, lo, hi, ld, rd, _) = w;
    let db = if b == 0 { 0 } else { (b - 1) * ld + 1 };
    let padded = db + lo + hi;
    let dw = if size == 0 { 0 } else { (size - 1) * rd + 1 };
    if padded < dw {
        0
    } else {
        (padded - dw) / stride + 1
    }
}

/// A b01f_01io->b01f convolution module (`lay` = input layout).
#[allow(clippy::too_many_arguments)]
fn conv_text(
    t_in: &str,
    t_out: &str,
    batch: i64,
    sp: [i64; 2],
    feat: i64,
    out_feat: i64,
    w: [Wd; 2],
    groups: (i64, i64),
    lay: &str,
) -> String {
    let (fgc, bgc) = groups;
    let o: Vec<i64> = (0..2).map(|s| conv_out(sp[s], w[s])).collect();
    let win = format!(
        "size={}x{} stride={}x{} pad={}_{}x{}_{} lhs_dilate={}x{} rhs_dilate={}x{} rhs_reversal={}x{}",
        w[0].0,
        w[1].0,
        w[0].1,
        w[1].1,
        w[0].2,
        w[0].3,
        w[1].2,
        w[1].3,
        w[0].4,
        w[1].4,
        w[0].5,
        w[1].5,
        w[0].6,
        w[1].6
    );
    format!(
        "HloModule c\nENTRY %e (x: {t_in}[{batch},{},{},{feat}], k: {t_in}[{},{},{},{out_feat}]) -> {t_out}[{},{},{},{out_feat}] {{\n  %x = {t_in}[{batch},{},{},{feat}]{lay} parameter(0)\n  %k = {t_in}[{},{},{},{out_feat}]{{0,1,3,2}} parameter(1)\n  ROOT %c = {t_out}[{},{},{},{out_feat}] convolution(%x, %k), window={{{win}}}, dim_labels=b01f_01io->b01f, feature_group_count={fgc}, batch_group_count={bgc}\n}}\n",
        sp[0],
        sp[1],
        w[0].0,
        w[1].0,
        feat / fgc,
        batch / bgc,
        o[0],
        o[1],
        sp[0],
        sp[1],
        w[0].0,
        w[1].0,
        feat / fgc,
        batch / bgc,
        o[0],
        o[1],
    )
}

fn conv_args(text: &str, seed: u64) -> Vec<Literal> {
    let m = parse_module(text, "c").unwrap_or_else(|e| panic!("{e}\n{text}"));
    let entry = m.entry_computation();
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    entry
        .parameters()
        .iter()
        .map(|&p| {
            let s = entry.get(p).shape.as_array().unwrap().clone();
            let n = s.element_count().unwrap();
            let v: Vec<f64> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    match x % 128 {
                        0 => f64::NAN,
                        1 => f64::INFINITY,
                        2..=9 => -0.0,
                        _ => ((x >> 8) % 13) as f64 * 0.375 - 2.0,
                    }
                })
                .collect();
            let data = match s.element_type {
                rxla_ir::ElementType::Pred => {
                    rxla_ir::ArrayData::Pred(v.iter().map(|&y| y > 0.0).collect())
                }
                rxla_ir::ElementType::S32 => {
                    rxla_ir::ArrayData::S32(v.iter().map(|&y| (y * 1e6) as i32).collect())
                }
                rxla_ir::ElementType::S8 => {
                    rxla_ir::ArrayData::S8(v.iter().map(|&y| (y * 30.0) as i8).collect())
                }
                rxla_ir::ElementType::F16 => {
                    rxla_ir::ArrayData::F16(v.iter().map(|&y| half::f16::from_f64(y)).collect())
                }
                rxla_ir::ElementType::BF16 => {
                    rxla_ir::ArrayData::BF16(v.iter().map(|&y| half::bf16::from_f64(y)).collect())
                }
                rxla_ir::ElementType::F32 => {
                    rxla_ir::ArrayData::F32(v.iter().map(|&y| y as f32).collect())
                }
                _ => rxla_ir::ArrayData::F64(v),
            };
            Literal::Array(rxla_ir::ArrayLiteral::new(s, data).unwrap())
        })
        .collect()
}

/// Convolutions the GEMM engine does not take run as exact loops:
/// integer (wrapping), half (f32 accumulation, one rounding), f64, pred,
/// with strides, low/high (also negative) padding, both dilations,
/// reversal, feature and batch groups, in several input layouts — bit
/// for bit the evaluator's values (NaN/inf/-0 inputs included).
#[test]
fn non_f32_convolutions_are_exact_loops() {
    let plain: Wd = (3, 1, 1, 1, 1, 1, 0);
    let fancy: Wd = (2, 2, 2, -1, 2, 2, 1);
    let odd: Wd = (3, 1, 0, 2, 1, 2, 0);
    let cases = [
        ("s32", "s32", 2, [5, 4], 4, 6, [plain, fancy], (1, 1)),
        ("f16", "f16", 2, [4, 5], 4, 6, [fancy, odd], (2, 1)),
        ("bf16", "bf16", 4, [3, 4], 3, 4, [odd, plain], (1, 2)),
        ("f64", "f64", 2, [6, 3], 2, 2, [plain, odd], (1, 1)),
        ("pred", "pred", 1, [4, 4], 2, 3, [plain, fancy], (1, 1)),
        ("f32", "f32", 2, [3, 0], 2, 2, [plain, plain], (1, 1)),
    ];
    for (k, (ti, to, b, sp, f, of, w, g)) in cases.into_iter().enumerate() {
        for lay in ["{3,2,1,0}", "{0,1,2,3}", "{2,0,3,1}"] {
            let text = conv_text(ti, to, b, sp, f, of, w, g, lay);
            let args = conv_args(&text, k as u64 + 1);
            let got = same(&text, &args);
            // Mostly finite results (specials are rare in the inputs).
            let nans = got.to_text().matches("nan").count();
            assert!(nans * 4 < got.leaves()[0].data.len() + 4, "{got}");
        }
    }
    // f32 with a padded input layout: the GEMM engine declines it.
    let text = conv_text(
        "f32",
        "f32",
        2,
        [4, 3],
        2,
        2,
        [fancy, plain],
        (1, 1),
        "{3,2,1,0:P(2,5,4,3)}",
    );
    let args = conv_args(&text, 9);
    same(&text, &args);
}

/// Kernels read padded inputs through their physical strides (fused
/// elementwise, transpose, reduce, dot operands; vectorized and scalar).
#[test]
fn kernels_read_padded_inputs() {
    let text = r#"HloModule p
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %r = f32[] add(%a, %b)
}
ENTRY %e (x: f32[5,9], y: f32[9,5], z: s32[5,9]) -> (f32[5,9], f32[5], f32[5,5], s32[9,5]) {
  %x = f32[5,9]{1,0:P(6,12)} parameter(0)
  %y = f32[9,5]{0,1:P(10,7)} parameter(1)
  %z = s32[5,9]{0,1:P(8,9)} parameter(2)
  %t = f32[5,9] transpose(%y), dimensions={1,0}
  %m = f32[5,9] multiply(%x, %t)
  %e = f32[5,9] exponential(%m)
  %zero = f32[] constant(0)
  %s = f32[5] reduce(%m, %zero), dimensions={1}, to_apply=%add
  %d = f32[5,5] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %zt = s32[9,5] transpose(%z), dimensions={1,0}
  ROOT %r = (f32[5,9], f32[5], f32[5,5], s32[9,5]) tuple(%e, %s, %d, %zt)
}
"#;
    let x = Literal::from_vec(
        &[5, 9],
        (0..45).map(|v| (v % 7) as f32 * 0.25 - 0.5).collect(),
    )
    .unwrap();
    let y = Literal::from_vec(
        &[9, 5],
        (0..45).map(|v| (v % 5) as f32 * 0.5 - 1.0).collect(),
    )
    .unwrap();
    let z = Literal::from_vec(&[5, 9], (0..45).map(|v| v * 3 - 20).collect()).unwrap();
    let m = parse_module(text, "p").unwrap();
    let want = evaluate(
        &m,
        &[x.clone(), y.clone(), z.clone()],
        &RunOptions::default(),
    )
    .unwrap();
    for vectorize in [true, false] {
        for fusion in [true, false] {
            let opts = CompileOptions {
                vectorize,
                ..strict(fusion)
            };
            let e = compile(&m, &opts).expect("compiles without fallback");
            let got = e.run(&[x.clone(), y.clone(), z.clone()]).unwrap();
            // exp may differ from the evaluator's libm by a few ulp; the
            // rest is exact.
            let (Literal::Tuple(g), Literal::Tuple(w)) = (&got, &want) else {
                panic!("tuples")
            };
            for (a, b) in g[0]
                .as_slice::<f32>()
                .unwrap()
                .iter()
                .zip(w[0].as_slice::<f32>().unwrap())
            {
                assert!((a - b).abs() <= 1e-6 * b.abs(), "{a} vs {b}");
            }
            assert_eq!(g[1], w[1]);
            assert_eq!(g[3], w[3]);
            for (a, b) in g[2]
                .as_slice::<f32>()
                .unwrap()
                .iter()
                .zip(w[2].as_slice::<f32>().unwrap())
            {
                assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0), "{a} vs {b}");
            }
        }
    }
}

/// Kernels with padded result layouts write unpadded scratch buffers that
/// are relayouted with the padding value (elementwise, reduce, variadic
/// reduce, in a fusion and alone); the physical bytes equal the
/// evaluator's `to_physical_bytes`.
#[test]
fn kernels_write_padded_results() {
    let text = r#"HloModule p
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %r = f32[] add(%a, %b)
}
%am (a: f32[], i: s32[], b: f32[], j: s32[]) -> (f32[], s32[]) {
  %a = f32[] parameter(0)
  %i = s32[] parameter(1)
  %b = f32[] parameter(2)
  %j = s32[] parameter(3)
  %g = pred[] compare(%a, %b), direction=GE
  %v = f32[] select(%g, %a, %b)
  %k = s32[] select(%g, %i, %j)
  ROOT %t = (f32[], s32[]) tuple(%v, %k)
}
ENTRY %e (x: f32[5,9], y: f32[5,9]) -> (f32[5,9], f32[5], f32[5], s32[5]) {
  %x = f32[5,9] parameter(0)
  %y = f32[5,9]{0,1} parameter(1)
  %m = f32[5,9]{0,1:P(8,10):V(-1)} multiply(%x, %y)
  %t = f32[5,9]{1,0:P(6,12):V(7)} tanh(%m)
  %zero = f32[] constant(0)
  %s = f32[5]{0:P(8):V(3)} reduce(%m, %zero), dimensions={1}, to_apply=%add
  %io = s32[5,9] iota(), iota_dimension=1
  %mi = s32[] constant(0)
  %ninf = f32[] constant(-inf)
  %r = (f32[5]{0:P(6)}, s32[5]{0:P(7):V(9)}) reduce(%m, %io, %ninf, %mi), dimensions={1}, to_apply=%am
  %r0 = f32[5]{0:P(6)} get-tuple-element(%r), index=0
  %r1 = s32[5]{0:P(7):V(9)} get-tuple-element(%r), index=1
  ROOT %o = (f32[5,9]{1,0:P(6,12):V(7)}, f32[5]{0:P(8):V(3)}, f32[5]{0:P(6)}, s32[5]{0:P(7):V(9)}) tuple(%t, %s, %r0, %r1)
}
"#;
    let x = Literal::from_vec(
        &[5, 9],
        (0..45).map(|v| (v % 7) as f32 * 0.25 - 0.5).collect(),
    )
    .unwrap();
    let y = Literal::from_vec(
        &[5, 9],
        (0..45).map(|v| (v % 5) as f32 * 0.5 - 1.0).collect(),
    )
    .unwrap();
    let m = parse_module(text, "p").unwrap();
    let want = evaluate(&m, &[x.clone(), y.clone()], &RunOptions::default()).unwrap();
    for fusion in [true, false] {
        let e = exe(text, fusion);
        let got = e.run(&[x.clone(), y.clone()]).unwrap();
        let (Literal::Tuple(g), Literal::Tuple(w)) = (&got, &want) else {
            panic!("tuples")
        };
        for (a, b) in g[0]
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .zip(w[0].as_slice::<f32>().unwrap())
        {
            assert!((a - b).abs() <= 1e-6, "tanh {a} vs {b}");
        }
        assert_eq!(g[1..], w[1..]);
        // Physical bytes of the padded leaves, padding values included.
        let ins: Vec<Vec<u8>> = [&x, &y]
            .iter()
            .zip(e.parameter_shapes())
            .map(|(a, p)| {
                a.relayout_to(p).unwrap().leaves()[0]
                    .to_physical_bytes()
                    .unwrap()
            })
            .collect();
        let leaves = e.result_shape().leaves();
        let mut outs: Vec<Vec<u8>> = leaves
            .iter()
            .map(|l| vec![0xAAu8; l.byte_size().unwrap()])
            .collect();
        {
            let i: Vec<&[u8]> = ins.iter().map(|v| v.as_slice()).collect();
            let mut o: Vec<&mut [u8]> = outs.iter_mut().map(|v| v.as_mut_slice()).collect();
            e.run_into(&i, &mut o).unwrap();
        }
        for k in 1..4 {
            let wl = want.leaves()[k].relayout(leaves[k].layout.clone()).unwrap();
            assert_eq!(outs[k], wl.to_physical_bytes().unwrap(), "leaf {k}");
        }
        let pad7 = 7.0f32.to_le_bytes();
        assert_eq!(&outs[0][36..40], &pad7, "padding of the tanh result");
    }
}

/// A padded, input-dilated f32 convolution runs on the GEMM engine; when
/// its kernel holds inf/NaN it runs the exact loop kernel instead (GEMM
/// would multiply inserted zeros by inf) — bit-identical to the evaluator.
#[test]
fn guarded_f32_convolution_uses_the_loop_kernel() {
    let w: Wd = (3, 1, 2, 1, 2, 1, 0);
    let text = conv_text(
        "f32",
        "f32",
        2,
        [4, 3],
        2,
        3,
        [w, (2, 1, 1, 0, 1, 1, 0)],
        (1, 1),
        "{3,2,1,0}",
    );
    let m = parse_module(&text, "g").unwrap();
    let mut args = conv_args(&text, 5);
    let opts = CompileOptions {
        keep_clif: true,
        ..strict(true)
    };
    let e = compile(&m, &opts).unwrap();
    assert!(
        e.stats().clif.iter().any(|(n, _)| n.ends_with("_guard")),
        "a GEMM convolution with a loop-kernel guard"
    );
    // A finite kernel: the GEMM result, equal within rounding.
    let finite: Vec<f32> = (0..36).map(|v| (v % 7) as f32 * 0.5 - 1.5).collect();
    args[1] = Literal::from_vec(&[3, 2, 2, 3], finite).unwrap();
    let x: Vec<f32> = (0..48).map(|v| (v % 5) as f32 * 0.25).collect();
    args[0] = Literal::from_vec(&[2, 4, 3, 2], x).unwrap();
    let want = evaluate(&m, &args, &RunOptions::default()).unwrap();
    let got = e.run(&args).unwrap();
    rxla_eval::compare_with_tolerance(
        got.as_array().unwrap(),
        want.as_array().unwrap(),
        1e-5,
        1e-5,
    )
    .unwrap();
    // An infinite kernel element: the loops, exactly.
    let mut inf: Vec<f32> = (0..36).map(|v| (v % 7) as f32 * 0.5 - 1.5).collect();
    inf[4] = f32::INFINITY;
    inf[20] = f32::NAN;
    args[1] = Literal::from_vec(&[3, 2, 2, 3], inf).unwrap();
    let want = evaluate(&m, &args, &RunOptions::default()).unwrap();
    let got = e.run(&args).unwrap();
    same_values(&want, &got).unwrap();
    assert!(got.as_slice::<f32>().unwrap().iter().any(|v| v.is_finite()));
}

/// Width-changing bitcast-convert (narrower: an extra minor dimension;
/// wider: the minor dimension folded), little-endian like the evaluator,
/// NaN payloads and signs kept bit for bit, in several layouts.
#[test]
fn width_changing_bitcast_convert() {
    let f = Literal::from_vec(
        &[2, 3],
        vec![
            1.5f32,
            -0.0,
            f32::from_bits(0x7fa0_0001),
            -2.25e-39,
            f32::INFINITY,
            3.0e9,
        ],
    )
    .unwrap();
    let i = Literal::from_vec(
        &[3, 4],
        (0..12)
            .map(|v: i32| v.wrapping_mul(0x1234_5679).wrapping_sub(0x7000_0000))
            .collect::<Vec<i32>>(),
    )
    .unwrap();
    let b = Literal::from_vec(
        &[2, 8],
        (0..16).map(|v| (v * 37 + 250) as u8).collect::<Vec<u8>>(),
    )
    .unwrap();
    let text = r#"HloModule b
ENTRY %e (f: f32[2,3], i: s32[3,4], b: u8[2,8]) -> (s16[2,3,2], u8[2,3,4], f64[3,2], s64[3,2], f32[2,2], u16[2,4], u64[2]) {
  %f = f32[2,3]{0,1} parameter(0)
  %i = s32[3,4] parameter(1)
  %b = u8[2,8]{0,1} parameter(2)
  %a = s16[2,3,2]{0,1,2} bitcast-convert(%f)
  %c = u8[2,3,4] bitcast-convert(%f)
  %ir = s32[3,2,2] reshape(%i)
  %d = f64[3,2]{0,1} bitcast-convert(%ir)
  %g = s64[3,2] bitcast-convert(%ir)
  %br = u8[2,2,4] reshape(%b)
  %h = f32[2,2] bitcast-convert(%br)
  %bb = u8[2,4,2] reshape(%b)
  %k = u16[2,4]{0,1} bitcast-convert(%bb)
  %l = u64[2] bitcast-convert(%b)
  ROOT %t = (s16[2,3,2]{0,1,2}, u8[2,3,4], f64[3,2]{0,1}, s64[3,2], f32[2,2], u16[2,4]{0,1}, u64[2]) tuple(%a, %c, %d, %g, %h, %k, %l)
}
"#;
    let got = same(text, &[f, i, b]);
    let Literal::Tuple(t) = &got else {
        panic!("tuple")
    };
    // 1.5f32 = 0x3fc00000: low half 0, high half 0x3fc0.
    assert_eq!(&t[0].as_slice::<i16>().unwrap()[..2], &[0, 0x3fc0]);
}

/// Tuple-shaped `copy` and scalar-predicate `select` of tuples are host
/// steps (aliases, or relayouts where the declared layouts differ).
#[test]
fn tuple_copy_and_select() {
    let text = r#"HloModule t
ENTRY %e (p: pred[], x: f32[2,3], y: s32[4]) -> ((f32[2,3], s32[4]), (f32[2,3], s32[4])) {
  %p = pred[] parameter(0)
  %x = f32[2,3] parameter(1)
  %y = s32[4] parameter(2)
  %nx = f32[2,3] negate(%x)
  %ny = s32[4] negate(%y)
  %a = (f32[2,3], s32[4]) tuple(%x, %y)
  %b = (f32[2,3]{0,1}, s32[4]) tuple(%nx, %ny)
  %c = (f32[2,3]{0,1}, s32[4]) copy(%a)
  %s = (f32[2,3], s32[4]) select(%p, %a, %b)
  ROOT %r = ((f32[2,3], s32[4]), (f32[2,3]{0,1}, s32[4])) tuple(%s, %c)
}
"#;
    let x = Literal::from_vec(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let y = Literal::vec1(vec![1i32, -2, 3, -4]);
    for p in [true, false] {
        let got = same(text, &[Literal::scalar(p), x.clone(), y.clone()]);
        let Literal::Tuple(t) = &got else {
            panic!("tuple")
        };
        let Literal::Tuple(s) = &t[0] else {
            panic!("tuple")
        };
        let want0 = if p { 1 } else { -1 };
        assert_eq!(s[1].as_slice::<i32>().unwrap()[0], want0);
    }
}

/// Calls, conditionals and loops whose callee layouts differ from the
/// caller's relayout their arguments and results at the boundary.
#[test]
fn control_flow_across_layout_boundaries() {
    let text = r#"HloModule c
%f (a: f32[2,3], b: (s32[3,2], f32[])) -> (f32[2,3], s32[3,2]) {
  %a = f32[2,3]{1,0} parameter(0)
  %b = (s32[3,2]{0,1}, f32[]) parameter(1)
  %i = s32[3,2]{0,1} get-tuple-element(%b), index=0
  %s = f32[] get-tuple-element(%b), index=1
  %sb = f32[2,3]{1,0} broadcast(%s), dimensions={}
  %x = f32[2,3]{1,0} add(%a, %sb)
  %j = s32[3,2]{0,1} negate(%i)
  ROOT %t = (f32[2,3]{1,0}, s32[3,2]{0,1}) tuple(%x, %j)
}
%t1 (a: f32[2,3]) -> f32[2,3] {
  %a = f32[2,3]{1,0} parameter(0)
  ROOT %n = f32[2,3]{1,0} negate(%a)
}
%t2 (a: f32[2,3]) -> f32[2,3] {
  ROOT %a = f32[2,3]{0,1} parameter(0)
}
%cond (s: (s32[], f32[2,3])) -> pred[] {
  %s = (s32[], f32[2,3]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(3)
  ROOT %c = pred[] compare(%i, %n), direction=LT
}
%body (s: (s32[], f32[2,3])) -> (s32[], f32[2,3]) {
  %s = (s32[], f32[2,3]{0,1}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %x = f32[2,3]{0,1} get-tuple-element(%s), index=1
  %one = s32[] constant(1)
  %j = s32[] add(%i, %one)
  %two = f32[] constant(2)
  %tb = f32[2,3]{0,1} broadcast(%two), dimensions={}
  %y = f32[2,3]{0,1} multiply(%x, %tb)
  ROOT %t = (s32[], f32[2,3]{1,0}) tuple(%j, %y)
}
ENTRY %e (p: s32[], x: f32[2,3], y: s32[3,2]) -> ((f32[2,3], s32[3,2]), f32[2,3], (s32[], f32[2,3])) {
  %p = s32[] parameter(0)
  %x = f32[2,3]{0,1} parameter(1)
  %y = s32[3,2]{1,0} parameter(2)
  %h = f32[] constant(0.5)
  %b = (s32[3,2]{1,0}, f32[]) tuple(%y, %h)
  %c = (f32[2,3]{0,1}, s32[3,2]{1,0}) call(%x, %b), to_apply=%f
  %k = f32[2,3]{0,1} conditional(%p, %x, %x), branch_computations={%t1, %t2}
  %z = s32[] constant(0)
  %w0 = (s32[], f32[2,3]{0,1}) tuple(%z, %x)
  %w = (s32[], f32[2,3]{1,0}) while(%w0), condition=%cond, body=%body
  ROOT %r = ((f32[2,3]{0,1}, s32[3,2]{1,0}), f32[2,3]{0,1}, (s32[], f32[2,3]{1,0})) tuple(%c, %k, %w)
}
"#;
    let x = Literal::from_vec(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let y = Literal::from_vec(&[3, 2], vec![1i32, 2, 3, 4, 5, 6]).unwrap();
    for p in [0, 1, 7] {
        let got = same(text, &[Literal::scalar(p), x.clone(), y.clone()]);
        let Literal::Tuple(t) = &got else {
            panic!("tuple")
        };
        let first = if p == 0 { -1.0 } else { 1.0 };
        assert_eq!(t[1].as_slice::<f32>().unwrap()[0], first);
        let Literal::Tuple(w) = &t[2] else {
            panic!("tuple")
        };
        assert_eq!(
            w[1].as_slice::<f32>().unwrap(),
            &[8.0, 16.0, 24.0, 32.0, 40.0, 48.0]
        );
    }
}

/// A multi-output fusion whose parameter layouts differ from its
/// operands' runs its parts with boundary relayouts.
#[test]
fn multi_output_fusion_across_layouts() {
    let text = r#"HloModule m
%fc (a: f32[2,3], b: s32[3,2]) -> (f32[2,3], s32[3,2]) {
  %a = f32[2,3]{1,0} parameter(0)
  %b = s32[3,2]{1,0} parameter(1)
  %n = f32[2,3]{1,0} negate(%a)
  %m = s32[3,2]{1,0} multiply(%b, %b)
  ROOT %t = (f32[2,3]{1,0}, s32[3,2]{1,0}) tuple(%n, %m)
}
ENTRY %e (x: f32[2,3], y: s32[3,2]) -> (f32[2,3], s32[3,2]) {
  %x = f32[2,3]{0,1} parameter(0)
  %y = s32[3,2]{0,1} parameter(1)
  ROOT %f = (f32[2,3]{0,1}, s32[3,2]{1,0}) fusion(%x, %y), kind=kLoop, calls=%fc
}
"#;
    let x = Literal::from_vec(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let y = Literal::from_vec(&[3, 2], vec![1i32, -2, 3, -4, 5, -6]).unwrap();
    let got = same(text, &[x, y]);
    let Literal::Tuple(t) = &got else {
        panic!("tuple")
    };
    assert_eq!(t[1].as_slice::<i32>().unwrap(), &[1, 4, 9, 16, 25, 36]);
}

/// Replicas meeting at different all-reduce instructions (a sum in one
/// branch, a product in the other) fail with both named instead of
/// combining silently; invalid replica groups are refused before the run;
/// many collectives in a loop complete (issue 20).
#[test]
fn replicated_all_reduce_mismatches_and_groups() {
    let text = "HloModule m, replica_count=2
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
    let m = parse_module(text, "rt").unwrap();
    let e = compile(&m, &strict(true)).unwrap();
    let args = |a: bool, b: bool| {
        vec![
            vec![Literal::scalar(a), Literal::vec1(vec![1.0f32, 2.0])],
            vec![Literal::scalar(b), Literal::vec1(vec![3.0f32, 4.0])],
        ]
    };
    let err = e
        .run_replicated(&args(true, false), &RunOptions::default())
        .expect_err("different all-reduces must not combine")
        .to_string();
    assert!(
        err.contains("sum.1") && err.contains("prod.2") && err.contains("reduced by mul"),
        "{err}"
    );
    let ok = e
        .run_replicated(&args(false, false), &RunOptions::default())
        .unwrap();
    assert_eq!(ok[0], Literal::vec1(vec![3.0f32, 8.0]));

    let groups = |g: &str| {
        format!(
            "HloModule m, replica_count=3
add {{
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}}
ENTRY e {{
  p = s32[] parameter(0)
  ROOT ar.3 = s32[] all-reduce(p), replica_groups={g}, to_apply=add
}}
"
        )
    };
    let per: Vec<Vec<Literal>> = (0..3).map(|r| vec![Literal::scalar(r)]).collect();
    for (g, want) in [
        (
            "{{0,1},{1,2}}",
            "ar.3: replica 1 appears more than once in replica_groups",
        ),
        (
            "{{0,1},{2,5}}",
            "ar.3: replica_groups names replica 5 but there are 3 replicas",
        ),
    ] {
        let e = exe(&groups(g), true);
        let err = e
            .run_replicated(&per, &RunOptions::default())
            .expect_err(g)
            .to_string();
        assert!(err.contains(want), "{g}: {err}");
    }

    // 3000 all-reduces per replica in a loop.
    let looped = "HloModule l, replica_count=4
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
cond {
  s = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3000)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[64] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  q = f32[] constant(0.25)
  qb = f32[64] broadcast(q), dimensions={}
  y = f32[64] multiply(x, qb)
  z = f32[64] all-reduce(y), replica_groups={}, to_apply=add
  ROOT t = (s32[], f32[64]) tuple(j, z)
}
ENTRY e {
  p = f32[64] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[64]) tuple(z, p)
  w = (s32[], f32[64]) while(t), condition=cond, body=body
  ROOT r = f32[64] get-tuple-element(w), index=1
}
";
    let per: Vec<Vec<Literal>> = (0..4)
        .map(|_| vec![Literal::vec1(vec![1.0f32; 64])])
        .collect();
    let out = exe(looped, true)
        .run_replicated(&per, &RunOptions::default())
        .unwrap();
    assert_eq!(out[3], Literal::vec1(vec![1.0f32; 64]));
}
