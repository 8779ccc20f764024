//! The JIT oracle's tolerance policy: which result leaves of a module must
//! match the evaluator bit for bit and which may differ by rounding, and by
//! how much. A leaf is *inexact* when an inexact op feeds it (dataflow
//! through the ENTRY computation; a call, fusion, loop or conditional whose
//! callees contain an inexact op counts as one). Inexact ops are those on
//! floating-point values whose evaluation order or approximation may
//! legitimately differ: reduce, reduce-window, select-and-scatter, dot,
//! convolution, fft (accumulating), and the transcendental functions
//! (complex ones included; complex leaves compare part by part). Everything
//! else — data movement, integer, pred, compare, and the IEEE-exact float
//! ops (add, multiply, divide, sqrt, ...) — is exact. No I/O, no panics.

use rxla_ir::{
    ArrayData, ArrayLiteral, BinaryOp, CompId, Computation, ElementType, InstrId, Module, Op, Shape,
};

/// How far a leaf may be from the evaluator's value.
#[derive(Clone, Debug, PartialEq)]
pub struct Tolerance {
    /// A transcendental function feeds the leaf.
    pub transcendental: bool,
    /// The largest accumulation length feeding the leaf (0: none).
    pub accumulate: usize,
    /// A transcendental is applied to an already inexact value (errors
    /// are amplified by its condition number): rtol at least 1e-3.
    pub chained: bool,
    /// An ill-conditioned function (sine, cosine, tan, power: unbounded
    /// amplification for large arguments) is applied to an inexact value:
    /// the leaf's values are not compared.
    pub ill_conditioned: bool,
    /// The unit roundoff of the coarsest float type an inexact op feeding
    /// the leaf computed in (0: none). An f32 `tan` converted to f64 is
    /// compared at f32's tolerance, not f64's.
    pub op_u: f64,
    /// An accumulation feeding the leaf reads constants holding values
    /// within 2^16 of overflowing (or infinities): its small terms are
    /// absorbed in an order-dependent way (`x + 3.4e38 - 3.4e38`), also
    /// where the leaf no longer shows the huge values (a `sqrt` after the
    /// convolution, fuzz seed 213709); finite results are not compared
    /// against each other there.
    pub absorbing: bool,
    /// An fft feeds the leaf: its error bound is relative to the largest
    /// value of the transform, not to each element (an output that
    /// cancels to about 0 carries an absolute error of the order of
    /// n·u·max; fuzz seed 6340715: -6144 against 0 in a transform of
    /// values near 1e19).
    pub normwise: bool,
}

impl Tolerance {
    /// `log2(n)` of the accumulation length, at least 1.
    fn log_factor(&self) -> f64 {
        (self.accumulate.max(2) as f64).log2().max(1.0)
    }

    /// The relative tolerance for `ty`'s unit roundoff `u` (2^-mantissa).
    pub fn rtol(&self, u: f64) -> f64 {
        let u = u.max(self.op_u);
        let is_f64 = u < 1e-10;
        let trans = if is_f64 { 1e-12 } else { (4.0 * u).max(1e-5) };
        let accum = if is_f64 { 1e-12 } else { (8.0 * u).max(1e-4) } * self.log_factor();
        let chained = if self.chained {
            1e-3 * self.log_factor()
        } else {
            0.0
        };
        let base = match (self.transcendental, self.accumulate > 0) {
            (_, true) => accum.max(if self.transcendental { trans } else { 0.0 }),
            (true, false) => trans,
            (false, false) => 0.0,
        };
        if is_f64 { base } else { base.max(chained) }
    }

    fn merge(&mut self, other: &Tolerance) {
        self.transcendental |= other.transcendental;
        self.accumulate = self.accumulate.max(other.accumulate);
        self.chained |= other.chained;
        self.ill_conditioned |= other.ill_conditioned;
        self.op_u = self.op_u.max(other.op_u);
        self.absorbing |= other.absorbing;
        self.normwise |= other.normwise;
    }
}

/// The comparison policy of one result leaf.
#[derive(Clone, Debug, PartialEq)]
pub enum LeafPolicy {
    Exact,
    Tolerance(Tolerance),
}

/// The policy of every leaf of the ENTRY result, in `Literal::leaves` order.
pub fn leaf_policies(module: &Module) -> Vec<LeafPolicy> {
    let sensitive = sensitive_computations(module);
    let ffts = fft_computations(module);
    let comp_inexact = computation_tolerances(module, &sensitive, &ffts);
    let entry = module.entry_computation();
    let taint = instruction_tolerances(entry, &comp_inexact, &sensitive, &ffts);
    let mut out = Vec::new();
    push_leaves(entry, entry.root, &taint, &mut out);
    out
}

fn push_leaves(
    comp: &Computation,
    id: InstrId,
    taint: &[Option<Tolerance>],
    out: &mut Vec<LeafPolicy>,
) {
    let instr = comp.get(id);
    if matches!(instr.op, Op::Tuple) {
        for &o in &instr.operands {
            push_leaves(comp, o, taint, out);
        }
        return;
    }
    let policy = match &taint[id.0 as usize] {
        None => LeafPolicy::Exact,
        Some(t) => LeafPolicy::Tolerance(t.clone()),
    };
    let n = leaf_count(&instr.shape);
    out.extend(std::iter::repeat_n(policy, n));
}

fn leaf_count(s: &Shape) -> usize {
    s.leaves().len()
}

/// Whether an op of `instr` in `comp` is itself inexact, and how.
fn own_tolerance(comp: &Computation, id: InstrId) -> Option<Tolerance> {
    let instr = comp.get(id);
    let float = |s: &Shape| {
        s.leaves()
            .iter()
            .any(|a| a.element_type.is_float() || a.element_type.is_complex())
    };
    let touches_float =
        float(&instr.shape) || instr.operands.iter().any(|&o| float(&comp.get(o).shape));
    if !touches_float {
        return None;
    }
    let op_u = std::iter::once(&instr.shape)
        .chain(instr.operands.iter().map(|&o| &comp.get(o).shape))
        .flat_map(|s| {
            s.leaves()
                .into_iter()
                .map(|a| a.element_type)
                .collect::<Vec<_>>()
        })
        .filter_map(unit_roundoff)
        .fold(0.0, f64::max);
    if instr.op.is_transcendental() {
        return Some(Tolerance {
            transcendental: true,
            accumulate: 0,
            chained: false,
            ill_conditioned: false,
            op_u,
            absorbing: false,
            normwise: false,
        });
    }
    if instr.op.accumulates() {
        let n = instr
            .operands
            .iter()
            .flat_map(|&o| {
                comp.get(o)
                    .shape
                    .leaves()
                    .into_iter()
                    .cloned()
                    .collect::<Vec<_>>()
            })
            .map(|a| a.element_count().unwrap_or(usize::MAX))
            .max()
            .unwrap_or(1)
            .max(1);
        return Some(Tolerance {
            transcendental: false,
            accumulate: n,
            chained: false,
            ill_conditioned: false,
            op_u,
            absorbing: false,
            normwise: false,
        });
    }
    None
}

/// Whether `op` is a constant holding a float within 2^16 of its type's
/// largest finite value, or an infinity.
fn near_overflow_constant(op: &Op) -> bool {
    let Op::Constant { literal } = op else {
        return false;
    };
    literal.leaves().iter().any(|a| {
        type_limits(&a.data).is_some_and(|(_, _, max)| {
            floats(&a.data).is_some_and(|v| {
                v.iter()
                    .any(|(x, _)| x.is_infinite() || x.abs() >= max * 2f64.powi(-16))
            })
        })
    })
}

/// The unit roundoff (2^-mantissa bits) of a float element type.
fn unit_roundoff(et: ElementType) -> Option<f64> {
    Some(match et {
        ElementType::F16 => 2f64.powi(-10),
        ElementType::BF16 => 2f64.powi(-7),
        ElementType::F32 | ElementType::C64 => 2f64.powi(-23),
        ElementType::F64 | ElementType::C128 => 2f64.powi(-52),
        t if t.is_f8() => 2f64.powi(-(rxla_ir::narrow::f8_format(t)?.man_bits as i32)),
        _ => return None,
    })
}

/// Per computation: the tolerance of its inexact ops (transitively through
/// the computations it calls), or `None` when it is exact.
fn computation_tolerances(
    module: &Module,
    sensitive: &[bool],
    ffts: &[bool],
) -> Vec<Option<Tolerance>> {
    per_computation_fixed_point(module, None, |comp, out| {
        let mut t: Option<Tolerance> = None;
        for o in instruction_tolerances(comp, out, sensitive, ffts)
            .into_iter()
            .flatten()
        {
            t.get_or_insert_with(|| o.clone()).merge(&o);
        }
        t
    })
}

/// Per computation: whether it (or a computation it calls) applies a
/// discontinuous or ill-conditioned op, so a call of it on an inexact
/// value is as ill-conditioned as that op itself (a fusion computing
/// `remainder(c, p)` of a `cosine` operand).
fn sensitive_computations(module: &Module) -> Vec<bool> {
    per_computation_fixed_point(module, false, |comp, out| {
        comp.ids().any(|id| {
            let instr = comp.get(id);
            instr.op.is_discontinuous()
                || instr.op.is_ill_conditioned()
                || instr
                    .op
                    .called_computations()
                    .iter()
                    .any(|c| out.get(c.0 as usize).copied().unwrap_or(false))
        })
    })
}

/// Per computation: whether it (or a computation it calls) has an fft.
fn fft_computations(module: &Module) -> Vec<bool> {
    per_computation_fixed_point(module, false, |comp, out| {
        comp.ids().any(|id| {
            let instr = comp.get(id);
            matches!(instr.op, Op::Fft { .. })
                || instr
                    .op
                    .called_computations()
                    .iter()
                    .any(|c| out.get(c.0 as usize).copied().unwrap_or(false))
        })
    })
}

/// A per-computation fact computed from the facts of the computations it
/// calls: callees come before callers, but this iterates to a fixed point
/// anyway so the result does not depend on that order.
fn per_computation_fixed_point<T: Clone + PartialEq>(
    module: &Module,
    start: T,
    fact: impl Fn(&Computation, &[T]) -> T,
) -> Vec<T> {
    let mut out = vec![start; module.computations.len()];
    for _ in 0..module.computations.len().max(1) {
        let mut changed = false;
        for (ci, comp) in module.computations.iter().enumerate() {
            let f = fact(comp, &out);
            if f != out[ci] {
                out[ci] = f;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    out
}

/// Per instruction of `comp`: the tolerance of the inexact ops that feed it.
fn instruction_tolerances(
    comp: &Computation,
    comp_tol: &[Option<Tolerance>],
    sensitive: &[bool],
    ffts: &[bool],
) -> Vec<Option<Tolerance>> {
    let mut taint: Vec<Option<Tolerance>> = vec![None; comp.len()];
    // Values computed from an fft output (see `Op::keeps_normwise_error`:
    // an fft's outputs are inexact even on exact inputs, and a
    // mathematically zero output comes out as a tiny value of either sign).
    let mut from_fft = vec![false; comp.len()];
    // Values computed from a constant holding near-overflow values.
    let mut huge = vec![false; comp.len()];
    for id in comp.ids() {
        let instr = comp.get(id);
        let mut t = own_tolerance(comp, id);
        let huge_fed = instr
            .operands
            .iter()
            .any(|o| huge.get(o.0 as usize).copied().unwrap_or(false));
        huge[id.0 as usize] = huge_fed || near_overflow_constant(&instr.op);
        if huge_fed && let Some(own) = t.as_mut().filter(|o| o.accumulate > 0) {
            own.absorbing = true;
        }
        let fft_fed = instr
            .operands
            .iter()
            .any(|o| from_fft.get(o.0 as usize).copied().unwrap_or(false));
        from_fft[id.0 as usize] = matches!(instr.op, Op::Fft { .. })
            || fft_fed
            || instr
                .op
                .called_computations()
                .iter()
                .any(|c| ffts.get(c.0 as usize).copied().unwrap_or(false));
        let fed = instr
            .operands
            .iter()
            .any(|o| matches!(taint.get(o.0 as usize), Some(Some(_))));
        if let Some(own) = t.as_mut().filter(|o| o.transcendental && fed) {
            own.chained = true;
            own.ill_conditioned = instr.op.is_ill_conditioned();
        }
        let callees: Vec<CompId> = instr.op.called_computations();
        let from_callees = callees
            .iter()
            .filter_map(|c| comp_tol.get(c.0 as usize).cloned().flatten());
        let from_operands = instr
            .operands
            .iter()
            .filter_map(|o| taint.get(o.0 as usize).cloned().flatten());
        for o in from_callees.chain(from_operands) {
            t.get_or_insert_with(|| o.clone()).merge(&o);
        }
        let sensitive_callee = callees
            .iter()
            .any(|c| sensitive.get(c.0 as usize).copied().unwrap_or(false));
        if fed
            && (instr.op.is_discontinuous() || sensitive_callee)
            && let Some(t) = t.as_mut()
        {
            t.ill_conditioned = true;
        }
        // A product keeps the normwise comparison only when the other
        // factor is one scale for every element (a scalar or a broadcast
        // scalar): an element-wise scale can blow a mathematically zero
        // fft output's rounding noise up past the leaf's norm (seed 314975:
        // real(rfft(3.5, 3.5, 3.5))[1] ≈ ±1e-16 times a parameter of 1e308).
        let uniform = |o: &InstrId| {
            let x = comp.get(*o);
            x.shape.as_array().is_ok_and(|a| a.rank() == 0)
                || matches!(x.op, Op::Broadcast { .. })
                    && x.operands
                        .first()
                        .is_some_and(|&b| comp.get(b).shape.as_array().is_ok_and(|a| a.rank() == 0))
        };
        let scaled = matches!(instr.op, Op::Binary(BinaryOp::Multiply))
            && !instr
                .operands
                .iter()
                .any(|o| !from_fft.get(o.0 as usize).copied().unwrap_or(false) && uniform(o));
        if fft_fed
            && (!instr.op.keeps_normwise_error() || scaled)
            && let Some(t) = t.as_mut()
        {
            t.ill_conditioned = true;
        }
        if from_fft[id.0 as usize]
            && let Some(t) = t.as_mut()
        {
            t.normwise = true;
        }
        // A loop whose body is inexact feeds itself an inexact value from
        // the second trip on, whatever its init: `tan` iterated in the
        // body is a chain of ill-conditioned ops (tan(tan(tan(x)))). So
        // does a reduction whose combiner is inexact (acc = tan(acc)).
        if instr.op.feeds_itself()
            && let Some(t) = t.as_mut()
        {
            for c in &callees {
                if let Some(Some(ct)) = comp_tol.get(c.0 as usize) {
                    t.chained |= ct.transcendental;
                    t.ill_conditioned |= sensitive.get(c.0 as usize).copied().unwrap_or(false);
                }
            }
        }
        taint[id.0 as usize] = t;
    }
    taint
}

/// `(unit roundoff, smallest positive normal, largest finite)` of a float
/// leaf, `None` otherwise.
fn type_limits(d: &ArrayData) -> Option<(f64, f64, f64)> {
    Some(match d {
        ArrayData::F16(_) => (2f64.powi(-10), 2f64.powi(-14), 65504.0),
        ArrayData::BF16(_) => (2f64.powi(-7), 2f64.powi(-126), 3.3895313892515355e38),
        ArrayData::F32(_) | ArrayData::C64(_) => (2f64.powi(-23), 2f64.powi(-126), f32::MAX as f64),
        ArrayData::F64(_) | ArrayData::C128(_) => (2f64.powi(-52), 2f64.powi(-1022), f64::MAX),
        ArrayData::Narrow(t, _) if t.is_f8() => {
            let f = rxla_ir::narrow::f8_format(*t)?;
            (2f64.powi(-(f.man_bits as i32)), f.min_normal(), f.max())
        }
        _ => return None,
    })
}

/// Whether `a` and `b` may differ only because an overflow happened in a
/// different order (or not at all, with a fused multiply-add): one of them
/// is inf or NaN and the other is inf, NaN or within 2^16 of overflowing.
fn overflow_divergence(a: f64, b: f64, max: f64) -> bool {
    let near = |x: f64| !x.is_finite() || x.abs() >= max * 2f64.powi(-16);
    (!a.is_finite() || !b.is_finite()) && near(a) && near(b)
}

/// Whether an overflow divergence upstream may have been mapped to any
/// value: in a leaf where a transcendental is applied to an accumulated
/// value, the accumulation's `inf − inf` = NaN in one order against −inf in
/// the other (or with a fused multiply-add) comes out as NaN against
/// `logistic(−inf)` = 0. One of the two is NaN.
fn saturated_overflow_divergence(a: f64, b: f64, t: &Tolerance) -> bool {
    t.chained && t.accumulate > 0 && (a.is_nan() != b.is_nan())
}

fn floats(d: &ArrayData) -> Option<Vec<(f64, u64)>> {
    Some(match d {
        ArrayData::F16(v) => v.iter().map(|x| (x.to_f64(), x.to_bits() as u64)).collect(),
        ArrayData::BF16(v) => v.iter().map(|x| (x.to_f64(), x.to_bits() as u64)).collect(),
        ArrayData::F32(v) => v.iter().map(|x| (*x as f64, x.to_bits() as u64)).collect(),
        ArrayData::F64(v) => v.iter().map(|x| (*x, x.to_bits())).collect(),
        ArrayData::Narrow(t, v) if t.is_f8() => v
            .iter()
            .map(|&b| (rxla_ir::narrow::to_f64(*t, b), b as u64))
            .collect(),
        // Complex leaves compare part by part (re, im, re, im, ...).
        ArrayData::C64(v) => v
            .iter()
            .flat_map(|z| [z.re, z.im])
            .map(|x| (x as f64, x.to_bits() as u64))
            .collect(),
        ArrayData::C128(v) => v
            .iter()
            .flat_map(|z| [z.re, z.im])
            .map(|x| (x, x.to_bits()))
            .collect(),
        _ => return None,
    })
}

/// Compares a float leaf within `t`: `Some(Ok)` when every element is
/// bit-identical, both NaN, or `|got - want| <= rtol*|want| + atol` with
/// `atol = rtol + 4 * smallest normal` (values near zero, cancellation of
/// O(1) terms), or an overflow reached in another order (inf/NaN against
/// inf, NaN or a value within 2^16 of the type's maximum; NaN against
/// anything after a transcendental of an accumulation; any finite value
/// against a finite one in an accumulation's leaf that holds values within
/// 2^16 of the maximum: absorption; an expected NaN against a finite
/// value in an accumulation's leaf that holds an infinity); `None` when the
/// leaf is not a float leaf.
pub fn close(want: &ArrayLiteral, got: &ArrayLiteral, t: &Tolerance) -> Option<Result<(), String>> {
    let (u, tiny, max) = type_limits(&want.data)?;
    if t.ill_conditioned {
        return Some(Ok(()));
    }
    if !want.shape.compatible(&got.shape) {
        return Some(Err(format!(
            "shape {} vs {}",
            want.shape.with_default_layout(),
            got.shape.with_default_layout()
        )));
    }
    let (w, g) = match (floats(&want.data), floats(&got.data)) {
        (Some(w), Some(g)) if w.len() == g.len() => (w, g),
        _ => return Some(Err("element types or counts differ".into())),
    };
    let rtol = t.rtol(u);
    let atol = rtol + 4.0 * tiny;
    // Absorption: an accumulation whose terms come within 2^16 of
    // overflowing (`x + 8.5e37 − 8.5e37`) loses its small terms in one
    // order and keeps them in another; the error bound is relative to the
    // largest term, not to the result. A leaf of an accumulation holding
    // such values (where the evaluator's result shows them) compares its
    // finite elements no closer than that.
    // A leaf that shows an overflow (inf or NaN on either side) had such
    // terms too; there a finite difference of their rounding residue's
    // size (between an ulp of max·2^-16 and n·u·max) passes: FMA keeps the
    // residue of ±2.55e38 terms that cancel, 5.07e30 against 0.
    let near = |v: f64| v.is_finite() && v.abs() >= max * 2f64.powi(-16);
    let absorbing = t.accumulate > 0 && (t.absorbing || w.iter().any(|(v, _)| near(*v)));
    let overflowed = t.accumulate > 0 && w.iter().chain(&g).any(|(v, _)| !v.is_finite());
    let residue = t.accumulate as f64 * u * max;
    // A leaf holding an infinity had an accumulation overflow: there the
    // evaluator's `inf − inf` = NaN (rounded products that overflowed) may
    // be a finite value when FMA or another order kept them in range (seed
    // 9041296: a convolution of ±3.4e38 inputs, then `minimum`).
    let infinite = t.accumulate > 0 && w.iter().chain(&g).any(|(v, _)| v.is_infinite());
    // Normwise (after an fft): each element against the leaf's largest
    // finite magnitude.
    let scale = if t.normwise {
        w.iter()
            .map(|(v, _)| v.abs())
            .filter(|v| v.is_finite())
            .fold(0.0, f64::max)
    } else {
        0.0
    };
    for (i, ((wv, wb), (gv, gb))) in w.iter().zip(&g).enumerate() {
        let ok = wb == gb
            || (wv.is_nan() && gv.is_nan())
            || (wv.is_finite()
                && gv.is_finite()
                && (gv - wv).abs() <= rtol * wv.abs().max(scale) + atol)
            || (absorbing && wv.is_finite() && gv.is_finite())
            || (overflowed
                && wv.is_finite()
                && gv.is_finite()
                && (max * 2f64.powi(-40)..=residue).contains(&(gv - wv).abs()))
            || (infinite && wv.is_nan() && gv.is_finite())
            || overflow_divergence(*wv, *gv, max)
            || saturated_overflow_divergence(*wv, *gv, t);
        if !ok {
            return Some(Err(format!(
                "element {i} (row-major) of {}: expected {wv:e}, got {gv:e} (beyond rtol {rtol:.1e}, atol {atol:.1e}; {})",
                want.shape.with_default_layout(),
                describe(t)
            )));
        }
    }
    Some(Ok(()))
}

fn describe(t: &Tolerance) -> String {
    if t.chained {
        return "downstream of a transcendental of an inexact value".into();
    }
    match (t.transcendental, t.accumulate) {
        (true, 0) => "downstream of a transcendental".into(),
        (false, n) => format!("downstream of an accumulation over up to {n} elements"),
        (true, n) => format!("downstream of a transcendental and an accumulation over up to {n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rxla_ir::Literal;

    fn leaf(v: Vec<f32>) -> ArrayLiteral {
        match Literal::vec1(v) {
            Literal::Array(a) => a,
            Literal::Tuple(_) => unreachable!(),
        }
    }

    /// The tolerance of an f32 accumulation over `n` elements alone.
    fn f32_accumulation(n: usize) -> Tolerance {
        Tolerance {
            transcendental: false,
            accumulate: n,
            chained: false,
            ill_conditioned: false,
            op_u: 2f64.powi(-23),
            absorbing: false,
            normwise: false,
        }
    }

    /// `Op::keeps_normwise_error` holds for exactly these opcodes (the
    /// policy's former opcode list), checked on every op of 3,000
    /// generated modules (every evaluable opcode appears).
    #[test]
    fn normwise_ops_are_the_listed_opcodes() {
        const LISTED: &[&str] = &[
            "fft",
            "real",
            "imag",
            "abs",
            "negate",
            "add",
            "subtract",
            "multiply",
            "maximum",
            "minimum",
            "select",
            "clamp",
            "convert",
            "copy",
            "bitcast",
            "reshape",
            "transpose",
            "broadcast",
            "slice",
            "dynamic-slice",
            "concatenate",
            "pad",
            "reverse",
            "tuple",
            "get-tuple-element",
            "complex",
        ];
        let cfg = rxla_fuzzgen::GenConfig::all_ops();
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..3_000 {
            let m = rxla_fuzzgen::generate_from_seed(seed, &cfg);
            for i in m.computations.iter().flat_map(|c| &c.instructions) {
                let name = i.opcode();
                assert_eq!(
                    i.op.keeps_normwise_error(),
                    LISTED.contains(&name),
                    "{name}"
                );
                seen.insert(name);
            }
        }
        for name in LISTED {
            assert!(seen.contains(name), "{name} never generated");
        }
    }

    #[test]
    fn accumulation_bounds() {
        let t = Tolerance {
            transcendental: false,
            accumulate: 256,
            chained: false,
            ill_conditioned: false,
            op_u: 0.0,
            absorbing: false,
            normwise: false,
        };
        assert!((t.rtol(2f64.powi(-23)) - 8e-4).abs() < 1e-12);
        let want = leaf(vec![1.0, f32::NAN, 1e-30, f32::MAX, f32::INFINITY]);
        let got = leaf(vec![1.0005, f32::NAN, 0.0, f32::INFINITY, f32::NAN]);
        assert_eq!(close(&want, &got, &t), Some(Ok(())));
        // Without a near-overflow value in the leaf (absorption), 1% off
        // fails.
        let want = leaf(vec![1.0, f32::NAN, 1e-30, f32::INFINITY]);
        let got = leaf(vec![1.01, f32::NAN, 0.0, f32::INFINITY]);
        assert!(close(&want, &got, &t).unwrap().is_err());
        // A NaN where a modest value is expected is never tolerated.
        let got = leaf(vec![f32::NAN, f32::NAN, 0.0, f32::INFINITY]);
        assert!(close(&want, &got, &t).unwrap().is_err());
    }

    /// Found by `rxla fuzz --oracle jit` (seed 9041296): a convolution of
    /// ±3.4e38 inputs overflows to inf − inf = NaN with rounded products
    /// and stays finite with FMA; `minimum` then passes the NaN on in the
    /// evaluator and a plain value in the JIT. The leaf also holds −inf.
    #[test]
    fn nan_from_an_overflowing_accumulation_against_a_value() {
        let t = f32_accumulation(20);
        let want = leaf(vec![f32::NEG_INFINITY, f32::NAN, -1.625]);
        let got = leaf(vec![f32::NEG_INFINITY, -2.875, -1.625]);
        assert_eq!(close(&want, &got, &t), Some(Ok(())));
        // Without an infinity in the leaf, a lost NaN is an error.
        let want = leaf(vec![0.5, f32::NAN, -1.625]);
        let got = leaf(vec![0.5, -2.875, -1.625]);
        assert!(close(&want, &got, &t).unwrap().is_err());
    }

    #[test]
    fn policies_follow_the_dataflow() {
        let text = "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  p = f32[8] parameter(0)\n  z = f32[] constant(0)\n  r = f32[] reduce(p, z), dimensions={0}, to_apply=add\n  n = f32[8] negate(p)\n  c = pred[] compare(r, z), direction=LT\n  ROOT t = (f32[], f32[8], pred[]) tuple(r, n, c)\n}\n";
        let m = rxla_ir::parse_module(text, "t").unwrap();
        let p = leaf_policies(&m);
        let acc = LeafPolicy::Tolerance(Tolerance {
            transcendental: false,
            accumulate: 8,
            chained: false,
            ill_conditioned: false,
            op_u: 2f64.powi(-23),
            absorbing: false,
            normwise: false,
        });
        assert_eq!(p, vec![acc.clone(), LeafPolicy::Exact, acc]);
    }

    #[test]
    fn chains_of_transcendentals() {
        let text = "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  x = f32[4] exponential(p)\n  l = f32[4] log(x)\n  t = f32[4] tan(x)\n  ROOT r = (f32[4], f32[4], f32[4]) tuple(x, l, t)\n}\n";
        let m = rxla_ir::parse_module(text, "t").unwrap();
        let p = leaf_policies(&m);
        let get = |i: usize| match &p[i] {
            LeafPolicy::Tolerance(t) => t.clone(),
            LeafPolicy::Exact => panic!("leaf {i} exact"),
        };
        let u = 2f64.powi(-23);
        assert!(!get(0).chained && (get(0).rtol(u) - 1e-5).abs() < 1e-12);
        assert!(get(1).chained && !get(1).ill_conditioned && get(1).rtol(u) >= 1e-3);
        assert!(get(2).chained && get(2).ill_conditioned);
    }

    /// Found by `rxla fuzz --oracle jit` (seed 4354825): `tan` iterated by
    /// a while loop from an exact constant amplified tan's last-bit error
    /// to 1e-3 relative. The loop feeds its body an inexact value from the
    /// second trip on: the result is a chain of tan, not compared; a loop
    /// of exp is chained (loose), a loop of exact ops stays exact.
    #[test]
    fn loops_feed_their_inexact_bodies_back() {
        let looped = |op: &str| {
            format!(
                "HloModule m\nc {{\n  p = (s32[], f32[4]) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n  n = s32[] constant(3)\n  ROOT lt = pred[] compare(i, n), direction=LT\n}}\nb {{\n  p = (s32[], f32[4]) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n  x = f32[4] get-tuple-element(p), index=1\n  y = f32[4] {op}(x)\n  ROOT t = (s32[], f32[4]) tuple(j, y)\n}}\nENTRY e {{\n  z = s32[] constant(0)\n  x = f32[4] constant({{1, 2, 3, 4}})\n  t = (s32[], f32[4]) tuple(z, x)\n  ROOT w = (s32[], f32[4]) while(t), condition=c, body=b\n}}\n"
            )
        };
        let policy = |op: &str| {
            let m = rxla_ir::parse_module(&looped(op), "t").unwrap();
            leaf_policies(&m)[1].clone()
        };
        match policy("tan") {
            LeafPolicy::Tolerance(t) => assert!(t.chained && t.ill_conditioned),
            p => panic!("{p:?}"),
        }
        match policy("exponential") {
            LeafPolicy::Tolerance(t) => assert!(t.chained && !t.ill_conditioned),
            p => panic!("{p:?}"),
        }
        assert_eq!(policy("negate"), LeafPolicy::Exact);
        // Seed 4491286: a variadic reduce whose combiner returns
        // tan(acc), 48 times over.
        let text = "HloModule m\nr {\n  a = u32[] parameter(0)\n  x = f32[] parameter(1)\n  b = u32[] parameter(2)\n  y = f32[] parameter(3)\n  t = f32[] tan(x)\n  ROOT o = (u32[], f32[]) tuple(a, t)\n}\nENTRY e {\n  p = u32[48] parameter(0)\n  q = f32[48] parameter(1)\n  z = u32[] constant(0)\n  i = f32[] constant(5.625)\n  ROOT s = (u32[], f32[]) reduce(p, q, z, i), dimensions={0}, to_apply=r\n}\n";
        let m = rxla_ir::parse_module(text, "t").unwrap();
        assert!(matches!(&leaf_policies(&m)[1], LeafPolicy::Tolerance(t) if t.ill_conditioned));
    }

    /// Found by `rxla fuzz --oracle jit` (seed 4441491): a dot by a zero
    /// matrix of rows holding inf and NaN made NaNs whose signs depend on
    /// the summation order; a total-order `topk` put them at opposite
    /// ends. topk (and sort) of an inexact value is not compared; of
    /// exact values it stays exact.
    #[test]
    fn sorting_inexact_values_is_not_compared() {
        let text = "HloModule m\nENTRY e {\n  p = f32[2,3] parameter(0)\n  q = f32[3,4] parameter(1)\n  d = f32[2,4] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  k = (f32[2,4], s32[2,4]) topk(d), k=4, largest=false\n  e = (f32[2,3], s32[2,3]) topk(p), k=3, largest=true\n  k0 = f32[2,4] get-tuple-element(k), index=0\n  e0 = f32[2,3] get-tuple-element(e), index=0\n  ROOT t = (f32[2,4], f32[2,3]) tuple(k0, e0)\n}\n";
        let m = rxla_ir::parse_module(text, "t").unwrap();
        let p = leaf_policies(&m);
        assert!(matches!(&p[0], LeafPolicy::Tolerance(t) if t.ill_conditioned));
        assert_eq!(p[1], LeafPolicy::Exact);
    }

    /// Found by `rxla fuzz --oracle jit` (seed 6340715, reduced): the
    /// imaginary part of an fft of values near 1e19 cancels to about 0;
    /// -6144 against 0 is within the transform's error bound, which is
    /// relative to its largest value. Without the fft the same pair fails.
    #[test]
    fn fft_outputs_compare_normwise() {
        let text = "HloModule m\nENTRY e {\n  p = u64[3,4] parameter(0)\n  x = f64[3,4] convert(p)\n  i = f64[3,4] iota(), iota_dimension=0\n  c = c128[3,4] complex(x, i)\n  f = c128[3,4] fft(c), fft_type=FFT, fft_length={3,4}\n  ROOT im = f64[3,4] imag(f)\n}\n";
        let m = rxla_ir::parse_module(text, "t").unwrap();
        let p = leaf_policies(&m);
        let LeafPolicy::Tolerance(t) = &p[0] else {
            panic!("{p:?}")
        };
        assert!(t.normwise, "{t:?}");
        let want = match Literal::vec1(vec![-6144.0f64, 3.0e19]) {
            Literal::Array(a) => a,
            Literal::Tuple(_) => unreachable!(),
        };
        let got = match Literal::vec1(vec![0.0f64, 3.0e19]) {
            Literal::Array(a) => a,
            Literal::Tuple(_) => unreachable!(),
        };
        assert_eq!(close(&want, &got, t), Some(Ok(())));
        let elementwise = Tolerance {
            normwise: false,
            ..t.clone()
        };
        assert!(matches!(close(&want, &got, &elementwise), Some(Err(_))));
    }

    /// Found by `rxla fuzz --oracle jit` (seed 213709, reduced): a
    /// convolution of a constant holding ±3.4e38 with small terms, then
    /// `sqrt`: the leaf no longer shows the huge values, but the small
    /// terms were absorbed in an order-dependent way (sqrt(5.125) against
    /// sqrt(1.625)). The constant marks the accumulation as absorbing; the
    /// same module with ordinary constants compares as before.
    #[test]
    fn absorption_behind_a_transform_of_near_overflow_constants() {
        let text = |big: &str| {
            format!(
                "HloModule m\nENTRY e {{\n  c = f32[2,2,4] constant({{ {{ {{-0.25, -0.875, {big}, -{big}}}, {{0, 1.625, 2, 3.625}} }}, {{ {{-2.375, -3.375, -3.5, 5.125}}, {{-3.125, 0.125, -6.25, -3.125}} }} }})\n  i = f32[4,2,2] iota(), iota_dimension=0\n  v = f32[4,1,5] convolution(c, i), window={{size=2 pad=0_2}}, dim_labels=fb0_oi0->fb0, batch_group_count=2\n  ROOT s = f32[4,1,5] sqrt(v)\n}}\n"
            )
        };
        let m = rxla_ir::parse_module(&text("3.4028235e+38"), "t").unwrap();
        let p = leaf_policies(&m);
        assert!(
            matches!(&p[0], LeafPolicy::Tolerance(t) if t.absorbing),
            "{p:?}"
        );
        let want = leaf(vec![2.2638464, 1.0]);
        let got = leaf(vec![1.2747549, 1.0]);
        let LeafPolicy::Tolerance(t) = &p[0] else {
            unreachable!()
        };
        assert_eq!(close(&want, &got, t), Some(Ok(())));
        let m = rxla_ir::parse_module(&text("3.5"), "t").unwrap();
        let p = leaf_policies(&m);
        let LeafPolicy::Tolerance(t) = &p[0] else {
            panic!("{p:?}")
        };
        assert!(!t.absorbing);
        assert!(matches!(close(&want, &got, t), Some(Err(_))));
    }

    /// Found by `rxla fuzz --oracle jit` (seed 4766709): a convolution by
    /// -0.25 of windows holding ±3.4e38 and small values: the huge terms
    /// cancel and absorb the small ones in an order-dependent way (2.96875
    /// against 1.625), in a leaf that holds ±8.5e37 elsewhere. Without
    /// such values in the leaf the same difference fails.
    #[test]
    fn absorption_next_to_near_overflow_terms() {
        let t = f32_accumulation(100);
        let want = leaf(vec![2.96875, 8.507_059e37]);
        assert_eq!(
            close(&want, &leaf(vec![1.625, 8.507_059e37]), &t),
            Some(Ok(()))
        );
        assert!(matches!(
            close(&want, &leaf(vec![f32::NAN, 8.507_059e37]), &t),
            Some(Err(_))
        ));
        // Seed 5005919: the cancelling terms overflowed elsewhere in the
        // leaf (-inf, NaN); FMA kept a 5.07e30 residue where the
        // evaluator's sum is 0.
        let want = leaf(vec![f32::NEG_INFINITY, 0.0, f32::NAN]);
        let got = leaf(vec![f32::NEG_INFINITY, 5.070_602_4e30, f32::NAN]);
        assert_eq!(close(&want, &got, &t), Some(Ok(())));
        let got = leaf(vec![f32::NEG_INFINITY, 1e36, f32::NAN]);
        assert!(matches!(close(&want, &got, &t), Some(Err(_))));
        let modest = leaf(vec![2.96875, 8.5e3]);
        assert!(matches!(
            close(&modest, &leaf(vec![1.625, 8.5e3]), &t),
            Some(Err(_))
        ));
    }

    /// Found by `rxla fuzz --oracle jit` (seed 4324665): a convolution of
    /// -inf·5.375 + 3.4e38·4.125 is NaN in the evaluator (the product
    /// overflows, inf − inf) and −inf with a fused multiply-add; logistic
    /// maps them to NaN and 0. After a transcendental of an accumulation
    /// NaN against a number passes; without the accumulation it does not.
    #[test]
    fn saturated_overflow_after_an_accumulation() {
        let t = Tolerance {
            transcendental: true,
            chained: true,
            ..f32_accumulation(2)
        };
        let want = leaf(vec![f32::NAN, 0.5]);
        assert_eq!(close(&want, &leaf(vec![0.0, 0.5]), &t), Some(Ok(())));
        assert!(matches!(
            close(&want, &leaf(vec![0.0, 0.6]), &t),
            Some(Err(_))
        ));
        let no_accumulation = Tolerance {
            accumulate: 0,
            ..t.clone()
        };
        assert!(matches!(
            close(&want, &leaf(vec![0.0, 0.5]), &no_accumulation),
            Some(Err(_))
        ));
    }

    /// Found by the jit cargo-fuzz target: `remainder(expm1(p), p)` turned
    /// expm1's last-bit difference into 3e-5 relative (7.311035 vs
    /// 7.311279); a discontinuous op of an inexact value is not compared,
    /// while `remainder` of exact values stays bit-exact.
    #[test]
    fn discontinuous_ops_of_inexact_values() {
        let text = "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  e = f32[4] exponential-minus-one(p)\n  r = f32[4] remainder(e, p)\n  f = f32[4] floor(e)\n  q = f32[4] remainder(p, p)\n  ROOT t = (f32[4], f32[4], f32[4], f32[4]) tuple(r, f, q, e)\n}\n";
        let m = rxla_ir::parse_module(text, "t").unwrap();
        let p = leaf_policies(&m);
        let ill = |i: usize| matches!(&p[i], LeafPolicy::Tolerance(t) if t.ill_conditioned);
        assert!(ill(0) && ill(1));
        assert_eq!(p[2], LeafPolicy::Exact);
        assert!(matches!(&p[3], LeafPolicy::Tolerance(t) if !t.ill_conditioned));
    }

    /// The same inside a fusion: `remainder(huge, cosine(p))` computed by
    /// the fused computation of an inexact operand (fuzz seed 515432).
    #[test]
    fn discontinuous_ops_inside_a_fusion_of_inexact_values() {
        let text = "HloModule m\nf {\n  a = f32[4] parameter(0)\n  c = f32[4] constant({3.4e38, 1, 2, 3})\n  r = f32[4] remainder(c, a)\n  ROOT t = (f32[4], f32[4]) tuple(r, a)\n}\ng {\n  a = f32[4] parameter(0)\n  ROOT n = f32[4] negate(a)\n}\nENTRY e {\n  p = f32[4] parameter(0)\n  c = f32[4] cosine(p)\n  u = (f32[4], f32[4]) fusion(c), kind=kLoop, calls=f\n  r = f32[4] get-tuple-element(u), index=0\n  n = f32[4] fusion(c), kind=kLoop, calls=g\n  ROOT t = (f32[4], f32[4]) tuple(r, n)\n}\n";
        let m = rxla_ir::parse_module(text, "t").unwrap();
        let p = leaf_policies(&m);
        assert!(matches!(&p[0], LeafPolicy::Tolerance(t) if t.ill_conditioned));
        assert!(matches!(&p[1], LeafPolicy::Tolerance(t) if !t.ill_conditioned));
    }
}
