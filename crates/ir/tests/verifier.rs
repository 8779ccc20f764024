//! The verifier: each rule broken once by hand, with its message asserted.

use rxla_ir::ElementType::*;
use rxla_ir::builder::ModuleBuilder;
use rxla_ir::verifier::verify_computation;
use rxla_ir::{BinaryOp, CompId, InstrId, Layout, Module, Op, ProgramShape, Shape, verify_module};

fn f32s(d: &[i64]) -> Shape {
    Shape::array(F32, d.to_vec()).unwrap()
}

/// ENTRY main(x: f32[2]) = reduce(x + x, 0, add) with an add computation.
fn good() -> Module {
    let mut mb = ModuleBuilder::new("m");
    let mut b = mb.computation("main");
    let add = b.scalar_binary_computation(BinaryOp::Add, F32).unwrap();
    let x = b.parameter(0, f32s(&[2]), "x").unwrap();
    let y = b.add(x, x).unwrap();
    let z = b.constant_r0(0f32).unwrap();
    let r = b.reduce(&[y], &[z], add, &[0]).unwrap();
    let main = b.build(r).unwrap();
    mb.build_entry(main).unwrap()
}

fn verify_err(m: &Module) -> String {
    match verify_module(m) {
        Ok(()) => panic!("the module unexpectedly verified"),
        Err(e) => e.to_string(),
    }
}

fn main_id(m: &Module) -> CompId {
    m.find_computation("main").unwrap()
}

#[test]
fn good_module_verifies() {
    let m = good();
    verify_module(&m).unwrap();
    assert_eq!(m.computations.len(), 2);
    verify_computation(&m, main_id(&m)).unwrap();
}

#[test]
fn module_structure() {
    let mut m = good();
    m.entry = CompId(5);
    assert_eq!(
        verify_err(&m),
        "verifier: module m: the ENTRY id comp#5 is out of range (2 computations)"
    );
    let empty = Module::new("e");
    assert_eq!(verify_err(&empty), "verifier: module e has no computations");
    let mut m = good();
    m.computations[0].name = "main".into();
    assert_eq!(
        verify_err(&m),
        "verifier: module m: two computations are named main"
    );
}

#[test]
fn computation_structure() {
    let mut m = good();
    let e = main_id(&m);
    m.comp_mut(e).root = InstrId(17);
    assert_eq!(
        verify_err(&m),
        "verifier: computation main: the root %17 is out of range (4 instructions)"
    );
    let mut m = good();
    m.comp_mut(e).instructions[1].name = "x".into();
    assert_eq!(
        verify_err(&m),
        "verifier: computation main: two instructions are named x"
    );
    let mut m = good();
    m.comp_mut(e).instructions[1].operands[0] = InstrId(9);
    assert_eq!(
        verify_err(&m),
        "verifier: computation main: instruction add.1 uses operand %9, which does not exist"
    );
    let mut m = good();
    m.comp_mut(e).instructions.clear();
    assert_eq!(
        verify_err(&m),
        "verifier: computation main has no instructions"
    );
}

#[test]
fn def_before_use_and_cycles() {
    // Forward reference without a cycle: add.1 uses the constant defined
    // after it.
    let mut m = good();
    let e = main_id(&m);
    m.comp_mut(e).instructions[1].operands[1] = InstrId(2);
    m.comp_mut(e).instructions[1].shape = f32s(&[2]);
    assert_eq!(
        verify_err(&m),
        "verifier: computation main: instruction add.1 uses constant.2 before it is defined"
    );
    // A cycle: add.1 uses itself.
    let mut m = good();
    m.comp_mut(e).instructions[1].operands[1] = InstrId(1);
    assert_eq!(
        verify_err(&m),
        "verifier: computation main: cycle through instruction add.1"
    );
}

#[test]
fn parameters_dense_and_unique() {
    let mut mb = ModuleBuilder::new("m");
    let mut b = mb.computation("main");
    let x = b.parameter(0, f32s(&[2]), "x").unwrap();
    let y = b.parameter(1, f32s(&[2]), "y").unwrap();
    let s = b.add(x, y).unwrap();
    let main = b.build(s).unwrap();
    let good = mb.build_entry(main).unwrap();
    let mut m = good.clone();
    m.comp_mut(main).instructions[1].op = Op::Parameter { number: 0 };
    assert_eq!(
        verify_err(&m),
        "verifier: computation main: instruction y: parameter number 0 is used twice (also by x)"
    );
    let mut m = good;
    m.comp_mut(main).instructions[1].op = Op::Parameter { number: 2 };
    assert_eq!(
        verify_err(&m),
        "verifier: computation main: instruction y: parameter numbers must be 0..2 without gaps, found parameter(2)"
    );
}

#[test]
fn shapes_are_rechecked() {
    let mut m = good();
    let e = main_id(&m);
    m.comp_mut(e).instructions[1].shape = f32s(&[3]);
    assert_eq!(
        verify_err(&m),
        "verifier: computation main: instruction add.1 (#1): the shape is f32[3] but add infers f32[2]"
    );
    let mut m = good();
    m.comp_mut(e).instructions[1].operands.pop();
    assert_eq!(
        verify_err(&m),
        "verifier: computation main: instruction add.1 (#1): add: expects 2 operands, got 1"
    );
    let mut m = good();
    m.comp_mut(e).instructions[0].shape = Shape::Array(rxla_ir::ArrayShape {
        element_type: F32,
        dims: vec![2],
        layout: Layout::from_minor_to_major(vec![1]),
        dynamic: rxla_ir::DynamicDims::STATIC,
    });
    assert_eq!(
        verify_err(&m),
        "verifier: computation main: instruction x (#0): layout {1} is not a permutation of 0..1"
    );
}

#[test]
fn called_computations() {
    let mut m = good();
    let e = main_id(&m);
    m.comp_mut(e).instructions[3].op = Op::Reduce {
        dimensions: vec![0],
        to_apply: CompId(7),
    };
    assert_eq!(
        verify_err(&m),
        "verifier: computation main: instruction reduce.3 calls comp#7, which does not exist"
    );
    // A reducer with the wrong signature: its root becomes a comparison.
    let mut m = good();
    let add = CompId(0);
    let c = m.comp_mut(add);
    c.instructions[2].op = Op::Compare {
        direction: rxla_ir::ComparisonDirection::Lt,
        kind: None,
    };
    c.instructions[2].shape = Shape::scalar(Pred);
    assert_eq!(
        verify_err(&m),
        "verifier: computation main: instruction reduce.3 (#3): reduce: the reduction computation add_f32 must have signature (f32[], f32[]) -> f32[], got (f32[], f32[]) -> pred[]"
    );
    // Recursion: main calls itself.
    let mut m = good();
    m.comp_mut(e).instructions[3].op = Op::Reduce {
        dimensions: vec![0],
        to_apply: e,
    };
    assert_eq!(
        verify_err(&m),
        "verifier: computation main calls itself (recursion is not allowed)"
    );
}

#[test]
fn while_signatures() {
    let mut mb = ModuleBuilder::new("w");
    let mut b = mb.computation("main");
    let cond = {
        let mut c = b.sub_computation("cond");
        let x = c.parameter(0, Shape::scalar(S32), "x").unwrap();
        let k = c.constant_r0(10i32).unwrap();
        let r = c.lt(x, k).unwrap();
        c.build(r).unwrap()
    };
    let body = {
        let mut c = b.sub_computation("body");
        let x = c.parameter(0, Shape::scalar(S32), "x").unwrap();
        let k = c.constant_r0(1i32).unwrap();
        let r = c.add(x, k).unwrap();
        c.build(r).unwrap()
    };
    let init = b.constant_r0(0i32).unwrap();
    let w = b.while_loop(cond, body, init).unwrap();
    let main = b.build(w).unwrap();
    let good = mb.build_entry(main).unwrap();
    let mut m = good.clone();
    m.comp_mut(main).instructions[1].op = Op::While {
        condition: body,
        body,
    };
    assert_eq!(
        verify_err(&m),
        "verifier: computation main: instruction while.1 (#1): while: the condition body must have signature (s32[]) -> pred[], got (s32[]) -> s32[]"
    );
}

#[test]
fn entry_computation_layout() {
    let mut m = good();
    let row = f32s(&[2]);
    m.entry_layout = Some(ProgramShape {
        parameters: vec![row.clone()],
        result: Shape::scalar(F32),
    });
    verify_module(&m).unwrap();
    m.entry_layout = Some(ProgramShape {
        parameters: vec![],
        result: Shape::scalar(F32),
    });
    assert_eq!(
        verify_err(&m),
        "verifier: module m: entry_computation_layout: 0 parameters, but ENTRY main has 1"
    );
    m.entry_layout = Some(ProgramShape {
        parameters: vec![f32s(&[3])],
        result: Shape::scalar(F32),
    });
    assert_eq!(
        verify_err(&m),
        "verifier: module m: entry_computation_layout: parameter 0 is f32[3] but ENTRY main takes f32[2]"
    );
    m.entry_layout = Some(ProgramShape {
        parameters: vec![row.clone()],
        result: Shape::scalar(S32),
    });
    assert_eq!(
        verify_err(&m),
        "verifier: module m: entry_computation_layout: the result is s32[] but ENTRY main returns f32[]"
    );
    m.entry_layout = Some(ProgramShape {
        parameters: vec![Shape::Array(rxla_ir::ArrayShape {
            element_type: F32,
            dims: vec![2],
            layout: Layout::from_minor_to_major(vec![0, 1]),
            dynamic: rxla_ir::DynamicDims::STATIC,
        })],
        result: Shape::scalar(F32),
    });
    assert_eq!(
        verify_err(&m),
        "verifier: module m: entry_computation_layout: parameter 0: layout {0,1} has 2 entries but the shape has rank 1"
    );
}

#[test]
fn verify_one_computation() {
    let mut m = good();
    let e = main_id(&m);
    m.comp_mut(e).instructions[1].shape = f32s(&[3]);
    verify_computation(&m, CompId(0)).unwrap();
    assert!(verify_computation(&m, e).is_err());
    assert_eq!(
        verify_computation(&m, CompId(9)).unwrap_err().to_string(),
        "verifier: computation id comp#9 is out of range"
    );
}

/// Random corruptions of a valid module never make the verifier panic,
/// most are caught (some, like moving the root, are harmless), and the
/// uncorrupted module stays valid.
#[test]
fn random_corruptions_never_panic() {
    let base = good();
    let mut state = 7u64;
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n.max(1)
    };
    let mut rejected = 0;
    for _ in 0..5000 {
        let mut m = base.clone();
        for _ in 0..1 + next(3) {
            let c = next(m.computations.len() as u64) as usize;
            let comp = &mut m.computations[c];
            let k = next(comp.len() as u64) as usize;
            match next(7) {
                0 => comp.root = InstrId(next(6) as u32),
                1 => {
                    if let Some(o) = comp.instructions[k].operands.first_mut() {
                        *o = InstrId(next(6) as u32);
                    }
                }
                2 => comp.instructions[k].shape = f32s(&[next(3) as i64]),
                3 => {
                    for id in comp.instructions[k].op.called_computations_mut() {
                        *id = CompId(next(4) as u32);
                    }
                }
                4 => comp.instructions[k].operands.push(InstrId(next(5) as u32)),
                5 => m.entry = CompId(next(3) as u32),
                _ => {
                    comp.instructions[k].op = Op::Parameter {
                        number: next(3) as i64,
                    }
                }
            }
        }
        if verify_module(&m).is_err() {
            rejected += 1;
        }
    }
    assert!(rejected > 2500, "only {rejected} corruptions were caught");
    verify_module(&base).unwrap();
}
