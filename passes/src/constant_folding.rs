//! `constant-folding`: instructions whose operands are all constants are
//! evaluated with the reference evaluator and replaced by a constant
//! (keeping the instruction's name). Never folds parameters, constants,
//! nondeterministic or side-effecting ops (rng, infeed, custom-call, ...),
//! ops calling computations with side effects, `while` loops (they may
//! not terminate) and ops calling computations that contain one, `broadcast` and `iota` (cheap to materialize; folding
//! them only bloats the module), anything involving tokens, or results
//! with more than `max-elements` elements, or anything with a dynamic
//! dimension (a constant has static dims). `get-dimension-size` of a
//! static dimension folds to its size whatever the operand (XLA's dynamic
//! dimension inference does the same), and so does one reading the dim
//! a `set-dimension-size` just set to a constant within its bound. An
//! instruction the evaluator rejects is left alone. Honours fuel: one unit
//! per folded instruction.

use crate::error::Result;
use crate::pass::{Pass, PassContext, PassOption, parse_count};
use crate::util::{op_is_pure, pure_computations};
use rxla_ir::{CompId, Computation, InstrId, Instruction, Literal, Module, Op, Shape};

/// The constant folding pass.
pub struct ConstantFolding {
    pub max_elements: usize,
}

/// Default size cap (elements of the folded result).
pub const DEFAULT_MAX_ELEMENTS: usize = 1024;

impl Default for ConstantFolding {
    fn default() -> Self {
        ConstantFolding {
            max_elements: DEFAULT_MAX_ELEMENTS,
        }
    }
}

const OPTIONS: &[PassOption] = &[PassOption {
    key: "max-elements",
    description: "never create a constant with more elements than this",
    default: "1024",
}];

impl Pass for ConstantFolding {
    fn name(&self) -> &'static str {
        "constant-folding"
    }

    fn description(&self) -> &'static str {
        "evaluate instructions whose operands are all constants (size cap max-elements, default 1024; never rng/infeed/custom-call/side effects); honours fuel (one unit per fold)"
    }

    fn options(&self) -> &'static [PassOption] {
        OPTIONS
    }

    fn set_option(&mut self, key: &str, value: &str) -> Result<()> {
        match key {
            "max-elements" => {
                self.max_elements = parse_count(self.name(), key, value)?;
                Ok(())
            }
            _ => Err(crate::PassError::option(
                self.name(),
                key,
                "unknown option (known: max-elements)",
            )),
        }
    }

    fn option_values(&self) -> Vec<(String, String)> {
        if self.max_elements == DEFAULT_MAX_ELEMENTS {
            Vec::new()
        } else {
            vec![("max-elements".into(), self.max_elements.to_string())]
        }
    }

    fn honours_fuel(&self) -> bool {
        true
    }

    fn run(&mut self, module: &mut Module, ctx: &mut PassContext) -> Result<bool> {
        let mut pure = pure_computations(module);
        // Computations containing loops count as impure here: evaluating
        // them at compile time could take unbounded time.
        for (p, l) in pure.iter_mut().zip(looping_computations(module)) {
            *p &= !l;
        }
        let mut folded = 0u64;
        let mut too_large = 0u64;
        let mut failed = 0u64;
        for cid in module.comp_ids().collect::<Vec<_>>() {
            for idx in 0..module.comp(cid).len() {
                let comp = module.comp(cid);
                let instr = comp.get(InstrId(idx as u32));
                if let Some(size) = static_dimension_size(comp, instr) {
                    let what = format!("constant-folding: fold {} in {}", instr.name, comp.name);
                    if !ctx.consume_fuel(what) {
                        continue;
                    }
                    let instr = module.comp_mut(cid).get_mut(InstrId(idx as u32));
                    instr.op = Op::Constant {
                        literal: Literal::scalar(size),
                    };
                    instr.operands.clear();
                    folded += 1;
                    continue;
                }
                if !foldable(comp, instr, &pure) {
                    continue;
                }
                if element_count(&instr.shape).is_none_or(|n| n > self.max_elements) {
                    too_large += 1;
                    continue;
                }
                let what = format!("constant-folding: fold {} in {}", instr.name, comp.name);
                let Some(literal) = evaluate_instruction(module, cid, InstrId(idx as u32)) else {
                    failed += 1;
                    continue;
                };
                if !text_exact(&literal) {
                    // HLO text writes every NaN as `nan`/`-nan`: a folded NaN
                    // with another payload would change when the module is
                    // printed and read back (fuzz seed 13024043).
                    failed += 1;
                    continue;
                }
                if !ctx.consume_fuel(what) {
                    continue;
                }
                let instr = module.comp_mut(cid).get_mut(InstrId(idx as u32));
                instr.op = Op::Constant { literal };
                instr.operands.clear();
                folded += 1;
            }
        }
        ctx.stat("instructions folded", folded);
        ctx.stat("not folded: result too large", too_large);
        ctx.stat("not folded: evaluator refused", failed);
        Ok(folded > 0)
    }
}

/// Whether `instr` is a candidate: at least one operand, all constants,
/// a pure op of a kind worth folding, no tokens.
/// Whether every float of `lit` is written exactly by the HLO printer:
/// NaNs only with the default payload (the printer writes `nan`/`-nan`).
fn text_exact(lit: &Literal) -> bool {
    use rxla_ir::ArrayData;
    lit.leaves().iter().all(|a| match &a.data {
        ArrayData::F32(v) => v
            .iter()
            .all(|x| !x.is_nan() || x.to_bits() & 0x7fff_ffff == f32::NAN.to_bits()),
        ArrayData::F64(v) => v
            .iter()
            .all(|x| !x.is_nan() || x.to_bits() & !(1 << 63) == f64::NAN.to_bits()),
        ArrayData::F16(v) => v
            .iter()
            .all(|x| !x.is_nan() || x.to_bits() & 0x7fff == 0x7e00),
        ArrayData::BF16(v) => v
            .iter()
            .all(|x| !x.is_nan() || x.to_bits() & 0x7fff == 0x7fc0),
        ArrayData::C64(v) => v.iter().all(|z| {
            [z.re, z.im]
                .iter()
                .all(|x| !x.is_nan() || x.to_bits() & 0x7fff_ffff == f32::NAN.to_bits())
        }),
        ArrayData::C128(v) => v.iter().all(|z| {
            [z.re, z.im]
                .iter()
                .all(|x| !x.is_nan() || x.to_bits() & !(1 << 63) == f64::NAN.to_bits())
        }),
        _ => true,
    })
}

/// The size of a `get-dimension-size` whose dimension is static, or that
/// reads the dimension a `set-dimension-size` just set to a constant
/// within its bound.
fn static_dimension_size(comp: &Computation, instr: &Instruction) -> Option<i32> {
    let Op::GetDimensionSize { dimension } = instr.op else {
        return None;
    };
    let x = comp.instructions.get(instr.operands.first()?.index())?;
    let a = x.shape.as_array().ok()?;
    let d = usize::try_from(dimension).ok()?;
    if a.is_dynamic_dim(d) {
        if x.op != (Op::SetDimensionSize { dimension }) {
            return None;
        }
        let n = comp.instructions.get(x.operands.get(1)?.index())?;
        let Op::Constant { literal } = &n.op else {
            return None;
        };
        let v = *literal.as_slice::<i32>()?.first()?;
        return (0..=*a.dims.get(d)?).contains(&(v as i64)).then_some(v);
    }
    i32::try_from(*a.dims.get(d)?).ok()
}

fn foldable(comp: &Computation, instr: &Instruction, pure: &[bool]) -> bool {
    if instr.shape.is_dynamic() {
        return false;
    }
    !instr.operands.is_empty()
        && !matches!(
            instr.op,
            Op::Parameter { .. }
                | Op::Constant { .. }
                | Op::While { .. }
                | Op::Broadcast { .. }
                | Op::Iota { .. }
                | Op::AfterAll
                | Op::OptimizationBarrier
        )
        && op_is_pure(&instr.op, pure)
        && !has_token(&instr.shape)
        && instr.operands.iter().all(|o| {
            comp.instructions
                .get(o.index())
                .is_some_and(|i| matches!(i.op, Op::Constant { .. }))
        })
}

/// For each computation, whether it (or anything it calls) has a `while`.
/// On a recursive call graph every computation is reported looping.
fn looping_computations(module: &Module) -> Vec<bool> {
    let n = module.computations.len();
    let Ok(order) = rxla_ir::graph::callees_first(module) else {
        return vec![true; n];
    };
    let mut looping = vec![true; n];
    for cid in order {
        looping[cid.index()] = module.comp(cid).instructions.iter().any(|i| {
            matches!(i.op, Op::While { .. })
                || i.op
                    .called_computations()
                    .iter()
                    .any(|c| looping.get(c.index()).copied().unwrap_or(true))
        });
    }
    looping
}

fn has_token(shape: &Shape) -> bool {
    match shape {
        Shape::Array(a) => a.element_type == rxla_ir::ElementType::Token,
        Shape::Tuple(es) => es.iter().any(has_token),
    }
}

/// Total elements over the shape's leaves (None on overflow).
fn element_count(shape: &Shape) -> Option<usize> {
    shape
        .leaves()
        .iter()
        .try_fold(0usize, |acc, a| acc.checked_add(a.element_count().ok()?))
}

/// Evaluates one instruction of `cid` (whose operands are constants) by
/// appending a scratch computation `(constants) -> instr` to the module,
/// evaluating it and removing it again. None if the evaluator refuses.
fn evaluate_instruction(module: &mut Module, cid: CompId, id: InstrId) -> Option<Literal> {
    let comp = module.comp(cid);
    let instr = comp.get(id);
    let mut scratch = Computation::new(module.fresh_computation_name("constant_folding.scratch"));
    let mut operands = Vec::with_capacity(instr.operands.len());
    for &o in &instr.operands {
        let mut c = comp.instructions.get(o.index())?.clone();
        c.name = format!("operand.{}", operands.len());
        operands.push(scratch.push(c));
    }
    let mut copy = instr.clone();
    copy.operands = operands;
    let shape = copy.shape.clone();
    scratch.root = scratch.push(copy);
    let scratch_id = module.add_computation(scratch);
    let result = rxla_eval::evaluate_computation(module, scratch_id, &[]);
    module.computations.pop();
    result.ok()?.relayout_to(&shape).ok()
}
