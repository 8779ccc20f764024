//! Bounded dynamic dimensions across the crates: the builder calls, the
//! evaluator's values (hand-computed), arguments above the bound, the
//! JIT's two routes (refused natively, the whole module on the
//! evaluator with the fallback), and the text round trip of every place a
//! shape is written. The evaluator's run-time errors (sizes outside the
//! bound, ops without a rule for dynamic operands, operands of different
//! sizes) are filetests in `tests/filetests/dynamic/`.

use rxla_eval::{RunOptions, evaluate};
use rxla_ir::builder::ModuleBuilder;
use rxla_ir::{
    BinaryOp, ElementType, Literal, Module, Shape, parse_module, print_module, verify_module,
};

fn parse(text: &str) -> Module {
    parse_module(text, "dynamic.hlo").unwrap_or_else(|e| panic!("{e}"))
}

fn run(m: &Module, args: &[Literal]) -> Result<Literal, String> {
    evaluate(m, args, &RunOptions::default()).map_err(|e| e.to_string())
}

fn f32s(l: &Literal) -> Vec<f32> {
    l.as_slice::<f32>().unwrap().to_vec()
}

fn s32(l: &Literal) -> i32 {
    l.as_slice::<i32>().unwrap()[0]
}

/// Builds `x: f32[4,2]`, `n: s32[]` → (sum over dim 0 of (x·x)[:n], its
/// size, x·x sliced to n rows) with the builder.
fn built() -> Module {
    let mut mb = ModuleBuilder::new("built");
    let add = {
        let mut b = mb.computation("add");
        let f = b.scalar_binary_computation(BinaryOp::Add, ElementType::F32);
        drop(b);
        f.unwrap()
    };
    let mut b = mb.computation("main");
    let x = b
        .parameter(0, Shape::array(ElementType::F32, vec![4, 2]).unwrap(), "x")
        .unwrap();
    let n = b
        .parameter(1, Shape::scalar(ElementType::S32), "n")
        .unwrap();
    let d = b.set_dimension_size(x, n, 0).unwrap();
    assert_eq!(b.shape(d).unwrap().to_string(), "f32[<=4,2]{1,0}");
    let sq = b.binary(BinaryOp::Multiply, d, d, &[]).unwrap();
    let zero = b.constant_r0(0f32).unwrap();
    let sum = b.reduce(&[sq], &[zero], add, &[0]).unwrap();
    let g = b.get_dimension_size(sq, -2).unwrap();
    assert_eq!(b.shape(g).unwrap().to_string(), "s32[]");
    let root = b.tuple(&[sum, g, sq]).unwrap();
    let id = b.build(root).unwrap();
    mb.build_entry(id).unwrap()
}

#[test]
fn builder_and_evaluator_agree_with_hand_computed_values() {
    let m = built();
    verify_module(&m).unwrap();
    let x = Literal::mat(&[&[1f32, 2.], &[3., 4.], &[5., 6.], &[7., 8.]]).unwrap();
    // n = 3: rows 0..3 squared and summed per column.
    let r = run(&m, &[x.clone(), Literal::scalar(3i32)]).unwrap();
    let Literal::Tuple(t) = r else { panic!() };
    assert_eq!(f32s(&t[0]), vec![1. + 9. + 25., 4. + 16. + 36.]);
    assert_eq!(s32(&t[1]), 3);
    assert_eq!(t[2].shape().to_string_no_layout(), "f32[3,2]");
    assert_eq!(f32s(&t[2]), vec![1., 4., 9., 16., 25., 36.]);
    // n = 0: an empty valid part sums to the init value.
    let r = run(&m, &[x, Literal::scalar(0i32)]).unwrap();
    let Literal::Tuple(t) = r else { panic!() };
    assert_eq!(f32s(&t[0]), vec![0., 0.]);
    assert_eq!(s32(&t[1]), 0);
    assert_eq!(t[2].shape().to_string_no_layout(), "f32[0,2]");
}

#[test]
fn builder_rejects_bad_dimensions_and_sizes() {
    let mut mb = ModuleBuilder::new("bad");
    let mut b = mb.computation("main");
    let x = b
        .parameter(0, Shape::array(ElementType::F32, vec![4]).unwrap(), "x")
        .unwrap();
    let n64 = b
        .parameter(1, Shape::scalar(ElementType::S64), "n")
        .unwrap();
    let n = b.constant_r0(1i32).unwrap();
    let e = b.set_dimension_size(x, n, 1).unwrap_err().to_string();
    assert!(e.contains("out of range"), "{e}");
    let e = b.set_dimension_size(x, n64, 0).unwrap_err().to_string();
    assert!(e.contains("must be s32[]"), "{e}");
    let e = b.get_dimension_size(x, 3).unwrap_err().to_string();
    assert!(e.contains("out of range"), "{e}");
}

#[test]
fn arguments_above_the_bound_are_refused() {
    let m = parse(
        "HloModule m
ENTRY main {
  ROOT p = f32[<=3,2]{1,0} parameter(0)
}
",
    );
    let ok = Literal::mat(&[&[1f32, 2.], &[3., 4.]]).unwrap();
    let got = run(&m, &[ok]).unwrap();
    assert_eq!(got.shape().to_string_no_layout(), "f32[2,2]");
    assert_eq!(f32s(&got), vec![1., 2., 3., 4.]);
    let big = Literal::from_vec(&[4, 2], vec![0f32; 8]).unwrap();
    assert!(run(&m, &[big]).unwrap_err().contains("expected f32[<=3,2]"));
    let wrong = Literal::from_vec(&[2, 3], vec![0f32; 6]).unwrap();
    assert!(run(&m, &[wrong]).is_err());
    // A huge bound is refused before anything is allocated for it.
    let huge = parse(
        "HloModule m
ENTRY main {
  ROOT p = f32[<=1099511627776]{0} parameter(0)
}
",
    );
    let e = run(&huge, &[Literal::vec1(vec![1f32])]).unwrap_err();
    assert!(e.contains("more than max_elements"), "{e}");
}

#[test]
fn jit_refuses_natively_and_runs_on_the_evaluator_with_the_fallback() {
    let m = built();
    let native = rxla_jit::CompileOptions {
        allow_interpreter_fallback: false,
        ..rxla_jit::CompileOptions::default()
    };
    let e = rxla_jit::compile(&m, &native).err().unwrap().to_string();
    assert!(
        e.contains("unsupported") && e.contains("main/") && e.contains("dynamic dimensions"),
        "{e}"
    );
    let exe = rxla_jit::compile(&m, &rxla_jit::CompileOptions::default()).unwrap();
    assert_eq!(exe.stats().fallbacks.len(), 1);
    let x = Literal::mat(&[&[1f32, 2.], &[3., 4.], &[5., 6.], &[7., 8.]]).unwrap();
    let args = [x, Literal::scalar(2i32)];
    assert_eq!(exe.run(&args).unwrap(), run(&m, &args).unwrap());
    let mut out = vec![0u8; 64];
    let e = exe
        .run_into(&[&[0u8; 32], &[0u8; 4]], &mut [&mut out])
        .unwrap_err()
        .to_string();
    assert!(e.contains("dynamic dimensions"), "{e}");
}

#[test]
fn text_round_trips_everywhere_a_shape_is_written() {
    let text = "HloModule rt, entry_computation_layout={(f32[<=4,3]{0,1}, (s32[<=2]{0}, f32[]))->(f32[<=4,3]{1,0}, s32[])}

ENTRY main {
  p = f32[<=4,3]{0,1} parameter(0)
  q = (s32[<=2]{0}, f32[]) parameter(1)
  c = f32[<=4,3]{1,0} copy(p)
  g = s32[] get-dimension-size(c), dimensions={0}
  ROOT t = (f32[<=4,3]{1,0}, s32[]) tuple(c, g)
}
";
    let m = parse(text);
    let printed = print_module(&m);
    assert!(
        printed.contains("f32[<=4,3]{0,1} parameter(0)"),
        "{printed}"
    );
    assert!(
        printed.contains("(s32[<=2]{0}, f32[]) parameter(1)"),
        "{printed}"
    );
    assert!(
        printed.contains("entry_computation_layout={(f32[<=4,3]{0,1}, (s32[<=2]{0}, f32[]))->(f32[<=4,3]{1,0}, s32[])}"),
        "{printed}"
    );
    let again = print_module(&parse(&printed));
    assert_eq!(printed, again);
    // A layout that drops the dynamism does not match the ENTRY.
    let bad = text.replacen("(f32[<=4,3]{0,1}, (s32", "(f32[4,3]{0,1}, (s32", 1);
    let e = parse_module(&bad, "bad.hlo").unwrap_err().to_string();
    assert!(
        e.contains("bad.hlo:1:") && e.contains("entry_computation_layout"),
        "{e}"
    );
}
