//! `simplify` on computations with non-default layouts, tuples and
//! variadic reduce: it rewrites them (it used to skip any computation
//! with a non-default layout), keeps the parameters' and the root's
//! layouts, hands bitcasts their operands in the original physical order,
//! and the evaluator's result is the same *physical bytes* before and
//! after (so a changed layout would show). Hand-written cases (their
//! modules and CHECK lines are filetests in
//! `tests/filetests/opt/simplify_layouts/`), cases that must stay
//! unchanged, and random modules of
//! elementwise ops, transposes, copies, reshapes, bitcasts and tuples
//! with random layouts.

use crate::common;
use common::{parse, run};
use rxla_ir::{ArrayData, ArrayLiteral, ElementType, Literal, Module, Shape};

// ------------------------------------------------------------ helpers

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

/// Random f32 arguments (specials included) for every ENTRY parameter.
fn args(m: &Module, seed: u64) -> Vec<Literal> {
    let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let specials = [0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY, 1.5, -2.25];
    m.entry_computation()
        .program_shape()
        .parameters
        .iter()
        .map(|s| arg(&mut r, s, &specials))
        .collect()
}

fn arg(r: &mut Rng, s: &Shape, specials: &[f32]) -> Literal {
    match s {
        Shape::Tuple(t) => Literal::Tuple(t.iter().map(|e| arg(r, e, specials)).collect()),
        Shape::Array(a) => {
            let n = a.element_count().expect("count");
            let data = match a.element_type {
                ElementType::F32 => ArrayData::F32(
                    (0..n)
                        .map(|_| {
                            if r.below(4) == 0 {
                                specials[r.below(specials.len())]
                            } else {
                                r.below(64) as f32 / 8.0 - 4.0
                            }
                        })
                        .collect(),
                ),
                ElementType::S32 => ArrayData::S32((0..n).map(|_| r.below(9) as i32 - 4).collect()),
                t => panic!("no arguments for {t}"),
            };
            Literal::Array(ArrayLiteral::new(a.clone(), data).expect("literal"))
        }
    }
}

/// The physical bytes of every leaf of a result (its layout applied).
fn physical(l: &Literal) -> Vec<Vec<u8>> {
    l.leaves()
        .iter()
        .map(|a| a.to_physical_bytes().expect("physical bytes"))
        .collect()
}

fn eval(m: &Module, args: &[Literal]) -> Literal {
    rxla_eval::evaluate(m, args, &rxla_eval::RunOptions::default())
        .unwrap_or_else(|e| panic!("{e}\n{}", rxla_ir::print_module(m)))
}

/// Runs `simplify` on `text`; checks that the result verifies, keeps the
/// ENTRY signature (layouts included) and gives the same physical bytes
/// on a few argument sets. Returns the printed result and whether it
/// changed.
fn check(text: &str) -> (String, bool) {
    check_with("simplify", text)
}

/// [`check`] with another pipeline.
fn check_with(pipeline: &str, text: &str) -> (String, bool) {
    let before = parse(text);
    let (after_text, changed) = run(pipeline, text);
    let after = parse(&after_text);
    assert_eq!(
        before.entry_computation().program_shape(),
        after.entry_computation().program_shape(),
        "signature changed:\n{text}\n{after_text}"
    );
    for seed in 1..5 {
        let a = args(&before, seed);
        let (want, got) = (eval(&before, &a), eval(&after, &a));
        assert_eq!(
            want.shape(),
            got.shape(),
            "result shape changed:\n{text}\n{after_text}"
        );
        assert_eq!(
            physical(&want),
            physical(&got),
            "physical bytes changed:\n{text}\n{after_text}"
        );
    }
    // Idempotent: a second run finds nothing cheaper.
    let (again, changed_again) = run(pipeline, &after_text);
    assert!(
        !changed_again || pipeline != "simplify",
        "not idempotent:\n{text}\n{after_text}\n{again}"
    );
    (after_text, changed)
}

// ------------------------------------------------------------ layouts

/// A hand-written case: the filetest `tests/filetests/opt/simplify_layouts/NAME.hlo`
/// checks the optimized text; here it runs through [`check`].
macro_rules! case {
    ($name:literal) => {
        include_str!(concat!(
            "../../tests/filetests/opt/simplify_layouts/",
            $name,
            ".hlo"
        ))
    };
}

const COLUMN_MAJOR: &str = case!("column_major");

#[test]
fn add_neg_zero_on_column_major_operands_fires() {
    let (after, changed) = check(COLUMN_MAJOR);
    assert!(changed, "{after}");
}

/// `transpose(transpose(x))` is `x` logically but not physically: the
/// bitcast reads the column-major bytes, so `x` is relaid out (one copy
/// instead of two transposes).
const BITCAST_OF_TRANSPOSES: &str = case!("bitcast_of_transposes");

#[test]
fn bitcast_keeps_reading_the_physical_order() {
    let (after, changed) = check(BITCAST_OF_TRANSPOSES);
    assert!(changed, "{after}");
}

/// A bitcast between default layouts is a reshape, but when its operand
/// is a value that now comes column-major, it gets a row-major copy.
#[test]
fn row_major_bitcast_of_a_column_major_value() {
    let text = case!("row_major_bitcast_of_column_major");
    let (after, changed) = check(text);
    assert!(changed, "{after}");
}

/// Nothing here can be simplified without changing bytes: unchanged.
#[test]
fn layout_dependent_modules_stay_unchanged() {
    for text in [
        case!("copy_then_bitcast_unchanged"),
        case!("noop_transpose_then_bitcast_unchanged"),
        case!("root_layout_copy_unchanged"),
    ] {
        let (after, changed) = check(text);
        assert!(!changed, "changed:\n{text}\n{after}");
    }
}

/// Two copies to different layouts feeding two bitcasts: the copy back
/// to the parameter's layout goes, the one between layouts stays.
#[test]
fn copy_back_to_the_same_layout_goes() {
    let text = case!("copy_back_to_same_layout");
    let (after, changed) = check(text);
    assert!(changed, "{after}");
}

/// A copy back to the original layout before a bitcast is a no-op and
/// goes; the one between layouts stays.
#[test]
fn copy_round_trip_before_a_bitcast() {
    let text = case!("copy_round_trip_before_bitcast");
    let (after, changed) = check(text);
    assert!(changed, "{after}");
}

/// Constants with a non-default literal layout are read logically.
#[test]
fn column_major_constant() {
    let text = case!("column_major_constant");
    let (after, changed) = check(text);
    assert!(changed, "{after}");
}

// ------------------------------------------------------------ tuples

const TUPLES: &str = case!("tuples");

#[test]
fn rules_see_through_tuples_and_the_tuple_root_is_rebuilt() {
    let (after, changed) = check(TUPLES);
    assert!(changed, "{after}");
}

#[test]
fn tuple_parameters_and_nested_tuples() {
    let text = case!("nested_tuple_parameters");
    let (after, changed) = check(text);
    assert!(changed, "{after}");
}

/// Two tuples become one value in two layouts: the second is relaid out
/// element by element.
#[test]
fn a_tuple_wanted_in_two_layouts() {
    let text = case!("tuple_in_two_layouts");
    let (after, changed) = check(text);
    assert!(changed, "{after}");
}

// ------------------------------------------------------------ variadic reduce

const ARGMAX: &str = case!("argmax");

#[test]
fn variadic_reduce_operands_and_results_are_simplified() {
    let (after, changed) = check(ARGMAX);
    assert!(changed, "{after}");
}

/// Output 1 of a (sum, max) reduce reads only its own accumulator and
/// input: read alone, it is a plain max reduce.
const SUM_MAX: &str = case!("sum_max");

#[test]
fn variadic_reduce_read_through_one_independent_output_becomes_plain() {
    let (after, changed) = check_with("simplify,dce", SUM_MAX);
    assert!(changed, "{after}");
}

/// argmax's index output reads both values: it is not split.
#[test]
fn coupled_variadic_reduce_is_not_split() {
    let text = ARGMAX.replace(
        "ROOT o = (f32[3]{0}, s32[3]{0}) tuple(nv2, i)",
        "ROOT o = s32[3]{0} negate(i)",
    );
    let (after, _) = check_with("simplify,dce", &text);
    assert!(after.contains("(f32[3]{0}, s32[3]{0}) reduce("), "{after}");
    assert!(!after.contains(".out"), "{after}");
}

/// A random variadic reduce: N outputs, each `op(acc, x)` of its own
/// accumulator and input or (sometimes) coupled to another's, read
/// through one random output (sometimes two gtes of it, sometimes two
/// outputs).
fn random_variadic(r: &mut Rng) -> String {
    let n = 2 + r.below(2);
    let ops = ["add", "maximum", "minimum", "multiply"];
    let mut body = Vec::new();
    for k in 0..n {
        body.push(format!("a{k} = f32[] parameter({k})"));
    }
    for k in 0..n {
        body.push(format!("x{k} = f32[] parameter({})", n + k));
    }
    let mut outs = Vec::new();
    for k in 0..n {
        let op = ops[r.below(ops.len())];
        let (a, x) = if r.below(3) == 0 {
            (format!("a{}", r.below(n)), format!("x{}", r.below(n)))
        } else {
            (format!("a{k}"), format!("x{k}"))
        };
        body.push(format!("o{k} = f32[] {op}({a}, {x})"));
        outs.push(format!("o{k}"));
    }
    let tys = vec!["f32[]"; n].join(", ");
    body.push(format!("ROOT t = ({tys}) tuple({})", outs.join(", ")));
    let mut entry = Vec::new();
    for k in 0..n {
        entry.push(format!("p{k} = f32[2,3]{} parameter({k})", layout(r, 2)));
    }
    let inits = ["0", "1", "-inf", "inf"];
    for k in 0..n {
        entry.push(format!(
            "i{k} = f32[] constant({})",
            inits[r.below(inits.len())]
        ));
    }
    let ps: Vec<String> = (0..n).map(|k| format!("p{k}")).collect();
    let is: Vec<String> = (0..n).map(|k| format!("i{k}")).collect();
    let dim = r.below(2);
    let out_dim = if dim == 0 { 3 } else { 2 };
    let rtys = vec![format!("f32[{out_dim}]"); n].join(", ");
    entry.push(format!(
        "red = ({rtys}) reduce({}, {}), dimensions={{{dim}}}, to_apply=body",
        ps.join(", "),
        is.join(", ")
    ));
    let k = r.below(n);
    entry.push(format!(
        "g = f32[{out_dim}] get-tuple-element(red), index={k}"
    ));
    let other = match r.below(4) {
        0 => k,
        1 => (k + 1) % n,
        _ => usize::MAX,
    };
    if other == usize::MAX {
        entry.push("ROOT root = f32[{OUT}] negate(g)".replace("{OUT}", &out_dim.to_string()));
    } else {
        entry.push(format!(
            "h = f32[{out_dim}] get-tuple-element(red), index={other}"
        ));
        entry.push(format!("ROOT root = f32[{out_dim}] add(g, h)"));
    }
    format!(
        "HloModule rv\nbody {{\n  {}\n}}\nENTRY main {{\n  {}\n}}\n",
        body.join("\n  "),
        entry.join("\n  ")
    )
}

#[test]
fn random_variadic_reduces_split_exactly() {
    let mut r = Rng(0xbad_5eed);
    let mut split = 0;
    for _ in 0..200 {
        let text = random_variadic(&mut r);
        let (after, _) = check_with("simplify,dce", &text);
        split += after.contains("body.out") as usize;
    }
    assert!(split >= 40, "only {split} of 200 variadic reduces split");
}

// ------------------------------------------------------------ random

/// A random layout of rank `r`.
fn layout(r: &mut Rng, rank: usize) -> String {
    let mut p: Vec<usize> = (0..rank).collect();
    for i in (1..rank).rev() {
        let j = r.below(i + 1);
        p.swap(i, j);
    }
    let s: Vec<String> = p.iter().map(|d| d.to_string()).collect();
    format!("{{{}}}", s.join(","))
}

/// A random module over f32[2,3] / f32[3,2] / f32[6] values with random
/// layouts: elementwise identities and involutions, transposes, copies,
/// reshapes, bitcasts (to and from any layout) and tuples.
fn random_module(r: &mut Rng) -> String {
    let mut lines = vec![
        format!("p0 = f32[2,3]{} parameter(0)", layout(r, 2)),
        format!("p1 = f32[2,3]{} parameter(1)", layout(r, 2)),
        "nz = f32[] constant(-0)".to_string(),
        "one = f32[] constant(1)".to_string(),
    ];
    // (name, dims) of the values so far.
    let mut vals: Vec<(String, &str)> = vec![("p0".into(), "2,3"), ("p1".into(), "2,3")];
    let n = 4 + r.below(8);
    for k in 0..n {
        let (x, d) = vals[r.below(vals.len())].clone();
        let rank = d.split(',').count();
        let lay = layout(r, rank);
        let name = format!("v{k}");
        let line = match r.below(10) {
            0 => format!("{name} = f32[{d}]{lay} negate({x})"),
            1 => {
                let b = format!("b{k}");
                lines.push(format!(
                    "{b} = f32[{d}]{} broadcast(nz), dimensions={{}}",
                    layout(r, rank)
                ));
                format!("{name} = f32[{d}]{lay} add({x}, {b})")
            }
            2 => {
                let b = format!("b{k}");
                lines.push(format!(
                    "{b} = f32[{d}]{} broadcast(one), dimensions={{}}",
                    layout(r, rank)
                ));
                format!("{name} = f32[{d}]{lay} multiply({b}, {x})")
            }
            3 => format!("{name} = f32[{d}]{lay} copy({x})"),
            4 if rank == 2 => {
                let t = if d == "2,3" { "3,2" } else { "2,3" };
                let line = format!("{name} = f32[{t}]{lay} transpose({x}), dimensions={{1,0}}");
                lines.push(line);
                vals.push((name, if d == "2,3" { "3,2" } else { "2,3" }));
                continue;
            }
            5 | 6 => {
                let (t, tl) = match (d, r.below(3)) {
                    (_, 0) => ("6", "{0}".to_string()),
                    (_, 1) => ("2,3", layout(r, 2)),
                    _ => ("3,2", layout(r, 2)),
                };
                let op = if r.coin() { "bitcast" } else { "reshape" };
                lines.push(format!("{name} = f32[{t}]{tl} {op}({x})"));
                vals.push((name, t));
                continue;
            }
            7 => {
                let (y, _) = vals
                    .iter()
                    .filter(|(_, e)| *e == d)
                    .nth(r.below(2))
                    .cloned()
                    .unwrap_or((x.clone(), d));
                let t = format!("t{k}");
                lines.push(format!(
                    "{t} = (f32[{d}]{}, f32[{d}]{}) tuple({x}, {y})",
                    lay_of(&lines, &x),
                    lay_of(&lines, &y)
                ));
                let i = r.below(2);
                let src = if i == 0 { &x } else { &y };
                format!(
                    "{name} = f32[{d}]{} get-tuple-element({t}), index={i}",
                    lay_of(&lines, src)
                )
            }
            8 => format!("{name} = f32[{d}]{lay} subtract({x}, {x})"),
            _ => {
                let (y, _) = vals
                    .iter()
                    .rev()
                    .find(|(_, e)| *e == d)
                    .cloned()
                    .unwrap_or((x.clone(), d));
                format!("{name} = f32[{d}]{lay} maximum({x}, {y})")
            }
        };
        lines.push(line);
        vals.push((name, d));
    }
    // The root: the last value, or a tuple of the last two.
    let (last, _) = vals[vals.len() - 1].clone();
    if r.coin() && vals.len() > 2 {
        let (prev, _) = vals[vals.len() - 2].clone();
        lines.push(format!(
            "ROOT root = ({}, {}) tuple({last}, {prev})",
            shape_of(&lines, &last),
            shape_of(&lines, &prev)
        ));
    } else if let Some(l) = lines.last_mut() {
        *l = format!("ROOT {l}");
    }
    format!(
        "HloModule rnd\nENTRY main {{\n  {}\n}}\n",
        lines.join("\n  ")
    )
}

/// The shape text of value `name` in `lines`.
fn shape_of(lines: &[String], name: &str) -> String {
    let prefix = format!("{name} = ");
    let l = lines
        .iter()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no {name}"));
    let rest = &l[prefix.len()..];
    rest[..rest.find(' ').expect("shape")].to_string()
}

/// The layout text (`{..}`) of value `name`.
fn lay_of(lines: &[String], name: &str) -> String {
    let s = shape_of(lines, name);
    s[s.find('{').expect("layout")..].to_string()
}

#[test]
fn random_layout_modules_keep_their_physical_results() {
    let mut r = Rng(0x5eed_1a70);
    let mut changed = 0;
    for _ in 0..300 {
        let text = random_module(&mut r);
        let m = rxla_ir::parse_module(&text, "rnd.hlo").unwrap_or_else(|e| panic!("{e}\n{text}"));
        if rxla_ir::verify_module(&m).is_err() {
            continue;
        }
        let (_, c) = check(&text);
        changed += c as usize;
    }
    assert!(
        changed >= 100,
        "only {changed} of 300 random modules changed"
    );
}
