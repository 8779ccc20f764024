//! Oracle 5, the builder API is total: random builder calls with random,
//! often invalid, arguments (bogus values, negative or huge sizes, out of
//! range dimensions, mismatched types, wrong called computations) must
//! return `Ok` or `Err`, never panic. A module is built at the end; if that
//! succeeds it must verify.

use crate::{OracleResult, Verdict};
use rxla_fuzzgen::prng::SplitMix64;
use rxla_fuzzgen::values::{Choices, random_literal};
use rxla_ir::builder::{ComputationBuilder, ModuleBuilder, Padding, Value};
use rxla_ir::{
    BinaryOp, CompId, ComparisonDirection, ElementType, GatherDims, InstrId, PadDim, ScatterDims,
    Shape, UnaryOp, verify_module,
};

/// Integers that break size arithmetic.
const NASTY: [i64; 12] = [-(1 << 62), -5, -1, 0, 0, 1, 1, 2, 3, 9, 1 << 40, i64::MAX];

struct Calls<'c, C: Choices> {
    rng: &'c mut C,
    vals: Vec<Value>,
    comps: Vec<CompId>,
}

impl<C: Choices> Calls<'_, C> {
    fn int(&mut self) -> i64 {
        if self.rng.chance(1, 4) {
            NASTY[self.rng.range(0, NASTY.len() as i64 - 1) as usize]
        } else {
            self.rng.range(0, 4)
        }
    }
    fn ints(&mut self) -> Vec<i64> {
        let n = self.rng.range(0, 4);
        (0..n).map(|_| self.int()).collect()
    }
    fn small_dims(&mut self) -> Vec<i64> {
        let n = self.rng.range(0, 3);
        (0..n).map(|_| self.rng.range(0, 3)).collect()
    }
    fn val(&mut self) -> Value {
        if self.vals.is_empty() || self.rng.chance(1, 12) {
            Value(InstrId(self.rng.range(0, 1000) as u32))
        } else {
            let i = self.rng.range(0, self.vals.len() as i64 - 1) as usize;
            self.vals[i]
        }
    }
    fn vals(&mut self) -> Vec<Value> {
        let n = self.rng.range(0, 3);
        (0..n).map(|_| self.val()).collect()
    }
    fn comp(&mut self) -> CompId {
        if self.comps.is_empty() || self.rng.chance(1, 8) {
            CompId(self.rng.range(0, 50) as u32)
        } else {
            let i = self.rng.range(0, self.comps.len() as i64 - 1) as usize;
            self.comps[i]
        }
    }
    fn ty(&mut self) -> ElementType {
        let all = ElementType::ALL;
        all[self.rng.range(0, all.len() as i64 - 1) as usize]
    }
    fn shape(&mut self) -> Shape {
        let ty = self.ty();
        let dims = self.small_dims();
        Shape::array(ty, dims).unwrap_or_else(|_| Shape::scalar(ty))
    }
    fn pads(&mut self) -> Vec<PadDim> {
        let n = self.rng.range(0, 3);
        (0..n)
            .map(|_| PadDim {
                low: self.int(),
                high: self.int(),
                interior: self.int(),
            })
            .collect()
    }
    fn padding(&mut self) -> Padding {
        if self.rng.coin() {
            Padding::Same
        } else {
            Padding::Valid
        }
    }
}

/// One random builder call; the value it made, if any.
fn call<C: Choices>(c: &mut Calls<C>, b: &mut ComputationBuilder) -> Option<Value> {
    let r = match c.rng.range(0, 35) {
        0 => {
            let n = c.int();
            let s = c.shape();
            b.parameter(n, s, "p")
        }
        1 => {
            let s = c.shape();
            let l = random_literal(c.rng, &s);
            b.constant_literal(l)
        }
        2 => {
            let u = UnaryOp::ALL[c.rng.range(0, 22) as usize];
            let x = c.val();
            b.unary(u, x)
        }
        3 => {
            let op = BinaryOp::ALL[c.rng.range(0, 14) as usize];
            let (x, y, d) = (c.val(), c.val(), c.ints());
            b.binary(op, x, y, &d)
        }
        4 => {
            let dir = ComparisonDirection::ALL[c.rng.range(0, 5) as usize];
            let (x, y, d) = (c.val(), c.val(), c.ints());
            b.compare(dir, x, y, &d)
        }
        5 => {
            let (x, y, z) = (c.val(), c.val(), c.val());
            b.clamp(x, y, z)
        }
        6 => {
            let (x, y, z) = (c.val(), c.val(), c.val());
            b.select(x, y, z)
        }
        7 => {
            let (x, t) = (c.val(), c.ty());
            b.convert_element_type(x, t)
        }
        8 => {
            let (x, t) = (c.val(), c.ty());
            b.bitcast_convert_type(x, t)
        }
        9 => {
            let (s, d) = (c.shape(), c.int());
            b.iota(s, d)
        }
        10 => {
            let (x, d) = (c.val(), c.ints());
            b.broadcast(x, &d)
        }
        11 => {
            let (x, o, d) = (c.val(), c.ints(), c.ints());
            b.broadcast_in_dim(x, &o, &d)
        }
        12 => {
            let (x, d) = (c.val(), c.ints());
            b.reshape(x, &d)
        }
        13 => {
            let (x, d) = (c.val(), c.ints());
            b.transpose(x, &d)
        }
        14 => {
            let (x, d) = (c.val(), c.ints());
            b.rev(x, &d)
        }
        15 => {
            let (x, s, l, st) = (c.val(), c.ints(), c.ints(), c.ints());
            b.slice_strided(x, &s, &l, &st)
        }
        16 => {
            let (x, s, z) = (c.val(), c.vals(), c.ints());
            b.dynamic_slice(x, &s, &z)
        }
        17 => {
            let (x, u, s) = (c.val(), c.val(), c.vals());
            b.dynamic_update_slice(x, u, &s)
        }
        18 => {
            let (xs, d) = (c.vals(), c.int());
            b.concat_in_dim(&xs, d)
        }
        19 => {
            let (x, v, p) = (c.val(), c.val(), c.pads());
            b.pad(x, v, &p)
        }
        20 => {
            let x = c.val();
            b.copy(x)
        }
        21 => {
            let (x, s) = (c.val(), c.shape());
            b.bitcast(x, s)
        }
        22 => {
            let (x, y) = (c.val(), c.val());
            b.dot(x, y)
        }
        23 => {
            let (x, y) = (c.val(), c.val());
            let dims = rxla_ir::DotDims {
                lhs_batch: c.ints(),
                lhs_contracting: c.ints(),
                rhs_batch: c.ints(),
                rhs_contracting: c.ints(),
            };
            b.dot_general(x, y, dims)
        }
        24 => {
            let (x, y, s, p) = (c.val(), c.val(), c.ints(), c.ints());
            let pads: Vec<(i64, i64)> = p.iter().map(|&v| (v, -v)).collect();
            let (ld, rd) = (c.ints(), c.ints());
            b.conv_with_general_padding(x, y, &s, &pads, &ld, &rd)
        }
        25 => {
            let (xs, f) = (c.vals(), c.comp());
            b.map(&xs, f)
        }
        26 => {
            let (xs, is, f, d) = (c.vals(), c.vals(), c.comp(), c.ints());
            b.reduce(&xs, &is, f, &d)
        }
        27 => {
            let (xs, is, f, w, s, p) = (
                c.vals(),
                c.vals(),
                c.comp(),
                c.ints(),
                c.ints(),
                c.padding(),
            );
            b.reduce_window(&xs, &is, f, &w, &s, p)
        }
        28 => {
            let (x, sel, w, s, p, src, init, sc) = (
                c.val(),
                c.comp(),
                c.ints(),
                c.ints(),
                c.padding(),
                c.val(),
                c.val(),
                c.comp(),
            );
            b.select_and_scatter(x, sel, &w, &s, p, src, init, sc)
        }
        29 => {
            let (xs, f, d, st) = (c.vals(), c.comp(), c.int(), c.rng.coin());
            b.sort(&xs, f, d, st)
        }
        30 => {
            let (x, i) = (c.val(), c.val());
            let dims = GatherDims {
                offset_dims: c.ints(),
                collapsed_slice_dims: c.ints(),
                start_index_map: c.ints(),
                index_vector_dim: c.int(),
                operand_batching_dims: vec![],
                start_indices_batching_dims: vec![],
            };
            let ss = c.ints();
            b.gather(x, i, dims, &ss)
        }
        31 => {
            let (xs, i, us, f) = (c.vals(), c.val(), c.vals(), c.comp());
            let dims = ScatterDims {
                update_window_dims: c.ints(),
                inserted_window_dims: c.ints(),
                scatter_dims_to_operand_dims: c.ints(),
                index_vector_dim: c.int(),
                input_batching_dims: vec![],
                scatter_indices_batching_dims: vec![],
            };
            b.scatter(&xs, i, &us, f, dims)
        }
        32 => {
            let (f, xs) = (c.comp(), c.vals());
            b.call(f, &xs)
        }
        33 => {
            let (x, n, d) = (c.val(), c.val(), c.int());
            b.set_dimension_size(x, n, d)
        }
        34 => {
            let (x, d) = (c.val(), c.int());
            b.get_dimension_size(x, d)
        }
        _ => {
            let xs = c.vals();
            if c.rng.coin() {
                b.tuple(&xs)
            } else {
                let (t, i) = (c.val(), c.int());
                b.get_tuple_element(t, i)
            }
        }
    };
    r.ok()
}

/// Random builder calls driven by `seed`.
pub fn check(seed: u64) -> OracleResult {
    check_with(&mut SplitMix64::new(seed ^ 0x00B0_1DE5))
}

/// Random builder calls driven by `choices` (a PRNG or fuzzer bytes).
pub fn check_with(choices: &mut impl Choices) -> OracleResult {
    let mut c = Calls {
        rng: choices,
        vals: vec![],
        comps: vec![],
    };
    let mut mb = ModuleBuilder::new("builder_fuzz");
    // A few helper computations (some valid reducers) for calls to use.
    let nsub = c.rng.range(0, 3);
    for i in 0..nsub {
        let mut b = mb.computation(&format!("helper{i}"));
        let ty = c.ty();
        let op = BinaryOp::ALL[c.rng.range(0, 14) as usize];
        if let Ok(f) = b.scalar_binary_computation(op, ty) {
            c.comps.push(f);
        }
        let _ = b.constant_literal(rxla_ir::Literal::scalar(0i32));
    }
    let entry = {
        let mut b = mb.computation("main");
        let n = c.rng.range(1, 24);
        for _ in 0..n {
            if let Some(v) = call(&mut c, &mut b) {
                c.vals.push(v);
            }
        }
        let root = c.val();
        b.build(root)
    };
    let Ok(entry) = entry else {
        return Ok(Verdict::Checked);
    };
    if let Ok(m) = mb.build_entry(entry) {
        verify_module(&m)
            .map_err(|e| format!("build_entry returned a module that does not verify: {e}"))?;
    }
    Ok(Verdict::Checked)
}
