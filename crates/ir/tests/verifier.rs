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

/// Modules produced by JAX 0.10.2 / XLA (gathers and scatters with
/// batching dims, grouped and transposed convolutions, an indexed
/// conditional, a mixed-precision dot) parse and verify.
const XLA_MODULES: &[(&str, &str)] = &[
    (
        "vmap_take",
        r#"HloModule jit__lambda, entry_computation_layout={(f32[2,5,4]{2,1,0}, s32[2,3]{1,0})->f32[2,3,4]{2,1,0}}

ENTRY main.1 {
  x.1 = f32[2,5,4]{2,1,0} parameter(0)
  i.1 = s32[2,3]{1,0} parameter(1)
  constant.3 = s32[] constant(0)
  broadcast.3 = s32[2,3]{1,0} broadcast(constant.3), dimensions={}
  lt.1 = pred[2,3]{1,0} compare(i.1, broadcast.3), direction=LT
  constant.2 = s32[] constant(5)
  broadcast.2 = s32[2,3]{1,0} broadcast(constant.2), dimensions={}
  add.1 = s32[2,3]{1,0} add(i.1, broadcast.2)
  select_n.1 = s32[2,3]{1,0} select(lt.1, add.1, i.1)
  broadcast_in_dim.1 = s32[2,3,1]{2,1,0} reshape(select_n.1)
  ROOT gather.1 = f32[2,3,4]{2,1,0} gather(x.1, broadcast_in_dim.1), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,4}
}
"#,
    ),
    (
        "vmap_scatter",
        r#"HloModule jit__lambda, entry_computation_layout={(f32[2,5,4]{2,1,0}, s32[2,3]{1,0})->f32[2,5,4]{2,1,0}}

region_0.1 {
  scatter.2 = f32[] parameter(0)
  ROOT scatter.3 = f32[] parameter(1)
}

ENTRY main.2 {
  x.1 = f32[2,5,4]{2,1,0} parameter(0)
  i.1 = s32[2,3]{1,0} parameter(1)
  constant.5 = s32[] constant(0)
  broadcast.5 = s32[2,3]{1,0} broadcast(constant.5), dimensions={}
  lt.1 = pred[2,3]{1,0} compare(i.1, broadcast.5), direction=LT
  constant.4 = s32[] constant(5)
  broadcast.4 = s32[2,3]{1,0} broadcast(constant.4), dimensions={}
  add.1 = s32[2,3]{1,0} add(i.1, broadcast.4)
  select_n.1 = s32[2,3]{1,0} select(lt.1, add.1, i.1)
  broadcast_in_dim.1 = s32[2,3,1]{2,1,0} reshape(select_n.1)
  constant.3 = f32[] constant(2)
  broadcast.3 = f32[2,3,4]{2,1,0} broadcast(constant.3), dimensions={}
  ROOT scatter.5 = f32[2,5,4]{2,1,0} scatter(x.1, broadcast_in_dim.1, broadcast.3), update_window_dims={2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2, to_apply=region_0.1
}
"#,
    ),
    (
        "conv_grouped",
        r#"HloModule jit__lambda, entry_computation_layout={(f32[2,8,8,3]{3,2,1,0}, f32[3,3,1,6]{3,2,1,0})->f32[2,2,2,6]{3,2,1,0}}

ENTRY main.1 {
  a.1 = f32[2,8,8,3]{3,2,1,0} parameter(0)
  k.1 = f32[3,3,1,6]{3,2,1,0} parameter(1)
  ROOT conv_general_dilated.1 = f32[2,2,2,6]{3,2,1,0} convolution(a.1, k.1), window={size=3x3 stride=2x2 rhs_dilate=2x2}, dim_labels=b01f_01io->b01f, feature_group_count=3
}
"#,
    ),
    (
        "conv_t",
        r#"HloModule jit__lambda, entry_computation_layout={(f32[2,8,8,3]{3,2,1,0}, f32[3,3,3,4]{3,2,1,0})->f32[2,16,16,4]{3,2,1,0}}

ENTRY main.1 {
  a.1 = f32[2,8,8,3]{3,2,1,0} parameter(0)
  k.1 = f32[3,3,3,4]{3,2,1,0} parameter(1)
  ROOT conv_general_dilated.1 = f32[2,16,16,4]{3,2,1,0} convolution(a.1, k.1), window={size=3x3 pad=2_1x2_1 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f
}
"#,
    ),
    (
        "switch",
        r#"HloModule jit__lambda, entry_computation_layout={(s32[], f32[2,3]{1,0})->f32[2,3]{1,0}}

region_0.1 {
  x.2 = f32[2,3]{1,0} parameter(0)
  ROOT sin.1 = f32[2,3]{1,0} sine(x.2)
}

region_1.2 {
  x.4 = f32[2,3]{1,0} parameter(0)
  ROOT cos.1 = f32[2,3]{1,0} cosine(x.4)
}

region_2.3 {
  x.6 = f32[2,3]{1,0} parameter(0)
  ROOT exp.1 = f32[2,3]{1,0} exponential(x.6)
}

ENTRY main.4 {
  constant.2 = s32[] constant(0)
  i.1 = s32[] parameter(0)
  constant.3 = s32[] constant(2)
  clamp.1 = s32[] clamp(constant.2, i.1, constant.3)
  x.7 = f32[2,3]{1,0} parameter(1)
  ROOT cond.1 = f32[2,3]{1,0} conditional(clamp.1, x.7, x.7, x.7), branch_computations={region_0.1, region_1.2, region_2.3}
}
"#,
    ),
    (
        "int8_dot",
        r#"HloModule jit__lambda, entry_computation_layout={(f32[2,3]{1,0}, f32[3,4]{1,0})->s32[2,4]{1,0}}

ENTRY main.1 {
  a.1 = f32[2,3]{1,0} parameter(0)
  convert_element_type.2 = s8[2,3]{1,0} convert(a.1)
  b.1 = f32[3,4]{1,0} parameter(1)
  convert_element_type.3 = s8[3,4]{1,0} convert(b.1)
  ROOT dot_general.1 = s32[2,4]{1,0} dot(convert_element_type.2, convert_element_type.3), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"#,
    ),
];

#[test]
fn real_xla_modules_verify() {
    for (name, text) in XLA_MODULES {
        let m = rxla_ir::parse_module(text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        verify_module(&m).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    // The same gather with a wrong declared result is rejected (by the
    // reader, which runs shape inference on every instruction).
    let bad = XLA_MODULES[0]
        .1
        .replace("ROOT gather.1 = f32[2,3,4]", "ROOT gather.1 = f32[2,3,5]");
    let msg = match rxla_ir::parse_module(&bad, "bad") {
        Err(e) => e.to_string(),
        Ok(m) => verify_module(&m).unwrap_err().to_string(),
    };
    assert!(msg.contains("differs from inferred f32[2,3,4]"), "{msg}");
}
