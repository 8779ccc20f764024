//! Control flow and calls: `while` and `case`/`if` (values their regions
//! capture from outside are threaded through the loop tuple / passed as
//! the branch operand tuple, as XLA's converter does), `func.call`,
//! `stablehlo.composite` (a call of its decomposition),
//! `stablehlo.custom_call`, `optimization_barrier`, `rng`,
//! `rng_bit_generator`, `after_all`/`create_token`. It must not inline
//! calls or unroll loops: that is for the passes.

use super::{B, Result, free_values};
use crate::ast::{Operation, Region};
use crate::attrs::Attr;
use rxla_ir::{InstrId, Op, RngAlgorithm, RngDistribution, Shape};

fn results_shape(b: &B, op: &Operation) -> Result<Shape> {
    let shapes = (0..op.result_types.len())
        .map(|i| b.result_shape(op, i))
        .collect::<Result<Vec<_>>>()?;
    Ok(if shapes.len() == 1 {
        shapes.into_iter().next().unwrap_or_else(|| unreachable!())
    } else {
        Shape::tuple(shapes)
    })
}

/// Values the regions use from outside, resolved in `b`.
fn captures(b: &B, regions: &[&Region]) -> Result<(Vec<String>, Vec<InstrId>)> {
    let mut keys: Vec<String> = Vec::new();
    let mut vals = Vec::new();
    for r in regions {
        for (k, pos) in free_values(r) {
            if !keys.contains(&k) {
                vals.push(b.get(&k, pos)?);
                keys.push(k);
            }
        }
    }
    Ok((keys, vals))
}

pub(crate) fn convert(b: &mut B, op: &Operation) -> Result<Option<Vec<InstrId>>> {
    let n = op.results.len();
    let r = match op.name.as_str() {
        "stablehlo.while" => return while_loop(b, op).map(Some),
        "stablehlo.case" | "stablehlo.if" => {
            let x = b.expect_operands(op, 1)?;
            if op.regions.is_empty() {
                return Err(b.err("expected at least one branch region"));
            }
            let mut operands = vec![x[0]];
            let mut branches = Vec::new();
            for (i, r) in op.regions.iter().enumerate() {
                if !r.args.is_empty() {
                    return Err(b.err("branch regions take no arguments"));
                }
                let (keys, vals) = captures(b, &[r])?;
                let arg = b.push(Op::Tuple, &vals, None)?;
                operands.push(arg);
                let arg_shape = b.shape(arg).clone();
                let mut s = b.sub(&format!("branch_{i}"))?;
                let p = s.raw_push(Op::Parameter { number: 0 }, &[], arg_shape, "Arg_0");
                for (j, k) in keys.iter().enumerate() {
                    let g = s.push(Op::GetTupleElement { index: j as i64 }, &[p], None)?;
                    s.vals.insert(k.clone(), g);
                }
                let rets = s.block(&r.ops)?;
                if rets.len() != n {
                    return Err(s.err(format!(
                        "branch {i} returns {} values, expected {n}",
                        rets.len()
                    )));
                }
                let root = s.pack(&rets)?;
                branches.push(s.finish(root)?);
            }
            b.pos = op.pos;
            b.opname = op.name.clone();
            let shape = results_shape(b, op)?;
            b.push(Op::Conditional { branches }, &operands, Some(shape))?
        }
        "func.call" | "stablehlo.composite" => {
            let callee = op
                .attr(&["callee", "decomposition"])
                .and_then(|a| match a {
                    Attr::Symbol(s) => Some(s.clone()),
                    _ => None,
                })
                .ok_or_else(|| b.err("expected the callee (@name / decomposition = @name)"))?;
            let (f, count) = *b
                .cx
                .funcs
                .get(&callee)
                .ok_or_else(|| b.err(format!("call to unknown function '@{callee}'")))?;
            if count != n {
                return Err(b.err(format!(
                    "@{callee} returns {count} values, the call binds {n}"
                )));
            }
            let x = b.operands(op)?;
            let shape = results_shape(b, op)?;
            b.push(Op::Call { to_apply: f }, &x, Some(shape))?
        }
        "stablehlo.custom_call" => {
            let target = match op.attr(&["_symbol", "call_target_name"]) {
                Some(Attr::Symbol(s) | Attr::Str(s)) => s.clone(),
                _ => return Err(b.err("expected the call target '@name'")),
            };
            let has_side_effect = b.bool_attr(op, &["has_side_effect"], false)?;
            let x = b.operands(op)?;
            let shape = results_shape(b, op)?;
            let id = b.push(
                Op::CustomCall {
                    target,
                    has_side_effect,
                    called: Vec::new(),
                },
                &x,
                Some(shape),
            )?;
            // The backend config travels verbatim (the LAPACK calls read
            // `uplo`, `side`, ... from it). Operand/result layouts are not
            // needed: rxla's values are logical arrays.
            let config = match op.attr(&["mhlo.backend_config", "backend_config"]) {
                Some(a @ Attr::Dict(_)) => Some(a.to_text()),
                Some(Attr::Str(s)) if !s.is_empty() => Some(format!("{s:?}")),
                _ => None,
            };
            if let Some(c) = config {
                b.comp.get_mut(id).attrs.push(("backend_config".into(), c));
            }
            id
        }
        "stablehlo.optimization_barrier" => {
            let x = b.operands(op)?;
            let t = b.pack(&x)?;
            b.push(Op::OptimizationBarrier, &[t], None)?
        }
        "stablehlo.rng" => {
            let x = b.operands(op)?;
            if x.len() != 3 {
                return Err(b.err("expected operands (a, b, shape)"));
            }
            let d = op
                .attr(&["rng_distribution", "distribution", "_enum0"])
                .and_then(Attr::as_enum)
                .unwrap_or("UNIFORM");
            let distribution = match d {
                "UNIFORM" => RngDistribution::Uniform,
                "NORMAL" => RngDistribution::Normal,
                d => return Err(b.err(format!("unknown distribution '{d}'"))),
            };
            b.push(
                Op::Rng { distribution },
                &x[..2],
                Some(b.result_shape(op, 0)?),
            )?
        }
        "stablehlo.rng_bit_generator" => {
            let x = b.expect_operands(op, 1)?;
            let a = op
                .attr(&["rng_algorithm", "algorithm", "_enum0"])
                .and_then(Attr::as_enum)
                .unwrap_or("DEFAULT");
            let algorithm = match a {
                "DEFAULT" => RngAlgorithm::Default,
                "THREE_FRY" => RngAlgorithm::ThreeFry,
                "PHILOX" => RngAlgorithm::Philox,
                a => return Err(b.err(format!("unknown rng algorithm '{a}'"))),
            };
            let shape = results_shape(b, op)?;
            b.push(Op::RngBitGenerator { algorithm }, &x, Some(shape))?
        }
        "stablehlo.after_all" | "stablehlo.create_token" => {
            let x = b.operands(op)?;
            b.push(Op::AfterAll, &x, None)?
        }
        _ => return Ok(None),
    };
    Ok(Some(b.unpack(r, n)?))
}

fn while_loop(b: &mut B, op: &Operation) -> Result<Vec<InstrId>> {
    let inits = b.operands(op)?;
    let n = inits.len();
    if op.regions.len() != 2 {
        return Err(b.err("expected 'cond' and 'do' regions"));
    }
    let (cond_r, body_r) = (&op.regions[0], &op.regions[1]);
    for r in [cond_r, body_r] {
        if r.args.len() != n {
            return Err(b.err(format!(
                "a region has {} arguments for {n} loop values",
                r.args.len()
            )));
        }
    }
    let (keys, vals) = captures(b, &[cond_r, body_r])?;
    let all: Vec<InstrId> = inits.iter().chain(&vals).copied().collect();
    let init = b.push(Op::Tuple, &all, None)?;
    let t = b.shape(init).clone();
    let mut comps = Vec::new();
    for (which, r) in [("cond", cond_r), ("body", body_r)] {
        let mut s = b.sub(&format!("while_{which}"))?;
        let p = s.raw_push(Op::Parameter { number: 0 }, &[], t.clone(), "Arg_0");
        let mut passthrough = Vec::new();
        for (i, a) in r.args.iter().enumerate() {
            let g = s.push(Op::GetTupleElement { index: i as i64 }, &[p], None)?;
            s.vals.insert(a.key.clone(), g);
        }
        for (j, k) in keys.iter().enumerate() {
            let g = s.push(
                Op::GetTupleElement {
                    index: (n + j) as i64,
                },
                &[p],
                None,
            )?;
            s.vals.insert(k.clone(), g);
            passthrough.push(g);
        }
        let rets = s.block(&r.ops)?;
        let root = if which == "cond" {
            if rets.len() != 1 {
                return Err(s.err("the cond region must return one i1 value"));
            }
            rets[0]
        } else {
            if rets.len() != n {
                return Err(s.err(format!(
                    "the do region returns {} values, expected {n}",
                    rets.len()
                )));
            }
            let all: Vec<InstrId> = rets.into_iter().chain(passthrough).collect();
            s.push(Op::Tuple, &all, None)?
        };
        comps.push(s.finish(root)?);
    }
    b.pos = op.pos;
    b.opname = op.name.clone();
    let w = b.push(
        Op::While {
            condition: comps[0],
            body: comps[1],
        },
        &[init],
        None,
    )?;
    (0..n)
        .map(|i| {
            let declared = b.result_shape(op, i)?;
            b.push(
                Op::GetTupleElement { index: i as i64 },
                &[w],
                Some(declared),
            )
        })
        .collect()
}
