//! Generators of control-flow and effectful ops: call, fusion, while (with
//! a bounded trip count: a counter in the loop state compared with a small
//! constant), conditional (pred or index selector, possibly out of range),
//! and the ops only produced for the round-trip/parser oracles: custom-call,
//! infeed, outfeed, rng (the collectives are in `collective`); plus rng-bit-generator
//! and XLA's generic async wrappers (async-start/-update/-done around a
//! generated computation). Nothing here
//! may emit an invalid instruction or an unbounded loop.

use super::{Cb, Gen, scalar};
use crate::values::{Choices, splat_int};
use rxla_ir::{
    ArrayShape, BinaryOp, ComparisonDirection, ElementType, FusionKind, InstrId, Op, RngAlgorithm,
    RngDistribution, Shape,
};

pub(super) fn by_name(g: &mut Gen, cb: &mut Cb, name: &str) -> bool {
    match name {
        "call" | "fusion" => {
            if !g.can_nest(cb) {
                return false;
            }
            let k = g.range(0, 3);
            let args: Vec<InstrId> = (0..k).map(|_| g.any_value(cb)).collect();
            let params: Vec<Shape> = args.iter().map(|&a| cb.shape(a).clone()).collect();
            let (comp, shape) = g.general_comp(&params, None, cb.depth + 1);
            let op = if name == "call" {
                Op::Call { to_apply: comp }
            } else {
                Op::Fusion {
                    kind: FusionKind("kLoop".into()),
                    calls: comp,
                }
            };
            g.emit(cb, op, args, shape);
        }
        // XLA's generic async wrapper around a generated computation
        // (collectives among its ops too): start, sometimes an update, done.
        "async-start" | "async-update" | "async-done" => {
            if !g.can_nest(cb) {
                return false;
            }
            let k = g.range(1, 2);
            let args: Vec<InstrId> = (0..k).map(|_| g.any_value(cb)).collect();
            let params: Vec<Shape> = args.iter().map(|&a| cb.shape(a).clone()).collect();
            let (calls, result) = g.general_comp(&params, None, cb.depth + 1);
            let mut tuple = vec![Shape::Tuple(params), result.clone()];
            match g.range(0, 2) {
                0 => {}
                1 => tuple.push(Shape::scalar(ElementType::U32)),
                _ => tuple.push(Shape::scalar(ElementType::S32)),
            }
            let st = Shape::Tuple(tuple);
            let mut s = g.emit(cb, Op::AsyncStart { calls }, args, st.clone());
            if name == "async-update" || g.chance(1, 4) {
                s = g.emit(cb, Op::AsyncUpdate { calls }, vec![s], st);
            }
            g.emit(cb, Op::AsyncDone { calls }, vec![s], result);
        }
        "while" => {
            if !g.can_nest(cb) {
                return false;
            }
            while_loop(g, cb);
        }
        "conditional" => {
            if !g.can_nest(cb) {
                return false;
            }
            conditional(g, cb);
        }
        "custom-call" => {
            let k = g.range(0, 2);
            let args: Vec<InstrId> = (0..k).map(|_| g.any_value(cb)).collect();
            let ty = g.ty_any();
            let r = g.rank();
            let s = g.array_shape(ty, r);
            let op = Op::CustomCall {
                target: "fuzz_target".into(),
                has_side_effect: g.coin(),
                called: vec![],
            };
            g.emit(cb, op, args, Shape::Array(s));
        }
        "infeed" => {
            let tok = token(g, cb);
            let ty = g.ty_any();
            let r = g.rank();
            let s = g.array_shape(ty, r);
            let shape = Shape::Tuple(vec![Shape::Array(s), Shape::token()]);
            let op = Op::Infeed {
                config: String::new(),
            };
            g.emit(cb, op, vec![tok], shape);
        }
        "outfeed" => {
            let x = g.any_array(cb, 0);
            let tok = token(g, cb);
            let op = Op::Outfeed {
                config: String::new(),
            };
            g.emit(cb, op, vec![x, tok], Shape::token());
        }
        "rng" => {
            let normal = g.coin();
            let ty = if normal {
                g.ty_float()
            } else {
                g.pick(&[ElementType::F32, ElementType::S32, ElementType::U32])
            };
            let a = g.scalar(cb, ty);
            let b = g.scalar(cb, ty);
            let r = g.rank();
            let s = g.array_shape(ty, r);
            let distribution = if normal {
                RngDistribution::Normal
            } else {
                RngDistribution::Uniform
            };
            g.emit(cb, Op::Rng { distribution }, vec![a, b], Shape::Array(s));
        }
        "rng-bit-generator" => {
            let algorithm = g.pick(&[
                RngAlgorithm::Default,
                RngAlgorithm::ThreeFry,
                RngAlgorithm::Philox,
            ]);
            let n = if algorithm == RngAlgorithm::Philox && g.coin() {
                3
            } else {
                2
            };
            let ss = ArrayShape::new(ElementType::U64, vec![n])
                .unwrap_or_else(|_| scalar(ElementType::U64));
            let state = g.value_of(cb, &ss);
            let ty = g.pick(&[ElementType::U32, ElementType::U64, ElementType::U8]);
            let r = g.range(0, 3) as usize;
            let out = g.array_shape(ty, r);
            let shape = Shape::Tuple(vec![Shape::Array(ss), Shape::Array(out)]);
            g.emit(cb, Op::RngBitGenerator { algorithm }, vec![state], shape);
        }
        _ => return false,
    }
    true
}

fn token(g: &mut Gen, cb: &mut Cb) -> InstrId {
    let c = g.candidates(cb, |s| s.is_token());
    if !c.is_empty() && g.coin() {
        return g.pick(&c);
    }
    g.emit(cb, Op::AfterAll, vec![], Shape::token())
}

/// `while` over the state (counter, values...): the condition is
/// `counter < K` with K in 0..=5 and the body adds 1 to the counter, so it
/// runs at most 5 times whatever the other values do (the JIT replays
/// recorded iterations from the fourth on: `runtime/tape.rs`).
fn while_loop(g: &mut Gen, cb: &mut Cb) {
    let ct = g.pick(&[
        ElementType::S32,
        ElementType::S64,
        ElementType::U32,
        ElementType::S8,
    ]);
    let cs = scalar(ct);
    let zero = g.emit(
        cb,
        Op::Constant {
            literal: splat_int(&cs, 0),
        },
        vec![],
        Shape::Array(cs.clone()),
    );
    let k = g.range(1, 2);
    let mut init = vec![zero];
    for _ in 0..k {
        init.push(g.any_array(cb, 0));
    }
    let elems: Vec<Shape> = init
        .iter()
        .map(|&i| cb.shape(i).with_default_layouts())
        .collect();
    let state = Shape::Tuple(elems.clone());
    let tuple = g.emit(cb, Op::Tuple, init, state.clone());

    // Condition: counter < K.
    let (mut ccb, ps) = g.sub(std::slice::from_ref(&state), usize::MAX);
    let c = g.emit(
        &mut ccb,
        Op::GetTupleElement { index: 0 },
        vec![ps[0]],
        Shape::Array(cs.clone()),
    );
    let limit = g.range(0, 5);
    let kc = g.emit(
        &mut ccb,
        Op::Constant {
            literal: splat_int(&cs, limit),
        },
        vec![],
        Shape::Array(cs.clone()),
    );
    let root = g.emit(
        &mut ccb,
        Op::Compare {
            direction: ComparisonDirection::Lt,
            kind: None,
        },
        vec![c, kc],
        Shape::scalar(ElementType::Pred),
    );
    let condition = g.finish(ccb, root);

    // Body: counter + 1, other values recomputed by random ops.
    let (mut bcb, ps) = g.sub(std::slice::from_ref(&state), cb.depth + 1);
    let mut gtes = vec![];
    for (i, e) in elems.iter().enumerate() {
        let op = Op::GetTupleElement { index: i as i64 };
        gtes.push(g.emit(&mut bcb, op, vec![ps[0]], e.clone()));
    }
    let one = g.emit(
        &mut bcb,
        Op::Constant {
            literal: splat_int(&cs, 1),
        },
        vec![],
        Shape::Array(cs.clone()),
    );
    let next = g.emit(
        &mut bcb,
        Op::Binary(BinaryOp::Add),
        vec![gtes[0], one],
        Shape::Array(cs.clone()),
    );
    let n = g.range(0, g.cfg.max_sub_instructions as i64);
    for _ in 0..n {
        g.random_op(&mut bcb);
    }
    let mut outs = vec![next];
    for e in &elems[1..] {
        let a = e
            .as_array()
            .cloned()
            .unwrap_or_else(|_| scalar(ElementType::F32));
        outs.push(g.value_of(&mut bcb, &a));
    }
    let root = g.emit(&mut bcb, Op::Tuple, outs, state.clone());
    let body = g.finish(bcb, root);

    let w = g.emit(cb, Op::While { condition, body }, vec![tuple], state);
    if g.coin() {
        let i = g.range(1, k);
        let e = elems[i as usize].clone();
        g.emit(cb, Op::GetTupleElement { index: i }, vec![w], e);
    }
}

/// `conditional` with a pred selector (two branches) or an s32 index
/// (1..=3 branches; out-of-range indices pick the last branch).
fn conditional(g: &mut Gen, cb: &mut Cb) {
    let by_pred = g.coin();
    let nbranches = if by_pred { 2 } else { g.range(1, 3) };
    let sel = if by_pred {
        g.scalar(cb, ElementType::Pred)
    } else {
        g.index_scalar(cb, ElementType::S32)
    };
    let rt = g.ty_any();
    let r = g.rank();
    let result = g.array_shape(rt, r);
    let mut ops = vec![sel];
    let mut branches = vec![];
    for _ in 0..nbranches {
        let arg = g.any_value(cb);
        let p = cb.shape(arg).clone();
        let (comp, _) = g.general_comp(&[p], Some(&result), cb.depth + 1);
        ops.push(arg);
        branches.push(comp);
    }
    g.emit(cb, Op::Conditional { branches }, ops, Shape::Array(result));
}
