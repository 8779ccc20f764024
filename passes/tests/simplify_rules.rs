//! Proves every `simplify` rule on random instances: for each rule a
//! generator builds a small module whose ENTRY root matches the rule's
//! left-hand side (random shapes, attributes and types), the rule alone is
//! applied (extraction prefers what the rule built), and the evaluator
//! must give bit-identical results before and after (NaN payloads aside,
//! the result's layout included) on random inputs rich in special values
//! (±0, ±inf, NaN, denormals, INT_MIN, -1). Some generators (tuples) give
//! values random non-default layouts. Fast-math rules are checked on finite inputs, comparing
//! values (so -0 == +0). A rule without a generator fails the test.

use rxla_eval::RunOptions;
use rxla_ir::{ArrayData, ElementType, Literal, Module, Shape};
use rxla_passes::simplify::{apply_rule_for_test, rule_families};

// ------------------------------------------------------------ random

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len() as u64) as usize]
    }
    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
    fn dims(&mut self, min_rank: usize, max_rank: usize) -> Vec<i64> {
        let r = self.range(min_rank as i64, max_rank as i64) as usize;
        (0..r).map(|_| self.range(1, 4)).collect()
    }
    fn perm(&mut self, n: usize) -> Vec<i64> {
        let mut p: Vec<i64> = (0..n as i64).collect();
        for i in (1..n).rev() {
            let j = self.below(i as u64 + 1) as usize;
            p.swap(i, j);
        }
        p
    }
}

// ------------------------------------------------------------ text

fn list(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn sh(ty: &str, dims: &[i64]) -> String {
    format!("{ty}[{}]", list(dims))
}

const REDUCERS: &str = "add_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\n";

/// A module from ENTRY body lines (the last line is the root).
fn module(lines: &[String]) -> String {
    let mut s = format!("HloModule t\n\n{REDUCERS}ENTRY main {{\n");
    for (i, l) in lines.iter().enumerate() {
        if i + 1 == lines.len() {
            s.push_str(&format!("  ROOT {l}\n"));
        } else {
            s.push_str(&format!("  {l}\n"));
        }
    }
    s.push_str("}\n");
    s
}

const FLOATS: [&str; 4] = ["f32", "f64", "f16", "bf16"];
const INTS: [&str; 5] = ["s8", "s32", "s64", "u8", "u32"];
const NUMERIC: [&str; 9] = ["f32", "f64", "f16", "bf16", "s8", "s32", "s64", "u8", "u32"];
const BITS: [&str; 4] = ["pred", "s32", "u8", "s64"];

/// Text of a constant of kind `k` in type `ty` (`None` if the type has
/// no such value).
fn konst(ty: &str, k: &str) -> Option<String> {
    let et = ElementType::from_name(ty)?;
    let w = et.bit_width();
    let (smin, smax) = (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1);
    let umax = if w == 64 {
        u64::MAX as i128
    } else {
        (1i128 << w) - 1
    };
    let v = match (
        k,
        et.is_float(),
        et.is_signed_int(),
        et.is_unsigned_int(),
        et.is_pred(),
    ) {
        ("negzero", true, ..) => "-0".into(),
        ("zero", true, ..) => "0".into(),
        ("zero", _, _, _, true) => "false".into(),
        ("zero" | "negzero", ..) => "0".into(),
        ("one", true, ..) | ("one", _, true, ..) | ("one", _, _, true, _) => "1".into(),
        ("minusone", true, ..) | ("minusone", _, true, ..) | ("ones", _, true, ..) => "-1".into(),
        ("minusone", _, _, true, _) | ("ones", _, _, true, _) => umax.to_string(),
        ("ones", _, _, _, true) => "true".into(),
        ("lowest", true, ..) => "-inf".into(),
        ("highest", true, ..) => "inf".into(),
        ("lowest", _, true, ..) => smin.to_string(),
        ("highest", _, true, ..) => smax.to_string(),
        ("lowest", _, _, true, _) => "0".into(),
        ("highest", _, _, true, _) => umax.to_string(),
        ("lowest", _, _, _, true) => "false".into(),
        ("highest", _, _, _, true) => "true".into(),
        _ => return None,
    };
    Some(v)
}

/// `op(x, splat)` (or `op(splat, x)`), the splat a scalar broadcast or
/// a scalar.
fn bin_const(r: &mut Rng, op: &str, left: bool, tys: &[&str], k: &str) -> String {
    let ty = r.pick(tys);
    let dims = r.dims(0, 3);
    let s = sh(ty, &dims);
    let c = konst(ty, k).unwrap_or_else(|| panic!("no {k} for {ty}"));
    let mut l = vec![
        format!("p0 = {s} parameter(0)"),
        format!("c = {ty}[] constant({c})"),
    ];
    let cname = if dims.is_empty() {
        "c".to_string()
    } else {
        l.push(format!("b = {s} broadcast(c), dimensions={{}}"));
        "b".to_string()
    };
    let (a, b) = if left {
        (cname.as_str(), "p0")
    } else {
        ("p0", cname.as_str())
    };
    l.push(format!("r = {s} {op}({a}, {b})"));
    module(&l)
}

/// Elementwise expression over parameters: `body` uses p0, p1, p2.
fn elementwise(r: &mut Rng, tys: &[&str], nparams: usize, body: &[&str]) -> String {
    let ty = r.pick(tys);
    let dims = r.dims(0, 3);
    let s = sh(ty, &dims);
    let mut l: Vec<String> = (0..nparams)
        .map(|i| format!("p{i} = {s} parameter({i})"))
        .collect();
    for b in body {
        l.push(b.replace("$S", &s).replace("$P", &sh("pred", &dims)));
    }
    module(&l)
}

fn binary_types(op: &str) -> &'static [&'static str] {
    match op {
        "and" | "or" | "xor" => &BITS,
        "shift-left" | "shift-right-arithmetic" | "shift-right-logical" => &INTS,
        "power" | "atan2" | "remainder" | "divide" => &FLOATS,
        _ => &NUMERIC,
    }
}

/// Dims with some size-1 entries and a permutation that keeps the order
/// of the other dims.
fn degenerate_perm(r: &mut Rng) -> (Vec<i64>, Vec<i64>) {
    loop {
        let n = r.range(2, 4) as usize;
        let dims: Vec<i64> = (0..n)
            .map(|_| if r.coin() { 1 } else { r.range(2, 3) })
            .collect();
        let mut p = r.perm(n);
        let big_pos: Vec<usize> = (0..n).filter(|&i| dims[p[i] as usize] != 1).collect();
        let mut big: Vec<i64> = big_pos.iter().map(|&i| p[i]).collect();
        big.sort();
        for (k, &i) in big_pos.iter().enumerate() {
            p[i] = big[k];
        }
        if p.iter().enumerate().any(|(i, &d)| d != i as i64) {
            return (dims, p);
        }
    }
}

/// A random layout (`{minor,...,major}`) of rank `rank`.
fn layout(r: &mut Rng, rank: usize) -> String {
    format!("{{{}}}", list(&r.perm(rank)))
}

fn permuted(dims: &[i64], p: &[i64]) -> Vec<i64> {
    p.iter().map(|&i| dims[i as usize]).collect()
}

/// A generator for `rule`, or `None` if the rule has none.
fn generate(rule: &str, r: &mut Rng) -> Option<String> {
    let text = match rule {
        "add-neg-zero-r" => bin_const(r, "add", false, &NUMERIC, "negzero"),
        "add-neg-zero-l" => bin_const(r, "add", true, &NUMERIC, "negzero"),
        "sub-pos-zero" => bin_const(r, "subtract", false, &NUMERIC, "zero"),
        "mul-one-r" => bin_const(r, "multiply", false, &NUMERIC, "one"),
        "mul-one-l" => bin_const(r, "multiply", true, &NUMERIC, "one"),
        "div-one" => bin_const(r, "divide", false, &NUMERIC, "one"),
        "pow-one" => bin_const(r, "power", false, &NUMERIC, "one"),
        "mul-minus-one-r" => bin_const(r, "multiply", false, &NUMERIC, "minusone"),
        "div-minus-one" => bin_const(r, "divide", false, &NUMERIC, "minusone"),
        "and-ones-r" => bin_const(r, "and", false, &BITS, "ones"),
        "and-ones-l" => bin_const(r, "and", true, &BITS, "ones"),
        "and-zero-r" => bin_const(r, "and", false, &BITS, "zero"),
        "or-zero-r" => bin_const(r, "or", false, &BITS, "zero"),
        "or-zero-l" => bin_const(r, "or", true, &BITS, "zero"),
        "or-ones-r" => bin_const(r, "or", false, &BITS, "ones"),
        "xor-zero-r" => bin_const(r, "xor", false, &BITS, "zero"),
        "shl-zero" => bin_const(r, "shift-left", false, &INTS, "zero"),
        "sra-zero" => bin_const(r, "shift-right-arithmetic", false, &INTS, "zero"),
        "srl-zero" => bin_const(r, "shift-right-logical", false, &INTS, "zero"),
        "max-lowest-r" => bin_const(
            r,
            "maximum",
            false,
            &["f32", "f64", "s8", "s32", "u8", "pred"],
            "lowest",
        ),
        "max-lowest-l" => bin_const(
            r,
            "maximum",
            true,
            &["f32", "f64", "s8", "s32", "u8", "pred"],
            "lowest",
        ),
        "min-highest-r" => bin_const(
            r,
            "minimum",
            false,
            &["f32", "f64", "s8", "s32", "u32", "pred"],
            "highest",
        ),
        "min-highest-l" => bin_const(
            r,
            "minimum",
            true,
            &["f32", "f64", "s8", "s32", "u32", "pred"],
            "highest",
        ),
        "int-mul-zero-r" => bin_const(r, "multiply", false, &INTS, "zero"),
        "int-mul-zero-l" => bin_const(r, "multiply", true, &INTS, "zero"),
        "int-max-highest-r" => bin_const(
            r,
            "maximum",
            false,
            &["s8", "s32", "u8", "u32", "pred"],
            "highest",
        ),
        "int-min-lowest-r" => bin_const(
            r,
            "minimum",
            false,
            &["s8", "s32", "u8", "u32", "pred"],
            "lowest",
        ),
        "int-rem-one" => bin_const(r, "remainder", false, &INTS, "one"),
        "fm-mul-zero" => bin_const(r, "multiply", false, &FLOATS, "zero"),
        "fm-add-zero" => bin_const(r, "add", false, &FLOATS, "zero"),
        "fm-sub-self" => elementwise(r, &FLOATS, 1, &["r = $S subtract(p0, p0)"]),
        "and-self" => elementwise(r, &BITS, 1, &["r = $S and(p0, p0)"]),
        "or-self" => elementwise(r, &BITS, 1, &["r = $S or(p0, p0)"]),
        "max-self" => elementwise(r, &NUMERIC, 1, &["r = $S maximum(p0, p0)"]),
        "min-self" => elementwise(r, &NUMERIC, 1, &["r = $S minimum(p0, p0)"]),
        "int-sub-self" => elementwise(r, &INTS, 1, &["r = $S subtract(p0, p0)"]),
        "int-xor-self" => elementwise(r, &BITS, 1, &["r = $S xor(p0, p0)"]),
        "copy-elim" => elementwise(r, &NUMERIC, 1, &["r = $S copy(p0)"]),
        "sub-neg" => elementwise(
            r,
            &["f32", "f64", "s32", "s8", "u8"],
            2,
            &["n = $S negate(p1)", "r = $S subtract(p0, n)"],
        ),
        "add-neg-r" => elementwise(
            r,
            &["f32", "f64", "s32", "s8", "u8"],
            2,
            &["n = $S negate(p1)", "r = $S add(p0, n)"],
        ),
        "add-neg-l" => elementwise(
            r,
            &["f32", "f64", "s32", "s8", "u8"],
            2,
            &["n = $S negate(p1)", "r = $S add(n, p0)"],
        ),
        "neg-neg" => elementwise(r, &NUMERIC, 1, &["n = $S negate(p0)", "r = $S negate(n)"]),
        "not-not" => elementwise(r, &BITS, 1, &["n = $S not(p0)", "r = $S not(n)"]),
        "abs-neg" => elementwise(
            r,
            &["f32", "f64", "s8", "s32", "s64"],
            1,
            &["n = $S negate(p0)", "r = $S abs(n)"],
        ),
        "abs-idempotent" => elementwise(
            r,
            &["f32", "f64", "s8", "s32"],
            1,
            &["n = $S abs(p0)", "r = $S abs(n)"],
        ),
        "sign-idempotent" => elementwise(
            r,
            &["f32", "f64", "s8", "s32"],
            1,
            &["n = $S sign(p0)", "r = $S sign(n)"],
        ),
        "floor-idempotent" => elementwise(r, &FLOATS, 1, &["n = $S floor(p0)", "r = $S floor(n)"]),
        "ceil-idempotent" => elementwise(r, &FLOATS, 1, &["n = $S ceil(p0)", "r = $S ceil(n)"]),
        "round-nearest-afz-idempotent" => elementwise(
            r,
            &FLOATS,
            1,
            &[
                "n = $S round-nearest-afz(p0)",
                "r = $S round-nearest-afz(n)",
            ],
        ),
        "round-nearest-even-idempotent" => elementwise(
            r,
            &FLOATS,
            1,
            &[
                "n = $S round-nearest-even(p0)",
                "r = $S round-nearest-even(n)",
            ],
        ),
        "select-same" => elementwise(
            r,
            &NUMERIC,
            2,
            &[
                "q = $P compare(p0, p1), direction=LT",
                "r = $S select(q, p0, p0)",
            ],
        ),
        "select-not" => elementwise(
            r,
            &NUMERIC,
            2,
            &[
                "q = $P compare(p0, p1), direction=LT",
                "n = $P not(q)",
                "r = $S select(n, p0, p1)",
            ],
        ),
        "select-true" | "select-false" => {
            let v = if rule == "select-true" {
                "true"
            } else {
                "false"
            };
            let b = format!("c = pred[] constant({v})");
            let body = [
                b.as_str(),
                "q = $P broadcast(c), dimensions={}",
                "r = $S select(q, p0, p1)",
            ];
            let ty = r.pick(&NUMERIC);
            let dims = r.dims(1, 3);
            let s = sh(ty, &dims);
            let mut l: Vec<String> = (0..2)
                .map(|i| format!("p{i} = {s} parameter({i})"))
                .collect();
            for x in body {
                l.push(x.replace("$S", &s).replace("$P", &sh("pred", &dims)));
            }
            module(&l)
        }
        "transpose-identity" => {
            let dims = r.dims(1, 3);
            let n = dims.len() as i64;
            let ty = r.pick(&NUMERIC);
            let p: Vec<i64> = (0..n).collect();
            module(&[
                format!("p0 = {} parameter(0)", sh(ty, &dims)),
                format!(
                    "r = {} transpose(p0), dimensions={{{}}}",
                    sh(ty, &dims),
                    list(&p)
                ),
            ])
        }
        "transpose-transpose" => {
            let dims = r.dims(2, 4);
            let (p, q) = (r.perm(dims.len()), r.perm(dims.len()));
            let d1 = permuted(&dims, &q);
            let d2 = permuted(&d1, &p);
            let ty = r.pick(&NUMERIC);
            module(&[
                format!("p0 = {} parameter(0)", sh(ty, &dims)),
                format!(
                    "t = {} transpose(p0), dimensions={{{}}}",
                    sh(ty, &d1),
                    list(&q)
                ),
                format!(
                    "r = {} transpose(t), dimensions={{{}}}",
                    sh(ty, &d2),
                    list(&p)
                ),
            ])
        }
        "transpose-is-reshape" => {
            let (dims, p) = degenerate_perm(r);
            let ty = r.pick(&NUMERIC);
            module(&[
                format!("p0 = {} parameter(0)", sh(ty, &dims)),
                format!(
                    "r = {} transpose(p0), dimensions={{{}}}",
                    sh(ty, &permuted(&dims, &p)),
                    list(&p)
                ),
            ])
        }
        "reshape-reshape" => {
            let dims = r.dims(1, 3);
            let n: i64 = dims.iter().product();
            let mid = if r.coin() { vec![n] } else { vec![1, n, 1] };
            let out = if r.coin() {
                vec![n, 1]
            } else {
                dims.iter().rev().copied().collect()
            };
            let ty = r.pick(&NUMERIC);
            module(&[
                format!("p0 = {} parameter(0)", sh(ty, &dims)),
                format!("a = {} reshape(p0)", sh(ty, &mid)),
                format!("r = {} reshape(a)", sh(ty, &out)),
            ])
        }
        "reshape-noop" => {
            let dims = r.dims(0, 3);
            let ty = r.pick(&NUMERIC);
            module(&[
                format!("p0 = {} parameter(0)", sh(ty, &dims)),
                format!("r = {} reshape(p0)", sh(ty, &dims)),
            ])
        }
        "reshape-of-scalar-broadcast" => {
            let dims = r.dims(1, 3);
            let n: i64 = dims.iter().product();
            let ty = r.pick(&NUMERIC);
            module(&[
                format!("p0 = {ty}[] parameter(0)"),
                format!("b = {} broadcast(p0), dimensions={{}}", sh(ty, &dims)),
                format!("r = {} reshape(b)", sh(ty, &[n])),
            ])
        }
        "broadcast-broadcast" => {
            let a = r.range(1, 3);
            let b = r.range(1, 3);
            let c = r.range(1, 3);
            let ty = r.pick(&NUMERIC);
            module(&[
                format!("p0 = {ty}[{a}] parameter(0)"),
                format!("x = {ty}[{a},{b}] broadcast(p0), dimensions={{0}}"),
                format!("r = {ty}[{c},{a},{b}] broadcast(x), dimensions={{1,2}}"),
            ])
        }
        "broadcast-noop" => {
            let dims = r.dims(0, 3);
            let ty = r.pick(&NUMERIC);
            let m: Vec<i64> = (0..dims.len() as i64).collect();
            module(&[
                format!("p0 = {} parameter(0)", sh(ty, &dims)),
                format!(
                    "r = {} broadcast(p0), dimensions={{{}}}",
                    sh(ty, &dims),
                    list(&m)
                ),
            ])
        }
        "transpose-of-broadcast" => {
            let a = r.range(1, 4);
            let out = vec![a, r.range(1, 3), r.range(1, 3)];
            let p = r.perm(3);
            let ty = r.pick(&NUMERIC);
            module(&[
                format!("p0 = {ty}[{a}] parameter(0)"),
                format!("b = {} broadcast(p0), dimensions={{0}}", sh(ty, &out)),
                format!(
                    "r = {} transpose(b), dimensions={{{}}}",
                    sh(ty, &permuted(&out, &p)),
                    list(&p)
                ),
            ])
        }
        "slice-of-broadcast" => {
            let a = r.range(2, 5);
            let b = r.range(2, 4);
            let (s0, s1) = (r.range(0, a - 1), r.range(0, b - 1));
            let (l0, l1) = (r.range(s0 + 1, a), r.range(s1 + 1, b));
            let (t0, t1) = (r.range(1, 2), r.range(1, 2));
            let o0 = (l0 - s0 + t0 - 1) / t0;
            let o1 = (l1 - s1 + t1 - 1) / t1;
            let ty = r.pick(&NUMERIC);
            module(&[
                format!("p0 = {ty}[{a}] parameter(0)"),
                format!("b = {ty}[{a},{b}] broadcast(p0), dimensions={{0}}"),
                format!(
                    "r = {ty}[{o0},{o1}] slice(b), slice={{[{s0}:{l0}:{t0}], [{s1}:{l1}:{t1}]}}"
                ),
            ])
        }
        "reverse-of-broadcast" => {
            let a = r.range(1, 4);
            let b = r.range(1, 3);
            let d = r.pick(&["0", "1", "0,1"]);
            let ty = r.pick(&NUMERIC);
            module(&[
                format!("p0 = {ty}[{a}] parameter(0)"),
                format!("b = {ty}[{b},{a}] broadcast(p0), dimensions={{1}}"),
                format!("r = {ty}[{b},{a}] reverse(b), dimensions={{{d}}}"),
            ])
        }
        "slice-noop" => {
            let dims = r.dims(1, 3);
            let ty = r.pick(&NUMERIC);
            let sl: Vec<String> = dims.iter().map(|d| format!("[0:{d}]")).collect();
            module(&[
                format!("p0 = {} parameter(0)", sh(ty, &dims)),
                format!(
                    "r = {} slice(p0), slice={{{}}}",
                    sh(ty, &dims),
                    sl.join(", ")
                ),
            ])
        }
        "slice-slice" => {
            let n = r.range(6, 12);
            let (s1, t1) = (r.range(0, 2), r.range(1, 2));
            let l1 = r.range(s1 + 3, n);
            let m = (l1 - s1 + t1 - 1) / t1;
            let (s2, t2) = (r.range(0, m - 1), r.range(1, 2));
            let l2 = r.range(s2 + 1, m);
            let o = (l2 - s2 + t2 - 1) / t2;
            let ty = r.pick(&NUMERIC);
            module(&[
                format!("p0 = {ty}[{n},2] parameter(0)"),
                format!("a = {ty}[{m},2] slice(p0), slice={{[{s1}:{l1}:{t1}], [0:2]}}"),
                format!("r = {ty}[{o},2] slice(a), slice={{[{s2}:{l2}:{t2}], [0:2]}}"),
            ])
        }
        "slice-of-concatenate" => {
            let (a, b) = (r.range(1, 4), r.range(1, 4));
            let ty = r.pick(&NUMERIC);
            let (off, len) = if r.coin() { (0, a) } else { (a, b) };
            let s = off + r.range(0, len - 1);
            let l = r.range(s + 1, off + len);
            module(&[
                format!("p0 = {ty}[2,{a}] parameter(0)"),
                format!("p1 = {ty}[2,{b}] parameter(1)"),
                format!(
                    "c = {ty}[2,{}] concatenate(p0, p1), dimensions={{1}}",
                    a + b
                ),
                format!("r = {ty}[2,{}] slice(c), slice={{[0:2], [{s}:{l}]}}", l - s),
            ])
        }
        "concatenate-single" => {
            let dims = r.dims(1, 3);
            let ty = r.pick(&NUMERIC);
            let d = r.below(dims.len() as u64);
            module(&[
                format!("p0 = {} parameter(0)", sh(ty, &dims)),
                format!("r = {} concatenate(p0), dimensions={{{d}}}", sh(ty, &dims)),
            ])
        }
        "pad-noop" => {
            let dims = r.dims(1, 3);
            let ty = r.pick(&FLOATS);
            let cfg: Vec<&str> = dims.iter().map(|_| "0_0").collect();
            module(&[
                format!("p0 = {} parameter(0)", sh(ty, &dims)),
                format!("v = {ty}[] parameter(1)"),
                format!(
                    "r = {} pad(p0, v), padding={}",
                    sh(ty, &dims),
                    cfg.join("x")
                ),
            ])
        }
        "slice-of-pad" => loop {
            // A 1-D pad (edges may be negative, interior 0..2) and a slice
            // that reads only operand elements (or, half the time, any
            // slice: the rule must decline when it touches padding).
            let n = r.range(1, 5);
            let (lo, hi, it) = (r.range(0, 3) - 1, r.range(0, 3) - 1, r.range(0, 2));
            let m = n + (n - 1) * it + lo + hi;
            if m < 1 {
                continue;
            }
            let (start, stride) = if r.coin() {
                let k = r.range(0, n - 1);
                (lo + k * (it + 1), (it + 1) * r.range(1, 2))
            } else {
                (r.range(0, m - 1), r.range(1, 2))
            };
            if start < 0 || start >= m {
                continue;
            }
            let limit = r.range(start + 1, m);
            let len = (limit - start + stride - 1) / stride;
            let ty = r.pick(&NUMERIC);
            break module(&[
                format!("p0 = {ty}[{n}] parameter(0)"),
                format!("v = {ty}[] parameter(1)"),
                format!("a = {ty}[{m}] pad(p0, v), padding={lo}_{hi}_{it}"),
                format!("r = {ty}[{len}] slice(a), slice={{[{start}:{limit}:{stride}]}}"),
            ]);
        },
        "concatenate-flatten" | "concatenate-flatten-3" => {
            let (a, b, c) = (r.range(1, 3), r.range(1, 3), r.range(1, 3));
            let ty = r.pick(&NUMERIC);
            let mut lines = vec![
                format!("p0 = {ty}[2,{a}] parameter(0)"),
                format!("p1 = {ty}[2,{b}] parameter(1)"),
                format!("p2 = {ty}[2,{c}] parameter(2)"),
                format!(
                    "i = {ty}[2,{}] concatenate(p0, p1), dimensions={{1}}",
                    a + b
                ),
            ];
            if rule == "concatenate-flatten" {
                lines.push(format!(
                    "r = {ty}[2,{}] concatenate(p2, i), dimensions={{1}}",
                    a + b + c
                ));
            } else {
                lines.push(format!(
                    "r = {ty}[2,{}] concatenate(p2, i, p1), dimensions={{1}}",
                    a + 2 * b + c
                ));
            }
            module(&lines)
        }
        "pad-pad" => {
            let n = r.range(1, 4);
            let (l1, h1, i1) = (r.range(0, 2), r.range(0, 2), r.range(0, 2));
            let (l2, h2) = (r.range(0, 2), r.range(0, 2));
            let m = n + (n - 1) * i1 + l1 + h1;
            let o = m + l2 + h2;
            let ty = r.pick(&NUMERIC);
            module(&[
                format!("p0 = {ty}[{n}] parameter(0)"),
                format!("v = {ty}[] parameter(1)"),
                format!("a = {ty}[{m}] pad(p0, v), padding={l1}_{h1}_{i1}"),
                format!("r = {ty}[{o}] pad(a, v), padding={l2}_{h2}"),
            ])
        }
        "dot-fold-lhs-transpose" => {
            let (m, k, n) = (r.range(1, 4), r.range(1, 4), r.range(1, 4));
            let ty = r.pick(&["f32", "f64", "s32"]);
            module(&[
                format!("p0 = {ty}[{k},{m}] parameter(0)"),
                format!("p1 = {ty}[{k},{n}] parameter(1)"),
                format!("t = {ty}[{m},{k}] transpose(p0), dimensions={{1,0}}"),
                format!(
                    "r = {ty}[{m},{n}] dot(t, p1), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}"
                ),
            ])
        }
        "dot-fold-rhs-transpose" => {
            let (b, m, k, n) = (r.range(1, 3), r.range(1, 4), r.range(1, 4), r.range(1, 4));
            let ty = r.pick(&["f32", "f64", "s32"]);
            module(&[
                format!("p0 = {ty}[{b},{m},{k}] parameter(0)"),
                format!("p1 = {ty}[{b},{n},{k}] parameter(1)"),
                format!("t = {ty}[{b},{k},{n}] transpose(p1), dimensions={{0,2,1}}"),
                format!(
                    "r = {ty}[{b},{m},{n}] dot(p0, t), lhs_batch_dims={{0}}, lhs_contracting_dims={{2}}, rhs_batch_dims={{0}}, rhs_contracting_dims={{1}}"
                ),
            ])
        }
        "transpose-of-dot" => {
            let (m, k, n) = (r.range(1, 4), r.range(1, 4), r.range(1, 4));
            let ty = r.pick(&["f32", "f64", "s32"]);
            module(&[
                format!("p0 = {ty}[{m},{k}] parameter(0)"),
                format!("p1 = {ty}[{k},{n}] parameter(1)"),
                format!(
                    "d = {ty}[{m},{n}] dot(p0, p1), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}"
                ),
                format!("r = {ty}[{n},{m}] transpose(d), dimensions={{1,0}}"),
            ])
        }
        "reduce-of-transpose" => {
            // Transposes that interleave kept and reduced dims without
            // reordering either group.
            let (dims, p, red): (Vec<i64>, Vec<i64>, Vec<i64>) = match r.below(3) {
                0 => (vec![2, 3, 4], vec![1, 0, 2], vec![1]),
                1 => (vec![2, 3, 4], vec![0, 2, 1], vec![0, 2]),
                _ => (vec![3, 2, 2], vec![2, 0, 1], vec![0]),
            };
            let t = permuted(&dims, &p);
            let out: Vec<i64> = (0..3)
                .filter(|d| !red.contains(d))
                .map(|d| t[d as usize])
                .collect();
            module(&[
                format!("p0 = {} parameter(0)", sh("f32", &dims)),
                "z = f32[] parameter(1)".to_string(),
                format!(
                    "t = {} transpose(p0), dimensions={{{}}}",
                    sh("f32", &t),
                    list(&p)
                ),
                format!(
                    "r = {} reduce(t, z), dimensions={{{}}}, to_apply=add_f32",
                    sh("f32", &out),
                    list(&red)
                ),
            ])
        }
        "reduce-of-degenerate-reshape" => {
            let (a, b) = (r.range(2, 4), r.range(2, 4));
            let (red, out): (&str, Vec<i64>) = match r.below(3) {
                0 => ("2", vec![a, 1]),
                1 => ("0,1", vec![b]),
                _ => ("0", vec![1, b]),
            };
            module(&[
                format!("p0 = f32[{a},{b}] parameter(0)"),
                "z = f32[] parameter(1)".to_string(),
                format!("y = f32[{a},1,{b}] reshape(p0)"),
                format!(
                    "r = {} reduce(y, z), dimensions={{{red}}}, to_apply=add_f32",
                    sh("f32", &out)
                ),
            ])
        }
        "convert-noop" => elementwise(r, &NUMERIC, 1, &["r = $S convert(p0)"]),
        "convert-convert" => {
            let (x, u, t) = r.pick(&[
                ("s8", "s32", "f32"),
                ("u8", "s16", "u32"),
                ("pred", "s32", "f32"),
                ("s16", "f32", "f64"),
                ("f32", "f64", "s32"),
                ("f32", "f64", "u8"),
                ("u8", "f32", "f64"),
                ("s32", "s64", "s8"),
            ]);
            let dims = r.dims(0, 2);
            module(&[
                format!("p0 = {} parameter(0)", sh(x, &dims)),
                format!("a = {} convert(p0)", sh(u, &dims)),
                format!("r = {} convert(a)", sh(t, &dims)),
            ])
        }
        "convert-below-broadcast" => {
            let a = r.range(1, 4);
            let (x, t) = r.pick(&[("f32", "s32"), ("s32", "f32"), ("f64", "f32"), ("u8", "s8")]);
            module(&[
                format!("p0 = {x}[{a}] parameter(0)"),
                format!("b = {x}[{a},3] broadcast(p0), dimensions={{0}}"),
                format!("r = {t}[{a},3] convert(b)"),
            ])
        }
        "and-not-self" => elementwise(r, &BITS, 1, &["n = $S not(p0)", "r = $S and(p0, n)"]),
        "or-not-self" => elementwise(r, &BITS, 1, &["n = $S not(p0)", "r = $S or(p0, n)"]),
        "int-compare-self" => {
            let dir = r.pick(&["EQ", "NE", "LT", "LE", "GT", "GE"]);
            let line = format!("r = $P compare(p0, p0), direction={dir}");
            elementwise(r, &["s8", "s32", "u8", "u32", "pred"], 1, &[line.as_str()])
        }
        "int-not-compare" => {
            let dir = r.pick(&["EQ", "NE", "LT", "LE", "GT", "GE"]);
            let line = format!("q = $P compare(p0, p1), direction={dir}");
            elementwise(
                r,
                &["s8", "s32", "u8", "u64", "pred"],
                2,
                &[line.as_str(), "r = $P not(q)"],
            )
        }
        "reverse-reverse" => {
            let dims = r.dims(1, 3);
            let ty = r.pick(&NUMERIC);
            let n = dims.len() as i64;
            let pick = |r: &mut Rng| -> Vec<i64> { (0..n).filter(|_| r.coin()).collect() };
            let (d, e) = (pick(r), pick(r));
            let s = sh(ty, &dims);
            module(&[
                format!("p0 = {s} parameter(0)"),
                format!("a = {s} reverse(p0), dimensions={{{}}}", list(&e)),
                format!("r = {s} reverse(a), dimensions={{{}}}", list(&d)),
            ])
        }
        "reverse-noop" => {
            let ty = r.pick(&NUMERIC);
            let a = r.range(1, 4);
            let d = r.pick(&["0", "2", "0,2", ""]);
            let s = sh(ty, &[1, a, 1]);
            module(&[
                format!("p0 = {s} parameter(0)"),
                format!("r = {s} reverse(p0), dimensions={{{d}}}"),
            ])
        }
        "concatenate-adjacent-slices" => {
            let n = r.range(3, 8);
            let a = r.range(0, n - 2);
            let b = r.range(a + 1, n - 1);
            let c = r.range(b + 1, n);
            let ty = r.pick(&NUMERIC);
            module(&[
                format!("p0 = {ty}[2,{n}] parameter(0)"),
                format!(
                    "x = {ty}[2,{}] slice(p0), slice={{[0:2], [{a}:{b}]}}",
                    b - a
                ),
                format!(
                    "y = {ty}[2,{}] slice(p0), slice={{[0:2], [{b}:{c}]}}",
                    c - b
                ),
                format!("r = {ty}[2,{}] concatenate(x, y), dimensions={{1}}", c - a),
            ])
        }
        "compare-across-reshape" => {
            let dims = r.dims(1, 3);
            let n: i64 = dims.iter().product();
            let ty = r.pick(&NUMERIC);
            let dir = r.pick(&["LT", "EQ", "GE", "NE"]);
            module(&[
                format!("p0 = {} parameter(0)", sh(ty, &dims)),
                format!("p1 = {} parameter(1)", sh(ty, &dims)),
                format!("a = {ty}[{n}] reshape(p0)"),
                format!("b = {ty}[{n}] reshape(p1)"),
                format!("r = pred[{n}] compare(a, b), direction={dir}"),
            ])
        }
        "tuple-of-gtes" => {
            // A tuple of random elements taken apart and rebuilt (in
            // order), sometimes with an extra element so it must not fire.
            let n = r.range(1, 4) as usize;
            let mut l = Vec::new();
            let mut elems = Vec::new();
            for k in 0..n {
                let ty = r.pick(&FLOATS);
                let dims = r.dims(0, 3);
                let s = format!("{}{}", sh(ty, &dims), layout(r, dims.len()));
                l.push(format!("p{k} = {s} parameter({k})"));
                l.push(format!("e{k} = {s} negate(p{k})"));
                elems.push(s);
            }
            let names: Vec<String> = (0..n).map(|k| format!("e{k}")).collect();
            l.push(format!(
                "t = ({}) tuple({})",
                elems.join(", "),
                names.join(", ")
            ));
            let gtes: Vec<String> = (0..n).map(|k| format!("g{k}")).collect();
            for (k, e) in elems.iter().enumerate() {
                l.push(format!("g{k} = {e} get-tuple-element(t), index={k}"));
            }
            if r.below(4) == 0 {
                l.push(format!(
                    "r = ({}, {}) tuple({}, g0)",
                    elems.join(", "),
                    elems[0],
                    gtes.join(", ")
                ));
            } else {
                l.push(format!(
                    "r = ({}) tuple({})",
                    elems.join(", "),
                    gtes.join(", ")
                ));
            }
            module(&l)
        }
        "gte-of-tuple" => {
            // Elements of random types, shapes and layouts (a nested
            // tuple among them); the root takes one out.
            let n = r.range(1, 4) as usize;
            let mut l = Vec::new();
            let mut elems = Vec::new();
            for k in 0..n {
                let ty = r.pick(&NUMERIC);
                let dims = r.dims(0, 3);
                let lay = layout(r, dims.len());
                let s = format!("{}{lay}", sh(ty, &dims));
                l.push(format!("p{k} = {s} parameter({k})"));
                if r.coin() && !ty.starts_with('u') {
                    l.push(format!("e{k} = {s} negate(p{k})"));
                } else {
                    l.push(format!("e{k} = {s} copy(p{k})"));
                }
                elems.push(s);
            }
            let names: Vec<String> = (0..n).map(|k| format!("e{k}")).collect();
            if r.coin() {
                l.push(format!(
                    "in = ({}) tuple({})",
                    elems.join(", "),
                    names.join(", ")
                ));
                l.push(format!(
                    "t = (({}), {}) tuple(in, e0)",
                    elems.join(", "),
                    elems[0]
                ));
                let i = r.below(2) as usize;
                let out = if i == 0 {
                    format!("({})", elems.join(", "))
                } else {
                    elems[0].clone()
                };
                l.push(format!("g = {out} get-tuple-element(t), index={i}"));
            } else {
                l.push(format!(
                    "t = ({}) tuple({})",
                    elems.join(", "),
                    names.join(", ")
                ));
                let i = r.below(n as u64) as usize;
                l.push(format!("g = {} get-tuple-element(t), index={i}", elems[i]));
            }
            module(&l)
        }
        _ => {
            if let Some(op) = rule.strip_suffix("-across-reshape") {
                let dims = r.dims(1, 3);
                let n: i64 = dims.iter().product();
                let ty = r.pick(binary_types(op));
                module(&[
                    format!("p0 = {} parameter(0)", sh(ty, &dims)),
                    format!("p1 = {} parameter(1)", sh(ty, &dims)),
                    format!("a = {ty}[{n}] reshape(p0)"),
                    format!("b = {ty}[{n}] reshape(p1)"),
                    format!("r = {ty}[{n}] {op}(a, b)"),
                ])
            } else if let Some(op) = rule.strip_suffix("-across-transpose") {
                let dims = r.dims(2, 3);
                let p = r.perm(dims.len());
                let t = permuted(&dims, &p);
                let ty = r.pick(binary_types(op));
                let ts = sh(ty, &t);
                module(&[
                    format!("p0 = {} parameter(0)", sh(ty, &dims)),
                    format!("p1 = {} parameter(1)", sh(ty, &dims)),
                    format!("a = {ts} transpose(p0), dimensions={{{}}}", list(&p)),
                    format!("b = {ts} transpose(p1), dimensions={{{}}}", list(&p)),
                    format!("r = {ts} {op}(a, b)"),
                ])
            } else if let Some(op) = rule.strip_suffix("-below-broadcast") {
                let tys: &[&str] = match op {
                    "not" => &BITS,
                    "exponential" => &FLOATS,
                    _ => &["f32", "f64", "s32", "s8"],
                };
                let ty = r.pick(tys);
                let a = r.range(1, 4);
                module(&[
                    format!("p0 = {ty}[{a}] parameter(0)"),
                    format!("b = {ty}[3,{a}] broadcast(p0), dimensions={{1}}"),
                    format!("r = {ty}[3,{a}] {op}(b)"),
                ])
            } else {
                return None;
            }
        }
    };
    Some(text)
}

// ------------------------------------------------------------ values

fn special_f64(r: &mut Rng, finite: bool) -> f64 {
    let specials = [
        0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-310, -1e-310, 1e300, -7.25,
    ];
    let nonfinite = [f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -f64::NAN];
    if !finite && r.below(5) == 0 {
        return r.pick(&nonfinite);
    }
    if r.coin() {
        r.pick(&specials)
    } else {
        (r.range(-64, 64) as f64) / 8.0
    }
}

fn special_f32(r: &mut Rng, finite: bool) -> f32 {
    if r.below(8) == 0 {
        return r.pick(&[1e-40f32, -1e-40, f32::MIN_POSITIVE, 3.4e38]);
    }
    let v = special_f64(r, finite) as f32;
    if finite && !v.is_finite() { 3.0 } else { v }
}

fn special_i64(r: &mut Rng, bits: u32, signed: bool) -> i64 {
    let (min, max) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    let v: i128 = match r.below(4) {
        0 => r.pick(&[min, max, 0, 1, -1, 2]),
        _ => r.range(-20, 20) as i128,
    };
    // Wrap into the type's range.
    let m = 1i128 << bits;
    let mut w = v.rem_euclid(m);
    if signed && w > max {
        w -= m;
    }
    let _ = min;
    w as i64
}

/// Bits of a random f16 (`half`) or bf16 value with specials.
fn half_bits(r: &mut Rng, half: bool, finite: bool) -> u16 {
    let specials: [u16; 8] = if half {
        [
            0x0000, 0x8000, 0x3c00, 0xbc00, 0x0001, 0x8001, 0x7bff, 0x3800,
        ]
    } else {
        [
            0x0000, 0x8000, 0x3f80, 0xbf80, 0x0001, 0x8001, 0x7f7f, 0x3f00,
        ]
    };
    let nonfinite: [u16; 4] = if half {
        [0x7c00, 0xfc00, 0x7e00, 0xfe01]
    } else {
        [0x7f80, 0xff80, 0x7fc0, 0xffc1]
    };
    if !finite && r.below(5) == 0 {
        return r.pick(&nonfinite);
    }
    if r.coin() {
        return r.pick(&specials);
    }
    // Multiples of 1/8 in [-8, 8): exact in both formats.
    let v = (r.range(-64, 63) as f32) / 8.0;
    let b = v.to_bits();
    if half {
        // f32 → f16 for these small exact values.
        if v == 0.0 {
            return 0;
        }
        let sign = ((b >> 16) & 0x8000) as u16;
        let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
        let man = ((b >> 13) & 0x3ff) as u16;
        sign | ((exp as u16) << 10) | man
    } else {
        (b >> 16) as u16
    }
}

/// Half-precision elements equal: same bits, both NaN, or (by value)
/// both zeros.
fn same_half(a: &[u8], b: &[u8], f16: bool, by_value: bool) -> bool {
    a.chunks_exact(2).zip(b.chunks_exact(2)).all(|(x, y)| {
        let (x, y) = (
            u16::from_le_bytes([x[0], x[1]]),
            u16::from_le_bytes([y[0], y[1]]),
        );
        let nan = |v: u16| {
            if f16 {
                v & 0x7c00 == 0x7c00 && v & 0x3ff != 0
            } else {
                v & 0x7f80 == 0x7f80 && v & 0x7f != 0
            }
        };
        x == y || (nan(x) && nan(y)) || (by_value && x & 0x7fff == 0 && y & 0x7fff == 0)
    })
}

fn random_arg(r: &mut Rng, shape: &Shape, finite: bool) -> Literal {
    let a = shape.as_array().expect("array parameter");
    let n = a.element_count().expect("count");
    let dims = a.dims.clone();
    let data = match a.element_type {
        ElementType::Pred => ArrayData::Pred((0..n).map(|_| r.coin()).collect()),
        ElementType::F32 => ArrayData::F32((0..n).map(|_| special_f32(r, finite)).collect()),
        ElementType::F64 => ArrayData::F64((0..n).map(|_| special_f64(r, finite)).collect()),
        ElementType::S8 => ArrayData::S8((0..n).map(|_| special_i64(r, 8, true) as i8).collect()),
        ElementType::S16 => {
            ArrayData::S16((0..n).map(|_| special_i64(r, 16, true) as i16).collect())
        }
        ElementType::S32 => {
            ArrayData::S32((0..n).map(|_| special_i64(r, 32, true) as i32).collect())
        }
        ElementType::S64 => ArrayData::S64((0..n).map(|_| special_i64(r, 63, true)).collect()),
        ElementType::U8 => ArrayData::U8((0..n).map(|_| special_i64(r, 8, false) as u8).collect()),
        ElementType::U16 => {
            ArrayData::U16((0..n).map(|_| special_i64(r, 16, false) as u16).collect())
        }
        ElementType::U32 => {
            ArrayData::U32((0..n).map(|_| special_i64(r, 32, false) as u32).collect())
        }
        ElementType::U64 => {
            ArrayData::U64((0..n).map(|_| special_i64(r, 63, false) as u64).collect())
        }
        ElementType::F16 | ElementType::BF16 => {
            let half = a.element_type == ElementType::F16;
            let bytes: Vec<u8> = (0..n)
                .flat_map(|_| half_bits(r, half, finite).to_le_bytes())
                .collect();
            ArrayData::from_le_bytes(a.element_type, &bytes).expect("half data")
        }
        t => panic!("no random values for {t}"),
    };
    let shape = rxla_ir::ArrayShape::new(a.element_type, dims).expect("shape");
    Literal::Array(rxla_ir::ArrayLiteral::new(shape, data).expect("literal"))
}

/// Element-wise comparison: bit-identical, or both NaN; with `by_value`,
/// floats compare by value (so -0 == +0).
fn same(a: &Literal, b: &Literal, by_value: bool) -> bool {
    match (a, b) {
        (Literal::Array(x), Literal::Array(y)) => {
            if x.shape.dims != y.shape.dims
                || x.shape.element_type != y.shape.element_type
                || x.shape.layout != y.shape.layout
            {
                return false;
            }
            match (&x.data, &y.data) {
                (ArrayData::F32(p), ArrayData::F32(q)) => p.iter().zip(q).all(|(u, v)| {
                    (u.is_nan() && v.is_nan()) || u.to_bits() == v.to_bits() || (by_value && u == v)
                }),
                (ArrayData::F64(p), ArrayData::F64(q)) => p.iter().zip(q).all(|(u, v)| {
                    (u.is_nan() && v.is_nan()) || u.to_bits() == v.to_bits() || (by_value && u == v)
                }),
                (p @ ArrayData::F16(_), q @ ArrayData::F16(_)) => {
                    same_half(&p.to_le_bytes(), &q.to_le_bytes(), true, by_value)
                }
                (p @ ArrayData::BF16(_), q @ ArrayData::BF16(_)) => {
                    same_half(&p.to_le_bytes(), &q.to_le_bytes(), false, by_value)
                }
                (p, q) => p == q,
            }
        }
        (Literal::Tuple(x), Literal::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(u, v)| same(u, v, by_value))
        }
        _ => false,
    }
}

fn parse(text: &str) -> Module {
    let m = rxla_ir::parse_module(text, "rule.hlo").unwrap_or_else(|e| panic!("{e}\n{text}"));
    rxla_ir::verify_module(&m).unwrap_or_else(|e| panic!("{e}\n{text}"));
    m
}

/// Checks one rule on `trials` random instances; returns how often it fired.
/// `m` with random layouts on some of its ENTRY arrays of rank ≥ 2
/// (parameters and root included), `None` when none changed or that does
/// not verify.
fn scrambled(m: &Module, r: &mut Rng) -> Option<Module> {
    let mut m = m.clone();
    let entry = m.entry;
    let mut changed = false;
    for i in &mut m.comp_mut(entry).instructions {
        if let Shape::Array(a) = &mut i.shape
            && a.dims.len() >= 2
            && r.coin()
        {
            let l = rxla_ir::Layout::from_minor_to_major(r.perm(a.dims.len()));
            changed |= l != a.layout;
            a.layout = l;
        }
    }
    if !changed {
        return None;
    }
    m.entry_layout = None;
    rxla_ir::verify_module(&m).ok()?;
    Some(m)
}

/// Checks one rule on `trials` random instances, each also with random
/// layouts (values are logical: a rule must hold whatever the layouts,
/// and the pass must keep the root's layout); returns how often it fired
/// on the plain and on the relaid-out instances.
fn check_rule(
    rule: &str,
    family: &str,
    trials: usize,
    seed: u64,
) -> Result<(usize, usize), String> {
    let mut r = Rng(seed | 1);
    let fast = family == "fast_math";
    let (mut fired, mut fired_relaid) = (0, 0);
    for _ in 0..trials {
        let text = generate(rule, &mut r).unwrap_or_else(|| panic!("rule {rule} has no generator"));
        let plain = parse(&text);
        let mut variants = vec![plain.clone()];
        variants.extend(scrambled(&plain, &mut r));
        for (v, before) in variants.iter().enumerate() {
            let text = rxla_ir::print_module(before);
            let after = match apply_rule_for_test(before, rule) {
                Ok(Some(m)) => m,
                Ok(None) => continue,
                Err(e) => panic!("rule {rule}: {e}\n{text}"),
            };
            if v == 0 {
                fired += 1;
            } else {
                fired_relaid += 1;
            }
            rxla_ir::verify_module(&after).unwrap_or_else(|e| {
                panic!(
                    "rule {rule}: result does not verify: {e}\n{text}\n{}",
                    rxla_ir::print_module(&after)
                )
            });
            let params = before.entry_computation().program_shape().parameters;
            for _ in 0..6 {
                let args: Vec<Literal> =
                    params.iter().map(|s| random_arg(&mut r, s, fast)).collect();
                let want = rxla_eval::evaluate(before, &args, &RunOptions::default())
                    .unwrap_or_else(|e| panic!("rule {rule}: before: {e}\n{text}"));
                let got = rxla_eval::evaluate(&after, &args, &RunOptions::default())
                    .unwrap_or_else(|e| {
                        panic!("rule {rule}: after: {e}\n{}", rxla_ir::print_module(&after))
                    });
                if !same(&want, &got, fast) {
                    return Err(format!(
                        "rule {rule} changed results\nbefore:\n{text}\nafter:\n{}\nargs: {args:?}\nwant: {want:?}\ngot: {got:?}",
                        rxla_ir::print_module(&after)
                    ));
                }
            }
        }
    }
    Ok((fired, fired_relaid))
}

#[test]
fn every_rule_has_a_generator() {
    let mut r = Rng(7);
    let missing: Vec<String> = rule_families()
        .into_iter()
        .filter(|(n, _)| generate(n, &mut r).is_none())
        .map(|(n, _)| n)
        .collect();
    assert!(missing.is_empty(), "rules without a generator: {missing:?}");
    assert!(
        rule_families().len() >= 60,
        "{} rules",
        rule_families().len()
    );
}

#[test]
fn every_rule_is_bit_exact_on_random_instances() {
    let mut failures = Vec::new();
    let mut relaid = 0;
    for (i, (rule, family)) in rule_families().into_iter().enumerate() {
        match check_rule(&rule, family, 30, 0x9e37_79b9 + i as u64 * 7919) {
            Ok((n, _)) if n < 8 => {
                failures.push(format!("{rule}: fired on only {n} of 30 instances"))
            }
            Ok((n, m)) => {
                relaid += m;
                eprintln!("{rule}: fired on {n} of 30 (and {m} relaid out)")
            }
            Err(e) => failures.push(e),
        }
    }
    // Most instances with rank ≥ 2 values get random layouts too.
    assert!(relaid >= 1000, "only {relaid} relaid-out instances fired");
    assert!(
        failures.is_empty(),
        "{} failing rules:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
